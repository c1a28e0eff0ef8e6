"""Files on the device beyond push and pull: listing with type, size and time (paged),
deleting, appending.

* Listing parses ``ls -la DIR/`` — one round trip on every Android (the formats, toybox
  and toolbox, are read by :mod:`baremobile.android.listing`); the trailing slash makes
  ``/sdcard`` — a link — list the folder it points to.
  The time is the device's local time, to the minute (what ``ls -l`` prints). Paging is done
  here: directories first, then files, by name.
* Appending pushes the text to a temporary file and runs ``cat TMP >> FILE`` (binary-safe
  on every version, whatever the text holds), then removes the temporary file.
* Storage roots: ``ls /storage`` names the volumes — ``emulated`` (the shared storage, user
  0's is ``/storage/emulated/0``, ``/sdcard``) and each removable one by its id
  (``1A2B-3C4D``); ``self`` is a link and skipped. ``/data/local/tmp``, the shell's own
  scratch space, is one too. ``df -k ROOT…`` (:mod:`baremobile.android.storage`) gives their
  sizes, and ``test -w`` whether the shell may write there — one round trip for both.
* Lines: ``head -n END FILE | tail -n +START`` sends only the lines asked for (one more, to
  know whether more follow), over ``exec:``.
* One cap for every read (:data:`MAX_READ`): a byte read returns at most that many bytes,
  a line read at most that many bytes of lines — whole lines, or the first part of one
  longer line, said so (``cut``, ``next_offset``). Android 9+ cuts on the device
  (``head -c``); older devices stop reading the stream there.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import secrets
from dataclasses import dataclass
from typing import Any

from baremobile.android import listing
from baremobile.android.shell_words import absolute_path, command_line, number, quote
from baremobile.android.storage import parse_df
from baremobile.device.core import Device
from baremobile.errors import CommandFailed, InvalidArgument
from baremobile.safetext import decode

__all__ = ["FilePart", "Files", "MAX_READ", "UNREADABLE_KINDS", "lines_of", "parse_ls"]

#: The most bytes one read of a device file returns, by bytes or by lines (a 64 MiB line
#: is not one answer); the rest is read by asking again from where it stopped.
MAX_READ = 1_000_000


def parse_ls(text: bytes | str) -> list[dict[str, Any]]:
    """The entries of ``ls -la`` output (``.`` and ``..`` left out), as dictionaries
    (the parser: :func:`baremobile.android.listing.parse_ls` — toybox and toolbox, escaped
    names, links)."""
    out = []
    for e in listing.parse_ls(text):
        entry: dict[str, Any] = {"name": e.name, "type": e.type, "modified": e.modified,
                                 "mode": e.mode}
        if e.size is not None:
            entry["size"] = e.size
        if e.target is not None:
            entry["target"] = e.target
        out.append(entry)
    return out


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


@dataclass(frozen=True)
class FilePart:
    """Bytes of a device file (:meth:`~baremobile.page.Page.read_file`)."""

    path: str
    offset: int  #: where :attr:`data` starts in the file
    data: bytes
    size: int  #: the file's size as ``stat`` reports it (0 for most of ``/proc``)
    more: bool  #: whether the file goes on after :attr:`data`


#: What ``stat -L -c %F`` calls the files ``read_part`` refuses (reading a FIFO or a
#: socket waits for a writer, possibly forever).
UNREADABLE_KINDS = ("directory", "fifo", "socket")


_VOLUME = re.compile(r"^[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}\Z")


class Files:
    """Files on the device beyond push and pull, over a :class:`Device`: listings, ranged
    reads, lines, delete, append, the storage roots."""

    def __init__(self, device: Device) -> None:
        self.device = device

    def list_dir(self, path: str, *, offset: int = 0, limit: int = 200) -> dict[str, Any]:
        """One page of a directory: ``{"path", "entries", "total", "offset", "has_more"}``."""
        absolute_path(path)
        path = path.rstrip("/") or "/"
        # with a trailing slash the kernel resolves a link to a folder (/sdcard): the folder
        # is listed, not the link
        r = self.device.run(["ls", "-la", path if path == "/" else path + "/"], check=False)
        if r.exit_code != 0 and not r.text.strip():
            said = decode(r.stderr).strip() or f"exit status {r.exit_code}"
            raise CommandFailed(f"cannot list {path}: {said}", command=f"ls -la {path}/",
                                exit_code=r.exit_code, output=said,
                                hint="check the path: list its parent folder ({list_files})")
        entries = parse_ls(r.text)
        entries.sort(key=lambda e: (e["type"] != "directory", e["name"].casefold(), e["name"]))
        page = entries[offset:offset + limit]
        return {"path": path, "entries": page, "total": len(entries), "offset": offset,
                "has_more": offset + len(page) < len(entries)}

    def delete(self, path: str, *, recursive: bool = False) -> None:
        """``rm`` a file (a directory only with ``recursive``); the device's words on failure."""
        absolute_path(path)
        if _normal(path) in _PROTECTED:
            raise InvalidArgument(f"refusing to delete {path!r} itself",
                                  hint="name the files or folders inside it")
        argv = ["rm", *(["-r"] if recursive else []), "--", path]
        r = self.device.run(argv, check=False)
        if r.exit_code != 0:
            said = decode(r.stderr or r.stdout).strip()
            folder = "is a directory" in said.lower() and not recursive
            raise CommandFailed(f"could not delete {path}: {said or r.exit_code}",
                                command=command_line(argv), exit_code=r.exit_code, output=said,
                                hint="it is a folder: pass recursive=true to delete it with "
                                     "everything in it" if folder else
                                     "check the path: list its folder ({list_files})")

    def append(self, path: str, data: bytes) -> int:
        """Add ``data`` at the end of ``path`` (created if missing); returns the new size."""
        absolute_path(path)
        tmp = f"/data/local/tmp/baremobile-append-{secrets.token_hex(4)}"
        self.device.transport.push(data, tmp)
        line = (f"cat {command_line([tmp])} >> {command_line([path])}; s=$?; "
                f"rm -f {command_line([tmp])}; [ $s = 0 ] && stat -c %s {command_line([path])};"
                " exit $s")
        r = self.device.transport.shell(line)
        if r.exit_code != 0:
            said = decode(r.stderr or r.stdout).strip()
            raise CommandFailed(f"could not append to {path}: {said or r.exit_code}",
                                command=line, exit_code=r.exit_code, output=said,
                                hint="check the path and that its folder exists ({list_files})")
        size = r.text.strip()
        return int(size) if size.isdigit() else -1

    def read_part(self, path: str, offset: int, length: int) -> FilePart:
        """At most ``length`` (≤ :data:`MAX_READ`) bytes of ``path`` from ``offset`` on (one
        more is read to tell whether the file goes on)."""
        absolute_path(path)
        offset = number("offset", offset, minimum=0)
        length = number("max_bytes", length, minimum=1, maximum=MAX_READ)
        size, kind = self.device.file_info(path)
        if kind in UNREADABLE_KINDS:
            raise InvalidArgument(f"{path} is a {kind}, not a file",
                                  hint="list a directory with {list_files}" if kind == "directory"
                                  else "read_file reads regular files")
        data = self.device.read_part(path, offset, length + 1)
        return FilePart(path, offset, data[:length], size, len(data) > length)

    def storage_roots(self) -> list[dict[str, Any]]:
        """The places files go: shared storage, each removable volume, the shell's scratch
        space — each with its ``path``, ``name``, ``kind``, free and total bytes (None where
        ``df`` could not tell) and whether the shell may write there."""
        names = self.device.run(["ls", "/storage"], check=False).text.split()
        roots = [("/storage/emulated/0", "Internal shared storage (/sdcard)", "primary")]
        roots += [(f"/storage/{n}", f"Removable storage {n}", "removable")
                  for n in names if _VOLUME.match(n)]
        roots.append(("/data/local/tmp", "Shell scratch space (adb's own)", "scratch"))
        paths = [p for p, _, _ in roots]
        script = "; ".join(f"if [ -w {quote(p)} ]; then echo W{i}; fi"
                           for i, p in enumerate(paths))
        r = self.device.transport.shell(f"{script}; {command_line(['df', '-k', *paths])}",
                                        timeout=30)
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

    def read_lines(self, path: str, start: int = 1, count: int = 200
                   ) -> dict[str, Any]:
        """Lines ``start`` … ``start + count - 1`` (1-based) of a text file, at most
        :data:`MAX_READ` bytes of them: ``{"path", "start", "lines": [...], "has_more",
        "next_line"?}``. A line longer than that comes cut to its first part, with
        ``"cut": True`` and ``next_offset`` (where the rest starts, for a byte read)."""
        start = number("start_line", start, minimum=1, maximum=1 << 40)
        count = number("count", count, minimum=1, maximum=10_000)
        q = quote(absolute_path(path))
        # one more byte than the cap tells whether it cut; Android 9+ cuts on the device
        cap = f" | head -c {MAX_READ + 1}" if self.device.api_level >= 28 else ""
        script = (f"if [ -f {q} ]; then echo OK; head -n {start + count} {q} 2>/dev/null | "
                  f"tail -n +{start}{cap}; else echo NO; ls -d {q} 2>&1; fi")
        got = bytearray()
        stream = self.device.transport.stream(script, timeout=60)
        with contextlib.closing(stream):
            for chunk in stream:
                got += chunk
                if len(got) > len(b"OK\n") + MAX_READ:
                    break  # enough: the stream is closed unread (older devices)
        status, _, data = bytes(got).partition(b"\n")
        if status != b"OK":
            said = decode(data).strip()
            first = said.splitlines()[0] if said else ""
            reason = "not a regular file" if first == path else first
            raise CommandFailed(f"cannot read lines of {path}: {reason}".rstrip(": "),
                                command=script, output=said,
                                hint="check the path (list_files shows a folder)")
        out = {"path": path, **lines_of(data, start, count, MAX_READ)}
        if out.get("cut"):
            out["next_offset"] = self._offset_of(q, start) + out.pop("cut_bytes")
        return out

    def _offset_of(self, quoted: str, line: int) -> int:
        """The byte offset where line ``line`` (1-based) of a file starts."""
        if line == 1:
            return 0
        r = self.device.transport.shell(f"head -n {line - 1} {quoted} | wc -c", timeout=60)
        said = r.text.strip()
        return int(said) if said.isdigit() else 0


def lines_of(data: bytes, start: int, count: int, cap: int) -> dict[str, Any]:
    """What :meth:`Files.read_lines` answers for ``data`` — the output of ``head -n
    START+COUNT | tail -n +START``, cut after ``cap + 1`` bytes: ``{"start", "lines",
    "has_more", "next_line"?}``; whole lines within ``cap`` bytes, or when the first line
    alone is longer, its first part with ``"cut": True`` and ``cut_bytes`` (how many bytes
    of it are shown)."""
    capped = len(data) > cap
    lines = data[:cap].split(b"\n")
    rest = lines.pop()  # after the last newline: a last line without one, or a cut one
    if capped and not lines and data[cap:cap + 1] == b"\n":  # exactly the cap: whole
        lines, rest = [rest], b""
    if capped and not lines:  # one line longer than the cap: its first part
        text, used = _utf8_head(rest)
        return {"start": start, "lines": [text], "has_more": True, "next_line": start + 1,
                "cut": True, "cut_bytes": used}
    if rest and not capped:
        lines.append(rest)
    more = capped or len(lines) > count
    lines = lines[:count]
    out: dict[str, Any] = {"start": start, "lines": [decode(x) for x in lines],
                           "has_more": more}
    if more:
        out["next_line"] = start + len(lines)
    return out


def _utf8_head(data: bytes) -> tuple[str, int]:
    """``data`` decoded without the partial character a cut may leave at its end, and how
    many of its bytes that is."""
    for drop in range(4):
        try:
            return data[:len(data) - drop].decode("utf-8"), len(data) - drop
        except UnicodeDecodeError as exc:
            if exc.reason != "unexpected end of data":
                break  # invalid inside, not cut: decoded as any device text
    return decode(data), len(data)
