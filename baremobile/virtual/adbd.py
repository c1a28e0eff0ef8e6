"""adbd's side of the ADB protocol over TCP, in front of a :class:`PhoneModel`.

One thread accepts connections; each connection has a reader thread that decodes
messages with :class:`~baremobile.virtual.protocol.MessageReader` and dispatches them;
each open stream has a sender thread that honours ADB flow control (one WRTE in flight
until the peer's OKAY) and, for shell/exec, a producer thread that runs the command.

What a real client sees, as on a phone:

* ``CNXN`` → ``AUTH TOKEN`` (20 random bytes) → the host's ``AUTH SIGNATURE`` is checked
  with real RSA against trusted keys → ``CNXN`` with a ``device::…;features=…`` banner, or
  a fresh token; ``AUTH RSAPUBLICKEY`` is the "Allow USB debugging?" prompt (accepted at
  once in ``accept-all`` mode, held until :meth:`KeyStore.allow` in ``known-keys`` mode).
* ``OPEN`` of ``shell:``, ``shell,v2,…:``, ``exec:``, ``sync:`` → ``OKAY`` and the
  service; other services fail with ``CLSE(0, id)`` as adbd does.
* Invalid magic, oversized payload, or a bad checksum (while the negotiated version is
  below 0x01000001) drops the connection. CLSE/OKAY/WRTE for unknown streams are ignored
  (clients send a stray CLSE for streams the device already closed).
* Each message is written with one ``sendall`` (header and payload together, and a
  stream's last data together with its CLSE), with ``TCP_NODELAY`` set.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import socket
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from baremobile.virtual import protocol as P
from baremobile.virtual.auth import AndroidPublicKey, KeyStore, parse_public_key
from baremobile.virtual.sync import SyncQuit, SyncSession

__all__ = ["AdbdServer", "Faults", "FaultRule", "DEFAULT_FEATURES"]

log = logging.getLogger("baremobile.virtual.adbd")

#: Features this adbd implements (and therefore advertises in its banner).
DEFAULT_FEATURES = (
    "shell_v2",
    "cmd",
    "stat_v2",
    "fixed_push_mkdir",
    "fixed_push_symlink_timestamp",
)

_END = object()  # sender sentinel: finish the stream (send CLSE)
_ABORT = object()  # sender sentinel: stream already closed, just stop

# shell protocol v2 packet ids
_V2_STDIN, _V2_STDOUT, _V2_STDERR, _V2_EXIT, _V2_CLOSE_STDIN, _V2_WINSIZE = 0, 1, 2, 3, 4, 5
_V2_HEADER = struct.Struct("<BI")


# ---------------------------------------------------------------------------------------
# fault injection
# ---------------------------------------------------------------------------------------


@dataclass
class FaultRule:
    """One injected fault, applied to the next stream(s) whose service matches."""

    kind: str  # "drop" | "stall" | "corrupt" | "refuse" | "hang"
    service: str = ""  # substring of the OPEN destination ("" matches every service)
    after_bytes: int = 0  # for drop/corrupt: stream output bytes sent before the fault
    count: int = 1  # how many streams it applies to (-1: forever)
    hits: int = 0


class Faults:
    """Faults a test can arm on the phone's connections.

    * ``drop``: after ``after_bytes`` of the stream's output, the TCP connection is cut
      (as when a cable is pulled or Wi-Fi drops mid-transfer);
    * ``stall``: the stream opens (OKAY) but never sends anything — a hung command;
    * ``hang``: the OPEN is never answered — a wedged adbd;
    * ``corrupt``: after ``after_bytes``, a message with a broken header is sent;
    * ``refuse``: the OPEN fails (``CLSE``), as for a service adbd does not offer.
    """

    KINDS = ("drop", "stall", "corrupt", "refuse", "hang")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []

    def add(
        self, kind: str, *, service: str = "", after_bytes: int = 0, count: int = 1
    ) -> FaultRule:
        """Arm a fault; returns the rule (its ``hits`` counts how often it fired)."""
        if kind not in self.KINDS:
            raise ValueError(f"fault kind must be one of {', '.join(self.KINDS)}, not {kind!r}")
        rule = FaultRule(kind, service, after_bytes, count)
        with self._lock:
            self._rules.append(rule)
        return rule

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def take(self, service: str) -> FaultRule | None:
        with self._lock:
            for rule in self._rules:
                if rule.service in service and (rule.count < 0 or rule.hits < rule.count):
                    rule.hits += 1
                    if rule.count >= 0 and rule.hits >= rule.count:
                        self._rules.remove(rule)
                    return rule
        return None


# ---------------------------------------------------------------------------------------
# streams
# ---------------------------------------------------------------------------------------


class _Stream:
    """One OPENed service: local (device) id ↔ remote (host) id."""

    def __init__(self, conn: _Connection, local_id: int, remote_id: int, service: str) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.service = service
        self.ready = threading.Event()
        self.ready.set()  # "an OPEN message also implies a READY message"
        self.closed = threading.Event()
        # unbounded: the connection's reader thread queues replies and must never block
        # (it is the thread that processes the OKAYs the sender waits for); producers of
        # command output get backpressure in put() instead
        self.outbox: queue.Queue[Any] = queue.Queue()
        self.on_data: Callable[[bytes], None] = lambda data: None
        self.on_close: Callable[[], None] = lambda: None
        self.fault: FaultRule | None = None
        self.sent_bytes = 0
        self.threads: list[threading.Thread] = []

    # -- called from any thread --------------------------------------------------------
    def put(self, item: Any, *, wait: bool = True) -> None:
        """Queue output (bytes) or _END for the sender.

        With ``wait`` (command producers), block while 64 items are already queued, so a
        fast command cannot outrun a slow client; gives up once the stream closed.
        """
        while wait and self.outbox.qsize() >= 64 and not self.closed.is_set():
            self.closed.wait(0.01)
        if not self.closed.is_set():
            self.outbox.put(item)

    def close_from_host(self) -> None:
        """The host sent CLSE: stop the service and answer with our CLSE."""
        if self.closed.is_set():
            return
        self.closed.set()
        self.conn.forget(self)
        self.conn.send(P.A_CLSE, self.local_id, self.remote_id)
        self.outbox.put_nowait(_ABORT)
        self.on_close()

    def close_quietly(self) -> None:
        """The connection is gone: stop without sending anything."""
        if self.closed.is_set():
            return
        self.closed.set()
        self.outbox.put_nowait(_ABORT)
        self.on_close()

    # -- sender thread -----------------------------------------------------------------
    def run_sender(self) -> None:
        try:
            while not self.closed.is_set():
                try:
                    item = self.outbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                if item is _ABORT:
                    return
                parts = [item]
                while True:  # coalesce whatever else is already queued
                    try:
                        parts.append(self.outbox.get_nowait())
                    except queue.Empty:
                        break
                if _ABORT in parts:
                    return
                final = _END in parts
                data = b"".join(p for p in parts if isinstance(p, (bytes, bytearray)))
                self._write(data, final=final)
                if final:
                    return
        except OSError:
            self.conn.kill("write failed")

    def _wait_ready(self) -> bool:
        while not self.ready.wait(0.2):
            if self.closed.is_set() or self.conn.dead.is_set():
                return False
        return not self.closed.is_set()

    def _write(self, data: bytes, *, final: bool) -> None:
        """Send ``data`` as WRTEs (one in flight at a time); with ``final``, then CLSE."""
        pos = 0
        while True:
            rule = self.fault if self.fault and self.fault.kind in ("drop", "corrupt") else None
            if rule is not None and self.sent_bytes >= rule.after_bytes:
                self._fire(rule)
                return
            limit = self.conn.max_payload
            if rule is not None:
                limit = min(limit, rule.after_bytes - self.sent_bytes)
            piece = data[pos : pos + limit]
            pos += len(piece)
            done = pos >= len(data)
            wire = b""
            if piece:
                if not self._wait_ready():
                    return
                self.ready.clear()
                wire = self.conn.pack(P.A_WRTE, self.local_id, self.remote_id, piece)
                self.sent_bytes += len(piece)
            fault_due = rule is not None and self.sent_bytes >= rule.after_bytes
            if final and done and not fault_due:
                if self.closed.is_set():
                    return
                self.closed.set()
                self.conn.forget(self)
                self.conn.send_raw(wire + self.conn.pack(P.A_CLSE, self.local_id, self.remote_id))
                return
            if wire:
                self.conn.send_raw(wire)
            if done and not final:
                return

    def _fire(self, rule: FaultRule) -> None:
        self.fault = None
        if rule.kind == "drop":
            log.info(
                "fault: dropping connection on %s after %d bytes", self.service, self.sent_bytes
            )
            self.conn.kill("fault: drop", abortive=True)
        else:
            log.info("fault: corrupt message on %s", self.service)
            bad = bytearray(self.conn.pack(P.A_WRTE, self.local_id, self.remote_id, b"garbage"))
            bad[20:24] = b"\0\0\0\0"  # break the magic
            self.conn.send_raw(bytes(bad))


# ---------------------------------------------------------------------------------------
# connections
# ---------------------------------------------------------------------------------------


class _Connection:
    def __init__(self, server: AdbdServer, sock: socket.socket, peer: Any) -> None:
        self.server = server
        self.sock = sock
        self.peer = peer
        self.reader = P.MessageReader(P.MAX_PAYLOAD, check_checksum=True)
        self.version = P.A_VERSION_MIN
        self.max_payload = P.MAX_PAYLOAD_V1
        self.online = False
        self.token = b""
        self.host_banner = ""
        self.key: AndroidPublicKey | None = None
        self.dead = threading.Event()
        self._send_lock = threading.Lock()
        self._streams: dict[int, _Stream] = {}
        self._streams_lock = threading.Lock()
        self._ids = itertools.count(server.next_id_base())
        self._unsubscribe: Callable[[], None] | None = None
        self._pending_key: AndroidPublicKey | None = None

    # -- writing -------------------------------------------------------------------------
    def pack(self, cmd: int, a0: int, a1: int, payload: bytes = b"") -> bytes:
        return P.pack(cmd, a0, a1, payload, with_checksum=self.version < P.A_VERSION_SKIP_CHECKSUM)

    def send_raw(self, wire: bytes) -> None:
        if self.dead.is_set():
            raise OSError("connection closed")
        with self._send_lock:
            self.sock.sendall(wire)

    def send(self, cmd: int, a0: int, a1: int, payload: bytes = b"") -> bool:
        try:
            self.send_raw(self.pack(cmd, a0, a1, payload))
            return True
        except OSError:
            self.kill("write failed")
            return False

    def forget(self, stream: _Stream) -> None:
        with self._streams_lock:
            self._streams.pop(stream.local_id, None)

    def kill(self, reason: str, *, abortive: bool = False) -> None:
        """Close the TCP connection and stop every stream on it."""
        if self.dead.is_set():
            return
        self.dead.set()
        log.debug("connection %s closed: %s", self.peer, reason)
        if abortive:  # RST instead of FIN, like a vanished peer
            with contextlib.suppress(OSError):
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()
        with self._streams_lock:
            streams = list(self._streams.values())
            self._streams.clear()
        for s in streams:
            s.close_quietly()
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.server.connection_closed(self)

    # -- reading -------------------------------------------------------------------------
    def run(self) -> None:
        try:
            while not self.dead.is_set():
                try:
                    data = self.sock.recv(256 * 1024)
                except OSError:
                    break
                if not data:
                    break
                if self.server.stalled:
                    continue  # a wedged adbd: read and ignore everything
                try:
                    for msg in self.reader.feed(data):
                        self.handle(msg)
                except P.ProtocolViolation as exc:
                    log.info("dropping connection %s: %s", self.peer, exc)
                    break
        finally:
            self.kill("peer closed")

    def handle(self, msg: P.Message) -> None:
        cmd = msg.command
        if cmd == P.A_CNXN:
            self._on_cnxn(msg)
        elif cmd == P.A_AUTH:
            self._on_auth(msg)
        elif not self.online:
            return  # "Any messages received before a CONNECT message MUST be ignored."
        elif cmd == P.A_OPEN:
            self._on_open(msg)
        elif cmd == P.A_OKAY:
            s = self._stream(msg.arg1)
            if s is not None:
                s.ready.set()
        elif cmd == P.A_WRTE:
            s = self._stream(msg.arg1)
            if s is not None:
                s.on_data(msg.payload)
                self.send(P.A_OKAY, s.local_id, s.remote_id)
        elif cmd == P.A_CLSE:
            s = self._stream(msg.arg1)
            if s is not None and (msg.arg0 == 0 or msg.arg0 == s.remote_id):
                s.close_from_host()
        # SYNC, STLS and unknown commands are ignored, as adbd does.

    def _stream(self, local_id: int) -> _Stream | None:
        with self._streams_lock:
            return self._streams.get(local_id)

    # -- handshake -----------------------------------------------------------------------
    def _on_cnxn(self, msg: P.Message) -> None:
        if self.online:  # a reconnect on the same socket: forget every stream
            with self._streams_lock:
                streams = list(self._streams.values())
                self._streams.clear()
            for s in streams:
                s.close_quietly()
            self.online = False
        if msg.arg0 < P.A_VERSION_MIN:
            self.kill(f"unsupported protocol version {msg.arg0:#x}")
            return
        self.version = min(msg.arg0, self.server.protocol_version)
        self.max_payload = max(P.MAX_PAYLOAD_V1, min(msg.arg1, P.MAX_PAYLOAD))
        self.reader.check_checksum = self.version < P.A_VERSION_SKIP_CHECKSUM
        self.host_banner = msg.payload.rstrip(b"\0").decode("utf-8", "replace")
        if self.server.keys.mode == "none":
            self._go_online(None)
        else:
            self._send_token()

    def _send_token(self) -> None:
        self.token = os.urandom(20)
        self.send(P.A_AUTH, P.AUTH_TOKEN, 0, self.token)

    def _on_auth(self, msg: P.Message) -> None:
        if self.online or not self.token:
            return
        if msg.arg0 == P.AUTH_SIGNATURE:
            key = self.server.keys.verify(self.token, msg.payload)
            if key is not None:
                self._go_online(key)
            else:
                self._send_token()  # "replies with a new AUTH packet and a new random token"
        elif msg.arg0 == P.AUTH_RSAPUBLICKEY:
            try:
                key = parse_public_key(msg.payload)
            except ValueError as exc:
                log.info("ignoring malformed public key from %s: %s", self.peer, exc)
                return
            self.server.prompted(key)
            if self.server.keys.offer(key):
                self._go_online(key)
                return
            # known-keys: wait for the user's "Allow" (KeyStore.allow) on this connection
            self._pending_key = key
            if self._unsubscribe is None:
                self._unsubscribe = self.server.keys.on_trust(self._key_trusted)

    def _key_trusted(self, key: AndroidPublicKey) -> None:
        pending = self._pending_key
        if pending is not None and (pending.n, pending.e) == (key.n, key.e) and not self.online:
            self._go_online(key)

    def _go_online(self, key: AndroidPublicKey | None) -> None:
        if self.online or self.dead.is_set():
            return
        self.online = True
        self.key = key
        self._pending_key = None
        banner = self.server.banner().encode("utf-8")
        self.send(P.A_CNXN, self.server.protocol_version, self.max_payload, banner)
        self.server.model.events.append(
            "connect",
            host=self.host_banner,
            key=key.fingerprint if key is not None else None,
        )

    # -- services ------------------------------------------------------------------------
    def _on_open(self, msg: P.Message) -> None:
        remote_id = msg.arg0
        if remote_id == 0:
            return
        service = msg.payload.rstrip(b"\0").decode("utf-8", "replace")
        fault = self.server.faults.take(service)
        if fault is not None and fault.kind == "hang":
            return
        if fault is not None and fault.kind == "refuse":
            self.send(P.A_CLSE, 0, remote_id)
            return
        local_id = next(self._ids)
        stream = _Stream(self, local_id, remote_id, service)
        stream.fault = fault
        starter = self.server.service_for(service)
        if starter is None:
            log.info("refusing unknown service %r", service)
            self.send(P.A_CLSE, 0, remote_id)
            return
        with self._streams_lock:
            self._streams[local_id] = stream
        self.server.model.events.append("open", service=service)
        if not self.send(P.A_OKAY, local_id, remote_id):
            return
        if fault is not None and fault.kind == "stall":
            return  # opened, and then nothing — ever
        sender = threading.Thread(
            target=stream.run_sender, name=f"adbd-send-{local_id}", daemon=True
        )
        stream.threads.append(sender)
        sender.start()
        starter(stream, service)


# ---------------------------------------------------------------------------------------
# the server
# ---------------------------------------------------------------------------------------


@dataclass
class _ServiceSpec:
    protocol_v2: bool
    command: str
    env: dict[str, str] = field(default_factory=dict)
    pty: bool = False


def parse_shell_service(service: str) -> _ServiceSpec | None:
    """``shell:cmd``, ``shell,v2,TERM=xterm,raw:cmd``, ``exec:cmd`` → spec; else None."""
    head, sep, command = service.partition(":")
    if not sep:
        return None
    if head == "exec":
        return _ServiceSpec(False, command)
    parts = head.split(",")
    if parts[0] != "shell":
        return None
    spec = _ServiceSpec(False, command, pty=not command)
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


class AdbdServer:
    """The protocol server. Normally used through :class:`~baremobile.virtual.VirtualPhone`."""

    def __init__(
        self,
        model: Any,
        keys: KeyStore,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        features: Iterable[str] = DEFAULT_FEATURES,
        faults: Faults | None = None,
        stdin_factory: Callable[[], Any] | None = None,
        on_auth_prompt: Callable[[AndroidPublicKey], None] | None = None,
        protocol_version: int = P.A_VERSION,
        legacy_pty: bool = False,
    ) -> None:
        self.model = model
        #: what this adbd announces in CNXN (0x01000000 before Android 9: checksums always)
        self.protocol_version = protocol_version
        #: ``shell:CMD`` on a pty, as before Android 7 (output lines end in \r\n)
        self.legacy_pty = legacy_pty
        self.keys = keys
        self.features = tuple(features)
        self.faults = faults if faults is not None else Faults()
        self.on_auth_prompt = on_auth_prompt
        self.stalled = False
        self._stdin_factory = stdin_factory
        self._requested = (host, port)
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._conns: set[_Connection] = set()
        self._conn_threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._id_base = itertools.count(1)
        self._stopping = threading.Event()

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def address(self) -> tuple[str, int]:
        if self._listener is None:
            raise RuntimeError("the virtual adbd is not running; call start() first")
        host, port = self._listener.getsockname()[:2]
        return host, port

    def start(self) -> AdbdServer:
        if self._listener is not None:
            return self
        host, port = self._requested
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            sock.close()
            raise
        sock.listen(16)
        sock.settimeout(0.2)
        self._listener = sock
        self._stopping.clear()
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name="adbd-accept", daemon=True
        )
        self._accept_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self.disconnect_all()
        if self._accept_thread is not None:
            self._accept_thread.join(timeout)
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
            self._listener = None
        for t in list(self._conn_threads):
            t.join(timeout)

    def disconnect_all(self) -> None:
        """Cut every client connection (as when the cable is pulled)."""
        with self._lock:
            conns = list(self._conns)
        for c in conns:
            c.kill("disconnect_all", abortive=True)

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._conns)

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                sock, peer = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Connection(self, sock, peer)
            t = threading.Thread(target=conn.run, name=f"adbd-conn-{peer[1]}", daemon=True)
            with self._lock:
                self._conns.add(conn)
                self._conn_threads = [x for x in self._conn_threads if x.is_alive()] + [t]
            t.start()

    def connection_closed(self, conn: _Connection) -> None:
        with self._lock:
            self._conns.discard(conn)

    def next_id_base(self) -> int:
        # adbd's local socket ids are process-wide; give each connection its own range
        return 1 + (next(self._id_base) - 1) * 0x10000

    # -- identity ----------------------------------------------------------------------
    def banner(self) -> str:
        props = self.model.banner_props()
        fields = [f"{k}={v}" for k, v in props.items()]
        fields.append("features=" + ",".join(self.features))
        return "device::" + ";".join(fields)

    def prompted(self, key: AndroidPublicKey) -> None:
        if self.on_auth_prompt is not None:
            try:
                self.on_auth_prompt(key)
            except Exception:  # a user callback must not kill the connection
                log.exception("on_auth_prompt callback failed")

    # -- services ----------------------------------------------------------------------
    def service_for(self, service: str) -> Callable[[_Stream, str], None] | None:
        if service.startswith("sync:"):
            return self._start_sync
        if service in ("root:", "unroot:"):
            return self._start_message("adbd cannot run as root in production builds\n")
        if parse_shell_service(service) is not None:
            return self._start_shell
        return None

    def _start_message(self, text: str) -> Callable[[_Stream, str], None]:
        def start(stream: _Stream, service: str) -> None:
            stream.put(text.encode())
            stream.put(_END)

        return start

    def _start_sync(self, stream: _Stream, service: str) -> None:
        session = SyncSession(self.model.fs, self.model.events)

        def on_data(data: bytes) -> None:
            if session.closed:
                return
            try:
                reply = session.feed(data)
            except SyncQuit as exc:
                if str(exc) != "QUIT":
                    log.info("sync session ended: %s", exc)
                stream.put(_END, wait=False)
                return
            if reply:
                stream.put(reply, wait=False)

        stream.on_data = on_data

    def _new_stdin(self) -> Any:
        if self._stdin_factory is not None:
            return self._stdin_factory()
        from baremobile.virtual.model import StdinPipe

        return StdinPipe()

    def _start_shell(self, stream: _Stream, service: str) -> None:
        spec = parse_shell_service(service)
        assert spec is not None
        if not spec.protocol_v2 and service.startswith("shell:") and self.legacy_pty:
            spec.pty = True  # before Android 7 every shell: ran on a pty
        stdin = self._new_stdin()
        proc = self.model.spawn(spec.command, stdin=stdin)

        def on_close() -> None:
            proc.cancel()
            with contextlib.suppress(Exception):
                stdin.close()

        stream.on_close = on_close
        if spec.protocol_v2:
            stream.on_data = _V2StdinDecoder(stdin)
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
                        stream.put(_v2_packets(_V2_STDERR if fd == 2 else _V2_STDOUT, chunk))
                    else:
                        stream.put(bytes(chunk))
                if stream.closed.is_set():
                    return
                if spec.protocol_v2:
                    code = proc.exit_code if proc.exit_code is not None else 0
                    stream.put(_V2_HEADER.pack(_V2_EXIT, 1) + bytes([code & 0xFF]))
                stream.put(_END)
            except Exception:  # the simulation must never take the connection down
                log.exception("virtual shell failed running %r", spec.command)
                if spec.protocol_v2:
                    stream.put(_V2_HEADER.pack(_V2_EXIT, 1) + b"\xff")
                stream.put(_END)

        t = threading.Thread(target=produce, name=f"adbd-proc-{stream.local_id}", daemon=True)
        stream.threads.append(t)
        t.start()


def _v2_packets(packet_id: int, data: bytes) -> bytes:
    """Frame ``data`` as shell-protocol packets (each at most MAX_PAYLOAD - 5 bytes)."""
    step = P.MAX_PAYLOAD - _V2_HEADER.size
    out = bytearray()
    for i in range(0, len(data), step):
        piece = data[i : i + step]
        out += _V2_HEADER.pack(packet_id, len(piece)) + piece
    return bytes(out)


class _V2StdinDecoder:
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
