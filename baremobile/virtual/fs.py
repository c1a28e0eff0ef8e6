"""The virtual phone's in-memory filesystem.

Just enough of Android's layout for what agents and adb clients touch: ``/sdcard``
(an alias of ``/storage/emulated/0``), ``/data/local/tmp``, read-only ``/system``.
Errors are :class:`OSError` with the errno a device would give, so both the shell
(``cat: x: No such file or directory``) and the sync service (``FAIL``) can word them
as Android does. Thread-safe: every stream of every connection may touch it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["FileSystem", "Entry"]

_ALIASES = {
    "/sdcard": "/storage/emulated/0",
    "/storage/self/primary": "/storage/emulated/0",
    "/mnt/sdcard": "/storage/emulated/0",
}

_DEFAULT_DIRS = (
    "/",
    "/system",
    "/system/bin",
    "/data",
    "/data/local",
    "/data/local/tmp",
    "/storage",
    "/storage/emulated",
    "/storage/emulated/0",
    "/storage/emulated/0/Download",
    "/storage/emulated/0/Pictures",
    "/storage/emulated/0/DCIM",
    "/proc",
    "/dev",
)

#: Directories the ``shell`` user may enter but not list (``drwxrwx--x system system``).
_UNLISTABLE = ("/data", "/data/app", "/data/data")
#: Trees the ``shell`` user may write under; everything else answers EACCES or EROFS.
_WRITABLE = ("/data/local/tmp", "/storage/emulated/0")
_READ_ONLY = ("/system", "/vendor", "/product")
#: Apps' private data (``drwx------ u0_aNN``): only the app — or ``run-as`` it — reads it.
_PRIVATE = ("/data/user/", "/data/data/", "/data/user_de/")


@dataclass
class Entry:
    """One file or directory."""

    mode: int
    mtime: int
    data: bytearray = field(default_factory=bytearray)

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)

    @property
    def size(self) -> int:
        return 4096 if self.is_dir else len(self.data)


def _oserror(code: int, path: str) -> OSError:
    return OSError(code, os.strerror(code), path)


class FileSystem:
    """A small POSIX-like tree in memory."""

    def __init__(self, clock: object | None = None) -> None:
        self._lock = threading.RLock()
        self._clock = clock
        self._entries: dict[str, Entry] = {}
        now = self._now()
        for d in _DEFAULT_DIRS:
            self._entries[d] = Entry(stat.S_IFDIR | 0o771, now)
        self._entries["/system/bin/sh"] = Entry(stat.S_IFREG | 0o755, now, bytearray(b"\x7fELF"))
        self._entries["/dev/null"] = Entry(stat.S_IFCHR | 0o666, now)
        self._providers: dict[str, Callable[[], bytes]] = {}
        self._acting = threading.local()  # the app data trees this thread runs as (run-as)

    @contextlib.contextmanager
    def acting_as_app(self, data_dir: str) -> Iterator[None]:
        """While it lasts, this thread runs as the app owning ``data_dir`` (``run-as``): it
        may read and write that tree, created (``drwx------``) if the app never wrote it."""
        root = self.normalize(data_dir)
        with self._lock:
            for d in self._missing(root)[1]:
                self._entries[d] = Entry(stat.S_IFDIR | 0o700, self._now())
        roots = getattr(self._acting, "roots", ())
        self._acting.roots = (*roots, root)
        try:
            yield
        finally:
            self._acting.roots = roots

    def _granted(self, p: str) -> bool:
        return any(p == r or p.startswith(r + "/") for r in getattr(self._acting, "roots", ()))

    def _check_private(self, p: str, path: str) -> None:
        if p.startswith(_PRIVATE) and p.count("/") > 3 and not self._granted(p):
            raise _oserror(errno.EACCES, path)

    def provide(self, path: str, content: Callable[[], bytes]) -> None:
        """A read-only file whose bytes are made when it is read (what procfs does:
        ``/proc/net/unix``); like procfs files it stats with size 0. Parents are created."""
        p = self.normalize(path)
        with self._lock:
            for d in self._missing(posixpath.dirname(p))[1]:
                self._entries[d] = Entry(stat.S_IFDIR | 0o555, self._now())
            self._entries[p] = Entry(stat.S_IFREG | 0o444, self._now())
            self._providers[p] = content

    # -- paths --------------------------------------------------------------------
    @staticmethod
    def normalize(path: str, cwd: str = "/") -> str:
        """Absolute, normalised path with storage aliases resolved."""
        if not path.startswith("/"):
            path = posixpath.join(cwd, path)
        path = posixpath.normpath(path)
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        for alias, target in _ALIASES.items():
            if path == alias or path.startswith(alias + "/"):
                path = target + path[len(alias) :]
                break
        return path

    def _now(self) -> int:
        clock = self._clock
        if clock is not None and hasattr(clock, "time"):
            return int(clock.time())
        return int(time.time())

    # -- queries ------------------------------------------------------------------
    def stat(self, path: str) -> Entry | None:
        """The entry at ``path`` or ``None``."""
        with self._lock:
            return self._entries.get(self.normalize(path))

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        e = self.stat(path)
        return e is not None and e.is_dir

    def listdir(self, path: str) -> list[tuple[str, Entry]]:
        """Children of a directory, sorted by name. Raises ENOENT / ENOTDIR."""
        p = self.normalize(path)
        self._check_private(p, path)
        with self._lock:
            e = self._entries.get(p)
            if e is None:
                raise _oserror(errno.ENOENT, path)
            if not e.is_dir:
                raise _oserror(errno.ENOTDIR, path)
            if p in _UNLISTABLE or (p.startswith("/data/app/") and p.count("/") == 3):
                raise _oserror(errno.EACCES, path)
            prefix = p.rstrip("/") + "/"
            out = []
            for name, entry in self._entries.items():
                if name != p and name.startswith(prefix) and "/" not in name[len(prefix) :]:
                    out.append((name[len(prefix) :], entry))
            return sorted(out)

    def read(self, path: str) -> bytes:
        """File contents. Raises ENOENT / EISDIR."""
        p = self.normalize(path)
        self._check_private(p, path)
        with self._lock:
            e = self._entries.get(p)
            if e is None:
                raise _oserror(errno.ENOENT, path)
            if e.is_dir:
                raise _oserror(errno.EISDIR, path)
            made = self._providers.get(p)
        if made is not None:
            return made()
        with self._lock:
            return bytes(e.data)

    # -- changes ------------------------------------------------------------------
    def _check_writable(self, p: str, path: str) -> None:
        if self._granted(p):
            return
        if any(p == ro or p.startswith(ro + "/") for ro in _READ_ONLY):
            raise _oserror(errno.EROFS, path)
        if not any(p == w or p.startswith(w + "/") for w in _WRITABLE):
            raise _oserror(errno.EACCES, path)

    def write(
        self,
        path: str,
        data: bytes,
        *,
        mode: int = 0o644,
        mtime: int | None = None,
        append: bool = False,
        mkdirs: bool = False,
    ) -> None:
        """Create or replace (or append to) a regular file."""
        p = self.normalize(path)
        with self._lock:
            existing = self._entries.get(p)
            if existing is not None and stat.S_ISCHR(existing.mode):  # /dev/null swallows writes
                return
            self._check_writable(p, path)
            parent = posixpath.dirname(p)
            if mkdirs:
                self.makedirs(parent)
            pe = self._entries.get(parent)
            if pe is None:
                raise _oserror(errno.ENOENT, path)
            if not pe.is_dir:
                raise _oserror(errno.ENOTDIR, path)
            e = self._entries.get(p)
            if e is not None and e.is_dir:
                raise _oserror(errno.EISDIR, path)
            when = self._now() if mtime is None else mtime
            if e is None or not append:
                self._entries[p] = Entry(stat.S_IFREG | (mode & 0o7777), when, bytearray(data))
            else:
                e.data += data
                e.mtime = when

    def _missing(self, p: str) -> tuple[str, list[str]]:
        """(the nearest of ``p`` and its folders that exists, the ones below it down to
        ``p`` that do not — outermost first); the caller holds the lock."""
        missing: list[str] = []
        while p not in self._entries:
            missing.append(p)
            p = posixpath.dirname(p)
        return p, missing[::-1]

    def makedirs(self, path: str, mode: int = 0o771) -> None:
        """``mkdir -p``."""
        p = self.normalize(path)
        with self._lock:
            cur, missing = self._missing(p)
            if not self._entries[cur].is_dir:
                raise _oserror(errno.ENOTDIR, path)
            for d in missing:
                self._check_writable(d, path)
                self._entries[d] = Entry(stat.S_IFDIR | (mode & 0o7777), self._now())

    def mkdir(self, path: str, mode: int = 0o771) -> None:
        p = self.normalize(path)
        with self._lock:
            if p in self._entries:
                raise _oserror(errno.EEXIST, path)
            parent = posixpath.dirname(p)
            if parent not in self._entries:
                raise _oserror(errno.ENOENT, path)
            self._check_writable(p, path)
            self._entries[p] = Entry(stat.S_IFDIR | (mode & 0o7777), self._now())

    def remove(self, path: str, *, recursive: bool = False) -> None:
        """``rm`` (``rm -r`` with ``recursive``). Raises ENOENT / EISDIR / ENOTEMPTY."""
        p = self.normalize(path)
        with self._lock:
            e = self._entries.get(p)
            if e is None:
                raise _oserror(errno.ENOENT, path)
            self._check_writable(p, path)
            if e.is_dir:
                if not recursive:
                    raise _oserror(errno.EISDIR, path)
                prefix = p + "/"
                for name in [n for n in self._entries if n.startswith(prefix)]:
                    del self._entries[name]
            del self._entries[p]

    def install(self, path: str, data: bytes, *, mode: int = 0o644) -> None:
        """Put a file where the system (not the shell user) writes it — the package
        manager's APKs under ``/system`` or ``/data/app`` — creating its directories."""
        p = self.normalize(path)
        with self._lock:
            for d in self._missing(posixpath.dirname(p))[1]:
                self._entries[d] = Entry(stat.S_IFDIR | 0o755, self._now())
            self._entries[p] = Entry(stat.S_IFREG | (mode & 0o7777), self._now(),
                                     bytearray(data))

    def uninstall(self, path: str) -> None:
        """Remove a system-written file and the directories it leaves empty (``pm
        uninstall`` deleting ``/data/app/~~…/pkg-…/``)."""
        p = self.normalize(path)
        with self._lock:
            self._entries.pop(p, None)
            cur = posixpath.dirname(p)
            while cur.startswith("/data/app/") and not any(
                    n.startswith(cur + "/") for n in self._entries):
                self._entries.pop(cur, None)
                cur = posixpath.dirname(cur)

    def files(self) -> Iterable[str]:
        """Every path in the tree (for debugging and tests)."""
        with self._lock:
            return sorted(self._entries)


def tree_bytes(fs: FileSystem, root: str) -> int:
    """Bytes of the regular files under ``root`` (what ``df`` counts as used there)."""
    p = fs.normalize(root)
    prefix = p.rstrip("/") + "/"
    with fs._lock:
        return sum(len(e.data) for name, e in fs._entries.items()
                   if name.startswith(prefix) and not e.is_dir)
