"""The tool rows issue 22 added or widened for clients of the reference servers
(clawperator, UFO's MobileAgent, Android Remote Control), driven through ``tools.call``
and through MCP (the SDK's own client) on the virtual phone — checking what the phone saw:
the field's text in the phone's own dump after an edit, the image's format and longest
side, the file on the phone, the keys and swipes it received."""

from __future__ import annotations

import base64
import io
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from baremobile import connect, tools
from baremobile.page.waits import similarity
from baremobile.virtual import VirtualPhone

PIL = pytest.importorskip("PIL.Image", reason="the image checks decode with Pillow")

NOTES = "org.baremobile.notes"
SETTINGS = "com.android.settings"
EMAIL = f"{NOTES}:id/email"


def call(page: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return tools.call(page, name, args, groups=["all"])


def ok(r: dict[str, Any]) -> dict[str, Any]:
    assert r["ok"], r
    return r


def err(r: dict[str, Any], code: str) -> dict[str, Any]:
    assert not r["ok"] and r["error"]["code"] == code, r
    return r["error"]


def field_on_phone(phone: VirtualPhone, resource_id: str) -> str:
    """The field's text as the phone itself shows it (its own dump, not through ADB)."""
    xml = phone.model.screens.dump_xml().decode()
    node = re.search(rf'<node [^>]*resource-id="{re.escape(resource_id)}"[^>]*>', xml)
    assert node, f"no {resource_id} on the phone's screen"
    return re.search(r' text="([^"]*)"', node.group(0)).group(1)


def decoded(r: dict[str, Any]) -> Any:
    return PIL.open(io.BytesIO(base64.b64decode(r["image"]["data"])))


@pytest.fixture
def page(phone: VirtualPhone):
    with connect(phone.address) as p:
        yield p


# -- screenshots sized for models ----------------------------------------------------------


def test_screenshot_formats_quality_and_longest_side(page, phone):
    default = ok(call(page, "screenshot", {}))
    img = decoded(default)
    assert img.format == "JPEG" and img.size == (461, 1024)
    assert default["image"]["mime_type"] == "image/jpeg" and default["scale"] > 2.3
    png = ok(call(page, "screenshot", {"format": "png"}))  # full size, lossless
    assert decoded(png).format == "PNG" and decoded(png).size == (461, 1024)
    full = ok(call(page, "screenshot", {"format": "png", "max_side": 4000}))
    assert decoded(full).size == (1080, 2400)
    small = ok(call(page, "screenshot", {"format": "jpeg", "quality": 30, "max_side": 640}))
    assert max(decoded(small).size) == 640
    assert len(small["image"]["data"]) < len(default["image"]["data"])
    webp = ok(call(page, "screenshot", {"format": "webp", "max_side": 800}))
    assert decoded(webp).format == "WEBP" and max(decoded(webp).size) == 800
    annotated = ok(call(page, "annotated_screenshot", {"max_side": 900, "quality": 70}))
    assert decoded(annotated).format == "JPEG" and max(decoded(annotated).size) == 900
    assert "[ref=" in annotated["snapshot"]
    assert len(phone.events.list("screencap")) == 6  # each call read the screen once
    err(call(page, "screenshot", {"format": "gif"}), "INVALID_ARGUMENT")
    err(call(page, "screenshot", {"max_side": 10}), "INVALID_ARGUMENT")


def test_without_pillow_the_screenshot_is_the_png_and_says_so(page, monkeypatch):
    for name in ("PIL", "PIL.Image"):
        monkeypatch.setitem(sys.modules, name, None)  # import PIL fails
    r = ok(call(page, "screenshot", {}))
    assert base64.b64decode(r["image"]["data"])[:4] == b"\x89PNG"
    assert (r["image"]["width"], r["image"]["height"]) == (1080, 2400)
    assert "Pillow" in r["note"] and "baremobile[vision]" in r["note"]
    e = err(call(page, "screenshot", {"format": "jpeg"}), "MISSING_DEPENDENCY")
    assert "Pillow" in e["message"] and "baremobile[vision]" in e["hint"]
    assert ok(call(page, "screenshot", {"format": "png"}))["image"]["width"] == 1080


# -- time ----------------------------------------------------------------------------------


def test_wait_and_waits_that_answer_not_found(page, phone):
    started = time.monotonic()
    assert ok(call(page, "wait", {"seconds": 0.3}))["done"] == "waited 0.3 s"
    assert time.monotonic() - started >= 0.3
    batch = ok(call(page, "execute", {"steps": [
        {"tool": "wait", "args": {"seconds": 0.1}},
        {"tool": "press", "args": {"key": "home"}}]}))
    assert batch["completed"] == 2 and phone.events.list("key")[-1]["keycode"] == 3
    err(call(page, "wait", {"seconds": -1}), "INVALID_ARGUMENT")
    dumps = len(phone.events.list("dump"))
    gone = ok(call(page, "wait_for", {"selector": {"text": "Nothing like it"}, "timeout": 0.6,
                                      "error_on_timeout": False}))
    assert gone["found"] is False and "did not appear" in gone["done"]
    assert len(phone.events.list("dump")) > dumps  # it looked
    assert ok(call(page, "wait_for", {"selector": {"text": "Settings"}}))["found"] is True
    still = ok(call(page, "wait_for", {"selector": {"text": "Settings"}, "gone": True,
                                       "timeout": 0.3, "error_on_timeout": False}))
    assert still["gone"] is False and still["match"]["text"] == "Settings"
    text = ok(call(page, "wait_for_text", {"text": "zzz", "timeout": 0.3,
                                           "error_on_timeout": False}))
    assert text == {**text, "found": False}
    err(call(page, "wait_for_text", {"text": "zzz", "timeout": 0.3}), "TIMEOUT")


def test_an_idle_wait_tolerates_a_changing_line(page, phone):
    call(page, "launch", {"package": NOTES})
    call(page, "tap", {"selector": {"id": "email"}})
    stop = threading.Event()

    def keep_typing() -> None:  # another client keeps changing one field: one line moves
        with connect(phone.address) as other:
            while not stop.is_set():
                other.shell("input text a")
                time.sleep(0.15)

    typist = threading.Thread(target=keep_typing)
    typist.start()
    try:
        busy = ok(call(page, "wait_stable", {"timeout": 2, "error_on_timeout": False}))
        assert busy["idle"] is False and busy["similarity"] < 100
        err(call(page, "wait_stable", {"timeout": 1.5, "match_percentage": 100}), "TIMEOUT")
        calm = ok(call(page, "wait_stable", {"timeout": 5, "match_percentage": 75}))
        assert calm["idle"] is True and 75 <= calm["similarity"] < 100
    finally:
        stop.set()
        typist.join(10)
    assert similarity("a\nb\nc\nd", "a\nb\nc\nd") == 100.0
    assert similarity("a\nb\nc\nd", "a\nb\nc\nX") == 75.0


# -- editing a field in place -----------------------------------------------------------------


def test_insert_replace_and_append_with_androids_keys(page, phone):
    call(page, "launch", {"package": NOTES})
    ok(call(page, "type", {"selector": {"resourceId": "email"}, "text": "ada@example.com"}))
    keys = len(phone.events.list("key"))
    r = ok(call(page, "insert_text", {"selector": {"id": "email"}, "text": "lovelace.",
                                      "offset": 4}))
    assert r["field_text"] == field_on_phone(phone, EMAIL) == "ada@lovelace.example.com"
    moved = [e["name"] for e in phone.events.list("key")[keys:]]
    assert moved[0] == "KEYCODE_MOVE_HOME" and moved[1:] == ["KEYCODE_DPAD_RIGHT"] * 4
    r = ok(call(page, "replace_text", {"selector": {"id": "email"}, "search": "example",
                                       "text": "analytical"}))
    assert field_on_phone(phone, EMAIL) == "ada@lovelace.analytical.com" == r["field_text"]
    keys = len(phone.events.list("key"))
    ok(call(page, "replace_text", {"selector": {"id": "email"}, "start": 0, "end": 4,
                                   "text": ""}))
    deleted = [e["name"] for e in phone.events.list("key")[keys:]]
    assert deleted.count("KEYCODE_DEL") == 4
    assert field_on_phone(phone, EMAIL) == "lovelace.analytical.com"
    ok(call(page, "insert_text", {"selector": {"id": "email"}, "text": "!"}))  # append
    assert field_on_phone(phone, EMAIL) == "lovelace.analytical.com!"
    assert err(call(page, "replace_text", {"selector": {"id": "email"}, "search": "zzz",
                                           "text": "y"}), "REF_NOT_FOUND")
    err(call(page, "insert_text", {"selector": {"id": "email"}, "text": "x", "offset": 99}),
        "INVALID_ARGUMENT")
    err(call(page, "replace_text", {"selector": {"id": "email"}, "text": "x"}),
        "INVALID_ARGUMENT")
    assert field_on_phone(phone, EMAIL) == "lovelace.analytical.com!"  # refusals changed nothing
    pw = err(call(page, "insert_text", {"selector": {"id": "password"}, "text": "x"}),
             "UNSUPPORTED")
    assert "password" in pw["message"]


# -- finding and reading ----------------------------------------------------------------------


def test_find_by_class_with_flags_and_camel_case_selectors(page, phone):
    call(page, "launch", {"package": NOTES})
    r = ok(call(page, "find", {"selector": {"class_name": "EditText"}}))
    assert r["count"] == 2
    email = r["matches"][0]
    assert email["resource_id"] == EMAIL and email["class_name"] == "android.widget.EditText"
    assert email["clickable"] is True and email["focusable"] is True
    assert email["enabled"] is True and email["checked"] is False
    assert email["scrollable"] is False
    full = ok(call(page, "find", {"selector": {"class_name": "android.widget.Button"}}))
    assert full["matches"][0]["text"] == "Sign in"
    assert ok(call(page, "find", {"selector": {"textContains": "sign in"}}))["count"] >= 1
    assert ok(call(page, "find", {"selector": {"descContains": "passw"}}))["count"] == 1
    ok(call(page, "tap", {"selector": {"resourceId": "email"}}))
    assert phone.events.list("tap")
    e = err(call(page, "find", {"selector": {"textcontains": "x"}}), "INVALID_ARGUMENT")
    assert "textcontains" in e["message"]


def test_read_inside_a_container_and_scroll_amounts(page, phone):
    call(page, "launch", {"package": SETTINGS})
    inside = ok(call(page, "read", {"selector": {"role": "Text"}, "all": True,
                                    "container": {"role": "List"}}))
    everywhere = ok(call(page, "read", {"selector": {"role": "Text"}, "all": True}))
    assert "Settings" in everywhere["texts"] and "Settings" not in inside["texts"]
    assert "Network & internet" in inside["texts"]
    snap = page.snapshot()
    lst = next(r for r, n in snap.refs.items() if n.role == "List")
    by_ref = ok(call(page, "read", {"selector": {"role": "Text"}, "all": True,
                                    "container_ref": lst}))
    assert by_ref["texts"] == inside["texts"]
    distances = {}
    for amount in ("small", "large", 0.5):
        ok(call(page, "scroll", {"direction": "down", "amount": amount}))
        swipe = phone.events.list("swipe")[-1]
        distances[amount] = swipe["y1"] - swipe["y2"]
        call(page, "scroll", {"direction": "up", "amount": amount})
    assert distances["small"] < distances[0.5] < distances["large"]
    assert distances["large"] == pytest.approx(3 * distances["small"], rel=0.05)
    err(call(page, "scroll", {"direction": "down", "amount": "huge"}), "INVALID_ARGUMENT")


def test_configure_refuses_a_blank_device(phone):
    with tools.Session(phone.address) as s:
        for blank in ("", "   "):
            e = err(tools.call(s, "configure", {"device": blank}, groups=["session"]),
                    "INVALID_ARGUMENT")
            assert "auto" in e["hint"]
        assert s.options.device == phone.address
        assert ok(tools.call(s, "snapshot", {}))["device"] == phone.address


# -- logs and files -----------------------------------------------------------------------


def test_logcat_until(page, phone):
    call(page, "press", {"key": "home"})
    now = time.time()
    before = ok(call(page, "logcat", {"until": now - 3600}))
    assert "VirtualPhone" not in before["log"]
    upto = ok(call(page, "logcat", {"until": now + 60, "lines": 5}))
    assert upto["log"].count("\n") <= 5 and "VirtualPhone" in upto["log"]
    iso = ok(call(page, "logcat", {"until": "2001-01-01T00:00:00"}))
    assert "VirtualPhone" not in iso["log"]
    err(call(page, "logcat", {"until": "yesterday"}), "INVALID_ARGUMENT")


def test_files_by_line_replace_and_storage_locations(page, phone):
    page.push("".join(f"line {i}\n" for i in range(1, 8)).encode(), "/sdcard/notes.txt")
    r = ok(call(page, "read_file", {"path": "/sdcard/notes.txt", "start_line": 3,
                                    "line_count": 2}))
    assert r["text"] == "3: line 3\n4: line 4\n" and r["has_more"] and r["next_line"] == 5
    last = ok(call(page, "read_file", {"path": "/sdcard/notes.txt", "start_line": 6}))
    assert last["text"] == "6: line 6\n7: line 7\n" and last["has_more"] is False
    err(call(page, "read_file", {"path": "/sdcard/none.txt", "start_line": 1}),
        "COMMAND_FAILED")
    r = ok(call(page, "replace_in_file", {"path": "/sdcard/notes.txt", "old_text": "line",
                                          "new_text": "row"}))
    assert r["replaced"] == 1
    on_phone = phone.model.fs.read("/storage/emulated/0/notes.txt").decode()
    assert on_phone.startswith("row 1\nline 2\n")
    r = ok(call(page, "replace_in_file", {"path": "/sdcard/notes.txt", "old_text": "line",
                                          "new_text": "row", "replace_all": True}))
    assert r["replaced"] == 6 and "line" not in phone.model.fs.read(
        "/storage/emulated/0/notes.txt").decode()
    err(call(page, "replace_in_file", {"path": "/sdcard/notes.txt", "old_text": "absent",
                                       "new_text": "x"}), "REF_NOT_FOUND")
    places = ok(call(page, "storage_locations", {}))["locations"]
    primary = next(p for p in places if p["kind"] == "primary")
    assert primary["path"] == "/storage/emulated/0" and primary["writable"] is True
    assert 0 < primary["available_bytes"] < primary["total_bytes"]
    assert any(p["path"] == "/data/local/tmp" for p in places)
    page.push(b"\0" * 4_000_000, "/sdcard/big.bin")
    after = ok(call(page, "storage_locations", {}))["locations"]
    assert primary["available_bytes"] - after[0]["available_bytes"] >= 3_900_000
    assert ["df", "-k", "/storage/emulated/0", "/data/local/tmp"] in phone.events.commands()


# -- the same rows over MCP, with the SDK's client --------------------------------------------


def test_the_rows_over_mcp(phone, tmp_path: Path):
    mcp = pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    del mcp
    from tests.doors.test_mcp_stdio import run_stdio, text_of

    async def body(s: Any) -> None:
        names = {t.name for t in (await s.list_tools()).tools}
        assert {"wait", "insert_text", "replace_text", "storage_locations",
                "replace_in_file"} <= names
        shot = await s.call_tool("screenshot", {"format": "jpeg", "quality": 60,
                                                "max_side": 800})
        image = shot.content[1]
        assert image.type == "image" and image.mime_type == "image/jpeg"
        assert max(PIL.open(io.BytesIO(base64.b64decode(image.data))).size) == 800
        r = await s.call_tool("wait_for_text", {"text": "zzz", "timeout": 0.3,
                                                "error_on_timeout": False})
        assert not r.is_error and r.structured_content["found"] is False
        assert not (await s.call_tool("wait", {"seconds": 0.1})).is_error
        await s.call_tool("launch", {"package": NOTES})
        await s.call_tool("type", {"selector": {"resourceId": "email"}, "text": "bob@x.com"})
        r = await s.call_tool("insert_text", {"selector": {"id": "email"}, "text": "by",
                                              "offset": 3})
        assert not r.is_error, text_of(r)
        r = await s.call_tool("replace_text", {"selector": {"id": "email"}, "search": "x.com",
                                               "text": "example.org"})
        assert r.structured_content["field_text"] == "bobby@example.org"
        found = await s.call_tool("find", {"selector": {"class_name": "EditText"}})
        assert found.structured_content["matches"][0]["resource_id"] == EMAIL
        places = await s.call_tool("storage_locations", {})
        assert places.structured_content["locations"][0]["available_bytes"] > 0
        blank = await s.call_tool("configure", {"device": ""})
        assert blank.is_error

    run_stdio(["--device", phone.address, "--groups", "all"], body, tmp_path / "mcp.log")
    assert field_on_phone(phone, EMAIL) == "bobby@example.org"
    assert [e["name"] for e in phone.events.list("key")].count("KEYCODE_DEL") == 5


def test_mcp_over_http_with_json_only_replies(phone):
    pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    import json
    import urllib.request

    from tests.doors.test_mcp_http import INIT, _start, run_http
    from tests.doors.test_mcp_stdio import server_env

    gen = _start(["--http", "127.0.0.1:0", "--device", phone.address, "--json-response"],
                 server_env(BAREMOBILE_MCP_TOKEN="tok"))
    server = next(gen)
    try:
        req = urllib.request.Request(server.url, data=json.dumps(INIT).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Accept": "application/json, text/event-stream",
                                              "Authorization": "Bearer tok"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.headers["Content-Type"].startswith("application/json")  # no SSE
            reply = json.loads(resp.read())
        assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "baremobile"

        async def body(s: Any) -> None:
            r = await s.call_tool("press", {"key": "home"})
            assert not r.is_error

        run_http(server.url, "tok", body)  # the SDK's client reads JSON replies too
        assert phone.events.list("key")[-1]["keycode"] == 3
    finally:
        gen.close()
