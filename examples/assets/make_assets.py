"""Writes the hello examples' two PNGs (straight alpha RGBA8), with no dependency but Python.

    python3 examples/assets/make_assets.py

sprite.png:   32x32, an orange ball with a dark rim and a highlight, transparent around it.
particle.png: 16x16, a white glow whose alpha falls off from the centre (tinted when drawn).
"""
import math
import os
import struct
import zlib


def write_png(path, w, h, pixel):
    rows = b"".join(b"\0" + bytes(c for x in range(w) for c in pixel(x, y)) for y in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)  # 8-bit RGBA
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def sprite(x, y):
    d = math.hypot(x + 0.5 - 16, y + 0.5 - 16)
    if d > 15:
        return (0, 0, 0, 0)
    if d > 13:
        return (90, 40, 10, 255)  # rim
    if math.hypot(x + 0.5 - 11, y + 0.5 - 11) < 4:
        return (255, 240, 200, 255)  # highlight
    return (250, 150, 30, 255)


def particle(x, y):
    d = math.hypot(x + 0.5 - 8, y + 0.5 - 8) / 8
    return (255, 255, 255, round(255 * max(0.0, 1 - d) ** 2))


here = os.path.dirname(os.path.abspath(__file__))
write_png(os.path.join(here, "sprite.png"), 32, 32, sprite)
write_png(os.path.join(here, "particle.png"), 16, 16, particle)
