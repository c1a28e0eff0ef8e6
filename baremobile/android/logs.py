"""Log lines: ``logcat`` in its formats, read for the fields a filter needs.

Formats (``system/logging/liblog/logprint.cpp``, ``android_log_formatLogLine``;
``system/core/liblog/logprint.c`` before Android 10):

* ``brief`` (the default before Android 7): ``P/TAG     ( PID): message`` (tag padded to 8,
  pid to 5);
* ``process``: ``P( PID) message  (TAG)``; ``tag``: ``P/TAG     : message`` (no pid);
* ``thread``: ``P( PID: TID) message``;
* ``time``: ``MM-DD HH:MM:SS.mmm P/TAG     ( PID): message``;
* ``threadtime`` (the default from Android 7): ``MM-DD HH:MM:SS.mmm  PID  TID P TAG     :
  message`` — the tag may be empty (``W         : debuggerd…``);
* ``long``: ``[ MM-DD HH:MM:SS.mmm  PID: TID P/TAG     ]`` then the message lines and a
  blank line;
* modifiers: ``year`` (``YYYY-MM-DD``), ``epoch``/``monotonic`` (seconds), ``usec``,
  ``zone`` (`` +0000``), ``uid`` (the uid or its name before the pid), ``printable``,
  ``color`` (ANSI escapes).

``--------- beginning of main`` separators name the buffer; they carry no pid.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from baremobile.android.text import lines

__all__ = ["LogLine", "parse_line", "parse_logcat", "keep_pids"]


@dataclass(frozen=True)
class LogLine:
    """The fields of one log line (None where the format does not carry them)."""

    priority: str
    tag: str | None
    pid: int | None
    tid: int | None
    message: str
    time: str | None = None


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TIME = (r"(?P<time>(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?|\d+\.\d+)"
         r"(?: [+-]\d{4})?")
_THREADTIME = re.compile(
    rf"^{_TIME}\s+(?:(?P<uid>\S+)\s+)?(?P<pid>\d+)\s+(?P<tid>\d+)\s+(?P<prio>[VDIWEFSA])\s"
    r"(?P<tag>.*?)\s*:(?:$| (?P<msg>.*)$)")
_BRIEF = re.compile(
    rf"^(?:{_TIME}\s+)?(?P<prio>[VDIWEFSA])/(?P<tag>.*?)\s*\(\s*(?:(?P<uid>\w+):?\s+)?"
    r"(?P<pid>\d+)\):\s?(?P<msg>.*)$")
_THREAD = re.compile(r"^(?P<prio>[VDIWEFSA])\(\s*(?P<pid>\d+):\s*(?P<tid>\d+)\)\s(?P<msg>.*)$")
_PROCESS = re.compile(r"^(?P<prio>[VDIWEFSA])\(\s*(?P<pid>\d+)\)\s(?P<msg>.*?)\s+\((?P<tag>.*)\)$")
_TAG = re.compile(r"^(?P<prio>[VDIWEFSA])/(?P<tag>.*?)\s*:(?:$| (?P<msg>.*)$)")
_LONG = re.compile(rf"^\[ {_TIME}\s+(?:(?P<uid>\S+):?\s+)?(?P<pid>\d+):\s*(?P<tid>\d+)\s+"
                   r"(?P<prio>[VDIWEFSA])/(?P<tag>.*?)\s*\]$")


def parse_line(line: str) -> LogLine | None:
    """One line of any format; None for separators and lines without a priority."""
    line = _ANSI.sub("", line.rstrip("\r\n"))
    for rx in (_THREADTIME, _BRIEF, _LONG, _THREAD, _PROCESS, _TAG):
        m = rx.match(line)
        if m:
            g = m.groupdict()
            pid = g.get("pid")
            tid = g.get("tid")
            return LogLine(g["prio"], g.get("tag"), int(pid) if pid else None,
                           int(tid) if tid else None, g.get("msg") or "", g.get("time"))
    return None


def parse_logcat(data: bytes | str) -> list[LogLine]:
    """Every line that is a log entry (the ``long`` format's message lines are joined to
    their header)."""
    out: list[LogLine] = []
    pending: LogLine | None = None
    body: list[str] = []
    for line in lines(data):
        parsed = parse_line(line)
        if parsed is not None and _LONG.match(_ANSI.sub("", line)):
            if pending is not None:
                out.append(_with_message(pending, body))
            pending, body = parsed, []
            continue
        if pending is not None:
            if line == "":
                out.append(_with_message(pending, body))
                pending, body = None, []
            else:
                body.append(line)
            continue
        if parsed is not None:
            out.append(parsed)
    if pending is not None:
        out.append(_with_message(pending, body))
    return out


def _with_message(entry: LogLine, body: list[str]) -> LogLine:
    return LogLine(entry.priority, entry.tag, entry.pid, entry.tid, "\n".join(body),
                   entry.time)


def keep_pids(data: bytes | str, pids: Iterable[int]) -> str:
    """The lines of ``data`` written by one of ``pids`` (any format that carries the pid;
    separators and lines without a pid are dropped), each ending with ``\\n``."""
    want = set(pids)
    kept = []
    for line in lines(data):
        entry = parse_line(line)
        if entry is not None and entry.pid in want:
            kept.append(line + "\n")
    return "".join(kept)
