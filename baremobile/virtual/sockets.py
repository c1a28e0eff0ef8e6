"""The phone's unix-domain sockets: the ``/proc/net/unix`` table and the DevTools sockets
in it.

Rows are printed the way Linux's ``unix_seq_show`` (``net/unix/af_unix.c``) does:
``"%pK: %08X %08X %08X %04X %02X %5lu"`` then `` path`` — the kernel address (all zeros
with ``kptr_restrict``, 16 digits on a 64-bit kernel), the reference count, the protocol
(0), the flags (``00010000`` = ``__SO_ACCEPTCON``, a listening socket), the type (``0001``
stream, ``0002`` datagram, ``0005`` seqpacket), the state (``01`` unconnected — listening
sockets — or ``03`` connected), the inode and the path (abstract names with a leading
``@``). A few of Android's own sockets are always there; a DevTools socket is there while
its process runs and the phone has a browser engine: ``@chrome_devtools_remote`` for Chrome
(USB debugging is on), ``@webview_devtools_remote_<pid>`` for an app whose WebView is
debuggable — the rows Chromium's ``chrome://inspect`` looks for
(``android_device_info_query.cc``: flags ``00010000``, state ``01``, ``_devtools_remote`` in
the name, the pid after it).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

__all__ = ["DevToolsSocket", "devtools_sockets", "proc_net_unix", "HEADER"]

HEADER = "Num       RefCount Protocol Flags    Type St Inode Path"

# (refcount, flags, type, state, path) of sockets every Android phone has
_SYSTEM = (
    (2, 0x10000, 1, 1, "/dev/socket/zygote"),
    (2, 0x10000, 1, 1, "/dev/socket/zygote_secondary"),
    (2, 0x10000, 1, 1, "/dev/socket/property_service"),
    (2, 0x10000, 1, 1, "/dev/socket/statsdw"),
    (2, 0x10000, 5, 1, "@jdwp-control"),
    (2, 0x10000, 1, 1, "/dev/socket/adbd"),
    (2, 0, 2, 1, "/dev/socket/logdw"),
    (2, 0x10000, 5, 1, "/dev/socket/logdr"),
    (3, 0, 1, 3, ""),
    (3, 0, 1, 3, ""),
    (2, 0, 2, 1, ""),
)


@dataclass(frozen=True)
class DevToolsSocket:
    """A listening DevTools socket: its abstract name, the process that owns it."""

    name: str
    package: str
    pid: int

    @property
    def inode(self) -> int:
        return 20000 + zlib.crc32(self.name.encode()) % 40000


def devtools_sockets(model: Any) -> list[DevToolsSocket]:
    """The DevTools sockets listening now (none without a browser engine)."""
    if getattr(model, "browser", None) is None:
        return []
    screens = model.screens
    web = screens.web_packages() if hasattr(screens, "web_packages") else set()
    from baremobile.virtual.screens.web import socket_kind

    with model.lock:
        running = sorted(model.running.items(), key=lambda kv: kv[1])
    out = []
    for package, pid in running:
        if package not in web:
            continue
        if socket_kind(package) == "chrome":
            out.append(DevToolsSocket("chrome_devtools_remote", package, pid))
        else:
            out.append(DevToolsSocket(f"webview_devtools_remote_{pid}", package, pid))
    return out


def _row(refs: int, flags: int, kind: int, state: int, inode: int, path: str) -> str:
    return (f"{0:016x}: {refs:08X} {0:08X} {flags:08X} {kind:04X} {state:02X} {inode:5d}"
            + (f" {path}" if path else ""))


def proc_net_unix(model: Any) -> bytes:
    """The contents of ``/proc/net/unix`` now."""
    lines = [HEADER]
    for i, (refs, flags, kind, state, path) in enumerate(_SYSTEM):
        lines.append(_row(refs, flags, kind, state, 8000 + 37 * i, path))
    for s in devtools_sockets(model):
        lines.append(_row(2, 0x10000, 1, 1, s.inode, "@" + s.name))
    return ("\n".join(lines) + "\n").encode("ascii")
