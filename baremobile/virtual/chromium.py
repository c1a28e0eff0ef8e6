"""The virtual phone's web engine: a headless Chromium it starts, drives and stops.

The phone controls Chromium over ``--remote-debugging-pipe`` (file descriptors 3 and 4,
NUL-terminated JSON messages of the DevTools protocol in flat session mode), so it needs no
WebSocket code of its own; Chromium also listens on ``--remote-debugging-port=0`` (127.0.0.1,
a free port it writes to ``<user-data-dir>/DevToolsActivePort``), which is where the phone's
``localabstract:`` DevTools sockets lead (:mod:`baremobile.virtual.devtools`).

Where Chromium comes from: ``$BAREMOBILE_CHROMIUM``, else the first of ``chromium``,
``chromium-browser``, ``google-chrome`` on ``PATH`` (:func:`find_chromium`). It runs in a
session of its own (``setsid``) with a fresh user-data directory, and :meth:`Chromium.stop`
ends the whole session (the browser, its zygote and renderers) and removes the directory.
Every started engine is also stopped at interpreter exit, so none outlives the process.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "Chromium", "ChromiumError", "find_chromium", "live_processes", "CHROMIUM_ENV",
    "CHROMIUM_NAMES",
]

log = logging.getLogger("baremobile.virtual.chromium")

#: The environment variable naming the Chromium executable to use.
CHROMIUM_ENV = "BAREMOBILE_CHROMIUM"
#: What is looked up on ``PATH`` when the variable is not set, in this order.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")

#: Flags for a quiet, offline, throw-away headless browser (the network of a test machine
#: may be closed: nothing may phone home or wait for it).
_FLAGS = (
    "--headless",
    "--no-sandbox",  # root in containers; the pages are the tests' own
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--remote-debugging-pipe",
    "--remote-debugging-port=0",
)


class ChromiumError(RuntimeError):
    """Chromium could not be started, or answered a command with an error."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


def find_chromium(env: Mapping[str, str] | None = None) -> str | None:
    """The Chromium executable to use, or None: ``$BAREMOBILE_CHROMIUM`` (a path or a name on
    ``PATH``; empty disables the browser), else the first of :data:`CHROMIUM_NAMES` found."""
    env = os.environ if env is None else env
    if CHROMIUM_ENV in env:
        named = env[CHROMIUM_ENV].strip()
        if not named:
            return None
        return shutil.which(named, path=env.get("PATH")) or (
            named if os.path.isfile(named) and os.access(named, os.X_OK) else None)
    for name in CHROMIUM_NAMES:
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return found
    return None


_RUNNING: set[Chromium] = set()
_RUNNING_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    with _RUNNING_LOCK:
        engines = list(_RUNNING)
    for engine in engines:
        engine.stop()


class Chromium:
    """One headless Chromium process, driven over its DevTools pipe.

    :meth:`call` sends a command (``session`` for a page's flat session) and waits for its
    answer; :meth:`subscribe` receives every event. Thread-safe.
    """

    def __init__(self, executable: str, *, start_timeout: float = 30.0) -> None:
        self.executable = executable
        self.start_timeout = start_timeout
        self.pid: int | None = None
        self.port: int | None = None
        self.version: dict[str, Any] = {}
        self._dir: str | None = None
        self._wfd: int | None = None
        self._rfd: int | None = None
        self._ids = 0
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._pending: dict[int, list[Any]] = {}  # id -> [event, answer]
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._reader: threading.Thread | None = None
        self._dead = threading.Event()
        self._stopped = False

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.pid is not None and not self._dead.is_set()

    def start(self) -> Chromium:
        """Start the browser and wait until both DevTools channels answer (idempotent)."""
        if self.pid is not None:
            if self._dead.is_set():
                raise ChromiumError("Chromium exited")
            return self
        if not hasattr(os, "posix_spawn"):
            raise ChromiumError("the virtual phone's browser needs a POSIX system")
        self._dir = tempfile.mkdtemp(prefix="baremobile-chromium-")
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        devnull = os.open(os.devnull, os.O_RDWR)
        argv = [self.executable, *_FLAGS, f"--user-data-dir={self._dir}", "about:blank"]
        actions = [
            (os.POSIX_SPAWN_DUP2, devnull, 0),
            (os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2),
            (os.POSIX_SPAWN_DUP2, to_chrome_r, 3),
            (os.POSIX_SPAWN_DUP2, from_chrome_w, 4),
        ]
        try:
            self.pid = os.posix_spawn(self.executable, argv, dict(os.environ),
                                      file_actions=actions, setsid=True)
        except OSError as exc:
            for fd in (to_chrome_r, to_chrome_w, from_chrome_r, from_chrome_w):
                os.close(fd)
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
            raise ChromiumError(f"cannot start {self.executable}: {exc}") from exc
        finally:
            os.close(devnull)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._wfd, self._rfd = to_chrome_w, from_chrome_r
        with _RUNNING_LOCK:
            _RUNNING.add(self)
        try:
            self._reader = threading.Thread(target=self._read_loop, name="chromium-pipe",
                                            args=(from_chrome_r, self._dead), daemon=True)
            self._reader.start()
            self.version = self.call("Browser.getVersion", timeout=self.start_timeout)
            self.port = self._wait_for_port()
        except BaseException:
            self.stop()
            raise
        log.info("Chromium %s started (pid %d, DevTools port %d)",
                 self.version.get("product"), self.pid, self.port)
        return self

    def _wait_for_port(self) -> int:
        assert self._dir is not None
        path = os.path.join(self._dir, "DevToolsActivePort")
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline and not self._dead.is_set():
            with contextlib.suppress(OSError, ValueError, IndexError), open(
                    path, encoding="ascii") as f:
                return int(f.read().split()[0])
            time.sleep(0.02)
        raise ChromiumError("Chromium did not open its DevTools port")

    def stop(self) -> None:
        """End the browser's whole process session and remove its profile (idempotent)."""
        with _RUNNING_LOCK:
            _RUNNING.discard(self)
        pid = self.pid
        if pid is not None and not self._stopped:
            self._stopped = True
            with contextlib.suppress(ChromiumError, OSError):
                if not self._dead.is_set():
                    self.call("Browser.close", timeout=2.0)
            self._reap(pid)
        if self._reader is not None:
            self._reader.join(5.0)  # Chromium is gone: its end of the pipe is closed
            self._reader = None
        for fd in (self._wfd, self._rfd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._wfd = self._rfd = None
        self._dead.set()
        self._fail_pending("Chromium stopped")
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        if pid is not None:  # ready to be started again
            self.pid = self.port = None
            self._stopped = False
            self._dead = threading.Event()
            self._listeners.clear()

    @staticmethod
    def _reap(pid: int) -> None:
        """Wait for the browser; then end every process left in its session."""
        deadline = time.monotonic() + 5.0
        exited = False
        while time.monotonic() < deadline:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                exited = True
                break
            if done:
                exited = True
                break
            time.sleep(0.02)
        for sig, grace in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 3.0)):
            try:
                os.killpg(pid, sig)  # the group id is the browser's pid (setsid)
            except (ProcessLookupError, PermissionError):
                break
            if not exited:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
                exited = True
            if _group_gone(pid, grace):
                break


    # -- the pipe -----------------------------------------------------------------------
    def call(self, method: str, params: dict[str, Any] | None = None, *,
             session: str | None = None, timeout: float = 15.0) -> dict[str, Any]:
        """Send one command and wait for its result; errors raise :class:`ChromiumError`."""
        if self._dead.is_set() or self._wfd is None:
            raise ChromiumError("Chromium is not running")
        done = threading.Event()
        with self._lock:
            self._ids += 1
            mid = self._ids
            self._pending[mid] = [done, None]
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session is not None:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            with self._write_lock:
                view = memoryview(data)
                while view:
                    n = os.write(self._wfd, view)
                    view = view[n:]
        except OSError as exc:
            with self._lock:
                self._pending.pop(mid, None)
            raise ChromiumError(f"Chromium's pipe is closed ({exc})") from exc
        if not done.wait(timeout):
            with self._lock:
                self._pending.pop(mid, None)
            raise ChromiumError(f"{method}: no answer from Chromium within {timeout:g} s")
        with self._lock:
            answer = self._pending.pop(mid)[1]
        if "error" in answer:
            err = answer["error"]
            raise ChromiumError(f"{method}: {err.get('message')}", err.get("code"))
        result: dict[str, Any] = answer.get("result", {})
        return result

    def subscribe(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Call ``listener(message)`` for every event (on the pipe's reader thread)."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[dict[str, Any]], None]) -> None:
        """Stop calling ``listener``."""
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def _read_loop(self, fd: int, dead: threading.Event) -> None:
        buf = bytearray()
        try:
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                buf += chunk
                while True:
                    end = buf.find(b"\0")
                    if end < 0:
                        break
                    raw = bytes(buf[:end])
                    del buf[: end + 1]
                    self._dispatch(raw)
        except OSError:
            pass
        finally:
            dead.set()
            self._fail_pending("Chromium exited")

    def _dispatch(self, raw: bytes) -> None:
        try:
            msg = json.loads(raw)
        except ValueError:
            log.warning("unreadable message from Chromium: %r", raw[:200])
            return
        mid = msg.get("id")
        if mid is not None:
            with self._lock:
                slot = self._pending.get(mid)
                if slot is not None:
                    slot[1] = msg
                    slot[0].set()
            return
        for listener in list(self._listeners):
            try:
                listener(msg)
            except Exception:  # a listener must not kill the reader
                log.exception("Chromium event listener failed")

    def _fail_pending(self, why: str) -> None:
        with self._lock:
            for slot in self._pending.values():
                if slot[1] is None:
                    slot[1] = {"error": {"message": why}}
                slot[0].set()

    def __repr__(self) -> str:
        state = f"pid {self.pid}, port {self.port}" if self.running else "stopped"
        return f"<Chromium {self.executable} {state}>"


def live_processes(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that still run (zombies, which init reaps, are left out).

    Reads ``/proc`` where there is one; elsewhere any process of the group counts."""
    if not os.path.isdir("/proc/self"):
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return []
        return [pgid]
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z":
            alive.append(int(entry))
    return alive


def _group_gone(pgid: int, timeout: float) -> bool:
    """Wait until no process of group ``pgid`` runs any more."""
    deadline = time.monotonic() + timeout
    while live_processes(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True
