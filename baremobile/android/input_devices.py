"""The input devices: ``getevent -lp`` (or ``-p``), and which one is the touch screen.

Format (``system/core/toolbox/getevent.c``, ``print_possible_events`` / ``open_device``;
the same tool from Android 2 to 16): per device ``add device N: /dev/input/eventM``, then
``  name:     "NAME"``, ``  events:`` with one ``TYPE (hex): `` section per event type
(``KEY (0001):``, ``ABS (0003):``, ``SW  (0005):`` …); keys and switches four labels to a
line, each ``%-20.20s`` — so a longer label is cut at 20 characters
(``KEY_PRIVACY_SCREEN_T``) and a code without a label is printed in hex (``025d``); a key
held down now carries ``*``. Every ``ABS`` axis has a line of its own: ``LABEL : value V,
min A, max B, fuzz F, flat F, resolution R`` (``resolution`` since Android 4.0; without
``-l`` the label is the hex code). Then ``  input props:`` with one ``INPUT_PROP_*`` per line
or ``<none>`` (Android 4.0+; older builds print no props section).

Which device is the touch screen, as Android decides (``EventHub::openDeviceLocked``:
``ABS_MT_POSITION_X``/``Y`` make a multi-touch device; ``TouchInputMapper::configureParameters``:
``INPUT_PROP_DIRECT`` makes it a touch screen, ``INPUT_PROP_POINTER`` a touchpad, and a
device with neither is whatever its ``.idc`` file says — on older phones, before kernels set
``INPUT_PROP_DIRECT``, ``touch.deviceType = touchScreen``). Without ``ABS_MT_SLOT`` the
device speaks multi-touch protocol A (``Documentation/input/multi-touch-protocol.rst``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from baremobile.android.text import lines

__all__ = ["Axis", "EventDevice", "parse_getevent", "find_touchscreen", "ABS_CODES"]

#: ``linux/input-event-codes.h``: the multi-touch axes by name and code (``getevent -p``
#: without ``-l`` prints codes)
ABS_CODES = {"ABS_X": 0x00, "ABS_Y": 0x01, "ABS_PRESSURE": 0x18, "ABS_MT_SLOT": 0x2F,
             "ABS_MT_TOUCH_MAJOR": 0x30, "ABS_MT_TOUCH_MINOR": 0x31,
             "ABS_MT_WIDTH_MAJOR": 0x32, "ABS_MT_WIDTH_MINOR": 0x33,
             "ABS_MT_ORIENTATION": 0x34, "ABS_MT_POSITION_X": 0x35,
             "ABS_MT_POSITION_Y": 0x36, "ABS_MT_TOOL_TYPE": 0x37, "ABS_MT_BLOB_ID": 0x38,
             "ABS_MT_TRACKING_ID": 0x39, "ABS_MT_PRESSURE": 0x3A, "ABS_MT_DISTANCE": 0x3B}
_ABS_NAMES = {v: k for k, v in ABS_CODES.items()}
_KEY_CODES = {0x14A: "BTN_TOUCH", 0x145: "BTN_TOOL_FINGER"}
_PROP_CODES = {0: "INPUT_PROP_POINTER", 1: "INPUT_PROP_DIRECT"}


@dataclass(frozen=True)
class Axis:
    """An absolute axis' range."""

    minimum: int
    maximum: int

    def raw(self, pixel: float, pixels: int) -> int:
        """A pixel (0..pixels) → the axis value ``TouchInputMapper`` maps back to it."""
        span = self.maximum - self.minimum + 1
        value = self.minimum + int(pixel * span / pixels)
        return min(max(value, self.minimum), self.maximum)


@dataclass(frozen=True)
class EventDevice:
    """One ``add device`` block."""

    path: str
    name: str
    keys: frozenset[str] = frozenset()
    axes: Mapping[str, Axis] = field(default_factory=lambda: MappingProxyType({}))
    props: frozenset[str] = frozenset()

    @property
    def multitouch(self) -> bool:
        return "ABS_MT_POSITION_X" in self.axes and "ABS_MT_POSITION_Y" in self.axes

    @property
    def protocol(self) -> str:
        """``"B"`` (slots: ``ABS_MT_SLOT``) or ``"A"`` (anonymous contacts)."""
        return "B" if "ABS_MT_SLOT" in self.axes else "A"


_ADD = re.compile(r"^add device \d+:\s*(\S+)")
_NAME = re.compile(r'^\s+name:\s+"(.*)"\s*$')
_SECTION = re.compile(r"^\s+([A-Z]{2,3})\s*\(([0-9a-fA-F]{4})\):\s?(.*)$")
_AXIS = re.compile(r"^\s*(\w+?)\s*\*?\s*:\s*value\s+-?\d+,\s*min\s+(-?\d+),\s*max\s+(-?\d+)")


def _label(word: str, names: Mapping[int, str]) -> str:
    word = word.rstrip("*")
    if re.fullmatch(r"[0-9a-fA-F]{4}", word):
        return names.get(int(word, 16), word.lower())
    return word


@dataclass
class _Block:
    """An ``add device`` block being read."""

    path: str
    name: str = ""
    keys: set[str] = field(default_factory=set)
    axes: dict[str, Axis] = field(default_factory=dict)
    props: set[str] = field(default_factory=set)


def parse_getevent(data: bytes | str) -> list[EventDevice]:
    """Every device of ``getevent -lp`` / ``getevent -p`` output, in the order listed.
    Lines it does not know (``could not get driver version``, ``bus:`` … of ``-i``) are
    skipped; a block cut short keeps what was printed."""
    devices: list[EventDevice] = []
    cur: _Block | None = None
    section = ""

    def flush() -> None:
        if cur is not None:
            devices.append(EventDevice(
                cur.path, cur.name, frozenset(cur.keys), MappingProxyType(dict(cur.axes)),
                frozenset(cur.props)))

    for line in lines(data):
        m = _ADD.match(line)
        if m:
            flush()
            cur = _Block(m.group(1))
            section = ""
            continue
        if cur is None or not line.strip():
            continue
        m = _NAME.match(line)
        if m:
            cur.name = m.group(1)
            continue
        stripped = line.strip()
        if stripped == "input props:":
            section = "props"
            continue
        if stripped == "events:" or not line.startswith(" "):
            if not line.startswith(" "):
                section = ""
            continue
        s = _SECTION.match(line)
        if s:
            section, rest = s.group(1), s.group(3)
        elif section == "props":
            if not stripped.startswith("<"):
                cur.props.add(_label(stripped, _PROP_CODES))
            continue
        else:
            rest = line
        if section == "ABS":
            a = _AXIS.match(rest)
            if a:
                name = _label(a.group(1), _ABS_NAMES)
                cur.axes[name] = Axis(int(a.group(2)), int(a.group(3)))
        elif section == "KEY":
            cur.keys.update(_label(w, _KEY_CODES) for w in rest.split())
    flush()
    return devices


def _number(d: EventDevice) -> int:
    m = re.search(r"(\d+)$", d.path)
    return int(m.group(1)) if m else 1 << 30


_TOUCHY = re.compile(r"touch|_ts\b|\bts_|tsc|synaptics|focaltech|goodix|atmel|ft5x|"
                     r"mxt|cyttsp|himax|novatek|elan|ilitek|sec_touch", re.I)
_NOT_SCREEN = re.compile(r"pen|stylus|fp\b|_fp|finger ?print|mouse|pad\b|key", re.I)


def find_touchscreen(devices: Iterable[EventDevice]) -> EventDevice | None:
    """The touch screen: a multi-touch device with ``INPUT_PROP_DIRECT``; failing that
    (kernels that leave the props to an ``.idc`` file), a multi-touch device without
    ``INPUT_PROP_POINTER`` that reports ``BTN_TOUCH`` or a tracking id and whose name is
    not a pen's, a fingerprint sensor's or a touchpad's. Among several, one whose name says
    touch, then the lowest-numbered node (emulators list several
    ``virtio_input_multi_touch_N``, the first wired to the display)."""
    found = [d for d in devices if d.multitouch]
    direct = [d for d in found if "INPUT_PROP_DIRECT" in d.props]
    if not direct:
        direct = [d for d in found if "INPUT_PROP_POINTER" not in d.props
                  and ("BTN_TOUCH" in d.keys or "ABS_MT_TRACKING_ID" in d.axes)
                  and not _NOT_SCREEN.search(d.name)]
    direct.sort(key=lambda d: (not _TOUCHY.search(d.name), _number(d)))
    return direct[0] if direct else None
