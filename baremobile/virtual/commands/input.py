"""``input``: Android's InputShellCommand, quirks included.

Emulated from ``com.android.server.input.InputShellCommand`` (AOSP):

* numbers are parsed like ``Float.parseFloat`` / ``Integer.parseInt``; a bad number
  fails with ``IllegalArgumentException: Error: Invalid arguments for command: tap``
  (exit 255, printed by ``BasicShellCommandHandler``);
* ``input text`` decodes ``%s`` exactly as ``sendText`` does, then maps characters
  through the virtual keyboard's key character map; a character the map cannot produce
  makes ``getEvents`` return null and the command dies with a NullPointerException —
  nothing is typed;
* on API >= 35 a literal space in the argument fails the same way (observed on
  Android 15 images); ``%s`` still works;
* only the first argument after ``text`` is used;
* ``keyevent`` resolves unknown key names to KEYCODE_UNKNOWN (0) silently, while
  ``keycombination`` rejects them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Generator
from typing import Any

from baremobile.virtual.commands.binder import binder_tail, java_exception
from baremobile.virtual.commands.registry import command
from baremobile.virtual.shell.process import Proc, err, out

Gen = Generator[tuple[int, bytes], None, int]

_BASE_NAMES = (
    "UNKNOWN SOFT_LEFT SOFT_RIGHT HOME BACK CALL ENDCALL 0 1 2 3 4 5 6 7 8 9 STAR POUND "
    "DPAD_UP DPAD_DOWN DPAD_LEFT DPAD_RIGHT DPAD_CENTER VOLUME_UP VOLUME_DOWN POWER CAMERA "
    "CLEAR A B C D E F G H I J K L M N O P Q R S T U V W X Y Z COMMA PERIOD ALT_LEFT "
    "ALT_RIGHT SHIFT_LEFT SHIFT_RIGHT TAB SPACE SYM EXPLORER ENVELOPE ENTER DEL GRAVE MINUS "
    "EQUALS LEFT_BRACKET RIGHT_BRACKET BACKSLASH SEMICOLON APOSTROPHE SLASH AT NUM "
    "HEADSETHOOK FOCUS PLUS MENU NOTIFICATION SEARCH MEDIA_PLAY_PAUSE MEDIA_STOP MEDIA_NEXT "
    "MEDIA_PREVIOUS MEDIA_REWIND MEDIA_FAST_FORWARD MUTE PAGE_UP PAGE_DOWN PICTSYMBOLS "
    "SWITCH_CHARSET BUTTON_A BUTTON_B BUTTON_C BUTTON_X BUTTON_Y BUTTON_Z BUTTON_L1 "
    "BUTTON_R1 BUTTON_L2 BUTTON_R2 BUTTON_THUMBL BUTTON_THUMBR BUTTON_START BUTTON_SELECT "
    "BUTTON_MODE ESCAPE FORWARD_DEL CTRL_LEFT CTRL_RIGHT CAPS_LOCK SCROLL_LOCK META_LEFT "
    "META_RIGHT FUNCTION SYSRQ BREAK MOVE_HOME MOVE_END INSERT FORWARD MEDIA_PLAY MEDIA_PAUSE "
    "MEDIA_CLOSE MEDIA_EJECT MEDIA_RECORD F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 NUM_LOCK "
    "NUMPAD_0 NUMPAD_1 NUMPAD_2 NUMPAD_3 NUMPAD_4 NUMPAD_5 NUMPAD_6 NUMPAD_7 NUMPAD_8 "
    "NUMPAD_9 NUMPAD_DIVIDE NUMPAD_MULTIPLY NUMPAD_SUBTRACT NUMPAD_ADD NUMPAD_DOT "
    "NUMPAD_COMMA NUMPAD_ENTER NUMPAD_EQUALS NUMPAD_LEFT_PAREN NUMPAD_RIGHT_PAREN "
    "VOLUME_MUTE INFO CHANNEL_UP CHANNEL_DOWN ZOOM_IN ZOOM_OUT TV WINDOW GUIDE DVR BOOKMARK "
    "CAPTIONS SETTINGS TV_POWER TV_INPUT STB_POWER STB_INPUT AVR_POWER AVR_INPUT PROG_RED "
    "PROG_GREEN PROG_YELLOW PROG_BLUE APP_SWITCH BUTTON_1 BUTTON_2 BUTTON_3 BUTTON_4 "
    "BUTTON_5 BUTTON_6 BUTTON_7 BUTTON_8 BUTTON_9 BUTTON_10 BUTTON_11 BUTTON_12 BUTTON_13 "
    "BUTTON_14 BUTTON_15 BUTTON_16 LANGUAGE_SWITCH MANNER_MODE 3D_MODE CONTACTS CALENDAR "
    "MUSIC CALCULATOR ZENKAKU_HANKAKU EISU MUHENKAN HENKAN KATAKANA_HIRAGANA YEN RO KANA "
    "ASSIST BRIGHTNESS_DOWN BRIGHTNESS_UP MEDIA_AUDIO_TRACK SLEEP WAKEUP PAIRING "
    "MEDIA_TOP_MENU 11 12 LAST_CHANNEL TV_DATA_SERVICE VOICE_ASSIST TV_RADIO_SERVICE "
    "TV_TELETEXT TV_NUMBER_ENTRY TV_TERRESTRIAL_ANALOG TV_TERRESTRIAL_DIGITAL TV_SATELLITE "
    "TV_SATELLITE_BS TV_SATELLITE_CS TV_SATELLITE_SERVICE TV_NETWORK TV_ANTENNA_CABLE "
    "TV_INPUT_HDMI_1 TV_INPUT_HDMI_2 TV_INPUT_HDMI_3 TV_INPUT_HDMI_4 TV_INPUT_COMPOSITE_1 "
    "TV_INPUT_COMPOSITE_2 TV_INPUT_COMPONENT_1 TV_INPUT_COMPONENT_2 TV_INPUT_VGA_1 "
    "TV_AUDIO_DESCRIPTION TV_AUDIO_DESCRIPTION_MIX_UP TV_AUDIO_DESCRIPTION_MIX_DOWN "
    "TV_ZOOM_MODE TV_CONTENTS_MENU TV_MEDIA_CONTEXT_MENU TV_TIMER_PROGRAMMING HELP "
    "NAVIGATE_PREVIOUS NAVIGATE_NEXT NAVIGATE_IN NAVIGATE_OUT STEM_PRIMARY STEM_1 STEM_2 "
    "STEM_3 DPAD_UP_LEFT DPAD_DOWN_LEFT DPAD_UP_RIGHT DPAD_DOWN_RIGHT MEDIA_SKIP_FORWARD "
    "MEDIA_SKIP_BACKWARD MEDIA_STEP_FORWARD MEDIA_STEP_BACKWARD SOFT_SLEEP CUT COPY PASTE "
    "SYSTEM_NAVIGATION_UP SYSTEM_NAVIGATION_DOWN SYSTEM_NAVIGATION_LEFT "
    "SYSTEM_NAVIGATION_RIGHT ALL_APPS REFRESH THUMBS_UP THUMBS_DOWN PROFILE_SWITCH "
    "VIDEO_APP_1 VIDEO_APP_2 VIDEO_APP_3 VIDEO_APP_4 VIDEO_APP_5 VIDEO_APP_6 VIDEO_APP_7 "
    "VIDEO_APP_8 FEATURED_APP_1 FEATURED_APP_2 FEATURED_APP_3 FEATURED_APP_4 DEMO_APP_1 "
    "DEMO_APP_2 DEMO_APP_3 DEMO_APP_4 KEYBOARD_BACKLIGHT_DOWN KEYBOARD_BACKLIGHT_UP "
    "KEYBOARD_BACKLIGHT_TOGGLE STYLUS_BUTTON_PRIMARY STYLUS_BUTTON_SECONDARY "
    "STYLUS_BUTTON_TERTIARY STYLUS_BUTTON_TAIL"
)
#: KeyEvent names without the ``KEYCODE_`` prefix, indexed by key code
KEY_NAMES: tuple[str, ...] = tuple(_BASE_NAMES.split())
KEYCODES: dict[str, int] = {name: code for code, name in enumerate(KEY_NAMES)}
LAST_KEYCODE = len(KEY_NAMES) - 1


def keycode_from_string(name: str) -> int:
    """``KeyEvent.keyCodeFromString``: number, ``KEYCODE_X`` or ``X``; unknown -> 0."""
    if re.fullmatch(r"[+-]?\d+", name):
        try:
            code = int(name)
        except ValueError:
            code = -1
        if 0 <= code <= LAST_KEYCODE:
            return code
    if name.startswith("KEYCODE_"):
        name = name[len("KEYCODE_"):]
    return KEYCODES.get(name, 0)


def key_label(code: int) -> str:
    """``KeyEvent.keyCodeToString``: ``KEYCODE_HOME`` (or the number if unknown)."""
    return f"KEYCODE_{KEY_NAMES[code]}" if 0 <= code <= LAST_KEYCODE else str(code)


# -- Java number parsing ------------------------------------------------------------------

_JAVA_FLOAT = re.compile(
    r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)\Z")


class _Bad(Exception):  # noqa: N818
    pass


def java_float(text: str) -> float:
    """``Float.parseFloat`` (leading/trailing whitespace allowed, ``f``/``d`` suffixes)."""
    t = text.strip(" \t\n\r\x0b\x0c\x00")
    if not _JAVA_FLOAT.match(t):
        raise _Bad(text)
    t = t.rstrip("fFdD") if not t.endswith("Infinity") else t
    return float(t.replace("Infinity", "inf"))


def java_int(text: str) -> int:
    """``Integer.parseInt``."""
    if not re.fullmatch(r"[+-]?\d+", text):
        raise _Bad(text)
    v = int(text)
    if not -(2**31) <= v < 2**31:
        raise _Bad(text)
    return v


# -- the command ---------------------------------------------------------------------------

_SOURCES = ("keyboard", "dpad", "gamepad", "touchscreen", "mouse", "stylus", "trackball",
            "touchpad", "touchnavigation", "joystick", "rotaryencoder")


def _java_hash(s: str) -> int:
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def usage() -> str:
    """InputShellCommand.onHelp (sources in ArrayMap order: by Java hash code)."""
    lines = ["Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]", "",
             "The sources are: "]
    lines += [f"      {s}" for s in sorted(_SOURCES, key=_java_hash)]
    lines += [
        "[axis_value] represents an option specifying the value of a given axis ",
        "      The syntax is as follows: --axis <axis_name>,<axis_value>",
        "            where <axis_name> is the name of the axis as defined in ",
        "            MotionEvent without the AXIS_ prefix (e.g. SCROLL, X)",
        "      Sample [axis_values] entry: `--axis Y,3`, `--axis SCROLL,-2`",
        "",
        "-d: specify the display ID.",
        "      (Default: -1 for key event, 0 for motion event if not specified.)",
        "The commands and default sources are:",
        "      text <string> (Default: keyboard)",
        "      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes "
        "in ms>] <key code number or name> ... (Default: keyboard)",
        "      tap <x> <y> (Default: touchscreen)",
        "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
        "      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
        "      press (Default: trackball)",
        "      roll <dx> <dy> (Default: trackball)",
        "      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)",
        "      scroll (Default: rotaryencoder). Has the following syntax:",
        "            scroll <x> <y> [axis_value] (for pointer-based sources)",
        "            scroll [axis_value] (for non-pointer-based sources)",
        "            Axis options: SCROLL, HSCROLL, VSCROLL",
        "            None or one or multiple axis value options can be specified.",
        "            To specify multiple axes, use one axis option for per axis.",
        "            Example: `scroll --axis VSCROLL,2 --axis SCROLL,-2.4`",
        "      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: "
        "keyboard, the key order is important here.)",
    ]
    return "\n".join(lines) + "\n"


_TAIL = binder_tail("com.android.server.input.InputManagerService", "InputManagerService.java",
                    3297, "android.hardware.input.IInputManager$Stub", 1339)
_FRAME = "com.android.server.input.InputShellCommand"
_LINES = {"onCommand": 232, "runText": 291, "sendText": 319, "runTap": 355, "runSwipe": 381,
          "runKeyEvent": 330, "runKeyCombination": 520, "getNextArgRequired": 0}


def _frames(*methods: str) -> list[str]:
    frames = []
    for m in methods:
        if m == "getNextArgRequired":
            frames.append("com.android.modules.utils.BasicShellCommandHandler."
                          "getNextArgRequired(BasicShellCommandHandler.java:295)")
        else:
            frames.append(f"{_FRAME}.{m}(InputShellCommand.java:{_LINES[m]})")
    return frames + _TAIL


class _Args:
    """ShellCommand's argument cursor."""

    def __init__(self, args: list[str]) -> None:
        self.args = args
        self.pos = 0

    def next(self) -> str | None:
        if self.pos < len(self.args):
            self.pos += 1
            return self.args[self.pos - 1]
        return None

    def required(self, method: str) -> str:
        a = self.next()
        if a is None:
            prev = self.args[self.pos - 1] if self.pos else ""
            raise _Fail(f"java.lang.IllegalArgumentException: Argument expected after \"{prev}\"",
                        ["getNextArgRequired", method, "onCommand"])
        return a


class _Fail(Exception):  # noqa: N818
    def __init__(self, exception: str, methods: list[str]) -> None:
        self.exception = exception
        self.methods = methods


def _text_unmappable(text: str, api_level: int) -> bool:
    for ch in text:
        o = ord(ch)
        if ch in "\n\t":
            continue
        if o < 0x20 or o > 0x7E:
            return True
    return False


def decode_input_text(text: str) -> str:
    """``%s`` -> space exactly as ``InputShellCommand.sendText`` does it."""
    buff = list(text)
    escape = False
    i = 0
    while i < len(buff):
        if escape:
            escape = False
            if buff[i] == "s":
                buff[i] = " "
                i -= 1
                del buff[i]
        if buff[i] == "%":
            escape = True
        i += 1
    return "".join(buff)


@command("input")
def input_(p: Proc) -> Gen:
    args = p.argv[1:]
    cmd = args[0] if args else None
    cursor = _Args(args[1:])
    arg = cmd
    try:
        if arg in _SOURCES:
            arg = cursor.required("onCommand")
        if arg == "-d":
            display = cursor.required("onCommand")
            if not re.fullmatch(r"[+-]?\d+", display) and display.upper() not in (
                    "INVALID_DISPLAY", "DEFAULT_DISPLAY"):
                raise _Fail("java.lang.IllegalArgumentException: Error: Invalid arguments for "
                            "display ID.", ["onCommand"])
            arg = cursor.required("onCommand")
        handler = _HANDLERS.get(arg or "")
        # a real device starts a Java VM for `input` up to API 30 (app_process), later it is
        # a binder call (`cmd input`): the time passes before anything is injected
        p.model.spend("input_vm" if p.api_level <= 30 else "input_cmd", p.cancel_event)
        if handler is None:
            if arg is None or arg in ("help", "-h"):
                yield out(usage())
            else:
                yield out(f"Unknown command: {arg}\n")
            return 0
        try:
            yield from handler(p, cursor)
        except _Bad:
            raise _Fail("java.lang.IllegalArgumentException: Error: Invalid arguments for "
                        f"command: {arg}", ["onCommand"]) from None
    except _Fail as f:
        yield err(java_exception(cmd, f.exception, _frames(*f.methods)))
        return 255
    return 0


def _run_text(p: Proc, cur: _Args) -> Gen:
    raw = cur.required("runText")
    text = decode_input_text(raw)
    if _text_unmappable(text, p.api_level) or (p.api_level >= 35 and " " in raw):
        raise _Fail("java.lang.NullPointerException: Attempt to get length of null array",
                    ["sendText", "runText", "onCommand"])
    if text:
        took = p.model.screens.type_text(text)
        p.model.events.append("text", text=text, on=took)
    return 0
    yield  # pragma: no cover


def _coord(v: float) -> int | float:
    return int(v) if v == int(v) else v


def _where(landed: Any) -> dict[str, Any]:
    """An event's ``window``, ``on`` and ``under`` (where the touch landed), when known."""
    if not isinstance(landed, dict):
        return {}
    return {k: landed[k] for k in ("window", "on", "under") if k in landed}


def _run_tap(p: Proc, cur: _Args) -> Gen:
    x = java_float(cur.required("runTap"))
    y = java_float(cur.required("runTap"))
    if not (math.isfinite(x) and math.isfinite(y)):
        return 0
    what = p.model.screens.tap(int(x), int(y))
    landed = what.get("landed") if isinstance(what, dict) else None
    p.model.events.append("tap", x=_coord(x), y=_coord(y), **_where(landed))
    if isinstance(what, dict) and what.get("kind") == "double_tap":
        p.model.events.append("double_tap", x=_coord(x), y=_coord(y),
                              interval_ms=what["interval_ms"])
    return 0
    yield  # pragma: no cover


def _swipe_args(cur: _Args) -> tuple[float, float, float, float, int]:
    x1, y1, x2, y2 = (java_float(cur.required("runSwipe")) for _ in range(4))
    d = cur.next()
    duration = java_int(d) if d is not None else -1
    return x1, y1, x2, y2, (300 if duration < 0 else duration)


#: a swipe this short (px) and this long (ms) is what ``long_press`` events record
LONG_PRESS_SLOP = 10
LONG_PRESS_MS = 500


def _run_swipe(p: Proc, cur: _Args, *, drag: bool = False) -> Gen:
    x1, y1, x2, y2, ms = _swipe_args(cur)
    if drag:
        p.sleep(0.4)  # ViewConfiguration.getLongPressTimeout() before the drag starts
    if p.model.input_latency:
        p.sleep(ms / 1000)  # the MOVE loop runs for the duration
    if not all(math.isfinite(v) for v in (x1, y1, x2, y2)):
        return 0
    if drag and hasattr(p.model.screens, "drag"):
        landed = p.model.screens.drag(int(x1), int(y1), int(x2), int(y2), ms)
    else:
        landed = p.model.screens.swipe(int(x1), int(y1), int(x2), int(y2), ms)
    where = _where(landed)
    near = abs(x2 - x1) <= LONG_PRESS_SLOP and abs(y2 - y1) <= LONG_PRESS_SLOP
    if near and ms >= LONG_PRESS_MS and not drag:
        p.model.events.append("long_press", x=_coord(x1), y=_coord(y1), duration_ms=ms,
                              **where)
    else:
        detail = {"drag": True} if drag else {}
        p.model.events.append("swipe", x1=_coord(x1), y1=_coord(y1), x2=_coord(x2),
                              y2=_coord(y2), duration_ms=ms, **detail, **where)
    return 0
    yield  # pragma: no cover


def _run_drag(p: Proc, cur: _Args) -> Gen:
    return (yield from _run_swipe(p, cur, drag=True))


def _run_keyevent(p: Proc, cur: _Args) -> Gen:
    long_press = double_tap = False
    delay_ms = 0
    arg: str | None = cur.required("runKeyEvent")
    while arg is not None and arg.startswith("--"):
        long_press = long_press or arg == "--longpress"
        double_tap = double_tap or arg == "--doubletap"
        if arg == "--delay":
            delay_ms = java_int(cur.required("runKeyEvent"))
        arg = cur.next()
    first = True
    while arg is not None:
        if not first and delay_ms > 0:
            p.sleep(delay_ms / 1000)
        first = False
        code = keycode_from_string(arg)
        for _ in range(2 if double_tap else 1):
            p.model.screens.key(code)
            detail = {"longpress": True} if long_press else {}
            p.model.events.append("key", keycode=code, name=key_label(code), **detail)
        arg = cur.next()
    return 0
    yield  # pragma: no cover


def _run_keycombination(p: Proc, cur: _Args) -> Gen:
    arg: str | None = cur.required("runKeyCombination")
    if arg == "-t":
        java_int(cur.required("runKeyCombination"))
        arg = cur.required("runKeyCombination")
    codes: list[int] = []
    while arg is not None:
        code = keycode_from_string(arg)
        if code == 0:
            raise _Fail(f"java.lang.IllegalArgumentException: Unknown keycode: {arg}",
                        ["runKeyCombination", "onCommand"])
        codes.append(code)
        arg = cur.next()
    if len(codes) < 2:
        raise _Fail("java.lang.IllegalArgumentException: keycombination requires at least 2 "
                    "keycodes", ["runKeyCombination", "onCommand"])
    p.model.screens.key_combination(codes)
    p.model.events.append("key_combination", keycodes=codes, names=[key_label(c) for c in codes])
    return 0
    yield  # pragma: no cover


def _run_ignored(p: Proc, cur: _Args) -> Gen:
    """press / roll / scroll / motionevent: accepted, validated loosely, no effect."""
    for a in cur.args[cur.pos:]:
        if re.fullmatch(r"[-+]?[\d.]+", a):
            java_float(a)
    return 0
    yield  # pragma: no cover


_HANDLERS = {
    "text": _run_text,
    "tap": _run_tap,
    "swipe": _run_swipe,
    "draganddrop": _run_drag,
    "keyevent": _run_keyevent,
    "keycombination": _run_keycombination,
    "press": _run_ignored,
    "roll": _run_ignored,
    "scroll": _run_ignored,
    "motionevent": _run_ignored,
}
