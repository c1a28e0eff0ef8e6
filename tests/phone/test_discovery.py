"""Discovery of local emulator ports (issue 15, item 16): a listener is a device only when it
answers the ADB handshake; the suite never depends on what listens on 5555–5585."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from baremobile.errors import DeviceNotFound, InvalidArgument
from baremobile.transport import DirectTransport, devices, open_transport
from baremobile.transport.discovery import EMULATOR_PORTS, emulator_ports, probe_adbd
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


class Listener:
    """A TCP listener that accepts connections and answers ``reply`` (or nothing)."""

    def __init__(self, port: int = 0, reply: bytes | None = None) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.conns: list[socket.socket] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.conns.append(conn)
            if self.reply is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(self.reply)

    def close(self) -> None:
        self._stop.set()
        self.thread.join(2)
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.fixture
def silent() -> Iterator[Listener]:
    listener = Listener(free_port())
    yield listener
    listener.close()


def test_the_ports_are_the_emulators_unless_named(monkeypatch):
    monkeypatch.delenv("BAREMOBILE_EMULATOR_PORTS")
    assert emulator_ports() == EMULATOR_PORTS == tuple(range(5555, 5586, 2))
    monkeypatch.setenv("BAREMOBILE_EMULATOR_PORTS", "5555-5559, 7001")
    assert emulator_ports() == (5555, 5557, 5559, 7001)
    monkeypatch.setenv("BAREMOBILE_EMULATOR_PORTS", "")
    assert emulator_ports() == ()
    monkeypatch.setenv("BAREMOBILE_EMULATOR_PORTS", "emulator")
    with pytest.raises(InvalidArgument, match="BAREMOBILE_EMULATOR_PORTS"):
        emulator_ports()


def test_a_listener_that_does_not_answer_is_offline_and_never_picked(silent, monkeypatch):
    garbage = Listener(free_port(), reply=b"HTTP/1.1 400 Bad Request\r\n\r\n" * 2)
    closed = free_port()
    try:
        monkeypatch.setenv(
            "BAREMOBILE_EMULATOR_PORTS", f"{silent.port},{garbage.port},{closed}"
        )
        listed = {d.serial: d.state for d in devices()}
        assert listed == {
            f"127.0.0.1:{silent.port}": "offline",
            f"127.0.0.1:{garbage.port}": "offline",
        }
        t0 = time.monotonic()
        with pytest.raises(DeviceNotFound, match="offline") as exc:
            open_transport()  # no device named: nothing ready, so nothing is picked
        assert time.monotonic() - t0 < 5  # no hang on the silent listener
        assert "not answering the ADB handshake" in " ".join(exc.value.tried)
    finally:
        garbage.close()


def test_an_adbd_on_a_probed_port_is_a_device_and_picked(silent, monkeypatch, adb_key):
    with VirtualPhone(port=free_port()) as phone, VirtualPhone(
        port=free_port(), auth="known-keys"
    ) as locked:
        assert probe_adbd((phone.port, locked.port, silent.port)) == {
            phone.port: "device",
            locked.port: "device",  # it asks for AUTH: an adbd all the same
            silent.port: "offline",
        }
        monkeypatch.setenv("BAREMOBILE_EMULATOR_PORTS", f"{silent.port},{phone.port}")
        t = open_transport(keys=[adb_key])
        assert isinstance(t, DirectTransport) and t.serial == phone.address
        assert t.shell("echo picked").stdout == b"picked\n"
        t.close()


def test_the_suite_passes_with_something_on_the_emulator_ports(adb_key, monkeypatch):
    """A silent listener on 5555 and a virtual phone on 5585 (only while this test runs):
    discovery lists and probes them as adb would, and the tests that discover no device
    still pass (run in a subprocess, with the suite's own isolation), and so does the farm
    of real adb servers (which scan no emulator port). Both at once, so the suite runs once
    (a run costs several seconds) under both conditions."""
    owned: dict[int, object] = {}
    for port, start in ((5555, Listener), (5585, lambda p: VirtualPhone(port=p).start())):
        # (something — an emulator? — already listening there is the same condition)
        with contextlib.suppress(OSError):
            owned[port] = start(port)
    try:
        if owned:
            monkeypatch.delenv("BAREMOBILE_EMULATOR_PORTS")
            states = {d.serial: d.state for d in devices()}
            for port in owned:
                assert states.get(f"127.0.0.1:{port}") == ("offline" if port == 5555
                                                          else "device"), states
        env = {**os.environ}
        env.pop("BAREMOBILE_EMULATOR_PORTS", None)
        selected = [
            "tests/doors/test_tools_call.py::test_no_devices_is_data",
            "tests/doors/test_tools_call.py::test_devices_and_configure",
            "tests/doors/test_tools_call.py::test_session_drives_several_devices",
            "tests/doors/test_mcp_stdio.py::test_stdio_no_device_start_then_a_device",
            "tests/doors/test_mcp_http.py::test_http_generated_token_and_no_device",
            "tests/phone/test_transport_e2e.py::test_no_device_anywhere_says_what_was_tried",
        ]
        if shutil.which("adb"):  # real adb servers, which scan no emulator port either
            selected.append("tests/doors/test_daemon_farm.py::"
                            "test_a_farm_of_adb_servers_joins_the_pool")
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selected],
            cwd=ROOT,
            env=env,
            capture_output=True,
            timeout=300,
        )
        out = run.stdout.decode(errors="replace")
        assert run.returncode == 0, out[-3000:]
        assert f"{len(selected)} passed" in out
    finally:
        for thing in owned.values():
            thing.close()  # type: ignore[attr-defined]
