"""Where the daemon listens, and the files beside its socket.

The socket is ``$BAREMOBILE_DAEMON_SOCKET`` when set, else ``daemon.sock`` in a per-user
directory: ``$XDG_RUNTIME_DIR/baremobile`` when that runtime directory exists and is the
user's, else ``$TMPDIR/baremobile-<uid>`` (``/tmp/baremobile-<uid>``). That directory is
created with mode 0700 and refused when it is not a real directory owned by this user with
no access for others (someone else could otherwise replace the socket). The socket itself
is created 0600, and the server refuses peers of another uid where the OS reports them.

Beside the socket (same name plus a suffix): ``.json`` — the running daemon's pid,
version and start time; ``.lock`` — held by the daemon for its life, so two cannot start
on one socket; ``.log`` — its log.

These side files are opened like the socket, because the directory may be shared (a
``$BAREMOBILE_DAEMON_SOCKET`` in /tmp): never through a symlink (``O_NOFOLLOW``), only when
they are regular files of this user with one name (else :class:`DaemonError`), private
(0600, set on the open file, never by path); the metadata is written to a new file of a
random name (``O_EXCL``) renamed into place. What the metadata file says is checked before
it is believed (a pid, a short version, a start time): a malformed one counts as absent.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import socket
import stat
import struct
import sys

from baremobile.daemon.errors import DaemonError

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ENV_SOCKET", "MAX_SOCKET_PATH", "check_daemon_peer", "ensure_directory",
           "lock_path", "log_path", "metadata_path", "open_log", "open_side_file", "peer_uid",
           "read_metadata", "socket_path", "write_json", "write_metadata"]

ENV_SOCKET = "BAREMOBILE_DAEMON_SOCKET"
#: sun_path holds 108 bytes on Linux, 104 on macOS and the BSDs (with the final NUL)
MAX_SOCKET_PATH = 107 if sys.platform.startswith("linux") else 103


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket, where the OS tells (Linux:
    ``SO_PEERCRED``); None elsewhere. The daemon checks its clients with it, and a client
    the daemon it reached (a socket in a shared directory may be anyone's)."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return uid


def _default_directory() -> str:
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        with contextlib.suppress(OSError):
            st = os.stat(runtime)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == _uid():
                return os.path.join(runtime, "baremobile")
    tmp = os.environ.get("TMPDIR", "") or "/tmp"
    return os.path.join(tmp, f"baremobile-{_uid()}")


def socket_path() -> str:
    """The daemon's socket path (absolute); raises when it is too long for AF_UNIX."""
    given = os.environ.get(ENV_SOCKET, "").strip()
    path = os.path.abspath(os.path.expanduser(given)) if given else \
        os.path.join(_default_directory(), "daemon.sock")
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise DaemonError(f"the daemon socket path is {len(os.fsencode(path))} bytes long; "
                          f"Unix sockets allow {MAX_SOCKET_PATH}: {path}",
                          hint=f"set ${ENV_SOCKET} to a shorter path in a directory only you "
                               "can write, e.g. ~/.bm.sock")
    return path


def check_daemon_peer(sock: socket.socket, path: str) -> None:
    """Refuse a daemon socket served by another user: whoever could bind ``path`` first
    (a socket in a shared directory such as /tmp) would otherwise read every request —
    typed text included — and answer what it likes."""
    uid = peer_uid(sock)
    if uid is not None and uid != _uid():
        raise DaemonError(f"the daemon socket {path} is served by a process of uid {uid}, "
                          f"not by you (uid {_uid()}): refusing to talk to it",
                          hint=f"remove it if it is stale, or set ${ENV_SOCKET} to a path in "
                               "a directory only you can write")


def bind_private(path: str) -> tuple[socket.socket, int]:
    """A Unix socket bound at ``path``, born 0600 (no moment at which another user could
    connect), and the inode it made — what :func:`unlink_if_ours` compares at the end.
    :class:`DaemonError` when it cannot bind; nothing is left open then."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(path)
    except OSError as exc:
        listener.close()
        raise DaemonError(f"cannot listen on {path}: {exc.strerror or exc}") from None
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    return listener, os.stat(path).st_ino


def unlink_if_ours(path: str, inode: int | None) -> bool:
    """Remove the socket at ``path`` if it is still the one :func:`bind_private` made
    (``inode``) — never another daemon's that replaced it since. Whether it was removed."""
    with contextlib.suppress(OSError):
        if inode is not None and os.stat(path).st_ino == inode:
            os.unlink(path)
            return True
    return False


def metadata_path(sock: str) -> str:
    return sock + ".json"


def lock_path(sock: str) -> str:
    return sock + ".lock"


def log_path(sock: str) -> str:
    return sock + ".log"


def ensure_directory(sock: str) -> None:
    """Create the socket's directory (0700) and check it is safe to listen in.

    The per-user default directory must be a real directory of this user that nobody else
    can enter; a directory the user chose through ``$BAREMOBILE_DAEMON_SOCKET`` is created
    0700 when missing and otherwise taken as it is (the socket inside is still 0600).
    """
    directory = os.path.dirname(sock)
    chosen = bool(os.environ.get(ENV_SOCKET, "").strip())
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        st = os.lstat(directory)
    except OSError as exc:
        raise DaemonError(f"cannot create the daemon's directory {directory}: "
                          f"{exc.strerror or exc}",
                          hint=f"set ${ENV_SOCKET} to a socket path in a directory you own") \
            from None
    if chosen:
        return
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        problem = "is a symlink" if stat.S_ISLNK(st.st_mode) else "is not a directory"
    elif st.st_uid != _uid():
        problem = f"belongs to uid {st.st_uid}, not to you (uid {_uid()})"
    elif st.st_mode & 0o077:
        problem = f"is open to others (mode {stat.S_IMODE(st.st_mode):03o}, not 700)"
    else:
        return
    raise DaemonError(f"refusing to use {directory} for the daemon's socket: it {problem}",
                      hint=f"remove it (or chmod 700 it, if it is yours), or set ${ENV_SOCKET}")


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: the largest metadata file read (it is ~150 bytes)
MAX_METADATA = 64 * 1024


def _check_own(fd: int, path: str) -> None:
    """The open file must be a regular file of this user with one name (not someone's
    file reached through a hard link), made private."""
    st = os.fstat(fd)
    problem = ("is not a regular file" if not stat.S_ISREG(st.st_mode) else
               f"belongs to uid {st.st_uid}, not to you (uid {_uid()})"
               if st.st_uid != _uid() else
               f"has {st.st_nlink} names (hard links)" if st.st_nlink > 1 else "")
    if problem:
        raise DaemonError(f"refusing to use {path}: it {problem}",
                          hint=f"remove it, or set ${ENV_SOCKET} to a socket path in a "
                               "directory only you can write")
    if stat.S_IMODE(st.st_mode) & 0o077 and hasattr(os, "fchmod"):
        os.fchmod(fd, 0o600)


def open_side_file(path: str, flags: int) -> int:
    """Open (creating, 0600) a file beside the socket: never through a symlink, and only a
    regular, private file of this user (:class:`DaemonError` otherwise). The descriptor."""
    try:
        fd = os.open(path, flags | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600)
    except OSError as exc:
        raise DaemonError(f"cannot open {path}: "
                          f"{'it is a symlink' if exc.errno == errno.ELOOP else exc.strerror}",
                          hint=f"remove it, or set ${ENV_SOCKET} to a socket path in a "
                               "directory only you can write") from None
    try:
        _check_own(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_log(sock: str) -> int:
    """The daemon's log beside ``sock``, opened for appending (see :func:`open_side_file`)."""
    return open_side_file(log_path(sock), os.O_WRONLY | os.O_APPEND)


def write_metadata(sock: str, data: dict[str, Any]) -> None:
    """Write the metadata file atomically (0600): a new file of a random name (``O_EXCL``,
    no symlink followed) renamed over the old one."""
    write_json(metadata_path(sock), data)


def write_json(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` as :func:`write_metadata` writes the metadata file: a new
    private file of a random name renamed over the old one (a symlink there is replaced,
    never written through)."""
    tmp = f"{path}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    except OSError as exc:
        raise DaemonError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)  # replaces a symlink there, never writes through it
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise DaemonError(f"cannot write {path}: {exc.strerror or exc}",
                          hint=f"set ${ENV_SOCKET} to a socket path in a directory only you "
                               "can write") from None


def read_metadata(sock: str) -> dict[str, Any] | None:
    """The running daemon's metadata, or None when absent, unreadable, not this user's, or
    malformed (it is checked: a pid, a version of at most 64 characters, a start time in
    ms, the protocol's number — a daemon wrote it, but anyone could have replaced it)."""
    path = metadata_path(sock)
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != _uid() or st.st_size > MAX_METADATA:
            return None
        raw = os.read(fd, MAX_METADATA + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return data if _well_formed(data) else None


def _number(value: Any, low: float, high: float) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and value == value and low <= value <= high)


def _well_formed(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    checks = {
        "pid": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 < v < 2 ** 31,
        "version": lambda v: isinstance(v, str) and 0 < len(v) <= 64 and v.isprintable(),
        "startedAt": lambda v: _number(v, 0, 1e15),
        "protocol": lambda v: isinstance(v, int) and not isinstance(v, bool) and
        0 <= v < 1000,
        "socket": lambda v: isinstance(v, str) and len(v) <= 4096,
    }
    return all(check(data[key]) for key, check in checks.items() if key in data)
