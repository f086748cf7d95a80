#!/usr/bin/env bash
# Configures and builds AugLab into build/ (Release, ccache when present). Extra arguments go to
# CMake's configure step, e.g. -DAUGLAB_CUDA=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)"
