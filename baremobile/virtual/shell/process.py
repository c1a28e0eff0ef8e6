"""What a running program sees: its file descriptors, stdin, argv and environment.

This is the interface between the shell and the programs it runs
(:mod:`baremobile.virtual.commands`): a program is a generator taking a :class:`Proc`,
yielding ``(fd, bytes)`` chunks (:func:`out`, :func:`err`) and returning its exit status.
It is also the shell's own stream plumbing: :class:`IO` maps output fds to :class:`Sink`
objects (the real stream, a pipe buffer, a file, ``/dev/null``) and stdin is a
:class:`Reader`. Nothing here imports the interpreter: :class:`Proc` reaches the shell that
runs it through the small :class:`ShellHandle` protocol.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "Chunk", "Gen", "Cancelled", "Refused", "ShellExit", "Reader", "Sink", "StreamSink",
    "BufferSink", "NullSink", "FileSink", "IO", "out", "err", "decode", "strerror",
    "ShellHandle", "Proc",
]

Chunk = tuple[int, bytes]
Gen = Generator[Chunk, None, int]


class Cancelled(Exception):
    """The client went away; unwinds the whole process."""


class Refused(Exception):  # noqa: N818 - a program's failure, not the shell's
    """What a program's model refuses to do (a recorded scenario's "not in the recording"):
    the program prints ``message`` on stderr and exits with ``status``, as a failing
    command on a phone would; the shell goes on."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class ShellExit(Exception):  # noqa: N818 - control flow, not an error
    """``exit N`` (or a fatal expansion error): the shell process ends with ``status``."""

    def __init__(self, status: int) -> None:
        self.status = status


class Reader:
    """A process's stdin: buffered over a blocking pipe, or over fixed bytes."""

    def __init__(self, source: Any = None, data: bytes = b"") -> None:
        self._src = source
        self._buf = bytearray(data)
        self._eof = source is None

    def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = self._src.read(65536)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def read_chunk(self) -> bytes:
        """Whatever is available (blocking for at least one byte); ``b""`` at EOF."""
        if not self._buf:
            self._fill()
        data = bytes(self._buf)
        self._buf.clear()
        return data

    def read(self, n: int = -1) -> bytes:
        """``n`` bytes (or everything up to EOF when ``n < 0``)."""
        while (n < 0 or len(self._buf) < n) and self._fill():
            pass
        if n < 0:
            n = len(self._buf)
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def readline(self) -> bytes:
        """One line including its ``\\n`` (the rest at EOF)."""
        while b"\n" not in self._buf and self._fill():
            pass
        i = self._buf.find(b"\n")
        n = len(self._buf) if i < 0 else i + 1
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data


class Sink:
    """Where one file descriptor's bytes go."""

    def write(self, data: bytes) -> Chunk | None:
        raise NotImplementedError


class StreamSink(Sink):
    """The process's real stdout (1) or stderr (2)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes) -> Chunk | None:
        return (self.fd, data)


class BufferSink(Sink):
    def __init__(self) -> None:
        self.buf = bytearray()

    def write(self, data: bytes) -> Chunk | None:
        self.buf += data
        return None


class NullSink(Sink):
    def write(self, data: bytes) -> Chunk | None:
        return None


class FileSink(Sink):
    def __init__(self, fs: Any, path: str) -> None:
        self.fs = fs
        self.path = path

    def write(self, data: bytes) -> Chunk | None:
        with contextlib.suppress(OSError):
            self.fs.write(self.path, data, append=True)
        return None


@dataclass
class IO:
    """File descriptors of one command: sinks for output fds and a stdin reader."""

    fds: dict[int, Sink]
    stdin: Reader

    def copy(self) -> IO:
        return IO(dict(self.fds), self.stdin)

    def route(self, fd: int, data: bytes) -> Chunk | None:
        sink = self.fds.get(fd)
        return None if sink is None else sink.write(data)


def out(text: str | bytes) -> Chunk:
    """A stdout chunk (str is UTF-8 encoded, lone surrogates kept as raw bytes)."""
    return (1, text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))


def err(text: str | bytes) -> Chunk:
    """A stderr chunk."""
    return (2, text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))


def decode(data: bytes) -> str:
    """Bytes to text the way the shell sees them (undecodable bytes survive)."""
    return data.decode("utf-8", "surrogateescape")


def strerror(exc: OSError) -> str:
    """``strerror(errno)`` as the C library words it."""
    return os.strerror(exc.errno) if exc.errno else str(exc)



class ShellHandle(Protocol):
    """What a program may ask of the shell that runs it."""

    model: Any
    pid: int
    cwd: str
    cancel: threading.Event

    def check_cancel(self) -> None: ...

    def lookup_path(self, name: str) -> str | None: ...

    def run_script(self, src: str, argv0: str, args: list[str], env: dict[str, str],
                   io: IO) -> Gen: ...


class Proc:
    """What a program sees when it runs: argv, stdin, the phone, cwd/env, cancellation."""

    def __init__(self, shell: ShellHandle, io: IO, argv: list[str], env: dict[str, str]
                 ) -> None:
        self.shell = shell
        self.io = io
        self.argv = argv
        self.env = env
        self.model = shell.model

    @property
    def pid(self) -> int:
        """The process id of the shell running this program."""
        return self.shell.pid

    def with_argv(self, argv: list[str]) -> Proc:
        """The same process running another program line (``cmd input tap ...``)."""
        return Proc(self.shell, self.io, argv, self.env)

    @property
    def stdin(self) -> Reader:
        return self.io.stdin

    @property
    def cwd(self) -> str:
        return self.shell.cwd

    @property
    def fs(self) -> Any:
        return self.model.fs

    @property
    def api_level(self) -> int:
        return int(self.model.api_level)

    def path(self, p: str) -> str:
        """``p`` made absolute against the shell's working directory."""
        return self.model.fs.normalize(p, self.shell.cwd)

    def sleep(self, seconds: float) -> None:
        """Sleep on the model's clock; raises :class:`Cancelled` if the client left."""
        self.shell.check_cancel()
        if seconds > 0:
            self.model.clock.sleep(seconds, self.shell.cancel)
        self.shell.check_cancel()

    def check_cancel(self) -> None:
        self.shell.check_cancel()

    @property
    def cancel_event(self) -> threading.Event:
        return self.shell.cancel

    def which(self, name: str) -> str | None:
        """Where ``name`` would be found on PATH (None if nowhere)."""
        return self.shell.lookup_path(name)

    def run_script(self, src: str, argv0: str, args: list[str]) -> Gen:
        """Run ``src`` in a child ``sh`` (``sh -c``), with this program's I/O."""
        return (yield from self.shell.run_script(src, argv0, args, self.env, self.io))

