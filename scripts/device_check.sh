#!/usr/bin/env bash
# Runs on the device machine (a GPU host) over a build made elsewhere for sm_90 (or builds one):
# the GPU tests, compute-sanitizer racecheck / synccheck / memcheck on the small-shape tests,
# `xpose bench --device cuda` (every result verified against the CPU reference, ratios to a D2D
# copy and to cuBLAS geam in the same run) and the PyTorch peer. Logs go under $OUT; a short
# table is printed last.
#   usage: scripts/device_check.sh [build-dir]     (default build-cuda; OUT defaults to ./device-out)
#   TUNE=1 also times the candidate tile policies (bench/device_tune_policies.cu); TUNE=odd
#   times only its odd-shape and edge-shape part (copy_unaligned policies, the dispatch);
#   TUNE=any copy_any_size's policies (elements of 3 to 15 bytes that are not powers of two);
#   TUNE=skinny skinny_any_size's slab sizes next to copy_any_size and the super-element kernel;
#   TUNE=large copy_tuned's standard and large tiles (copy_tuned_large) on aligned shapes;
#   TUNE=unaligned copy_unaligned's policies, with smaller tiles at more blocks per SM;
#   TUNE=more-blocks copy_sectors' and copy_tuned's 1- and 2-byte tiles at more blocks per SM;
#   TUNE=any-wide copy_any_size's 3-, 5- and 7-byte tiles of wider rows or at more blocks per SM.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-cuda}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
summary=()
note() { summary+=("$1"); echo "== $1"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv \
  >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

# 1. Build, unless the binaries came along (they run from any path).
if [[ ! -x $BUILD/tests/xpose_gpu_tests || ! -x $BUILD/tools/xpose/xpose ]]; then
  BUILD=build-device
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    >"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD" -j16 --target xpose_gpu_tests xpose_static xpose_cli >>"$OUT/build.log" 2>&1
  note "build in $BUILD: rc $?"
fi
GPU_TESTS=$BUILD/tests/xpose_gpu_tests

# 2. GPU tests (the binary directly: it does not need the source path).
timeout 300 "$GPU_TESTS" >"$OUT/gpu_tests.log" 2>&1
note "gpu tests: rc $? ($(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gpu_tests.log" | tr '\n' ' '))"

# 3. compute-sanitizer on the small-shape tests.
for tool in racecheck synccheck memcheck; do
  echo "=== $tool" >>"$OUT/sanitizer.log"
  timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$GPU_TESTS" \
    --gtest_filter='*SmallSanitizerShapes*' >"$OUT/sanitizer_$tool.tmp" 2>&1
  rc=$?
  cat "$OUT/sanitizer_$tool.tmp" >>"$OUT/sanitizer.log"
  note "compute-sanitizer $tool: rc $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
    "$OUT/sanitizer_$tool.tmp" | tail -1))"
  rm -f "$OUT/sanitizer_$tool.tmp"
done

# 4. Benchmarks.
if [[ -n ${TUNE:-} ]]; then
  cmake --build "$BUILD" -j16 --target xpose_device_tune >>"$OUT/build.log" 2>&1
  case $TUNE in
    odd) flag=--odd-only ;;
    any) flag=--any-size ;;
    skinny) flag=--skinny-any-size ;;
    large) flag=--large-tiles ;;
    unaligned) flag=--unaligned ;;
    more-blocks) flag=--more-blocks ;;
    any-wide) flag=--any-size-wide ;;
    *) flag= ;;
  esac
  timeout 200 "$BUILD/bench/xpose_device_tune" $flag >"$OUT/device_tune.log" 2>&1
  note "device_tune: rc $?"
fi
timeout 400 "$BUILD/tools/xpose/xpose" bench --device cuda --json-file "$OUT/xpose_bench.json" \
  >"$OUT/xpose_bench.log" 2>"$OUT/xpose_bench.progress"
note "xpose bench --device cuda: rc $?"
if [[ -z ${SKIP_TORCH:-} ]]; then
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/peers/torch_transpose.py >"$OUT/torch.log" 2>&1
  note "torch peer: rc $?"
fi

echo
echo "===== summary ====="
printf '%s\n' "${summary[@]}"
cat "$OUT/xpose_bench.log"
[[ -f $OUT/device_tune.log ]] && grep -v "^  copy_unaligned" "$OUT/device_tune.log"
if [[ -f $OUT/torch.log ]]; then tail -n 25 "$OUT/torch.log"; fi
