#!/usr/bin/env bash
# Runs on the device machine: host plans through the GPU and files larger than the process's
# memory (issue 41). Builds what it needs for sm_90 unless a build came along, then runs, by
# PARTS (default "tests file bench"):
#   tests  the GPU tests of host plans (HostViaGpu*) and the CPU tests of host schedules, the
#          cost model and the staging chunks (xpose_host_tests);
#   file   a FILE_GIB (default 6) GiB .npy of uint64 (element (i, j) = i * C + j, written by
#          xpose_index_matrix_file, no NumPy needed) transposed in place by `xpose transpose
#          --in-place --progress --gpu never` under `ulimit -v` of half the file (the address
#          space limit also bars CUDA's large reservations, hence the CPU; no less than 1 GiB,
#          which loading the CUDA libraries needs), then every element
#          checked; the file goes to FILE_DIR (default /tmp) and is removed;
#   bench  bench/host/host_transpose.cpp for the sizes given (default 1 4 16 GiB): overlapped,
#          synchronous, staged and registered pageable memory, out of core pinned and staged,
#          the cost model's choice and the CPU backend, against the pinned H2D + D2H bound.
# Logs go under $OUT (default ./device-out).
#   usage: [PARTS=...] [FILE_GIB=N] scripts/device_host_check.sh [build-dir] [GiB ...]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-host-device}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1 4 16)
PARTS=${PARTS:-tests file bench}
FILE_GIB=${FILE_GIB:-6}
FILE_DIR=${FILE_DIR:-/tmp}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
targets=(xpose_host_tests xpose_host_bench xpose_cli xpose_index_matrix_file)
if [[ ! -x $BUILD/tests/xpose_host_tests || ! -x $BUILD/bench/xpose_host_bench ||
  ! -x $BUILD/tools/xpose/xpose || ! -x $BUILD/bench/xpose_index_matrix_file ]]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DXPOSE_BUILD_BENCHMARKS=ON >"$OUT/host_build.log" 2>&1 &&
    cmake --build "$BUILD" -j16 --target "${targets[@]}" >>"$OUT/host_build.log" 2>&1
  echo "== build in $BUILD: rc $?"
fi

if [[ " $PARTS " == *" tests "* ]]; then
  start=$SECONDS
  timeout 300 "$BUILD/tests/xpose_host_tests" >"$OUT/host_tests.log" 2>&1
  echo "== host tests (GPU and CPU): rc $? in $((SECONDS - start)) s" \
    "($(grep -E '^\[  (PASSED|FAILED) ' "$OUT/host_tests.log" | tr '\n' ' '))"
  grep -E '^\[  FAILED  \]' "$OUT/host_tests.log" | head -20
fi

if [[ " $PARTS " == *" file "* ]]; then
  start=$SECONDS
  cols=40000
  rows=$((FILE_GIB * 1024 * 1024 * 1024 / 8 / cols / 256 * 256))  # factors for the blocked route
  file="$FILE_DIR/xpose-host-check-$$.npy"
  # Half the file, and no less than 1 GiB: the CUDA libraries the CLI links take ~0.6 GiB of
  # address space just to load.
  limit_kib=$((FILE_GIB * 1024 * 1024 / 2))
  [ "$limit_kib" -ge 1048576 ] || limit_kib=1048576
  "$BUILD/bench/xpose_index_matrix_file" write "$file" "$rows" "$cols"
  echo "== file: $rows x $cols uint64 ($(du -h "$file" | cut -f1)) written in" \
    "$((SECONDS - start)) s; transposing under ulimit -v $((limit_kib / 1024)) MiB"
  (
    # OpenBLAS (linked for the CLI's peers) starts a thread per core at load, each reserving
    # stack address space: one thread, or its start fails under the limit.
    export OPENBLAS_NUM_THREADS=1
    ulimit -v "$limit_kib" &&
      timeout 400 "$BUILD/tools/xpose/xpose" transpose "$file" --in-place --progress --gpu never
  ) >"$OUT/file_transpose.log" 2>"$OUT/file_progress.log"
  rc=$?
  cat "$OUT/file_transpose.log"
  echo "   progress bar, last frame: $(tr '\r' '\n' <"$OUT/file_progress.log" | grep -v '^\s*$' |
    tail -1)"
  "$BUILD/bench/xpose_index_matrix_file" check "$file" "$rows" "$cols"
  echo "== file transposed under ulimit -v: rc $rc, check rc $? in $((SECONDS - start)) s"
  rm -f "$file" "$file.journal"
fi

if [[ " $PARTS " == *" bench "* ]]; then
  timeout 360 "$BUILD/bench/xpose_host_bench" "${SIZES[@]}" 2>&1 | tee "$OUT/host_bench.txt"
  echo "== host bench: rc ${PIPESTATUS[0]}"
fi
