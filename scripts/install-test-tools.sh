#!/usr/bin/env bash
# Tools the tests take their references from (not the project's own code): ARM's astcenc
# (Debian's `astcenc`), which encodes the ASTC files of tests/decode_conformance.rs and
# tests/real_files.rs and decodes them as the reference, and NVIDIA Texture Tools 2.0
# (Debian's `libnvtt-bin`: `nvcompress` writes the DDS files of tests/real_files.rs,
# `nvdecompress` decodes them as the reference). Idempotent; run as root (or with sudo).
set -euo pipefail
if command -v astcenc >/dev/null 2>&1 && command -v nvcompress >/dev/null 2>&1; then
  echo "astcenc: $(command -v astcenc); nvcompress: $(command -v nvcompress)"
  exit 0
fi
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
export DEBIAN_FRONTEND=noninteractive
sudo_if_needed apt-get update -qq
sudo_if_needed apt-get install -y -qq astcenc libnvtt-bin >/dev/null
echo "astcenc installed: $(command -v astcenc); nvcompress installed: $(command -v nvcompress)"
