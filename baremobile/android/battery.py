"""``dumpsys battery`` (``BatteryService.dumpInternal``): ``Current Battery Service
state:`` then two-space-indented ``key: value`` lines — ``AC powered``, ``USB powered``,
``Wireless powered``, ``Dock powered`` (Android 12+), ``status`` (``BatteryManager``:
1 unknown, 2 charging, 3 discharging, 4 not charging, 5 full), ``health``, ``present``,
``level``, ``scale``, ``voltage`` (mV), ``temperature`` (tenths of °C), ``technology``;
``(UPDATES STOPPED -- use 'reset' to restart)`` after ``dumpsys battery set``.

Vendors add to it: Samsung prints lines with one leading space or none inside the block
(``Time when the latest…``, ``LLB CAL: …``, ``FEATURE_…: true``) and later sections
(``[EventLogBuffer]``…) whose text holds ``level:74``. Only the block's two-space lines
count, and the first value of a key wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.android.text import lines

__all__ = ["Battery", "parse_battery", "STATUS"]

#: ``BatteryManager.BATTERY_STATUS_*``
STATUS = {1: "unknown", 2: "charging", 3: "discharging", 4: "not charging", 5: "full"}
_FIELD = re.compile(r"^  (\S[^:]*?):\s(.*)$")


@dataclass(frozen=True)
class Battery:
    """The battery's state (None where the dump does not say)."""

    level: int | None
    scale: int | None
    status: int | None
    plugged: tuple[str, ...]
    temperature_tenths: int | None
    voltage_mv: int | None
    health: int | None
    frozen: bool = False

    @property
    def percent(self) -> int | None:
        if self.level is None:
            return None
        scale = self.scale or 100
        return round(self.level * 100 / scale)


def parse_battery(data: bytes | str) -> Battery:
    """The fields of the service state block."""
    fields: dict[str, str] = {}
    inside = False
    frozen = False
    for line in lines(data):
        if "UPDATES STOPPED" in line:
            frozen = True
        if line.startswith("Current Battery Service state"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("[") or (line and not line.startswith(" ") and ":" not in line):
            break  # a vendor's later section
        m = _FIELD.match(line)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2).strip()

    def num(key: str) -> int | None:
        v = fields.get(key, "")
        return int(v) if re.fullmatch(r"-?\d+", v) else None

    plugged = tuple(src for src, key in (("ac", "AC powered"), ("usb", "USB powered"),
                                         ("wireless", "Wireless powered"),
                                         ("dock", "Dock powered"))
                    if fields.get(key) == "true")
    return Battery(num("level"), num("scale"), num("status"), plugged, num("temperature"),
                   num("voltage"), num("health"), frozen)
