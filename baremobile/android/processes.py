"""Processes: ``ps`` / ``ps -A`` as toybox and toolbox print them.

* toybox ``ps`` (``toys/posix/ps.c``; Android 7+, the default from Android 8): a header
  ``USER PID PPID VSZ RSS WCHAN ADDR S NAME`` (``-o`` chooses others), columns padded to a
  width that values overflow (``VSZ`` 260842572, ``USER`` ``webview_zygote``) — so only
  whitespace splitting reads them; the header may carry trailing blanks. On Android 8+ plain
  ``ps`` lists the caller's session only and ``-A`` lists every process.
* toolbox ``ps`` (``system/core/toolbox/ps.c``; Android ≤ 7): header ``USER PID PPID VSIZE
  RSS [PRIO NICE RTPRI SCHED] [PCY] WCHAN PC NAME``, and every row has one more column than
  the header names: the state letter before ``NAME``
  (``root 1 0 8904 772 ffffffff 00000000 S /init``). It reads any argument that is not a
  known option as a name filter, so ``ps -A`` prints the header alone and exits 0 —
  :func:`only_header` tells that apart from a real listing.
* ``NAME`` is the last column and may hold spaces (a process that set its argv); kernel
  threads are ``[name]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from baremobile.android.text import lines

__all__ = ["Process", "Processes", "parse_ps", "only_header"]

_STATES = set("RSDZTtXxKWPI")


@dataclass(frozen=True)
class Process:
    """One row."""

    pid: int
    name: str
    user: str = ""
    ppid: int | None = None

    @property
    def package(self) -> str:
        """The app package a process name belongs to (``pkg:remote`` → ``pkg``)."""
        return self.name.partition(":")[0]


@dataclass(frozen=True)
class Processes:
    """A listing: its rows by pid."""

    by_pid: Mapping[int, Process]
    header: tuple[str, ...] = ()

    def names(self) -> dict[int, str]:
        return {pid: p.name for pid, p in self.by_pid.items()}


def _header_index(lines_: list[str]) -> int | None:
    for i, line in enumerate(lines_):
        if "PID" in line.split():
            return i
    return None


def parse_ps(data: bytes | str) -> Processes:
    """The rows of a ``ps`` listing (empty when there is no header naming ``PID``)."""
    text = lines(data)
    at = _header_index(text)
    if at is None:
        return Processes(MappingProxyType({}))
    header = text[at].split()
    pid_col = header.index("PID")
    ppid_col = header.index("PPID") if "PPID" in header else None
    user_col = header.index("USER") if "USER" in header else None
    name_col = next((header.index(n) for n in ("NAME", "CMD", "ARGS", "COMMAND", "CMDLINE")
                     if n in header), len(header) - 1)
    toolbox = "S" not in header and "PC" in header
    rows: dict[int, Process] = {}
    for line in text[at + 1:]:
        f = line.split()
        if len(f) <= max(pid_col, name_col) or not f[pid_col].isdigit():
            continue
        rest = f[name_col:]
        if toolbox and len(rest) > 1 and rest[0] in _STATES:
            rest = rest[1:]  # toolbox's unnamed state column
        ppid = f[ppid_col] if ppid_col is not None else ""
        pid = int(f[pid_col])
        rows[pid] = Process(pid, " ".join(rest),
                            f[user_col] if user_col is not None else "",
                            int(ppid) if ppid.isdigit() else None)
    return Processes(MappingProxyType(rows), tuple(header))


def only_header(data: bytes | str) -> bool:
    """Whether ``ps`` printed its header and no process — toolbox ``ps -A``, which took
    ``-A`` for a name filter."""
    text = [ln for ln in lines(data) if ln.strip()]
    at = _header_index(text)
    return at is not None and not parse_ps(data).by_pid
