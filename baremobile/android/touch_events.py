"""How a :class:`~baremobile.android.gestures.GesturePlan` reaches a touch screen (no I/O here): the
touch screen's event device, the bytes that replay a plan on it, and the double tap's
timing model per route.

Replaying a plan with several fingers needs a touch screen's event device, because
``input`` injects one pointer only (``InputShellCommand``/``Input.java`` build every
MotionEvent with ``pointerCount = 1``). Two routes exist without an installed app:

* :func:`uinput_script` — JSON for ``/system/bin/uinput`` (``frameworks/base/cmds/uinput``,
  Android 11+): register a virtual touch screen whose axes are the display's natural
  pixels, wait for InputReader to open it, inject type-B frames with ``delay`` commands
  between them (the tool schedules injections on its own clock, so the timing is exact).
* :func:`sendevent_script` — a shell script of ``sendevent`` calls writing the real touch
  screen's node (found with :func:`parse_getevent` / :func:`pick_touchscreen`), with
  ``sleep`` between frames. The shell may write ``/dev/input/event*`` only up to Android 9
  (SELinux, ``system/sepolicy``: ``neverallow shell input_device:chr_file
  no_w_file_perms`` from Android 10).

Both speak the type-B multi-touch protocol (a panel without ``ABS_MT_SLOT`` gets protocol
A's frames from :func:`type_a` instead: every contact each frame, ``SYN_MT_REPORT`` after
each) (``Documentation/input/multi-touch-protocol.rst``):
``ABS_MT_SLOT``, ``ABS_MT_TRACKING_ID`` (−1 lifts), ``ABS_MT_POSITION_X/Y``, ``BTN_TOUCH``
with the first contact and the last lift, ``SYN_REPORT`` after every frame — plus
``ABS_MT_PRESSURE``/``ABS_MT_TOUCH_MAJOR`` when the device has them (Android's
``MultiTouchInputMapper`` treats a contact with zero pressure on a device that reports
pressure as hovering, and so does it without ``BTN_TOUCH`` on a device that has the key).

Screen pixels become raw axis values through the rotation (:func:`to_natural`, the inverse
of what ``TouchInputMapper`` applies for each ``SurfaceOrientation``) and the axis range
(``raw = min + x * (max - min + 1) / width``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from baremobile.android.gestures import (
    DOUBLE_TAP_GAP_MS,
    DOUBLE_TAP_MIN_MS,
    DOUBLE_TAP_TIMEOUT_MS,
    GesturePlan,
    clamp,
    plan_start,
)
from baremobile.android.input_devices import Axis, EventDevice, find_touchscreen, parse_getevent
from baremobile.errors import InvalidArgument

__all__ = [
    "Axis", "EventDevice", "Touchscreen", "parse_getevent", "pick_touchscreen",
    "to_natural", "type_a", "type_b", "uinput_script", "sendevent_script", "REGISTER_MS",
    "SENDEVENT_MS", "DoubleTapTiming", "double_tap_timing", "script_syn_times",
    "INPUT_GAP_MS", "INPUT_CMD_MS", "INPUT_VM_MS",
]

# linux/input-event-codes.h
EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
SYN_REPORT, SYN_MT_REPORT = 0, 2
BTN_TOUCH = 0x14A
ABS_MT_SLOT, ABS_MT_TOUCH_MAJOR = 0x2F, 0x30
ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x35, 0x36
ABS_MT_TRACKING_ID, ABS_MT_PRESSURE = 0x39, 0x3A
INPUT_PROP_DIRECT = 0x01


# ---------------------------------------------------------------------------------------
# the event device
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Touchscreen:
    """The device Android maps onto the display: multi-touch positions and direct input."""

    path: str
    name: str
    x: Axis
    y: Axis
    slots: int
    tracking_max: int
    pressure: Axis | None
    touch_major: Axis | None
    btn_touch: bool
    protocol: str = "B"
    """``"B"`` (slots) or ``"A"`` (no ``ABS_MT_SLOT``: every frame lists every contact,
    each ended by ``SYN_MT_REPORT``)"""
    tracking_id: bool = True
    """the panel reports ``ABS_MT_TRACKING_ID`` (protocol A panels may not)"""


def pick_touchscreen(devices: Iterable[EventDevice]) -> Touchscreen | None:
    """The touch screen among ``devices``, as Android decides it
    (:func:`baremobile.android.input_devices.find_touchscreen`: multi-touch axes and
    ``INPUT_PROP_DIRECT``, else a multi-touch panel whose props were left to an ``.idc``
    file); a panel without ``ABS_MT_SLOT`` speaks protocol A."""
    d = find_touchscreen(devices)
    if d is None:
        return None
    slot = d.axes.get("ABS_MT_SLOT")
    tid = d.axes.get("ABS_MT_TRACKING_ID")
    return Touchscreen(d.path, d.name, d.axes["ABS_MT_POSITION_X"], d.axes["ABS_MT_POSITION_Y"],
                       slots=(slot.maximum + 1) if slot else 10,
                       tracking_max=tid.maximum if tid else 65535,
                       pressure=d.axes.get("ABS_MT_PRESSURE"),
                       touch_major=d.axes.get("ABS_MT_TOUCH_MAJOR"),
                       btn_touch="BTN_TOUCH" in d.keys,
                       protocol=d.protocol,
                       tracking_id=tid is not None)


# ---------------------------------------------------------------------------------------
# encoding
# ---------------------------------------------------------------------------------------


def to_natural(x: float, y: float, rotation: int, natural_w: int, natural_h: int
               ) -> tuple[float, float]:
    """A screen point (current orientation) → the panel's natural orientation, the inverse
    of ``TouchInputMapper``'s per-``SurfaceOrientation`` transform (90°: ``xn = W − y,
    yn = x``; 180°: ``W − x, H − y``; 270°: ``xn = y, yn = H − x``)."""
    r = rotation % 4
    w, h = natural_w, natural_h
    if r == 1:
        return w - y, x
    if r == 2:
        return w - x, h - y
    if r == 3:
        return y, h - x
    return x, y


Event = tuple[int, int, int]


def type_b(plan: GesturePlan, *, x: Axis, y: Axis, rotation: int, natural_w: int,
           natural_h: int, slots: int = 10, pressure: Axis | None = None,
           touch_major: Axis | None = None, btn_touch: bool = True, first_id: int = 1
           ) -> list[tuple[float, list[Event]]]:
    """The plan as type-B frames: ``(t_ms, [(type, code, value), …, SYN_REPORT])``."""
    if plan.fingers > slots:
        raise InvalidArgument(f"the touch screen tracks {slots} fingers, the gesture uses "
                              f"{plan.fingers}")
    slot_of: dict[int, int] = {}
    last_pos: dict[int, tuple[int, int]] = {}
    state = {"slot": -1}
    out: list[tuple[float, list[Event]]] = []

    def raw(px: float, py: float) -> tuple[int, int]:
        cx, cy = clamp(px, py, plan.width, plan.height)
        nx, ny = to_natural(cx, cy, rotation, natural_w, natural_h)
        return x.raw(nx, natural_w), y.raw(ny, natural_h)

    def select(events: list[Event], slot: int) -> None:
        if slot != state["slot"]:
            events.append((EV_ABS, ABS_MT_SLOT, slot))
            state["slot"] = slot

    for fr in plan.frames():
        events: list[Event] = []
        was_touching = bool(slot_of)
        for i in fr.lifted:
            select(events, slot_of.pop(i))
            events.append((EV_ABS, ABS_MT_TRACKING_ID, -1))
            last_pos.pop(i, None)
        for i, (px, py) in sorted(fr.down.items()):
            rx, ry = raw(px, py)
            if i not in slot_of:
                free = next(s for s in range(slots) if s not in slot_of.values())
                slot_of[i] = free
                select(events, free)
                events.append((EV_ABS, ABS_MT_TRACKING_ID, first_id + i))
                if touch_major is not None:
                    events.append((EV_ABS, ABS_MT_TOUCH_MAJOR,
                                   min(touch_major.maximum, max(touch_major.minimum, 8))))
                if pressure is not None:
                    mid = (pressure.minimum + pressure.maximum + 1) // 2
                    events.append((EV_ABS, ABS_MT_PRESSURE, max(1, mid)))
            elif last_pos.get(i) == (rx, ry):
                continue
            select(events, slot_of[i])
            old = last_pos.get(i)
            if old is None or old[0] != rx:
                events.append((EV_ABS, ABS_MT_POSITION_X, rx))
            if old is None or old[1] != ry:
                events.append((EV_ABS, ABS_MT_POSITION_Y, ry))
            last_pos[i] = (rx, ry)
        if btn_touch and not was_touching and slot_of:
            events.append((EV_KEY, BTN_TOUCH, 1))
        if btn_touch and was_touching and not slot_of:
            events.append((EV_KEY, BTN_TOUCH, 0))
        if events:
            events.append((EV_SYN, SYN_REPORT, 0))
            out.append((fr.t_ms, events))
    return out


def type_a(plan: GesturePlan, *, x: Axis, y: Axis, rotation: int, natural_w: int,
           natural_h: int, pressure: Axis | None = None, touch_major: Axis | None = None,
           btn_touch: bool = True, tracking_id: bool = True, first_id: int = 1,
           fingers: int = 10) -> list[tuple[float, list[Event]]]:
    """The plan as protocol-A frames (``Documentation/input/multi-touch-protocol.rst``,
    "Protocol Example A"): every frame lists every contact down — its axes, then
    ``SYN_MT_REPORT`` — and ends with ``SYN_REPORT``; the frame after the last lift is a
    lone ``SYN_MT_REPORT`` + ``SYN_REPORT``. The contacts are anonymous unless the panel
    reports ``ABS_MT_TRACKING_ID``; ``BTN_TOUCH`` goes with the first contact and the last
    lift, as in type B."""
    if plan.fingers > fingers:
        raise InvalidArgument(f"the touch screen tracks {fingers} fingers, the gesture uses "
                              f"{plan.fingers}")
    out: list[tuple[float, list[Event]]] = []
    down: dict[int, tuple[int, int]] = {}
    for fr in plan.frames():
        was_touching = bool(down)
        for i in fr.lifted:
            down.pop(i, None)
        changed = bool(fr.lifted)
        for i, (px, py) in sorted(fr.down.items()):
            cx, cy = clamp(px, py, plan.width, plan.height)
            nx, ny = to_natural(cx, cy, rotation, natural_w, natural_h)
            pos = (x.raw(nx, natural_w), y.raw(ny, natural_h))
            changed = changed or down.get(i) != pos
            down[i] = pos
        if not changed:
            continue
        events: list[Event] = []
        for i, (rx, ry) in sorted(down.items()):
            if tracking_id:
                events.append((EV_ABS, ABS_MT_TRACKING_ID, first_id + i))
            if touch_major is not None:
                events.append((EV_ABS, ABS_MT_TOUCH_MAJOR,
                               min(touch_major.maximum, max(touch_major.minimum, 8))))
            if pressure is not None:
                events.append((EV_ABS, ABS_MT_PRESSURE,
                               max(1, (pressure.minimum + pressure.maximum + 1) // 2)))
            events += [(EV_ABS, ABS_MT_POSITION_X, rx), (EV_ABS, ABS_MT_POSITION_Y, ry),
                       (EV_SYN, SYN_MT_REPORT, 0)]
        if not down:
            events.append((EV_SYN, SYN_MT_REPORT, 0))
        if btn_touch and not was_touching and down:
            events.append((EV_KEY, BTN_TOUCH, 1))
        if btn_touch and was_touching and not down:
            events.append((EV_KEY, BTN_TOUCH, 0))
        events.append((EV_SYN, SYN_REPORT, 0))
        out.append((fr.t_ms, events))
    return out


#: how long ``uinput`` waits after ``register`` before injecting (the README: commands sent
#: before InputReader has added the device are dropped)
REGISTER_MS = 400
_UI_SET_EVBIT, _UI_SET_KEYBIT, _UI_SET_ABSBIT, _UI_SET_PROPBIT = 100, 101, 103, 110


def uinput_script(plan: GesturePlan, *, rotation: int, natural_w: int, natural_h: int,
                  register_ms: float = REGISTER_MS, device_id: int = 1) -> str:
    """JSON commands for ``uinput FILE``: a virtual touch screen with axes in natural
    pixels (``INPUT_PROP_DIRECT``, ``BTN_TOUCH``, 10 slots), then the plan's frames with
    ``delay`` between them. One object per line, numbers as decimal integers (every
    release's parser reads those)."""
    x, y = Axis(0, natural_w - 1), Axis(0, natural_h - 1)

    def info(lo: int, hi: int) -> dict[str, int]:
        return {"value": 0, "minimum": lo, "maximum": hi, "fuzz": 0, "flat": 0, "resolution": 0}

    register = {
        "id": device_id, "command": "register", "name": "baremobile-touch",
        "vid": 0x18D1, "pid": 0x4EE7, "bus": "usb",
        "configuration": [
            {"type": _UI_SET_EVBIT, "data": [EV_KEY, EV_ABS]},
            {"type": _UI_SET_KEYBIT, "data": [BTN_TOUCH]},
            {"type": _UI_SET_ABSBIT, "data": [ABS_MT_SLOT, ABS_MT_POSITION_X,
                                               ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID]},
            {"type": _UI_SET_PROPBIT, "data": [INPUT_PROP_DIRECT]},
        ],
        "abs_info": [
            {"code": ABS_MT_SLOT, "info": info(0, 9)},
            {"code": ABS_MT_POSITION_X, "info": info(0, natural_w - 1)},
            {"code": ABS_MT_POSITION_Y, "info": info(0, natural_h - 1)},
            {"code": ABS_MT_TRACKING_ID, "info": info(0, 65535)},
        ],
    }
    lines = [register, {"id": device_id, "command": "delay", "duration": round(register_ms)}]
    prev: float | None = None
    elapsed = 0  # whole ms scheduled so far: rounding never accumulates
    for t, events in type_b(plan, x=x, y=y, rotation=rotation, natural_w=natural_w,
                            natural_h=natural_h):
        if prev is not None:
            due = round(t - plan_start(plan))
            if due > elapsed:
                lines.append({"id": device_id, "command": "delay", "duration": due - elapsed})
                elapsed = due
        prev = t
        lines.append({"id": device_id, "command": "inject",
                      "events": [v for e in events for v in e]})
    return "".join(json.dumps(obj, separators=(",", ":")) + "\n" for obj in lines)


#: ms a ``sendevent`` process takes from start to its write on an old phone (estimate:
#: a small toybox program; the script's timing model uses 2–10 ms)
SENDEVENT_MS = (2.0, 10.0)


def sendevent_script(plan: GesturePlan, ts: Touchscreen, *, rotation: int, natural_w: int,
                     natural_h: int) -> str:
    """A ``sh`` script writing the plan to the touch screen's node with ``sendevent``
    (type-B frames, or protocol A's when the panel has no slots)
    (one process per event, stopping at the first failure with its status: ``|| exit``
    rather than ``set -e``, which old shells ignore in places), sleeping between frames
    for what is left of the frame time after the writes (:data:`SENDEVENT_MS` each)."""
    if ts.protocol == "A":
        frames = type_a(plan, x=ts.x, y=ts.y, rotation=rotation, natural_w=natural_w,
                        natural_h=natural_h, pressure=ts.pressure,
                        touch_major=ts.touch_major, btn_touch=ts.btn_touch,
                        tracking_id=ts.tracking_id, fingers=ts.slots)
    else:
        frames = type_b(plan, x=ts.x, y=ts.y, rotation=rotation, natural_w=natural_w,
                        natural_h=natural_h, slots=ts.slots, pressure=ts.pressure,
                        touch_major=ts.touch_major, btn_touch=ts.btn_touch)
    lines: list[str] = []
    prev: float | None = None
    spent = 0.0
    for t, events in frames:
        if prev is not None:
            wait = (t - prev) - spent
            if wait >= 1:
                lines.append(f"sleep {wait / 1000:.3f}")
        for etype, code, value in events:
            lines.append(f"sendevent {ts.path} {etype} {code} {value} || exit")
        spent = len(events) * SENDEVENT_MS[0]
        prev = t
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# the double tap's timing model
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DoubleTapTiming:
    """What the app will measure between the first tap's lift and the second's touch-down
    (``GestureDetector``: it must be 40–300 ms), as a range, for one route."""

    route: str
    low_ms: float
    high_ms: float
    why: str

    @property
    def ok(self) -> bool:
        return self.low_ms >= DOUBLE_TAP_MIN_MS and self.high_ms < DOUBLE_TAP_TIMEOUT_MS


#: the gap a double tap through two ``input tap`` calls sleeps between them (API 31+)
INPUT_GAP_MS = 80
#: ``cmd input``'s start to injection on API 31+: a native ``cmd`` process and a binder
#: call into system_server (estimated 5–150 ms; measured tens of ms on devices)
INPUT_CMD_MS = (5.0, 150.0)
#: ``input``'s start on API ≤ 30: a Java VM (``app_process``), 300–1000 ms measured
INPUT_VM_MS = (300.0, 1000.0)


def script_syn_times(script: str, cost_ms: float) -> list[float]:
    """When each frame of a :func:`sendevent_script` reaches the panel (the ``SYN_REPORT``
    write), if every ``sendevent`` takes ``cost_ms`` and every ``sleep`` exactly its time:
    the script's own timing model."""
    now, syn = 0.0, []
    for line in script.splitlines():
        if line.startswith("sleep "):
            now += float(line.split()[1]) * 1000
        elif line.startswith("sendevent "):
            now += cost_ms
            if line.split(" || ")[0].endswith(" 0 0 0"):
                syn.append(now)
    return syn


def double_tap_timing(route: str, script: str | None = None) -> DoubleTapTiming:
    """The interval a route produces (``input`` on API 31+, ``input-vm`` on older ones,
    ``uinput``, ``sendevent``)."""
    if route == "input":
        lo, hi = INPUT_GAP_MS + INPUT_CMD_MS[0], INPUT_GAP_MS + INPUT_CMD_MS[1]
        why = (f"two `input tap` in one command with `sleep {INPUT_GAP_MS / 1000}` between: "
               "the sleep plus the second `cmd input` start")
    elif route == "input-vm":
        lo, hi = INPUT_VM_MS
        why = "each `input` starts a Java VM (app_process) before it injects"
    elif route == "uinput":
        lo = hi = float(DOUBLE_TAP_GAP_MS)
        why = "one uinput process schedules both taps on its own clock"
    elif route == "sendevent":
        if script is None:
            raise ValueError("the sendevent route's timing comes from its script")
        # frames: down 1, up 1, down 2, up 2: the interval is up 1 → down 2
        lo, hi = (t[2] - t[1] for t in (script_syn_times(script, c) for c in SENDEVENT_MS))
        why = ("one script: the first tap's lift, a sleep, then the second tap's sendevent "
               f"writes at {SENDEVENT_MS[0]:g}–{SENDEVENT_MS[1]:g} ms each")
    else:
        raise ValueError(route)
    return DoubleTapTiming(route, lo, hi, why)
