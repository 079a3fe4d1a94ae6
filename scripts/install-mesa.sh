#!/usr/bin/env bash
# Installs Mesa's software drivers, so the pixel tests and the stress example run on any Linux
# machine, GPU or not: llvmpipe (GL through EGL, headless) and lavapipe (Vulkan, for wgpu).
# Debian / Ubuntu. Works as root (a container's root shell has no sudo) and as a user with sudo.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-mesa.sh: run as root, or install sudo" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  mesa-vulkan-drivers libvulkan1 libegl-mesa0 libgl1-mesa-dri libegl1 libgles2 >/dev/null
echo "Mesa software drivers installed (llvmpipe, lavapipe)."
