"""Writing files of this computer so that a failure never costs the old file.

Every file baremobile writes on this computer (``Screenshot.save``, the ``pull_file`` tool)
goes through :func:`atomic_writer`: the bytes go to a temporary file beside the target (the
same directory, so the same file system), which is flushed to disk and only then renamed
over the target in one step. A full disk, a dropped device or an exception halfway leaves
the old file exactly as it was (and no temporary file behind). The target itself is never
opened, so a FIFO there cannot block the write and a hard link there is replaced, never
written through.

Errors are typed: a full disk, a read-only file system or an I/O error is
:class:`~baremobile.errors.LocalIOError` (not the caller's fault); a missing folder, a
directory, a refused permission or an existing file (without ``overwrite``) is
:class:`~baremobile.errors.InvalidArgument`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from baremobile.errors import BaremobileError, InvalidArgument, LocalIOError

__all__ = ["atomic_writer", "bytes_of", "os_error", "write_atomically"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)

#: errno values that are this computer's trouble, not a wrong path.
_LOCAL_TROUBLE = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EIO: "an I/O error occurred",
    errno.EFBIG: "the file is too large for the file system",
    errno.EMFILE: "this process has too many open files",
    errno.ENFILE: "the system has too many open files",
}

_EXISTS_HINT = "choose another name, or allow replacing the file (overwrite)"

_REASONS = {
    errno.ENOENT: "does not exist",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "has a part that is not a directory",
    errno.EACCES: "is not accessible (permission denied)",
    errno.EPERM: "is not accessible (operation not permitted)",
    errno.ELOOP: "is a symlink",
    errno.EEXIST: "already exists",
    errno.ENAMETOOLONG: "has a name that is too long",
}


def os_error(exc: OSError, what: str, *, hint: str | None = None) -> BaremobileError:
    """``exc`` as a typed error about ``what`` (``"local file 'x.png'"``)."""
    code = exc.errno or 0
    if code in _LOCAL_TROUBLE:
        return LocalIOError(f"{what} cannot be written: {_LOCAL_TROUBLE[code]}; "
                            "nothing was changed")
    reason = _REASONS.get(code, f"cannot be used: {exc.strerror or type(exc).__name__}")
    return InvalidArgument(f"{what} {reason}", hint=hint)


def _lstat(path: str, dir_fd: int | None) -> os.stat_result | None:
    """``path``'s own status (a symlink's, not its target's), or None when absent."""
    try:
        return os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _mode_to_keep(path: str, default: int, dir_fd: int | None = None) -> int:
    """The permission bits an overwritten regular file had (a private file stays private)."""
    try:
        st = _lstat(path, dir_fd)
    except OSError:
        return default
    return stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) \
        else default


@contextlib.contextmanager
def atomic_writer(
    path: str | os.PathLike[str],
    *,
    overwrite: bool,
    what: str | None = None,
    mode: int = 0o644,
    hint: str | None = None,
    dir_fd: int | None = None,
) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into; committed when the block ends.

    The content goes to ``.<name>.<random>.part`` beside ``path``; at the end of the block
    it is flushed, synced and renamed onto ``path`` (``overwrite=False``: linked, so that a
    file created meanwhile is never replaced). If the block raises, the temporary file is
    removed and ``path`` is untouched. ``what`` names the file in error messages. With
    ``dir_fd`` (an open directory), ``path`` is a name in that directory and every step
    works on it through the descriptor: a folder swapped for a symlink meanwhile cannot
    send the file elsewhere (:mod:`baremobile.tools.hostfiles`).
    """
    target = os.fspath(path)
    what = what or f"local file {target!r}"
    if dir_fd is None:
        folder, name = os.path.split(os.path.abspath(target))
    else:
        folder, name = "", target
    try:
        existing = _lstat(target, dir_fd)
    except OSError as exc:
        raise os_error(exc, what, hint=hint) from None
    if not overwrite and existing is not None:
        raise InvalidArgument(f"{what} already exists", hint=_EXISTS_HINT)
    tmp = os.path.join(folder, f".{_stem(name)}.{secrets.token_hex(4)}.part")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY,
                     _mode_to_keep(target, mode, dir_fd) if overwrite else mode,
                     dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise InvalidArgument(f"the folder of {what} does not exist",
                                  hint=hint or "save into an existing folder") from None
        raise os_error(exc, what, hint=hint) from None
    committed = False
    f = os.fdopen(fd, "wb")
    try:
        try:
            yield f
            f.flush()
            os.fsync(f.fileno())
        except OSError as exc:
            raise os_error(exc, what, hint=hint) from None
        finally:
            # after a failure the buffer may still hold bytes the disk will not take:
            # closing must not replace the error being raised
            with contextlib.suppress(OSError):
                f.close()
        _commit(tmp, target, overwrite, what, hint, dir_fd)
        committed = True
    finally:
        if not committed:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)


def _stem(name: str, limit: int = 200) -> str:
    """The start of ``name`` that is at most ``limit`` bytes on disk (whole characters):
    names are limited in bytes (255), and the temporary name adds 15 to the target's."""
    while len(os.fsencode(name)) > limit:
        name = name[:-max(1, (len(os.fsencode(name)) - limit) // 4)]
    return name


def _commit(tmp: str, target: str, overwrite: bool, what: str, hint: str | None,
            dir_fd: int | None = None) -> None:
    both = {"src_dir_fd": dir_fd, "dst_dir_fd": dir_fd}
    try:
        if overwrite:
            os.replace(tmp, target, **both)
            return
        try:
            # fails if the name exists: never replaces a file
            os.link(tmp, target, **both, follow_symlinks=False)
        except OSError as exc:
            if exc.errno == errno.EEXIST:
                raise
            # a file system without hard links: check, then rename (a small window)
            if _lstat(target, dir_fd) is not None:
                raise FileExistsError(errno.EEXIST, "exists", target) from None
            os.replace(tmp, target, **both)
            return
        with contextlib.suppress(OSError):  # the new file is in place either way
            os.unlink(tmp, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.EEXIST:
            raise InvalidArgument(f"{what} already exists", hint=_EXISTS_HINT) from None
        raise os_error(exc, what, hint=hint) from None


def write_atomically(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    overwrite: bool,
    what: str | None = None,
    mode: int = 0o644,
    hint: str | None = None,
) -> int:
    """Write ``data`` to ``path`` through :func:`atomic_writer`; returns its length."""
    with atomic_writer(path, overwrite=overwrite, what=what, mode=mode, hint=hint) as f:
        f.write(data)
    return len(data)


def bytes_of(data: object, what: str) -> bytes:
    """``data`` as bytes: bytes as they are, a ``str`` or :class:`~pathlib.Path` read as the
    path of a local file (``InvalidArgument`` naming it when it cannot be read)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, (str, os.PathLike)):
        try:
            return Path(data).read_bytes()
        except OSError as exc:
            raise InvalidArgument(
                f"cannot read local file {os.fspath(data)!r}: {exc.strerror or exc}",
                hint=f"pass bytes to {what}, or the path of an existing file",
            ) from None
    raise InvalidArgument(f"{what} takes bytes or a local path, not {type(data).__name__}")
