#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh; XPOSE_SKIP_SETUP=1 skips it), builds xpose (CUDA
# too when nvcc is found) and runs the whole test suite with ctest, printing the wall time of
# each step. GPU tests (label gpu) that need a device skip themselves when none is present; the
# dispatch rules and the refusals of GPU plans and launchers run without one.
# Arguments go to ctest (e.g. -L cpu, -R Square). XPOSE_BUILD_DIR picks the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${XPOSE_BUILD_DIR:-build}

step_start=0
begin() { step_start=$(date +%s); }
took() { echo "== $1: $(($(date +%s) - step_start)) s"; }

if [ "${XPOSE_SKIP_SETUP:-0}" != 1 ]; then
  begin
  bash scripts/setup.sh
  took setup
fi

begin
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"
took configure+build

begin
status=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 1500 "$@" || status=$?
took tests
exit "$status"
