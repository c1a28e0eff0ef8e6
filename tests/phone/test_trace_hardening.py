"""Hardening, round four (issue 28), the trace items: hidden text stays hidden everywhere it
is recorded (2), a trace file is data (3, with the viewer's Chromium test in
test_trace_view.py), a recording stays inside itself (4), no trace overwrites another (5),
bounded and lazy reads (7), one image gate for every PNG decode (10), typed errors for
hostile traces and damaged device PNGs (12) — and hypothesis over trace files."""

from __future__ import annotations

import json
import os
import struct
import time
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import connect
from baremobile.errors import BaremobileError, CommandFailed, InvalidArgument, LocalIOError
from baremobile.safetext import escape_text
from baremobile.trace import open_trace
from baremobile.trace.format import MAX_BLOB, RecordingExists
from baremobile.trace.graph import navigation_graph
from baremobile.trace.record import trace_door
from baremobile.trace.scenario import to_scenario
from baremobile.trace.summary import summary
from baremobile.trace.view import render_html
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.verified_flows import SETTINGS, ref_of

NOTES = "org.baremobile.notes"


def _everything(path: Path) -> bytes:
    with zipfile.ZipFile(path) as z:
        return b"".join(n.encode() + z.read(n) for n in z.namelist())


def _all_outputs(path: Path, tmp: Path) -> str:
    """Everything the trace commands make of a trace, as one text."""
    with open_trace(path) as trace:
        parts = [summary(trace), json.dumps(navigation_graph(trace), ensure_ascii=False),
                 render_html(trace)]
        try:
            to_scenario(trace, tmp / "sc")
        except BaremobileError as exc:  # a typed refusal is a result too
            parts.append(exc.message)
    parts += [p.read_text(errors="replace") for p in (tmp / "sc").rglob("*") if p.is_file()]
    return "\n".join(parts)


# -- item 2: hidden text stays hidden, everywhere it is recorded ----------------------------

def _login_fields(page):
    page.launch(NOTES)
    snap = page.snapshot()
    fields = [r for r, n in snap.refs.items() if n.editable]
    return snap, fields


def test_a_password_typed_into_the_focused_field_is_hidden(tmp_path):
    """``type(None, secret)``: no element resolved, but the field with focus is a password
    field — the secret is hidden, and blanked in every later record."""
    secret = "focus-pass-42"
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip", screenshots=True):
        snap, fields = _login_fields(page)
        assert snap.refs[fields[-1]].password
        page.tap(fields[-1])
        page.snapshot()
        page.type(None, secret)
        page.snapshot()
    assert secret.encode() not in _everything(tmp_path / "t.zip")
    with open_trace(tmp_path / "t.zip") as trace:
        typed = next(s for s in trace.steps if s["verb"] == "type")
        assert typed["args"]["text"] == f"<{len(secret)} characters>"
        assert typed["args"]["hidden"] is True
    assert secret not in _all_outputs(tmp_path / "t.zip", tmp_path)


def test_a_hidden_secret_with_quotes_and_backslashes_is_blanked_in_every_escaping(tmp_path):
    """The snapshot grammar writes ``"`` as ``\\"`` and ``\\`` as ``\\\\``: a secret holding
    them is found in that form too — in snapshot texts, in the element a later step hit
    (``target.label`` / ``target.text``), in JSON, in the dumps, in the summary, the graph
    and the page."""
    secret = 'my "quoted" C:\\path note'
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip", screenshots=True):
        page.launch(NOTES)
        snap = page.snapshot()
        field = ref_of(snap, role="TextInput")
        with page.tracing.sensitive():
            page.type(field, secret)
        shown = page.snapshot()
        assert escape_text(secret) in shown.text  # the agent sees it, escaped
        page.tap(field)  # its element's text is the secret now
        page.press("back")  # before: the screen may still show it — no screenshot
        page.snapshot()
    blob = _everything(tmp_path / "t.zip")
    for form in (secret, escape_text(secret), json.dumps(secret)[1:-1], repr(secret)[1:-1],
                 secret.replace('"', "&quot;")):
        assert form.encode() not in blob, form
    with open_trace(tmp_path / "t.zip") as trace:
        tap = next(s for s in trace.steps if s["verb"] == "tap")
        assert secret not in tap["target"]["text"] and "•" in tap["target"]["text"]
        press = next(s for s in trace.steps if s["verb"] == "press")
        assert press["screenshot"]["skipped"] == "the screen may show text typed as sensitive"
    out = _all_outputs(tmp_path / "t.zip", tmp_path)
    assert secret not in out and escape_text(secret) not in out


def test_every_secret_argument_is_a_fact_of_the_verb(tmp_path):
    """What is secret comes from the verb (``@verb(secret=…)``), not from a list in the
    trace: ``edit_text``'s text and ``append_file``'s data are hidden like ``type``'s, and
    found again in a later result."""
    import baremobile.trace.record as record

    source = Path(record.__file__).read_text()
    assert "_TYPED = " not in source and '"type": "text"' not in source
    edited, content = "edited-secret-words", "file-secret-content"
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        page.launch(NOTES)
        snap = page.snapshot()
        field = ref_of(snap, role="TextInput")
        page.type(field, "visible start")
        with page.tracing.sensitive():
            page.edit_text(field, edited, offset=0)
            page.append_file("/sdcard/notes.txt", content)
        assert content in json.dumps(page.read_lines("/sdcard/notes.txt"))  # a later result
        page.snapshot()
    blob = _everything(tmp_path / "t.zip")
    assert edited.encode() not in blob and content.encode() not in blob
    assert b"visible start" in blob  # what was not marked stays
    with open_trace(tmp_path / "t.zip") as trace:
        edit = next(s for s in trace.steps if s["verb"] == "edit_text")
        append = next(s for s in trace.steps if s["verb"] == "append_file")
        assert edit["args"]["text"] == f"<{len(edited)} characters>" and edit["args"]["hidden"]
        assert append["args"]["data"] == f"<{len(content)} characters>"


def test_tool_doors_hide_short_secrets_in_the_tool_arguments(tmp_path, monkeypatch):
    """Hidden values shorter than 3 characters are not blanked everywhere (they would
    blank every "a"), but the tool call that carried one never shows it."""
    from baremobile import tools

    monkeypatch.setenv("BAREMOBILE_TRACE", str(tmp_path))
    with tools.Session() as session:
        tools.call(session, "launch", {"device": "virtual", "package": NOTES})
        tools.call(session, "snapshot", {"device": "virtual"})
        field = ref_of(session.page("virtual").last_snapshot, role="TextInput")
        assert tools.call(session, "type", {"device": "virtual", "ref": field,
                                            "text": "qz"})["ok"]
    (path,) = tmp_path.glob("tools-*.zip")
    with open_trace(path) as trace:
        typed = next(s for s in trace.steps if s["verb"] == "type")
        assert typed["args"]["text"] == "<2 characters>"
        assert "qz" not in json.dumps(typed["tool"]["arguments"])


# -- item 4: a recording stays inside itself -------------------------------------------------

def _crash_left(folder: Path, steps: list[dict]) -> Path:
    """A recording directory as a crash leaves it (no trace.json ``ended``)."""
    rec = folder / "t.zip.recording"
    for sub in ("steps", "dumps", "shots"):
        (rec / sub).mkdir(parents=True, exist_ok=True)
    (rec / "trace.json").write_text(json.dumps({"format": 2, "started": 1, "ended": None}))
    for i, step in enumerate(steps, 1):
        (rec / "steps" / f"{i:06d}.json").write_text(json.dumps(step))
    return rec


def test_a_crash_left_directory_naming_host_files_embeds_and_copies_none(tmp_path):
    host = tmp_path / "host-secret.txt"
    host.write_text("HOST-FILE-CONTENT")
    os.mkfifo(tmp_path / "fifo")
    rec = _crash_left(tmp_path / "a", [
        {"n": 1, "verb": "snapshot", "dumps": [str(host), "../../host-secret.txt",
                                               "dumps/" + "a" * 24 + ".xml",
                                               "dumps/" + "b" * 24 + ".xml",
                                               "dumps/" + "c" * 24 + ".xml"],
         "screenshot": {"file": "shots/" + "d" * 24 + ".png", "when": "after"},
         "result": {"kind": "snapshot", "text": "x"}},
        {"n": 2, "verb": "tap", "acts": True, "before": str(host),
         "screenshot": {"file": "../host-secret.txt"}},
    ])
    (rec / "dumps" / ("a" * 24 + ".xml")).symlink_to(host)  # a link out
    (rec / "dumps" / ("b" * 24 + ".xml")).symlink_to("/dev/zero")
    os.mkfifo(rec / "dumps" / ("c" * 24 + ".xml"))  # would hang a reader
    (rec / "shots" / ("d" * 24 + ".png")).symlink_to(tmp_path / "fifo")
    started = time.monotonic()
    out = _all_outputs(tmp_path / "a" / "t.zip", tmp_path)
    assert time.monotonic() - started < 60  # nothing hung, /dev/zero was not read
    assert "HOST-FILE-CONTENT" not in out
    assert not list((tmp_path / "sc").rglob("*.png"))


def test_a_step_file_that_is_a_fifo_or_a_link_is_a_typed_error(tmp_path):
    rec = _crash_left(tmp_path / "f", [{"n": 1, "verb": "snapshot"}])
    os.mkfifo(rec / "steps" / "000002.json")
    with pytest.raises(InvalidArgument, match="not a regular file"):
        open_trace(rec)
    rec = _crash_left(tmp_path / "l", [{"n": 1, "verb": "snapshot"}])
    (rec / "steps" / "000002.json").symlink_to("/dev/zero")
    with pytest.raises(BaremobileError):
        open_trace(rec)
    os.mkfifo(tmp_path / "fifo-trace")  # given as the trace itself: refused, not opened
    with pytest.raises(InvalidArgument, match="not a trace"):
        open_trace(tmp_path / "fifo-trace")


# -- item 5: no trace overwrites another ---------------------------------------------------

def test_tool_door_traces_of_one_device_in_one_second_get_names_of_their_own(tmp_path,
                                                                            monkeypatch):
    monkeypatch.setenv("BAREMOBILE_TRACE", str(tmp_path))
    monkeypatch.setenv("BAREMOBILE_TRACE_DOOR", "daemon")
    with VirtualPhone(port=free_port()) as phone:
        pages = [connect(phone.address) for _ in range(3)]
        try:
            paths = [trace_door(p) for p in pages]
            for p in pages:
                p.launch(SETTINGS)
        finally:
            for p in pages:
                p.close()
    assert len(set(paths)) == 3 and all(p is not None and p.exists() for p in paths)
    for p in paths:
        with open_trace(p) as trace:
            assert trace.complete and [s["verb"] for s in trace.steps] == ["launch"]


def test_two_pages_of_one_device_never_delete_each_others_recording(tmp_path):
    with VirtualPhone(port=free_port()) as phone, connect(phone.address) as a, \
            connect(phone.address) as b:
        a.tracing.start(tmp_path / "t.zip")
        a.launch(SETTINGS)
        with pytest.raises(RecordingExists, match="being recorded"):
            b.tracing.start(tmp_path / "t.zip")
        a.snapshot()
        written = a.tracing.stop()
    with open_trace(written) as trace:
        assert [s["verb"] for s in trace.steps] == ["launch", "snapshot"]


def test_a_crash_left_recording_is_never_replaced(tmp_path):
    rec = _crash_left(tmp_path, [{"n": 1, "verb": "launch"}])
    with connect("virtual") as page, pytest.raises(RecordingExists, match="never stopped"):
        page.tracing.start(tmp_path / "t.zip")
    assert (rec / "steps" / "000001.json").exists()


def test_stop_with_the_directory_gone_is_a_typed_error(tmp_path):
    import shutil

    with connect("virtual") as page:
        page.tracing.start(tmp_path / "t.zip")
        page.launch(SETTINGS)
        shutil.rmtree(tmp_path / "t.zip.recording")
        with pytest.raises(LocalIOError, match="is gone"):
            page.tracing.stop()
        assert not page.tracing.recording
        page.tracing.start(tmp_path / "t.zip")  # and it records again
        assert page.tracing.stop() == (tmp_path / "t.zip").resolve()


# -- item 7: bounded, lazy reads ---------------------------------------------------------------

def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_a_huge_member_is_refused_unread_and_nothing_is_read_up_front(tmp_path):
    big = b"\0" * (MAX_BLOB + 1)  # ~64 MiB of zeros: ~64 KB deflated
    path = _zip(tmp_path / "bomb.zip", {
        "trace.json": json.dumps({"format": 2, "started": 1, "ended": 2}).encode(),
        "steps/000001.json": json.dumps({"n": 1, "verb": "snapshot", "acts": False,
                                         "dumps": ["dumps/" + "e" * 24 + ".xml"]}).encode(),
        "dumps/" + "e" * 24 + ".xml": big, "shots/" + "f" * 24 + ".png": big})
    del big
    assert path.stat().st_size < 2_000_000
    tracemalloc.start()
    try:
        with open_trace(path) as trace:  # reads trace.json and the steps, no blob
            assert tracemalloc.get_traced_memory()[1] < 8_000_000
            with pytest.raises(InvalidArgument, match="more than a trace's file may be"):
                trace.dump("dumps/" + "e" * 24 + ".xml")
            with pytest.raises(InvalidArgument):
                summary(trace) + render_html(trace)
        assert tracemalloc.get_traced_memory()[1] < 8_000_000
    finally:
        tracemalloc.stop()
    step = json.dumps({"n": 1, "verb": "x", "pad": "y" * (9 * 2**20)}).encode()
    path = _zip(tmp_path / "fat.zip", {"trace.json": b'{"format": 2}', "steps/1.json": step})
    with pytest.raises(InvalidArgument, match="more than a trace's file may be"):
        open_trace(path)


# -- item 10 and 12: one image gate; typed errors for damaged device PNGs --------------------

def _png(width: int, height: int, rows: bytes | None = None) -> bytes:
    """A grayscale PNG; ``rows`` (the raw scanlines) default to black."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    if rows is None:
        z = zlib.compressobj(9)
        line = b"\0" * (width + 1)
        parts = [z.compress(line) for _ in range(height)] if height * width < 5_000_000 \
            else [z.compress(line * 1000) for _ in range(height // 1000)]
        data = b"".join(parts) + z.flush()
    else:
        data = rows
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0,
                                                              0, 0, 0))
            + chunk(b"IDAT", data) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def huge_png() -> bytes:
    return _png(13_000, 13_000)  # 169 megapixels, a few hundred KB


def test_trace_screenshots_and_the_drawing_tools_pass_one_image_gate(tmp_path, huge_png):
    pytest.importorskip("PIL")
    from baremobile.page.screenshot import decode_png
    from baremobile.tools import images

    with VirtualPhone(port=free_port()) as phone, connect(phone.address) as page:
        phone.answer(["screencap"], huge_png)
        with page.tracing.start(tmp_path / "t.zip", screenshots=True):
            page.snapshot()
    with open_trace(tmp_path / "t.zip") as trace:
        assert "13000x13000 pixels, more than is decoded" in \
            trace.steps[0]["screenshot"]["skipped"]
    for decode in (decode_png, lambda png: images.draw_grid(png, 2, 2)):
        with pytest.raises(CommandFailed, match="more than is decoded"):
            decode(huge_png)


@pytest.mark.parametrize("what", ["corrupt", "empty"])
def test_a_damaged_device_png_is_a_typed_error_of_the_screenshot_tool(what):
    pytest.importorskip("PIL")
    from baremobile import tools

    png = _png(64, 64, zlib.compress(b"not scanlines at all")) if what == "corrupt" else \
        _png(0, 0, zlib.compress(b""))
    with VirtualPhone(port=free_port()) as phone, connect(phone.address) as page:
        phone.answer(["screencap"], png)
        result = tools.call(page, "screenshot", {})
    assert result["ok"] is False and result["error"]["code"] == "COMMAND_FAILED", result
    assert ("cannot be decoded" if what == "corrupt" else "empty image") in \
        result["error"]["message"]


# -- item 12 and the hypothesis over trace files ----------------------------------------------

_DUMP = (b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
         b'<node index="0" text="Hi" resource-id="" class="android.widget.FrameLayout" '
         b'package="com.example.app" content-desc="" checkable="false" checked="false" '
         b'clickable="true" enabled="true" focusable="true" focused="false" '
         b'scrollable="false" long-clickable="false" password="false" selected="false" '
         b'bounds="[0,0][1080,2400]" /></hierarchy>')
_DUMP_NAME = "dumps/" + "0" * 24 + ".xml"
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
    | st.sampled_from([_DUMP_NAME, "/etc/passwd", "../x", "shots/" + "1" * 24 + ".png",
                       "snapshot", "tap", "</script><b>", 1e308, -2**70]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)
_FIELDS = ["n", "verb", "args", "acts", "target", "before", "on", "dumps", "sent_before", "sent",
           "screen", "result", "error", "screenshot", "started", "seconds", "door", "tool"]
_STEP = st.one_of(
    st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=12),
    st.fixed_dictionaries({"n": st.integers(0, 5), "verb": st.sampled_from(
        ["tap", "type", "snapshot", "swipe", "pinch", "gesture", "intent", "launch"]),
        "acts": st.booleans(), "dumps": st.just([_DUMP_NAME]), "sent": _JSON,
        "target": _JSON, "args": _JSON, "result": _JSON}),
    _JSON)
_META = st.one_of(st.dictionaries(st.sampled_from(
    ["format", "started", "ended", "start_dump", "end_dump", "outcome", "title", "serial",
     "api_level", "options", "logcat"]), _JSON, max_size=8), _JSON)
_DEEP = "[" * 5000 + "]" * 5000


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(meta=_META, steps=st.lists(_STEP, max_size=5), deep=st.booleans(),
       as_dir=st.booleans())
def test_any_trace_file_gives_a_result_or_a_typed_error(tmp_path_factory, meta, steps, deep,
                                                       as_dir):
    """Every field any JSON type, any nesting: ``show``, ``summary``, ``graph`` and
    ``to-scenario`` answer a result or a typed error — never a traceback — within bounded
    memory, and the page never holds the data as markup."""
    tmp = tmp_path_factory.mktemp("h")
    members = {"trace.json": json.dumps(meta).encode(), _DUMP_NAME: _DUMP,
               "logcat.json": json.dumps({"lines": steps}).encode()}
    for i, step in enumerate(steps, 1):
        members[f"steps/{i:06d}.json"] = json.dumps(step).encode()
    if deep:
        members["steps/000099.json"] = _DEEP.encode()
    if as_dir:
        path = tmp / "t.zip.recording"
        for name, data in members.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
    else:
        path = _zip(tmp / "t.zip", members)
    tracemalloc.start()
    try:
        try:
            trace = open_trace(path)
        except BaremobileError:
            return
        with trace:
            for run in (summary, navigation_graph, render_html,
                        lambda t: to_scenario(t, tmp / "sc")):
                try:
                    out = run(trace)
                except BaremobileError:
                    continue
                if run is render_html:
                    assert out.count("<script") == 2
                    block = out.split('id="trace-data">', 1)[1].split("</script>", 1)[0]
                    assert "<" not in block and ">" not in block
                json.dumps(out if not hasattr(out, "scenario") else str(out.scenario))
        assert tracemalloc.get_traced_memory()[1] < 64_000_000
    finally:
        tracemalloc.stop()
