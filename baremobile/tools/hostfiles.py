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
* writing never replaces an existing file unless the call says ``overwrite: true``, and
  never follows a symlink at the last step (``O_NOFOLLOW``);
* the operating system's errors (missing folder, a directory, no permission) come back
  as ``INVALID_ARGUMENT`` saying what is wrong.
"""

from __future__ import annotations

import errno
import os
import stat

from baremobile.errors import InvalidArgument
from baremobile.tools.session import NotAllowed

__all__ = ["read_host_file", "resolve", "write_host_file"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)

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
    if given.startswith("~"):
        raise NotAllowed(f"{given!r}: '~' is not expanded; paths are relative to the files "
                         "directory", hint="e.g. 'app.apk' or 'screens/home.png'")
    parts = given.replace("\\", "/").split("/")
    if ".." in parts:
        raise NotAllowed(f"{given!r}: '..' is not allowed; paths stay inside the files "
                         "directory", hint="e.g. 'app.apk' or 'screens/home.png'")
    real = os.path.realpath(os.path.join(root, given))
    if real == root or os.path.commonpath([root, real]) != root:
        raise NotAllowed(f"{given!r} is outside the files directory (through an absolute "
                         "path or a symlink)",
                         hint="use a path relative to the files directory, e.g. 'app.apk'")
    return real


def _shown(root: str, real: str) -> str:
    return os.path.relpath(real, root)


def _os_error(exc: OSError, what: str) -> InvalidArgument:
    reason = {
        errno.ENOENT: "does not exist",
        errno.EISDIR: "is a directory",
        errno.ENOTDIR: "has a part that is not a directory",
        errno.EACCES: "is not accessible (permission denied)",
        errno.EPERM: "is not accessible (operation not permitted)",
        errno.ELOOP: "is a symlink",
        errno.EEXIST: "already exists",
        errno.ENOSPC: "cannot be written: the disk is full",
    }.get(exc.errno or 0, f"cannot be used: {exc.strerror or type(exc).__name__}")
    return InvalidArgument(f"{what} {reason}", hint="paths are relative to the files directory; "
                                                    "list it with your own tools, not the phone's")


def read_host_file(root: str | None, given: str) -> tuple[str, bytes]:
    """``(path shown to the model, content)`` of a regular file inside ``root``."""
    real = resolve(root, given)
    assert root is not None
    what = f"local file {_shown(root, real)!r}"
    try:
        fd = os.open(real, os.O_RDONLY | _NOFOLLOW | _BINARY)
    except OSError as exc:
        raise _os_error(exc, what) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InvalidArgument(f"{what} is a directory", hint="give a file")
        if not stat.S_ISREG(mode):
            raise InvalidArgument(f"{what} is not a regular file")
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
    real = resolve(root, given)
    assert root is not None
    shown = _shown(root, real)
    what = f"local file {shown!r}"
    parent = os.path.dirname(real)
    if not os.path.isdir(parent):
        raise InvalidArgument(
            f"the folder {_shown(root, parent)!r} does not exist in the files directory",
            hint="save into an existing folder (or the files directory itself)")
    if os.path.isdir(real):
        raise InvalidArgument(f"{what} is a directory", hint="give a file name")
    if os.path.lexists(real) and not overwrite:
        raise InvalidArgument(f"{what} already exists",
                              hint="pass overwrite: true to replace it, or choose another name")
    flags = os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _BINARY
    flags |= os.O_TRUNC if overwrite else os.O_EXCL
    try:
        fd = os.open(real, flags, 0o644)
    except OSError as exc:
        raise _os_error(exc, what) from None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as exc:
        raise _os_error(exc, what) from None
    finally:
        os.close(fd)
    return shown
