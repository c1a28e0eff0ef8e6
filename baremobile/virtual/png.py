"""A tiny palette canvas and PNG encoder (stdlib only: :mod:`zlib` and :mod:`struct`).

The virtual phone's ``screencap`` draws each screen as filled rectangles on a
:class:`Canvas` of palette indices (one byte per pixel, so a 1080x2400 frame is 2.6 MB
before compression) and :meth:`Canvas.png` writes it as an 8-bit indexed-colour PNG.
The palette's upper half is a dimmed copy of the lower half, which makes the scrim
behind a dialog a single byte translation (:meth:`Canvas.dim`).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

__all__ = ["Canvas", "png_size"]

RGB = tuple[int, int, int]


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


class Canvas:
    """A ``width`` x ``height`` image of palette indices."""

    def __init__(self, width: int, height: int, palette: Sequence[RGB], background: int = 0):
        if width <= 0 or height <= 0:
            raise ValueError("a canvas needs a positive width and height")
        if not 1 <= len(palette) <= 128:
            raise ValueError("the palette holds 1 to 128 colours")
        self.width = width
        self.height = height
        self._n = len(palette)
        self._palette = list(palette) + [
            (r * 2 // 5, g * 2 // 5, b * 2 // 5) for (r, g, b) in palette
        ]
        self._stride = width + 1  # one filter-type byte (0: none) before every row
        row = b"\x00" + bytes([background]) * width
        self._buf = bytearray(row * height)
        self._dim_table = bytes(
            (i + self._n if i < self._n else i) for i in range(256)
        )

    def _clip(self, x1: int, y1: int, x2: int, y2: int) -> tuple[int, int, int, int] | None:
        x1, y1 = max(0, x1), max(0, y1)
        x2, y2 = min(self.width, x2), min(self.height, y2)
        if x1 >= x2 or y1 >= y2:
            return None
        return x1, y1, x2, y2

    def fill(self, x1: int, y1: int, x2: int, y2: int, colour: int) -> None:
        """Fill the rectangle ``[x1, x2) x [y1, y2)`` (clipped to the canvas)."""
        r = self._clip(x1, y1, x2, y2)
        if r is None:
            return
        x1, y1, x2, y2 = r
        pattern = bytes([colour]) * (x2 - x1)
        buf, stride = self._buf, self._stride
        for y in range(y1, y2):
            off = y * stride + 1
            buf[off + x1 : off + x2] = pattern

    def frame(self, x1: int, y1: int, x2: int, y2: int, colour: int, width: int = 3) -> None:
        """Draw a rectangle's outline."""
        self.fill(x1, y1, x2, y1 + width, colour)
        self.fill(x1, y2 - width, x2, y2, colour)
        self.fill(x1, y1, x1 + width, y2, colour)
        self.fill(x2 - width, y1, x2, y2, colour)

    def dim(self, x1: int, y1: int, x2: int, y2: int) -> None:
        """Darken a rectangle (the scrim behind a dialog)."""
        r = self._clip(x1, y1, x2, y2)
        if r is None:
            return
        x1, y1, x2, y2 = r
        buf, stride, table = self._buf, self._stride, self._dim_table
        for y in range(y1, y2):
            off = y * stride + 1
            buf[off + x1 : off + x2] = buf[off + x1 : off + x2].translate(table)

    def png(self, level: int = 6) -> bytes:
        """The canvas as PNG bytes."""
        ihdr = struct.pack(">IIBBBBB", self.width, self.height, 8, 3, 0, 0, 0)
        plte = b"".join(bytes(c) for c in self._palette)
        return b"".join(
            (
                b"\x89PNG\r\n\x1a\n",
                _chunk(b"IHDR", ihdr),
                _chunk(b"PLTE", plte),
                _chunk(b"IDAT", zlib.compress(bytes(self._buf), level)),
                _chunk(b"IEND", b""),
            )
        )


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR; raises ValueError if ``data`` is not a PNG."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    w, h = struct.unpack(">II", data[16:24])
    return w, h
