"""Traces (issue 23): recording a session, reading it back, replaying it as a virtual phone.

The phone recorded is ``baremobile virtual`` in a process of its own, reached over TCP like
a real device (the recorder knows nothing of it); the replay is the converted scenario
served by ``connect("virtual:DIR")``, so a snapshot equal on both sides means the same
bytes reached the same pruner through the real ADB protocol.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import connect, connect_async
from baremobile.errors import BaremobileError, InvalidArgument
from baremobile.trace import open_trace
from baremobile.trace.graph import navigation_graph
from baremobile.trace.scenario import to_scenario
from baremobile.trace.summary import summary
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.verified_flows import FLOWS, SETTINGS, ref_of

NOTES = "org.baremobile.notes"

pytest_plugins = ["pytester"]
#: plugins the inner runs do not need (as tests/doors/test_pytest_plugin.py)
QUIET = ("-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "no:hypothesispytest",
         "-p", "no:anyio", "-p", "no:randomly")


@pytest.fixture
def real_phone(virtual_command):
    """``baremobile virtual`` as a user runs it (a fresh one per test: the flows start from a
    new phone): a phone this process did not build."""
    return virtual_command[0]


def _run(flow, page):
    """Run a Verified Flow, keeping every snapshot text the agent read."""
    seen: list[str] = []

    def look():
        snap = page.snapshot()
        seen.append(snap.text)
        return snap

    flow(page, look)
    return seen


def _record(address: str, flow, path: Path, **options) -> list[str]:
    with connect(address) as page, page.tracing.start(path, **options):
        return _run(flow, page)


@pytest.mark.parametrize("name", list(FLOWS))
def test_a_flow_recorded_over_tcp_replays_on_its_scenario(real_phone, tmp_path, name):
    flow = FLOWS[name]
    recorded = _record(real_phone, flow, tmp_path / "t.zip")
    trace = open_trace(tmp_path / "t.zip")
    assert trace.complete and [s["verb"] for s in trace.steps].count("snapshot") == \
        len(recorded)
    done = to_scenario(trace, tmp_path / "scenario")
    assert done.warnings == [] and done.rules >= 1
    assert (tmp_path / "scenario" / "scenario.yaml").exists()
    with connect(f"virtual:{tmp_path / 'scenario'}") as page:
        replayed = _run(flow, page)
    assert replayed == recorded  # every snapshot text equal to the recorded one


def test_a_different_action_on_replay_is_not_in_the_recording(real_phone, tmp_path):
    _record(real_phone, FLOWS["navigate back"], tmp_path / "t.zip")
    to_scenario(open_trace(tmp_path / "t.zip"), tmp_path / "sc")
    with connect(f"virtual:{tmp_path / 'sc'}") as page:
        page.launch(SETTINGS)
        snap = page.snapshot()
        with pytest.raises(BaremobileError) as hit:
            page.tap(ref_of(snap, text="Display"))  # the recording tapped Network & internet
        assert "not in the recording" in hit.value.message
        with pytest.raises(BaremobileError, match="not in the recording"):
            page.home()
        assert page.snapshot().text == snap.text  # the screen stayed
        page.tap(ref_of(snap, text="Network & internet"))  # the recorded way still works
        assert "Internet" in page.snapshot().text


def test_typing_other_text_on_replay_is_refused(real_phone, tmp_path):
    recorded = _record(real_phone, FLOWS["search by typing"], tmp_path / "t.zip")
    to_scenario(open_trace(tmp_path / "t.zip"), tmp_path / "sc")
    with connect(f"virtual:{tmp_path / 'sc'}") as page:
        page.launch(SETTINGS)
        page.snapshot()
        page.tap(ref_of(page.last_snapshot, text="Search Settings"))
        snap = page.snapshot()
        field = ref_of(snap, role="TextInput")
        with pytest.raises(BaremobileError, match="not in the recording: typing 'wifx'"):
            page.type(field, "wifx")
        page.type(field, "wifi")  # what was recorded
        assert page.snapshot().text == recorded[-1]


def test_the_scenario_is_served_by_the_pytest_marker_too(pytester, real_phone, tmp_path):
    _record(real_phone, FLOWS["navigate back"], tmp_path / "t.zip")
    to_scenario(open_trace(tmp_path / "t.zip"), tmp_path / "sc")
    pytester.makepyfile(f"""
        import pytest

        @pytest.mark.scenario({str(tmp_path / 'sc')!r})
        def test_replay(page):
            page.launch("{SETTINGS}")
            assert "Network & internet" in page.snapshot().text
            with pytest.raises(Exception, match="not in the recording"):
                page.home()
    """)
    pytester.runpytest(*QUIET).assert_outcomes(passed=1)


@pytest.mark.fast
def test_each_distinct_dump_is_stored_once_and_steps_say_what_they_saw(tmp_path):
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        page.launch(SETTINGS)
        a = page.snapshot()
        page.snapshot()  # the same screen: the same stored dump
        page.tap(ref_of(a, text="Network & internet"))
        page.snapshot(diff=True)
    trace = open_trace(tmp_path / "t.zip")
    with zipfile.ZipFile(tmp_path / "t.zip") as z:
        dumps = [n for n in z.namelist() if n.startswith("dumps/")]
    # the screen before the first step, Settings (read twice), Network & internet
    assert len(dumps) == 3
    launch, snap1, snap2, tap, diff = trace.steps
    assert snap1["screen"] == snap2["screen"] and snap1["screen"] != diff["screen"]
    assert launch["args"] == {"package": SETTINGS} and launch["acts"]
    row = a.refs[tap["args"]["target"]]
    assert tap["target"]["ref"] == row.ref and tap["target"]["bounds"] == list(row.bounds)
    assert snap1["result"]["text"] == a.text
    assert diff["result"]["is_diff"] and diff["result"]["full_text"].startswith("# ")
    assert trace.dump(snap1["screen"]).startswith(b"<?xml")
    assert all(s["seconds"] >= 0 and s["started"] >= trace.meta["started"]
               for s in trace.steps)


def test_a_crash_leaves_a_readable_trace(tmp_path):
    code = f"""
import os
from baremobile import connect
page = connect("virtual")
page.tracing.start({str(tmp_path / 't.zip')!r})
page.launch("{SETTINGS}")
page.snapshot()
os._exit(3)  # no stop(), no close(): as a crash
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert not (tmp_path / "t.zip").exists()
    trace = open_trace(tmp_path / "t.zip")  # read from t.zip.recording/
    assert not trace.complete and [s["verb"] for s in trace.steps] == ["launch", "snapshot"]
    assert "INCOMPLETE" in summary(trace)
    assert "Network & internet" in trace.steps[1]["result"]["text"]


def _login(page, password: str) -> None:
    page.launch(NOTES)
    snap = page.snapshot()
    page.type(ref_of(snap, role="TextInput"), "me@example.com")
    snap = page.snapshot()
    fields = [r for r, n in snap.refs.items() if n.editable]
    page.type(fields[-1], password)  # the password field
    page.snapshot()


def _everything(path: Path) -> bytes:
    with zipfile.ZipFile(path) as z:
        return b"".join(z.read(n) for n in z.namelist())


def test_a_password_is_never_written(tmp_path):
    secret = "hunter2-secret"
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip", screenshots=True):
        _login(page, secret)
    blob = _everything(tmp_path / "t.zip")
    assert secret.encode() not in blob
    trace = open_trace(tmp_path / "t.zip")
    typed = [s for s in trace.steps if s["verb"] == "type"]
    assert typed[0]["args"]["text"] == "me@example.com"  # a plain field: kept
    assert typed[1]["args"]["text"] == f"<{len(secret)} characters>" and typed[1]["args"]["hidden"]


def test_text_marked_sensitive_is_blanked_everywhere(tmp_path):
    secret = "my-private-note"
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip", screenshots=True):
        page.launch(NOTES)
        snap = page.snapshot()
        with page.tracing.sensitive():
            page.type(ref_of(snap, role="TextInput"), secret)
        shown = page.snapshot()
        assert secret in shown.text  # the agent sees it; the trace does not
    blob = _everything(tmp_path / "t.zip")
    assert secret.encode() not in blob
    trace = open_trace(tmp_path / "t.zip")
    last = trace.steps[-1]
    assert "•" * len(secret) in last["result"]["text"]
    assert last["screenshot"]["skipped"] == "the screen may show text typed as sensitive"


def test_sensitive_text_with_markup_is_blanked_as_the_device_escapes_it(tmp_path):
    """The dump holds the text as the device's XML serializer wrote it (``&quot;``,
    ``&lt;``, ``&amp;``, an apostrophe left as it is): that form is blanked too."""
    from baremobile.virtual.uixml import escape_attr

    secret = 'it\'s "my" <note> & more'
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        page.launch(NOTES)
        snap = page.snapshot()
        with page.tracing.sensitive():
            page.type(ref_of(snap, role="TextInput"), secret)
        assert any(n.text == secret for n in page.snapshot().refs.values())
    blob = _everything(tmp_path / "t.zip")
    assert escape_attr(secret).encode() not in blob
    assert secret.encode() not in blob


def test_tool_doors_hide_typed_text_like_the_log(tmp_path, monkeypatch):
    from baremobile import tools

    monkeypatch.setenv("BAREMOBILE_TRACE", str(tmp_path))
    monkeypatch.setenv("BAREMOBILE_TRACE_DOOR", "mcp")
    with tools.Session() as session:
        assert tools.call(session, "launch", {"device": "virtual", "package": NOTES})["ok"]
        snap = tools.call(session, "snapshot", {"device": "virtual"})
        field = ref_of(session.page("virtual").last_snapshot, role="TextInput")
        assert tools.call(session, "type", {"device": "virtual", "ref": field,
                                            "text": "typed-by-agent"})["ok"], snap
    (path,) = tmp_path.glob("mcp-*.zip")
    assert b"typed-by-agent" not in _everything(path)
    trace = open_trace(path)
    assert trace.meta["door"] == "mcp"
    typed = next(s for s in trace.steps if s["verb"] == "type")
    assert typed["door"] == "tool" and typed["tool"]["name"] == "type"
    assert typed["args"]["text"] == "<14 characters>"


def test_screenshots_are_bounded(tmp_path, monkeypatch):
    with connect("virtual") as page:
        with page.tracing.start(tmp_path / "a.zip", screenshots=True, max_screenshots=2):
            page.launch(SETTINGS)
            page.snapshot()
            page.snapshot()
        shots = [s.get("screenshot") for s in open_trace(tmp_path / "a.zip").steps]
        assert shots[0]["when"] == "before" and shots[0]["scaled"] == 0.5  # 1080 → 540
        assert shots[2]["skipped"] == "the trace's limit of 2 screenshots"
        import builtins

        real = builtins.__import__

        def no_pillow(name, *args, **kwargs):
            if name == "PIL" or name.startswith("PIL."):
                raise ImportError("no Pillow here")
            return real(name, *args, **kwargs)

        monkeypatch.setattr(builtins, "__import__", no_pillow)
        with page.tracing.start(tmp_path / "b.zip", screenshots=True):
            page.snapshot()
        shot = open_trace(tmp_path / "b.zip").steps[0]["screenshot"]
        assert shot["scaled"] == 1.0 and shot["size"] == [1080, 2400]  # kept as it came
        with page.tracing.start(tmp_path / "c.zip", screenshots=True,
                                max_screenshot_bytes=100):
            page.snapshot()
        assert "over the limit of 100" in open_trace(tmp_path / "c.zip").steps[0][
            "screenshot"]["skipped"]


@pytest.mark.fast
def test_the_summary_names_the_failing_step(tmp_path):
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        page.launch(SETTINGS)
        page.snapshot()
        with pytest.raises(BaremobileError):
            page.tap(999)
    text = summary(open_trace(tmp_path / "t.zip"))
    assert "failing step: #3 tap(999): REF_NOT_FOUND" in text
    assert "complete" in text and "launch(\"com.android.settings\")" in text


def test_a_failed_test_leaves_a_trace_that_names_the_failing_step(pytester):
    pytester.makepyfile(f"""
        def test_passes(page):
            page.launch("{SETTINGS}")

        def test_fails(page):
            page.launch("{SETTINGS}")
            page.snapshot()
            page.tap(999)
    """)
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=1, failed=1)
    traces = list((pytester.path / "test-results").rglob("trace.zip"))
    assert len(traces) == 1 and "test_fails" in str(traces[0])  # retain-on-failure
    trace = open_trace(traces[0])
    assert trace.meta["door"] == "pytest" and trace.meta["outcome"]["failed"] is True
    text = summary(trace)
    assert "failing step: #3 tap(999): REF_NOT_FOUND" in text
    result.stdout.fnmatch_lines(["*trace: *trace.zip*"])


def test_the_navigation_graph_of_a_flow(tmp_path):
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        _run(FLOWS["navigate back"], page)
        live = page.tracing.graph()
    graph = navigation_graph(open_trace(tmp_path / "t.zip"))
    assert graph == live
    titles = {n["id"]: n["title"] for n in graph["nodes"]}
    assert len(graph["nodes"]) == 3  # the launcher, Settings, Network & internet
    moves = {(titles[e["from"]], e["verb"], titles[e["to"]]) for e in graph["edges"]}
    assert ("Settings", "tap", "Network & internet") in moves
    assert ("Network & internet", "back", "Settings") in moves
    assert titles[graph["current"]] == "Settings"
    json.dumps(graph)


def test_the_daemon_serves_the_live_navigation_graph(tmp_path, monkeypatch, daemon_socket):
    from tests.daemon_helpers import RawClient, running_daemon

    monkeypatch.setenv("BAREMOBILE_TRACE", str(tmp_path))
    with VirtualPhone(port=free_port()) as phone, \
            running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        assert c.call("daemon/openSession", {"sessionId": "s"})["success"]
        for name, args in (("launch", {"package": SETTINGS}), ("snapshot", {})):
            assert c.call("tools/call", {"name": name, "arguments": args,
                                         "session": "s"})["success"]
        reply = c.call("ide/getNavigationGraph", {"sessionId": "s"})
        assert reply["success"], reply
        graph = reply["result"]
        assert graph["device"] == phone.address and graph["trace"].startswith(str(tmp_path))
        assert [e["verb"] for e in graph["edges"]] == ["launch"]
        assert any(n["package"] == SETTINGS for n in graph["nodes"])
    assert list(tmp_path.glob("daemon-*.zip")) or list(tmp_path.glob("tools-*.zip"))


@pytest.mark.fast
def test_async_page_tracing(tmp_path):
    async def flow() -> None:
        async with await connect_async("virtual") as page:
            async with await page.tracing.start(tmp_path / "t.zip"):
                await page.launch(SETTINGS)
                await page.snapshot()
            assert not page.tracing.recording

    asyncio.run(flow())
    assert [s["verb"] for s in open_trace(tmp_path / "t.zip").steps] == ["launch", "snapshot"]


@pytest.mark.fast
def test_bad_traces_get_clear_errors(tmp_path):
    with pytest.raises(InvalidArgument, match="no trace at"):
        open_trace(tmp_path / "missing.zip")
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(InvalidArgument, match="not a trace"):
        open_trace(tmp_path / "junk.zip")
    with connect("virtual") as page:
        page.tracing.start(tmp_path / "t.zip")
        with pytest.raises(InvalidArgument, match="already recording"):
            page.tracing.start(tmp_path / "u.zip")
    # closing the page wrote what was recorded
    assert open_trace(tmp_path / "t.zip").complete


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=st.dictionaries(st.text(max_size=8), st.one_of(
    _TEXT, st.integers(-(2**63) + 1, 2**63 - 1), st.floats(allow_nan=False), st.none(),
    st.lists(_TEXT, max_size=3)),
    max_size=5), text=_TEXT)
def test_any_arguments_round_trip_through_a_trace(tmp_path_factory, args, text):
    """What a trace keeps is what it reads back; a number JSON cannot spell (``inf``) is kept
    as its name, so the file stays strict JSON (the reader refuses ``Infinity``)."""
    from baremobile.trace.format import TraceWriter, call_text, json_numbers

    path = tmp_path_factory.mktemp("p") / "t.zip"
    w = TraceWriter(path)
    w.meta({"format": 1, "started": 0, "ended": 1})
    w.step({"n": 1, "verb": "type", "args": {**args, "text": text}, "acts": True})
    w.pack()
    step = open_trace(path).steps[0]
    assert step["args"] == json_numbers({**args, "text": text})
    assert call_text(step).startswith("type(")


@pytest.fixture(scope="module")
def search_scenario(tmp_path_factory):
    """The "search by typing" flow, recorded on the in-process phone and converted."""
    folder = tmp_path_factory.mktemp("search")
    with connect("virtual") as page, page.tracing.start(folder / "t.zip"):
        _run(FLOWS["search by typing"], page)
    to_scenario(open_trace(folder / "t.zip"), folder / "sc")
    return folder / "sc"


def test_a_drag_on_replay_is_the_recorded_swipe_and_not_a_long_press_first(tmp_path):
    """``input draganddrop`` on a recorded scenario plays the swipe the recording has from
    that point — it does not press (and refuse) a long press there before it."""
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        recorded = _run(FLOWS["scroll a long list"], page)
    to_scenario(open_trace(tmp_path / "t.zip"), tmp_path / "sc")
    with connect(f"virtual:{tmp_path / 'sc'}") as page:
        page.launch(SETTINGS)
        x1, y1, x2, y2 = page.snapshot().refs[ref_of(page.last_snapshot, role="List")].bounds
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        page.drag((cx, cy + (y2 - y1) // 4), (cx, cy - (y2 - y1) // 4))  # the finger goes up
        assert page.snapshot().text == recorded[1]  # the list scrolled down, as recorded


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(typed=st.lists(st.text(st.sampled_from("wifxW i"), min_size=1, max_size=3),
                      min_size=1, max_size=4))
def test_replayed_typing_goes_on_only_along_what_was_recorded(search_scenario, typed):
    from baremobile.virtual.screens import ScreenModel
    from baremobile.virtual.shell.process import Refused

    model = ScreenModel.from_scenario(search_scenario)
    model.launch(SETTINGS)
    model.dump_xml()
    rules = model.scenario.screens[model.screen_name()].rules
    field = next(r for r in rules if r.trigger == "tap").selector
    x1, y1, x2, y2 = field.find(model.scenario.screens[model.screen_name()].windows)[0].bounds
    model.tap((x1 + x2) // 2, (y1 + y2) // 2)
    screen, before = model.screen_name(), model.dump_xml()
    so_far = ""
    for chunk in typed:
        if "wifi".startswith(so_far + chunk):
            model.type_text(chunk)
            so_far += chunk
        else:
            with pytest.raises(Refused, match="not in the recording"):
                model.type_text(chunk)
            assert model.screen_name() == screen  # the screen stays
    if so_far == "wifi":
        assert model.dump_xml() != before  # the recorded result of typing it
    elif so_far:
        with pytest.raises(Refused, match="without finishing"):
            model.dump_xml()
    else:
        assert model.dump_xml() == before


def test_a_long_press_from_touch_events_on_replay_follows_the_recording(search_scenario):
    """A long press recognised from raw touch events (uinput, sendevent) is played back as
    the recording says — here refused: the recording never long-pressed."""
    from baremobile.virtual.screens import ScreenModel
    from baremobile.virtual.shell.process import Refused

    model = ScreenModel.from_scenario(search_scenario)
    model.launch(SETTINGS)
    before = model.dump_xml()
    field = next(r for r in model.scenario.screens[model.screen_name()].rules
                 if r.trigger == "tap").selector
    x1, y1, x2, y2 = field.find(model.scenario.screens[model.screen_name()].windows)[0].bounds
    with pytest.raises(Refused, match="not in the recording: a long press"):
        model.long_press((x1 + x2) // 2, (y1 + y2) // 2)
    assert model.dump_xml() == before  # the screen stays


@pytest.mark.fast
def test_the_trace_commands(tmp_path, capsys):
    from baremobile.cli import main
    from baremobile.cli.trace_cmd import record_into

    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        _run(FLOWS["navigate back"], page)
    assert main(["trace", "summary", str(tmp_path / "t.zip")]) == 0
    assert "tap(" in capsys.readouterr().out
    assert main(["trace", "graph", str(tmp_path / "t.zip")]) == 0
    assert len(json.loads(capsys.readouterr().out)["nodes"]) == 3
    assert main(["trace", "to-scenario", str(tmp_path / "t.zip"), str(tmp_path / "sc")]) == 0
    assert "3 screens, 3 rules" in capsys.readouterr().out
    assert main(["trace", "summary", str(tmp_path / "nothing.zip")]) != 0
    assert "no trace at" in capsys.readouterr().err
    old = {k: os.environ.get(k) for k in ("BAREMOBILE_TRACE", "BAREMOBILE_TRACE_DOOR")}
    try:
        record_into(str(tmp_path / "new"), "mcp")  # what `mcp --trace DIR` does
        assert os.environ["BAREMOBILE_TRACE"] == str((tmp_path / "new").resolve())
        assert (tmp_path / "new").is_dir() and os.environ["BAREMOBILE_TRACE_DOOR"] == "mcp"
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
