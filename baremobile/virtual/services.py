"""adbd's services: ``shell:``, ``shell,v2,…:``, ``exec:`` (a command on the phone's shell,
with the shell protocol v2 framing of stdout, stderr and the exit status), ``sync:`` (file
transfer, :mod:`.sync`), ``localabstract:<name>`` (a stream to a unix socket: the phone's
DevTools sockets, :mod:`.devtools`) and the messages adbd answers ``root:`` with."""

from __future__ import annotations

import contextlib
import functools
import logging
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from baremobile.virtual import protocol as P
from baremobile.virtual.devtools import start_devtools
from baremobile.virtual.streams import END, Stream
from baremobile.virtual.sync import SyncQuit, SyncSession

__all__ = [
    "ServiceSpec", "parse_shell_service", "ServiceHost", "Starter", "service_for", "v2_packets",
    "V2StdinDecoder",
]

log = logging.getLogger("baremobile.virtual.adbd")

# shell protocol v2 packet ids
_V2_STDIN, _V2_STDOUT, _V2_STDERR, _V2_EXIT, _V2_CLOSE_STDIN, _V2_WINSIZE = 0, 1, 2, 3, 4, 5
_V2_HEADER = struct.Struct("<BI")

Starter = Callable[[Stream, str], None]


class ServiceHost(Protocol):
    """What the services need of the server: the phone, and how its shells get stdin."""

    model: Any
    legacy_pty: bool

    def new_stdin(self) -> Any: ...


@dataclass
class ServiceSpec:
    protocol_v2: bool
    command: str
    env: dict[str, str] = field(default_factory=dict)
    pty: bool = False


def parse_shell_service(service: str) -> ServiceSpec | None:
    """``shell:cmd``, ``shell,v2,TERM=xterm,raw:cmd``, ``exec:cmd`` → spec; else None."""
    head, sep, command = service.partition(":")
    if not sep:
        return None
    if head == "exec":
        return ServiceSpec(False, command)
    parts = head.split(",")
    if parts[0] != "shell":
        return None
    spec = ServiceSpec(False, command, pty=not command)
    for arg in parts[1:]:
        if arg == "v2":
            spec.protocol_v2 = True
        elif arg == "raw":
            spec.pty = False
        elif arg == "pty":
            spec.pty = True
        elif "=" in arg:
            k, _, v = arg.partition("=")
            spec.env[k] = v
    return spec


def service_for(host: ServiceHost, service: str) -> Starter | None:
    """What starts ``service`` (None: adbd refuses it)."""
    if service.startswith("sync:"):
        return functools.partial(_start_sync, host)
    if service.startswith("localabstract:"):
        # adbd connects to the abstract socket itself (socket_spec_connect); nothing listens
        # there → the OPEN fails with CLSE, as it does on a phone
        finder = getattr(host.model, "devtools_socket", None)
        if finder is None or finder(service.partition(":")[2]) is None:
            return None
        return functools.partial(start_devtools, host)
    if service in ("root:", "unroot:"):
        return _message("adbd cannot run as root in production builds\n")
    if parse_shell_service(service) is not None:
        return functools.partial(_start_shell, host)
    return None


def _message(text: str) -> Starter:
    def start(stream: Stream, service: str) -> None:
        stream.put(text.encode())
        stream.put(END)

    return start


def _start_sync(host: ServiceHost, stream: Stream, service: str) -> None:
    session = SyncSession(host.model.fs, host.model.events)

    def on_data(data: bytes) -> None:
        if session.closed:
            return
        try:
            reply = session.feed(data)
        except SyncQuit as exc:
            if str(exc) != "QUIT":
                log.info("sync session ended: %s", exc)
            stream.put(END, wait=False)
            return
        if reply:
            stream.put(reply, wait=False)

    stream.on_data = on_data


def _start_shell(host: ServiceHost, stream: Stream, service: str) -> None:
    spec = parse_shell_service(service)
    assert spec is not None
    if not spec.protocol_v2 and service.startswith("shell:") and host.legacy_pty:
        spec.pty = True  # before Android 7 every shell: ran on a pty
    stdin = host.new_stdin()
    proc = host.model.spawn(spec.command, stdin=stdin)

    def on_close() -> None:
        proc.cancel()
        with contextlib.suppress(Exception):
            stdin.close()

    stream.on_close = on_close
    if spec.protocol_v2:
        stream.on_data = V2StdinDecoder(stdin)
    else:
        stream.on_data = stdin.feed

    def produce() -> None:
        try:
            for fd, chunk in proc.output():
                if stream.closed.is_set():
                    break
                if not chunk:
                    continue
                if spec.pty:  # the pty's line discipline: \n becomes \r\n
                    chunk = bytes(chunk).replace(b"\n", b"\r\n")
                if spec.protocol_v2:
                    stream.put(v2_packets(_V2_STDERR if fd == 2 else _V2_STDOUT, chunk))
                else:
                    stream.put(bytes(chunk))
            if stream.closed.is_set():
                return
            if spec.protocol_v2:
                code = proc.exit_code if proc.exit_code is not None else 0
                stream.put(_V2_HEADER.pack(_V2_EXIT, 1) + bytes([code & 0xFF]))
            stream.put(END)
        except Exception:  # the simulation must never take the connection down
            log.exception("virtual shell failed running %r", spec.command)
            if spec.protocol_v2:
                stream.put(_V2_HEADER.pack(_V2_EXIT, 1) + b"\xff")
            stream.put(END)

    t = threading.Thread(target=produce, name=f"adbd-proc-{stream.local_id}", daemon=True)
    stream.threads.append(t)
    t.start()


def v2_packets(packet_id: int, data: bytes) -> bytes:
    """Frame ``data`` as shell-protocol packets (each at most MAX_PAYLOAD - 5 bytes)."""
    step = P.MAX_PAYLOAD - _V2_HEADER.size
    out = bytearray()
    for i in range(0, len(data), step):
        piece = data[i : i + step]
        out += _V2_HEADER.pack(packet_id, len(piece)) + piece
    return bytes(out)


class V2StdinDecoder:
    """Demultiplexes the host's shell-protocol packets into the process's stdin."""

    def __init__(self, stdin: Any) -> None:
        self.stdin = stdin
        self.buf = bytearray()

    def __call__(self, data: bytes) -> None:
        self.buf += data
        while len(self.buf) >= _V2_HEADER.size:
            pid, length = _V2_HEADER.unpack_from(self.buf)
            if len(self.buf) < _V2_HEADER.size + length:
                return
            body = bytes(self.buf[_V2_HEADER.size : _V2_HEADER.size + length])
            del self.buf[: _V2_HEADER.size + length]
            if pid == _V2_STDIN:
                self.stdin.feed(body)
            elif pid == _V2_CLOSE_STDIN:
                self.stdin.close()
            # window-size changes and unknown ids are ignored
