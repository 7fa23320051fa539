#!/usr/bin/env python3
"""Writes a copy of OrderTemplates/sample whose images weigh what a merchant's do, for the benchmarks.

The sample template's images are a few hundred bytes; a shop's logo in three scales and a product photo are tens of
kilobytes, and most of a package is then the template's. The images here are noise, so deflate cannot shrink them.

Usage: Benchmarks/large-template.py OUT_FOLDER
"""
import random
import shutil
import struct
import sys
import zlib
from pathlib import Path


def png(side: int, rng: random.Random) -> bytes:
    """An RGB PNG of side x side pixels of noise."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    rows = b"".join(b"\x00" + rng.randbytes(side * 3) for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def main() -> None:
    out = Path(sys.argv[1])
    sample = Path(__file__).resolve().parent.parent / "OrderTemplates" / "sample"
    shutil.copytree(sample, out, dirs_exist_ok=True)
    rng = random.Random(7)
    # Side in pixels: 3 bytes a pixel, so 48 px is about 7 kB and 128 px about 49 kB.
    for name, side in [("logo.png", 48), ("logo@2x.png", 96), ("logo@3x.png", 128), ("mug.png", 96)]:
        (out / name).write_bytes(png(side, rng))
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"{out}: {total} bytes")


if __name__ == "__main__":
    main()
