"""The phone's input devices as the kernel shows them: ``/dev/input/eventN`` nodes with their
names, event bits, axis ranges and properties, and the multi-touch state machine that turns
what is written to them into pointer frames.

What a program can learn or do here is what Linux's evdev interface offers (the ``EVIOCG*``
ioctls ``getevent`` uses, ``write()`` of ``struct input_event``), and what Android does with
it (``frameworks/native/services/inputflinger``):

* ``EventHub`` makes a device a multi-touch device when it reports ``ABS_MT_POSITION_X`` and
  ``ABS_MT_POSITION_Y``; ``TouchInputMapper`` makes it a *touch screen* only with
  ``INPUT_PROP_DIRECT`` (otherwise it would be a touchpad moving a pointer) — a device
  without those is listed but its touches reach no screen;
* the type-B protocol (``Documentation/input/multi-touch-protocol.rst``): ``ABS_MT_SLOT``
  selects a slot, ``ABS_MT_TRACKING_ID`` ≥ 0 starts a contact in it and −1 ends it,
  positions update the current slot, ``SYN_REPORT`` publishes one frame;
* raw axis values cover the panel in its **natural** orientation from ``minimum`` to
  ``maximum``; :meth:`InputDevice.to_natural` scales them to the display's natural pixels
  (the rotation is applied by the screen, as ``TouchInputMapper`` does with the viewport).

Nothing here knows the screen: :class:`MultiTouchDecoder` yields :class:`Frame` objects
(natural pixels, milliseconds) that the model hands to the screen model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = [
    "EV_SYN", "EV_KEY", "EV_ABS", "SYN_REPORT", "SYN_MT_REPORT", "BTN_TOUCH", "BTN_TOOL_FINGER",
    "ABS_MT_SLOT", "ABS_MT_TOUCH_MAJOR", "ABS_MT_POSITION_X", "ABS_MT_POSITION_Y",
    "ABS_MT_TRACKING_ID", "ABS_MT_PRESSURE", "INPUT_PROP_DIRECT",
    "EV_LABELS", "KEY_LABELS", "ABS_LABELS", "PROP_LABELS",
    "AbsInfo", "InputDevice", "Frame", "MultiTouchDecoder", "builtin_devices",
]

# -- codes (linux/input-event-codes.h) ---------------------------------------------------------

EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW = 0x00, 0x01, 0x02, 0x03, 0x04, 0x05
SYN_REPORT, SYN_MT_REPORT = 0, 2
BTN_TOOL_FINGER = 0x145
BTN_TOUCH = 0x14A
KEY_VOLUMEDOWN, KEY_VOLUMEUP, KEY_POWER = 114, 115, 116
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT = 0x2F
ABS_MT_TOUCH_MAJOR = 0x30
ABS_MT_TOUCH_MINOR = 0x31
ABS_MT_WIDTH_MAJOR = 0x32
ABS_MT_ORIENTATION = 0x34
ABS_MT_POSITION_X = 0x35
ABS_MT_POSITION_Y = 0x36
ABS_MT_TOOL_TYPE = 0x37
ABS_MT_TRACKING_ID = 0x39
ABS_MT_PRESSURE = 0x3A
INPUT_PROP_POINTER, INPUT_PROP_DIRECT = 0x00, 0x01

#: the labels ``getevent -l`` prints (toolbox's ``getevent.h``; only the codes used here)
EV_LABELS = {EV_SYN: "EV_SYN", EV_KEY: "EV_KEY", EV_REL: "EV_REL", EV_ABS: "EV_ABS",
             EV_MSC: "EV_MSC", EV_SW: "EV_SW"}
KEY_LABELS = {KEY_VOLUMEDOWN: "KEY_VOLUMEDOWN", KEY_VOLUMEUP: "KEY_VOLUMEUP",
              KEY_POWER: "KEY_POWER", BTN_TOOL_FINGER: "BTN_TOOL_FINGER",
              BTN_TOUCH: "BTN_TOUCH"}
ABS_LABELS = {ABS_X: "ABS_X", ABS_Y: "ABS_Y", ABS_MT_SLOT: "ABS_MT_SLOT",
              ABS_MT_TOUCH_MAJOR: "ABS_MT_TOUCH_MAJOR", ABS_MT_TOUCH_MINOR: "ABS_MT_TOUCH_MINOR",
              ABS_MT_WIDTH_MAJOR: "ABS_MT_WIDTH_MAJOR", ABS_MT_ORIENTATION: "ABS_MT_ORIENTATION",
              ABS_MT_POSITION_X: "ABS_MT_POSITION_X", ABS_MT_POSITION_Y: "ABS_MT_POSITION_Y",
              ABS_MT_TOOL_TYPE: "ABS_MT_TOOL_TYPE", ABS_MT_TRACKING_ID: "ABS_MT_TRACKING_ID",
              ABS_MT_PRESSURE: "ABS_MT_PRESSURE"}
PROP_LABELS = {INPUT_PROP_POINTER: "INPUT_PROP_POINTER", INPUT_PROP_DIRECT: "INPUT_PROP_DIRECT"}


@dataclass
class AbsInfo:
    """``struct input_absinfo``: one axis' current value and range."""

    value: int = 0
    minimum: int = 0
    maximum: int = 0
    fuzz: int = 0
    flat: int = 0
    resolution: int = 0


@dataclass
class InputDevice:
    """One ``/dev/input/eventN`` node."""

    number: int  # the N of eventN
    name: str
    keys: list[int] = field(default_factory=list)
    axes: dict[int, AbsInfo] = field(default_factory=dict)
    props: list[int] = field(default_factory=list)
    event_types: list[int] = field(default_factory=list)  # beyond those implied by keys/axes
    uinput: bool = False  # created by /dev/uinput (gone when its creator exits)
    ready_at_ms: float = 0.0  # before this, InputReader has not opened it: events are lost
    idc_touchscreen: bool = False  # its .idc file says ``touch.deviceType = touchScreen``

    @property
    def path(self) -> str:
        return f"/dev/input/event{self.number}"

    @property
    def types(self) -> list[int]:
        t = set(self.event_types)
        if self.keys:
            t.add(EV_KEY)
        if self.axes:
            t.add(EV_ABS)
        return sorted(t)

    @property
    def is_touchscreen(self) -> bool:
        """What Android maps onto the display: MT positions and ``INPUT_PROP_DIRECT`` (or
        an ``.idc`` file that says so, for kernels that set no props)."""
        return (ABS_MT_POSITION_X in self.axes and ABS_MT_POSITION_Y in self.axes
                and (INPUT_PROP_DIRECT in self.props or self.idc_touchscreen))

    def to_natural(self, raw_x: int, raw_y: int, width: int, height: int) -> tuple[float, float]:
        """Raw axis values → pixels of the display in its natural orientation
        (``TouchInputMapper``: ``(raw - min) * size / (max - min + 1)``)."""
        ax, ay = self.axes[ABS_MT_POSITION_X], self.axes[ABS_MT_POSITION_Y]
        x = (raw_x - ax.minimum) * width / (ax.maximum - ax.minimum + 1)
        y = (raw_y - ay.minimum) * height / (ay.maximum - ay.minimum + 1)
        return x, y


def builtin_devices(first: int = 0) -> list[InputDevice]:
    """A phone's own devices: the power key, the volume keys and a touch panel whose axes
    are **not** in pixels (``0..4095`` on both axes, like many Synaptics/FocalTech panels),
    so a client that forgets to scale lands in the wrong place."""
    def axis(maximum: int) -> AbsInfo:
        return AbsInfo(0, 0, maximum)

    return [
        InputDevice(first, "qpnp_pon", keys=[KEY_VOLUMEDOWN, KEY_POWER]),
        InputDevice(first + 1, "gpio-keys", keys=[KEY_VOLUMEUP]),
        InputDevice(first + 2, "vphone_touchscreen", keys=[BTN_TOOL_FINGER, BTN_TOUCH],
                    axes={ABS_MT_SLOT: axis(9), ABS_MT_TOUCH_MAJOR: axis(255),
                          ABS_MT_POSITION_X: axis(4095), ABS_MT_POSITION_Y: axis(4095),
                          ABS_MT_TRACKING_ID: axis(65535), ABS_MT_PRESSURE: axis(255)},
                    props=[INPUT_PROP_DIRECT]),
    ]


# -- type-B decoding ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """What one ``SYN_REPORT`` published: the contacts down at that moment.

    ``pointers`` maps a tracking id to its raw ``(x, y)``.
    """

    time_ms: float
    pointers: dict[int, tuple[int, int]]


class MultiTouchDecoder:
    """Slots → frames, as the kernel's input-mt core and Android's
    ``MultiTouchMotionAccumulator`` see a type-B stream.

    A contact is *hovering* — reported to no window — when the device has a pressure axis
    and the contact's pressure is 0, or when the device has ``BTN_TOUCH`` and it is not
    down (``MultiTouchInputMapper``: ``isHovering``); such contacts are left out of the
    frames.
    """

    def __init__(self, slots: int = 10, *, pressure: bool = False,
                 btn_touch: bool = False, protocol: str = "B") -> None:
        self.protocol = protocol
        self._a: list[dict[int, int]] = []  # protocol A: the contacts of this frame
        self._a_cur: dict[int, int] = {}  # protocol A: the contact being reported
        self.slot = 0
        self._ids: dict[int, int] = {}  # slot -> tracking id
        self._pos: dict[int, list[int]] = {}  # slot -> [x, y]
        self._pressure: dict[int, int] = {}  # slot -> pressure
        self._slots = slots
        self._has_pressure = pressure
        self._has_btn = btn_touch
        self._btn_down = False

    @classmethod
    def for_device(cls, dev: InputDevice) -> MultiTouchDecoder:
        slot = dev.axes.get(ABS_MT_SLOT)
        return cls(slot.maximum + 1 if slot else 10, pressure=ABS_MT_PRESSURE in dev.axes,
                   btn_touch=BTN_TOUCH in dev.keys, protocol="B" if slot else "A")

    def _touching(self, pressure: int) -> bool:
        """A contact with ``pressure`` touches (is not hovering, see the class' docs)."""
        if self._has_btn and not self._btn_down:
            return False
        return not self._has_pressure or pressure > 0

    def feed(self, events: Iterable[tuple[int, int, int]], time_ms: float) -> list[Frame]:
        """Apply ``(type, code, value)`` events; one :class:`Frame` per ``SYN_REPORT``."""
        if self.protocol == "A":
            return self._feed_a(events, time_ms)
        frames: list[Frame] = []
        for etype, code, value in events:
            if etype == EV_ABS:
                if code == ABS_MT_SLOT:
                    if 0 <= value < self._slots:
                        self.slot = value
                elif code == ABS_MT_TRACKING_ID:
                    if value < 0:
                        self._ids.pop(self.slot, None)
                        self._pressure.pop(self.slot, None)
                    else:
                        self._ids[self.slot] = value
                        self._pos.setdefault(self.slot, [0, 0])
                elif code == ABS_MT_POSITION_X:
                    self._pos.setdefault(self.slot, [0, 0])[0] = value
                elif code == ABS_MT_POSITION_Y:
                    self._pos.setdefault(self.slot, [0, 0])[1] = value
                elif code == ABS_MT_PRESSURE:
                    self._pressure[self.slot] = value
            elif etype == EV_KEY and code == BTN_TOUCH:
                self._btn_down = value != 0
            elif etype == EV_SYN and code == SYN_REPORT:
                frames.append(Frame(time_ms, {tid: (self._pos[s][0], self._pos[s][1])
                                              for s, tid in sorted(self._ids.items())
                                              if self._touching(self._pressure.get(s, 0))}))
        return frames

    def _feed_a(self, events: Iterable[tuple[int, int, int]], time_ms: float) -> list[Frame]:
        """Protocol A (``multi-touch-protocol.rst``): the axes of one contact, then
        ``SYN_MT_REPORT``; ``SYN_REPORT`` publishes the contacts reported since the last
        one (none: every finger is up). Without ``ABS_MT_TRACKING_ID`` a contact's id is
        its place in the frame (``MultiTouchInputMapper`` then matches pointers itself)."""
        frames: list[Frame] = []
        for etype, code, value in events:
            if etype == EV_ABS and code in (ABS_MT_POSITION_X, ABS_MT_POSITION_Y,
                                            ABS_MT_TRACKING_ID, ABS_MT_PRESSURE):
                self._a_cur[code] = value
            elif etype == EV_KEY and code == BTN_TOUCH:
                self._btn_down = value != 0
            elif etype == EV_SYN and code == SYN_MT_REPORT:
                if ABS_MT_POSITION_X in self._a_cur or ABS_MT_POSITION_Y in self._a_cur:
                    self._a.append(self._a_cur)
                self._a_cur = {}
            elif etype == EV_SYN and code == SYN_REPORT:
                pointers: dict[int, tuple[int, int]] = {}
                for i, c in enumerate(self._a[:self._slots]):
                    if self._touching(c.get(ABS_MT_PRESSURE, 0)):
                        pointers[c.get(ABS_MT_TRACKING_ID, i)] = (
                            c.get(ABS_MT_POSITION_X, 0), c.get(ABS_MT_POSITION_Y, 0))
                frames.append(Frame(time_ms, pointers))
                self._a, self._a_cur = [], {}
        return frames
