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
