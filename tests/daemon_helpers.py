"""Helpers for the daemon tests: run the CLI as a shell agent does (one process per command),
talk to a daemon over a raw socket, and run a daemon in this process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from baremobile.daemon.hub import Hub
from baremobile.daemon.server import DaemonServer

_PYCACHE = Path(os.environ.get("TMPDIR", "/tmp")) / f"bm-test-pycache-{os.getuid()}"


def cli_env(**extra: str) -> dict[str, str]:
    """This process's environment (the test's private daemon socket included), with bytecode
    caching on in a private cache (each CLI process would otherwise recompile the package)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(_PYCACHE), **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cli(*args: str, cwd: Path | str | None = None, env: dict[str, str] | None = None,
        timeout: float = 120, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """``baremobile ARGS`` as its own process."""
    return subprocess.run([sys.executable, "-m", "baremobile", *args], cwd=cwd,
                          env=env or cli_env(), capture_output=True, text=True,
                          timeout=timeout, input=input, stdin=None if input else
                          subprocess.DEVNULL)


def ok(*args: str, **kw: Any) -> str:
    r = cli(*args, **kw)
    assert r.returncode == 0, f"baremobile {' '.join(args)} -> {r.returncode}: {r.stderr}"
    return r.stdout


class RawClient:
    """A bare NDJSON client: what a test (or netcat) sends is exactly what goes out — but
    for ``tools/*``, which get ``"format": "baremobile"`` unless the test names a format:
    these tests read our own result shape, as ``baremobile.daemon.client.Client`` asks for
    it (the MCP shapes, the default, are ``test_daemon_automobile.py``'s)."""

    def __init__(self, path: str, timeout: float = 60, *, shape: str | None = "baremobile"
                 ) -> None:
        self.shape = shape
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, message: dict[str, Any]) -> None:
        params = message.get("params")
        if self.shape and message.get("method") in ("tools/call", "tools/list") and \
                isinstance(params, dict) and "format" not in params:
            message = {**message, "params": {**params, "format": self.shape}}
        self.send_raw(json.dumps(message).encode() + b"\n")

    def read(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError("the daemon closed the connection")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)

    def call(self, method: str, params: dict[str, Any] | None = None, rid: Any = "1",
             **extra: Any) -> dict[str, Any]:
        self.send({"id": rid, "type": "daemon_request", "method": method,
                   "params": params or {}, **extra})
        return self.read()

    def close(self) -> None:
        self.sock.close()


@contextmanager
def running_daemon(sock: str, **hub_options: Any) -> Iterator[DaemonServer]:
    """A daemon in this process (threads), stopped and joined afterwards."""
    hub_options.setdefault("discover", False)
    server_options = {k: hub_options.pop(k) for k in ("idle_timeout", "version", "clock",
                                                      "send_timeout", "automobile")
                      if k in hub_options}
    server_options.setdefault("idle_timeout", None)
    server = DaemonServer(Hub(**hub_options), sock, **server_options).start()
    thread = threading.Thread(target=server.serve, name="test-daemon", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop_soon("test over")
        thread.join(30)
        assert not thread.is_alive(), "the daemon did not stop"


def wait_until(predicate: Any, timeout: float = 10.0) -> bool:
    """Poll ``predicate`` (every 20 ms) until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False
