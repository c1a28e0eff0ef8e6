"""Files on the device beyond push and pull: listing with type, size and time (paged),
deleting, appending.

* Listing parses ``ls -la DIR`` — one round trip on every Android: toybox writes
  ``MODE LINKS OWNER GROUP SIZE YYYY-MM-DD HH:MM NAME`` (``-> TARGET`` for links,
  ``MAJOR, MINOR`` instead of a size for devices); Android 5's toolbox had no link count.
  The time is the device's local time, to the minute (what ``ls -l`` prints). Paging is done
  here: directories first, then files, by name.
* Appending pushes the text to a temporary file and runs ``cat TMP >> FILE`` (binary-safe
  on every version, whatever the text holds), then removes the temporary file.
"""

from __future__ import annotations

import posixpath
import re
import secrets
from typing import Any

from baremobile.device import Device
from baremobile.errors import CommandFailed, InvalidArgument
from baremobile.safetext import decode
from baremobile.shell_words import command_line
from baremobile.transport.base import check_text

__all__ = ["list_dir", "delete", "append", "parse_ls"]

_TYPES = {"d": "directory", "-": "file", "l": "link", "c": "char device", "b": "block device",
          "s": "socket", "p": "fifo"}
_LS = re.compile(
    r"^(?P<mode>[-dlcbsp][-rwxsStT]{9})[.+@]?\s+(?:\d+\s+)?(?P<owner>\S+)\s+(?P<group>\S+)\s+"
    r"(?:(?P<size>\d+)|\d+,\s*\d+)\s+(?P<date>\d{4}-\d\d-\d\d)\s+(?P<time>\d\d:\d\d)\s"
    r"(?P<name>.*)$")


def _absolute(path: object) -> str:
    if not isinstance(path, str) or not path.startswith("/"):
        raise InvalidArgument(f"{path!r} is not an absolute device path",
                              hint="device paths start with '/', e.g. /sdcard/Download")
    if "\0" in path or "\n" in path:
        raise InvalidArgument("a device path cannot contain NUL or newline characters")
    check_text("the device path", path)
    return path


def parse_ls(text: str) -> list[dict[str, Any]]:
    """The entries of ``ls -la`` output (``.`` and ``..`` left out)."""
    out = []
    for line in text.splitlines():
        m = _LS.match(line)
        if not m:
            continue
        kind = _TYPES[m.group("mode")[0]]
        name, target = m.group("name"), None
        if kind == "link" and " -> " in name:
            name, target = name.split(" -> ", 1)
        if name in (".", ".."):
            continue
        entry: dict[str, Any] = {"name": name, "type": kind,
                                 "modified": f"{m.group('date')} {m.group('time')}",
                                 "mode": m.group("mode")}
        if m.group("size") is not None and kind != "directory":
            entry["size"] = int(m.group("size"))
        if target is not None:
            entry["target"] = target
        out.append(entry)
    return out


def list_dir(device: Device, path: str, *, offset: int = 0, limit: int = 200) -> dict[str, Any]:
    """One page of a directory: ``{"path", "entries", "total", "offset", "has_more"}``."""
    _absolute(path)
    path = path.rstrip("/") or "/"
    r = device.run(["ls", "-la", path], check=False)
    if r.exit_code != 0 and not r.text.strip():
        said = decode(r.stderr).strip() or f"exit status {r.exit_code}"
        raise CommandFailed(f"cannot list {path}: {said}", command=f"ls -la {path}",
                            exit_code=r.exit_code, output=said,
                            hint="check the path: list its parent folder ({list_files})")
    entries = parse_ls(r.text)
    entries.sort(key=lambda e: (e["type"] != "directory", e["name"].casefold(), e["name"]))
    page = entries[offset:offset + limit]
    return {"path": path, "entries": page, "total": len(entries), "offset": offset,
            "has_more": offset + len(page) < len(entries)}


#: folders never deleted whole (normalised paths): the root, the shared storage under every
#: name Android gives it (``/sdcard`` and ``/storage/self/primary`` are links to the user's
#: ``/storage/emulated/<user>``), and the shell's scratch folder
_PROTECTED = frozenset({
    "/", "/sdcard", "/mnt/sdcard", "/storage", "/storage/self", "/storage/self/primary",
    "/storage/emulated", "/storage/emulated/0", "/data", "/data/local", "/data/local/tmp",
    "/data/media", "/data/media/0", "/system",
})


def _normal(path: str) -> str:
    """``path`` with ``//``, ``.`` and ``..`` resolved as the kernel would for folders
    (``posixpath.normpath`` keeps a leading ``//``, which Linux reads as ``/``)."""
    return posixpath.normpath("/" + path.lstrip("/"))


def delete(device: Device, path: str, *, recursive: bool = False) -> None:
    """``rm`` a file (a directory only with ``recursive``); the device's words on failure."""
    _absolute(path)
    if _normal(path) in _PROTECTED:
        raise InvalidArgument(f"refusing to delete {path!r} itself",
                              hint="name the files or folders inside it")
    argv = ["rm", *(["-r"] if recursive else []), "--", path]
    r = device.run(argv, check=False)
    if r.exit_code != 0:
        said = decode(r.stderr or r.stdout).strip()
        folder = "is a directory" in said.lower() and not recursive
        raise CommandFailed(f"could not delete {path}: {said or r.exit_code}",
                            command=command_line(argv), exit_code=r.exit_code, output=said,
                            hint="it is a folder: pass recursive=true to delete it with "
                                 "everything in it" if folder else
                                 "check the path: list its folder ({list_files})")


def append(device: Device, path: str, data: bytes) -> int:
    """Add ``data`` at the end of ``path`` (created if missing); returns the new size."""
    _absolute(path)
    tmp = f"/data/local/tmp/baremobile-append-{secrets.token_hex(4)}"
    device.transport.push(data, tmp)
    line = (f"cat {command_line([tmp])} >> {command_line([path])}; s=$?; "
            f"rm -f {command_line([tmp])}; [ $s = 0 ] && stat -c %s {command_line([path])};"
            " exit $s")
    r = device.transport.shell(line)
    if r.exit_code != 0:
        said = decode(r.stderr or r.stdout).strip()
        raise CommandFailed(f"could not append to {path}: {said or r.exit_code}",
                            command=line, exit_code=r.exit_code, output=said,
                            hint="check the path and that its folder exists ({list_files})")
    size = r.text.strip()
    return int(size) if size.isdigit() else -1
