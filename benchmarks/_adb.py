"""Shared by the benchmarks: a free port off the emulator range, and a private adb server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

from baremobile.transport import ServerTransport
from baremobile.transport.server import AdbServerClient

__all__ = ["PrivateAdb", "free_port"]


def free_port() -> int:
    """A free TCP port on 127.0.0.1, outside adb's emulator range 5555–5585."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5586:
            return port


class PrivateAdb:
    """Debian's ``adb`` with its own server (own HOME, own port), connected to ``address``.

    ``PrivateAdb.available()`` says whether the binary is installed; use it as a context
    manager (the server is killed on exit)."""

    def __init__(self, home: Path, address: str) -> None:
        self.binary = shutil.which("adb") or "adb"
        self.port = free_port()
        self.address = address
        self.env = {**os.environ, "HOME": str(home), "ANDROID_ADB_SERVER_PORT": str(self.port)}

    @staticmethod
    def available() -> bool:
        return shutil.which("adb") is not None

    def run(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([self.binary, "-P", str(self.port), *args], env=self.env,
                              capture_output=True, check=True)

    def transport(self) -> ServerTransport:
        """The device through this server."""
        return ServerTransport(self.address, client=AdbServerClient(port=self.port))

    def __enter__(self) -> PrivateAdb:
        self.run("start-server")
        self.run("connect", self.address)
        for _ in range(100):
            if f"{self.address}\tdevice" in self.run("devices").stdout.decode():
                break
            time.sleep(0.05)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.run("kill-server")
