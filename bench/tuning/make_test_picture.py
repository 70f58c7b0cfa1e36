#!/usr/bin/env python3
# The synthetic picture behind bench/results/convolution-image*-h200-2026-11-26*: a 1920 x 1080 RGB
# PNG of smooth gradients, discs, stripes and noise (fixed seed), written with the standard library
# only. Usage: python3 bench/tuning/make_test_picture.py OUT.png [WIDTH HEIGHT]
#   then: ladder run convolution --image OUT.png
import zlib, struct, random, math, sys
w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (1920, 1080)
random.seed(7)
discs = [(random.uniform(0, w), random.uniform(0, h), random.uniform(40, 300),
          [random.randint(0, 255) for _ in range(3)]) for _ in range(40)]
rows = []
for y in range(h):
    row = bytearray([0])
    for x in range(w):
        r = 128 + 100 * math.sin(x / 97.0) * math.cos(y / 131.0)
        g = 255 * x / w
        b = 255 * y / h
        for cx, cy, rad, col in discs[:12]:
            if (x - cx) ** 2 + (y - cy) ** 2 < rad * rad:
                r, g, b = col
                break
        if (x // 8 + y // 8) % 17 == 0:
            r, g, b = 255 - r, 255 - g, 255 - b
        n = random.randint(-12, 12)
        row += bytes(max(0, min(255, int(v) + n)) for v in (r, g, b))
    rows.append(bytes(row))
raw = b"".join(rows)
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
