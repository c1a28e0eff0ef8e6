"""An Android Remote Control client, written from ARC's tool reference alone
(``shared/reference/android-remote-control-mcp-tools.md``, its ``docs/MCP_TOOLS.md``), run
unchanged against ``baremobile mcp --http … --stateless`` (issue 29).

The client does what the reference's curl examples do: every call is one ``POST /mcp`` of a
JSON-RPC request with ``Authorization: Bearer <token>`` and ``Content-Type:
application/json`` — no ``initialize``, no session id, no ``Accept`` — and reads what the
reference says comes back: ``result.content[0].text`` (the TSV screen, JSON for elements,
logs, files and apps, sentences for actions), ``isError`` for a tool's failure. What the
phone saw (its event log, its files, its field) is checked beside each answer.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from .test_mcp_http import HttpServer, _start
from .test_mcp_stdio import server_env

pytestmark = pytest.mark.usefixtures("mcp_sdk")  # the MCP SDK, imported when a test runs

TOKEN = "arc-token-0123456789"
NOTES = "org.baremobile.notes"
SDCARD = "/storage/emulated/0"


class ArcClient:
    """What an ARC user's script does (the reference's "Request Format" and curl lines)."""

    def __init__(self, url: str, token: str = TOKEN) -> None:
        self.url, self.token, self.next_id = url, token, 1

    def post(self, body: dict[str, Any], token: str | None = None) -> tuple[int, Any]:
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {token or self.token}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            body["params"] = params
        status, reply = self.post(body)
        assert status == 200, (status, reply)
        assert reply["jsonrpc"] == "2.0" and reply["id"] == self.next_id
        self.next_id += 1
        return reply

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.rpc("tools/call", {"name": name, "arguments": arguments or {}})
        assert "error" not in reply, reply  # tool failures are results, not JSON-RPC errors
        return reply["result"]

    def text(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        result = self.call(name, arguments)
        assert not result.get("isError"), result["content"][0]["text"]
        assert result["content"][0]["type"] == "text"
        return result["content"][0]["text"]

    def json(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return json.loads(self.text(name, arguments))

    def failure(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        result = self.call(name, arguments)
        assert result.get("isError") is True, result
        return result["content"][0]["text"]


def screen(text: str) -> dict[str, Any]:
    """``android_get_screen_state``'s text as the reference describes it: notes, the
    screen line, per window a header, the TSV header and one row per element."""
    out: dict[str, Any] = {"windows": [], "rows": []}
    lines = text.split("\n")
    assert all(line.startswith("note:") for line in lines[:4])
    m = re.fullmatch(r"screen:(\d+)x(\d+) density:(\d+) orientation:(\w+)", lines[4])
    assert m, lines[4]
    out["width"], out["height"] = int(m.group(1)), int(m.group(2))
    header = "id\tclass\ttext\tdesc\tres_id\tbounds\tflags"
    window: dict[str, str] = {}
    for line in lines[5:]:
        if line.startswith("--- window:"):
            assert line.endswith(" ---"), line
            window = dict(part.split(":", 1) for part in line[4:-4].split(" ")
                          if ":" in part)
            out["windows"].append(window)
        elif line != header:
            cells = line.split("\t")
            assert len(cells) == 7, line
            row = dict(zip(header.split("\t"), cells, strict=True))
            row["pkg"] = window["pkg"]
            out["rows"].append(row)
    return out


def row_with(state: dict[str, Any], **match: str) -> dict[str, str]:
    return next(r for r in state["rows"] if all(r[k] == v for k, v in match.items()))


def middle(bounds: str) -> tuple[int, int]:
    left, top, right, bottom = map(int, bounds.split(","))
    return (left + right) // 2, (top + bottom) // 2


def field_on_phone(phone: Any, resource_id: str) -> str:
    xml = phone.model.screens.dump_xml().decode()
    node = re.search(rf'<node [^>]*resource-id="{re.escape(resource_id)}"[^>]*>', xml)
    assert node, f"no {resource_id} on the phone's screen"
    text = re.search(r' text="([^"]*)"', node.group(0)).group(1)
    hint = re.search(r' hint="([^"]*)"', node.group(0))
    return "" if hint and text == hint.group(1) else text  # an empty field shows its hint


@pytest.fixture
def arc(phone) -> Iterator[tuple[ArcClient, HttpServer]]:
    gen = _start(["--http", "127.0.0.1:0", "--stateless", "--groups", "all",
                  "--device", phone.address], server_env(BAREMOBILE_MCP_TOKEN=TOKEN))
    server = next(gen)
    try:
        yield ArcClient(server.url), server
    finally:
        gen.close()


def test_arc_reads_the_screen_and_acts_on_elements_by_id(arc, phone):
    client, server = arc
    assert client.rpc("ping")["result"] == {}
    home = screen(client.text("android_get_screen_state"))
    assert (home["width"], home["height"]) == (1080, 2400)
    app = next(w for w in home["windows"] if w["type"] == "APPLICATION")
    assert app["pkg"] == "com.google.android.apps.nexuslauncher" and app["focused"] == "true"
    settings = row_with(home, text="Settings")
    assert re.fullmatch(r"node_\d+", settings["id"]) and "clk" in settings["flags"].split(",")

    found = client.json("android_find_elements", {"by": "text", "value": "settings"})
    assert [e["id"] for e in found["elements"]] == [settings["id"]]
    element = found["elements"][0]
    assert element["className"] == "android.widget.TextView" and element["clickable"]
    box = element["bounds"]
    assert f"{box['left']},{box['top']},{box['right']},{box['bottom']}" == settings["bounds"]
    exact = client.json("android_find_elements", {"by": "text", "value": "settings",
                                                  "exact_match": True})
    assert exact == {"elements": []}  # exact is case-sensitive

    since = phone.events.last_seq
    said = client.text("android_click_element", {"element_id": settings["id"]})
    assert said == f"Click performed on element '{settings['id']}'"
    taps = phone.events.list("tap", since=since)
    assert [(t["x"], t["y"]) for t in taps] == [middle(settings["bounds"])]
    inside = screen(client.text("android_get_screen_state"))
    assert next(w for w in inside["windows"] if w["type"] == "APPLICATION")["pkg"] == \
        "com.android.settings"

    # a label's id (inside a row) clicks its row; its details are its own full text
    label = client.json("android_find_elements", {"by": "text", "value": "network &"})
    network = label["elements"][0]
    assert network["text"] == "Network & internet" and not network["clickable"]
    details = client.text("android_get_element_details",
                          {"ids": [network["id"], "node_9999"]})
    assert details.split("\n") == ["id\ttext\tdesc", f"{network['id']}\tNetwork & internet\t-",
                                   "node_9999\tnot_found\tnot_found"]
    assert client.text("android_scroll_to_element", {"element_id": network["id"]}) == \
        f"Element '{network['id']}' is already visible"
    since = phone.events.last_seq
    client.text("android_long_click_element", {"element_id": network["id"]})
    pressed = phone.events.list("long_press", since=since)
    row = next(r for r in inside["rows"] if r["id"] == network["id"].rsplit("_", 1)[0])
    assert [(e["x"], e["y"]) for e in pressed] == [middle(row["bounds"])]

    # the screenshot: a JPEG of at most 700 px beside the text
    result = client.call("android_get_screen_state", {"include_screenshot": True})
    assert not result.get("isError") and result["content"][0]["type"] == "text"
    image = result["content"][1]
    assert image["type"] == "image" and image["mimeType"] == "image/jpeg"
    data = base64.b64decode(image["data"])
    assert data.startswith(b"\xff\xd8\xff")
    height = int.from_bytes(data[data.index(b"\xff\xc0") + 5:][:2], "big")
    assert height == 700  # the long side of a 1080x2400 screen

    assert "stateless" in "\n".join(server.stderr)


def test_arc_system_touch_and_gesture_tools(arc, phone):
    client, _ = arc
    for name, keycode, said in (
            ("android_press_home", 3, "Home button press executed successfully"),
            ("android_press_recents", 187, "Recents button press executed successfully"),
            ("android_press_back", 4, "Back button press executed successfully")):
        since = phone.events.last_seq
        assert client.text(name) == said
        assert [k["keycode"] for k in phone.events.list("key", since=since)] == [keycode]
    assert client.text("android_open_notifications") == \
        "Open notifications executed successfully"
    assert client.text("android_open_quick_settings") == \
        "Open quick settings executed successfully"
    client.text("android_press_home")

    since = phone.events.last_seq
    assert client.text("android_tap", {"x": 500, "y": 1000}) == "Tap executed at (500, 1000)"
    assert client.text("android_long_press", {"x": 500, "y": 1000, "duration": 2000}) == \
        "Long press executed at (500, 1000) for 2000ms"
    assert client.text("android_double_tap", {"x": 500, "y": 1000}) == \
        "Double tap executed at (500, 1000)"
    assert client.text("android_swipe", {"x1": 500, "y1": 1500, "x2": 500, "y2": 500,
                                         "duration": 300}) == \
        "Swipe executed from (500, 1500) to (500, 500) over 300ms"
    assert [(t["x"], t["y"]) for t in phone.events.list("tap", since=since)][0] == (500, 1000)
    press = phone.events.list("long_press", since=since)[0]
    assert (press["x"], press["y"], press["duration_ms"]) == (500, 1000, 2000)
    assert len(phone.events.list("double_tap", since=since)) == 1
    swipe = phone.events.list("swipe", since=since)[-1]
    assert (swipe["x1"], swipe["y1"], swipe["x2"], swipe["y2"], swipe["duration_ms"]) == \
        (500, 1500, 500, 500, 300)

    since = phone.events.last_seq
    assert client.text("android_pinch", {"center_x": 540, "center_y": 1200, "scale": 2.0}) \
        == "Pinch (zoom in) executed at (540, 1200) with scale 2.0 over 300ms"
    pinch = phone.events.list("pinch", since=since)
    assert len(pinch) == 1 and pinch[0]["scale"] == 2.0
    paths = [[{"x": 100, "y": 600, "time": 0}, {"x": 200, "y": 700, "time": 150},
              {"x": 300, "y": 800, "time": 300}]]
    assert client.text("android_custom_gesture", {"paths": paths}) == \
        "Custom gesture executed with 1 path(s), total 3 point(s)"
    moved = phone.events.list("swipe", since=since) + phone.events.list("gesture", since=since)
    assert moved, "the phone saw no gesture"


def test_arc_scroll_names_the_way_the_finger_moves(arc, phone):
    """ARC's ``android_scroll`` "up" swipes the finger up (its ActionExecutor), showing what
    is below — our scroll "down"."""
    client, _ = arc
    client.text("android_open_app", {"package_id": "com.android.settings"})
    for direction, finger_up in (("up", True), ("down", False)):
        since = phone.events.last_seq
        assert client.text("android_scroll", {"direction": direction, "amount": "large"}) \
            == f"Scroll {direction} (large) executed"
        swipe = phone.events.list("swipe", since=since)[-1]
        assert (swipe["y2"] < swipe["y1"]) is finger_up, swipe.detail
    distances = {}
    for amount in ("small", "medium", "large"):
        since = phone.events.last_seq
        client.text("android_scroll", {"direction": "up", "amount": amount})
        swipe = phone.events.list("swipe", since=since)[-1]
        distances[amount] = swipe["y1"] - swipe["y2"]
        client.text("android_scroll", {"direction": "down", "amount": amount})
    assert 0 < distances["small"] < distances["medium"] < distances["large"]
    assert "up, down, left or right" in client.failure("android_scroll",
                                                       {"direction": "sideways"})


def test_arc_types_into_a_field_by_id(arc, phone):
    client, _ = arc
    email = f"{NOTES}:id/email"
    assert client.text("android_open_app", {"package_id": NOTES}) == \
        f"App opened successfully: {NOTES}"
    waited = client.json("android_wait_for_element", {"by": "resource_id", "value": "email",
                                                      "timeout": 5000})
    assert waited["found"] is True and waited["element"]["editable"] is True
    field = waited["element"]["id"]
    said = client.text("android_type_append_text", {"element_id": field, "text": "ada@"})
    assert said == f"Typed 4 characters at end of element '{field}'.\nField content: ada@"
    client.text("android_type_append_text", {"element_id": field, "text": "example.com"})
    assert field_on_phone(phone, email) == "ada@example.com"  # appended, as ARC does
    said = client.text("android_type_insert_text", {"element_id": field, "text": "lovelace.",
                                                    "offset": 4})
    assert said.endswith("Field content: ada@lovelace.example.com")
    said = client.text("android_type_replace_text", {"element_id": field,
                                                     "search": "example", "new_text": "org"})
    assert said == (f"Replaced 7 characters with 3 characters in element '{field}'.\n"
                    "Field content: ada@lovelace.org.com")
    assert field_on_phone(phone, email) == "ada@lovelace.org.com"
    assert client.text("android_type_clear_text", {"element_id": field}) == \
        f"Text cleared from element '{field}'.\nField content: "
    assert field_on_phone(phone, email) == ""
    since = phone.events.last_seq
    assert client.text("android_press_key", {"key": "ENTER"}) == \
        "Key 'ENTER' pressed successfully"
    assert [k["keycode"] for k in phone.events.list("key", since=since)] == [66]

    gone = client.json("android_wait_for_element", {"by": "text", "value": "Nothing like it",
                                                    "timeout": 600})
    assert gone == {"found": False, "elapsedMs": 600}  # not an error: found says it
    idle = client.json("android_wait_for_idle", {"timeout": 3000})
    assert idle["message"] == "UI is idle" and idle["similarity"] == 100
    # a label outside any element takes no click; an id never given is not found
    title = client.json("android_find_elements", {"by": "text", "value": "Sign in to"})
    label = title["elements"][0]["id"]
    assert re.fullmatch(r"node_0_\d+", label)
    since = phone.events.last_seq
    assert "NOT_ACTIONABLE" in client.failure("android_click_element", {"element_id": label})
    assert "REF_NOT_FOUND" in client.failure("android_click_element",
                                             {"element_id": "node_9999"})
    assert "element_id" in client.failure("android_click_element", {"element_id": "abc123"})
    assert phone.events.list("tap", since=since) == []


@pytest.mark.fast
def test_arc_files_apps_and_logs(arc, phone):
    client, _ = arc
    places = client.json("android_list_storage_locations")
    primary = next(p for p in places if p["path"] == SDCARD)
    loc = primary["id"]
    assert primary["allow_write"] is True and primary["available_bytes"] > 0
    assert client.text("android_write_file", {"location_id": loc, "path": "notes/todo.txt",
                                              "content": "Buy groceries\nWalk the dog"}) == \
        "File written successfully: notes/todo.txt"
    assert client.text("android_append_file", {"location_id": loc, "path": "notes/todo.txt",
                                               "content": "\nFeed the cat"}) == \
        "Content appended successfully to: notes/todo.txt"
    assert client.text("android_file_replace", {
        "location_id": loc, "path": "notes/todo.txt", "old_string": "Buy groceries",
        "new_string": "Buy organic groceries", "replace_all": False}) == \
        "Replaced 1 occurrence(s) in: notes/todo.txt"
    on_phone = phone.model.fs.read(f"{SDCARD}/notes/todo.txt").decode()
    assert on_phone == "Buy organic groceries\nWalk the dog\nFeed the cat"
    first = client.text("android_read_file", {"location_id": loc, "path": "notes/todo.txt",
                                              "offset": 1, "limit": 2})
    lines = first.split("\n")
    assert lines[:2] == ["1| Buy organic groceries", "2| Walk the dog"]
    assert re.search(r"Use offset=3 to continue", lines[2])
    assert client.text("android_read_file", {"location_id": loc, "path": "notes/todo.txt",
                                             "offset": 3}) == "3| Feed the cat"
    listing = client.json("android_list_files", {"location_id": loc, "path": "notes",
                                                 "offset": 0, "limit": 200})
    assert listing["total_count"] == 1 and listing["has_more"] is False
    entry = listing["files"][0]
    assert (entry["name"], entry["path"], entry["is_directory"], entry["mime_type"]) == \
        ("todo.txt", "notes/todo.txt", False, "text/plain")
    assert entry["size"] == len(on_phone) and entry["last_modified"] > 0
    top = client.json("android_list_files", {"location_id": loc})
    assert {"name": "notes", "is_directory": True} in [
        {k: f[k] for k in ("name", "is_directory")} for f in top["files"]]
    assert client.text("android_delete_file", {"location_id": loc,
                                               "path": "notes/todo.txt"}) == \
        "File deleted successfully: notes/todo.txt"
    assert not phone.model.fs.exists(f"{SDCARD}/notes/todo.txt")
    assert "'..'" in client.failure("android_read_file", {"location_id": loc,
                                                          "path": "../../data/x"})
    assert "UNSUPPORTED" in client.failure("android_download_from_url", {
        "location_id": loc, "path": "x.jpg", "url": "https://example.com/x.jpg"})

    apps = client.json("android_list_apps", {"filter": "user", "name_query": "not"})
    assert {k: apps[0][k] for k in ("package_id", "name", "is_system")} == \
        {"package_id": NOTES, "name": "Notes", "is_system": False}
    assert all(not a["is_system"] for a in apps)
    client.text("android_open_app", {"package_id": NOTES})
    since = phone.events.last_seq
    assert client.text("android_close_app", {"package_id": NOTES}) == \
        f"App closed successfully: {NOTES}"
    assert ["am", "force-stop", NOTES] in phone.events.commands(since=since)

    logs = client.json("android_get_device_logs", {"last_lines": 5})
    assert set(logs) == {"logs", "line_count", "truncated"}
    assert 0 < logs["line_count"] <= 6 and "VirtualPhone" in logs["logs"]
    quiet = client.json("android_get_device_logs", {"tag": "VirtualPhone", "level": "E"})
    assert "VirtualPhone" not in quiet["logs"]  # its lines are I
    assert "last_lines" in client.failure("android_get_device_logs", {"last_lines": 5000})
    assert "UNSUPPORTED" in client.failure("android_get_clipboard")


def test_arc_slugs_and_the_token(arc, phone):
    client, _ = arc
    since = phone.events.last_seq
    assert client.text("android_pixel7_press_home") == "Home button press executed successfully"
    assert client.text("android_work_phone_double_tap", {"x": 10, "y": 500}) == \
        "Double tap executed at (10, 500)"
    assert [k["keycode"] for k in phone.events.list("key", since=since)] == [3]
    status, body = client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, token="wrong")
    assert status == 401 and json.loads(body)["error"] == "unauthorized"
    unknown = client.failure("android_teleport")
    assert "UNKNOWN_TOOL" in unknown


def test_other_systems_typed_text_never_reaches_the_log(phone, tmp_path):
    """An alias's secret (ARC's text to type, a clawperator execute's enter_text) is hidden
    in the server's log as our own tools' are — it was logged as given."""
    log = tmp_path / "mcp.log"
    gen = _start(["--http", "127.0.0.1:0", "--stateless", "--groups", "all",
                  "--device", phone.address, "--log-file", str(log)],
                 server_env(BAREMOBILE_MCP_TOKEN=TOKEN))
    server = next(gen)
    try:
        client = ArcClient(server.url)
        client.text("android_open_app", {"package_id": NOTES})
        field = client.json("android_find_elements", {"by": "resource_id",
                                                      "value": "email"})["elements"][0]["id"]
        client.text("android_type_append_text", {"element_id": field,
                                                  "text": "correct-horse-battery"})
        assert field_on_phone(phone, f"{NOTES}:id/email") == "correct-horse-battery"
        done = client.call("execute", {"actions": [
            {"id": "t", "type": "enter_text",
             "params": {"matcher": {"resourceId": "email"}, "text": "staple-99-secret"}}]})
        assert not done.get("isError"), done
        assert field_on_phone(phone, f"{NOTES}:id/email") == "staple-99-secret"
    finally:
        gen.close()
    logged = log.read_text()
    assert "android_type_append_text" in logged and "execute" in logged
    assert "correct-horse-battery" not in logged and "staple-99-secret" not in logged
    assert "<21 characters>" in logged and "<16 characters>" in logged
