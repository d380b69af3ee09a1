#!/usr/bin/env bash
# Installs every Debian package the project needs. Idempotent; run as root or through sudo.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git python3 ccache
  libeigen3-dev liburdfdom-dev liburdfdom-headers-dev libtinyxml2-dev libassimp-dev libmujoco-dev
  nlohmann-json3-dev
  libimgui-dev libstb-dev libglfw3-dev libglm-dev libepoxy-dev
  libgtest-dev libbenchmark-dev
  xvfb xauth mesa-utils libgl1-mesa-dri zenity
  # the ikwb Python module and its pytest suite (python/, tests/python), for /usr/bin/python3
  python3-dev python3-pybind11 pybind11-dev python3-numpy python3-pytest
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
echo "setup: installing ${missing[*]}"
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
