"""Bytes from a device → lines: the one place output is decoded and split.

Device output arrives as UTF-8 (Android's shell) but may be cut anywhere, hold invalid bytes,
or end its lines with CRLF (an old pty shell — adbd before shell v2 runs commands on a pty,
whose ``ONLCR`` turns ``\\n`` into ``\\r\\n`` — or a Windows host that saved it).
"""

from __future__ import annotations

from baremobile.safetext import clean, decode

__all__ = ["as_text", "lines"]


def as_text(data: bytes | str) -> str:
    """``data`` as text, by the one rule for text from outside (:mod:`baremobile.safetext`:
    invalid UTF-8 and lone surrogates become U+FFFD; never an error)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return decode(data)
    return clean(data)


def lines(data: bytes | str) -> list[str]:
    """The lines of ``data``, each without its ``\\n``, ``\\r\\n`` or stray ``\\r``, and
    without trailing blanks."""
    text = as_text(data).replace("\r\n", "\n").replace("\r", "\n")
    return [ln.rstrip() for ln in text.split("\n")]
