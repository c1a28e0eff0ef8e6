"""``baremobile.tools.call`` round trips on the virtual phone: every core tool, the optional
groups, errors as data (never a traceback), BUSY, observing after acting, snapshot cuts."""

from __future__ import annotations

import base64
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import connect, tools
from baremobile.errors import DeviceNotFound, MultipleDevices
from baremobile.tools import Session
from baremobile.tools.spec import OPTIONAL_GROUPS, TOOLS
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

SETTINGS = "com.android.settings"
MESSAGES = "com.google.android.apps.messaging"
LAUNCHER = "com.google.android.apps.nexuslauncher"


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def ok(result: dict) -> dict:
    assert result["ok"], result
    assert set(result) >= {"ok", "tool"}
    return result


def err(result: dict, code: str) -> dict:
    assert result["ok"] is False, result
    assert result["error"]["code"] == code, result
    assert result["error"]["message"] and "Traceback" not in result["error"]["message"]
    assert set(result["error"]) <= {"code", "message", "hint", "category"}
    return result["error"]


def ref_of(page, **selector) -> int:
    found = ok(tools.call(page, "find", {"selector": selector}))["matches"]
    node = found[0]
    return node["ref"] if node["ref"] is not None else node["inside_ref"]


# -- every core tool -----------------------------------------------------------------------


@pytest.mark.fast
def test_snapshot(page):
    r = ok(tools.call(page, "snapshot", {}))
    assert r["package"] == LAUNCHER and r["refs"] == len(page.last_snapshot.refs)
    assert r["snapshot"] == page.last_snapshot.text and r["truncated"] is False
    assert r["device"] == page.serial


@pytest.mark.fast
def test_tap_by_ref_selector_and_xy(page, phone):
    tools.call(page, "snapshot", {})
    settings_ref = ref_of(page, text="Settings")
    r = ok(tools.call(page, "tap", {"ref": settings_ref}))
    assert r["done"] == f"tapped ref {settings_ref}" and "snapshot" not in r
    assert page.snapshot().package == SETTINGS
    ok(tools.call(page, "tap", {"selector": {"text": "Network & internet"}}))
    assert "Internet" in page.snapshot().text
    since = phone.events.last_seq
    ok(tools.call(page, "tap", {"x": 540, "y": 1200}))
    (tap,) = phone.events.list("tap", since=since)
    assert (tap["x"], tap["y"]) == (540, 1200)


@pytest.mark.fast
def test_type_clear_and_submit(page, phone):
    tools.call(page, "launch", {"package": SETTINGS})
    tools.call(page, "tap", {"selector": {"text": "Search Settings"}})
    field = ref_of(page, role="TextInput")
    ok(tools.call(page, "type", {"ref": field, "text": "wifi"}))
    assert '"wifi"' in page.snapshot().text
    ok(tools.call(page, "type", {"selector": {"role": "TextInput"}, "text": "bluetooth",
                                 "clear": True, "submit": True}))
    snap = page.snapshot().text
    assert '"bluetooth"' in snap and '"wifibluetooth"' not in snap
    assert phone.events.list("key")[-1]["name"] == "KEYCODE_ENTER"
    # no target: types into the field that has focus
    ok(tools.call(page, "type", {"text": " more", "clear": False}))
    assert '"bluetooth more"' in page.snapshot().text


def test_press_back_home(page, phone):
    tools.call(page, "launch", {"package": SETTINGS})
    ok(tools.call(page, "press", {"key": "home"}))
    assert page.snapshot().package == LAUNCHER
    tools.call(page, "launch", {"package": SETTINGS})
    ok(tools.call(page, "back", {}))
    ok(tools.call(page, "home", {}))
    assert page.snapshot().package == LAUNCHER
    ok(tools.call(page, "press", {"key": 4}))  # a keycode number
    names = [e["name"] for e in phone.events.list("key")]
    assert names[-3:] == ["KEYCODE_BACK", "KEYCODE_HOME", "KEYCODE_BACK"]


@pytest.mark.fast
def test_scroll_and_swipe(page, phone):
    tools.call(page, "launch", {"package": SETTINGS})
    before = ok(tools.call(page, "snapshot", {}))["snapshot"]
    lst = ref_of(page, role="List")
    ok(tools.call(page, "scroll", {"ref": lst, "direction": "down"}))
    assert page.snapshot().text != before
    ok(tools.call(page, "scroll", {"direction": "up"}))  # no target: the screen
    since = phone.events.last_seq
    r = ok(tools.call(page, "swipe", {"x1": 500, "y1": 1500, "x2": 500, "y2": 600, "ms": 200}))
    assert "swiped" in r["done"]
    (sw,) = phone.events.list("swipe", since=since)
    assert (sw["x1"], sw["y1"], sw["x2"], sw["y2"]) == (500, 1500, 500, 600)


def test_long_press(page, phone):
    tools.call(page, "snapshot", {})
    ok(tools.call(page, "long_press", {"selector": {"text": "Settings"}, "ms": 800}))
    ok(tools.call(page, "long_press", {"x": 100, "y": 100}))
    presses = phone.events.list("long_press") or phone.events.list("swipe")
    assert len(presses) == 2


def test_launch_and_open_url(page):
    ok(tools.call(page, "launch", {"package": MESSAGES}))
    assert page.snapshot().package == MESSAGES
    ok(tools.call(page, "open_url", {"uri": "https://example.com/a?b=c"}))
    assert "https://example.com/a?b=c" in page.snapshot().text
    e = err(tools.call(page, "open_url", {"uri": "no scheme"}), "INVALID_ARGUMENT")
    assert "scheme" in e["message"]
    err(tools.call(page, "launch", {"package": "com.example.not.installed"}),
        "INVALID_ARGUMENT")


def test_screenshot(page):
    # the tools' default: a JPEG scaled to 1024 px on its longest side (issue 22)
    r = ok(tools.call(page, "screenshot", {}))
    jpeg = tools.image_bytes(r)
    assert jpeg.startswith(b"\xff\xd8\xff") and r["image"]["mime_type"] == "image/jpeg"
    assert (r["image"]["width"], r["image"]["height"]) == (461, 1024)
    assert r["screen"] == {"width": 1080, "height": 2400}
    assert r["scale"] == pytest.approx(2.34, 0.01)
    blocks = tools.to_anthropic(r)
    assert [b["type"] for b in blocks] == ["text", "image"]
    assert base64.b64decode(blocks[1]["source"]["data"]) == jpeg
    assert blocks[1]["source"]["media_type"] == "image/jpeg"
    png = tools.image_bytes(ok(tools.call(page, "screenshot", {"format": "png"})))
    assert png.startswith(b"\x89PNG")


@pytest.mark.fast
def test_find(page):
    r = ok(tools.call(page, "find", {"selector": {"text_contains": "setti"}}))
    assert r["count"] >= 1 and r["matches"][0]["text"] == "Settings"
    assert r["matches"][0]["ref"] in page.last_snapshot.refs
    tools.call(page, "launch", {"package": SETTINGS})
    r = ok(tools.call(page, "find", {"selector": {"text": "Network & internet"}}))
    (label,) = r["matches"]
    assert label["ref"] is None and label["inside_ref"] in page.last_snapshot.refs
    assert ok(tools.call(page, "find", {"selector": {"text": "nothing"}}))["count"] == 0


def test_wait_for_text_and_wait_stable(page):
    tools.call(page, "launch", {"package": SETTINGS})
    r = ok(tools.call(page, "wait_for_text", {"text": "network & INTERNET", "timeout": 2}))
    assert "Network & internet" in r["snapshot"]
    e = err(tools.call(page, "wait_for_text", {"text": "never shown", "timeout": 0}), "TIMEOUT")
    assert "never shown" in e["message"] and e["hint"]
    r = ok(tools.call(page, "wait_stable", {"timeout": 2}))
    assert r["snapshot"] == page.snapshot().text


def test_devices_and_configure():
    with Session() as s:
        r = ok(tools.call(s, "devices", {}))
        assert r["devices"] == [] and r["connected"] == {} and "note" in r
        r = ok(tools.call(s, "configure", {"timeout": 3, "observe": True, "settle": 0},
                          groups=["session"]))
        assert r["session"]["timeout"] == 3 and r["session"]["observe"] is True
        assert "device" not in r  # not device-bound
        err(tools.call(s, "configure", {"timeout": -1}, groups=["session"]), "INVALID_ARGUMENT")


@pytest.mark.fast
def test_every_core_tool_is_covered():
    core = {t.name for t in TOOLS if t.group == "core"}
    assert core == {"snapshot", "tap", "type", "press", "scroll", "swipe", "long_press",
                    "launch", "open_url", "back", "home", "screenshot", "find",
                    "wait_for_text", "wait_stable", "devices",
                    # issue 22: a fixed wait (tests/doors/test_tools_seed.py)
                    "wait",
                    # issue 12's selector tools: tests/doors/test_tools_breadth.py
                    "wait_for", "scroll_until", "read"}


# -- observing after acting ----------------------------------------------------------------


def test_observe_returns_the_fresh_snapshot(page):
    tools.call(page, "snapshot", {})
    r = ok(tools.call(page, "tap", {"selector": {"text": "Settings"}}, observe=True, settle=0))
    assert r["package"] == SETTINGS and "Network & internet" in r["snapshot"]
    assert r["snapshot"] == page.last_snapshot.text  # refs in it are the live ones
    # session-wide: configure once
    session = tools.session_for(page)
    try:
        session.configure(observe=True, settle=0)
        assert "snapshot" in ok(tools.call(page, "back", {}))
        assert "snapshot" not in ok(tools.call(page, "find", {"selector": {"text": "x"}}))
    finally:
        session.configure(observe=False, settle=0.5)


# -- errors as data ------------------------------------------------------------------------


def test_stale_and_unknown_refs(page):
    e = err(tools.call(page, "tap", {"ref": 1}), "REF_NOT_FOUND")
    assert "no snapshot yet" in e["message"]
    n = ok(tools.call(page, "snapshot", {}))["refs"]
    e = err(tools.call(page, "tap", {"ref": n + 5}), "REF_NOT_FOUND")
    assert "take a new snapshot" in e["hint"]
    err(tools.call(page, "tap", {"selector": {"text": "No such thing"}}), "REF_NOT_FOUND")


@pytest.mark.parametrize(("name", "args", "names"), [
    ("tap", {}, "ref, selector or x and y"),
    ("tap", {"ref": 1, "selector": {"text": "a"}}, "ref, selector"),
    ("tap", {"x": 1}, "x and y"),
    ("tap", {"ref": "three"}, "ref"),
    ("tap", {"ref": 0}, "ref"),
    ("tap", {"ref": 1, "bogus": 2}, "bogus"),
    ("tap", {"selector": {}}, "selector"),
    ("tap", {"selector": {"txt": "a"}}, "selector.txt"),
    ("tap", {"selector": {"text": 5}}, "selector.text"),
    ("type", {"ref": 1}, "text"),
    ("scroll", {"direction": "sideways"}, "direction"),
    ("press", {"key": True}, "key"),
    ("snapshot", {"max_chars": 10}, "max_chars"),
    ("launch", {"package": ""}, "package"),
    ("swipe", {"x1": 1, "y1": 2, "x2": 3}, "y2"),
    ("find", {}, "selector"),
])
def test_invalid_arguments_name_the_parameter(page, name, args, names):
    e = err(tools.call(page, name, args), "INVALID_ARGUMENT")
    assert names in e["message"]


def test_arguments_must_be_an_object(page):
    err(tools.call(page, "tap", [1]), "INVALID_ARGUMENT")
    err(tools.call(page, "tap", "ref=1"), "INVALID_ARGUMENT")
    ok(tools.call(page, "snapshot", None))


def test_forgiving_integers_and_nulls(page):
    tools.call(page, "snapshot", {})
    ok(tools.call(page, "tap", {"ref": "1", "selector": None}))
    ok(tools.call(page, "tap", {"ref": 1.0}))


def test_unsupported_text_keeps_its_precise_code(page, phone):
    tools.call(page, "snapshot", {})
    field = ref_of(page, role="Image")
    since = phone.events.last_seq
    e = err(tools.call(page, "type", {"ref": field, "text": "héllo 😀"}), "UNSUPPORTED_TEXT")
    assert e["category"] == "INVALID_ARGUMENT" and "U+00E9" in e["message"]
    assert phone.events.list("text", since=since) == []  # nothing was typed


@pytest.mark.fast
def test_unknown_tool_and_disabled_group(page):
    e = err(tools.call(page, "no_such_tool", {}), "UNKNOWN_TOOL")
    assert "snapshot" in e["hint"]
    e = err(tools.call(page, "logcat", {}, groups=()), "UNKNOWN_TOOL")
    assert "logs" in e["hint"]
    err(tools.call(page, 42, {}), "INVALID_ARGUMENT")


def test_prefixed_names(page):
    assert ok(tools.call(page, "android_pixel_snapshot", {}, prefix="android_pixel_"))


def test_device_argument_on_a_bound_page(page):
    ok(tools.call(page, "snapshot", {"device": page.serial}))
    e = err(tools.call(page, "snapshot", {"device": "emulator-5554"}), "INVALID_ARGUMENT")
    assert "Session" in e["hint"]


def test_unexpected_exceptions_become_data(page, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(page, "snapshot", boom)
    e = err(tools.call(page, "snapshot", {}), "INTERNAL_ERROR")
    assert "kaboom" in e["message"]


@pytest.mark.fast
def test_busy_when_another_call_acts_on_the_device(page):
    session = tools.session_for(page)
    session.configure(busy_wait=0)
    held, release = threading.Event(), threading.Event()

    def hold():
        with session.acting(page):
            held.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(5)
        e = err(tools.call(page, "snapshot", {}), "BUSY")
        assert page.serial in e["message"]
        ok(tools.call(page, "devices", {}))  # not device-bound: no lock
    finally:
        release.set()
        t.join()
        session.configure(busy_wait=0.5)
    ok(tools.call(page, "snapshot", {}))


def test_busy_with_two_real_concurrent_calls(page):
    """Two threads call at once on one device: one acts, the other answers BUSY."""
    session = tools.session_for(page)
    session.configure(busy_wait=0)
    started = threading.Event()
    real = page.snapshot

    def slow_snapshot(**kw):
        started.set()
        threading.Event().wait(0.3)
        return real(**kw)

    page.snapshot = slow_snapshot  # type: ignore[method-assign]
    first: list[dict] = []
    t = threading.Thread(target=lambda: first.append(tools.call(page, "snapshot", {})))
    t.start()
    assert started.wait(5)
    second = tools.call(page, "wait_stable", {"timeout": 1})
    t.join()
    del page.snapshot
    session.configure(busy_wait=0.5)
    assert first[0]["ok"] and second["error"]["code"] == "BUSY"


# -- devices: none, several, unauthorized --------------------------------------------------


@pytest.mark.fast
def test_no_devices_is_data():
    with Session() as s:  # real discovery in the isolated test environment: nothing
        e = err(tools.call(s, "snapshot", {}), "NO_DEVICES")
        assert "device=" in e["hint"]


def test_multiple_devices_is_data():
    def several(spec, **_):
        raise MultipleDevices(["emulator-5554", "R58M12345"])

    with Session(connect=several) as s:
        e = err(tools.call(s, "tap", {"ref": 1}), "MULTIPLE_DEVICES_DEVICE_ID_REQUIRED")
        assert "emulator-5554" in e["message"]


def test_unauthorized_device_is_data(adb_key):
    with VirtualPhone(port=free_port(), auth="known-keys") as strict, \
            Session(strict.address, connect_options={"auth_timeout": 0.3}) as s:
        e = err(tools.call(s, "snapshot", {}), "DEVICE_UNAUTHORIZED")
        assert "Allow USB debugging" in e["hint"]


def test_session_drives_several_devices(phone, adb_key):
    with VirtualPhone(port=free_port()) as other, \
            Session(connect_options={"keys": [adb_key]}) as s:
        ok(tools.call(s, "launch", {"package": SETTINGS, "device": phone.address}))
        ok(tools.call(s, "launch", {"package": MESSAGES, "device": other.address}))
        assert ok(tools.call(s, "snapshot", {"device": phone.address}))["package"] == SETTINGS
        assert ok(tools.call(s, "snapshot", {"device": other.address}))["package"] == MESSAGES
        # a default device, then discovery again
        ok(tools.call(s, "configure", {"device": other.address}, groups=["session"]))
        assert ok(tools.call(s, "snapshot", {}))["device"] == other.address
        r = ok(tools.call(s, "devices", {}))
        assert set(r["connected"]) == {phone.address, other.address}
        # a blank device is refused (clawperator's rule), and null means "not given" (as for
        # every parameter): either way the default stays
        for blank in ("", "  "):
            err(tools.call(s, "configure", {"device": blank}, groups=["session"]),
                "INVALID_ARGUMENT")
        kept = ok(tools.call(s, "configure", {"device": None}, groups=["session"]))
        assert kept["session"]["device"] == other.address
        assert ok(tools.call(s, "snapshot", {}))["device"] == other.address
        # 'auto' goes back to discovery
        ok(tools.call(s, "configure", {"device": "auto"}, groups=["session"]))
        err(tools.call(s, "snapshot", {}), "NO_DEVICES")


def test_session_connect_errors_are_not_cached():
    calls = []

    def flaky(spec, **_):
        calls.append(spec)
        raise DeviceNotFound("not yet")

    with Session("127.0.0.1:1", connect=flaky) as s:
        err(tools.call(s, "snapshot", {}), "NO_DEVICES")
        err(tools.call(s, "snapshot", {}), "NO_DEVICES")
    assert calls == ["127.0.0.1:1", "127.0.0.1:1"]


# -- snapshots past max_chars --------------------------------------------------------------


def test_cut_snapshot_keeps_refs_and_says_how_to_get_the_rest(page):
    tools.call(page, "launch", {"package": SETTINGS})
    full = page.snapshot().text
    r = ok(tools.call(page, "snapshot", {"max_chars": 400}))
    assert r["truncated"] is True and len(r["snapshot"]) <= 400
    *shown, note = r["snapshot"].split("\n")
    assert note.startswith("# truncated (max_chars)")
    assert f"max_chars={len(full)}" in note and "scroll" in note
    for line in shown:
        assert line in full.split("\n")  # whole lines, never renumbered
    hidden = max(page.last_snapshot.refs)
    assert f"[ref={hidden}]" not in r["snapshot"]
    ok(tools.call(page, "tap", {"ref": hidden}))  # cut refs stay usable


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(max_chars=st.integers(min_value=200, max_value=2500))
def test_cut_snapshot_property(page, max_chars):
    r = ok(tools.call(page, "snapshot", {"max_chars": max_chars}))
    full = page.last_snapshot.text
    text = r["snapshot"]
    assert len(text) <= max_chars
    if len(full) <= max_chars:
        assert text == full and not r["truncated"]
    else:
        lines = text.split("\n")
        assert lines[-1].startswith("# truncated") and r["truncated"]
        assert lines[:-1] == full.split("\n")[: len(lines) - 1]


# -- optional groups -----------------------------------------------------------------------


def gcall(target, name, arguments, **kw):
    """A call with every group enabled (calls default to core, like schemas())."""
    return tools.call(target, name, arguments, groups="all", **kw)



def test_apps_group(page, phone):
    r = ok(gcall(page, "list_apps", {}))
    assert SETTINGS in r["packages"] and r["count"] == len(r["packages"])
    assert SETTINGS not in ok(gcall(page, "list_apps", {"third_party": True}))["packages"]
    gcall(page, "launch", {"package": SETTINGS})
    ok(gcall(page, "stop_app", {"package": SETTINGS}))
    ok(gcall(page, "clear_app_data", {"package": SETTINGS}))
    ok(gcall(page, "grant_permission", {"package": MESSAGES,
                                             "permission": "android.permission.CAMERA"}))
    assert "android.permission.CAMERA" in phone.model.granted[MESSAGES]
    ok(gcall(page, "revoke_permission", {"package": MESSAGES,
                                              "permission": "android.permission.CAMERA"}))
    assert "android.permission.CAMERA" not in phone.model.granted[MESSAGES]
    e = err(gcall(page, "grant_permission", {"package": "com.nope.app",
                                                  "permission": "android.permission.CAMERA"}),
            "INVALID_ARGUMENT")  # not installed, as pm's exception line says
    assert "com.nope.app is not installed" in e["message"]
    err(gcall(page, "grant_permission", {"package": MESSAGES, "permission": "a b"}),
        "INVALID_ARGUMENT")


def test_install_app(page, phone, tmp_path):
    from baremobile.virtual.apk import build_apk

    (tmp_path / "app.apk").write_bytes(build_apk("com.example.tool", "Tool App", 1, "1.0",
                                                 ".Main"))
    r = ok(gcall(page, "install_app", {"apk": "app.apk"}, files_dir=tmp_path))
    assert "Success" in r["output"] and r["done"] == "installed app.apk"
    pushed = [e["path"] for e in phone.events.list("push")]
    assert pushed == ["/data/local/tmp/baremobile_install.apk"]
    assert "com.example.tool" in ok(gcall(page, "list_apps", {}))["packages"]
    (tmp_path / "junk.apk").write_bytes(b"PK\x03\x04 not really an apk")
    e = err(gcall(page, "install_app", {"apk": "junk.apk"}, files_dir=tmp_path),
            "COMMAND_FAILED")  # the package manager refuses a file that is no APK
    assert "Failed to parse APK file" in e["message"]
    e = err(gcall(page, "install_app", {"apk": "missing.apk"}, files_dir=tmp_path),
            "INVALID_ARGUMENT")
    assert "does not exist" in e["message"]


def test_files_group(page, tmp_path):
    ok(gcall(page, "write_file", {"path": "/sdcard/Download/note.txt", "text": "hi there"}))
    r = ok(gcall(page, "list_files", {"path": "/sdcard/Download"}))
    assert "note.txt" in [e["name"] for e in r["entries"]]
    r = ok(gcall(page, "read_file", {"path": "/sdcard/Download/note.txt"}))
    assert r["text"] == "hi there" and r["size"] == 8 and r["encoding"] == "utf-8"
    r = ok(gcall(page, "read_file", {"path": "/sdcard/Download/note.txt", "max_bytes": 2}))
    assert r["text"] == "hi" and "max_bytes" in r["note"] and r["truncated"] is True
    (tmp_path / "up.bin").write_bytes(bytes(range(256)))
    ok(gcall(page, "push_file", {"local_path": "up.bin", "path": "/sdcard/up.bin"},
             files_dir=tmp_path))
    r = ok(gcall(page, "read_file", {"path": "/sdcard/up.bin"}))
    assert base64.b64decode(r["base64"]) == bytes(range(256)) and r["encoding"] == "base64"
    ok(gcall(page, "pull_file", {"path": "/sdcard/up.bin", "local_path": "d"},
             files_dir=tmp_path))
    assert (tmp_path / "d").read_bytes() == bytes(range(256))
    err(gcall(page, "list_files", {"path": "relative/dir"}), "INVALID_ARGUMENT")
    err(gcall(page, "list_files", {"path": "/no/such/dir"}), "COMMAND_FAILED")


def test_logs_and_system_groups(page, phone):
    gcall(page, "launch", {"package": SETTINGS})
    r = ok(gcall(page, "logcat", {"lines": 5, "tag": "VirtualPhone"}))
    assert "VirtualPhone" in r["log"]
    ok(gcall(page, "recents", {}))
    assert phone.events.list("key")[-1]["name"] == "KEYCODE_APP_SWITCH"
    for name in ("open_notifications", "open_quick_settings", "close_panels"):
        ok(gcall(page, name, {}))
    cmds = [c for c in phone.events.commands() if c[:2] == ["cmd", "statusbar"]]
    assert [c[2] for c in cmds] == ["expand-notifications", "expand-settings", "collapse"]
    info = ok(gcall(page, "device_info", {}))["info"]
    assert info["model"] == "Virtual Phone" and info["screen"]["width"] == 1080


def test_tap_grid(page, phone):
    r = ok(gcall(page, "tap_grid", {"cell": "c4"}))
    assert r["done"] == "tapped grid cell C4 at (450, 700)"  # 6 cols x 12 rows on 1080x2400
    ok(gcall(page, "tap_grid", {"cell": "A1", "rows": 2, "cols": 2}))
    assert (phone.events.list("tap")[-1]["x"], phone.events.list("tap")[-1]["y"]) == (270, 600)
    err(gcall(page, "tap_grid", {"cell": "Z9"}), "INVALID_ARGUMENT")
    err(gcall(page, "tap_grid", {"cell": "4C"}), "INVALID_ARGUMENT")


def test_vision_drawing(page):
    pytest.importorskip("PIL", reason="the vision group draws with Pillow ([vision] extra)")
    import io

    from PIL import Image

    r = ok(gcall(page, "grid_screenshot", {"rows": 4, "cols": 3}))
    img = Image.open(io.BytesIO(tools.image_bytes(r)))
    assert img.size == (1080, 2400) and r["grid"] == {"rows": 4, "cols": 3}
    r = ok(gcall(page, "annotated_screenshot", {}))
    assert r["refs"] == len(page.last_snapshot.refs) and tools.image_bytes(r)


def test_vision_without_pillow_is_data(page, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pil(name, *a, **k):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("no PIL here")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    e = err(gcall(page, "grid_screenshot", {}), "MISSING_DEPENDENCY")
    assert "baremobile[vision]" in e["hint"]


def test_groups_select_tools():
    names = {t.name for t in tools.select(["apps"])}
    assert "list_apps" in names and "logcat" not in names and "snapshot" in names
    assert {t.group for t in tools.select("all")} == set(tools.GROUPS) - {"eval"}
    assert {t.group for t in tools.select(["all", "eval"])} == set(tools.GROUPS)
    assert set(OPTIONAL_GROUPS) < set(tools.GROUPS)
    assert tools.spec.GATED_GROUPS == ("eval",)
    with pytest.raises(Exception, match="unknown tool group"):
        tools.select(["nope"])


# -- to_text -------------------------------------------------------------------------------


def test_to_text():
    assert tools.to_text({"ok": True, "tool": "back", "done": "pressed back"}) == "pressed back"
    text = tools.to_text({"ok": True, "tool": "snapshot", "package": "p", "refs": 1,
                          "device": "d", "truncated": False, "x": 1,
                          "snapshot": '- Button [ref=1] "OK"'})
    # beside a snapshot, the facts its text says (or the caller knows) are left out
    assert text == '{"x": 1}\n- Button [ref=1] "OK"'
    text = tools.to_text({"ok": True, "tool": "tap", "done": "tapped ref 1", "device": "d"})
    assert text == 'tapped ref 1\n{"device": "d"}'  # no snapshot: the facts stay
    text = tools.to_text({"ok": False, "tool": "tap",
                          "error": {"code": "BUSY", "message": "m", "hint": "h"}})
    assert text == "error BUSY: m\nhint: h"


def test_session_settings_are_checked():
    with Session() as s:
        with pytest.raises(Exception, match="unknown setting"):
            s.configure(colour="red")
        for bad in ({"max_chars": 5}, {"observe": "yes"}, {"settle": True}, {"device": 5}):
            with pytest.raises(Exception, match="must be"):
                s.configure(**bad)
        assert s.configure(device="  ")["device"] is None
        assert s.configure(max_chars=None)["max_chars"] is None


def test_bound_page_with_another_default_device(page):
    session = tools.session_for(page)
    assert tools.session_for(page) is session
    session.configure(device="emulator-5554")
    try:
        err(tools.call(page, "snapshot", {}), "INVALID_ARGUMENT")
    finally:
        session.configure(device=None)
    ok(tools.call(page, "snapshot", {}))


# -- result texts and decoding limits -------------------------------------------------------


def test_text_payloads_render_as_plain_text():
    from baremobile.tools.spec import cut_log

    text = tools.to_text({"ok": True, "tool": "logcat", "device": "d",
                          "log": "a \"quoted\" line\nsecond line", "truncated": False})
    assert text.splitlines() == ['{"device": "d", "truncated": false}', 'a "quoted" line',
                                 "second line"]
    data = base64.b64encode(bytes(range(256)) * 2).decode()
    text = tools.to_text({"ok": True, "tool": "read_file", "base64": data, "size": 512})
    assert all(len(line) <= 76 for line in text.splitlines()[1:])
    assert "".join(text.splitlines()[1:]) == data
    log = "".join(f"{i:05d} {'y' * 40}\n" for i in range(1000))
    cut = cut_log(log, 2000)
    assert cut["truncated"] and len(cut["log"]) <= 2000
    first, *kept = cut["log"].splitlines()
    assert first.startswith("# cut (max_chars):") and kept[-1].startswith("00999")
    assert f"{1000 - len(kept)} earlier lines" in first
    assert cut_log(log, None) == {"log": log, "truncated": False}


def test_read_file_keeps_text_when_the_cut_splits_a_character(page):
    gcall(page, "write_file", {"path": "/sdcard/u.txt", "text": "aé" * 10})
    r = ok(gcall(page, "read_file", {"path": "/sdcard/u.txt", "max_bytes": 2}))
    assert r["text"] == "a" and r["truncated"] is True  # 'é' cut in two: dropped, not base64


def test_drawing_refuses_huge_screenshots(page, monkeypatch):
    pytest.importorskip("PIL", reason="the vision group draws with Pillow ([vision] extra)")
    import struct
    import zlib

    from baremobile.page import Screenshot

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body))

    huge = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 12000, 12000, 8, 2,
                                                              0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""))
    monkeypatch.setattr(page, "screenshot", lambda: Screenshot(huge))
    for name in ("grid_screenshot", "annotated_screenshot"):
        e = err(gcall(page, name, {}), "COMMAND_FAILED")
        assert "12000x12000" in e["message"]


# -- diffs: snapshot {diff: true}, observe "diff" --------------------------------------------


def test_snapshot_diff_and_observe_diff(page, phone):
    from baremobile.snapshot.diff import apply, full_note

    first = ok(tools.call(page, "snapshot", {"diff": True}))["snapshot"]
    assert full_note(1) == "" and first.startswith("# 1080x2400 portrait\n")  # nothing
    # seen before: the first observation is the screen itself
    seen = apply(first, "")
    ok(tools.call(page, "launch", {"package": SETTINGS}))
    full = ok(tools.call(page, "snapshot", {}))["snapshot"]
    lst = ref_of(page, role="List")  # find takes a snapshot of its own: it does not count
    old_refs = set(page.last_snapshot.refs)
    r = ok(tools.call(page, "scroll", {"ref": lst, "direction": "down"}, observe="diff",
                      settle=0))
    # against the whole snapshot shown last (it has no number: not "from snapshot N")
    assert r["snapshot"].startswith("# diff 2;")
    assert r["refs"] == len(page.last_snapshot.refs)
    assert apply(r["snapshot"], full) == page.last_snapshot.full_text
    assert "Network & internet" not in page.last_snapshot.text  # scrolled away…
    gone = [r_ for r_ in range(1, 100) if r_ in old_refs and r_ not in page.last_snapshot.refs]
    assert gone and r["snapshot"].split("\n")[0].endswith(  # … and the diff says which refs
        f"gone: refs {gone[0]}-{gone[-1]}")
    assert seen != full
    # the session setting, as configure sets it
    s = tools.session_for(page)
    ok(tools.call(s, "configure", {"observe": "diff", "settle": 0}, groups=["session"]))
    before = page.last_snapshot.full_text
    r = ok(tools.call(s, "scroll", {"ref": lst, "direction": "up"}))
    assert r["snapshot"].startswith("# diff 3")
    assert apply(r["snapshot"], before) == page.last_snapshot.full_text
    # back where snapshot 2 was: the diff is taken against it, and says so
    r = ok(tools.call(s, "scroll", {"ref": lst, "direction": "down"}))
    assert r["snapshot"] == "# diff 4 from 2: no change"
    err(tools.call(s, "configure", {"observe": "yes"}, groups=["session"]), "INVALID_ARGUMENT")
    err(tools.call(page, "back", {}, observe="sometimes"), "INVALID_ARGUMENT")
    ok(tools.call(s, "configure", {"observe": False}, groups=["session"]))
    assert "snapshot" not in ok(tools.call(s, "back", {}))


def test_a_diff_longer_than_max_chars_gives_the_cut_screen(page):
    from baremobile.snapshot.diff import full_note

    ok(tools.call(page, "snapshot", {}))
    ok(tools.call(page, "launch", {"package": SETTINGS}))
    r = ok(tools.call(page, "snapshot", {"diff": True, "max_chars": 300}))
    assert full_note(1) == "" and r["snapshot"].startswith("# 1080x2400 portrait")
    assert len(r["snapshot"]) <= 300 and r["truncated"] is True
