"""Log times: cutting a ``logcat`` text at a time (``until``), without I/O.

``logcat -v threadtime`` starts each line with the device's local time, without a year:
``11-26 15:37:15.123  1234  1240 I Tag: message``. :func:`cut_until` keeps the lines up to
and including a moment; :func:`local_time` turns what a caller gives (seconds since the
epoch, or an ISO 8601 time — with a zone, or without one: the device's local time) into
the device's local time, given its UTC offset (``date +%z``).
"""

from __future__ import annotations

import datetime as _dt
import math
import re

from baremobile.errors import InvalidArgument

__all__ = ["cut_until", "local_time", "parse_offset"]

_STAMP = re.compile(r"^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})")


def parse_offset(text: str) -> _dt.timedelta:
    """``date +%z``'s ``+0530`` / ``-0800`` as a timedelta (UTC when unreadable)."""
    m = re.search(r"([+-])(\d\d):?(\d\d)", text or "")
    if not m:
        return _dt.timedelta(0)
    delta = _dt.timedelta(hours=int(m[2]), minutes=int(m[3]))
    return -delta if m[1] == "-" else delta


def local_time(when: object, offset: _dt.timedelta) -> _dt.datetime:
    """``when`` as a naive datetime in the device's local time."""
    if isinstance(when, bool):
        raise InvalidArgument("until must be a time, not a boolean")
    if isinstance(when, (int, float)):
        if not math.isfinite(when) or when < 0:
            raise InvalidArgument(f"until must be a time, not {when!r}")
        utc = _dt.datetime.fromtimestamp(when, _dt.timezone.utc)
        return (utc + offset).replace(tzinfo=None)
    if not isinstance(when, str):
        raise InvalidArgument(f"until is seconds since the epoch or an ISO time, not {when!r}")
    try:
        t = _dt.datetime.fromisoformat(when.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument(f"until {when!r} is not an ISO 8601 time",
                              hint="e.g. '2025-01-15T10:30:00' (device time) or seconds "
                                   "since the epoch") from None
    if t.tzinfo is not None:
        return (t.astimezone(_dt.timezone.utc) + offset).replace(tzinfo=None)
    return t


def cut_until(text: str, until: _dt.datetime) -> str:
    """The lines of ``text`` logged at or before ``until`` (a line without a time — a
    ``--------- beginning of main`` banner, a wrapped message — goes with the line before
    it). Lines carry no year: they are taken to be of ``until``'s year."""
    key = (until.month, until.day, until.hour, until.minute, until.second,
           until.microsecond // 1000)
    out: list[str] = []
    keep = True
    for line in text.splitlines(keepends=True):
        m = _STAMP.match(line)
        if m:
            keep = tuple(int(g) for g in m.groups()) <= key
            if not keep:
                break  # the log is in time order: nothing later can come before
        if keep:
            out.append(line)
    return "".join(out)
