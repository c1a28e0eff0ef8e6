"""The time the phone shows: the injected clock (or the system's) in the scenario's zone,
formatted as the status bar and the lock screen write it."""

from __future__ import annotations

import time as _time
from typing import Protocol

__all__ = ["Clock", "PhoneClock"]


class Clock(Protocol):
    """Anything with ``time()`` returning seconds since the epoch."""

    def time(self) -> float: ...


class PhoneClock:
    """``clock`` (default: the system clock) shifted by ``utc_offset`` minutes."""

    def __init__(self, clock: Clock | None, utc_offset: int) -> None:
        self.clock = clock
        self.utc_offset = utc_offset

    def now(self) -> float:
        return self.clock.time() if self.clock is not None else _time.time()

    def minute(self) -> int:
        """A number that changes once a minute (what is drawn depends on nothing finer)."""
        return int(self.now() // 60)

    def localtime(self) -> _time.struct_time:
        return _time.gmtime(self.now() + self.utc_offset * 60)

    def time_str(self) -> str:
        """``9:41 AM`` (with the narrow no-break space Android puts before AM/PM)."""
        t = self.localtime()
        h = t.tm_hour % 12 or 12
        return f"{h}:{t.tm_min:02d}\u202f{'AM' if t.tm_hour < 12 else 'PM'}"

    def clock_str(self) -> str:
        """``9:41``: the status bar's and the lock screen's clock."""
        t = self.localtime()
        return f"{t.tm_hour % 12 or 12}:{t.tm_min:02d}"

    def date_str(self) -> str:
        """``Mon, Jan 6``."""
        t = self.localtime()
        return _time.strftime("%a, %b ", t) + str(t.tm_mday)
