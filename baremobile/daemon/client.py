"""The daemon's client: connect (starting the daemon on demand), check versions, call.

This is what every CLI session verb runs, once per process, so it imports almost nothing
(:mod:`socket`, :mod:`json`, :mod:`os`; :mod:`subprocess` only to start a daemon) and none
of the device stack.

>>> from baremobile.daemon.client import Client
>>> with Client() as c:                                            # doctest: +SKIP
...     c.request("tools/call", {"name": "press", "arguments": {"key": "back"}})

The version handshake follows AutoMobile's stdio proxy (see :meth:`Client._handshake`):
before the first request the client reads the running daemon's version (the metadata file
beside the socket, else ``daemon/ping``). Same version: go on. The client is newer: it
restarts the daemon — unless auto-start/restart is off (``autostart=False``,
``$BAREMOBILE_DAEMON_AUTOSTART=0``) or the daemon started less than ``cooldown`` seconds ago
(so that clients of two versions cannot keep restarting one daemon): then it fails, naming
both. The daemon is newer, or either version is not plain release numbers: it fails,
naming both.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import sys
import time
from collections.abc import Callable

from baremobile.daemon import paths
from baremobile.daemon import protocol as proto
from baremobile.daemon.errors import DaemonUnavailable, VersionMismatch
from baremobile.errors import BaremobileError, InvalidArgument
from baremobile.safetext import problem

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFAULT_COOLDOWN", "ENV_AUTOSTART", "Client", "RemoteError", "daemon_env"]

#: ``0``/``false``: never start or restart a daemon (AutoMobile's "auto-start/restart
#: disabled"): a missing daemon is ``DAEMON_UNAVAILABLE``, another version ``VERSION_MISMATCH``
ENV_AUTOSTART = "BAREMOBILE_DAEMON_AUTOSTART"
#: seconds a daemon must have run before a newer client may restart it
DEFAULT_COOLDOWN = 10.0
#: seconds to wait for a daemon being started to answer
START_TIMEOUT = 30.0
#: extra seconds a client waits beyond a request's timeoutMs before giving up on the daemon
_GRACE = 10.0
_IDS = itertools.count(1)


class RemoteError(BaremobileError):
    """An error the daemon answered with: its code, message, hint and category."""

    def __init__(self, response: dict[str, Any]) -> None:
        super().__init__(str(response.get("error") or "the daemon reported an error"),
                         hint=str(response.get("hint") or ""))
        self.code = str(response.get("code") or "ERROR")
        self.category = str(response.get("category") or self.code)
        self.response = response


def daemon_env() -> dict[str, str]:
    """The environment a daemon started by this client gets (this process's)."""
    return dict(os.environ)


class Client:
    """One connection to the daemon (opened on the first request; reused after)."""

    def __init__(
        self,
        sock_path: str | None = None,
        *,
        version: str | None = None,
        autostart: bool = True,
        handshake: bool = True,
        cooldown: float | None = None,
        start_timeout: float = START_TIMEOUT,
        start_args: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        if version is None:
            from baremobile import __version__

            version = __version__
        self.path = sock_path or paths.socket_path()
        self.version = version
        if os.environ.get(ENV_AUTOSTART, "").strip().lower() in ("0", "false", "no", "off"):
            autostart = False
        self.autostart = autostart
        self.handshake = handshake
        if cooldown is None:
            raw = os.environ.get("BAREMOBILE_DAEMON_RESTART_COOLDOWN", "")
            try:
                cooldown = float(raw) if raw else DEFAULT_COOLDOWN
            except ValueError:
                cooldown = DEFAULT_COOLDOWN
        self.cooldown = cooldown
        self.start_timeout = start_timeout
        self.start_args = list(start_args or [])
        self.env = env
        self._sock: socket.socket | None = None
        self._buf = proto.LineBuffer(limit=1 << 30)
        self._lines: list[bytes | proto.Oversized] = []
        self.started_daemon = False  #: this client started the daemon it talks to

    # -- connecting -------------------------------------------------------------------
    def _dial(self) -> socket.socket | None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.path)
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            return None
        except OSError as exc:
            sock.close()
            raise DaemonUnavailable(f"cannot reach the daemon at {self.path}: "
                                    f"{exc.strerror or exc}") from None
        try:
            paths.check_daemon_peer(sock, self.path)
        except BaseException:
            sock.close()
            raise
        return sock

    def connect(self) -> socket.socket:
        """The connection, made (and the daemon started, and versions checked) if needed."""
        if self._sock is not None:
            return self._sock
        sock = self._dial()
        if sock is None:
            if not self.autostart:
                raise DaemonUnavailable(f"no daemon is running on {self.path}",
                                        hint="start one: baremobile daemon start")
            sock = self._start()
        self._sock = sock
        if not self.handshake:
            return sock
        try:
            self._handshake()
        except BaseException:
            self.close()
            raise
        assert self._sock is not None
        return self._sock

    def _handshake(self) -> None:
        """AutoMobile's version rules, as its document writes them: the same version goes
        on; a newer client restarts an older daemon — only when auto-start/restart is on
        and the daemon has run longer than the cooldown; a newer daemon, restarts turned
        off, a daemon inside the cooldown, or a version that is not plain release numbers
        (a pre-release tag such as ``.dev0``, ``unknown``: the order is ambiguous) fail
        before any request, naming both versions. A daemon whose metadata has no version is
        stale: restarted when restarts are allowed."""
        from baremobile.daemon.versions import numeric_compare

        theirs, started_ms = self._daemon_version()
        if theirs == self.version:
            return
        shown = theirs if theirs is not None else "(no version in its metadata)"
        both = f"this client is baremobile {self.version}, the running daemon {shown}"
        replace = "use the same baremobile version for both (check which 'baremobile' " \
                  "runs), or replace the daemon: baremobile daemon stop"
        if theirs is not None:
            order = numeric_compare(self.version, theirs)
            if order is None or order < 0:
                why = ("the daemon is newer" if order is not None else
                       "a version that is not plain release numbers has no order")
                raise VersionMismatch(f"{both} ({why})", hint=replace)
        if not self.autostart:
            raise VersionMismatch(f"{both}; auto-start/restart is disabled, so the client "
                                  "does not replace it", hint=replace)
        if self.started_daemon:
            raise VersionMismatch(f"{both}, even after restarting it",
                                  hint="the daemon is started from another installation: "
                                       "check sys.executable and PATH")
        age = time.time() - started_ms / 1000 if started_ms else float("inf")
        if age < self.cooldown:
            raise VersionMismatch(f"{both}; it started {age:.0f} s ago, within the "
                                  f"{self.cooldown:g} s restart cooldown",
                                  hint=f"retry in {self.cooldown - age:.0f} s, or restart it "
                                       "yourself: baremobile daemon stop")
        self._restart(shown)

    def _daemon_version(self) -> tuple[str | None, int | None]:
        """The running daemon's version and start time from its metadata (None: missing);
        a daemon whose metadata file is gone is asked (``daemon/ping``)."""
        meta = paths.read_metadata(self.path)  # checked: None when malformed
        if meta and _alive(meta.get("pid")):
            version = meta.get("version")
            started = meta.get("startedAt")
            return (version if isinstance(version, str) and version.strip() else None,
                    started if isinstance(started, int) else None)
        result = self._call("daemon/ping", {}, 5000)  # no metadata: ask
        version = result.get("version") if isinstance(result, dict) else None
        return (version if isinstance(version, str) and version.strip() else None), None

    def _restart(self, old: str) -> None:
        with contextlib.suppress(BaremobileError, OSError):
            self._call("daemon/shutdown", {}, 5000)
        self.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # wait for the old one to let go of the socket
            sock = self._dial()
            if sock is None:
                break
            sock.close()
            time.sleep(0.05)
        else:
            raise VersionMismatch(f"the daemon ({old}) did not stop for this newer client "
                                  f"({self.version})",
                                  hint="stop it yourself: baremobile daemon stop")
        self._sock = self._start()
        self._handshake()

    def _start(self) -> socket.socket:
        """Start a daemon in the background and connect to it."""
        import subprocess

        paths.ensure_directory(self.path)
        log = paths.log_path(self.path)
        env = dict(self.env if self.env is not None else daemon_env())
        env[paths.ENV_SOCKET] = self.path
        argv = [sys.executable, "-m", "baremobile.daemon", *self.start_args]
        deadline = time.monotonic() + self.start_timeout
        proc = None
        while True:
            if proc is None or proc.poll() == 0:
                # (again, when the last one found another daemon's lock and left, and that
                # daemon is gone too: it was shutting down)
                err = paths.open_log(self.path)  # no symlink followed, ours, 0600
                try:
                    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=err,
                                            stderr=err, env=env, close_fds=True,
                                            start_new_session=True)
                finally:
                    os.close(err)
                self.started_daemon = True
            sock = self._dial()
            if sock is not None:
                return sock
            code = proc.poll()
            if code is not None and code != 0:
                raise DaemonUnavailable(f"the daemon did not start (exit status {code}): "
                                        f"{_tail(log)}",
                                        hint=f"its log is {log}")
            if time.monotonic() > deadline:
                raise DaemonUnavailable(f"the daemon did not answer within "
                                        f"{self.start_timeout:g} s of starting",
                                        hint=f"its log is {log}")
            time.sleep(0.02)

    # -- calling ----------------------------------------------------------------------
    def request(self, method: str, params: dict[str, Any] | None = None, *,
                timeout_ms: float | None = None,
                on_progress: Callable[[int, int | None], None] | None = None) -> Any:
        """Send one request and return its result; raises :class:`RemoteError` with the
        daemon's code, message and hint when it answers ``success: false``."""
        self.connect()
        return self._call(method, params or {}, timeout_ms, on_progress)

    def _call(self, method: str, params: dict[str, Any], timeout_ms: float | None,
              on_progress: Callable[[int, int | None], None] | None = None) -> Any:
        sock = self._sock
        assert sock is not None
        why = problem(params, where="params")
        if why is not None:  # e.g. a command line holding bytes that are not UTF-8
            raise InvalidArgument(f"{method} cannot be sent: {why}",
                                  hint="pass text that is valid UTF-8, finite numbers, and "
                                       "data nested at most a few levels")
        if method in ("tools/call", "tools/list") and "format" not in params:
            # the daemon answers MCP's shapes by default (a client written to AutoMobile's
            # document reads them); this client and its callers use our own
            params = {**params, "format": "baremobile"}
        # the daemon says what deadline it gave a request that reaches a device (the tool's
        # floor may raise it: baremobile.timeouts); until then, what was asked
        params = {**params, "announceDeadline": True}
        rid = f"{os.getpid()}-{next(_IDS)}"
        message: dict[str, Any] = {"id": rid, "type": "daemon_request", "method": method,
                                   "params": params}
        if timeout_ms is not None:
            message["timeoutMs"] = timeout_ms
        wait = (timeout_ms or proto.DEFAULT_TIMEOUT_MS) / 1000 + _GRACE
        try:
            sock.settimeout(wait)
            sock.sendall(proto.encode(message))
            while True:
                reply = self._read_line(sock)
                if reply.get("id") != rid and reply.get("id") is not None:
                    continue  # not ours (cannot happen on a private connection)
                if reply.get("type") == proto.DEADLINE_TYPE:
                    ms = reply.get("deadlineMs")
                    if isinstance(ms, (int, float)) and not isinstance(ms, bool):
                        wait = float(ms) / 1000 + _GRACE
                        sock.settimeout(wait)
                    continue
                if reply.get("type") == proto.PROGRESS_TYPE:
                    info = reply.get("progress") or {}
                    if on_progress is not None:
                        on_progress(int(info.get("done") or 0), info.get("total"))
                    continue
                break
        except TimeoutError:
            self.close()
            raise DaemonUnavailable(f"the daemon did not answer {method} within {wait:g} s",
                                    hint="it may be stuck: baremobile daemon stop, then "
                                         "retry") from None
        except OSError as exc:
            self.close()
            raise DaemonUnavailable(f"the connection to the daemon broke during {method}: "
                                    f"{exc.strerror or exc}",
                                    hint="retry; if it keeps failing, see the daemon's log "
                                         "(baremobile daemon status)") from None
        if not reply.get("success"):
            raise RemoteError(reply)
        return reply.get("result")

    def _read_line(self, sock: socket.socket) -> dict[str, Any]:
        while not self._lines:
            data = sock.recv(1 << 20)
            if not data:
                raise ConnectionResetError(0, "the daemon closed the connection")
            self._lines.extend(self._buf.feed(data))
        line = self._lines.pop(0)
        if isinstance(line, proto.Oversized):  # pragma: no cover - a 1 GiB line
            raise ConnectionResetError(0, "the daemon's answer is too long")
        try:
            return proto.parse_response(line)
        except proto.ProtocolFault as fault:
            raise DaemonUnavailable(fault.message, hint=fault.hint) from None

    def abort(self) -> None:
        """Cut the connection from any thread (a request in flight fails at once; the
        daemon sees the hang-up and cancels that request's device work)."""
        sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Close the connection to the daemon (the sessions it holds stay, until their TTL)."""
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
            self._lines.clear()
            self._buf = proto.LineBuffer(limit=1 << 30)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _alive(pid: Any) -> bool:
    """Whether process ``pid`` runs (a zombie no longer does: it exited, unreaped)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _tail(path: str, lines: int = 3) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()[-4000:]
    except OSError:
        return "(no log)"
    got = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return " | ".join(got) or "(empty log)"
