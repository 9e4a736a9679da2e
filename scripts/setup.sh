#!/usr/bin/env bash
# Installs the Debian packages that the build, the tests and the plots need, when any is missing;
# does nothing (and prints one line) when all are there. Runs apt-get as root, through sudo
# otherwise. Names are Debian 12's.
#   build:    cmake g++ make, CLI11 and nlohmann/json (header-only, for the xpose tool)
#   tests:    GoogleTest (libgtest-dev; the suite uses no GoogleMock)
#   optional: Google Benchmark (bench/), OpenBLAS (a peer in `xpose bench`), ccache (rebuilds),
#             matplotlib and NumPy (plots)
#   python:   the headers and venv module of Debian's python3, for the extension and the virtual
#             environment of the Python tests; the Python packages themselves (nanobind,
#             scikit-build-core, NumPy, pytest) come from PyPI in scripts/test.sh
set -euo pipefail

packages=(cmake g++ make libcli11-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev
          libopenblas-dev ccache python3-matplotlib python3-numpy python3-dev python3-venv)

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "setup: not a Debian system; install these (or their equivalents) yourself: ${packages[*]}"
  exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "setup: missing ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
  sudo=(sudo)
fi

echo "setup: installing ${missing[*]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
       "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
         "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "setup: apt-get failed" >&2
  exit 1
fi
echo "setup: done"
