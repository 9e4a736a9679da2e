#!/usr/bin/env bash
# Runs on the device machine: host plans through the GPU (issue 41). Builds the host tests and the
# host bench for sm_90 (unless a build came along), runs the GPU tests of host plans
# (HostViaGpu*), the CPU tests of host schedules and files, then bench/host/host_transpose.cpp
# (overlapped and synchronous schedules, pinned, registered and staged memory, out of core, the
# cost model's choice and the CPU backend, against the pinned H2D + D2H bound of the same bytes).
# Logs go under $OUT (default ./device-out).
#   usage: scripts/device_host_check.sh [build-dir] [GiB ...]   (default build-host-device; 1 4 16)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-host-device}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1 4 16)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
if [[ ! -x $BUILD/tests/xpose_host_tests || ! -x $BUILD/bench/xpose_host_bench ]]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DXPOSE_BUILD_BENCHMARKS=ON >"$OUT/host_build.log" 2>&1 &&
    cmake --build "$BUILD" -j16 --target xpose_host_tests xpose_host_bench xpose_io_tests \
      xpose_cli >>"$OUT/host_build.log" 2>&1
  echo "== build in $BUILD: rc $?"
fi
timeout 300 "$BUILD/tests/xpose_host_tests" >"$OUT/host_tests.log" 2>&1
echo "== host tests (GPU and CPU): rc $? ($(grep -E '^\[  (PASSED|FAILED) ' "$OUT/host_tests.log" | tr '\n' ' '))"
timeout 300 "$BUILD/bench/xpose_host_bench" "${SIZES[@]}" 2>&1 | tee "$OUT/host_bench.txt"
echo "== host bench: rc ${PIPESTATUS[0]}"
