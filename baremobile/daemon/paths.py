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
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import struct
import sys

from baremobile.daemon.errors import DaemonError

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ENV_SOCKET", "MAX_SOCKET_PATH", "check_daemon_peer", "ensure_directory",
           "lock_path", "log_path", "metadata_path", "peer_uid", "read_metadata",
           "socket_path", "write_metadata"]

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


def write_metadata(sock: str, data: dict[str, Any]) -> None:
    """Write the metadata file atomically (0600)."""
    path = metadata_path(sock)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


def read_metadata(sock: str) -> dict[str, Any] | None:
    """The running daemon's metadata, or None when absent or unreadable."""
    try:
        with open(metadata_path(sock), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
