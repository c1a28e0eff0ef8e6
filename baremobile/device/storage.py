"""Storage on the device: its roots and their free space, and a text file's lines by number.

* Roots: ``ls /storage`` names the volumes — ``emulated`` (the shared storage, user 0's is
  ``/storage/emulated/0``, ``/sdcard``) and each removable one by its id (``1A2B-3C4D``);
  ``self`` is a link and skipped. ``/data/local/tmp``, the shell's own scratch space, is
  one too. ``df -k ROOT…`` (toybox: ``Filesystem 1K-blocks Used Available Use% Mounted
  on``) gives their sizes, and ``test -w`` whether the shell may write there — one round
  trip for both.
* Lines: ``head -n END FILE | tail -n +START`` sends only the lines asked for (one more, to
  know whether more follow).
"""

from __future__ import annotations

import re
from typing import Any

from baremobile.android.shell_words import command_line, number, quote
from baremobile.device.core import Device
from baremobile.errors import CommandFailed, InvalidArgument

__all__ = ["parse_df", "read_lines", "storage_roots"]

_DF = re.compile(r"^(?P<fs>\S+)\s+(?P<size>\d+)\s+(?P<used>\d+)\s+(?P<avail>\d+)\s+"
                 r"(?P<pct>\d+)%\s+(?P<mount>/.*)$")
_VOLUME = re.compile(r"^[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}$")


def parse_df(text: str) -> list[dict[str, Any]]:
    """``df -k`` rows: ``filesystem``, ``total_bytes``, ``used_bytes``,
    ``available_bytes``, ``mount`` (the header and unparsable lines are skipped)."""
    rows = []
    for line in text.splitlines():
        m = _DF.match(line.strip())
        if m:
            rows.append({"filesystem": m["fs"], "total_bytes": int(m["size"]) * 1024,
                         "used_bytes": int(m["used"]) * 1024,
                         "available_bytes": int(m["avail"]) * 1024, "mount": m["mount"]})
    return rows


def storage_roots(device: Device) -> list[dict[str, Any]]:
    """The places files go: shared storage, each removable volume, the shell's scratch
    space — each with its ``path``, ``name``, ``kind``, free and total bytes (None where
    ``df`` could not tell) and whether the shell may write there."""
    names = device.run(["ls", "/storage"], check=False).text.split()
    roots = [("/storage/emulated/0", "Internal shared storage (/sdcard)", "primary")]
    roots += [(f"/storage/{n}", f"Removable storage {n}", "removable")
              for n in names if _VOLUME.match(n)]
    roots.append(("/data/local/tmp", "Shell scratch space (adb's own)", "scratch"))
    paths = [p for p, _, _ in roots]
    script = "; ".join(f"if [ -w {quote(p)} ]; then echo W{i}; fi"
                       for i, p in enumerate(paths))
    r = device.transport.shell(f"{script}; {command_line(['df', '-k', *paths])}", timeout=30)
    text = r.text
    writable = {int(m) for m in re.findall(r"^W(\d+)$", text, re.M)}
    rows = parse_df(text)
    out = []
    for i, (path, name, kind) in enumerate(roots):
        # df prints one row per path given, in order (a path it cannot stat: no row)
        row = rows[i] if len(rows) == len(paths) else None
        out.append({"path": path, "name": name, "kind": kind,
                    "available_bytes": row["available_bytes"] if row else None,
                    "total_bytes": row["total_bytes"] if row else None,
                    "mount": row["mount"] if row else None,
                    "writable": i in writable})
    return out


def read_lines(device: Device, path: str, start: int = 1, count: int = 200
               ) -> dict[str, Any]:
    """Lines ``start`` … ``start + count - 1`` (1-based) of a text file:
    ``{"path", "start", "lines": [...], "has_more", "next_line"?}``."""
    start = number("start_line", start, minimum=1, maximum=1 << 40)
    count = number("count", count, minimum=1, maximum=10_000)
    if not isinstance(path, str) or not path.startswith("/"):
        raise InvalidArgument(f"{path!r} is not an absolute device path",
                              hint="device paths start with '/', e.g. /sdcard/notes.txt")
    q = quote(path)
    r = device.transport.shell(
        f"if [ ! -f {q} ]; then ls -d {q} >&2 || true; echo 'not a regular file' >&2; "
        f"exit 1; fi; head -n {start + count} {q} | tail -n +{start}", timeout=60)
    if r.exit_code != 0:
        said = (r.stderr or r.stdout).decode("utf-8", "replace").strip()
        raise CommandFailed(f"cannot read lines of {path}: {said.splitlines()[0] if said else ''}"
                            .rstrip(": "), command=r.command, exit_code=r.exit_code,
                            output=said, hint="check the path (list_files shows a folder)")
    text = r.stdout.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    more = len(lines) > count
    lines = lines[:count]
    out: dict[str, Any] = {"path": path, "start": start, "lines": lines, "has_more": more}
    if more:
        out["next_line"] = start + count
    return out
