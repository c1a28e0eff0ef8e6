"""adbd's ``sync:`` service (push, pull, stat, list) — a sans-I/O state machine.

Requests are 8-byte ``id + u32 length`` headers followed by ``length`` bytes. The
service answers ``STAT``/``STA2``/``LST2`` with stat records, ``LIST`` with ``DENT``
records and a ``DONE``, ``RECV`` with ``DATA`` chunks (≤ 64 KiB) and ``DONE``, and a
``SEND`` (``path,mode`` then ``DATA``… ``DONE <mtime>``) with ``OKAY`` or ``FAIL``.
``QUIT`` ends the session. Feed it the bytes of the client's WRTE messages in any
chunking; it returns the bytes to send back.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import zlib
from dataclasses import dataclass

from baremobile.virtual.events import EventLog
from baremobile.virtual.fs import FileSystem

__all__ = ["SyncSession", "SyncQuit", "SYNC_DATA_MAX"]

SYNC_DATA_MAX = 64 * 1024
_MAX_PATH = 1024

_REQ = struct.Struct("<4sI")
_STAT_V1 = struct.Struct("<4sIII")
_DENT = struct.Struct("<4sIIII")
_STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")


class SyncQuit(Exception):
    """The client ended the sync session (QUIT) or broke its protocol."""


@dataclass
class _Send:
    path: str
    mode: int
    data: bytearray


class SyncSession:
    """One ``sync:`` stream."""

    def __init__(self, fs: FileSystem, events: EventLog | None = None) -> None:
        self.fs = fs
        self.events = events
        self._buf = bytearray()
        self._send: _Send | None = None
        self.closed = False

    def feed(self, data: bytes) -> bytes:
        """Consume client bytes; return the response bytes (may be empty).

        Raises :class:`SyncQuit` after QUIT or a malformed request (the stream then
        closes, as adbd does), with any final response already returned earlier.
        """
        self._buf += data
        out = bytearray()
        while len(self._buf) >= _REQ.size:
            ident, length = _REQ.unpack_from(self._buf)
            if self._send is not None:
                if ident == b"DATA":
                    if length > SYNC_DATA_MAX:
                        self.closed = True
                        raise SyncQuit(f"DATA chunk of {length} bytes exceeds {SYNC_DATA_MAX}")
                    if len(self._buf) < _REQ.size + length:
                        break
                    self._send.data += self._buf[_REQ.size : _REQ.size + length]
                    del self._buf[: _REQ.size + length]
                    continue
                if ident == b"DONE":
                    del self._buf[: _REQ.size]
                    out += self._finish_send(mtime=length)
                    continue
                self.closed = True
                raise SyncQuit(f"unexpected {ident!r} during SEND")
            if ident == b"QUIT":
                del self._buf[: _REQ.size]
                self.closed = True
                raise SyncQuit("QUIT")
            if length > _MAX_PATH:
                self.closed = True
                raise SyncQuit(f"{ident!r} path of {length} bytes is too long")
            if len(self._buf) < _REQ.size + length:
                break
            arg = bytes(self._buf[_REQ.size : _REQ.size + length]).decode("utf-8", "replace")
            del self._buf[: _REQ.size + length]
            out += self._request(ident, arg)
        return bytes(out)

    # -- requests -------------------------------------------------------------------------
    def _request(self, ident: bytes, arg: str) -> bytes:
        if ident == b"STAT":
            e = self.fs.stat(arg)
            if e is None:
                return _STAT_V1.pack(b"STAT", 0, 0, 0)
            return _STAT_V1.pack(b"STAT", e.mode, min(e.size, 0xFFFFFFFF), e.mtime)
        if ident in (b"STA2", b"LST2"):
            e = self.fs.stat(arg)
            if e is None:
                return _STAT_V2.pack(ident, errno.ENOENT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            uid = 2000 if not stat.S_ISDIR(e.mode) else 1000
            return _STAT_V2.pack(
                ident,
                0,
                0xFD00,
                zlib.crc32(arg.encode()) & 0xFFFFFF,
                e.mode,
                1,
                uid,
                uid,
                e.size,
                e.mtime,
                e.mtime,
                e.mtime,
            )
        if ident == b"LIST":
            return self._list(arg)
        if ident == b"RECV":
            return self._recv(arg)
        if ident == b"SEND":
            path, comma, mode_s = arg.rpartition(",")
            if not comma:
                path, mode_s = arg, "33188"
            try:
                mode = int(mode_s)
            except ValueError:
                return _fail("invalid mode in SEND request")
            self._send = _Send(path, mode, bytearray())
            return b""
        self.closed = True
        raise SyncQuit(f"unknown sync request {ident!r}")

    def _list(self, path: str) -> bytes:
        out = bytearray()
        try:
            entries = self.fs.listdir(path)
        except OSError:
            entries = []  # adbd lists nothing for a missing directory
        here = self.fs.stat(path)
        if here is not None and here.is_dir:
            out += _DENT.pack(b"DENT", here.mode, here.size, here.mtime, 1) + b"."
            out += _DENT.pack(b"DENT", here.mode, here.size, here.mtime, 2) + b".."
        for name, e in entries:
            raw = name.encode("utf-8")
            out += _DENT.pack(b"DENT", e.mode, min(e.size, 0xFFFFFFFF), e.mtime, len(raw)) + raw
        out += _DENT.pack(b"DONE", 0, 0, 0, 0)
        return bytes(out)

    def _recv(self, path: str) -> bytes:
        try:
            data = self.fs.read(path)
        except OSError as exc:
            return _fail(f"open failed: {os.strerror(exc.errno or errno.EIO)}")
        out = bytearray()
        for i in range(0, len(data), SYNC_DATA_MAX):
            chunk = data[i : i + SYNC_DATA_MAX]
            out += _REQ.pack(b"DATA", len(chunk)) + chunk
        out += _REQ.pack(b"DONE", 0)
        if self.events is not None:
            self.events.append("pull", path=self.fs.normalize(path), size=len(data))
        return bytes(out)

    def _finish_send(self, mtime: int) -> bytes:
        send, self._send = self._send, None
        assert send is not None
        if stat.S_ISDIR(send.mode) or stat.S_ISLNK(send.mode):
            return _fail("only regular files can be pushed to the virtual phone")
        target = send.path
        if self.fs.is_dir(target):
            return _fail(f"couldn't create file: {os.strerror(errno.EISDIR)}")
        try:
            self.fs.write(target, bytes(send.data), mode=send.mode, mtime=mtime, mkdirs=True)
        except OSError as exc:
            return _fail(f"couldn't create file: {os.strerror(exc.errno or errno.EIO)}")
        if self.events is not None:
            self.events.append("push", path=self.fs.normalize(target), size=len(send.data))
        return _REQ.pack(b"OKAY", 0)


def _fail(message: str) -> bytes:
    raw = message.encode("utf-8")
    return _REQ.pack(b"FAIL", len(raw)) + raw
