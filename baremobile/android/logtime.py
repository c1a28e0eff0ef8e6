"""Log times, without I/O: a caller's time as logcat's ``-t`` (``since``), and cutting a
``logcat`` text at a time (``until``).

``logcat -v threadtime`` starts each line with the device's local time, without a year:
``11-26 15:37:15.123  1234  1240 I Tag: message``. :func:`cut_until` keeps the lines up to
and including a moment; :func:`local_time` turns what a caller gives (seconds since the
epoch, or an ISO 8601 time — with a zone, or without one: the device's local time) into
the device's local time, given its UTC offset (``date +%z``).
"""

from __future__ import annotations

import datetime as _dt
import re

from baremobile.errors import InvalidArgument

__all__ = ["cut_until", "local_time", "log_time", "parse_offset", "read_time"]

_STAMP = re.compile(r"^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})")
#: 9999-12-31 23:59:59 UTC, the last second a ``datetime`` holds: a time given in seconds
#: since the epoch lies between 0 and this
LAST_SECOND = 253_402_300_799


def parse_offset(text: str) -> _dt.timedelta:
    """``date +%z``'s ``+0530`` / ``-0800`` as a timedelta (UTC when unreadable)."""
    m = re.search(r"([+-])(\d\d):?(\d\d)", text or "")
    if not m:
        return _dt.timedelta(0)
    delta = _dt.timedelta(hours=int(m[2]), minutes=int(m[3]))
    return -delta if m[1] == "-" else delta


def read_time(when: object, name: str) -> float | _dt.datetime:
    """A time a caller gave for ``name`` (``since``, ``until``): seconds since the epoch (a
    float), or an ISO 8601 time (a datetime; without a zone it is the device's local time)."""
    if isinstance(when, bool):
        raise InvalidArgument(f"{name} must be a time, not a boolean")
    if isinstance(when, (int, float)):
        if not 0 <= when <= LAST_SECOND:  # NaN too; a huge int is never made a float
            raise InvalidArgument(f"{name} must be seconds since the epoch, 0 to "
                                  f"{LAST_SECOND} (the year 9999), not {_short(when)}")
        return float(when)
    if not isinstance(when, str):
        raise InvalidArgument(f"{name} is seconds since the epoch or an ISO time, not "
                              f"{_short(when)}")
    try:
        t = _dt.datetime.fromisoformat(when.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument(f"{name} {_short(when)} is not an ISO 8601 time",
                              hint="e.g. '2025-01-15T10:30:00' (device time) or seconds "
                                   "since the epoch") from None
    if t.tzinfo is not None and not 0 <= t.timestamp() <= LAST_SECOND:
        raise InvalidArgument(f"{name} {_short(when)} is before 1970 or after the year 9999 "
                              "in UTC")
    return t


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def local_time(when: object, offset: _dt.timedelta) -> _dt.datetime:
    """``when`` (``until``) as a naive datetime in the device's local time."""
    t = read_time(when, "until")
    try:
        if isinstance(t, float):
            t = _dt.datetime.fromtimestamp(t, _dt.timezone.utc)
        if t.tzinfo is not None:
            return (t.astimezone(_dt.timezone.utc) + offset).replace(tzinfo=None)
    except (OverflowError, ValueError, OSError):  # the device's zone leaves the calendar
        raise InvalidArgument(f"until {_short(when)} is beyond the year 9999 in the "
                              "device's time zone") from None
    return t


def log_time(since: object) -> str:
    """``since`` as logcat's ``-t`` argument: seconds since the epoch, or the device's
    local time to the millisecond (an ISO time without a zone is taken as that)."""
    t = read_time(since, "since")
    if isinstance(t, float):
        return f"{t:.3f}"
    if t.tzinfo is not None:
        return f"{t.timestamp():.3f}"
    return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"


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
