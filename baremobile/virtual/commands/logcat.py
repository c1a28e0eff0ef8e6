"""``logcat``: the log buffer (the phone's own lines and its event log, tag
``VirtualPhone``) with ``system/logging/logcat/logcat.cpp``'s options."""

from __future__ import annotations

import calendar
import re
import time
from collections.abc import Generator
from typing import Any

from baremobile.virtual.commands.registry import command
from baremobile.virtual.shell.process import Proc, err, out

Gen = Generator[tuple[int, bytes], None, int]


# -- logcat -----------------------------------------------------------------------------------

_PRIORITIES = "VDIWEFS"


#: ``-v`` words that modify the format rather than name one (``logprint.cpp``)
_MODIFIERS = ("epoch", "color", "descriptive", "monotonic", "printable", "uid", "usec", "UTC",
              "year", "zone")


def _format(row: tuple[float, str, str, str, int, Any], fmt: str, epoch: bool = False) -> str:
    """One line in ``logprint``'s layout for ``fmt`` (tags padded to 8, pids to 5); with
    ``epoch`` (``-v epoch``) the time is seconds since the epoch (``1700000000.123``)."""
    t, prio, tag, msg, pid, ev = row
    stamp = f"{int(t):10d}.{int((t % 1) * 1000):03d}" if epoch else \
        time.strftime("%m-%d %H:%M:%S", time.localtime(t)) + f".{int((t % 1) * 1000):03d}"
    if fmt == "threadtime" and ev is not None:
        line = ev.logcat_line()  # MM-DD hh:mm:ss.mmm, then the rest
        return stamp + line[18:] if epoch else line
    if fmt == "brief":
        return f"{prio}/{tag:<8}({pid:5d}): {msg}"
    if fmt == "tag":
        return f"{prio}/{tag:<8}: {msg}"
    if fmt == "raw":
        return msg
    if fmt == "time":
        return f"{stamp} {prio}/{tag:<8}({pid:5d}): {msg}"
    if fmt == "process":
        return f"{prio}({pid:5d}) {msg}  ({tag})"
    return f"{stamp} {pid:5d} {pid:5d} {prio} {tag:<8}: {msg}"


def _filter(specs: list[str], silent_default: bool) -> Any:
    rules: dict[str, str] = {}
    default = "S" if silent_default else "V"
    for spec in specs:
        tag, _, prio = spec.partition(":")
        prio = (prio or "V")[:1].upper()
        if tag == "*":
            default = prio
        else:
            rules[tag] = prio

    def keep(tag: str, prio: str) -> bool:
        need = rules.get(tag, default)
        if need == "S":
            return False
        return _PRIORITIES.index(prio) >= _PRIORITIES.index(need)

    return keep


_TIME_FORMATS = (r"(?P<mo>\d\d)-(?P<d>\d\d) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d(\.\d+)?)",
                 r"(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d) (?P<h>\d\d):(?P<mi>\d\d):"
                 r"(?P<s>\d\d(\.\d+)?)",
                 r"(?P<epoch>\d+\.\d+)")


def _parse_time(text: str, now: float) -> float | None:
    """A ``-t``/``-T`` time (``logcat.cpp``'s formats: ``'MM-DD hh:mm:ss.mmm'``,
    ``'YYYY-MM-DD hh:mm:ss.mmm'``, ``'sssss.mmm'`` seconds since the epoch), in the
    device's zone (the virtual phone's is UTC); None if it is none of them."""
    for pattern in _TIME_FORMATS:
        m = re.fullmatch(pattern, text.strip())
        if m is None:
            continue
        g = m.groupdict()
        if g.get("epoch"):
            return float(g["epoch"])
        year = int(g["y"]) if g.get("y") else time.gmtime(now).tm_year
        secs = float(g["s"])
        base = calendar.timegm((year, int(g["mo"]), int(g["d"]), int(g["h"]), int(g["mi"]),
                                0, 0, 0, 0))
        return base + secs
    return None


@command("logcat")
def logcat(p: Proc) -> Gen:
    """``logcat [-d] [-c] [-s] [-v FMT] [-t N|TIME] [-T N|TIME] [--pid=PID] [-e RE] [-m N]
    [TAG:PRIO ...]``, options as ``system/logging/logcat/logcat.cpp`` reads them: ``-t``
    implies ``-d``, ``-T`` keeps following; a count is a number, anything else must be a
    time; ``--pid`` (API 24+) keeps one process's lines."""
    args = p.argv[1:]
    dump = clear = silent = False
    fmt = "threadtime" if p.api_level >= 24 else "brief"  # the default before Android 7
    tail: int | None = None
    since: float | None = None
    pid: int | None = None
    regex: re.Pattern[str] | None = None
    max_count: int | None = None
    specs: list[str] = []
    modifiers: set[str] = set()
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--pid"):
            if p.api_level < 24:
                yield err(f"logcat: unrecognized option '{a}'\n")
                return 1
            val = a[6:] if a.startswith("--pid=") else (args[i + 1] if i + 1 < len(args)
                                                         else "")
            i += 0 if a.startswith("--pid=") else 1
            if not val.isdigit() or int(val) == 0:
                yield err(f"logcat: --pid {val} out of range.\n")
                return 1
            pid = int(val)
        elif a == "-d":
            dump = True
        elif a == "-c":
            clear = True
        elif a == "-s":
            silent = True
        elif a in ("-v", "-b", "-t", "-T", "-e", "-m"):
            val = args[i + 1] if i + 1 < len(args) else ""
            i += 1
            if a == "-v":
                if val in _MODIFIERS:
                    modifiers.add(val)
                else:
                    fmt = val
            elif a in ("-t", "-T"):
                dump = dump or a == "-t"
                if val.isdigit():
                    tail = int(val)
                else:
                    since = _parse_time(val, p.model.clock.time())
                    if since is None:
                        yield err(f"logcat: -{a[1]} '{val}' not in time format.\n")
                        return 1
            elif a == "-e":
                try:
                    regex = re.compile(val)
                except re.error:
                    yield err(f"logcat: Invalid regex: {val}\n")
                    return 1
            elif a == "-m":
                max_count = int(val) if val.isdigit() else None
        elif a.startswith("-v") and len(a) > 2:
            if a[2:] in _MODIFIERS:
                modifiers.add(a[2:])
            else:
                fmt = a[2:]
        elif a.startswith("-"):
            pass
        else:
            specs.append(a)
        i += 1
    if clear:
        p.model.logcat_clear()
        return 0
    keep = _filter(specs, silent)

    def wanted(r: tuple[float, str, str, str, int, Any]) -> bool:
        if not keep(r[2], r[1]) or (pid is not None and r[4] != pid):
            return False
        return regex is None or regex.search(r[3]) is not None

    rows = [r for r in p.model.logcat_entries() if wanted(r)]
    if since is not None:
        rows = [r for r in rows if r[0] >= since]
    if tail is not None:
        rows = rows[-tail:] if tail else []
    if max_count is not None:
        rows = rows[:max_count]
        dump = True
    yield out("--------- beginning of main\n")
    epoch = "epoch" in modifiers
    yield out("".join(_format(r, fmt, epoch) + "\n" for r in rows))
    if dump:
        return 0
    seen = p.model.events.last_seq
    while True:  # follow mode: stream new events until the client leaves
        p.check_cancel()
        p.cancel_event.wait(0.2)
        p.check_cancel()
        new = p.model.events.list(since=seen)
        seen = p.model.events.last_seq
        for ev in new:
            row = (ev.time, "I", "VirtualPhone", "", 1000, ev)
            if keep("VirtualPhone", "I") and (pid is None or pid == 1000):
                yield out(_format(row, fmt, epoch) + "\n")
