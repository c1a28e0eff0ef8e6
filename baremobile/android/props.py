"""``getprop`` (no arguments): every system property.

Format (``system/core/toolbox/getprop.cpp``, Android 9+; ``toolbox/getprop.c`` and toybox
``getprop.c`` before): one ``[NAME]: [VALUE]`` per property, sorted by name. The value is
printed as stored, so a value holding newlines (``persist.sys.boot.reason.history`` lists
one boot reason per line) spans several lines and its ``]`` ends the last one. Old pty
shells end lines with CRLF. A line that starts no property and continues none (a damaged
capture: ``]name]: [value``) is skipped; a value cut off by the end of the output is not
guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from baremobile.android.text import lines

__all__ = ["Props", "parse_getprop"]

_START = re.compile(r"^\[([^\[\]\s]+)\]: \[(.*)$")


@dataclass(frozen=True)
class Props:
    """The properties, with the few everyone asks for as attributes."""

    values: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def get(self, key: str, default: str = "") -> str:
        return self.values.get(key, default)

    @property
    def api_level(self) -> int:
        """``ro.build.version.sdk`` (0 when absent or not a number)."""
        v = self.get("ro.build.version.sdk").strip()
        return int(v) if v.isdigit() else 0

    @property
    def release(self) -> str:
        return self.get("ro.build.version.release")

    @property
    def model(self) -> str:
        return self.get("ro.product.model")

    @property
    def brand(self) -> str:
        return self.get("ro.product.brand")


def parse_getprop(data: bytes | str) -> Props:
    """All properties of a ``getprop`` listing (multi-line values joined with ``\\n``)."""
    out: dict[str, str] = {}
    key: str | None = None
    parts: list[str] = []
    for line in lines(data):
        m = _START.match(line)
        if key is not None:
            if m is None:  # a continuation line of a multi-line value
                if line.endswith("]"):
                    parts.append(line[:-1])
                    out[key] = "\n".join(parts)
                    key = None
                else:
                    parts.append(line)
                continue
            key = None  # a new property before the value closed: that value is not known
        if m is None:
            continue
        name, rest = m.group(1), m.group(2)
        if rest.endswith("]"):
            out[name] = rest[:-1]
        else:
            key, parts = name, [rest]
    return Props(MappingProxyType(out))
