#!/usr/bin/env bash
# Builds xpose (CUDA too when nvcc is found) and runs the whole test suite with ctest.
# GPU tests (label gpu) skip themselves when no CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${XPOSE_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 1500 "$@"
