"""The device log of a recorded session, read once when the recording stops
(``logcat.json`` in the trace; the viewer shows each step the lines logged while it ran).

One round trip: the device's clock (``date +%s``) and its log since the recording started,
each line stamped in seconds since the epoch (``logcat -v threadtime -v epoch``, Android 7+;
an older ``logcat`` refuses the format and the trace simply has no log), at most
:data:`LOG_LINES` lines. Times are moved onto this computer's clock by the device's skew,
measured in whole seconds (a skew under 2 s is taken as none).
"""

from __future__ import annotations

import re
import time
from typing import Any

from baremobile.transport import Transport

__all__ = ["LOG_LINES", "LOG_LINE_CHARS", "session_log"]

#: The most lines kept (the last ones), and the most characters of each.
LOG_LINES, LOG_LINE_CHARS = 5_000, 4_000
_EPOCH = re.compile(r"\s*(\d{9,11}\.\d{3})\s")


def session_log(transport: Transport, started: float) -> dict[str, Any]:
    """``{"skew": s, "lines": [[t, line], …]}``: the lines logged since ``started`` (this
    computer's clock), ``t`` when each was logged, on this computer's clock."""
    cmd = (f"date +%s; logcat -d -v threadtime -v epoch -t {started - 5:.3f} "
           f"| tail -n {LOG_LINES}")
    text = transport.shell(cmd, timeout=15).text
    now = time.time()
    first, _, rest = text.partition("\n")
    device_now = float(first.strip()) if first.strip().isdigit() else now
    skew = device_now - now if abs(device_now - now) >= 2 else 0.0
    lines = []
    for line in rest.splitlines():
        m = _EPOCH.match(line)
        if m is None:
            continue
        t = float(m.group(1)) - skew
        if t >= started - 0.5:
            lines.append([round(t, 3), line[:LOG_LINE_CHARS]])
    return {"skew": skew, "lines": lines}
