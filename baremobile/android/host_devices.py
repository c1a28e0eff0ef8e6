"""The adb server's device list: ``host:devices-l`` (what ``adb devices -l`` prints).

Format (``packages/modules/adb/transport.cpp``, ``list_transports`` /
``append_transport``): one line per device — the serial, then (long form) padded to 22
columns with spaces, or (short form, ``host:devices``) a TAB — then the state (``device``,
``offline``, ``unauthorized``, ``authorizing``, ``connecting``, ``recovery``, ``sideload``,
``bootloader``, ``rescue``, ``host``, ``no permissions (…); see […]``, ``no device``), then
in the long form ``usb:…``, ``product:…``, ``model:…``, ``device:…``, ``transport_id:N``.
The host client adds ``List of devices attached`` and a blank line; ``* daemon started
successfully`` lines come from a client that started the server.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from baremobile.android.text import lines

__all__ = ["Listed", "parse_devices"]


@dataclass(frozen=True)
class Listed:
    """One device of the list."""

    serial: str
    state: str
    props: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


_PROP = re.compile(r"^[a-z_]+:\S*$")
_STATES = ("device", "offline", "unauthorized", "authorizing", "connecting", "recovery",
           "sideload", "bootloader", "rescue", "host", "no permissions", "no device",
           "unknown", "detached")


def parse_devices(data: bytes | str) -> list[Listed]:
    """The devices listed (header, blank and ``*`` lines skipped)."""
    out = []
    for line in lines(data):
        if not line.strip() or line.startswith(("List of devices", "* ", "adb server")):
            continue
        if "\t" in line:
            serial, _, rest = line.partition("\t")
        else:
            serial, _, rest = line.strip().partition(" ")
        serial, rest = serial.strip(), rest.strip()
        if not serial or not rest:
            continue
        if rest.startswith("no permissions"):
            close = rest.find(")")
            end = rest.find("]", close) if "[" in rest[close:] else close
            state, rest = "no permissions", rest[end + 1:] if end >= 0 else ""
        else:
            state = next((s for s in _STATES if rest == s or rest.startswith(s + " ")),
                         rest.split()[0])
            rest = rest[len(state):]
        props = dict(p.split(":", 1) for p in rest.split() if _PROP.match(p))
        out.append(Listed(serial, state, MappingProxyType(props)))
    return out
