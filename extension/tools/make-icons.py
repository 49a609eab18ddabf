#!/usr/bin/env python3
"""Draws the extension's toolbar and store icons (icons/icon-16.png … icon-128.png): a rounded square in the
web UI's accent colour with a keyhole cut in the accent's text colour. Standard library only (zlib, struct),
so the PNGs can be made again anywhere: python3 tools/make-icons.py (from extension/ or anywhere)."""

import os
import struct
import zlib

ACCENT = (0x8F, 0xA8, 0xFF)  # --accent (style.css, dark theme)
KEYHOLE = (0x0F, 0x11, 0x15)  # --accent-text
SIZES = (16, 32, 48, 128)
SUPERSAMPLE = 4  # samples per pixel edge, for smooth edges


def inside_rounded_square(x, y, radius):
    """Whether (x, y) in the unit square lies in the square with corners rounded by `radius`."""
    cx = min(max(x, radius), 1 - radius)
    cy = min(max(y, radius), 1 - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2


def inside_keyhole(x, y):
    """A circle over a trapezoid widening downwards, centred in the unit square."""
    if (x - 0.5) ** 2 + (y - 0.40) ** 2 <= 0.13 ** 2:
        return True
    if 0.42 <= y <= 0.76:
        half = 0.055 + (y - 0.42) * 0.16
        return abs(x - 0.5) <= half
    return False


def pixel(size, px, py):
    """RGBA of one pixel, averaged over SUPERSAMPLE² samples."""
    square = hole = 0
    n = SUPERSAMPLE
    for sy in range(n):
        for sx in range(n):
            x = (px + (sx + 0.5) / n) / size
            y = (py + (sy + 0.5) / n) / size
            if inside_rounded_square(x, y, 0.22):
                square += 1
                if inside_keyhole(x, y):
                    hole += 1
    total = n * n
    if square == 0:
        return (0, 0, 0, 0)
    # Mix accent and keyhole by the share of keyhole samples; alpha is the square's coverage.
    share = hole / square
    rgb = tuple(round(a * (1 - share) + k * share) for a, k in zip(ACCENT, KEYHOLE))
    return rgb + (round(255 * square / total),)


def png(size):
    rows = []
    for py in range(size):
        row = bytearray([0])  # filter type: none
        for px in range(size):
            row.extend(pixel(size, px, py))
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main():
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "icons")
    os.makedirs(folder, exist_ok=True)
    for size in SIZES:
        path = os.path.join(folder, f"icon-{size}.png")
        with open(path, "wb") as f:
            f.write(png(size))
        print(os.path.normpath(path))


if __name__ == "__main__":
    main()
