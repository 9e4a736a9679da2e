#!/usr/bin/env bash
# Runs on a device machine with several GPUs, over binaries built elsewhere (sm_90): the
# distributed transposition's tests (tests/dist/xpose_dist_tests, all visible GPUs and subsets),
# its benchmark on 2 and 4 GPUs as visible (bench/dist/xpose_dist_bench: xpose next to NCCL's
# all-to-all and the local stages alone) and the PyTorch composite peer under torchrun
# (bench/dist/torch_composite.py). Logs and JSON under $OUT; a short table last. About 5 minutes,
# at most 9 (the timeouts of its steps).
#   usage: scripts/device_dist_check.sh [build-dir]   (default build-dist; OUT defaults to
#          ./device-out). The build folder needs libxpose.so.0 (and the file it names),
#          tests/dist/xpose_dist_tests and bench/dist/xpose_dist_bench.
#   SHAPES="MxNxE ..." replaces the benchmark's shapes (both benchmarks); SKIP_TORCH=1 leaves out
#   the PyTorch peer; RUNS sets the timed runs (5).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build-dist}
OUT=${OUT:-$PWD/device-out}
RUNS=${RUNS:-5}
mkdir -p "$OUT"
summary=()
note() { summary+=("$1"); echo "== $1"; }

# NVLink multicast stays off in NCCL, PyTorch and NVSHMEM (the device machines require it).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

# libnccl.so.2: the system's, the CUDA toolkit's, or PyTorch's nvidia-nccl wheel.
if ! ldconfig -p 2>/dev/null | grep -q 'libnccl.so.2 '; then
  wheel=$(python3 -c 'import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], "lib"))' \
    2>/dev/null)
  for dir in /usr/local/cuda/lib /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
    "$wheel"; do
    if [[ -n $dir && -e $dir/libnccl.so.2 ]]; then
      export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      break
    fi
  done
fi
export LD_LIBRARY_PATH=$PWD/$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvidia-smi topo -m
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd "$BUILD/tests/dist/xpose_dist_tests" | grep -E 'nccl|xpose|cudart|not found'
} >"$OUT/dist_device.txt" 2>&1
cat "$OUT/dist_device.txt"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
note "GPUs visible: $gpus"

# 1. Tests: every P the visible GPUs allow (1 to 4), subsets and other device orders.
timeout 150 "$BUILD/tests/dist/xpose_dist_tests" --gtest_output="json:$OUT/dist_tests.json" \
  >"$OUT/dist_tests.log" 2>&1
note "dist tests: rc $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/dist_tests.log" | tr '\n' ' '))"

# 2. Benchmark: xpose, NCCL's all-to-all, the local stages, the exchange; 2 and 4 GPUs.
counts=2
[[ $gpus -ge 4 ]] && counts=2,4
[[ $gpus -lt 2 ]] && counts=1
shape_args=()
for s in ${SHAPES:-}; do shape_args+=(--shape "$s"); done
timeout 210 "$BUILD/bench/dist/xpose_dist_bench" --gpus "$counts" --runs "$RUNS" "${shape_args[@]}" \
  --json "$OUT/dist_bench.json" >"$OUT/dist_bench.log" 2>&1
note "xpose_dist_bench --gpus $counts: rc $?"

# 3. The PyTorch composite on the same shapes (those divisible by P).
if [[ -z ${SKIP_TORCH:-} && $gpus -ge 2 ]]; then
  for p in ${counts//,/ }; do
    PYTHONUNBUFFERED=1 timeout 90 torchrun --standalone --nproc-per-node "$p" \
      bench/dist/torch_composite.py --runs "$RUNS" "${shape_args[@]}" \
      --json "$OUT/torch_composite_$p.json" >"$OUT/torch_composite_$p.log" 2>&1
    note "torch composite on $p GPUs: rc $?"
  done
fi

echo
echo "===== xpose_dist_bench ====="
sed -n '/^GPUs /,$p' "$OUT/dist_bench.log"
if [[ -z ${SKIP_TORCH:-} ]]; then
  echo "===== torch composite (ms) ====="
  python3 - "$OUT" <<'EOF'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "torch_composite_*.json"))):
    report = json.load(open(path))
    for r in report["results"]:
        if "skipped" in r:
            print(f'{r["gpus"]} GPUs {r["rows"]}x{r["cols"]}x{r["elem_size"]}: {r["skipped"]}')
            continue
        print(f'{r["gpus"]} GPUs {r["rows"]}x{r["cols"]}x{r["elem_size"]}: composite '
              f'{r["composite_ms"]:.2f}, all_to_all_single {r["all_to_all_ms"]:.2f}, permutes '
              f'{r["permutes_ms"]:.2f}, ratio {r["ratio_to_all_to_all"]:.2f}, correct {r["correct"]}')
EOF
fi
echo "===== summary ====="
printf '%s\n' "${summary[@]}"
