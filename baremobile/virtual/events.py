"""The virtual phone's event log: everything the phone received, in order.

Tests assert on it (“the phone saw exactly one ``input text`` and nothing else”), and
agents under test can read it from the shell side too (``logcat -d -s VirtualPhone``).

Touches sent with ``input`` say where they landed: ``window`` (the kind of window under the
point: ``app``, ``dialog``, ``nav``, ``ime``, …, ``outside`` a dialog, or ``none``), ``on``
(the element that handled it — the deepest clickable one, as Android dispatches a tap — or
None) and ``under`` (every element under the point, deepest first), each by the name the
screen model gives its node (``e17``: the same name for as long as the element lives; the
system bars and the keyboard by window and place, ``nav/0/2``). Typed text says which field
took it (``on``; None when no field had focus and the text went nowhere).
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event", "EventLog"]

#: The kinds of event the phone records.
KINDS = (
    "connect",  # an adb client finished the handshake (detail: banner, key fingerprint)
    "open",  # a service was opened (detail: service)
    "command",  # one simple shell command ran (detail: argv)
    "tap",  # detail: x, y; window, on, under (where it landed, below)
    "swipe",  # detail: x1, y1, x2, y2, duration_ms; window, on, under (where it started)
    "long_press",  # detail: x, y, duration_ms; window, on, under
    "text",  # detail: text (as typed, after %s decoding), on (the field that took it)
    "key",  # detail: keycode, name
    "key_combination",  # detail: keycodes, names
    "start",  # an activity was started (detail: package, activity, action, data)
    "dump",  # uiautomator dump (detail: path, ok)
    "screencap",  # detail: path or None for stdout
    "push",  # sync SEND finished (detail: path, size)
    "pull",  # sync RECV (detail: path, size)
)


@dataclass(frozen=True)
class Event:
    """One thing the phone received."""

    seq: int
    time: float
    kind: str
    detail: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.detail[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.detail.get(key, default)

    def logcat_line(self) -> str:
        """The event as a ``logcat -v threadtime`` line with tag ``VirtualPhone``."""
        lt = time.localtime(self.time)
        ms = int((self.time % 1) * 1000)
        stamp = time.strftime("%m-%d %H:%M:%S", lt) + f".{ms:03d}"
        body = " ".join(f"{k}={v!r}" for k, v in self.detail.items())
        return f"{stamp}  1000  1000 I VirtualPhone: #{self.seq} {self.kind} {body}".rstrip()


class EventLog:
    """Append-only, thread-safe list of :class:`Event`."""

    def __init__(self, clock: Any = None) -> None:
        self._events: list[Event] = []
        self._cond = threading.Condition()
        self._clock = clock

    def append(self, kind: str, **detail: Any) -> Event:
        """Record an event and wake anyone waiting for one."""
        now = self._clock.time() if self._clock is not None else time.time()
        with self._cond:
            ev = Event(len(self._events) + 1, now, kind, dict(detail))
            self._events.append(ev)
            self._cond.notify_all()
        return ev

    def __iter__(self) -> Iterator[Event]:
        with self._cond:
            return iter(list(self._events))

    def __len__(self) -> int:
        with self._cond:
            return len(self._events)

    def list(self, kind: str | None = None, *, since: int = 0) -> list[Event]:
        """Events (optionally of one kind) with ``seq > since``."""
        with self._cond:
            return [e for e in self._events[since:] if kind is None or e.kind == kind]

    def commands(self, *, since: int = 0) -> builtins.list[builtins.list[str]]:
        """The argv of every simple shell command that ran (``kind == "command"``)."""
        return [list(e.detail["argv"]) for e in self.list("command", since=since)]

    @property
    def last_seq(self) -> int:
        """Sequence number of the newest event (0 when empty); pass it as ``since=``."""
        with self._cond:
            return len(self._events)

    def wait_for(self, kind: str, *, since: int = 0, timeout: float = 5.0) -> Event | None:
        """Block until an event of ``kind`` newer than ``since`` exists (or timeout)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for e in self._events[since:]:
                    if e.kind == kind:
                        return e
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def clear(self) -> None:
        """Forget everything (sequence numbers restart at 1)."""
        with self._cond:
            self._events.clear()
