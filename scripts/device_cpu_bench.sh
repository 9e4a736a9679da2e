#!/usr/bin/env bash
# Runs `xpose bench --device cpu` on the device machine's host CPUs (no GPU needed) at 2, 8 and
# 16 threads, one thread per core (OMP_PROC_BIND=close OMP_PLACES=cores): every result verified,
# ratios to a memcpy at the same thread count and to OpenBLAS in the same run. One JSON file per
# thread count goes under $OUT (cpu_bench_<N>.json, with its log); a short table comes last:
# the memcpy bandwidth and each group's median x copy and x peer per thread count, then every
# out-of-place case.
#   usage: scripts/device_cpu_bench.sh PATH/TO/xpose [THREADS...]  (default 2 8 16; OUT defaults
#          to ./device-out)
#   XPOSE_LIBS=DIR is put in front of LD_LIBRARY_PATH (libraries carried along: OpenBLAS).
#   POLICIES="P1;P2;..." also times these out-of-place policies (src/cpu/copy_policy.hpp, e.g.
#   "src=512 dst=1024;down;nta") on every out-of-place case at every thread count, one line under
#   each case, in place of the OpenBLAS peer; the table then lists them.
#   GROUP=TEXT runs only the default cases whose group contains TEXT (e.g. out-of-place).
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 || ! -x $1 ]]; then
  echo "usage: $0 PATH/TO/xpose [THREADS...]" >&2
  exit 2
fi
XPOSE=$1
shift
THREADS=("$@")
[[ ${#THREADS[@]} -gt 0 ]] || THREADS=(2 8 16)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
[[ -n ${XPOSE_LIBS:-} ]] && export LD_LIBRARY_PATH=$XPOSE_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=close OMP_PLACES=cores
[[ -n ${POLICIES:-} ]] && export XPOSE_CPU_COPY_POLICIES=$POLICIES

{
  lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node\(s\)|L[123])'
  echo "transparent hugepages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
} | tee "$OUT/cpu.txt"

for n in "${THREADS[@]}"; do
  start=$SECONDS
  timeout 150 "$XPOSE" bench --device cpu --threads "$n" ${GROUP:+--group "$GROUP"} \
    --json-file "$OUT/cpu_bench_$n.json" >"$OUT/cpu_bench_$n.log" 2>/dev/null
  echo "== $n threads: rc $?, $((SECONDS - start)) s"
done

echo
echo "===== summary ====="
python3 - "$OUT" "${THREADS[@]}" <<'EOF'
import json, os, sys
out, counts = sys.argv[1], sys.argv[2:]
runs = {}
for n in counts:
    path = os.path.join(out, f"cpu_bench_{n}.json")
    if os.path.exists(path):
        with open(path) as f:
            runs[n] = json.load(f)
def num(v, fmt):
    return "-" if v is None else format(v, fmt)
for n, r in runs.items():
    detail = r["devices"][0]["detail"]
    print(f"{n} threads: {detail}; commit {r['commit']}; failures {r['failures']}")
groups = []
for r in runs.values():
    for s in r["summaries"]:
        if s["group"] not in groups:
            groups.append(s["group"])
print()
print(f"{'group':<28}" + "".join(f"{n + ' thr x copy':>16}{'x peer':>8}" for n in runs))
for g in groups:
    line = f"{g:<28}"
    for r in runs.values():
        s = next((s for s in r["summaries"] if s["group"] == g), {})
        line += f"{num(s.get('median_ratio_to_copy'), '.3f'):>16}"
        line += f"{num(s.get('median_ratio_to_peer'), '.2f'):>8}"
    print(line)
print()
print(f"{'out of place':<26}" + "".join(f"{n + ' thr x copy':>16}" for n in runs))
first = next(iter(runs.values()), {"rows": []})
for i, row in enumerate(first["rows"]):
    if row["in_place"]:
        continue
    label = f"{row['rows']}x{row['cols']} {row['elem_size']}B" + (
        f" batch {row['batch']}" if row["batch"] > 1 else "")
    print(f"{label:<26}" + "".join(
        f"{num(r['rows'][i]['ratio_to_copy'], '.3f'):>16}" for r in runs.values()))
    for j, st in enumerate(row.get("stages", [])):
        print(f"  {st['label']:<40}" + "".join(
            f"{num(r['rows'][i]['stages'][j]['ratio_to_copy'], '.3f'):>8}"
            for r in runs.values() if len(r['rows'][i].get('stages', [])) > j))
EOF
