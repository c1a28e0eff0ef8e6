"""The daemon: a Unix-socket server speaking the NDJSON protocol, one hub behind it.

Threads: the main thread accepts connections (and notices idleness and shutdown); each
connection has a reader thread; every request that may touch a device runs in a worker
thread of its own, watched by one deadline thread. A reader never waits for a device, so a
stuck phone holds up only the requests on that phone: every other request — on other
devices, or the daemon's own methods — is answered as usual. A request that runs out of
time (``timeoutMs``, raised to the tool's floor) is answered ``TIMEOUT`` at once and its
device work is cancelled (:mod:`baremobile.daemon.cancel`); its late result is logged and
dropped. A client that hangs up (fully: the OS reports the hang-up) has its requests
cancelled the same way; one that only shuts its sending side still gets its answers.

Exactly one response per request: a request's responder lets only the first answer out
(the result, the timeout, or the cancellation: :mod:`baremobile.daemon.inflight`), and
lines that are not requests (bad JSON, oversized, unknown method) each get one error
response too (with ``id`` null when it could not be read). What each method does is
:mod:`baremobile.daemon.methods`.
"""

from __future__ import annotations

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

from baremobile.daemon import paths
from baremobile.daemon import protocol as proto
from baremobile.daemon.cancel import Work
from baremobile.daemon.errors import DaemonError, UnknownMethod
from baremobile.daemon.hub import Hub
from baremobile.daemon.inflight import Deadlines, Pending, failure_for
from baremobile.daemon.methods import METHODS, Method
from baremobile.transport.wire import wait_ready

__all__ = ["Connection", "DaemonServer", "run"]

log = logging.getLogger("baremobile.daemon")

PROTOCOL_VERSION = 1
MAX_CONNECTIONS = 128
MAX_IN_FLIGHT = 256
#: a client that does not read its answers for this long is dropped
SEND_TIMEOUT = 30.0


# ---------------------------------------------------------------------------------------
# connections
# ---------------------------------------------------------------------------------------


class Connection:
    """One client: its reader thread, its writes (one line at a time), its requests."""

    def __init__(self, server: DaemonServer, sock: socket.socket, number: int) -> None:
        self.server = server
        self.sock = sock
        self.number = number
        self._wlock = threading.Lock()
        self.closed = False
        self.pending: set[Pending] = set()
        self.lock = threading.Lock()
        self.done = threading.Event()

    def send(self, message: dict[str, Any]) -> bool:
        try:
            data = proto.encode(message)
        except (TypeError, ValueError) as exc:  # a result that is not JSON: a bug
            log.error("unencodable answer to %r: %s", message.get("id"), exc)
            data = proto.encode(proto.failure(message.get("id"), "INTERNAL_ERROR",
                                              f"the answer could not be encoded: {exc}"))
        with self._wlock:
            if self.closed:
                return False
            try:
                self.sock.sendall(data)
                return True
            except OSError as exc:
                # a client that does not read for send_timeout, or is gone: drop it (the
                # shutdown wakes its reader, which cancels what it still has running)
                log.info("connection %d: dropping it, a send failed (%s)", self.number, exc)
                self.closed = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        return False

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
                                    "send large data in smaller pieces", "INVALID_ARGUMENT"))
            return
        if not line.strip():
            return  # an empty line is no request
        try:
            req = proto.parse_request(line)
        except proto.ProtocolFault as fault:
            self.send(failure_for(fault.request_id, fault))
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
        for p in pending:
            while not p.answered and not self.server.stopping.is_set():
                self.done.wait(0.1)
                self.done.clear()

    def close(self) -> None:
        # shut down before taking the write lock: a send blocked on a client that does not
        # read holds it, and the shutdown is what wakes that send
        # shut down before taking the write lock: a send blocked on a client that does not
        # read holds it, and the shutdown is what wakes that send
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with self._wlock:
            self.closed = True
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
        self._numbers = itertools.count(1)
        self._last_activity = clock()
        self._deadlines: Deadlines | None = None
        self.started = time.time()

    # -- lifecycle --------------------------------------------------------------------
    def start(self) -> DaemonServer:
        paths.ensure_directory(self.path)
        self._lockfile = os.open(paths.lock_path(self.path), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lockfile)
            self._lockfile = None
            raise DaemonError(f"another daemon is running on {self.path}",
                              hint="stop it first (baremobile daemon stop), or set "
                                   f"${paths.ENV_SOCKET} to use another socket") from None
        # we hold the lock, so no live daemon listens here: a socket file is stale
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is born 0600: no window for others
        try:
            listener.bind(self.path)
        except OSError as exc:
            listener.close()
            self._unlock()
            raise DaemonError(f"cannot listen on {self.path}: {exc.strerror or exc}") from None
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        self._inode = os.stat(self.path).st_ino
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
        return self

    def serve(self) -> str:
        """Accept connections until stopped; returns why it stopped."""
        assert self._listener is not None, "start() first"
        try:
            while not self.stopping.is_set():
                try:
                    ready = wait_ready(self._listener, timeout=0.2)
                except (OSError, ValueError):
                    break
                if ready:
                    self._accept()
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

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            sock, _ = self._listener.accept()
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
                conn = Connection(self, sock, next(self._numbers))
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
        conn.close()
        with self._mutex:
            self._conns.discard(conn)
            self._last_activity = self.clock()

    def finished(self, pending: Pending) -> None:
        with pending.conn.lock:
            pending.conn.pending.discard(pending)
        pending.conn.done.set()
        with self._mutex:
            self._pending.discard(pending)
            self._last_activity = self.clock()
        ms = (time.monotonic() - pending.started) * 1000
        log.debug("%s %r answered in %.1f ms", pending.req.method, pending.req.id, ms)

    def _shutdown(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
            self._listener = None
        with contextlib.suppress(OSError):
            if self._inode is not None and os.stat(self.path).st_ino == self._inode:
                os.unlink(self.path)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(paths.metadata_path(self.path))
        self._unlock()  # a new daemon may start now; this one only winds down
        with self._mutex:
            pending = list(self._pending)
            conns = list(self._conns)
        for p in pending:
            p.cancel("the daemon is shutting down")
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
            "requestsInFlight": in_flight, **self.hub.status(),
        }

    def dispatch(self, conn: Connection, req: proto.Request) -> None:
        method = METHODS.get(req.method)
        if method is None:
            conn.send(failure_for(req.id, UnknownMethod(
                f"there is no method {req.method!r}",
                hint="methods: " + ", ".join(METHODS))))
            return
        if not method.device:  # answered at once, in this reader thread
            try:
                conn.send(proto.success(req.id, method.handler(self, req.params, conn)))
            except Exception as exc:
                conn.send(failure_for(req.id, exc))
            return
        work = Work(f"{req.method} {req.id!r}")
        pending = self._register(conn, req, work)
        if pending is None:
            return
        try:
            floor = method.floor(self, req.params) if method.floor is not None else 0
            timeout_ms = max(req.timeout_ms or proto.DEFAULT_TIMEOUT_MS, floor)
        except Exception as exc:
            pending.fail(exc)
            return
        assert self._deadlines is not None
        self._deadlines.add(pending.started + timeout_ms / 1000, pending)
        threading.Thread(target=self._work, args=(pending, method),
                         name=f"baremobile-daemon-{req.method}", daemon=True).start()

    def _register(self, conn: Connection, req: proto.Request,
                  work: Work | None) -> Pending | None:
        pending = Pending(conn, req, work)
        with self._mutex:
            if len(self._pending) >= MAX_IN_FLIGHT:
                busy = True
            else:
                busy = False
                self._pending.add(pending)
        if busy:
            conn.send(proto.failure(req.id, "DAEMON_BUSY", f"{MAX_IN_FLIGHT} requests are "
                                    "already running", "retry in a moment", "BUSY"))
            return None
        with conn.lock:
            conn.pending.add(pending)
        return pending

    def _work(self, pending: Pending, method: Method) -> None:
        req = pending.req
        assert pending.work is not None
        try:
            result = pending.work.run(lambda: method.handler(self, req.params, pending))
            message = proto.success(req.id, result)
        except Exception as exc:
            message = failure_for(req.id, exc)
        if not pending.answer(message):
            late = ("completed after the caller's request already timed out"
                    if pending.outcome == "TIMEOUT" else
                    "completed after its request was already answered")
            log.warning("%s %r %s (%s); result dropped: %s", req.method, req.id, late,
                        pending.work.cancelled, _short(message))


def _short(message: dict[str, Any]) -> str:
    """A late answer, for the log: what it said, in at most 300 characters."""
    import json

    text = json.dumps(message.get("result") if message.get("success") else
                      {"error": message.get("error"), "code": message.get("code")},
                      default=str)
    return text if len(text) <= 300 else text[:297] + "..."


# ---------------------------------------------------------------------------------------
# running it
# ---------------------------------------------------------------------------------------


def run(hub: Hub, sock_path: str | None = None, *, idle_timeout: float | None = 900.0,
        install_signals: bool = True) -> str:
    """Start the daemon and serve until stopped (SIGTERM/SIGINT stop it cleanly)."""
    server = DaemonServer(hub, sock_path, idle_timeout=idle_timeout).start()
    if install_signals and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, lambda num, frame: server.stop_soon(
                f"signal {signal.Signals(num).name}"))
    return server.serve()
