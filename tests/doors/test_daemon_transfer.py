"""Long transfers through the daemon: push / pull / install report progress to the client
that asks (as notifications before the one response), and the CLI draws it on stderr only
when stderr is a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from baremobile.transport.progress import reporting
from baremobile.virtual import VirtualPhone
from tests.daemon_helpers import RawClient, cli, cli_env, ok, running_daemon

SIZE = 3_000_000


def test_progress_notifications_then_one_response(phone: VirtualPhone, tmp_path: Path,
                                                  daemon_socket: str):
    data = os.urandom(SIZE)
    (tmp_path / "blob.bin").write_bytes(data)
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        c.call("daemon/openSession", {"sessionId": "s"})
        c.send({"id": "p", "method": "tools/call", "params": {
            "name": "push_file", "arguments": {"local_path": "blob.bin", "path": "/sdcard/b"},
            "session": "s", "filesDir": str(tmp_path), "progress": True}})
        notes = []
        while True:
            msg = c.read()
            if msg["type"] != "progress":
                break
            notes.append(msg)
        assert msg["id"] == "p" and msg["success"], msg
        assert notes and all(n["id"] == "p" for n in notes)
        done = [n["progress"]["done"] for n in notes]
        assert done == sorted(done) and done[-1] == SIZE
        assert {n["progress"]["total"] for n in notes} == {SIZE}
        assert phone.fs.read("/sdcard/b") == data
        # pulled back, with the total known (the direct route stats the file first)
        c.send({"id": "q", "method": "tools/call", "params": {
            "name": "pull_file", "arguments": {"path": "/sdcard/b", "local_path": "back.bin"},
            "session": "s", "filesDir": str(tmp_path), "progress": True}})
        pulls = []
        while (msg := c.read())["type"] == "progress":
            pulls.append(msg["progress"])
        assert msg["success"] and pulls[-1] == {"done": SIZE, "total": SIZE}
        assert (tmp_path / "back.bin").read_bytes() == data
        # not asked: no notifications at all
        reply = c.call("tools/call", {"name": "push_file", "arguments": {
            "local_path": "blob.bin", "path": "/sdcard/c"}, "session": "s",
            "filesDir": str(tmp_path)}, rid="quiet")
        assert reply["type"] == "mcp_response" and reply["success"]


def test_cli_push_pull_show_progress_only_on_a_terminal(phone: VirtualPhone, tmp_path: Path):
    data = os.urandom(SIZE)
    (tmp_path / "big.bin").write_bytes(data)
    ok("open", "-d", phone.address, cwd=tmp_path)
    quiet = cli("push", "big.bin", "/sdcard/big.bin", cwd=tmp_path)  # stderr is a pipe
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert quiet.stdout.startswith("copied big.bin to /sdcard/big.bin")
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "baremobile", "pull", "/sdcard/big.bin",
                               "copy.bin"], cwd=tmp_path, env=cli_env(), stdout=subprocess.PIPE,
                              stderr=secondary, stdin=subprocess.DEVNULL, timeout=120)
        os.close(secondary)
        drawn = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(primary)
    assert proc.returncode == 0
    text = drawn.decode()
    assert "\rpull /sdcard/big.bin:" in text and "(100%)" in text
    assert (tmp_path / "copy.bin").read_bytes() == data
    refused = cli("pull", "/sdcard/big.bin", "copy.bin", cwd=tmp_path)  # exists: kept
    assert refused.returncode == 2 and "already exists" in refused.stderr
    ok("pull", "/sdcard/big.bin", "copy.bin", "--overwrite", cwd=tmp_path)


def test_reporting_is_scoped_to_its_block(phone: VirtualPhone):
    from baremobile import connect

    seen: list[tuple[int, int | None]] = []
    with connect(phone.address) as page:
        page.push(b"x" * 100_000, "/sdcard/a")  # nobody asked: nothing reported
        with reporting(lambda done, total: seen.append((done, total))):
            page.push(b"y" * 100_000, "/sdcard/b")
        assert seen and seen[-1] == (100_000, 100_000)
        count = len(seen)
        page.pull("/sdcard/b")
        assert len(seen) == count
