#!/usr/bin/env bash
# Installs the Debian packages AugLab needs, if any are missing. Uses sudo when not root.
set -euo pipefail
packages=(cmake g++ make pkg-config ccache qt6-base-dev libqt6opengl6-dev libgl-dev libstb-dev
          libturbojpeg0-dev libjpeg62-turbo-dev libspng-dev libhwy-dev libwebp-dev libpugixml-dev libyaml-cpp-dev nlohmann-json3-dev libopencv-dev
          xvfb xauth python3 python3-jsonschema python3-venv clang libclang-rt-dev
          python3-dev pybind11-dev libdlpack-dev python3-numpy python3-pytest)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
