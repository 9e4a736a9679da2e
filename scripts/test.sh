#!/usr/bin/env bash
# Builds xpose (CUDA too when nvcc is found) and runs the whole test suite with ctest.
# GPU tests (label gpu) that need a device skip themselves when none is present; the dispatch
# rules and the refusals of GPU plans and launchers run without one.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${XPOSE_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 1500 "$@"
