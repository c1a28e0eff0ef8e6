"""The daemon: a Unix-socket server speaking the NDJSON protocol, one hub behind it.

Threads: the main thread accepts connections (and notices idleness and shutdown); each
connection has a reader thread; every request that may touch a device runs in a worker
thread of its own, watched by one deadline thread. A reader never waits for a device, so a
stuck phone holds up only the requests on that phone: every other request — on other
devices, or the daemon's own methods — is answered as usual. A request that runs out of
time (``timeoutMs``, raised to the tool's floor) is answered ``TIMEOUT`` at once and its
device work is cancelled (its :class:`baremobile.calls.Call`); its late result is logged and
dropped. A client that hangs up (fully: the OS reports the hang-up) has its requests
cancelled the same way; one that only shuts its sending side still gets its answers.

Exactly one response per request: a request's responder lets only the first answer out
(the result, the timeout, or the cancellation: :mod:`baremobile.daemon.inflight`), and
lines that are not requests (bad JSON, oversized, unknown method) each get one error
response too (with ``id`` null when it could not be read). What each method does is
:mod:`baremobile.daemon.methods`.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import fcntl
import itertools
import logging
import os
import select
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from baremobile.calls import Call
from baremobile.daemon import paths
from baremobile.daemon import protocol as proto
from baremobile.daemon.automobile import METHODS as AUTOMOBILE_METHODS
from baremobile.daemon.errors import DaemonError, UnknownMethod
from baremobile.daemon.hub import Hub
from baremobile.daemon.inflight import Deadlines, Pending, encoded, failure_for, short
from baremobile.daemon.methods import METHODS, Method

__all__ = ["Connection", "DaemonServer", "run"]

log = logging.getLogger("baremobile.daemon")

PROTOCOL_VERSION = 1
MAX_CONNECTIONS = 128
MAX_IN_FLIGHT = 256
#: a client that does not read its answers for this long is dropped
SEND_TIMEOUT = 30.0
#: a connection's reader stops reading its client's requests while this much of the
#: answers is queued, unread (back-pressure on a client that sends without reading)
HIGH_WATER = 4 * 1024 * 1024
#: answers queued for one client beyond this drop it (it is not reading)
MAX_QUEUED = 256 * 1024 * 1024
#: stopping, the daemon gives its requests and its clients this long to be answered and
#: to read what is queued for them; then it closes what is left
SHUTDOWN_GRACE = 2.0


# ---------------------------------------------------------------------------------------
# connections
# ---------------------------------------------------------------------------------------


class Connection:
    """One client: its reader thread, its writer thread, its requests.

    Answers are only ever queued (:meth:`send`); the connection's own writer thread is the
    one thread that blocks on this client's socket. So a client that stops reading holds
    up nobody else: the deadline thread, the workers and the other clients' answers never
    wait for it. Its own reader waits while :data:`HIGH_WATER` bytes are queued (a client
    that sends without reading gets back-pressure, as before); past :data:`MAX_QUEUED`, or
    when a write is not taken within the send timeout, the client is dropped.
    """

    def __init__(self, server: DaemonServer, sock: socket.socket, number: int,
                 vocabulary: str | None = None) -> None:
        self.server = server
        self.sock = sock
        self.number = number
        #: whose words the connection speaks: None (ours), or ``automobile`` (a connection
        #: on the AutoMobile endpoint: :mod:`baremobile.daemon.automobile`)
        self.vocabulary = vocabulary
        self.closed = False
        self.pending: set[Pending] = set()
        self.lock = threading.Lock()
        self.done = threading.Event()
        self._out: collections.deque[bytes] = collections.deque()
        self._queued = 0  # bytes in _out
        self._cond = threading.Condition()
        self._finishing = False  # the reader is done: write what is queued, then stop
        self._writer = threading.Thread(target=self._write_loop, daemon=True,
                                        name=f"baremobile-daemon-write-{number}")
        self._writer.start()

    def send(self, message: dict[str, Any], *, wait: bool = False) -> bool:
        """Queue ``message`` for the client (False when the connection is closed). Never
        blocks, but for ``wait=True`` — the connection's own reader — which waits while
        much is queued."""
        data = encoded(message)
        with self._cond:
            if wait:
                while self._queued > HIGH_WATER and not self.closed:
                    self._cond.wait()
            if self.closed:
                return False
            if self._queued + len(data) > MAX_QUEUED and self._out:
                log.info("connection %d: dropping it, %d bytes of answers are not read",
                         self.number, self._queued)
                self._drop_locked()
                return False
            self._out.append(data)
            self._queued += len(data)
            self._cond.notify_all()
        return True

    def _write_loop(self) -> None:
        while True:
            with self._cond:
                while not self._out and not self.closed and not self._finishing:
                    self._cond.wait()
                if self.closed or not self._out:
                    return
                data = self._out[0]
            try:
                self.sock.sendall(data)
            except OSError as exc:
                # not read for the send timeout, or gone: drop it (the shutdown wakes its
                # reader, which cancels what it still has running)
                log.info("connection %d: dropping it, a send failed (%s)", self.number, exc)
                with self._cond:
                    self._drop_locked()
                return
            with self._cond:
                if self.closed:  # dropped while sending: the queue was emptied meanwhile
                    return
                self._out.popleft()
                self._queued -= len(data)
                self._cond.notify_all()

    def _drop_locked(self) -> None:
        self.closed = True
        self._out.clear()
        self._queued = 0
        self._cond.notify_all()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def run(self) -> None:
        buf = proto.LineBuffer()
        try:
            while True:
                try:
                    data = self.sock.recv(256 * 1024)
                except OSError:
                    data = b""
                if not data:
                    break
                for line in buf.feed(data):
                    self.handle(line)
            self.hang_up()
        finally:
            self.server.disconnected(self)

    def handle(self, line: bytes | proto.Oversized) -> None:
        if isinstance(line, proto.Oversized):
            self.send(proto.failure(None, "LINE_TOO_LONG",
                                    f"a request line of more than {proto.MAX_LINE} bytes",
                                    "send large data in smaller pieces", "INVALID_ARGUMENT"),
                      wait=True)
            return
        if not line.strip():
            return  # an empty line is no request
        try:
            req = proto.parse_request(line)
        except proto.ProtocolFault as fault:
            self.send(failure_for(fault.request_id, fault), wait=True)
            return
        self.server.dispatch(self, req)

    def hang_up(self) -> None:
        """The client sent EOF: when it is gone for good, stop what it asked for; when it
        only closed its sending side, let its requests finish and answer them."""
        gone = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            poller = select.poll()
            poller.register(self.sock, select.POLLOUT)
            events = poller.poll(0)
            gone = any(ev & (select.POLLHUP | select.POLLERR) for _, ev in events)
        with self.lock:
            pending = list(self.pending)
        if gone:
            for p in pending:
                p.cancel("the client disconnected")
            return
        # until every answer is queued (the daemon stopping cancels them: a grace to do so)
        deadline = None
        while True:
            with self.lock:
                if not self.pending:
                    return
            if self.server.stopping.is_set():
                deadline = deadline or time.monotonic() + SHUTDOWN_GRACE
                if time.monotonic() > deadline:
                    return
            self.done.wait(0.1)
            self.done.clear()

    def stop_reading(self) -> None:
        """The daemon is stopping: read what the client already sent (each request answered,
        ``CANCELLED``), then end as at the client's EOF — every answer queued is sent."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RD)

    def finish(self, timeout: float) -> None:
        """The reader is done: let the writer send what is queued (for at most ``timeout``
        seconds), then close."""
        with self._cond:
            self._finishing = True
            self._cond.notify_all()
        self._writer.join(timeout)
        self.close()

    def close(self) -> None:
        # the writer sends outside the lock, so taking it never waits behind a client that
        # does not read; the shutdown wakes that send
        with self._cond:
            self._drop_locked()
        with contextlib.suppress(OSError):
            self.sock.close()


# ---------------------------------------------------------------------------------------
# the server
# ---------------------------------------------------------------------------------------


def _timeval(seconds: float) -> bytes:
    """``struct timeval`` for ``SO_SNDTIMEO``; a fraction of a second is kept (0 s would
    mean no timeout at all)."""
    whole = int(seconds)
    micro = round((seconds - whole) * 1_000_000)
    return struct.pack("ll", whole, micro or (0 if whole else 1))


class DaemonServer:
    """The daemon on ``sock_path`` around ``hub``. :meth:`start` binds (refusing when
    another daemon owns the socket), :meth:`serve` runs until :meth:`stop_soon` or idleness."""

    def __init__(
        self,
        hub: Hub,
        sock_path: str | None = None,
        *,
        idle_timeout: float | None = 900.0,
        version: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_connections: int = MAX_CONNECTIONS,
        send_timeout: float = SEND_TIMEOUT,
        automobile: Any = None,
    ) -> None:
        from baremobile import __version__

        self.hub = hub
        self.path = sock_path or paths.socket_path()
        self.idle_timeout = idle_timeout if idle_timeout and idle_timeout > 0 else None
        self.version = version or __version__
        self.clock = clock
        self.max_connections = max_connections
        self.send_timeout = send_timeout
        self.stopping = threading.Event()
        self.stop_reason = ""
        self._listener: socket.socket | None = None
        self._lockfile: int | None = None
        self._inode: int | None = None
        self._conns: set[Connection] = set()
        self._pending: set[Pending] = set()
        self._mutex = threading.Lock()
        #: told when a request is answered or a connection ends (the shutdown waits on it)
        self._settled = threading.Condition(self._mutex)
        self._numbers = itertools.count(1)
        self._last_activity = clock()
        self._deadlines: Deadlines | None = None
        self.started = time.time()
        #: AutoMobile's endpoint (``automobile.Endpoint``), opened by :meth:`start`
        self.automobile = automobile
        #: AutoMobile's ``debug`` feature flag (its debug-only tools listed)
        self.automobile_debug = False

    # -- lifecycle --------------------------------------------------------------------
    def start(self) -> DaemonServer:
        paths.ensure_directory(self.path)
        self._lockfile = paths.open_side_file(paths.lock_path(self.path), os.O_RDWR)
        try:
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lockfile)
            self._lockfile = None
            raise DaemonError(f"another daemon is running on {self.path}",
                              hint="stop it first (baremobile daemon stop), or set "
                                   f"${paths.ENV_SOCKET} to use another socket") from None
        if self.automobile is not None:  # never over a live AutoMobile daemon: checked
            try:
                self.automobile.open(self.version)
            except BaseException:
                self._unlock()
                raise
        # we hold the lock, so no live daemon listens here: a socket file is stale
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        try:
            listener, self._inode = paths.bind_private(self.path)
        except DaemonError:
            if self.automobile is not None:
                self.automobile.close()
            self._unlock()
            raise
        self.started = time.time()
        # the metadata exists before anyone can connect (clients read it first)
        paths.write_metadata(self.path, {
            "pid": os.getpid(), "version": self.version, "protocol": PROTOCOL_VERSION,
            "startedAt": int(self.started * 1000), "socket": self.path,
        })
        listener.listen(64)
        self._listener = listener
        self._deadlines = Deadlines()
        self._last_activity = self.clock()
        log.info("baremobile daemon %s listening on %s (pid %d)", self.version, self.path,
                 os.getpid())
        if self.automobile is not None:
            log.info("AutoMobile's endpoint on %s (pid file %s)", self.automobile.path,
                     self.automobile.pid_file)
        return self

    def serve(self) -> str:
        """Accept connections until stopped; returns why it stopped."""
        assert self._listener is not None, "start() first"
        try:
            while not self.stopping.is_set():
                listeners = [self._listener]
                if self.automobile is not None and self.automobile.listener is not None:
                    listeners.append(self.automobile.listener)
                try:
                    ready, _, _ = select.select(listeners, [], [], 0.2)
                except (OSError, ValueError):
                    break
                for listener in ready:
                    self._accept(listener)
                self._check_idle()
        finally:
            self._shutdown()
        return self.stop_reason

    def stop_soon(self, reason: str) -> None:
        if not self.stopping.is_set():
            self.stop_reason = reason
            log.info("stopping: %s", reason)
            self.stopping.set()

    def _check_idle(self) -> None:
        if self.idle_timeout is None:
            return
        with self._mutex:
            busy = bool(self._conns or self._pending)
            if busy:
                self._last_activity = self.clock()
                return
            idle = self.clock() - self._last_activity
        if idle >= self.idle_timeout:
            self.stop_soon(f"idle for {idle:.0f} s (--idle-timeout {self.idle_timeout:g})")

    def _accept(self, listener: socket.socket) -> None:
        vocabulary = "automobile" if listener is not self._listener else None
        try:
            sock, _ = listener.accept()
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EINTR):
                log.warning("accept failed: %s", exc)
            return
        refusal = None
        uid = paths.peer_uid(sock)
        if uid is not None and uid != os.getuid():
            refusal = proto.failure(None, "PEER_REFUSED", f"uid {uid} may not use the daemon "
                                    f"of uid {os.getuid()}", "run baremobile as that user",
                                    "DAEMON")
            log.warning("refused a peer of uid %d", uid)
        with self._mutex:
            if refusal is None and len(self._conns) >= self.max_connections:
                refusal = proto.failure(None, "DAEMON_BUSY", f"the daemon already serves "
                                        f"{len(self._conns)} connections",
                                        "close idle connections and retry", "DAEMON")
            if refusal is None:
                conn = Connection(self, sock, next(self._numbers), vocabulary)
                self._conns.add(conn)
                self._last_activity = self.clock()
        if refusal is not None:
            with contextlib.suppress(OSError):
                sock.settimeout(1.0)
                sock.sendall(proto.encode(refusal))
            sock.close()
            return
        sock.settimeout(None)
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                            _timeval(self.send_timeout))
        threading.Thread(target=conn.run, name=f"baremobile-daemon-conn-{conn.number}",
                         daemon=True).start()

    def disconnected(self, conn: Connection) -> None:
        conn.finish(self.send_timeout)
        with self._mutex:
            self._conns.discard(conn)
            self._last_activity = self.clock()
            self._settled.notify_all()

    def finished(self, pending: Pending) -> None:
        with pending.conn.lock:
            pending.conn.pending.discard(pending)
        pending.conn.done.set()
        with self._mutex:
            self._pending.discard(pending)
            self._last_activity = self.clock()
            self._settled.notify_all()
        ms = (time.monotonic() - pending.started) * 1000
        log.debug("%s %r answered in %.1f ms", pending.req.method, pending.req.id, ms)

    def _shutdown(self) -> None:
        if not self.stopping.is_set():  # the listener failed: no new request from here on
            self.stop_soon("the listening socket failed")
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
            self._listener = None
        if paths.unlink_if_ours(self.path, self._inode):
            with contextlib.suppress(OSError):
                os.unlink(paths.metadata_path(self.path))
        if self.automobile is not None:
            self.automobile.close()
        self._unlock()  # a new daemon may start now; this one only winds down
        # every request the daemon read gets its answer, and every answer queued is sent:
        # cancel what runs (new requests are refused: _register), wait until each answer
        # is queued (a worker may have claimed its answer and not queued it yet), then let
        # each reader take what its client sent and end as at EOF, its writer sending what
        # is queued — within a grace, after which what is left is closed
        with self._mutex:
            pending = list(self._pending)
        for p in pending:
            p.cancel("the daemon is shutting down")
        deadline = time.monotonic() + SHUTDOWN_GRACE
        with self._settled:
            while self._pending and self._settled.wait(max(0.0, deadline - time.monotonic())):
                pass
            conns = list(self._conns)
        for c in conns:
            c.stop_reading()
        with self._settled:
            while self._conns and self._settled.wait(max(0.0, deadline - time.monotonic())):
                pass
            conns = list(self._conns)
        for c in conns:
            c.close()
        if self._deadlines is not None:
            self._deadlines.stop()
        self.hub.close()
        log.info("stopped (%s)", self.stop_reason or "closed")

    def _unlock(self) -> None:
        if self._lockfile is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lockfile, fcntl.LOCK_UN)
                os.close(self._lockfile)
            self._lockfile = None

    # -- requests ---------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        with self._mutex:
            conns, in_flight = len(self._conns), len(self._pending)
        return {
            "version": self.version, "protocol": PROTOCOL_VERSION, "pid": os.getpid(),
            "socket": self.path, "log": paths.log_path(self.path),
            "startedAt": int(self.started * 1000),
            "uptimeMs": int((time.time() - self.started) * 1000),
            "idleTimeoutS": self.idle_timeout, "connections": conns,
            "requestsInFlight": in_flight,
            "automobile": self.automobile.describe() if self.automobile is not None else None,
            **self.hub.status(),
        }

    def dispatch(self, conn: Connection, req: proto.Request) -> None:
        methods = AUTOMOBILE_METHODS if conn.vocabulary == "automobile" else METHODS
        method = methods.get(req.method)
        if method is None:
            conn.send(failure_for(req.id, UnknownMethod(
                f"Unsupported daemon method: {req.method}" if conn.vocabulary else
                f"there is no method {req.method!r}",
                hint="methods: " + ", ".join(methods))), wait=True)
            return
        if not method.device:  # answered at once, in this reader thread
            try:
                answer = proto.success(req.id, method.handler(self, req.params, conn))
            except Exception as exc:
                answer = failure_for(req.id, exc, req.params)
            conn.send(answer, wait=True)
            return
        pending = Pending(conn, req)
        pending.work = Call(lambda: method.handler(self, req.params, pending),
                            f"{req.method} {req.id!r}")
        if not self._register(pending):
            return
        try:
            floor = method.floor(self, req.params) if method.floor is not None else 0
            timeout_ms = max(req.timeout_ms or proto.DEFAULT_TIMEOUT_MS, floor)
        except Exception as exc:
            pending.fail(exc)
            return
        assert self._deadlines is not None
        self._deadlines.add(pending.started + timeout_ms / 1000, pending)
        if req.params.get("announceDeadline") is True:  # the client waits this long
            conn.send(proto.deadline(req.id, timeout_ms))
        threading.Thread(target=self._work, args=(pending, method),
                         name=f"baremobile-daemon-{req.method}", daemon=True).start()

    def _register(self, pending: Pending) -> bool:
        conn, req = pending.conn, pending.req
        with self._mutex:
            stopping = self.stopping.is_set()  # under the lock the shutdown reads them with
            busy = not stopping and len(self._pending) >= MAX_IN_FLIGHT
            if not stopping and not busy:
                self._pending.add(pending)
        if stopping:
            pending.cancel("the daemon is shutting down")
            return False
        if busy:
            conn.send(proto.failure(req.id, "DAEMON_BUSY", f"{MAX_IN_FLIGHT} requests are "
                                    "already running", "retry in a moment", "BUSY"), wait=True)
            return False
        with conn.lock:
            conn.pending.add(pending)
        return True

    def _work(self, pending: Pending, method: Method) -> None:
        req = pending.req
        call = pending.work
        assert call is not None
        try:
            message = proto.success(req.id, call())  # under the request's cancel token
        except Exception as exc:
            message = failure_for(req.id, exc, req.params)
        if not pending.answer(message):
            late = ("completed after the caller's request already timed out"
                    if pending.outcome == "TIMEOUT" else
                    "completed after its request was already answered")
            log.warning("%s %r %s (%s); result dropped: %s", req.method, req.id, late,
                        call.cancelled, short(message))


# ---------------------------------------------------------------------------------------
# running it
# ---------------------------------------------------------------------------------------


def run(hub: Hub, sock_path: str | None = None, *, idle_timeout: float | None = 900.0,
        install_signals: bool = True, automobile: Any = None) -> str:
    """Start the daemon and serve until stopped (SIGTERM/SIGINT stop it cleanly);
    ``automobile``: AutoMobile's endpoint beside (``automobile.Endpoint``)."""
    server = DaemonServer(hub, sock_path, idle_timeout=idle_timeout,
                          automobile=automobile).start()
    if install_signals and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, lambda num, frame: server.stop_soon(
                f"signal {signal.Signals(num).name}"))
    return server.serve()
