"""Draws QR codes given as module rows into PNG files, as a screen shows them and a capture saves them.

Reads JSON from standard input: {"dir": PATH, "codes": [{"size": N, "modules": ["0101…", …]}, …]}, and writes
DIR/code-K.png for each (4 pixels a module, a 4-module quiet zone), with Python's zlib: an image made outside
Passbox for its reader to read back.
"""
import json
import struct
import sys
import zlib


def png(rows, scale=4, quiet=4):
    side = (len(rows) + 2 * quiet) * scale
    lines = []
    for y in range(side):
        my = y // scale - quiet
        line = bytearray([0])
        for x in range(side):
            mx = x // scale - quiet
            dark = 0 <= my < len(rows) and 0 <= mx < len(rows) and rows[my][mx] == "1"
            line.append(0 if dark else 255)
        lines.append(bytes(line))
    raw = b"".join(lines)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def main():
    request = json.load(sys.stdin)
    for i, code in enumerate(request["codes"], start=1):
        with open("%s/code-%d.png" % (request["dir"], i), "wb") as f:
            f.write(png(code["modules"]))


if __name__ == "__main__":
    main()
