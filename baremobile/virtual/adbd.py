"""adbd's side of the ADB protocol over TCP, in front of a :class:`PhoneModel`: the
listener, the connections and their handshake.

One thread accepts connections; each connection has a reader thread that decodes
messages with :class:`~baremobile.virtual.protocol.MessageReader` and dispatches them;
each open stream (:mod:`.streams`) has a sender thread that honours ADB flow control (one
WRTE in flight until the peer's OKAY) and, for shell/exec (:mod:`.services`), a producer
thread that runs the command. Armed faults (:mod:`.faults`) fire on the streams.

What a real client sees, as on a phone:

* ``CNXN`` → ``AUTH TOKEN`` (20 random bytes) → the host's ``AUTH SIGNATURE`` is checked
  with real RSA against trusted keys → ``CNXN`` with a ``device::…;features=…`` banner, or
  a fresh token; ``AUTH RSAPUBLICKEY`` is the "Allow USB debugging?" prompt (accepted at
  once in ``accept-all`` mode, held until :meth:`KeyStore.allow` in ``known-keys`` mode).
* ``OPEN`` of ``shell:``, ``shell,v2,…:``, ``exec:``, ``sync:`` → ``OKAY`` and the
  service; other services fail with ``CLSE(0, id)`` as adbd does.
* Invalid magic, a payload over the negotiated max payload (4 KiB before Android 7,
  256 KiB before 9, 1 MiB since: AOSP adb ``check_header``), or a bad checksum (while the
  negotiated version is below 0x01000001) drops the connection. CLSE/OKAY/WRTE for
  unknown streams are ignored (clients send a stray CLSE for streams the device already
  closed).
* Each message is written with one ``sendall`` (header and payload together, and a
  stream's last data together with its CLSE), with ``TCP_NODELAY`` set.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import socket
import struct
import threading
from collections.abc import Callable, Iterable
from typing import Any

from baremobile.virtual import protocol as P
from baremobile.virtual.auth import AndroidPublicKey, KeyStore, parse_public_key
from baremobile.virtual.faults import FaultRule, Faults
from baremobile.virtual.services import Starter, parse_shell_service, service_for
from baremobile.virtual.streams import Stream

__all__ = ["AdbdServer", "Faults", "FaultRule", "DEFAULT_FEATURES", "parse_shell_service"]

log = logging.getLogger("baremobile.virtual.adbd")

#: Features this adbd implements (and therefore advertises in its banner).
DEFAULT_FEATURES = (
    "shell_v2",
    "cmd",
    "stat_v2",
    "fixed_push_mkdir",
    "fixed_push_symlink_timestamp",
)


# ---------------------------------------------------------------------------------------
# connections
# ---------------------------------------------------------------------------------------


class _Connection:
    def __init__(self, server: AdbdServer, sock: socket.socket, peer: Any) -> None:
        self.server = server
        self.sock = sock
        self.peer = peer
        self.reader = P.MessageReader(server.max_payload, check_checksum=True)
        self.version = P.A_VERSION_MIN
        self.max_payload = P.MAX_PAYLOAD_V1
        self.online = False
        self.token = b""
        self.host_banner = ""
        self.key: AndroidPublicKey | None = None
        self.dead = threading.Event()
        self._send_lock = threading.Lock()
        self._streams: dict[int, Stream] = {}
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

    def forget(self, stream: Stream) -> None:
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
                s.slow_link()  # before the data is handled: its OKAY goes before any reply
                s.on_data(msg.payload)
                self.send(P.A_OKAY, s.local_id, s.remote_id)
        elif cmd == P.A_CLSE:
            s = self._stream(msg.arg1)
            if s is not None and (msg.arg0 == 0 or msg.arg0 == s.remote_id):
                s.close_from_host()
        # SYNC, STLS and unknown commands are ignored, as adbd does.

    def _stream(self, local_id: int) -> Stream | None:
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
        # AOSP atransport::update_version: max_payload = min(host's, the device's own)
        self.max_payload = max(P.MAX_PAYLOAD_V1, min(msg.arg1, self.server.max_payload))
        self.reader.max_payload = self.max_payload
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
        stream = Stream(self, local_id, remote_id, service)
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
        max_payload: int = P.MAX_PAYLOAD,
    ) -> None:
        #: the largest payload this adbd takes (and offers in its CNXN)
        self.max_payload = max_payload
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
        self._listener = sock  # blocking: stop() wakes the accept (no poll interval to wait)
        self._stopping.clear()
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name="adbd-accept", daemon=True
        )
        self._accept_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self._wake_accept()
        self.disconnect_all()
        if self._accept_thread is not None:
            self._accept_thread.join(timeout)
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
            self._listener = None
        for t in list(self._conn_threads):
            t.join(timeout)

    def _wake_accept(self) -> None:
        """End the accept loop's blocking ``accept()`` now: shutting the listening socket
        down wakes it on Linux; elsewhere (or if it did not) a connection of our own does,
        and the loop, seeing it is stopping, closes it."""
        listener, thread = self._listener, self._accept_thread
        if listener is None or thread is None:
            return
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        thread.join(0.05)
        if thread.is_alive():
            with contextlib.suppress(OSError):
                host, port = listener.getsockname()[:2]
                socket.create_connection(("127.0.0.1" if host in ("0.0.0.0", "") else host,
                                          port), timeout=1).close()

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
            except OSError:
                return  # stopped (the listener shut down or closed)
            if self._stopping.is_set():
                sock.close()  # the wake-up connection of stop(), or one too late
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
    def service_for(self, service: str) -> Starter | None:
        return service_for(self, service)

    def new_stdin(self) -> Any:
        if self._stdin_factory is not None:
            return self._stdin_factory()
        from baremobile.virtual.model import StdinPipe

        return StdinPipe()
