#!/usr/bin/env bash
# Runs on the device machine: the layout conversions (issue 40) over binaries built elsewhere for
# sm_90. The GPU layout tests, compute-sanitizer racecheck / synccheck / memcheck on the small
# layout tests, `xpose bench --group 'cuda layout'` (the DL paper's Table 1 arrays and 100 x their
# rows; aos -> asta barrier-sync and PTTWAC, soa -> asta automatic and PTTWAC, asta -> aos/soa,
# aos <-> soa; every run checked, ratios to a D2D copy of the same bytes in the same run), and
# ell_spmv_gpu on the Table 1 sizes and with --rows-scale 100 (CSV rows for
# examples/ell_spmv/plot_figure6.py, plotted here when matplotlib is present). Everything goes
# under $OUT (default ./device-out); a short table is printed last. About 3-4 minutes on an H200.
#   usage: scripts/device_layout_check.sh [build-dir | BINARIES.tgz] [example-build-dir]
#          (defaults build-layout and build-layout-example; REPS=N timed runs per bench row,
#          default 5). A .tgz holds the three binaries by their paths from the repository root
#          and is unpacked there first: they take about 70 MB, 33 MB packed.
# Build here (see docs/layouts.md):
#   cmake -S . -B build-layout -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-layout -j --target xpose_gpu_tests xpose_cli
#   cmake -S examples/ell_spmv -B build-layout-example -DCMAKE_CUDA_ARCHITECTURES=90
#   cmake --build build-layout-example -j --target ell_spmv_gpu
#   mkdir -p build-carry && tar -czf build-carry/layout-bins.tgz build-layout/tests/xpose_gpu_tests \
#     build-layout/tools/xpose/xpose build-layout-example/ell_spmv_gpu
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-layout}
if [[ $BUILD == *.tgz ]]; then
  tar -xzf "$BUILD" || echo "== cannot unpack $BUILD"
  BUILD=build-layout
fi
EXAMPLE=${2:-build-layout-example}
REPS=${REPS:-5}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
summary=()
note() { summary+=("$1"); echo "== $1"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv \
  >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
GPU_TESTS=$BUILD/tests/xpose_gpu_tests
XPOSE=$BUILD/tools/xpose/xpose
ELL=$EXAMPLE/ell_spmv_gpu
for binary in "$GPU_TESTS" "$XPOSE" "$ELL"; do
  [[ -x $binary ]] || note "missing $binary"
done

# 1. The GPU layout tests.
timeout 150 "$GPU_TESTS" --gtest_filter='GpuLayout*' >"$OUT/layout_gpu_tests.log" 2>&1
note "layout gpu tests: rc $? ($(grep -E '^\[  (PASSED|FAILED) ' "$OUT/layout_gpu_tests.log" |
  tr '\n' ' '))"

# 2. compute-sanitizer on the small ones (every conversion, every forced variant, the views).
small='GpuLayout.SmallSanitizerShapes:GpuLayoutVariant.SmallSanitizerShapes:GpuLayoutView.*'
for tool in racecheck synccheck memcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$GPU_TESTS" \
    --gtest_filter="$small" >"$OUT/layout_sanitizer_$tool.log" 2>&1
  rc=$?
  note "compute-sanitizer $tool: rc $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
    "$OUT/layout_sanitizer_$tool.log" | tail -1))"
done

# 3. The bench: Table 1 arrays and 100 x their rows.
timeout 240 "$XPOSE" bench --device cuda --group 'cuda layout' --reps "$REPS" \
  --json-file "$OUT/layout_bench.json" >"$OUT/layout_bench.log" 2>"$OUT/layout_bench.progress"
note "xpose bench --group 'cuda layout': rc $? ($(grep -c '^\[' "$OUT/layout_bench.progress") cases started)"

# 4. ELL SpMV in every layout (the DL paper's Figure 6).
timeout 60 "$ELL" --csv "$OUT/ell_spmv_gpu.csv" >"$OUT/ell_spmv_gpu.txt" 2>&1
note "ell_spmv_gpu: rc $?"
timeout 120 "$ELL" --rows-scale 100 --reps 5 --csv "$OUT/ell_spmv_gpu_100x.csv" \
  >"$OUT/ell_spmv_gpu_100x.txt" 2>&1
note "ell_spmv_gpu --rows-scale 100: rc $?"
python3 examples/ell_spmv/plot_figure6.py "$OUT/ell_spmv_gpu.csv" "$OUT/ell_spmv_gpu_100x.csv" \
  --out "$OUT/ell-spmv-figure6.png" >"$OUT/plot.log" 2>&1
note "plot_figure6.py: rc $? ($(tail -1 "$OUT/plot.log"))"

echo
echo "===== summary ====="
printf '%s\n' "${summary[@]}"
grep -E '^  == ' "$OUT/layout_bench.log"
grep -E 'FAILED|MISMATCH' "$OUT/layout_bench.log" "$OUT"/ell_spmv_gpu*.txt | head -20
python3 - "$OUT/layout_bench.json" <<'PY'
# Per conversion, variant and steps (with their kernels): the median, least and greatest ratio to
# the copy over the arrays of each group; skipped / failed rows counted apart.
import json, statistics, sys
try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit("no bench JSON: %s" % e)
groups = {}
for r in report["rows"]:
    if r.get("layout_from") is None:
        continue
    key = (r["group"], "%s -> %s" % (r["layout_from"], r["layout_to"]), r["layout_variant"],
           r["chosen_route"])
    g = groups.setdefault(key, {"ratios": [], "skipped": 0, "failed": 0})
    if r["skipped"]:
        g["skipped"] += 1
    elif not r["verified"]:
        g["failed"] += 1
    elif r["ratio_to_copy"] is not None:
        g["ratios"].append(r["ratio_to_copy"])
print("%-16s %-20s %-13s %4s %6s %6s %6s %5s  %s" % (
    "group", "conversion", "variant", "rows", "median", "min", "max", "skip", "steps"))
for (group, conversion, variant, steps), g in groups.items():
    x = g["ratios"]
    stats = ("%6.3f %6.3f %6.3f" % (statistics.median(x), min(x), max(x))) if x else "%6s %6s %6s" % (
        "-", "-", "-")
    print("%-16s %-20s %-13s %4d %s %2d/%-2d  %s" % (
        group.replace("cuda layout", "layout"), conversion, variant, len(x), stats, g["skipped"],
        g["failed"], steps or "-"))
PY
for f in ell_spmv_gpu ell_spmv_gpu_100x; do
  echo "--- $f"
  cat "$OUT/$f.txt"
done
