#!/usr/bin/env python3
"""Reference transcodes of a Basis Universal KTX2 file, for tests/real_files.rs.

Usage: basis-reference.py FILE.ktx2 OUT_DIR

Writes OUT_DIR/{target}-{level}-{layer}.bin for every level and layer of FILE, for the targets
layerbatch transcodes to (astc_4x4, bc7, etc1, etc2, rgba8), as PyPI's `opengl_basisu` gives
them: Binomial's own C++ transcoder (basis_universal v2_50) compiled into the wheel, not
layerbatch's transcoder. Block targets are the blocks row by row, RGBA8 the texels row by row.
"""

import os
import sys

import opengl_basisu


def main() -> None:
    path, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(path, 'rb') as f:
        texture = opengl_basisu.open(f.read())
    for target in ('astc_4x4', 'bc7', 'etc1', 'etc2', 'rgba8'):
        for level in range(texture.levels):
            for layer in range(texture.layers):
                image = texture.transcode(target, level=level, layer=layer)
                name = os.path.join(out, '%s-%d-%d.bin' % (target, level, layer))
                with open(name, 'wb') as f:
                    f.write(image.data.tobytes())


if __name__ == '__main__':
    main()
