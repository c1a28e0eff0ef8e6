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
(the result, the timeout, or the cancellation), and lines that are not requests (bad JSON,
oversized, unknown method) each get one error response too (with ``id`` null when it
could not be read).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import heapq
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
from baremobile.daemon.hub import Hub, tool_list
from baremobile.daemon.sessions import Policy
from baremobile.errors import BaremobileError, InvalidArgument
from baremobile.tools.dispatch import error_data, tool_verbs
from baremobile.tools.spec import GROUPS
from baremobile.transport.progress import reporting

__all__ = ["DaemonServer", "Method", "METHODS"]

log = logging.getLogger("baremobile.daemon")

PROTOCOL_VERSION = 1
MAX_CONNECTIONS = 128
MAX_IN_FLIGHT = 256
#: a client that does not read its answers for this long is dropped
SEND_TIMEOUT = 30.0


# ---------------------------------------------------------------------------------------
# requests in flight
# ---------------------------------------------------------------------------------------


class _Pending:
    """One request: answered exactly once, however many parties try."""

    def __init__(self, conn: _Connection, req: proto.Request, work: Work | None) -> None:
        self.conn = conn
        self.req = req
        self.work = work
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self.answered = False

    def answer(self, message: dict[str, Any]) -> bool:
        with self._lock:
            if self.answered:
                return False
            self.answered = True
        self.conn.send(message)
        self.conn.server.finished(self)
        return True

    def fail(self, exc: BaseException) -> bool:
        return self.answer(_failure(self.req.id, exc))

    def cancel(self, reason: str, code: str = "CANCELLED") -> None:
        """Answer with ``code`` (if still unanswered) and stop the device work."""
        if self.work is not None:
            self.work.cancel(reason)
        self.answer(proto.failure(self.req.id, code, f"{self.req.method}: {reason}",
                                  _CANCEL_HINTS.get(code, ""),
                                  "TIMEOUT" if code == "TIMEOUT" else "CANCELLED"))


_CANCEL_HINTS = {
    "TIMEOUT": "the device may be slow or stuck: its work was stopped; take a new snapshot "
               "before acting again, or pass a longer timeoutMs",
    "CANCELLED": "its device work was stopped; take a new snapshot before acting again",
}


def _failure(request_id: Any, exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, proto.ProtocolFault):
        return proto.failure(request_id, exc.code, exc.message, exc.hint, "INVALID_ARGUMENT")
    data = error_data(exc)
    category = getattr(exc, "category", None) or data["category"]
    if not isinstance(exc, BaremobileError):
        log.error("request %r failed", request_id, exc_info=exc)
    return proto.failure(request_id, data["code"], data["message"], data["hint"], category)


class _Deadlines:
    """One thread that times requests out."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _Pending]] = []
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="baremobile-daemon-deadlines",
                                        daemon=True)
        self._thread.start()

    def add(self, when: float, pending: _Pending) -> None:
        with self._cond:
            heapq.heappush(self._heap, (when, next(self._seq), pending))
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    now = time.monotonic()
                    while self._heap and self._heap[0][2].answered:
                        heapq.heappop(self._heap)
                    if self._heap and self._heap[0][0] <= now:
                        break
                    self._cond.wait(None if not self._heap else self._heap[0][0] - now)
                if self._stopped:
                    return
                _, _, due = heapq.heappop(self._heap)
            ms = int((time.monotonic() - due.started) * 1000)
            due.cancel(f"no answer within {ms} ms (timeoutMs)", "TIMEOUT")


# ---------------------------------------------------------------------------------------
# connections
# ---------------------------------------------------------------------------------------


class _Connection:
    def __init__(self, server: DaemonServer, sock: socket.socket, number: int) -> None:
        self.server = server
        self.sock = sock
        self.number = number
        self._wlock = threading.Lock()
        self.closed = False
        self.pending: set[_Pending] = set()
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
            self.send(_failure(fault.request_id, fault))
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
# methods
# ---------------------------------------------------------------------------------------


class Method:
    """A daemon method: its handler, and whether it may touch a device (then it runs in a
    worker thread under a deadline)."""

    def __init__(self, handler: Callable[..., Any], *, device: bool = False,
                 doc: str = "") -> None:
        self.handler = handler
        self.device = device
        self.doc = doc


def _str(params: dict[str, Any], key: str, *, default: str | None = None,
         alt: str | None = None) -> str | None:
    value = params.get(key, params.get(alt) if alt else None)
    if value is None:
        return default
    if not isinstance(value, str):
        raise InvalidArgument(f"params.{key} must be a string, not {type(value).__name__}")
    return value


def _session_param(params: dict[str, Any]) -> str:
    return _str(params, "sessionId", alt="session", default="default") or "default"


def _policy(params: dict[str, Any]) -> Policy:
    groups = params.get("groups", list(GROUPS))
    if isinstance(groups, str):
        groups = [g.strip() for g in groups.split(",") if g.strip()]
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise InvalidArgument("params.groups must be a list of group names")
    allow = params.get("allowDevices")
    if allow is not None and (not isinstance(allow, list)
                              or not all(isinstance(a, str) for a in allow)):
        raise InvalidArgument("params.allowDevices must be a list of device specs")
    files_dir = _str(params, "filesDir")
    prefix = _str(params, "prefix", default="") or ""
    observe = params.get("observe")
    if observe is not None and not isinstance(observe, bool):
        raise InvalidArgument("params.observe must be true or false")
    return Policy(groups=tuple(groups), prefix=prefix, files_dir=files_dir,
                  allow_devices=tuple(allow) if allow is not None else None,
                  allow_scenarios=bool(params.get("allowScenarios", True)), observe=observe)


def _server_param(params: dict[str, Any]) -> tuple[str, int] | None:
    value = _str(params, "adbServer")
    if value is None:
        return None
    from baremobile.transport.server import parse_server_socket

    return parse_server_socket(value)


def _m_ping(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return {"ok": True, "timestamp": int(time.time() * 1000), "version": server.version}


def _m_status(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.status()


def _m_methods(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return {"methods": [{"name": n, "doc": m.doc} for n, m in METHODS.items()]}


def _m_available(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.available_devices()


def _m_refresh(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.refresh_devices()


def _m_session_info(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.session_info(_session_param(params))


def _m_open(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.open_session(_session_param(params), _str(params, "device"),
                                   _server_param(params))


def _m_release(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.release_session(_session_param(params))


def _m_tools_list(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    policy = _policy(params)
    return {"tools": tool_list(policy.groups, policy.prefix,
                               allow_eval=server.hub.allow_eval)}


def _m_tools_call(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    raise AssertionError("tools/call is dispatched by the server")  # pragma: no cover


def _m_cancel(server: DaemonServer, params: dict[str, Any], conn: _Connection) -> Any:
    target = params.get("requestId")
    with conn.lock:
        hits = [p for p in conn.pending if p.req.id == target and not p.answered]
    for p in hits:
        p.cancel("cancelled by the client")
    return {"cancelled": len(hits)}


def _m_shutdown(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    server.stop_soon("a client asked (daemon/shutdown)")
    return {"ok": True, "pid": os.getpid()}


METHODS: dict[str, Method] = {
    "daemon/ping": Method(_m_ping, doc="liveness and version"),
    "daemon/status": Method(_m_status, doc="version, uptime, sessions, devices"),
    "daemon/methods": Method(_m_methods, doc="this list"),
    "daemon/availableDevices": Method(_m_available, doc="the pool: devices, states, counts"),
    "daemon/refreshDevices": Method(_m_refresh, device=True,
                                    doc="re-discover devices, re-check those in error"),
    "daemon/openSession": Method(_m_open, device=True,
                                 doc="{sessionId, device?, adbServer?}: give a session a device"),
    "daemon/sessionInfo": Method(_m_session_info, doc="{sessionId}: a session's state"),
    "daemon/releaseSession": Method(_m_release, doc="{sessionId}: free its devices (idempotent)"),
    "daemon/cancel": Method(_m_cancel, doc="{requestId}: cancel a request of this connection"),
    "daemon/shutdown": Method(_m_shutdown, doc="stop the daemon"),
    "tools/list": Method(_m_tools_list, doc="{groups?, prefix?}: the tool table"),
    "tools/call": Method(_m_tools_call, device=True,
                         doc="{name, arguments, session?, groups?, filesDir?, …}: run a tool"),
}


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
        self._conns: set[_Connection] = set()
        self._pending: set[_Pending] = set()
        self._mutex = threading.Lock()
        self._numbers = itertools.count(1)
        self._last_activity = clock()
        self._deadlines: _Deadlines | None = None
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
        self._deadlines = _Deadlines()
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
                    ready, _, _ = select.select([self._listener], [], [], 0.2)
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
                conn = _Connection(self, sock, next(self._numbers))
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

    def disconnected(self, conn: _Connection) -> None:
        conn.close()
        with self._mutex:
            self._conns.discard(conn)
            self._last_activity = self.clock()

    def finished(self, pending: _Pending) -> None:
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

    def dispatch(self, conn: _Connection, req: proto.Request) -> None:
        method = METHODS.get(req.method)
        if method is None:
            conn.send(_failure(req.id, UnknownMethod(
                f"there is no method {req.method!r}",
                hint="methods: " + ", ".join(METHODS))))
            return
        if not method.device:  # answered at once, in this reader thread
            try:
                conn.send(proto.success(req.id, method.handler(self, req.params, conn)))
            except Exception as exc:
                conn.send(_failure(req.id, exc))
            return
        work = Work(f"{req.method} {req.id!r}")
        pending = self._register(conn, req, work)
        if pending is None:
            return
        try:
            timeout_ms = max(req.timeout_ms or proto.DEFAULT_TIMEOUT_MS, self._floor(req))
        except Exception as exc:
            pending.fail(exc)
            return
        assert self._deadlines is not None
        self._deadlines.add(pending.started + timeout_ms / 1000, pending)
        threading.Thread(target=self._work, args=(pending, method),
                         name=f"baremobile-daemon-{req.method}", daemon=True).start()

    def _register(self, conn: _Connection, req: proto.Request,
                  work: Work | None) -> _Pending | None:
        pending = _Pending(conn, req, work)
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

    def _floor(self, req: proto.Request) -> int:
        if req.method != "tools/call":
            return 0
        return self.hub.floor_ms(req.params.get("name"), req.params.get("arguments"),
                                 req.params.get("session"))

    def _work(self, pending: _Pending, method: Method) -> None:
        req = pending.req
        try:
            if req.method == "tools/call":
                result = self._tools_call(pending)
            else:
                assert pending.work is not None
                result = pending.work.run(lambda: method.handler(self, req.params, pending.conn))
            message = proto.success(req.id, result)
        except Exception as exc:
            message = _failure(req.id, exc)
        if not pending.answer(message):
            log.warning("%s %r completed after its request was already answered (%s); "
                        "result dropped", req.method, req.id,
                        pending.work.cancelled if pending.work else "")

    def _tools_call(self, pending: _Pending) -> Any:
        params = pending.req.params
        name = params.get("name")
        if not isinstance(name, str):
            raise InvalidArgument("tools/call needs params.name (a tool name)",
                                  hint="tools/list lists them")
        arguments = params.get("arguments", {})
        session = _session_param(params)
        policy = _policy(params)
        with reporting(_progress_sender(pending) if params.get("progress") is True else None):
            result = self.hub.call_tool(session, name, arguments, policy, pending.work)
        if result.get("ok"):
            return result
        err = dict(result.get("error", {}))
        verbs = params.get("verbs")
        if isinstance(verbs, dict) and isinstance(err.get("hint"), str):
            err["hint"] = _reword(err["hint"], verbs, policy.prefix)
        raise _ToolFailed(err, result.get("tool", name))


def _reword(hint: str, verbs: dict[str, Any], prefix: str) -> str:
    """A tool error's hint in the client's words: the dispatcher names other verbs as tools
    (``the snapshot tool``); a client that sent its vocabulary (the CLI: ``baremobile
    snapshot``) gets them in its own."""
    for key, phrase in tool_verbs(prefix).items():
        mine = verbs.get(key)
        if isinstance(mine, str) and phrase in hint:
            hint = hint.replace(phrase, mine)
    return hint


def _progress_sender(pending: _Pending) -> Callable[[int, int | None], None]:
    """Progress notifications for ``pending`` (at most ten a second, and the last one)."""
    last = [0.0]

    def send(done: int, total: int | None) -> None:
        now = time.monotonic()
        if pending.answered or (now - last[0] < 0.1 and done != total):
            return
        last[0] = now
        pending.conn.send(proto.progress(pending.req.id, done, total))

    return send


class _ToolFailed(BaremobileError):
    """A tool answered ``ok: false``: its error travels as the response's error."""

    def __init__(self, err: dict[str, Any], tool: str) -> None:
        super().__init__(err.get("message", ""), hint=err.get("hint", ""))
        self.code = err.get("code", "INTERNAL_ERROR")
        self.category = err.get("category", self.code)
        self.tool = tool


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
