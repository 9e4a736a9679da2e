#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh; XPOSE_SKIP_SETUP=1 skips it), builds xpose (CUDA
# too when nvcc is found) with its Python extension and runs the whole test suite, printing the
# wall time of each step: the GoogleTest suite with ctest, then the Python tests with pytest on
# the CPU. GPU tests (label gpu, and python/tests/test_gpu.py) that need a device skip themselves
# when none is present; the dispatch rules and the refusals of GPU plans and launchers run
# without one.
#
# Python: a virtual environment in the build folder (<build>/python-venv) gets nanobind,
# scikit-build-core, NumPy and pytest from PyPI. The extension is built in this same build tree
# (XPOSE_BUILD_PYTHON=ON): it links the library the build already compiled, so the CUDA kernels
# are compiled once, and pytest runs on <build>/python. Then `pip install .` builds the package
# as users get it, without the CUDA backend (the CPU library compiles in seconds), and pytest
# runs again on the installed package.
#
# Arguments go to ctest (e.g. -L cpu, -R Square). XPOSE_BUILD_DIR picks the build folder,
# XPOSE_PYTHON the interpreter (python3 by default); XPOSE_SKIP_PYTHON=1 leaves Python out.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${XPOSE_BUILD_DIR:-build}
python_steps=1
[ "${XPOSE_SKIP_PYTHON:-0}" != 1 ] || python_steps=0

step_start=0
begin() { step_start=$(date +%s); }
took() { echo "== $1: $(($(date +%s) - step_start)) s"; }

if [ "${XPOSE_SKIP_SETUP:-0}" != 1 ]; then
  begin
  bash scripts/setup.sh
  took setup
fi

cmake_python=(-DXPOSE_BUILD_PYTHON=OFF)
if [ "$python_steps" = 1 ]; then
  begin
  mkdir -p "$build"
  venv="$(cd "$build" && pwd)/python-venv"
  [ -x "$venv/bin/python" ] || "${XPOSE_PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    nanobind scikit-build-core numpy pytest
  cmake_python=(-DXPOSE_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$venv/bin/python")
  took "python setup"
fi

begin
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${cmake_python[@]}"
cmake --build "$build" -j "$(nproc)"
took configure+build

begin
status=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 1500 "$@" || status=$?
took tests

if [ "$python_steps" = 1 ]; then
  begin
  PYTHONPATH="$build/python" "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests ||
    status=$?
  took "python tests"

  begin
  CMAKE_ARGS="-DXPOSE_ENABLE_CUDA=OFF" "$venv/bin/python" -m pip install -q \
    --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps . || status=$?
  env -u PYTHONPATH "$venv/bin/python" -c \
    'import xpose; print("python package: xpose", xpose.__version__, "from", xpose.__file__)'
  env -u PYTHONPATH "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests ||
    status=$?
  took "python package (pip install ., pytest)"
fi
exit "$status"
