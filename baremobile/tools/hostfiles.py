"""Files of the computer running baremobile, confined to the operator's files directory.

``push_file``, ``pull_file`` and ``install_app`` are the only tools that touch this
computer's files, and a model (or text on the phone's screen that a model read) chooses
their paths. So they only work inside one directory the operator names
(``Session(files_dir=...)``, ``tools.call(..., files_dir=...)``, ``baremobile mcp
--files-dir DIR``), and without one they are refused:

* a path is relative to that directory (an absolute path only if it lies inside it);
  ``~`` is not expanded and ``..`` is refused;
* the path is resolved (symlinks followed) and must stay inside the directory, so a
  symlink pointing out of it is refused too;
* the file is then reached from the directory one resolved folder at a time, each opened
  relative to the last (``openat``) without following a symlink (``O_NOFOLLOW``), and
  read or written through those descriptors: a folder swapped for a symlink between the
  check and the use cannot lead outside — the call fails, typed (``NOT_ALLOWED``), and
  nothing is written;
* only regular files with one link are read or replaced: a FIFO, socket or device file
  (which could block a call forever) and a hard link (whose other name may lie outside
  the directory) are refused, without ever being opened for writing;
* writing goes to a temporary file beside the target, renamed over it when complete
  (:mod:`baremobile.localfiles`): a failed pull never destroys the old file, and an
  existing file is never replaced unless the call says ``overwrite: true``;
* pulled files stream to disk (memory stays small whatever their size);
* the operating system's errors come back typed: a missing folder, a directory or no
  permission as ``INVALID_ARGUMENT``, a full disk or read-only file system as
  ``LOCAL_IO_ERROR``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from typing import BinaryIO

from baremobile.errors import BaremobileError, InvalidArgument
from baremobile.localfiles import atomic_writer, os_error
from baremobile.tools.session import NotAllowed

__all__ = ["pull_to_host_file", "read_host_file", "resolve", "write_host_file"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer
_PATH_HINT = ("paths are relative to the files directory; list it with your own tools, "
              "not the phone's")

_DISABLED_HINT = (
    "the operator can enable it with a files directory: baremobile mcp --files-dir DIR, "
    "Session(files_dir=DIR) or tools.call(..., files_dir=DIR); paths are then relative to DIR"
)


def resolve(root: str | None, given: str) -> str:
    """The real path of ``given`` inside ``root``, or :class:`NotAllowed`."""
    if root is None:
        raise NotAllowed("this tool uses files of the computer running baremobile, which "
                         "is switched off (no files directory is set)", hint=_DISABLED_HINT)
    if not isinstance(given, str) or not given.strip() or "\0" in given:
        raise InvalidArgument(f"{given!r} is not a file path")
    try:
        os.fsencode(given)
    except UnicodeEncodeError:  # a lone surrogate no file name can hold
        raise InvalidArgument(f"{given!r} is not a file path this computer can use") from None
    if given.startswith("~"):
        raise NotAllowed(f"{given!r}: '~' is not expanded; paths are relative to the files "
                         "directory", hint="e.g. 'app.apk' or 'screens/home.png'")
    parts = given.replace("\\", "/").split("/")
    if ".." in parts:
        raise NotAllowed(f"{given!r}: '..' is not allowed; paths stay inside the files "
                         "directory", hint="e.g. 'app.apk' or 'screens/home.png'")
    try:
        real = os.path.realpath(os.path.join(root, given))
    except OSError:  # a link swapped while it was being resolved: a race, typed
        raise NotAllowed(f"{given!r} changed while it was being checked (a link or folder "
                         "was swapped)", hint="try again once the files directory is still"
                         ) from None
    if real == root or os.path.commonpath([root, real]) != root:
        raise NotAllowed(f"{given!r} is outside the files directory (through an absolute "
                         "path or a symlink)",
                         hint="use a path relative to the files directory, e.g. 'app.apk'")
    return real


def _shown(root: str, real: str) -> str:
    return os.path.relpath(real, root)


def _os_error(exc: OSError, what: str) -> BaremobileError:
    return os_error(exc, what, hint=_PATH_HINT)


def _refuse_odd(st: os.stat_result, what: str) -> None:
    """Only a regular file with one name may be read or replaced."""
    if stat.S_ISDIR(st.st_mode):
        raise InvalidArgument(f"{what} is a directory", hint="give a file")
    if not stat.S_ISREG(st.st_mode):
        raise InvalidArgument(f"{what} is not a regular file (a FIFO, socket or device)",
                              hint="only regular files are read or written")
    if st.st_nlink > 1:
        raise InvalidArgument(f"{what} has {st.st_nlink} hard links: refused, as its other "
                              "names may lie outside the files directory",
                              hint="use a file with a single name (copy it, don't link it)")


_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _moved(exc: OSError, what: str) -> BaremobileError:
    """An OS error while walking to the file: a race, or a path that changed."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return NotAllowed(f"{what}: a folder of its path changed while it was used (it is "
                          "now a symlink or not a folder); nothing was read or written",
                          hint="try again once the files directory stays still")
    return _os_error(exc, what)


def _folder_fd(root: str, real: str, what: str) -> tuple[int, str]:
    """(a descriptor of the folder holding ``real``, its name in that folder), the folder
    reached from ``root`` one component at a time with ``O_NOFOLLOW``."""
    parts = os.path.relpath(real, root).split(os.sep)
    try:
        fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError as exc:
        raise _os_error(exc, f"the files directory {root!r}") from None
    try:
        for part in parts[:-1]:
            nxt = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except OSError as exc:
        os.close(fd)
        if exc.errno == errno.ENOENT:
            raise InvalidArgument(
                f"the folder {os.path.dirname(_shown(root, real))!r} does not exist in the "
                "files directory", hint="save into an existing folder (or the files "
                "directory itself)") from None
        raise _moved(exc, what) from None
    return fd, parts[-1]


def read_host_file(root: str | None, given: str) -> tuple[str, bytes]:
    """``(path shown to the model, content)`` of a regular file inside ``root``."""
    real = resolve(root, given)
    assert root is not None
    what = f"local file {_shown(root, real)!r}"
    folder, name = _folder_fd(root, real, what)
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _BINARY | _NONBLOCK | _CLOEXEC,
                     dir_fd=folder)
    except OSError as exc:
        raise (_moved(exc, what) if exc.errno == errno.ELOOP else _os_error(exc, what)) \
            from None
    finally:
        os.close(folder)
    try:
        _refuse_odd(os.fstat(fd), what)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return _shown(root, real), b"".join(chunks)
    except OSError as exc:
        raise _os_error(exc, what) from None
    finally:
        os.close(fd)


def write_host_file(root: str | None, given: str, data: bytes, *, overwrite: bool) -> str:
    """Write ``data`` to a file inside ``root``; returns the path shown to the model."""
    return pull_to_host_file(root, given, lambda f: f.write(data), overwrite=overwrite)[0]


def pull_to_host_file(
    root: str | None, given: str, fill: Callable[[BinaryIO], object], *, overwrite: bool
) -> tuple[str, object]:
    """Create or replace a file inside ``root`` with what ``fill(file)`` writes into it.

    ``fill`` streams into a temporary file beside the target; only when it returns is the
    file renamed into place. Returns ``(path shown to the model, what fill returned)``.
    """
    real = resolve(root, given)
    assert root is not None
    shown = _shown(root, real)
    what = f"local file {shown!r}"
    folder, name = _folder_fd(root, real, what)
    try:
        try:
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise _os_error(exc, what) from None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):  # put there since the path was resolved
                raise NotAllowed(f"{what} is a symlink (it appeared while it was used); "
                                 "nothing was written", hint="use a plain file name")
            _refuse_odd(st, what)
            if not overwrite:
                raise InvalidArgument(f"{what} already exists",
                                      hint="pass overwrite: true to replace it, or choose "
                                           "another name")
        with atomic_writer(name, overwrite=overwrite, what=what, hint=_PATH_HINT,
                           dir_fd=folder) as f:
            result = fill(f)
    finally:
        os.close(folder)
    return shown, result
