#!/usr/bin/env bash
# Fetches the real asset pack the loading tests use: the 759 CC0 PNGs inside Python Arcade
# 3.3.3's wheel (from PyPI, with pip), unpacked into target/assets/arcade/. Nothing is
# committed; run it again any time (it does nothing when the pack is there).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/assets/arcade
if [ -n "$(find "$dest" -name '*.png' -print -quit 2>/dev/null)" ]; then
  echo "fetch-assets: $dest already holds the pack"
  exit 0
fi
# A fresh Debian has neither python3 nor pip (found by running setup.sh in a new Debian 12).
if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
  sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq python3 python3-pip >/dev/null
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary :all: arcade==3.3.3 -d "$tmp"
mkdir -p "$dest"
python3 - "$tmp"/arcade-3.3.3-py3-none-any.whl "$dest" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.startswith("arcade/resources/") and n.endswith(".png")]
    for n in names:
        z.extract(n, dest)
print(f"fetch-assets: {len(names)} PNGs into {dest}")
PY
