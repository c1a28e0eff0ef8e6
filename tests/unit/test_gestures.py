"""Gesture plans and their encoders, without a device: every planned point stays on the
screen and inside the event device's axis range, and what a panel decoder rebuilds from
the encoded events is the plan (the virtual phone's own decoder is the referee, as
Android's InputReader would be)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from baremobile.android.gestures import (
    DOUBLE_TAP_MIN_MS,
    DOUBLE_TAP_TIMEOUT_MS,
    GesturePlan,
    double_tap_plan,
    drag_plan,
    paths_plan,
    pinch_plan,
)
from baremobile.android.touch_events import (
    Axis,
    double_tap_timing,
    parse_getevent,
    pick_touchscreen,
    script_syn_times,
    sendevent_script,
    to_natural,
    type_b,
    uinput_script,
)
from baremobile.errors import InvalidArgument
from baremobile.virtual.inputdev import AbsInfo, InputDevice, MultiTouchDecoder
from baremobile.virtual.screens.display import Display
from tests import examples

# a real Samsung panel's listing (as several projects quote it), whitespace as printed
SAMSUNG = """add device 1: /dev/input/event3
  name:     "sec_touchscreen"
  events:
    KEY (0001): KEY_HOMEPAGE          BTN_TOOL_FINGER       BTN_TOUCH{pad}
    ABS (0003): ABS_X                 : value 0, min 0, max 1439, fuzz 0, flat 0, resolution 0
                ABS_Y                 : value 0, min 0, max 3119, fuzz 0, flat 0, resolution 0
                ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                ABS_MT_TOUCH_MAJOR    : value 0, min 0, max 5100, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_X     : value 0, min 0, max 1439, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 3119, fuzz 0, flat 0, resolution 0
                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
                ABS_MT_PRESSURE       : value 0, min 0, max 63, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
add device 2: /dev/input/event0
  name:     "gpio_keys"
  events:
    KEY (0001): KEY_VOLUMEDOWN        KEY_VOLUMEUP          KEY_POWER{pad}
  input props:
    <none>
""".format(pad=" " * 12)  # each label is padded to 20 columns, the last one too

EMULATOR = """add device 1: /dev/input/event2
  name:     "virtio_input_multi_touch_2"
  events:
    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_X     : value 0, min 0, max 32767, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 32767, fuzz 0, flat 0, resolution 0
                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
add device 2: /dev/input/event1
  name:     "virtio_input_multi_touch_1"
  events:
    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_X     : value 0, min 0, max 32767, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 32767, fuzz 0, flat 0, resolution 0
                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
add device 3: /dev/input/event4
  name:     "a touchpad"
  events:
    ABS (0003): ABS_MT_POSITION_X     : value 0, min 0, max 100, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 100, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_POINTER
"""


def test_getevent_listing_of_a_real_panel() -> None:
    devices = parse_getevent(SAMSUNG)
    assert [d.path for d in devices] == ["/dev/input/event3", "/dev/input/event0"]
    ts = pick_touchscreen(devices)
    assert ts is not None and ts.name == "sec_touchscreen"
    assert (ts.x, ts.y) == (Axis(0, 1439), Axis(0, 3119))
    assert ts.slots == 10 and ts.btn_touch and ts.pressure == Axis(0, 63)
    assert devices[1].keys == {"KEY_VOLUMEDOWN", "KEY_VOLUMEUP", "KEY_POWER"}


def test_emulator_picks_the_first_multi_touch_node_and_never_a_touchpad() -> None:
    ts = pick_touchscreen(parse_getevent(EMULATOR))
    assert ts is not None and ts.path == "/dev/input/event1"
    assert ts.x == Axis(0, 32767) and ts.pressure is None and not ts.btn_touch
    # a panel whose kernel sets no props (its .idc file says touchScreen) is still the
    # touch screen; a touchpad (INPUT_PROP_POINTER) never is
    bare = pick_touchscreen(parse_getevent(SAMSUNG.split("add device 2")[0]
                                           .replace("INPUT_PROP_DIRECT", "<none>")))
    assert bare is not None and bare.name == "sec_touchscreen"
    touchpad = "add device 3" + EMULATOR.split("add device 3")[1]
    assert parse_getevent(touchpad) and pick_touchscreen(parse_getevent(touchpad)) is None


def test_the_virtual_phones_listing_parses_like_a_real_one() -> None:
    from baremobile.virtual.model import FakeClock, PhoneModel

    out, _, status = PhoneModel(clock=FakeClock()).spawn("getevent -lp").run()
    ts = pick_touchscreen(parse_getevent(out.decode()))
    assert status == 0 and ts is not None and ts.x == Axis(0, 4095) and ts.btn_touch


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_to_natural_inverts_what_the_panel_mapping_does(rotation: int) -> None:
    d = Display(1080, 2400, 420, rotation, True, True)
    w, h = d.size
    for x, y in [(0, 0), (w - 1, 0), (10, h - 1), (w // 3, h // 5)]:
        nx, ny = to_natural(x, y, rotation, 1080, 2400)
        assert 0 <= nx <= 1080 and 0 <= ny <= 2400
        assert d.from_panel(nx, ny) == pytest.approx((x, y))


# -- property tests --------------------------------------------------------------------------

screens = st.sampled_from([(1080, 2400), (720, 1280), (1440, 3120), (2400, 1080)])
axes = st.builds(lambda lo, span: Axis(lo, lo + span), st.integers(-100, 100),
                 st.integers(50, 40000))


def _all_points(plan: GesturePlan) -> list[tuple[float, float]]:
    return [p for f in plan.frames() for p in f.down.values()]


@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.filter_too_much])
@given(screen=screens, fx=st.floats(0, 1), fy=st.floats(0, 1),
       scale=st.floats(0.1, 6).filter(lambda s: abs(s - 1) > 0.01),
       box=st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)),
       rotation=st.integers(0, 3), xa=axes, ya=axes)
def test_any_pinch_stays_on_screen_inside_its_element_and_the_axis_range(
        screen, fx, fy, scale, box, rotation, xa, ya) -> None:
    w, h = screen
    x1, x2 = sorted((int(box[0] * w), int(box[2] * w)))
    y1, y2 = sorted((int(box[1] * h), int(box[3] * h)))
    assume(x2 - x1 > 2 and y2 - y1 > 2)
    cx, cy = x1 + fx * (x2 - x1 - 1), y1 + fy * (y2 - y1 - 1)
    try:
        plan = pinch_plan(cx, cy, scale, w, h, bounds=(x1, y1, x2, y2))
    except InvalidArgument as exc:
        assert "does not fit" in exc.message
        return
    assert plan.fingers == 2
    for x, y in _all_points(plan):
        assert 0 <= x < w and 0 <= y < h
    for s in plan.strokes:  # the fingers land on the element
        _, sx, sy = s.points[0]
        assert x1 <= sx <= x2 and y1 <= sy <= y2
    a, b = plan.strokes
    span0 = abs(a.points[0][1] - b.points[0][1]) + abs(a.points[0][2] - b.points[0][2])
    span1 = abs(a.points[-1][1] - b.points[-1][1]) + abs(a.points[-1][2] - b.points[-1][2])
    assert span1 / span0 == pytest.approx(scale, rel=1e-6)
    nw, nh = (h, w) if rotation % 2 else (w, h)
    frames = type_b(plan, x=xa, y=ya, rotation=rotation, natural_w=nw, natural_h=nh)
    for _, events in frames:
        for etype, code, value in events:
            if (etype, code) == (3, 0x35):
                assert xa.minimum <= value <= xa.maximum
            if (etype, code) == (3, 0x36):
                assert ya.minimum <= value <= ya.maximum


point = st.tuples(st.floats(-50, 3200), st.floats(-50, 3200))


@settings(max_examples=examples(200))
@given(screen=screens, paths=st.lists(st.lists(point, min_size=2, max_size=6), min_size=1,
                                      max_size=4),
       gaps=st.lists(st.floats(1, 400), min_size=6, max_size=6))
def test_custom_paths_are_refused_off_screen_and_kept_on_it_otherwise(screen, paths, gaps
                                                                       ) -> None:
    w, h = screen
    spec = [[{"x": x, "y": y, "time": sum(gaps[:k + 1])} for k, (x, y) in enumerate(p)]
            for p in paths]
    on = all(0 <= x < w and 0 <= y < h for p in paths for x, y in p)
    if not on:
        with pytest.raises(InvalidArgument, match="off the"):
            paths_plan(spec, w, h)
        return
    plan = paths_plan(spec, w, h)
    assert len(plan.strokes) == len(paths)
    for x, y in _all_points(plan):
        assert 0 <= x < w and 0 <= y < h


def test_paths_are_validated_before_anything_else() -> None:
    with pytest.raises(InvalidArgument, match="at least two points"):
        paths_plan([[{"x": 1, "y": 1, "time": 0}]], 100, 100)
    with pytest.raises(InvalidArgument, match="times must increase"):
        paths_plan([[{"x": 1, "y": 1, "time": 5}, {"x": 2, "y": 2, "time": 5}]], 100, 100)
    with pytest.raises(InvalidArgument, match="exactly x, y and time"):
        paths_plan([[{"x": 1, "y": 1}, {"x": 2, "y": 2, "time": 5}]], 100, 100)
    with pytest.raises(InvalidArgument, match="at most 10 fingers"):
        paths_plan([[(1, 1, 0), (2, 2, 5)]] * 11, 100, 100)
    with pytest.raises(InvalidArgument, match="positive number other than 1"):
        pinch_plan(50, 50, 1, 100, 100)
    with pytest.raises(InvalidArgument, match="gap must be"):
        double_tap_plan(5, 5, 100, 100, gap_ms=500)


def _decode(plan: GesturePlan, frames, dev: InputDevice, rotation: int, nw: int, nh: int
            ) -> dict[int, list[tuple[float, float, float]]]:
    """What a panel decoder (the virtual phone's, like InputReader) rebuilds, on screen."""
    decoder = MultiTouchDecoder.for_device(dev)
    display = Display(nw, nh, 420, rotation, True, True)
    seen: dict[int, list[tuple[float, float, float]]] = {}
    for t, events in frames:
        for fr in decoder.feed(events, t):
            for tid, (rx, ry) in fr.pointers.items():
                x, y = display.from_panel(*dev.to_natural(rx, ry, nw, nh))
                seen.setdefault(tid, []).append((t, x, y))
    return seen


@settings(max_examples=examples(150))
@given(screen=screens, rotation=st.integers(0, 3), xa=axes, ya=axes,
       pressure=st.booleans(), data=st.data())
def test_decoding_the_events_gives_back_the_planned_points(screen, rotation, xa, ya,
                                                            pressure, data) -> None:
    w, h = screen
    nw, nh = (h, w) if rotation % 2 else (w, h)
    n = data.draw(st.integers(1, 3))
    paths = [[{"x": data.draw(st.integers(0, w - 1)), "y": data.draw(st.integers(0, h - 1)),
               "time": 50 * k + i} for k in range(data.draw(st.integers(2, 4)))]
             for i in range(n)]
    plan = paths_plan(paths, w, h)
    dev = InputDevice(7, "panel", keys=[0x14A],
                      axes={0x2F: AbsInfo(0, 0, 9),
                            0x35: AbsInfo(0, xa.minimum, xa.maximum),
                            0x36: AbsInfo(0, ya.minimum, ya.maximum),
                            0x39: AbsInfo(0, 0, 65535),
                            **({0x3A: AbsInfo(0, 0, 255)} if pressure else {})},
                      props=[1])
    frames = type_b(plan, x=xa, y=ya, rotation=rotation, natural_w=nw, natural_h=nh,
                    pressure=Axis(0, 255) if pressure else None)
    seen = _decode(plan, frames, dev, rotation, nw, nh)
    assert len(seen) == n  # every finger, none hovering
    quantum = max(nw / (xa.maximum - xa.minimum + 1), nh / (ya.maximum - ya.minimum + 1)) + 1
    for i, stroke in enumerate(plan.strokes):
        got = seen[1 + i]
        assert got[0][0] == stroke.start_ms  # down when planned
        for t, px, py in stroke.points:  # unchanged positions are not sent again
            x, y = [(x, y) for gt, x, y in got if gt <= t][-1]
            assert abs(x - px) <= quantum and abs(y - py) <= quantum


def test_a_contact_without_pressure_or_btn_touch_hovers() -> None:
    """Android treats such contacts as hovering; the encoder never sends them."""
    plan = paths_plan([[(10, 10, 0), (20, 20, 50)]], 100, 100)
    dev = InputDevice(1, "p", keys=[0x14A], props=[1],  # type B: it has ABS_MT_SLOT
                      axes={0x2F: AbsInfo(0, 0, 9), 0x35: AbsInfo(0, 0, 99),
                            0x36: AbsInfo(0, 0, 99), 0x39: AbsInfo(0, 0, 9),
                            0x3A: AbsInfo(0, 0, 9)})
    bare = type_b(plan, x=Axis(0, 99), y=Axis(0, 99), rotation=0, natural_w=100,
                  natural_h=100, btn_touch=False)
    assert _decode(plan, bare, dev, 0, 100, 100) == {}
    good = type_b(plan, x=Axis(0, 99), y=Axis(0, 99), rotation=0, natural_w=100,
                  natural_h=100, pressure=Axis(0, 9))
    assert len(_decode(plan, good, dev, 0, 100, 100)[1]) >= 2


def test_uinput_script_is_json_lines_with_exact_delays() -> None:
    plan = drag_plan(100, 100, 500, 900, 1080, 2400, duration_ms=300)
    script = uinput_script(plan, rotation=0, natural_w=1080, natural_h=2400)
    cmds = [json.loads(line) for line in script.splitlines()]
    assert cmds[0]["command"] == "register" and cmds[1] == {"id": 1, "command": "delay",
                                                              "duration": 400}
    assert sum(c["duration"] for c in cmds[2:] if c["command"] == "delay") == \
        round(plan.duration_ms)
    assert all(isinstance(v, int) for c in cmds if c["command"] == "inject" for v in c["events"])


def test_double_tap_timing_models_stay_inside_the_double_tap_window() -> None:
    ts = pick_touchscreen(parse_getevent(SAMSUNG))
    assert ts is not None
    plan = double_tap_plan(700, 1500, 1440, 3120)
    script = sendevent_script(plan, ts, rotation=0, natural_w=1440, natural_h=3120)
    for timing in (double_tap_timing("input"), double_tap_timing("uinput"),
                   double_tap_timing("sendevent", script)):
        assert timing.ok, timing
        assert DOUBLE_TAP_MIN_MS <= timing.low_ms <= timing.high_ms < DOUBLE_TAP_TIMEOUT_MS
    assert not double_tap_timing("input-vm").ok  # why API 29-30 need another route
    assert len(script_syn_times(script, 4.0)) == 4  # down, up, down, up
