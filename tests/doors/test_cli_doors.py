"""Each front door in its own words, and the session commands a newcomer meets first: hints
from one table rendered per door, fresh virtual phones per session, mistyped sessions,
human-readable session and pool listings, the daemon's status when none runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import baremobile.daemon.errors as daemon_errors
import baremobile.errors as errors
from baremobile.errors import DOORS, HINT_VERBS, BaremobileError, vocabulary
from baremobile.tools.dispatch import hint_words
from baremobile.virtual import VirtualPhone
from tests.daemon_helpers import RawClient, cli, cli_env, ok

_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def _error_classes() -> list[type[BaremobileError]]:
    found = []
    for module in (errors, daemon_errors):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaremobileError):
                found.append(value)
    return found


def test_one_hint_table_with_a_phrase_for_every_door():
    for key, words in HINT_VERBS.items():
        assert {"python", "tools", "cli"} <= set(words), key
    cli_words = hint_words("cli")
    assert not [p for p in cli_words.values() if "daemon/" in p or "page." in p]
    assert cli_words["list_apps"] == "baremobile list-apps"
    tool_words = hint_words("tools", "android_")
    assert tool_words["snapshot"] == "the android_snapshot tool"
    assert not [p for p in tool_words.values() if "daemon/" in p or "page." in p]
    assert hint_words("daemon")["open_session"] == "the daemon/openSession method"
    assert hint_words("python")["snapshot"] == "page.snapshot()"
    assert errors.say("{list_apps}") == "page.list_apps()"  # Python's words need no table
    with pytest.raises(ValueError):
        vocabulary("fax")


@pytest.mark.parametrize("door", DOORS)
def test_every_default_hint_renders_in_every_door(door):
    words = hint_words(door)
    for cls in _error_classes():
        template = cls.__dict__.get("default_hint") or ""
        if not template:
            continue
        text = errors.say(template, words)
        assert not _PLACEHOLDER.search(text), (cls.__name__, door, text)
        if door == "cli":  # a CLI user never reads a daemon method or a Python call
            assert "daemon/" not in text and "page." not in text, (cls.__name__, text)


def test_the_daemon_answers_in_the_words_of_the_requests_door(tmp_path, daemon_socket):
    ok("daemon", "start", cwd=tmp_path)
    client = RawClient(daemon_socket)
    try:
        args = {"name": "snapshot", "arguments": {}, "session": "nosuch", "create": False}
        protocol = client.call("tools/call", args, rid="p")
        assert protocol["code"] == "SESSION_NOT_FOUND"
        assert "daemon/openSession" in protocol["hint"]  # a protocol client reads methods
        shell = client.call("tools/call", {**args, "door": "cli"}, rid="c")
        assert "baremobile open --session" in shell["hint"] and "daemon/" not in shell["hint"]
        model = client.call("tools/call", {**args, "door": "tools"}, rid="t")
        assert "daemon/" not in model["hint"] and "baremobile" not in model["hint"]
    finally:
        client.close()
        ok("daemon", "stop")


def test_a_mistyped_session_claims_no_device(tmp_path, phone: VirtualPhone):
    ok("daemon", "start", "--device", phone.address, cwd=tmp_path)
    try:
        r = cli("--session", "nosuch", "snapshot", cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.startswith("error [SESSION_NOT_FOUND]:"), r.stderr
        assert "baremobile open --session" in r.stderr and "daemon/" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
        pool = json.loads(ok("devices", "--cached", "--json", cwd=tmp_path))
        (device,) = pool["devices"]
        assert device["state"] == "idle" and not device.get("session")  # still free
        assert not phone.events.list("command")  # nothing reached the phone for it
        ok("open", "--session", "agent1", cwd=tmp_path)  # a named session begins with open
        r = cli("--session", "agent", "press", "back", cwd=tmp_path)
        assert r.returncode == 2 and "did you mean 'agent1'?" in r.stderr
        ok("--session", "agent1", "press", "back", cwd=tmp_path)
        assert phone.events.list("key")[-1]["keycode"] == 4
    finally:
        ok("daemon", "stop")


def test_session_and_devices_print_for_people(tmp_path, phone: VirtualPhone):
    ok("open", "-d", phone.address, cwd=tmp_path)
    ok("snapshot", cwd=tmp_path)
    text = ok("session", cwd=tmp_path)
    assert text.startswith(f"session default: device {phone.address}")
    assert "None" not in text and "[" not in text and "{" not in text  # no Python reprs
    assert re.search(r"created \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", text), text
    assert re.search(r"last snapshot: \d+ refs, app com\.", text), text
    assert not re.search(r"\b1\d{12}\b", text)  # no epoch milliseconds
    ok("close", cwd=tmp_path)
    ok("daemon", "stop")


def test_devices_on_an_empty_pool_says_what_to_do(tmp_path):
    r = cli("devices", cwd=tmp_path)
    assert r.returncode == 4, r.stderr  # DEVICE_UNAVAILABLE, as with --no-daemon
    assert "the pool has no devices" in r.stdout and "virtual:new" in r.stdout
    r = cli("devices", "--no-daemon", cwd=tmp_path)
    assert r.returncode == 4 and "baremobile virtual" in r.stdout
    ok("daemon", "stop")


def test_daemon_status_without_a_daemon_is_not_an_internal_error(tmp_path):
    r = cli("daemon", "status", cwd=tmp_path)
    assert r.returncode == 9 and "no daemon is running" in r.stdout  # DAEMON, not 1
    r = cli("daemon", "status", "--json", cwd=tmp_path)
    assert r.returncode == 9 and json.loads(r.stdout) == {"running": False}


def _at_once(*commands: list[str], cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    """Start every command, then wait for all: they run at the same time."""
    procs = [subprocess.Popen([sys.executable, "-m", "baremobile", *c], cwd=cwd,
                              env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True) for c in commands]
    out = []
    for c, p in zip(commands, procs, strict=True):
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, f"baremobile {' '.join(c)} -> {p.returncode}: {stderr}"
        out.append(subprocess.CompletedProcess(c, p.returncode, stdout, stderr))
    return out


def test_two_sessions_each_on_a_fresh_virtual_phone_at_the_same_time(tmp_path):
    """virtual:new gives each session a phone of its own: two agents act at the same time
    and each phone's event log holds only its own agent's actions."""
    opened = _at_once(["open", "-d", "virtual:new", "--session", "alice"],
                      ["open", "-d", "virtual:new", "--session", "bob"], cwd=tmp_path)
    a, b = (line.stdout.split(": ", 1)[1].split()[0] for line in opened)
    assert a != b and a.startswith("127.0.0.1:") and b.startswith("127.0.0.1:")
    for step in (["launch", "com.android.settings"], ["tap", "--text", "Search Settings"]):
        _at_once(["--session", "alice", *step], ["--session", "bob", *step], cwd=tmp_path)
    _at_once(["--session", "alice", "type", "alpha"], ["--session", "bob", "type", "bravo"],
             cwd=tmp_path)
    logs = {name: ok("--session", name, "logcat", "--tag", "VirtualPhone", "--lines", "400",
                     cwd=tmp_path) for name in ("alice", "bob")}
    assert "text text='alpha'" in logs["alice"] and "bravo" not in logs["alice"]
    assert "text text='bravo'" in logs["bob"] and "alpha" not in logs["bob"]
    assert logs["alice"].count("tap x=") == logs["bob"].count("tap x=") == 1
    pool = json.loads(ok("devices", "--cached", "--json", cwd=tmp_path))
    assert {(d["device"], d["session"], d["kind"]) for d in pool["devices"]} == \
        {(a, "alice", "virtual"), (b, "bob", "virtual")}
    ok("close", "--session", "alice", cwd=tmp_path)  # its phone stops and leaves the pool
    pool = json.loads(ok("devices", "--cached", "--json", cwd=tmp_path))
    assert [d["device"] for d in pool["devices"]] == [b]
    ok("close", "--session", "bob", cwd=tmp_path)
    ok("daemon", "stop")


def test_connect_accepts_every_spec_the_doors_accept():
    """One parser: the daemon's adb:SERIAL@HOST:PORT, virtual:new and the rest parse the
    same for connect(), the tools, the daemon and the CLI."""
    from baremobile.transport.specs import parse_spec, server_spec

    assert parse_spec("adb:emulator-5554@10.0.0.2:5037").server == ("10.0.0.2", 5037)
    assert parse_spec(server_spec("emulator-5554", "::1", 5037)).server == ("::1", 5037)
    assert parse_spec("adb:10.0.0.5:5555").serial == "10.0.0.5:5555"
    assert parse_spec("adb:10.0.0.5:5555").server is None
    assert parse_spec("virtual:new").fresh and not parse_spec("virtual:new").scenario
    assert parse_spec("virtual:./new").scenario == "./new"
    assert parse_spec("[::1]:5555").kind == "tcp" and parse_spec("usb:X").serial == "X"
    assert parse_spec(None).kind == parse_spec(" auto ").kind == "auto"
    assert parse_spec("R58M123").kind == "adb"


@pytest.mark.adb
def test_connect_reaches_a_device_through_a_named_adb_server(real_adb, phone: VirtualPhone):
    """``connect("adb:SERIAL@HOST:PORT")`` — the daemon's farm spelling — works in Python,
    through Debian's adb server at HOST:PORT (not the usual one: nothing else knows it)."""
    from baremobile import connect

    serial = real_adb.connect(phone)
    with connect(f"adb:{serial}@127.0.0.1:{real_adb.port}") as page:
        assert page.serial == f"{serial}@127.0.0.1:{real_adb.port}"
        page.press("back")
    assert phone.events.list("key")[-1]["keycode"] == 4


def test_a_sessions_own_phone_is_one_per_session_and_bounded(monkeypatch):
    import socket
    import time

    from baremobile.daemon import hub as hub_module
    from baremobile.daemon.hub import Hub
    from baremobile.tools.session import NotAllowed

    monkeypatch.setattr(hub_module, "MAX_OWN_PHONES", 1)
    hub = Hub(discover=False)
    try:
        a, b = hub.session("a", create=True), hub.session("b", create=True)
        key = hub.own_phone(a)
        assert hub.own_phone(a) == key  # the same phone on every ask
        with pytest.raises(NotAllowed, match="limit"):
            hub.own_phone(b)
        host, port = key.rsplit(":", 1)
        hub.release_session("a")  # its phone stops and leaves the pool
        assert hub.pool.get(key) is None
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex((host, int(port))) != 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail(f"the released session's phone still listens on {key}")
        assert hub.own_phone(b) != key
    finally:
        hub.close()
