#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, and runs every test suite
# (GUI and GL suites under Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh -DAUGLAB_TESTS=ON
cd build
xvfb-run -a ctest --output-on-failure -j"$(nproc)" --timeout 600
