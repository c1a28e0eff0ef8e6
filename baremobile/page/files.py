"""File verbs of :class:`~baremobile.page.Page`: push and pull (in memory or streamed into
a sink), a device folder's listing (paged), delete, append, a text file's lines by number,
replacing text in a file, and the storage roots with their free space. Thin wrappers over
the sync protocol (:mod:`baremobile.transport`), :class:`baremobile.device.files.Files`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baremobile.device.files import FilePart
from baremobile.errors import InvalidArgument, RefNotFound
from baremobile.localfiles import bytes_of
from baremobile.page.base import PageBase
from baremobile.page.steps import verb
from baremobile.transport.base import check_text
from baremobile.transport.progress import Progress, shown

__all__ = ["FileVerbs"]


class FileVerbs(PageBase):
    """Files on the device (see the module's docs)."""

    @verb()
    def list_files(self, path: str, *, offset: int = 0, limit: int = 200) -> dict[str, Any]:
        """A page of a device directory: entries with ``name``, ``type``, ``size``,
        ``modified`` (device time, to the minute), directories first; ``total`` and
        ``has_more`` for paging."""
        return self._files.list_dir(path, offset=offset, limit=limit)

    @verb()
    def delete_file(self, path: str, *, recursive: bool = False) -> None:
        """Delete a device file (a folder and its content only with ``recursive``)."""
        self._files.delete(path, recursive=recursive)

    @verb(secret=("data",))
    def append_file(self, path: str, data: bytes | str) -> int:
        """Add text (UTF-8) or bytes at the end of a device file (created if missing);
        returns its new size."""
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        return self._files.append(path, payload)

    @verb(secret=("data",))
    def push(self, data: bytes | str | Path, device_path: str, *,
             progress: Progress | None = None) -> None:
        """Copy ``data`` (bytes, or the path of a local file) to ``device_path``.
        ``progress``: ``progress(done_bytes, total_bytes)`` as the bytes go, or ``True`` for a
        bar (:mod:`baremobile.transport.progress`)."""
        payload = bytes_of(data, "push")
        with shown(progress, f"push {device_path}"):
            self.transport.push(payload, device_path)

    @verb()
    def read_file(self, path: str, *, offset: int = 0, max_bytes: int = 20_000) -> FilePart:
        """At most ``max_bytes`` (up to :data:`~baremobile.device.files.MAX_READ`,
        1,000,000: the cap of every read) of a device file from byte ``offset`` on, without
        moving the rest of the file (Android 9+: only those bytes cross the wire; for a
        whole file, :meth:`pull_into`). Directories, FIFOs and sockets are refused (reading
        a FIFO could wait for ever)."""
        return self._files.read_part(path, offset, max_bytes)

    @verb()
    def pull(self, device_path: str, *, progress: Progress | None = None) -> bytes:
        """The contents of ``device_path`` on the device (in memory: for big files, use
        :meth:`pull_into`). ``progress``: ``progress(done_bytes, total_bytes)`` as the bytes
        come (``total_bytes`` None until the size is known), or ``True`` for a bar."""
        with shown(progress, f"pull {device_path}"):
            return self.transport.pull(device_path)

    @verb()
    def pull_into(self, device_path: str, sink: Any, *,
                  progress: Progress | None = None) -> int:
        """Stream ``device_path`` into ``sink`` (an open binary file, anything with
        ``write(bytes)``) as it arrives; returns the byte count. Memory stays small
        whatever the file's size; a failure of the sink (a full disk) is raised as is.
        ``progress``: as for :meth:`pull`."""
        with shown(progress, f"pull {device_path}"):
            return self.transport.pull_into(device_path, sink)

    @verb()
    def read_lines(self, path: str, *, start: int = 1, count: int = 200) -> dict[str, Any]:
        """Lines ``start`` … ``start + count - 1`` (1-based) of a device text file, only
        those crossing the wire: ``{"path", "start", "lines", "has_more", "next_line"?}`` —
        at most :data:`~baremobile.device.files.MAX_READ` bytes of them, as a byte read. A
        line longer than that comes cut (``"cut": True``; ``next_offset``: where its rest
        starts, for :meth:`read_file`)."""
        return self._files.read_lines(path, start, count)

    @verb(secret=("old", "new"))
    def replace_in_file(self, path: str, old: str, new: str, *,
                        replace_all: bool = False) -> int:
        """Replace ``old`` with ``new`` in a device text file (UTF-8): the first occurrence,
        or every one with ``replace_all``; returns how many were replaced. ``old`` absent:
        ``REF_NOT_FOUND`` and the file is left as it was."""
        if not isinstance(old, str) or not old:
            raise InvalidArgument("old must be a non-empty string: the text to replace")
        if not isinstance(new, str):
            raise InvalidArgument("new must be a string")
        check_text("old", old)
        check_text("new", new)  # both can be written as UTF-8, before anything is read
        data = self.transport.pull(path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidArgument(f"{path} is not UTF-8 text: nothing was replaced") from None
        found = text.count(old)
        if not found:
            raise RefNotFound(f"{old[:80]!r} is not in {path}: nothing was replaced",
                              hint="read the file (read_file) and copy the exact text")
        done = found if replace_all else 1
        self.transport.push(text.replace(old, new, -1 if replace_all else 1).encode("utf-8"),
                            path)
        return done

    @verb()
    def storage_locations(self) -> list[dict[str, Any]]:
        """Where files can go: shared storage (``/storage/emulated/0``), each removable
        volume, and ``/data/local/tmp`` — each with ``path``, ``name``, ``kind``,
        ``available_bytes``, ``total_bytes`` (``df``), ``mount`` and ``writable``."""
        return self._files.storage_roots()
