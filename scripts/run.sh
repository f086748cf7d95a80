#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, and starts AugLab on the
# bundled sample images. Without a display (no $DISPLAY / $WAYLAND_DISPLAY) it renders the default
# contact sheet with the CLI instead and says where it is.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec build/app/gui/auglab "$@"
fi
out="$PWD/out/contact-sheet.png"
mkdir -p out
build/app/cli/auglab-cli render --image resources/samples/astronaut.png --grid 8x8 --tile 256 --out "$out"
echo "No display: rendered 64 augmented samples with the default preset instead: $out"
echo "(With a display, this command opens the AugLab window on the bundled samples.)"
