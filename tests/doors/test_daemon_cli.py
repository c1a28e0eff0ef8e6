"""The CLI's session mode, end to end: one process per command, as a shell agent runs it,
against the virtual phone over TCP; the phone's event log says what really happened."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from baremobile.cli import build_parser
from baremobile.cli.session import DAEMON_COMMANDS
from baremobile.tools.spec import TOOLS
from baremobile.virtual import VirtualPhone
from tests.conftest import alive, daemon_pid, free_port
from tests.daemon_helpers import cli, cli_env, ok, running_daemon

SETTINGS = "com.android.settings"


def ref_on(text: str, needle: str) -> int:
    line = next(line for line in text.splitlines() if needle in line and "[ref=" in line)
    return int(re.search(r"\[ref=(\d+)\]", line).group(1))


@pytest.mark.fast
def test_agent_loop_across_processes(phone: VirtualPhone, tmp_path: Path, daemon_socket: str):
    """open → launch → snapshot → tap a ref of that snapshot → type → press back → close,
    every command its own process; refs survive between them; a stale ref is refused."""
    ok("open", "-d", phone.address, cwd=tmp_path)
    pid = daemon_pid(daemon_socket)
    assert pid is not None and pid != os.getpid()  # started on demand, in the background
    assert "launched" in ok("launch", SETTINGS, cwd=tmp_path)
    first = ok("snapshot", cwd=tmp_path)
    search = ref_on(first, '"Search Settings"')
    assert (tmp_path / ".baremobile" / "page-1.yml").read_text() == first.rstrip("\n")
    assert ok("tap", str(search), cwd=tmp_path).strip() == f"tapped ref {search}"
    taps = phone.events.list("tap")
    assert taps, "the tap reached the phone"
    second = ok("snapshot", cwd=tmp_path)
    field = ref_on(second, "TextInput")
    assert ok("type", str(field), "wifi", cwd=tmp_path).startswith("typed 4 characters")
    assert [e["text"] for e in phone.events.list("text")] == ["wifi"]
    ok("press", "back", cwd=tmp_path)
    assert phone.events.list("key")[-1]["keycode"] == 4
    # the tap used the first snapshot's ref: a ref from a snapshot still held by the daemon
    (start,) = phone.events.list("start")
    assert start["package"] == SETTINGS
    # refs are those of the latest snapshot: one the phone never showed is refused
    r = cli("tap", "999", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert r.stderr.startswith("error [REF_NOT_FOUND]:")
    assert "baremobile snapshot" in r.stderr  # the hint names the command, not the tool
    assert len(r.stderr.strip().splitlines()) == 1
    assert daemon_pid(daemon_socket) == pid  # one daemon served every command
    assert "released" in ok("close", cwd=tmp_path)
    # the session is gone, and its refs with it: a new one (on the one free device) has none
    r = cli("tap", str(field), cwd=tmp_path)
    assert r.returncode == 3 and "no snapshot yet" in r.stderr, r.stderr


def test_json_output_and_saved_files(phone: VirtualPhone, tmp_path: Path):
    ok("open", "-d", phone.address, cwd=tmp_path)
    snap = json.loads(ok("snapshot", "--json", cwd=tmp_path))
    assert snap["ok"] and snap["tool"] == "snapshot" and snap["refs"] > 0
    assert Path(tmp_path, snap["saved"]["snapshot"]).read_text() == snap["snapshot"]
    shot = ok("screenshot", cwd=tmp_path).strip().splitlines()
    png = tmp_path / shot[-1]
    assert png.name == "screenshot-1.png" and png.read_bytes()[:4] == b"\x89PNG"
    data = json.loads(ok("--json", "screenshot", cwd=tmp_path))
    assert data["saved"]["image"].endswith("screenshot-2.png") and "data" not in data["image"]
    assert len(phone.events.list("screencap")) == 2
    err = cli("tap", "999", "--json", cwd=tmp_path)
    assert err.returncode == 3 and err.stderr == ""
    assert json.loads(err.stdout)["error"]["code"] == "REF_NOT_FOUND"
    found = ok("find", "Settings", cwd=tmp_path)
    assert re.search(r"\[ref=\d+\] Text \"Settings\"", found) and "match(es)" in found


def test_selectors_keys_and_schema_made_commands(phone: VirtualPhone, tmp_path: Path):
    ok("open", "-d", phone.address, cwd=tmp_path)
    assert ok("tap", "--text", "Settings", cwd=tmp_path).strip() == "tapped {text='Settings'}"
    assert phone.events.list("tap")
    assert json.loads(ok("snapshot", "--json", cwd=tmp_path))["package"] == SETTINGS
    ok("press", "home", cwd=tmp_path)
    ok("press", "66", cwd=tmp_path)  # a keycode number
    assert [e["keycode"] for e in phone.events.list("key")][-2:] == [3, 66]
    apps = json.loads(ok("list-apps", "--third-party", "--json", cwd=tmp_path))
    assert apps["packages"] and all("." in p for p in apps["packages"])
    info = json.loads(ok("call", "device_info", "{}", "--json", cwd=tmp_path))
    assert info["info"]["model"] == "Virtual Phone"
    assert "--lines" in ok("logcat", "--help", cwd=tmp_path)
    bad = cli("logcat", "--lines", "0", cwd=tmp_path)  # the schema's bounds, in flag words
    assert bad.returncode == 2 and "argument --lines: must be at least 1" in bad.stderr
    assert bad.stderr.startswith("usage: baremobile logcat")
    bad = cli("logcat", "--tag", "no spaces", cwd=tmp_path)  # the tool's own validation
    assert bad.returncode == 2 and "INVALID_ARGUMENT" in bad.stderr and "tag" in bad.stderr


@pytest.mark.fast
def test_every_tool_is_a_command():
    """Every row of the table is a command named by the row (``devices`` is the daemon's
    pool, the devices tool's data); nothing else makes a tool command."""
    parser = build_parser()
    for t in TOOLS:
        if t.command in DAEMON_COMMANDS:
            assert t.command == "devices"
            continue
        args = parser.parse_args([t.command])
        assert args.tool == t.name and args.verb == t.command


def test_sessions_from_option_and_environment(tmp_path: Path):
    with VirtualPhone(port=free_port()) as a, VirtualPhone(port=free_port()) as b:
        ok("open", "-d", a.address, "--session", "one", cwd=tmp_path)
        ok("open", "-d", b.address, cwd=tmp_path, env=cli_env(BAREMOBILE_SESSION="two"))
        ok("--session", "one", "press", "back", cwd=tmp_path)
        ok("press", "home", cwd=tmp_path, env=cli_env(BAREMOBILE_SESSION="two"))
        assert [e["keycode"] for e in a.events.list("key")] == [4]
        assert [e["keycode"] for e in b.events.list("key")] == [3]
        taken = cli("open", "-d", a.address, "--session", "three", cwd=tmp_path)
        assert taken.returncode == 4 and "DEVICE_ASSIGNED" in taken.stderr \
            and "'one'" in taken.stderr


def test_daemon_killed_with_sigkill_is_replaced(phone: VirtualPhone, tmp_path: Path,
                                                daemon_socket: str):
    ok("open", "-d", phone.address, cwd=tmp_path)
    pid = daemon_pid(daemon_socket)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert os.path.exists(daemon_socket)  # the stale socket file is left behind
    ok("open", "-d", phone.address, cwd=tmp_path)  # a new daemon replaces it
    assert daemon_pid(daemon_socket) not in (None, pid)
    ok("press", "back", cwd=tmp_path)
    assert phone.events.list("key")[-1]["keycode"] == 4


def test_daemon_start_status_stop(tmp_path: Path, daemon_socket: str):
    r = cli("daemon", "status")  # not running: the DAEMON family's status, not a bug's (1)
    assert r.returncode == 9 and "no daemon" in r.stdout
    out = ok("daemon", "start", "--idle-timeout", "60", "--device", "virtual")
    assert "started" in out and daemon_socket in out
    status = json.loads(ok("daemon", "status", "--json"))
    assert status["running"] and status["idleTimeoutS"] == 60
    assert [d["device"] for d in status["devices"]] == ["virtual"]
    assert os.stat(daemon_socket).st_mode & 0o777 == 0o600
    assert "already running" in ok("daemon", "start")
    assert "stopped" in ok("daemon", "stop")
    assert not os.path.exists(daemon_socket) and daemon_pid(daemon_socket) is None
    assert "no daemon" in ok("daemon", "stop")


def test_idle_daemon_stops_by_itself(tmp_path: Path, daemon_socket: str):
    ok("daemon", "start", "--idle-timeout", "0.5")
    pid = daemon_pid(daemon_socket)
    deadline = time.monotonic() + 20
    while os.path.exists(daemon_socket) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(daemon_socket), "the idle daemon is still there"
    assert pid is not None


def test_version_mismatch_both_ways(phone: VirtualPhone, tmp_path: Path, daemon_socket: str):
    # a newer daemon: this (older) client fails, naming both versions
    with running_daemon(daemon_socket, version="99.0"):
        r = cli("press", "back", cwd=tmp_path)
        assert r.returncode == 9, r.stderr
        assert "VERSION_MISMATCH" in r.stderr and "99.0" in r.stderr and "0.1.0" in r.stderr
    # this client is a development build (0.1.0.dev0): a pre-release tag has no order
    # (AutoMobile's rule), so it neither restarts an older daemon nor attaches to it
    with running_daemon(daemon_socket, version="0.0.1") as old:
        r = cli("open", "-d", phone.address, cwd=tmp_path,
                env=cli_env(BAREMOBILE_DAEMON_RESTART_COOLDOWN="0"))
        assert r.returncode == 9 and "not plain release numbers" in r.stderr, r.stderr
        assert "0.0.1" in r.stderr and "0.1.0.dev0" in r.stderr
        assert not old.stopping.is_set()
    # (the restart rules between release versions: test_daemon_automobile.py)


def test_skill_file_teaches_the_loop_with_real_commands(tmp_path: Path):
    text = ok("skill")
    _, front, body = text.split("---", 2)
    meta = YAML(typ="safe").load(front)
    assert re.fullmatch(r"[a-z0-9-]{1,64}", meta["name"])
    assert 50 < len(meta["description"]) <= 1024
    order = [body.index(f"baremobile {verb}") for verb in ("open", "snapshot", "tap", "close")]
    assert order == sorted(order), "open → snapshot → act → close"
    parser = build_parser()
    for line in re.findall(r"^baremobile (.+?)(?:\s+#.*)?$", body, re.M):
        for command in line.split(" / baremobile "):
            words = re.findall(r"'[^']*'|\"[^\"]*\"|\S+", command)
            words = [w.strip("'\"") for w in words]
            if words[0] in ("push", "pull", "install"):
                continue  # they name files that do not exist here
            parser.parse_args(words)  # every command the skill shows parses
    ok("skill", "--install", str(tmp_path / "skills"))
    assert (tmp_path / "skills" / "baremobile" / "SKILL.md").read_text() == text


def test_no_daemon_mode_runs_in_process(tmp_path: Path, daemon_socket: str):
    out = ok("snapshot", "--no-daemon", "-d", "virtual", cwd=tmp_path)
    assert "[ref=1]" in out
    assert not os.path.exists(daemon_socket)  # no daemon was started
    r = cli("open", "--no-daemon", cwd=tmp_path)
    assert r.returncode == 2 and "needs the daemon" in r.stderr


def test_usage_errors_and_the_other_commands_start_no_daemon(tmp_path: Path,
                                                             daemon_socket: str):
    r = cli("type", "three", "words", "here", cwd=tmp_path)  # the command's usage
    assert r.returncode == 2 and r.stderr.startswith("usage: baremobile type [options] [REF]")
    assert "'three' is not a ref" in r.stderr
    r = cli("-L", "tcp:x:1", "-H", "y", "devices", cwd=tmp_path)
    assert r.returncode == 2 and "-L cannot be combined" in r.stderr
    assert cli("nosuchcommand").returncode == 2
    assert not os.path.exists(daemon_socket)


@pytest.mark.fast
@pytest.mark.parametrize("verb", ["tap", "long-press"])
def test_target_flags_become_the_tools_arguments(verb: str):
    from baremobile.cli.session import tool_request

    args = build_parser().parse_args([verb, "--text-contains", "wi", "--index", "1"])
    tool, arguments, _ = tool_request(args)
    assert arguments == {"selector": {"text_contains": "wi", "index": 1}}
    args = build_parser().parse_args([verb, "--at", "10", "20", "-d", "emulator-5554"])
    assert tool_request(args)[1] == {"x": 10.0, "y": 20.0, "device": "emulator-5554"}


def test_issue_12_tools_as_commands(phone: VirtualPhone, tmp_path: Path):
    """Issue 12's tools as CLI commands through the daemon (schema-made or `call`), with
    what the phone saw."""
    ok("open", "-d", phone.address, cwd=tmp_path)
    assert "launched" in ok("call", "launch", '{"label": "Weather"}', cwd=tmp_path)
    assert phone.screens.current()[0] == "org.baremobile.weather"
    read = json.loads(ok("call", "read", '{"selector": {"id": "city"}}', "--json", cwd=tmp_path))
    assert read["text"] == "Springfield"
    assert json.loads(ok("read", "--id", "city", "--json", cwd=tmp_path))["text"] == "Springfield"
    waited = json.loads(ok("wait-for-element", "--id", "radar_map", "--json", cwd=tmp_path))
    assert waited["match"]["desc"].startswith("Radar map")
    ok("double-tap", "--x", "540", "--y", "1960", cwd=tmp_path)
    assert phone.events.list("double_tap")
    ok("pinch", "--x", "540", "--y", "1960", "--scale", "2", cwd=tmp_path)
    assert phone.events.list("pinch")[-1]["scale"] == pytest.approx(2, rel=0.01)
    ok("rotate", "--orientation", "landscape", cwd=tmp_path)
    assert phone.screens.size() == (2400, 1080)
    xml = json.loads(ok("ui-xml", "--max-chars", "400", "--json", cwd=tmp_path))
    assert xml["truncated"] and 'rotation="1"' in xml["text"]
    batch = json.loads(ok("call", "execute", json.dumps({"steps": [
        {"tool": "rotate", "args": {"orientation": "auto"}}, {"tool": "home"}]}), "--json",
        cwd=tmp_path))
    assert batch["completed"] == 2 and phone.screens.size() == (1080, 2400)
    clip = cli("get-clipboard", cwd=tmp_path)
    assert clip.returncode != 0 and "UNSUPPORTED" in clip.stderr
    files = json.loads(ok("list-files", "--path", "/sdcard", "--json", cwd=tmp_path))
    assert "Download" in [e["name"] for e in files["entries"]]
    ok("uninstall-app", "--package", "org.baremobile.notes", cwd=tmp_path)
    assert "org.baremobile.notes" not in [a.package for a in phone.screens.apps()]
    ok("close", cwd=tmp_path)
