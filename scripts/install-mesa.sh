#!/usr/bin/env bash
# Installs Mesa's software drivers, so the pixel tests and the stress example run on any Linux
# machine, GPU or not: llvmpipe (GL through EGL, headless) and lavapipe (Vulkan, for wgpu).
# Debian / Ubuntu. Run as root (or with sudo).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq mesa-vulkan-drivers libvulkan1 libegl-mesa0 libgl1-mesa-dri libegl1 libgles2 >/dev/null
echo "Mesa software drivers installed (llvmpipe, lavapipe)."
