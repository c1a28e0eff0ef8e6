"""Directory listings: ``ls -la DIR`` as toybox and toolbox print it.

* toybox ``ls -l`` (``toys/posix/ls.c``, Android 6+; the default ``ls`` from Android 7):
  ``MODE LINKS OWNER GROUP SIZE YYYY-MM-DD HH:MM NAME`` — link counts right-aligned, columns
  padded to the widest entry, ``MAJOR, MINOR`` instead of the size for devices,
  ``NAME -> TARGET`` for links, a ``total N`` line first. Some builds escape names
  (``-b``, the Android Studio device explorer meets it): a space as ``\\ ``, a
  backslash as ``\\\\``, other bytes as C escapes or ``\\ooo``; such names are unescaped.
* toolbox ``ls -l`` (``system/core/toolbox/ls.c``, ``listfile_long``; Android ≤ 6):
  ``MODE OWNER GROUP [SIZE] YYYY-MM-DD HH:MM NAME`` — no link count, and **no size** for
  directories, links, sockets and fifos (only regular files have one, devices
  ``MAJOR, MINOR``).
* busybox-style dates (``Jan  1 12:00`` / ``Jan  1  2016``) are read too; the time is kept as
  printed.
* ``ls -la /sdcard`` lists the link ``/sdcard`` itself (``lrw-r--r-- … /sdcard ->
  /storage/self/primary``); to list the folder, name it with a trailing slash — the
  kernel then resolves the link (what :mod:`baremobile.device.files` does).

``.`` and ``..`` are left out; lines that are no entry (``total``, a header ``DIR:``, an
error) are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.android.text import lines
from baremobile.safetext import decode

__all__ = ["Entry", "parse_ls", "unescape", "TYPES"]

#: the mode string's first letter → the entry's type
TYPES = {"d": "directory", "-": "file", "l": "link", "c": "char device", "b": "block device",
         "s": "socket", "p": "fifo"}

_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
_LINE = re.compile(
    r"^(?P<mode>[-dlcbsp][-rwxsStT]{9})[.+@]?\s+"
    r"(?:(?P<links>\d+)\s+)?(?P<owner>\S+)\s+(?P<group>\S+)\s+"
    r"(?:(?P<major>\d+),\s*(?P<minor>\d+)\s+|(?P<size>\d+)\s+)?"
    rf"(?P<date>\d{{4}}-\d\d-\d\d\s+\d\d:\d\d|(?:{_MONTHS})\s+\d+\s+(?:\d\d:\d\d|\d{{4}}))\s"
    r"(?P<name>.*)$")


@dataclass(frozen=True)
class Entry:
    """One entry of a listing."""

    name: str
    type: str
    mode: str
    modified: str
    """the time as ``ls`` printed it (the device's local time, to the minute)"""
    size: int | None = None
    """bytes, for regular files (directories' sizes are filesystem blocks: not kept)"""
    owner: str = ""
    group: str = ""
    target: str | None = None
    """where a link points"""


_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
              "e": "\x1b"}


def unescape(name: str) -> str:
    """A name as toybox ``ls -b`` escapes it, unescaped (``dir\\ with\\ spaces`` →
    ``dir with spaces``; ``\\303\\251`` → ``é``)."""
    if "\\" not in name:
        return name
    out = bytearray()
    i = 0
    while i < len(name):
        c = name[i]
        if c == "\\" and i + 1 < len(name):
            nxt = name[i + 1]
            octal = re.match(r"[0-7]{3}", name[i + 1:i + 4])
            if octal:
                out.append(int(octal.group(0), 8) & 0xFF)
                i += 4
                continue
            out += _C_ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += c.encode()
        i += 1
    return decode(out)


def _escaped(name: str) -> bool:
    """Whether ``name`` carries ``ls -b`` escapes: a backslash before a space, another
    backslash, an octal byte or a C escape letter."""
    return re.search(r"\\(?:[ \\abfnrtve]|[0-7]{3})", name) is not None


def parse_ls(data: bytes | str) -> list[Entry]:
    """The entries of ``ls -la`` output, in the order listed."""
    out: list[Entry] = []
    for line in lines(data):
        m = _LINE.match(line)
        if not m:
            continue
        mode = m.group("mode")
        kind = TYPES[mode[0]]
        name, target = m.group("name"), None
        if kind == "link" and " -> " in name:
            name, target = name.split(" -> ", 1)
        if _escaped(name):
            name = unescape(name)
            target = unescape(target) if target is not None else None
        if name in (".", "..") or not name:
            continue
        size = int(m.group("size")) if m.group("size") is not None and kind == "file" else None
        out.append(Entry(name, kind, mode, re.sub(r"\s+", " ", m.group("date")), size,
                         m.group("owner"), m.group("group"), target))
    return out
