"""Each failure is reported as what it is: bad arguments as ``INVALID_ARGUMENT`` before
anything is sent, the device's faults as the device's, this computer's as its own — and
hints name the verbs of whoever reads them.

Driven through the public API over TCP into the virtual phone, whose event log shows
what reached the device.
"""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import connect, tools
from baremobile.errors import (
    PYTHON_VERBS,
    BaremobileError,
    CommandFailed,
    InvalidArgument,
    RefNotFound,
)
from baremobile.page import Screenshot
from baremobile.tools import spec
from baremobile.tools.dispatch import tool_verbs

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

#: Any text with at least one lone surrogate somewhere (JSON "\ud800" decodes to one).
ANY = st.text(st.characters(exclude_categories=()), max_size=8)
WITH_SURROGATE = st.builds(lambda a, s, b: a + s + b, ANY,
                           st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), ANY)


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        p.snapshot()
        yield p


def _nothing_reached_the_device_and_the_link_held(page, phone, since):
    assert phone.events.list(since=since) == []  # nothing was sent
    page.tap_xy(1, 1)  # the same connection still works: no reconnect
    assert [e.kind for e in phone.events.list(since=since)
            if e.kind in ("connect", "open")] == ["open"]


# -- lone surrogates: INVALID_ARGUMENT before anything is sent --------------------------------

PAGE_VERBS = {
    "open_url": lambda p, s: p.open_url("https://example.com/" + s),
    "intent data": lambda p, s: p.intent("android.intent.action.VIEW", "geo:0,0?q=" + s),
    "intent extra value": lambda p, s: p.intent("android.intent.action.VIEW",
                                                extras={"k": s}),
    "shell": lambda p, s: p.shell("echo " + s),
    "push path": lambda p, s: p.push(b"x", "/sdcard/" + s),
    "pull path": lambda p, s: p.pull("/sdcard/" + s),
    "pull_into path": lambda p, s: p.pull_into("/sdcard/" + s, io.BytesIO()),
    "type": lambda p, s: p.type(1, s),
    "press": lambda p, s: p.press(s),
    "launch": lambda p, s: p.launch("com.example." + s),
    "read_log tag": lambda p, s: p.read_log(tag=s),
    "launch label": lambda p, s: p.launch(label=s),
    "list_apps name": lambda p, s: p.list_apps(s),
    "append_file path": lambda p, s: p.append_file("/sdcard/" + s, "x"),
    "delete_file path": lambda p, s: p.delete_file("/sdcard/" + s),
    "list_files path": lambda p, s: p.list_files("/sdcard/" + s),
    "rotate": lambda p, s: p.rotate(s),
}


@FAST
@given(verb=st.sampled_from(sorted(PAGE_VERBS)), text=WITH_SURROGATE)
def test_a_lone_surrogate_in_any_page_verb_is_an_invalid_argument(page, phone, verb, text):
    since = phone.events.last_seq
    with pytest.raises(InvalidArgument):
        PAGE_VERBS[verb](page, text)
    _nothing_reached_the_device_and_the_link_held(page, phone, since)


#: Valid values for every required argument, so that the one under test reaches as deep
#: as it can.
VALID = {"text": "x", "direction": "down", "package": "com.android.settings",
         "uri": "https://example.com", "permission": "android.permission.CAMERA",
         "apk": "app.apk", "path": "/sdcard/x.txt", "local_path": "x.txt",
         "tag": "ActivityManager", "cell": "A1", "x1": 1, "y1": 1, "x2": 2, "y2": 2,
         "key": "back", "selector": {"text": "x"}, "orientation": "portrait", "scale": 2,
         "paths": [[{"x": 1, "y": 1, "time": 0}, {"x": 2, "y": 2, "time": 9}]],
         "steps": [{"tool": "back"}], "expression": "1 + 1",  # eval's: gated, see below
         "old_text": "line", "new_text": "row", "seconds": 0}
STRING_ARGUMENTS = sorted(
    (t.name, name)
    for t in spec.TOOLS
    for name, schema in t.parameters()["properties"].items()
    if schema.get("type") == "string" or name in ("key", "selector")
)
#: Strings only matched against the last snapshot on this computer, never sent.
LOCAL_ONLY = {("find", "selector"), ("wait_for_text", "text"), ("tap", "selector"),
              ("long_press", "selector"), ("scroll", "selector"), ("type", "selector")}


@FAST
@given(which=st.sampled_from(STRING_ARGUMENTS), text=WITH_SURROGATE)
def test_a_lone_surrogate_in_any_tool_argument_is_an_invalid_argument(page, phone, tmp_path,
                                                                      which, text):
    tool, name = which
    t = spec.get(tool)
    args = {k: VALID[k] for k in t.parameters().get("required", ())}
    args[name] = {"text": text} if name == "selector" else text
    if tool == "wait_for_text":
        args["timeout"] = 0
    (tmp_path / "app.apk").write_bytes(b"PK")
    (tmp_path / "x.txt").write_bytes(b"x")
    since = phone.events.last_seq
    page.allow_eval = tool == "eval"  # the gated tool, served so that its checks run
    r = tools.call(page, tool, args, groups=["all", "eval"], files_dir=tmp_path)
    if (tool, name) in LOCAL_ONLY:  # matched here: found nothing, or refused
        assert r["ok"] or r["error"]["category"] in ("INVALID_ARGUMENT", "REF_NOT_FOUND",
                                                     "TIMEOUT"), r
    else:
        assert not r["ok"] and r["error"]["category"] == "INVALID_ARGUMENT", r
    if tool not in {"find", "wait_for_text", "tap", "long_press", "scroll", "type"}:
        _nothing_reached_the_device_and_the_link_held(page, phone, since)


# -- PNGs: the device's fault is the device's ------------------------------------------------


def _png(width: int = 4, height: int = 2) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\0" + b"\0" * 3 * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + \
        chunk(b"IEND", b"")


@pytest.fixture
def screencap_says(monkeypatch):
    """Make the phone's screencap print these bytes (a broken device or encoder)."""
    from baremobile.virtual.commands import COMMANDS

    def arm(data: bytes) -> None:
        def screencap(p):
            yield 1, data
            return 0

        monkeypatch.setitem(COMMANDS, "screencap", screencap)

    return arm


@pytest.mark.parametrize("data", [
    _png()[:20],  # cut inside the header: struct.error before
    b"\x89PNG\r\n\x1a\n",  # a bare signature: "not a PNG" blamed on the arguments before
    _png()[:-12],  # no IEND: the transfer or the encoder stopped early
])
def test_a_broken_png_from_the_device_is_the_devices_failure(page, screencap_says, data):
    screencap_says(data)
    with pytest.raises(CommandFailed, match="broken PNG") as exc:
        page.screenshot()
    assert not isinstance(exc.value, InvalidArgument) and exc.value.hint
    r = tools.call(page, "screenshot", {})
    assert r["error"]["code"] == "COMMAND_FAILED", r
    assert "take the screenshot again" in r["error"]["hint"]


def test_a_png_the_caller_passes_is_checked_as_the_callers():
    assert Screenshot(_png(4, 2)).width == 4
    for bad in (_png()[:20], b"\x89PNG\r\n\x1a\n", b"", _png()[:-12], "text"):
        with pytest.raises(InvalidArgument, match="not a complete PNG"):
            Screenshot(bad)  # type: ignore[arg-type]


# -- hints in the reader's words ---------------------------------------------------------------


def test_every_vocabulary_names_every_verb_a_hint_may_use():
    """Every placeholder a hint anywhere in the package uses is worded at every door: a
    tool of the table (its words rendered from its row; in Python its verb — so its name
    must be a Page verb) or a row of HINT_VERBS."""
    import ast
    import re
    from pathlib import Path

    from baremobile.cli.output import cli_words
    from baremobile.errors import HINT_VERBS
    from baremobile.page.steps import facts
    from baremobile.tools.dispatch import hint_words

    used: set[str] = set()
    for path in Path(tools.__file__).parent.parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values = []
            if isinstance(node, ast.keyword) and node.arg == "hint":
                values.append(node.value)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(getattr(t, "attr", getattr(t, "id", "")) in ("hint", "default_hint")
                       for t in targets) and node.value is not None:
                    values.append(node.value)
            for value in values:
                for part in ast.walk(value):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        used |= set(re.findall(r"\{([a-z_]+)\}", part.value))
    unknown = used - {t.name for t in tools.TOOLS} - set(HINT_VERBS)
    assert not unknown, f"placeholders no door words: {unknown}"
    assert {"snapshot", "list_apps", "list_files", "devices", "back"} <= used
    for key in used:
        assert key in HINT_VERBS or facts(key) is not None, f"{{{key}}}: no Page verb {key}"
        for words in (tool_verbs(), cli_words(), hint_words("daemon"), hint_words("python")):
            assert key in words, key
        assert not BaremobileError("m", hint=f"{{{key}}}").hint.startswith("{")
    assert set(tool_verbs()) == set(cli_words()) == set(hint_words("daemon"))


@pytest.mark.fast
def test_tool_hints_name_tools_with_their_prefix_never_python(page, phone):
    r = tools.call(page, "android_tap", {"ref": 999}, prefix="android_")
    hint = r["error"]["hint"]
    assert "the android_snapshot tool" in hint and "page." not in hint
    r = tools.call(page, "wait_for_text", {"text": "never there", "timeout": 0})
    assert r["error"]["code"] == "TIMEOUT"
    assert "the last snapshot result" in r["error"]["hint"]
    assert "page." not in r["error"]["hint"]
    r = tools.call(page, "launch", {"package": "com.example.missing"}, groups="all")
    assert "list_apps tool" in r["error"]["hint"] and "page." not in r["error"]["hint"]
    # the Python API keeps speaking Python
    with pytest.raises(RefNotFound) as exc:
        page.tap(999)
    assert "page.snapshot()" in exc.value.hint and "page.snapshot()" in str(exc.value)


def test_device_file_errors_come_with_a_hint(page, tmp_path):
    r = tools.call(page, "pull_file", {"path": "/sdcard/missing", "local_path": "m"},
                   groups="files", files_dir=tmp_path)
    assert r["error"]["code"] == "COMMAND_FAILED"
    assert "list_files tool" in r["error"]["hint"]
    r = tools.call(page, "read_file", {"path": "/sdcard/missing"}, groups="files")
    assert "list_files tool" in r["error"]["hint"]
    (tmp_path / "a.txt").write_text("x")
    r = tools.call(page, "push_file", {"local_path": "a.txt", "path": "/system/a.txt"},
                   groups="files", files_dir=tmp_path)
    assert r["error"]["code"] == "COMMAND_FAILED" and "list_files tool" in r["error"]["hint"]


@pytest.mark.fast
def test_a_hint_may_hold_braces_that_are_not_verbs():
    e = BaremobileError("m", hint='tap {"text": "OK"} or {unknown_verb}, then {snapshot}')
    assert PYTHON_VERBS.get("snapshot") is None  # a tool: its verb, page.snapshot()
    assert e.hint == 'tap {"text": "OK"} or {unknown_verb}, then page.snapshot()'
    assert e.to_dict(tool_verbs("x_"))["hint"].endswith("then the x_snapshot tool")
