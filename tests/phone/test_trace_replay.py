"""Traces, round two (issue 30): every acting step is resolved when it runs, and every step
the recording can justify replays — selector taps, double taps, long presses, drags,
pinches, free gestures (through the virtual phone's touch model) and intents.

The phone recorded is ``python -m baremobile virtual`` in a process of its own, reached over
TCP like a real device; the replay is the converted scenario on ``connect("virtual:DIR")``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from baremobile import connect
from baremobile.errors import BaremobileError
from baremobile.trace import open_trace
from baremobile.trace.graph import navigation_graph
from baremobile.trace.scenario import to_scenario
from tests.verified_flows import SETTINGS, ref_of

WEATHER = "org.baremobile.weather"


def _selector_flow(page, seen: list[str]) -> None:
    """The flow of the issue: a tap by text (a selector that matches plain text)."""
    page.launch(SETTINGS)
    seen.append(page.snapshot().text)
    page.tap({"text": "Network & internet"})
    seen.append(page.snapshot().text)
    page.press("back")
    seen.append(page.snapshot().text)


def _map_point(page) -> tuple[int, int]:
    node = page.find(id="radar_map")[0]
    return (node.vis[0] + node.vis[2]) // 2, (node.vis[1] + node.vis[3]) // 2


def _gesture_flow(page, seen: list[str]) -> None:
    """Every gesture kind on the Weather app's radar map (double tap and pinch zoom it),
    and an intent."""
    page.launch(WEATHER)
    seen.append(page.snapshot().text)
    page.double_tap({"id": "radar_map"})
    seen.append(page.snapshot().text)
    page.pinch({"id": "radar_map"}, 0.5)
    seen.append(page.snapshot().text)
    page.long_press({"id": "radar_map"})
    seen.append(page.snapshot().text)
    x, y = _map_point(page)
    page.drag((x, y), (x, y - 300))
    seen.append(page.snapshot().text)
    page.gesture([[{"x": x - 100, "y": y, "time": 0}, {"x": x - 300, "y": y, "time": 200}],
                  [{"x": x + 100, "y": y, "time": 0}, {"x": x + 300, "y": y, "time": 200}]])
    seen.append(page.snapshot().text)
    page.gesture([[{"x": x, "y": y, "time": 0}, {"x": x + 50, "y": y + 200, "time": 100},
                   {"x": x + 60, "y": y + 400, "time": 250}]])
    seen.append(page.snapshot().text)
    page.intent(action="android.settings.WIFI_SETTINGS")
    seen.append(page.snapshot().text)


def _record(address: str, flow, path: Path) -> list[str]:
    seen: list[str] = []
    with connect(address) as page, page.tracing.start(path):
        flow(page, seen)
    return seen


def test_a_selector_tap_recorded_over_tcp_replays(virtual_command, tmp_path):
    recorded = _record(virtual_command[0], _selector_flow, tmp_path / "t.zip")
    with open_trace(tmp_path / "t.zip") as trace:
        tap = next(s for s in trace.steps if s["verb"] == "tap")
        # resolved when it ran: the element (no ref: plain text), the screen, the point
        assert tap["target"]["ref"] is None and tap["target"]["label"] == "Network & internet"
        (sent,) = tap["sent"]
        x1, y1, x2, y2 = tap["target"]["bounds"]
        (x, y), = sent["points"]
        assert sent["kind"] == "tap" and x1 <= x < x2 and y1 <= y < y2
        assert sent["screen"] == tap["on"] == trace.steps[1]["screen"]  # the screen it hit
        done = to_scenario(trace, tmp_path / "sc")
    assert done.skipped == [] and done.warnings == []
    replayed: list[str] = []
    with connect(f"virtual:{tmp_path / 'sc'}") as page:
        _selector_flow(page, replayed)
    assert replayed == recorded  # every snapshot text equal


def test_every_gesture_kind_recorded_over_tcp_replays(virtual_command, tmp_path):
    recorded = _record(virtual_command[0], _gesture_flow, tmp_path / "t.zip")
    assert "zoom 200%" in recorded[1] and "zoom 100%" in recorded[2]  # they did something
    with open_trace(tmp_path / "t.zip") as trace:
        kinds = [m["kind"] for s in trace.steps for m in s["sent"]]
        assert kinds == ["double_tap", "pinch", "long_press", "drag", "gesture", "gesture"]
        done = to_scenario(trace, tmp_path / "sc")
    assert done.skipped == []
    yaml = (tmp_path / "sc" / "scenario.yaml").read_text()
    for trigger in ("double_tap:", "pinch:", "long_press:", "drag:", "gesture:", "intent:"):
        assert trigger in yaml
    replayed: list[str] = []
    with connect(f"virtual:{tmp_path / 'sc'}") as page:
        _gesture_flow(page, replayed)
    assert replayed == recorded
    with connect(f"virtual:{tmp_path / 'sc'}") as page:  # a different gesture is refused
        page.launch(WEATHER)
        page.snapshot()
        with pytest.raises(BaremobileError, match="not in the recording: a pinch"):
            page.pinch({"id": "radar_map"}, 3.0)  # the recording double-tapped here
        x, y = _map_point(page)
        with pytest.raises(BaremobileError, match="not in the recording"):
            page.gesture([[{"x": x, "y": y, "time": 0}, {"x": x - 300, "y": y - 500,
                                                          "time": 150},
                           {"x": x - 310, "y": y - 520, "time": 300}]])
        with pytest.raises(BaremobileError, match="not in the recording"):
            page.intent(action="android.settings.BLUETOOTH_SETTINGS")


@pytest.mark.fast
def test_what_cannot_replay_is_listed_per_step(tmp_path):
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        page.launch("org.baremobile.notes")
        snap = page.snapshot()
        with page.tracing.sensitive():
            page.type(ref_of(snap, role="TextInput"), "hidden words")
        page.shell("input keyevent 4")
        with pytest.raises(BaremobileError):
            page.tap(999)
        page.snapshot()
    with open_trace(tmp_path / "t.zip") as trace:
        done = to_scenario(trace, tmp_path / "sc")
    why = {(s.step, s.verb): s.why for s in done.skipped}
    assert why[(3, "type")] == "its text was hidden from the trace"
    assert "raw shell command" in why[(4, "shell")]
    assert why[(5, "tap")] == "it failed"
    assert [str(s) for s in done.skipped] == done.warnings


def test_the_graph_draws_a_typing_step_from_the_screen_it_typed_on(tmp_path):
    """The type step read the screen itself (its selector, after a tap nobody looked at):
    its edge leaves that screen, not the one before the tap."""
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        page.launch(SETTINGS)
        page.snapshot()
        page.tap({"text": "Search Settings"})
        page.type({"role": "TextInput"}, "wifi")
        page.snapshot()
    with open_trace(tmp_path / "t.zip") as trace:
        graph = navigation_graph(trace)
        typed = next(s for s in trace.steps if s["verb"] == "type")
        assert typed["dumps"] and typed["on"] == typed["dumps"][-1]
    edges = {e["verb"]: (e["from"], e["to"]) for e in graph["edges"]}
    assert edges["tap"][1] == edges["type"][0]  # n2 → n3, then n3 → n4
    assert edges["type"][1] != edges["type"][0] != edges["tap"][0]
    assert len(graph["nodes"]) == 4


def test_a_scroll_until_replays_each_scroll(tmp_path):
    """A verb that touches several times (scroll_until: a scroll, a look, again) becomes a
    rule per scroll, each leading to the screen it showed."""
    seen: list[str] = []
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip"):
        page.launch(SETTINGS)
        snap = page.snapshot()
        page.scroll_until({"text": "About phone"}, ref_of(snap, role="List"))
        seen.append(page.snapshot().text)
    with open_trace(tmp_path / "t.zip") as trace:
        step = next(s for s in trace.steps if s["verb"] == "scroll_until")
        assert len(step["sent"]) >= 2 and max(step["sent_before"]) >= 1
        done = to_scenario(trace, tmp_path / "sc")
    assert done.skipped == [] and done.rules >= 1 + len(step["sent"])
    with connect(f"virtual:{tmp_path / 'sc'}") as page:
        page.launch(SETTINGS)
        snap = page.snapshot()
        page.scroll_until({"text": "About phone"}, ref_of(snap, role="List"))
        assert page.snapshot().text == seen[0]
