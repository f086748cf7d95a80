#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, and shows AugLab on the
# bundled sample images. Until the GUI lands this renders the default contact sheet with the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
out="$PWD/out/contact-sheet.png"
mkdir -p out
build/app/cli/auglab-cli render --image resources/samples/astronaut.png --grid 8x8 --tile 256 --out "$out"
echo "Contact sheet of 64 augmented samples (default preset): $out"
