"""Gestures through the public API over the ADB protocol, against the virtual phone: the
route each API level allows, what the phone's panel decoder saw (points, fingers,
duration), double taps inside Android's window in the plan's own timing model, pinch zoom
on a zoomable screen, rotation, and ``UNSUPPORTED`` where Android says no."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import Page, connect
from baremobile.android.gestures import (
    DOUBLE_TAP_MIN_MS,
    DOUBLE_TAP_TIMEOUT_MS,
    paths_plan,
    pinch_plan,
)
from baremobile.android.touch_events import REGISTER_MS, SENDEVENT_MS
from baremobile.errors import InvalidArgument, Unsupported
from baremobile.virtual import VirtualPhone
from baremobile.virtual.model import FakeClock
from tests.conftest import free_port

ZOOM = re.compile(r"Radar map, zoom (\d+)%")


@contextmanager
def weather(api: int) -> Iterator[tuple[VirtualPhone, Page]]:
    """The demo's Weather app (its radar map zooms) on a phone of ``api`` whose clock
    accounts what a real device spends starting ``input``/``uinput``/``sendevent``."""
    with VirtualPhone(port=free_port(), api_level=api, clock=FakeClock(),
                      input_latency=True) as phone, connect(phone.address) as page:
        page.launch("org.baremobile.weather")
        yield phone, page


def zoom(page: Page) -> int:
    m = ZOOM.search(page.snapshot().text)
    assert m is not None
    return int(m.group(1))


@pytest.mark.parametrize(("api", "route", "program"), [
    (35, "input", "input"), (31, "input", "input"), (30, "uinput", "uinput"),
    (28, "sendevent", "sh")])
def test_double_tap_lands_inside_the_double_tap_window(api: int, route: str, program: str
                                                       ) -> None:
    with weather(api) as (phone, page):
        since = phone.events.last_seq
        result = page.double_tap({"id": "radar_map"})
        assert result["route"] == route
        lo, hi = result["interval_ms"]
        assert DOUBLE_TAP_MIN_MS <= lo <= hi < DOUBLE_TAP_TIMEOUT_MS
        taps = phone.events.list("double_tap", since=since)
        assert len(taps) == 1  # the phone recognised one double tap, as GestureDetector would
        interval = taps[0]["interval_ms"]
        assert lo <= interval <= hi, (interval, result)
        assert interval < DOUBLE_TAP_TIMEOUT_MS
        assert program in [c[0] for c in phone.events.commands(since=since)]
        assert zoom(page) == 200  # the screen's double_tap rule ran: zoom 2


def test_two_input_taps_in_a_row_are_too_fast_on_a_fast_phone() -> None:
    """Why the plan sleeps between its two `input tap`: back to back they are < 40 ms."""
    with weather(35) as (phone, page):
        node = page.find(id="radar_map")[0]
        x = (node.vis[0] + node.vis[2]) // 2
        y = (node.vis[1] + node.vis[3]) // 2
        page.shell(f"input tap {x} {y}; input tap {x} {y}")
        assert phone.events.list("double_tap") == []
        assert zoom(page) == 100


def test_double_tap_on_android_10_is_unsupported_with_the_devices_words() -> None:
    with weather(29) as (phone, page):
        with pytest.raises(Unsupported) as err:
            page.double_tap({"id": "radar_map"})
        assert "Permission denied" in err.value.device_output
        assert "Android 10" in err.value.message and err.value.code == "UNSUPPORTED"
        assert phone.events.list("tap") == []  # nothing landed
        assert zoom(page) == 100


@pytest.mark.parametrize(("api", "route"), [(35, "uinput"), (30, "uinput"), (28, "sendevent")])
def test_pinch_zooms_the_map(api: int, route: str) -> None:
    with weather(api) as (phone, page):
        since = phone.events.last_seq
        result = page.pinch({"id": "radar_map"}, 2.0)
        assert result["route"] == route
        pinch = phone.events.list("pinch", since=since)
        assert len(pinch) == 1 and pinch[0]["scale"] == pytest.approx(2.0, rel=0.01)
        assert pinch[0]["zoomed"] is True
        assert zoom(page) == 200
        page.pinch({"id": "radar_map"}, 0.5)
        assert zoom(page) == 100


def test_pinch_on_android_10_is_unsupported_and_nothing_moves() -> None:
    with weather(29) as (phone, page):
        with pytest.raises(Unsupported, match="Permission denied") as err:
            page.pinch({"id": "radar_map"}, 2)
        assert "SELinux" in err.value.message and "uinput" in err.value.message
        assert phone.events.list("gesture") == []
        assert zoom(page) == 100


@pytest.mark.fast
def test_bad_gestures_are_refused_before_anything_is_sent() -> None:
    with weather(35) as (phone, page):
        since = phone.events.last_seq
        with pytest.raises(InvalidArgument):
            page.pinch(None, 1)
        with pytest.raises(InvalidArgument):
            page.gesture([[{"x": 5, "y": 5, "time": 10}, {"x": 9, "y": 9, "time": 3}]])
        with pytest.raises(InvalidArgument, match="off the"):
            page.gesture([[{"x": 5, "y": 5, "time": 0}, {"x": 5000, "y": 9, "time": 30}]])
        assert not any(c[0] in ("uinput", "sh", "input") for c in
                       phone.events.commands(since=since))


def _gesture_events(phone: VirtualPhone, since: int) -> list:
    return phone.events.list("gesture", since=since)


def _assert_matches(plan, got, *, duration_tolerance: tuple[float, float]) -> None:
    """The decoded gesture is the plan: finger count, each finger's first and last point,
    duration within the route's tolerance."""
    assert got["fingers"] == len(plan.strokes)
    lo, hi = duration_tolerance
    assert lo <= got["duration_ms"] <= hi, (got["duration_ms"], duration_tolerance)
    for stroke, points in zip(plan.strokes, got["points"], strict=True):
        (_, x0, y0), (_, x1, y1) = stroke.points[0], stroke.points[-1]
        assert points[0][1:] == pytest.approx([x0, y0], abs=1.0)
        assert points[-1][1:] == pytest.approx([x1, y1], abs=1.0)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cx=st.integers(200, 880), cy=st.integers(400, 2000),
       scale=st.sampled_from([0.4, 0.7, 1.5, 2.5]), rotation=st.integers(0, 3))
def test_any_pinch_decoded_by_the_phone_is_the_plan(cx: int, cy: int, scale: float,
                                                    rotation: int) -> None:
    with VirtualPhone(port=free_port(), clock=FakeClock()) as phone, \
            connect(phone.address) as page:
        page.shell(f"settings put system accelerometer_rotation 0 && "
                   f"settings put system user_rotation {rotation}")
        w, h = (2400, 1080) if rotation % 2 else (1080, 2400)
        x, y = min(cx, w - 200), min(cy, h - 200)
        try:
            plan = pinch_plan(x, y, scale, w, h, duration_ms=400)
        except InvalidArgument:
            return
        since = phone.events.last_seq
        page.pinch((x, y), scale, 400)
        (got,) = _gesture_events(phone, since)
        _assert_matches(plan, got.detail, duration_tolerance=(399, 401))
        assert phone.events.list("pinch", since=since)[0]["scale"] == \
            pytest.approx(scale, rel=0.01)


def test_custom_three_finger_gesture_on_old_android_through_sendevent() -> None:
    spec = [[{"x": 100 + 300 * i, "y": 600, "time": 0}, {"x": 100 + 300 * i, "y": 1200,
                                                          "time": 150},
             {"x": 150 + 300 * i, "y": 1500, "time": 300}] for i in range(3)]
    with VirtualPhone(port=free_port(), api_level=28, clock=FakeClock(),
                      input_latency=True) as phone, connect(phone.address) as page:
        since = phone.events.last_seq
        result = page.gesture(spec)
        assert result == {"route": "sendevent", "fingers": 3, "duration_ms": 300}
        (got,) = _gesture_events(phone, since)
        plan = paths_plan(spec, 1080, 2400)
        events = sum(1 for c in phone.events.commands(since=since) if c[0] == "sendevent")
        # each sendevent costs the phone's modelled 4 ms; the script's sleeps assume 2–10
        _assert_matches(plan, got.detail,
                        duration_tolerance=(300, 300 + events * SENDEVENT_MS[1]))
        assert "sendevent" in [c[0] for c in phone.events.commands(since=since)]


@pytest.mark.fast
def test_gesture_on_android_11_uses_uinput_with_exact_timing() -> None:
    spec = [[{"x": 500, "y": 500, "time": 0}, {"x": 520, "y": 900, "time": 100},
             {"x": 540, "y": 1300, "time": 250}]]
    with VirtualPhone(port=free_port(), api_level=30, clock=FakeClock(),
                      input_latency=True) as phone, connect(phone.address) as page:
        t0 = phone.model.clock.time()
        assert page.gesture(spec)["route"] == "uinput"
        (got,) = phone.events.list("gesture")
        _assert_matches(paths_plan(spec, 1080, 2400), got.detail,
                        duration_tolerance=(249.5, 250.5))
        spent = (phone.model.clock.time() - t0) * 1000
        assert spent >= REGISTER_MS + 250  # registration wait, then the gesture
        assert not [f for f in phone.fs.files() if "baremobile-gesture" in f]  # cleaned up


def test_a_two_point_single_finger_gesture_is_an_input_swipe_everywhere() -> None:
    with VirtualPhone(port=free_port(), api_level=29, clock=FakeClock()) as phone, \
            connect(phone.address) as page:
        result = page.gesture([[{"x": 540, "y": 1800, "time": 0},
                                {"x": 540, "y": 600, "time": 300}]])
        assert result["route"] == "input"
        (swipe,) = phone.events.list("swipe")
        assert (swipe["y1"], swipe["y2"], swipe["duration_ms"]) == (1800, 600, 300)


@pytest.mark.parametrize(("api", "route"), [(35, "input"), (25, "sendevent")])
def test_drag_holds_then_moves(api: int, route: str) -> None:
    with VirtualPhone(port=free_port(), api_level=api, clock=FakeClock()) as phone, \
            connect(phone.address) as page:
        result = page.drag((300, 900), (800, 1600), 400)
        assert result["route"] == route
        if route == "input":
            (swipe,) = phone.events.list("swipe")
            assert swipe["drag"] is True and (swipe["x1"], swipe["y2"]) == (300, 1600)
        else:
            (drag,) = phone.events.list("drag")
            assert (drag["x1"], drag["y1"]) == pytest.approx((300, 900), abs=1)
            assert (drag["x2"], drag["y2"]) == pytest.approx((800, 1600), abs=1)
