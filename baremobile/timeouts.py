"""How long a call may take: the one owner of time for every door (as Playwright's
``TimeoutSettings`` is for a page).

A tool call's time is resolved **once**, by :func:`call_time`, from three things:

* the tool's facts (:class:`Facts`: its row's floor, the parameter it waits by — a fact of
  its Page verb —, the default of that wait, whether it acts and whether it names an element);
* the call's arguments (the wait it asked for);
* the session's defaults (its ``timeout``, and whether acting tools observe after ``settle``).

The answer, a :class:`CallTime`, goes to the runner (``ctx.time.wait``: the seconds the
tool waits by itself) and to whoever bounds the whole request — the daemon's deadline, the
CLI client's patience, a batch's budget — as :attr:`CallTime.floor`: the least time the
request must be given so that a slow phone does not turn a good call into a ``TIMEOUT``.

Standard library only: the CLI's fast path imports it (with the facts from
``cli/commands.json``), the daemon and the tools do too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

TYPE_CHECKING = False  # no typing, no dataclasses at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DUMP_S", "FILE_S", "INSTALL_S", "MAX_REQUEST_S", "MAX_WAIT_S", "START_S", "TRANSFER_S",
    "CallTime", "Facts", "call_time", "env_floor_s",
]

#: A dump's worth: reading the screen once takes 1–3 s on a phone and up to ~10 s on a slow
#: one. A tool that reads the screen (a snapshot, a ref taken before the last action read
#: again, a wait's last look) gets at least this.
DUMP_S = 10.0
#: Starting an activity (an app, a link's handler) until its first frame.
START_S = 10.0
#: Reading or rewriting a device file of up to a megabyte.
FILE_S = 30.0
#: Copying a file to or from the device (hundreds of megabytes over USB 2).
TRANSFER_S = 120.0
#: Installing an APK (copy, then the package manager's dexopt).
INSTALL_S = 300.0
#: The longest a tool may wait by itself (``timeout``, ``seconds``): its schema's maximum.
MAX_WAIT_S = 600.0
#: The longest a whole request may be given (``timeoutMs`` at the daemon): a wait, a dump
#: after it, and a transfer.
MAX_REQUEST_S = 3600.0
#: What a wait defaults to when a tool leaves it to the session (``Options.timeout``).
SESSION = "session"


class Facts:
    """What decides a tool's time, as its row (and its verb) say.

    ``floor``: seconds the tool needs at least (a dump, a transfer); ``waits``: the
    parameter holding the seconds it waits by itself, or None; ``waits_default``: what
    that wait is when a call leaves it out — seconds, :data:`SESSION` (the session's
    ``timeout``) or None (no limit); ``acts``: it may change the screen (a session that
    observes reads the screen after it); ``targets``: it may name an element by ref or
    selector (a ref from an older snapshot is read again from the screen first)."""

    __slots__ = ("acts", "floor", "targets", "waits", "waits_default")

    def __init__(self, floor: float = 0.0, waits: str | None = None,
                 waits_default: float | str | None = None, acts: bool = False,
                 targets: bool = False) -> None:
        self.floor = float(floor)
        self.waits = waits
        self.waits_default = waits_default
        self.acts = bool(acts)
        self.targets = bool(targets)

    def replace(self, *, floor: float) -> Facts:
        """These facts with another floor (an operator's ``--timeout-floor``)."""
        return Facts(floor, self.waits, self.waits_default, self.acts, self.targets)

    def to_dict(self) -> dict[str, Any]:
        """The facts as JSON data (``cli/commands.json`` carries them)."""
        return {"floor": self.floor, "waits": self.waits, "waits_default": self.waits_default,
                "acts": self.acts, "targets": self.targets}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Facts:
        return cls(float(data.get("floor") or 0.0), data.get("waits"),
                   data.get("waits_default"), bool(data.get("acts")),
                   bool(data.get("targets")))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Facts) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"Facts({self.to_dict()})"


class CallTime:
    """One call's time, resolved once (:func:`call_time`).

    ``wait``: the seconds the tool waits by itself (None: it does not wait, or without
    limit); ``floor``: the least seconds the whole request must be given."""

    __slots__ = ("floor", "wait")

    def __init__(self, wait: float | None, floor: float) -> None:
        self.wait = wait
        self.floor = floor

    @property
    def floor_ms(self) -> int:
        return int(math.ceil(self.floor * 1000))

    def deadline(self, asked: float | None) -> float:
        """The seconds a request that asked for ``asked`` (None: nothing) is given: what it
        asked, raised to the floor, at most :data:`MAX_REQUEST_S`."""
        given = self.floor if asked is None else max(float(asked), self.floor)
        return min(given, MAX_REQUEST_S)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CallTime) and (self.wait, self.floor) == (other.wait,
                                                                           other.floor)

    def __repr__(self) -> str:
        return f"CallTime(wait={self.wait!r}, floor={self.floor!r})"


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def call_time(facts: Facts, arguments: Mapping[str, Any] | None = None, *,
              session_timeout: float | None = None, observe: bool | str = False,
              settle: float = 0.0) -> CallTime:
    """The time of one call of a tool with ``facts`` and ``arguments``, in a session whose
    wait default is ``session_timeout`` (None: unknown — the longest allowed is assumed) and
    which ``observe``s after acting, ``settle`` seconds after the action."""
    args = arguments if isinstance(arguments, Mapping) else {}
    wait: float | None = None
    if facts.waits is not None:
        given = args.get(facts.waits, facts.waits_default)
        if given == SESSION:
            given = session_timeout if session_timeout is not None else MAX_WAIT_S
        wait = _seconds(given)
        if wait is not None:
            wait = min(max(wait, 0.0), MAX_WAIT_S)
    floor = facts.floor
    if facts.targets:
        floor = max(floor, DUMP_S)
    if wait is not None:
        floor = max(floor, wait + DUMP_S)  # the wait, and its last look at the screen
    if facts.acts and observe:
        floor += DUMP_S + max(0.0, float(settle))
    return CallTime(wait, floor)


def env_floor_s(default_s: float, *names: str) -> float:
    """A floor of ``default_s`` seconds that an environment variable may raise, never
    lower: the first of ``names`` that is set, in milliseconds (AutoMobile's
    ``AUTOMOBILE_OPEN_LINK_MCP_TIMEOUT_MS``, as its document says: a value at or below the
    default, or not a number, is ignored); at most :data:`MAX_REQUEST_S`."""
    import os

    for name in names:
        raw = os.environ.get(name, "").strip()
        if not raw:
            continue
        try:
            ms = float(raw)
        except ValueError:
            return default_s
        if not math.isfinite(ms) or ms / 1000 <= default_s:
            return default_s
        return min(ms / 1000, MAX_REQUEST_S)
    return default_s
