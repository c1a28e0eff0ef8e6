"""Is it a whole PNG file? Checked before a screenshot is handed out or written."""

from __future__ import annotations

__all__ = ["PNG_SIGNATURE", "png_problem"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IHDR = b"\x00\x00\x00\x0dIHDR"  # the first chunk: 13 bytes of header, then a CRC
_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # the last chunk, always these 12 bytes


def png_problem(data: object) -> str | None:
    """What makes ``data`` not a complete PNG file (None when it is one): the signature,
    a whole ``IHDR`` chunk first and the ``IEND`` chunk last are checked, not the pixels."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return f"a PNG is bytes, not {type(data).__name__}"
    b = bytes(data[:33])
    if b[:8] != PNG_SIGNATURE:
        return "it does not start with the PNG signature"
    if len(data) < 33 or b[8:16] != _IHDR:
        return f"it ends after {len(data)} bytes, inside the PNG header"
    if b[16:20] == b"\0\0\0\0" or b[20:24] == b"\0\0\0\0":
        return "it declares an empty image (0 pixels wide or high)"
    if bytes(data[-12:]) != _IEND:
        return f"it is cut off: {len(data)} bytes without the closing IEND chunk"
    return None


# ---------------------------------------------------------------------------------------
