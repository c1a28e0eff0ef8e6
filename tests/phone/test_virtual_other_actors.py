"""The virtual phone plays the other actors (issue 28, item 6): the compositor's frame count
(``service call SurfaceFlinger 1013``), an app changing its own screen when a broadcast
reaches its receiver (``broadcast`` rules), and the ``remove`` action (a row taken off a
list, the rows after it moving up). Through the phone's shell, as a second client sees it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from baremobile.virtual.model import FakeClock, PhoneModel
from baremobile.virtual.screens import ScenarioError, ScreenModel
from tests.phone.test_virtual_model_fakes import sh
from tests.scenario_helpers import APP, bare_app, node

PAID = f"{APP}.PAID"


def _list(rows: int) -> str:
    return node("android.widget.FrameLayout", "[0,0][1080,2400]", children=node(
        "android.widget.LinearLayout", "[0,0][1080,2400]", rid=f"{APP}:id/list",
        children="".join(node("android.widget.Button", f"[0,{200 * i}][1080,{200 * i + 150}]",
                              text=f"Row {i}", rid=f"{APP}:id/row", clickable=True)
                         for i in range(rows))))


@pytest.fixture
def phone(tmp_path: Path) -> PhoneModel:
    """An app whose receiver for ``PAID`` removes its first row; another screen without."""
    path = bare_app(tmp_path, {"list": _list(3), "other": _list(1)}, on={
        "list": f"- broadcast: {PAID}\n  remove: {{id: row}}\n"
                "- tap: {text: Row 2}\n  goto: other\n"})
    clock = FakeClock()
    return PhoneModel(screens=ScreenModel.from_scenario(path, clock=clock), clock=clock)


def frames(phone: PhoneModel) -> int:
    out, _, status = sh(phone, "service call SurfaceFlinger 1013")
    m = re.fullmatch(r"Result: Parcel\(([0-9a-f]{8}) +'(.{4})'\)\n", out)
    assert status == 0 and m, out
    return int(m.group(1), 16)


def bounds_of(phone: PhoneModel, text: str) -> str | None:
    m = re.search(rf'text="{text}"[^>]*bounds="([^"]+)"', phone.screens.dump_xml().decode())
    return m.group(1) if m else None


def test_the_frame_count_moves_only_when_what_is_drawn_changes(phone):
    start = frames(phone)
    sh(phone, "uiautomator dump /sdcard/d.xml; screencap -p > /sdcard/s.png; getprop")
    assert frames(phone) == start  # reading the screen draws nothing
    sh(phone, "input tap 540 275")  # "Row 1": no rule, but a touch redraws (its ripple)
    after_tap = frames(phone)
    assert after_tap > start and frames(phone) == after_tap


def test_the_status_bar_clock_draws_a_frame_a_minute(tmp_path):
    path = bare_app(tmp_path, {"list": _list(1)})
    text = path.read_text().replace("  status_bar: false\n", "")  # the bar, and its clock
    path.write_text(text)
    clock = FakeClock()
    phone = PhoneModel(screens=ScreenModel.from_scenario(path, clock=clock), clock=clock)
    start = frames(phone)
    clock.advance(59.0 - clock.time() % 60)  # the same minute
    assert frames(phone) == start
    clock.advance(2.0)  # the next: the clock is drawn again
    assert frames(phone) == start + 1


def test_a_broadcast_reaches_the_screen_in_front_and_its_app_removes_a_row(phone):
    before = frames(phone)
    assert bounds_of(phone, "Row 0") == "[0,0][1080,150]"
    out, _, status = sh(phone, f"am broadcast -a {PAID}")
    assert status == 0 and "Broadcast completed: result=0" in out
    assert bounds_of(phone, "Row 0") is None  # removed
    assert bounds_of(phone, "Row 1") == "[0,0][1080,150]"  # the rows after it moved up
    assert bounds_of(phone, "Row 2") == "[0,200][1080,350]"
    assert frames(phone) > before
    assert [e["received"] for e in phone.events.list("broadcast")] == [True]


def test_a_broadcast_reaches_no_screen_that_does_not_listen_for_it(phone):
    sh(phone, f"am broadcast -a {PAID} -p com.example.other")  # for another app
    sh(phone, "am broadcast -a org.example.NOBODY")  # nobody's action
    assert bounds_of(phone, "Row 0") == "[0,0][1080,150]"
    sh(phone, "input tap 540 475")  # "Row 2" opens the other screen (no receiver there)
    frames_there = frames(phone)
    sh(phone, f"am broadcast -a {PAID}")
    assert frames(phone) == frames_there and bounds_of(phone, "Row 0") is not None
    assert [e["received"] for e in phone.events.list("broadcast")] == [False, False, False]


def test_service_answers_as_service_cpp_does(phone):
    assert sh(phone, "service check SurfaceFlinger")[0] == "Service SurfaceFlinger: found\n"
    assert "Bad message" in sh(phone, "service call SurfaceFlinger 1008")[0]


@pytest.mark.parametrize(("rule", "msg"), [
    ("- broadcast: {text: x}\n  back:\n", "broadcast .an intent action. must be a string"),
    ("- broadcast: x.Y\n  remove: {text: Nothing}\n", "remove target .* matches no node"),
])
def test_a_bad_broadcast_rule_or_remove_is_a_scenario_error(tmp_path, rule, msg):
    path = bare_app(tmp_path, {"list": _list(1)}, on={"list": rule})
    with pytest.raises(ScenarioError, match=msg):
        ScreenModel.from_scenario(path)
