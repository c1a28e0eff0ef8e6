"""Devices beyond this computer: adb servers named by ``ADB_SERVER_SOCKET``, adb's ``-H/-P``
and ``-L``, and the daemon's ``--adb-server`` (a farm of hosts), with Debian's real adb
server as the referee. The servers here are private ones on this machine, which is exactly
what another host's server (or an SSH tunnel to it) looks like from here: a TCP port.

Nothing here depends on what listens on this machine's emulator ports: the private servers
scan none (``tests.conftest.NO_EMULATOR_SCAN``); ``tests/phone/test_discovery.py`` runs the
farm once more with an adbd on one of them (a third device in the pool, were it scanned)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from baremobile.virtual import VirtualPhone
from tests.conftest import RealAdb, free_port, private_adb
from tests.daemon_helpers import cli, cli_env, ok

pytestmark = pytest.mark.adb


@pytest.fixture
def second_adb(adb_binary: str, tmp_path: Path):
    with private_adb(adb_binary, tmp_path / "adb-home-2") as adb:
        yield adb


def test_adb_server_socket_and_adb_style_flags(real_adb: RealAdb, phone: VirtualPhone,
                                               tmp_path: Path):
    serial = real_adb.connect(phone)
    port = real_adb.port
    for args, env in ((["devices", "--no-daemon"],
                       cli_env(ADB_SERVER_SOCKET=f"tcp:127.0.0.1:{port}")),
                      (["-P", str(port), "devices", "--no-daemon"], cli_env()),
                      (["-H", "127.0.0.1", "-P", str(port), "devices", "--no-daemon"],
                       cli_env()),
                      (["-L", f"tcp:{port}", "devices", "--no-daemon"], cli_env())):
        out = ok(*args, cwd=tmp_path, env=env)
        assert serial in out and "adb-server" in out, (args, out)
    # the flags win over the environment, as in adb
    out = ok("-P", str(port), "devices", "--no-daemon", cwd=tmp_path,
             env=cli_env(ADB_SERVER_SOCKET="tcp:127.0.0.1:1"))
    assert serial in out
    bad = cli("devices", "--no-daemon", cwd=tmp_path, env=cli_env(ADB_SERVER_SOCKET="udp:x"))
    assert bad.returncode == 2 and "tcp:HOST:PORT" in bad.stderr
    # one command through that server, in this process
    snap = ok("-P", str(port), "snapshot", "--no-daemon", "-d", serial, cwd=tmp_path)
    assert "[ref=" in snap and phone.events.list("dump")


def test_a_farm_of_adb_servers_joins_the_pool(real_adb: RealAdb, second_adb: RealAdb,
                                              tmp_path: Path, daemon_socket: str):
    farm_joins_the_pool(real_adb, second_adb, tmp_path)


def farm_joins_the_pool(real_adb: RealAdb, second_adb: RealAdb, tmp_path: Path) -> None:
    with VirtualPhone(port=free_port()) as a, VirtualPhone(port=free_port()) as b:
        serial_a, serial_b = real_adb.connect(a), second_adb.connect(b)
        farm = [f"tcp:127.0.0.1:{real_adb.port}", f"tcp:127.0.0.1:{second_adb.port}"]
        ok("daemon", "start", "--adb-server", farm[0], "--adb-server", farm[1])
        pool = json.loads(ok("devices", "--json", cwd=tmp_path))
        names = {d["device"] for d in pool["devices"]}
        assert names == {f"adb:{serial_a}@127.0.0.1:{real_adb.port}",
                         f"adb:{serial_b}@127.0.0.1:{second_adb.port}"}
        assert pool["availableDevices"] == 2
        # -P picks the host: its free device; a serial with -P means that host's device
        opened = json.loads(ok("-P", str(second_adb.port), "open", "--json", "--session",
                               "on-b", cwd=tmp_path))
        assert opened["assignedDevice"] == f"adb:{serial_b}@127.0.0.1:{second_adb.port}"
        ok("-P", str(real_adb.port), "open", "-d", serial_a, "--session", "on-a",
           cwd=tmp_path)
        ok("press", "back", "--session", "on-a", cwd=tmp_path)
        ok("press", "home", "--session", "on-b", cwd=tmp_path)
        assert [e["keycode"] for e in a.events.list("key")] == [4]
        assert [e["keycode"] for e in b.events.list("key")] == [3]
        # a file pushed through a farm host's server arrives whole
        data = os.urandom(300_000)
        (tmp_path / "f.bin").write_bytes(data)
        ok("push", "f.bin", "/sdcard/f.bin", "--session", "on-b", cwd=tmp_path)
        assert b.fs.read("/sdcard/f.bin") == data
        r = cli("open", "--session", "third", cwd=tmp_path)
        assert r.returncode == 4 and "NO_FREE_DEVICE" in r.stderr
