"""What a model may reach through ``baremobile.tools``, and the session's plumbing under
stress: call() enables what schemas() shows, host files stay inside the operator's
directory, device specs and virtual phones as the operator allows, ``type clear`` on old
Android, per-device connecting, pages collected when dropped, every error code listed."""

from __future__ import annotations

import gc
import os
import re
import threading
import time
import weakref
from pathlib import Path

import pytest

from baremobile import connect, tools
from baremobile.errors import BaremobileError, CommandTimeout
from baremobile.tools import Session
from baremobile.tools.spec import TOOLS
from baremobile.transport.discovery import DeviceInfo
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

from .test_tools_call import err, ok

SETTINGS = "com.android.settings"
DEMO = Path(__file__).resolve().parents[2] / "baremobile" / "virtual" / "scenarios" / \
    "demo" / "demo.yaml"


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


# -- 1. call() enables what schemas() shows ------------------------------------------------


def test_call_defaults_to_the_groups_schemas_shows(page, phone, tmp_path):
    shown = {d["name"] for d in tools.schemas("anthropic")}
    assert shown == {t.name for t in TOOLS if t.group == "core"}
    for t in TOOLS:
        r = tools.call(page, t.name, {}, files_dir=tmp_path)
        if t.name not in shown:
            e = err(r, "UNKNOWN_TOOL")
            assert repr(t.group) in e["message"]
    assert phone.events.list("push") == []  # nothing optional ran
    # the same groups open the same doors in both
    shown = {d["name"] for d in tools.schemas("json", groups=["session", "logs"])}
    assert {"configure", "logcat"} <= shown and "pull_file" not in shown
    ok(tools.call(page, "configure", {"settle": 0.5}, groups=["session", "logs"]))
    err(tools.call(page, "pull_file", {"path": "/sdcard/x", "local_path": "x"},
                   groups=["session", "logs"]), "UNKNOWN_TOOL")


# -- 2. host files: only inside files_dir --------------------------------------------------


def fcall(target, name, arguments, **kw):
    return tools.call(target, name, arguments, groups="all", **kw)


def test_host_file_tools_are_off_without_a_files_dir(page, phone, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.apk").write_bytes(b"PK")
    for name, args in (("push_file", {"local_path": "/etc/passwd", "path": "/sdcard/p"}),
                       ("push_file", {"local_path": "a.apk", "path": "/sdcard/p"}),
                       ("pull_file", {"path": "/sdcard/Download", "local_path": "out"}),
                       ("install_app", {"apk": "a.apk"})):
        e = err(fcall(page, name, args), "NOT_ALLOWED")
        assert e["category"] == "INVALID_ARGUMENT" and "--files-dir" in e["hint"]
    assert phone.events.list("push") == [] and not (tmp_path / "out").exists()
    # a model cannot switch it on: configure knows no such setting
    e = err(fcall(page, "configure", {"files_dir": "/"}), "INVALID_ARGUMENT")
    assert "files_dir" in e["message"]


def test_host_paths_stay_inside_the_files_dir(page, phone, tmp_path):
    root = tmp_path / "files"
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    (root / "link").symlink_to(outside)
    (root / "dirlink").symlink_to(tmp_path)
    (root / "sub").mkdir()
    ok(fcall(page, "write_file", {"path": "/sdcard/n.txt", "text": "from the phone"}))
    pushes = len(phone.events.list("push"))
    for local in ("/etc/passwd", str(outside), "~/.bashrc", "../secret.txt",
                  "sub/../../secret.txt", "link", "dirlink/secret.txt"):
        e = err(fcall(page, "push_file", {"local_path": local, "path": "/sdcard/p"},
                      files_dir=root), "NOT_ALLOWED")
        assert "secret" not in e["message"] or local in e["message"]
        err(fcall(page, "pull_file", {"path": "/sdcard/n.txt", "local_path": local,
                                      "overwrite": True}, files_dir=root), "NOT_ALLOWED")
        err(fcall(page, "install_app", {"apk": local}, files_dir=root), "NOT_ALLOWED")
    assert outside.read_text() == "top secret"
    assert len(phone.events.list("push")) == pushes  # nothing reached the phone
    # inside: relative, or absolute within the root
    ok(fcall(page, "pull_file", {"path": "/sdcard/n.txt", "local_path": "sub/n.txt"},
             files_dir=root))
    assert (root / "sub" / "n.txt").read_text() == "from the phone"
    ok(fcall(page, "push_file", {"local_path": str(root / "sub" / "n.txt"),
                                 "path": "/sdcard/m.txt"}, files_dir=str(root)))


def test_pull_never_replaces_a_file_unless_asked_and_os_errors_are_arguments(page, tmp_path):
    ok(fcall(page, "write_file", {"path": "/sdcard/n.txt", "text": "new"}))
    (tmp_path / "keep.txt").write_text("old")
    (tmp_path / "adir").mkdir()
    e = err(fcall(page, "pull_file", {"path": "/sdcard/n.txt", "local_path": "keep.txt"},
                  files_dir=tmp_path), "INVALID_ARGUMENT")
    assert "already exists" in e["message"] and "overwrite" in e["hint"]
    assert (tmp_path / "keep.txt").read_text() == "old"
    ok(fcall(page, "pull_file", {"path": "/sdcard/n.txt", "local_path": "keep.txt",
                                 "overwrite": True}, files_dir=tmp_path))
    assert (tmp_path / "keep.txt").read_text() == "new"
    cases = [("pull_file", {"path": "/sdcard/n.txt", "local_path": "no/such/dir/f"},
              "does not exist"),
             ("pull_file", {"path": "/sdcard/n.txt", "local_path": "adir"}, "is a directory"),
             ("push_file", {"local_path": "adir", "path": "/sdcard/x"}, "is a directory"),
             ("push_file", {"local_path": "missing", "path": "/sdcard/x"}, "does not exist"),
             ("install_app", {"apk": "adir"}, "is a directory")]
    for name, args, said in cases:
        e = err(fcall(page, name, args, files_dir=tmp_path), "INVALID_ARGUMENT")
        assert said in e["message"], (name, args, e)


def test_files_dir_must_be_a_directory(page, tmp_path):
    with pytest.raises(BaremobileError, match="not a directory"):
        Session(files_dir=tmp_path / "missing")
    e = err(fcall(page, "push_file", {"local_path": "x", "path": "/sdcard/x"},
                  files_dir=tmp_path / "missing"), "INVALID_ARGUMENT")
    assert "not a directory" in e["message"]
    with Session(files_dir=tmp_path) as s:
        assert s.files_dir == os.path.realpath(tmp_path)


# -- 3. device specs and virtual phones ----------------------------------------------------


def test_scenario_files_are_refused_unless_allowed(tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n  bad: [indent\n")
    with Session() as s:
        for spec in (f"virtual:{secret}", "virtual:/etc/passwd", "virtual:/no/such.yaml"):
            e = err(tools.call(s, "snapshot", {"device": spec}), "NOT_ALLOWED")
            assert "allow-scenarios" in e["hint"]
            err(tools.call(s, "configure", {"device": spec}, groups=["session"]),
                "NOT_ALLOWED")
        assert s.pages() == {}
    with Session(allow_scenarios=True) as s:
        for spec in (f"virtual:{secret}", f"virtual:{tmp_path / 'missing.yaml'}"):
            e = err(tools.call(s, "snapshot", {"device": spec}), "INVALID_ARGUMENT")
            assert "hunter2" not in e["message"] and "indent" not in e["message"]
        assert ok(tools.call(s, "snapshot", {"device": f"virtual:{DEMO}"}))["refs"]


def test_virtual_phones_are_reused_and_capped():
    with Session(allow_scenarios=True, max_virtual_phones=2) as s:
        a = ok(tools.call(s, "snapshot", {"device": "virtual"}))["device"]
        assert ok(tools.call(s, "snapshot", {"device": " virtual "}))["device"] == a
        assert ok(tools.call(s, "snapshot", {"device": "virtual:"}))["device"] == a
        b = ok(tools.call(s, "snapshot", {"device": f"virtual:{DEMO}"}))["device"]
        assert b != a
        rel = os.path.relpath(DEMO)
        assert ok(tools.call(s, "snapshot", {"device": f"virtual:{rel}"}))["device"] == b
        other = DEMO.parent.parent / "demo" / ".." / "demo" / "demo.yaml"  # the same file
        assert ok(tools.call(s, "snapshot", {"device": f"virtual:{other}"}))["device"] == b
        phones = {p.serial for p in s.pages().values()}
        assert phones == {a, b}
        e = err(tools.call(s, "snapshot", {"device": f"virtual:{DEMO.parent}"}), "NOT_ALLOWED")
        assert "limit" in e["message"]  # a third phone would pass the cap
    with Session(max_virtual_phones=0) as s:
        err(tools.call(s, "snapshot", {"device": "virtual"}), "NOT_ALLOWED")


def test_allow_devices_limits_what_calls_may_name(phone, adb_key):
    with Session(allow_devices=[phone.address], connect_options={"keys": [adb_key]}) as s:
        ok(tools.call(s, "snapshot", {"device": phone.address}))
        e = err(tools.call(s, "snapshot", {"device": "127.0.0.1:1"}), "NOT_ALLOWED")
        assert phone.address in e["hint"]
        err(tools.call(s, "configure", {"device": "10.0.0.9:5555"}, groups=["session"]),
            "NOT_ALLOWED")
        ok(tools.call(s, "snapshot", {"device": "virtual"}))  # always allowed
    # the operator's own device is allowed whatever the list says
    with Session(phone.address, allow_devices=[], connect_options={"keys": [adb_key]}) as s:
        ok(tools.call(s, "snapshot", {}))


def test_a_bound_page_answers_only_to_its_own_name(page, phone):
    assert page.transport.kind == "tcp"  # a phone reached over TCP: not an in-process one
    since = phone.events.last_seq
    e = err(tools.call(page, "tap", {"x": 5, "y": 5, "device": "virtual"}), "INVALID_ARGUMENT")
    assert page.serial in e["message"]
    assert phone.events.list("tap", since=since) == []
    with connect("virtual") as vp:
        assert ok(tools.call(vp, "snapshot", {"device": "virtual"}))["device"] == vp.serial


# -- 4. type clear without a target on old Android -----------------------------------------


@pytest.mark.parametrize("api_level", [30, 35])
def test_type_clear_empties_the_focused_field_of_any_length(adb_key, api_level):
    with VirtualPhone(port=free_port(), api_level=api_level) as old, \
            connect(old.address, keys=[adb_key]) as p:
        tools.call(p, "launch", {"package": SETTINGS})
        ok(tools.call(p, "tap", {"selector": {"text": "Search Settings"}}))
        ok(tools.call(p, "type", {"selector": {"role": "TextInput"}, "text": "x" * 100}))
        r = ok(tools.call(p, "type", {"text": "hello", "clear": True}))
        assert r["done"] == "typed 5 characters into the focused field"  # it replaced
        fields = [n for n in p.snapshot().refs.values() if n.editable]
        assert [f.text for f in fields] == ["hello"]
        ok(tools.call(p, "back", {}))
        ok(tools.call(p, "home", {}))
        # nothing focused: an honest error on every Android, never a false "cleared" (the
        # input method says no text field has focus; nothing is sent)
        r = tools.call(p, "type", {"text": "x", "clear": True})
        e = err(r, "NOT_EDITABLE")
        assert e["category"] == "NOT_ACTIONABLE" and "ref or selector" in e["hint"]


# -- 5. connecting: one lock per device, a device reached twice is one page ----------------


class FakePage:
    def __init__(self, serial: str) -> None:
        self.serial = serial
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def snapshot(self):  # pragma: no cover - not called here
        raise AssertionError


def test_a_slow_device_does_not_block_the_others():
    release = threading.Event()
    calls: list[str] = []

    def connect_fn(spec, **_):
        calls.append(spec)
        if spec == "slow:1":
            release.wait(10)  # e.g. waiting for the Allow prompt
        return FakePage(spec)

    with Session(connect=connect_fn) as s:
        t = threading.Thread(target=s.page, args=("slow:1",))
        t.start()
        while "slow:1" not in calls:
            time.sleep(0.01)
        started = time.monotonic()
        assert s.page("fast:2").serial == "fast:2"
        assert time.monotonic() - started < 1
        release.set()
        t.join(5)
        assert s.page("slow:1").serial == "slow:1"
        assert calls == ["slow:1", "fast:2"]


def test_a_device_already_connected_is_not_claimed_twice(monkeypatch):
    calls: list[str | None] = []

    def connect_fn(spec, **_):
        calls.append(spec)
        return FakePage({"usb:R58M": "R58M", None: "R58M"}.get(spec, spec))

    monkeypatch.setattr("baremobile.tools.pages._discover",
                        lambda: [DeviceInfo("usb:R58M", "device", "usb", "usb")])
    with Session(connect=connect_fn) as s:
        first = s.page("usb:R58M")
        assert s.page() is first  # discovery would pick the same phone: no second claim
        assert s.page("usb") is first
        assert s.page("adb:R58M") is first and s.page("R58M") is first
        assert calls == ["usb:R58M"]
        b = s.page("10.0.0.5:5555")
        assert s.page("adb:10.0.0.5:5555") is b
        assert calls == ["usb:R58M", "10.0.0.5:5555"]


# -- 7. pages are not kept alive by their remembered session -------------------------------


def test_closed_pages_are_collected(phone, adb_key):
    refs = []
    for _ in range(3):
        p = connect(phone.address, keys=[adb_key])
        ok(tools.call(p, "snapshot", {}))
        tools.session_for(p).configure(observe=False)
        refs.append(weakref.ref(p))
        p.close()
        del p
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


# -- 8. error codes ------------------------------------------------------------------------


def test_closed_session_and_categories(page, monkeypatch):
    s = Session()
    s.close()
    e = err(tools.call(s, "snapshot", {}), "SESSION_CLOSED")
    assert e["category"] == "SESSION_CLOSED"
    for args in ({"timeout": 0}, {"timeout": 0.5}):
        e = err(tools.call(page, "wait_stable", args), "INVALID_ARGUMENT")
        assert "timeout" in e["message"]

    def slow(**_):
        raise CommandTimeout("`rm -f /data/local/tmp/baremobile_dump-1.xml; uiautomator dump "
                             "/data/local/tmp/baremobile_dump-1.xml` did not finish within 1 s")

    monkeypatch.setattr(page, "wait_stable", slow)
    e = err(tools.call(page, "wait_stable", {"timeout": 1}), "TIMEOUT")
    assert "uiautomator" not in e["message"] and "longer timeout" in e["hint"]
    e = err(tools.call(page, "tap", {"ref": 99}), "REF_NOT_FOUND")
    assert e["category"] == "REF_NOT_FOUND"


def test_every_error_code_has_a_category_and_is_documented():
    import baremobile.errors as errors_module
    from baremobile.tools.dispatch import ERROR_CODES, error_data

    raised = {cls.code for cls in vars(errors_module).values()
              if isinstance(cls, type) and issubclass(cls, BaremobileError)} - {"ERROR"}
    raised |= {"UNKNOWN_TOOL", "MISSING_DEPENDENCY", "NOT_ALLOWED", "SESSION_CLOSED",
               "INTERNAL_ERROR", "ADB_SERVER_FAIL"}
    assert raised <= set(ERROR_CODES)
    families = {cat for cat, _ in ERROR_CODES.values()}
    doc = (Path(__file__).resolve().parents[2] / "docs" / "mcp.md").read_text()
    for code, (category, _) in ERROR_CODES.items():
        assert re.search(rf"\| `{code}` \| `{category}` \|", doc), code
        assert ERROR_CODES.get(category, (category,))[0] == category or category in families
    for cls in vars(errors_module).values():
        if isinstance(cls, type) and issubclass(cls, BaremobileError) and \
                cls is not BaremobileError:
            try:
                exc = cls("m")
            except TypeError:
                continue
            assert error_data(exc)["category"] in families, cls
    assert error_data(BaremobileError("plain"))["code"] == "INTERNAL_ERROR"
    assert error_data(ValueError("x"))["category"] == "INTERNAL_ERROR"


# -- the allow-list holds on every path to a device ------------------------------------------


def _dumps(phone) -> int:
    return len(phone.events.list("dump"))


def test_the_allow_list_holds_when_no_device_is_named(real_adb, monkeypatch):
    """Discovery (through an adb server that knows a phone outside the list), "auto" and
    $ANDROID_SERIAL never reach a device the operator did not allow."""
    with VirtualPhone(port=free_port()) as allowed, VirtualPhone(port=free_port()) as other:
        real_adb.connect(other)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(real_adb.port))
        with Session(allow_devices=[allowed.address]) as s:
            for args in ({}, {"device": "auto"}):
                e = err(tools.call(s, "snapshot", args), "NOT_ALLOWED")
                assert allowed.address in e["hint"]
        assert _dumps(other) == 0
        real_adb.connect(allowed)  # now discovery lists both: the allowed one is used
        with Session(allow_devices=[allowed.address]) as s:
            r = ok(tools.call(s, "snapshot", {}))
            assert r["device"] == allowed.address
            ok(tools.call(s, "tap", {"x": 5, "y": 5}))
        assert _dumps(other) == 0 and other.events.list("tap") == []
        monkeypatch.setenv("ANDROID_SERIAL", other.address)
        with Session(allow_devices=[allowed.address]) as s:
            err(tools.call(s, "snapshot", {}), "NOT_ALLOWED")
        assert _dumps(other) == 0
        monkeypatch.setenv("ANDROID_SERIAL", allowed.address)
        with Session(allow_devices=[allowed.address]) as s:
            assert ok(tools.call(s, "snapshot", {}))["device"] == allowed.address


def test_the_allow_list_holds_for_announced_virtual_phones():
    from baremobile.transport.registry import announce

    with VirtualPhone(port=free_port()) as allowed, VirtualPhone(port=free_port()) as other, \
            announce(other.host, other.port):
        with Session(allow_devices=[allowed.address]) as s:
            err(tools.call(s, "snapshot", {}), "NOT_ALLOWED")
        with announce(allowed.host, allowed.port), \
                Session(allow_devices=[allowed.address, "emulator-5554"]) as s:
            assert ok(tools.call(s, "snapshot", {}))["device"] == allowed.address
        with Session() as s:  # without a list, discovery picks the one ready device
            assert ok(tools.call(s, "snapshot", {}))["device"] == other.address
    assert _dumps(allowed) == 1
