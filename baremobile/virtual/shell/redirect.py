"""Redirections: ``<``, ``>``, ``>>``, ``>|``, ``<>``, ``>&``, ``<&``, ``&>``, here-documents
and here-strings, applied in order to a copy of a command's :class:`~.process.IO`.

Files are opened on the phone's filesystem; ``/dev/null``, ``/dev/stdout``, ``/dev/stderr``
are the sinks they are on Android, and ``/dev/tty`` fails as it does under adbd (no
controlling terminal).
"""

from __future__ import annotations

import re
from collections.abc import Generator

from .expand import Expansion
from .process import IO, Chunk, FileSink, NullSink, Reader, Sink, strerror
from .syntax import Redir, Word

__all__ = ["Redirections", "sh_quote"]


def sh_quote(value: str) -> str:
    """``value`` quoted for mksh as ``set``/``export`` print it (bare when safe)."""
    if value and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


class Redirections(Expansion):
    """Opening what a command's redirections name (mixed into the interpreter)."""

    # -- redirections ---------------------------------------------------------------------
    def redirect(self, redirs: list[Redir], io: IO) -> Generator[Chunk, None, IO | None]:
        """Apply redirections in order to a copy of ``io`` (None + message on failure)."""
        if not redirs:
            return io
        new = io.copy()
        for r in redirs:
            failure = yield from self._apply_redir(r, new)
            if failure is not None:
                routed = io.route(2, f"{self.argv0}: {failure}\n".encode())
                if routed is not None:
                    yield routed
                return None
        return new

    def _apply_redir(self, r: Redir, io: IO) -> Generator[Chunk, None, str | None]:
        fs = self.model.fs
        if r.op in ("<<", "<<-"):
            body = yield from self.expand_string(r.heredoc or Word([]), io)
            io.stdin = Reader(data=body.encode("utf-8", "surrogateescape"))
            return None
        target = yield from self.expand_string(r.target or Word([]), io, tilde=True)
        if r.op == "<<<":
            io.stdin = Reader(data=(target + "\n").encode("utf-8", "surrogateescape"))
            return None
        if r.op in (">&", "<&"):
            if target == "-":
                if r.fd == 0:
                    io.stdin = Reader()
                io.fds.pop(r.fd, None)
                return None
            shown = (str(r.fd) if r.explicit_fd else "") + r.op + sh_quote(target) + " "
            if not re.fullmatch(r"[0-9]", target):
                return f"{shown}: illegal file descriptor name"
            src = int(target)
            if r.op == "<&" or r.fd == 0:
                return None if src == 0 else f"{shown}: bad file descriptor"
            if src not in io.fds:
                return f"{shown}: bad file descriptor"
            io.fds[r.fd] = io.fds[src]
            return None
        if target == "":
            verb = "can't open" if r.op in ("<", "<>") else "can't create"
            return f"{verb} : No such file or directory"
        path = fs.normalize(target, self.cwd)
        if r.op in ("<", "<>"):
            if path in ("/dev/null", "/dev/zero"):
                io.stdin = Reader()
                return None
            try:
                data = fs.read(path)
            except OSError as exc:
                if r.op == "<>" and exc.errno == 2:
                    data = b""
                else:
                    return f"can't open {target}: {strerror(exc)}"
            if r.fd == 0:
                io.stdin = Reader(data=data)
            return None
        sink = self._open_sink(path, append=r.op in (">>", "&>>"), io=io)
        if isinstance(sink, str):
            return f"can't create {target}: {sink}"
        if r.op in ("&>", "&>>"):
            io.fds[1] = sink
            io.fds[2] = sink
        else:
            io.fds[r.fd] = sink
        return None

    def _open_sink(self, path: str, *, append: bool, io: IO) -> Sink | str:
        fs = self.model.fs
        if path == "/dev/null":
            return NullSink()
        if path in ("/dev/stdout", "/proc/self/fd/1"):
            return io.fds.get(1, NullSink())
        if path in ("/dev/stderr", "/proc/self/fd/2"):
            return io.fds.get(2, NullSink())
        if path == "/dev/tty":
            return "No such device or address"
        try:
            entry = fs.stat(path)
            if entry is not None and entry.is_dir:
                return "Is a directory"
            if entry is None or not append:
                fs.write(path, b"", mode=0o660 if path.startswith("/storage/") else 0o644)
        except OSError as exc:
            return strerror(exc)
        return FileSink(fs, path)

