#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages, as root), configures and builds
# skelcast into ./build. Used by both Quick start commands of the README and CI
# (the second through scripts/test.sh). libclang-rt-19-dev holds the sanitizer
# and libFuzzer runtimes of clang-19, for scripts/test.sh's ./build-asan.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config
          llvm-19-dev libclang-19-dev clang-19 libclang-rt-19-dev
          libomp-19-dev libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libbenchmark-dev
          libisl-dev  # the dependence test of src/frontend/PolyDependence.cpp
          chromium fonts-dejavu-core)  # chromium: the HTML report test (ctest batch.html_in_chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
