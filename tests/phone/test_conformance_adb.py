"""Debian's real adb client against the virtual phone: the protocol referee.

Each test runs its own adb server on a private port (ANDROID_ADB_SERVER_PORT), with its own
HOME and key, and kills only that server. The phone listens outside 5555–5585 (an adb server
adopts those ports as emulators).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

pytestmark = pytest.mark.adb


@pytest.mark.fast
def test_connect_and_devices_l(real_adb, phone):
    serial = real_adb.connect(phone)
    listing = real_adb.ok("devices", "-l").decode()
    line = next(x for x in listing.splitlines() if x.startswith(serial))
    assert "device" in line.split()
    assert "product:vphone" in line and "model:Virtual_Phone" in line and "device:vphone" in line
    (ev,) = phone.events.list("connect")
    assert "shell_v2" in ev["host"]  # the adb server announced its features


def test_shell_echo_stdout_stderr_and_exit_status(real_adb, phone):
    serial = real_adb.connect(phone)
    assert real_adb.ok("-s", serial, "shell", "echo", "hello", "world") == b"hello world\n"
    r = real_adb.run("-s", serial, "shell", "echo out; echo err >&2; exit 7")
    assert (r.stdout, r.stderr, r.returncode) == (b"out\n", b"err\n", 7)
    (cmd, *_) = [e for e in phone.events.list("open") if "echo hello" in e["service"]]
    assert cmd["service"].startswith("shell,v2,")  # adb used the shell protocol v2


def test_exec_out_uiautomator_dump_and_cat(real_adb, phone):
    serial = real_adb.connect(phone)
    out = real_adb.ok("-s", serial, "exec-out", "uiautomator", "dump", "/sdcard/window_dump.xml")
    assert out == b"UI hierchary dumped to: /sdcard/window_dump.xml\n"
    xml = real_adb.ok("-s", serial, "exec-out", "cat", "/sdcard/window_dump.xml")
    assert xml.startswith(b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy")
    assert xml.rstrip().endswith(b"</hierarchy>")
    assert xml == phone.fs.read("/sdcard/window_dump.xml")
    # API 35: dumping to /dev/tty does not give the XML
    tty = real_adb.run("-s", serial, "exec-out", "uiautomator", "dump", "/dev/tty")
    assert b"<hierarchy" not in tty.stdout


def test_exec_out_screencap_png(real_adb, phone):
    serial = real_adb.connect(phone)
    png = real_adb.ok("-s", serial, "exec-out", "screencap", "-p")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 1080 and int.from_bytes(png[20:24], "big") == 2400


def test_push_pull_round_trip(real_adb, phone, tmp_path):
    serial = real_adb.connect(phone)
    src = tmp_path / "payload.bin"
    data = os.urandom(3 * 1024 * 1024 + 17)  # several sync DATA chunks and WRTE messages
    src.write_bytes(data)
    real_adb.ok("-s", serial, "push", str(src), "/sdcard/Download/payload.bin")
    assert phone.fs.read("/sdcard/Download/payload.bin") == data
    back = tmp_path / "back.bin"
    real_adb.ok("-s", serial, "pull", "/sdcard/Download/payload.bin", str(back))
    assert back.read_bytes() == data
    missing = real_adb.run("-s", serial, "pull", "/sdcard/nope.bin", str(tmp_path / "x"))
    assert missing.returncode != 0 and b"No such file" in missing.stderr + missing.stdout


def test_unauthorized_until_allowed(real_adb):
    with VirtualPhone(port=free_port(), auth="known-keys") as ph:
        real_adb.run("connect", ph.address)
        deadline = time.monotonic() + 10
        while not ph.pending_keys and time.monotonic() < deadline:
            time.sleep(0.05)
        assert f"{ph.address}\tunauthorized" in real_adb.ok("devices").decode()
        assert [k.fingerprint for k in ph.pending_keys] == [real_adb.key.fingerprint]
        ph.allow()
        deadline = time.monotonic() + 10
        while f"{ph.address}\tdevice" not in real_adb.ok("devices").decode():
            assert time.monotonic() < deadline, "never became 'device' after Allow"
            time.sleep(0.05)
        assert real_adb.ok("-s", ph.address, "shell", "echo", "allowed") == b"allowed\n"


def test_baremobile_virtual_command_serves_adb(real_adb):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "baremobile", "virtual", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = proc.stdout.readline()
        assert f"virtual phone listening on 127.0.0.1:{port}" in first
        serial = f"127.0.0.1:{port}"
        real_adb.ok("connect", serial)
        deadline = time.monotonic() + 10
        while f"{serial}\tdevice" not in real_adb.ok("devices").decode():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert real_adb.ok("-s", serial, "shell", "getprop", "ro.build.version.sdk") == b"35\n"
    finally:
        proc.terminate()
        proc.wait(10)
