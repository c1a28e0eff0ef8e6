"""Hardening, round three (issue 21): the parsers of untrusted input have a work bound, the
validator enforces every keyword the tool table uses, deep arguments are data, and the
operator's eval permission does not outlive its call.

Each test here failed on the code before the issue was fixed: a 15 KB APK whose manifest
claims hundreds of thousands of elements of 65,535 attributes (hours of CPU, the device
lock held after the caller's ``TIMEOUT``), a resource table whose sparse type chunks made
the label scan quadratic, ``execute {"steps": []}`` running, 50,000-deep JSON arguments
raising ``RecursionError`` out of the adapters, and ``Session(allow_eval=True)`` leaving the
Page's ``allow_eval`` on for good.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile import tools
from baremobile.android.apk import MAX_MANIFEST, ApkError, ApkInfo, read_apk
from baremobile.errors import InvalidArgument
from baremobile.page import connect
from baremobile.safetext import MAX_DEPTH, UntrustedJSON, clean, clean_data, loads, problem
from baremobile.tools.spec import TOOLS
from baremobile.tools.validate import ANNOTATIONS, KEYWORDS, unsupported_keywords, validate
from baremobile.virtual import VirtualPhone
from baremobile.virtual.apk import build_apk, manifest
from tests.conftest import free_port
from tests.daemon_helpers import RawClient, running_daemon
from tests.hostile_apks import HOSTILE_APKS, apk_of
from tests.scenario_helpers import bare_app, node

# -- helpers -----------------------------------------------------------------------------------


def bounded(fn: Callable[[], Any], seconds: float = 30.0) -> Any:
    """``fn()`` in a thread that must finish within ``seconds`` — a hang guard (the bombs
    below took hours before), not a speed test: ``benchmarks/hostile.py`` measures."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(("value", fn()))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out.append(("raised", exc))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s"
    kind, value = out[0]
    if kind == "raised":
        raise value
    return value


# -- 3. APK labels: a work bound, not only a size bound ----------------------------------------


def test_the_hostile_apks_are_small():
    """What a 15 KB download costs: the bombs inflate within the size limits."""
    for name, apk in HOSTILE_APKS.items():
        assert len(apk) < 200_000, name
        with zipfile.ZipFile(io.BytesIO(apk)) as z:
            assert z.getinfo("AndroidManifest.xml").file_size <= MAX_MANIFEST


@pytest.mark.parametrize("name", sorted(HOSTILE_APKS))
def test_hostile_manifests_and_tables_answer(name):
    try:
        info = bounded(lambda: read_apk(io.BytesIO(HOSTILE_APKS[name])))
    except ApkError:
        return
    assert isinstance(info, ApkInfo) and info.label in (None, "")


def test_names_and_values_are_read_only_as_far_as_needed():
    """An element name, a label or a version pointing at a megabyte string costs what the
    comparison needs (a few characters) or :data:`MAX_TEXT` characters, not the string."""
    huge = "A" * 2_000_000
    m = manifest("org.big", 7, huge, huge, None)
    info = bounded(lambda: read_apk(io.BytesIO(apk_of(m))))
    assert info.package == "org.big" and info.version_code == 7
    assert info.label == "A" * 1024 and info.version_name == "A" * 1024


@pytest.mark.fast
def test_real_apks_still_read(tmp_path):
    apk = build_apk("org.baremobile.weather", "Weather", 3, "3.1", "org.baremobile.weather.Main")
    assert read_apk(io.BytesIO(apk)).label == "Weather"
    assert read_apk(io.BytesIO(apk), language="fr").label == "Météo"


def test_launch_by_label_on_a_phone_holding_a_bomb_answers_and_frees_the_device(
        daemon_socket):
    """The core ``launch {"label": …}`` reads every launchable app's label: with a bomb
    among them it answered ``TIMEOUT`` while the parse kept the device lock (every later
    call ``BUSY``). Now it answers, and the device is usable."""
    from baremobile.virtual.commands.intents import apk_path, find_package

    with VirtualPhone(port=free_port()) as phone:
        victim = find_package(phone.model, "org.baremobile.weather")
        phone.model.fs.install(apk_path(victim), HOSTILE_APKS[
            "attributes that do not fit on every element"])
        with running_daemon(daemon_socket, devices=[phone.address]):
            c = RawClient(daemon_socket, timeout=120)
            got = c.call("tools/call", {"name": "launch", "arguments": {"label": "Notes"},
                                        "session": "s"}, timeoutMs=20_000)
            assert got["success"], got
            assert got["result"]["package"] == "org.baremobile.notes"
            again = c.call("tools/call", {"name": "snapshot", "arguments": {},
                                          "session": "s"}, timeoutMs=20_000)
            assert again["success"], again


def test_a_label_search_that_times_out_gives_the_device_back(daemon_socket):
    """With bombs in two APKs and a short timeout: whether the call answers in time or
    times out, its work ends and the device is usable — before, the parse kept the lock
    after the ``TIMEOUT`` and every later call was ``BUSY`` (for hours)."""
    from baremobile.virtual.commands.intents import apk_path, find_package

    with VirtualPhone(port=free_port()) as phone:
        for pkg, bomb in (("org.baremobile.weather", "attributes that do not fit on every "
                           "element"), ("org.baremobile.notes",
                                        "sparse chunks claiming entries to the end")):
            phone.model.fs.install(apk_path(find_package(phone.model, pkg)),
                                   HOSTILE_APKS[bomb])
        with running_daemon(daemon_socket, devices=[phone.address]):
            c = RawClient(daemon_socket, timeout=120)
            got = c.call("tools/call", {"name": "launch", "arguments": {"label": "Files"},
                                        "session": "s"}, timeoutMs=300)
            assert got["success"] or got["code"] == "TIMEOUT", got
            deadline = time.monotonic() + 20
            while True:
                again = c.call("tools/call", {"name": "press", "arguments": {"key": "home"},
                                              "session": "s"}, rid="again", timeoutMs=20_000)
                if again["success"] or time.monotonic() > deadline:
                    break
                assert again["code"] == "BUSY", again
                time.sleep(0.2)
            assert again["success"], again


# -- 12. the validator honours every keyword the tool table uses -------------------------------


def _keywords(schema: Any) -> set[str]:
    found: set[str] = set()
    stack = [schema]
    while stack:
        s = stack.pop()
        if isinstance(s, dict):
            found.update(s)
            stack.extend(s.get("properties", {}).values())
            stack.extend(s.get("anyOf", ()))
            stack.extend(v for k, v in s.items() if k in ("items", "additionalProperties")
                         and isinstance(v, dict))
    return found


@pytest.mark.fast
def test_every_keyword_of_every_tool_schema_is_implemented():
    used: set[str] = set()
    for t in TOOLS:
        schema = t.parameters()
        assert not unsupported_keywords(schema), (t.name, unsupported_keywords(schema))
        used |= _keywords(schema)
    assert used - ANNOTATIONS <= KEYWORDS, used - ANNOTATIONS - KEYWORDS
    # the walk itself sees what it must: a keyword nested in items, anyOf and properties
    odd = {"type": "object", "properties": {"a": {"type": "array", "items": {
        "anyOf": [{"type": "string", "format": "uri"}]}}}}
    assert unsupported_keywords(odd) == {"format"}


#: keyword -> (schema, a value it refuses, a value it accepts)
ENFORCED: dict[str, tuple[dict[str, Any], Any, Any]] = {
    "type": ({"type": "integer"}, "x", 3),
    "properties": ({"type": "object", "properties": {"a": {"type": "integer"}}},
                   {"a": "x"}, {"a": 1}),
    "required": ({"type": "object", "required": ["a"]}, {}, {"a": 1}),
    "additionalProperties": ({"type": "object", "properties": {},
                              "additionalProperties": False}, {"b": 1}, {}),
    "minProperties": ({"type": "object", "minProperties": 1}, {}, {"a": 1}),
    "maxProperties": ({"type": "object", "maxProperties": 1}, {"a": 1, "b": 2}, {"a": 1}),
    "enum": ({"enum": ["a", "b"]}, "c", "a"),
    "minimum": ({"type": "number", "minimum": 1}, 0, 1),
    "maximum": ({"type": "number", "maximum": 1}, 2, 1),
    "exclusiveMinimum": ({"type": "number", "exclusiveMinimum": 0}, 0, 0.5),
    "exclusiveMaximum": ({"type": "number", "exclusiveMaximum": 1}, 1, 0.5),
    "minLength": ({"type": "string", "minLength": 2}, "a", "ab"),
    "maxLength": ({"type": "string", "maxLength": 2}, "abc", "ab"),
    "pattern": ({"type": "string", "pattern": "^a+$"}, "b", "aa"),
    "anyOf": ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 1.5, 2),
    "items": ({"type": "array", "items": {"type": "integer"}}, ["x"], [1]),
    "minItems": ({"type": "array", "minItems": 1}, [], [1]),
    "maxItems": ({"type": "array", "maxItems": 1}, [1, 2], [1]),
}


@pytest.mark.fast
def test_every_implemented_keyword_is_enforced():
    assert set(ENFORCED) == set(KEYWORDS)
    extra = {"type": "object", "properties": {},
             "additionalProperties": {"type": "integer"}}
    with pytest.raises(InvalidArgument):
        validate({"b": "x"}, extra)
    assert validate({"b": 2}, extra) == {"b": 2}
    for keyword, (schema, bad, good) in ENFORCED.items():
        wrapped = {"type": "object", "properties": {"v": schema}}
        with pytest.raises(InvalidArgument):
            validate({"v": bad}, wrapped)
        assert validate({"v": good}, wrapped) == {"v": good}, keyword


def test_an_empty_or_oversized_batch_is_refused_before_anything_runs(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as page:
        since = phone.events.last_seq
        for steps in ([], [{"tool": "back"}] * 51):
            r = tools.call(page, "execute", {"steps": steps}, groups=["batch"])
            assert not r["ok"] and r["error"]["code"] == "INVALID_ARGUMENT", r
            assert "steps" in r["error"]["message"]
        r = tools.call(page, "pinch", {"scale": 0}, groups=["gestures"])
        assert not r["ok"] and r["error"]["code"] == "INVALID_ARGUMENT", r
        assert phone.events.list(since=since) == []
        assert tools.call(page, "execute", {"steps": [{"tool": "back"}]},
                          groups=["batch"])["ok"]


# -- 9. deep and malformed arguments are INVALID_ARGUMENT data, at every door ------------------


def deep(levels: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


def deep_json(levels: int) -> str:
    return '{"x": ' + "[" * levels + "]" * levels + "}"


@pytest.mark.parametrize("levels", [40, 5_000, 50_000])
def test_deep_arguments_are_invalid_argument_in_tools_call(levels):
    with tools.Session() as s:
        for name, args in (("tap", {"x": deep(levels)}),
                           ("execute", {"steps": [{"tool": "tap", "args": {"x": deep(levels)}}]}),
                           ("find", {"selector": {"text": deep(levels)}})):
            r = tools.call(s, name, args, groups=["batch"])
            assert not r["ok"] and r["error"]["code"] == "INVALID_ARGUMENT", (name, r)
            assert "nests deeper" in r["error"]["message"] or levels < 50, r


@pytest.mark.fast
def test_huge_numbers_are_invalid_arguments_not_internal_errors():
    with tools.Session() as s:
        for args in ({"ref": 10 ** 5000}, {"ref": -(2 ** 70)}, {"x": 10 ** 30, "y": 1},
                     {"x": float("nan"), "y": 1}, {"x": 1e308 * 10, "y": 1}):
            r = tools.call(s, "tap", args)
            assert not r["ok"] and r["error"]["code"] == "INVALID_ARGUMENT", (args, r)
            encodable = json.dumps(r, allow_nan=False)
            assert len(encodable) < 2000


def test_deep_json_arguments_through_the_adapters_bridge():
    from baremobile.integrations.bridge import Bridge

    with tools.Session() as s:
        bridge = Bridge(s)
        for raw in (deep_json(50_000), deep_json(5_000), '{"x": NaN}', "[" * 10, "{\"a\":"):
            r = bridge.call("tap", raw)
            assert not r["ok"] and r["error"]["code"] == "INVALID_ARGUMENT", r
        r = asyncio.run(bridge.acall("tap", deep_json(50_000)))
        assert r["error"]["code"] == "INVALID_ARGUMENT"


def test_deep_json_arguments_through_the_openai_agents_tool():
    pytest.importorskip("agents", reason="openai-agents is not installed")
    from baremobile.integrations import openai_agents

    with tools.Session() as s:
        tap = next(t for t in openai_agents.tools(s) if t.name == "tap")
        out = asyncio.run(tap.on_invoke_tool(None, deep_json(50_000)))
        assert isinstance(out, str) and out.startswith("error INVALID_ARGUMENT"), out


def test_deep_arguments_through_the_langchain_tool():
    """LangChain repr()s a call's input before running the tool: a 5,000-deep dict raised
    RecursionError out of ``tool.invoke``; it is an error ToolMessage now."""
    lc = pytest.importorskip("baremobile.integrations.langchain",
                             reason="langchain-core is not installed")
    with tools.Session() as s:
        tap = next(t for t in lc.tools(s) if t.name == "tap")
        for levels in (40, 5_000, 50_000):
            msg = tap.invoke({"type": "tool_call", "id": "c1", "name": "tap",
                              "args": {"x": deep(levels), "y": 1}})
            assert msg.status == "error" and "INVALID_ARGUMENT" in msg.content, msg
            assert "nests deeper" in msg.content
        text = asyncio.run(tap.ainvoke({"x": deep(5_000), "y": 1}))
        assert text.startswith("error INVALID_ARGUMENT"), text


def test_deep_arguments_through_the_daemon(phone, daemon_socket):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        c.send_raw(b'{"id": "p", "method": "tools/call", "params": {"name": "execute", '
                   b'"session": "s", "arguments": {"steps": [{"tool": "tap", "args": '
                   + deep_json(5_000).encode() + b"}]}}}\n")
        got = c.read()
        assert not got["success"] and got["code"] == "PARSE_ERROR", got  # json's own limit
        got = c.call("tools/call", {"name": "execute", "session": "s", "arguments": {
            "steps": [{"tool": "tap", "args": {"x": deep(120)}}]}}, rid="d")
        assert got["id"] == "d" and got["code"] == "INVALID_REQUEST", got
        got = c.call("tools/call", {"name": "execute", "session": "s", "groups": ["batch"],
                                    "arguments": {"steps": [{"tool": "tap",
                                                             "args": {"x": deep(40)}}]}})
        assert not got["success"] and got["code"] == "INVALID_ARGUMENT", got
        assert c.call("daemon/ping")["success"]


# -- safetext: the one rule ---------------------------------------------------------------------

ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_clean_text_always_encodes_and_keeps_what_was_valid(text):
    out = clean(text)
    out.encode("utf-8")  # never raises
    assert problem(out) is None
    if problem(text) is None:
        assert out == text
    assert len(out) <= len(text)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats() | ANY_TEXT | st.integers(),
                    lambda kids: st.lists(kids, max_size=4)
                    | st.dictionaries(ANY_TEXT, kids, max_size=4), max_leaves=30))
def test_clean_data_is_always_json(value):
    out = clean_data(value)
    json.dumps(out, ensure_ascii=False, allow_nan=False).encode("utf-8")
    assert problem(out) is None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_as_json_load_as_safe_data_or_refuse(data):
    try:
        value = loads(data)
    except UntrustedJSON:
        return
    json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")


def test_json_from_outside_is_cleaned_and_bounded():
    assert loads(b'{"a\\ud800": ["\\udfff", "\\ud83d\\ude00", 1e999]}') == \
        {"a\ufffd": ["\ufffd", "\U0001F600", None]}
    for bad in ("[NaN]", "[Infinity]", "[-Infinity]", "[" * 50_000 + "]" * 50_000,
                "1" * 5000, '{"a": 1,}'):
        with pytest.raises(UntrustedJSON):
            loads(bad)
    assert problem(deep(MAX_DEPTH - 1)) is None
    assert "nests deeper" in problem(deep(MAX_DEPTH + 1))
    assert "nests deeper" in problem(deep(200_000))  # iterative: any depth is answered


# -- also: the eval permission of a Session is its call's, not the Page's -----------------------


def test_session_allow_eval_does_not_switch_on_the_bare_page(phone, adb_key):
    with tools.Session(phone.address, allow_eval=True,
                       connect_options={"keys": [adb_key]}) as s:
        r = tools.call(s, "eval", {"expression": "1 + 1"}, groups=["eval"])
        # the demo phone shows no WebView: the call fails, but it was allowed to try
        assert not r["ok"] and r["error"]["code"] == "WEB_UNAVAILABLE", r
        page = next(iter(s.pages().values()))
        assert page.allow_eval is False
        from baremobile.errors import WebUnavailable

        with pytest.raises(WebUnavailable, match="off"):
            page.eval_js("document.cookie")


# -- MCP stdio: a line the SDK's parser refuses is still answered --------------------------------


def test_mcp_stdio_answers_lines_holding_a_lone_surrogate(tmp_path):
    """The SDK answers no line its parser refuses, and it refuses JSON holding an escaped
    lone surrogate: such a call stayed unanswered. Now a tools/call is answered
    INVALID_ARGUMENT naming where the surrogate is, anything else with its strings made
    safe; the server keeps serving."""
    pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    import select
    import subprocess
    import sys

    from tests.doors.test_mcp_stdio import server_env

    proc = subprocess.Popen([sys.executable, "-m", "baremobile", "mcp", "--device", "virtual"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=(tmp_path / "err.log").open("w"), env=server_env())
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: str) -> None:
        proc.stdin.write(line.encode("ascii") + b"\n")
        proc.stdin.flush()

    def answer() -> dict[str, Any]:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no answer within 60 s"
        return json.loads(proc.stdout.readline())

    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}))
        assert answer()["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": '
             '"type", "arguments": {"ref": 1, "text": "a\\ud800"}}}')
        got = answer()
        assert got["id"] == 2 and got["result"]["isError"] is True, got
        err = got["result"]["structuredContent"]["error"]
        assert err["code"] == "INVALID_ARGUMENT" and "arguments.text" in err["message"]
        send('{"jsonrpc": "2.0", "id": "\\udfff", "method": "ping"}')
        assert answer() == {"jsonrpc": "2.0", "id": "\ufffd", "result": {}}
        send('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": '
             '"snapshot", "arguments": {}}}')
        got = answer()
        assert got["id"] == 3 and not got["result"].get("isError"), got
    finally:
        proc.stdin.close()
        proc.wait(30)
    assert proc.returncode == 0


# -- 7. `baremobile find` prints a description as the snapshot does -----------------------------

@pytest.fixture
def desc_phone(tmp_path):
    """A screen whose button's content-desc holds a newline and a line that looks like a
    match (``&#10;`` in the dump, as an app can set any description)."""
    button = node("android.widget.Button", "[100,300][980,500]", clickable=True,
                  focusable=False,
                  desc='Pay later&#10;[ref=1] Button &quot;Pay now&quot;&#13;)x')
    root = node("android.widget.FrameLayout", "[0,0][1080,2400]", children=button)
    with VirtualPhone(bare_app(tmp_path, {"s": root}), port=free_port()) as phone:
        yield phone


def test_find_prints_one_line_per_match_whatever_the_description(desc_phone, tmp_path):
    from tests.daemon_helpers import cli

    out = tmp_path / "out"
    out.mkdir()
    r = cli("--no-daemon", "find", "--desc-contains", "Pay later", "-d", desc_phone.address,
            cwd=out)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and lines[1] == "1 match(es)", r.stdout
    assert lines[0].startswith("[ref=1] Button (Pay later\\n[ref=1] Button"), lines[0]
    assert lines[0].endswith('"Pay now"\\r\\)x)'), lines[0]
    # the snapshot shows the same description the same way
    snap = cli("--no-daemon", "snapshot", "-d", desc_phone.address, cwd=out).stdout
    shown = lines[0].split(" ", 2)[2]
    assert shown in snap, (shown, snap)


# -- dumps: any text a dump can carry, and a bound on attributes --------------------------------


def _dump(text: str, extra: str = "") -> bytes:
    from xml.sax.saxutils import quoteattr

    node = (f'<node index="0" text={quoteattr(text)} resource-id="" '
            'class="android.widget.Button" package="com.example" content-desc="" '
            'checkable="false" checked="false" clickable="true" enabled="true" '
            'focusable="false" focused="false" scrollable="false" long-clickable="false" '
            f'password="false" selected="false" bounds="[0,0][100,100]" {extra}/>')
    return ('<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">' + node
            + "</hierarchy>").encode("utf-8", "surrogatepass")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.characters(exclude_categories=()),
                          st.sampled_from(["\ud800", "\udfff", "\x00", "&#xD800;", "&#0;",
                                           "\u2028", "\n"])), max_size=20).map("".join))
def test_any_text_a_dump_carries_is_a_snapshot_or_a_typed_refusal(text):
    from baremobile.errors import InvalidDump
    from baremobile.snapshot import from_xml

    for raw in (_dump(text), _dump("x").replace(b'text="x"', b'text="' + text.encode(
            "utf-8", "surrogatepass").replace(b'"', b"&quot;") + b'"')):
        try:
            snap = from_xml(raw)
        except InvalidDump:
            continue
        snap.text.encode("utf-8")
        assert problem(snap.text) is None


def test_an_element_with_too_many_attributes_is_refused():
    from baremobile.errors import DumpTooLarge
    from baremobile.snapshot import from_xml

    ok = " ".join(f'a{i}=""' for i in range(100 - 17))
    assert from_xml(_dump("fine", ok)).refs
    with pytest.raises(DumpTooLarge) as err:
        from_xml(_dump("many", ok + ' one_more=""'))
    assert err.value.limit == "max_attributes"
    big = " ".join(f'a{i}=""' for i in range(300_000))
    with pytest.raises(DumpTooLarge):
        bounded(lambda: from_xml(_dump("huge", big)))


# -- a command's answer held in memory is bounded -----------------------------------------------


def test_a_command_that_answers_without_end_is_refused_and_the_link_holds(phone, adb_key,
                                                                          monkeypatch):
    from baremobile.errors import CommandFailed
    from baremobile.transport import base

    monkeypatch.setattr(base, "MAX_OUTPUT", 1 << 20)
    with connect(phone.address, keys=[adb_key]) as page:
        with pytest.raises(CommandFailed, match="more than 1 MiB"):
            page.shell("seq 1 500000")
        with pytest.raises(CommandFailed, match="more than 1 MiB"):
            page.transport.exec_out("seq 1 500000")
        assert page.shell("echo still here").strip() == "still here"
        assert page.transport.exec_out("seq 1 20000").split()[-1] == b"20000"
