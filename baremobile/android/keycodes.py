"""Android key codes and the friendly names ``page.press()`` accepts.

``press("back")``, ``press("KEYCODE_BACK")``, ``press("BACK")`` and ``press(4)`` are the
same key. Names are case-insensitive; ``-``/space become ``_``. A one-character string of a
digit is that digit's key (``"5"`` → KEYCODE_5); a number (or a string of two or more
digits) is a raw key code. A name it does not know is refused with the closest one it does
(``press("bakc")``: "did you mean 'back'?").
"""

from __future__ import annotations

from baremobile.errors import InvalidArgument
from baremobile.suggest import did_you_mean

__all__ = ["KEYCODES", "ALIASES", "keycode"]

#: Android ``KeyEvent.KEYCODE_*`` values (the ones agents and tests reach for).
KEYCODES: dict[str, int] = {
    "UNKNOWN": 0,
    "SOFT_LEFT": 1,
    "SOFT_RIGHT": 2,
    "HOME": 3,
    "BACK": 4,
    "CALL": 5,
    "ENDCALL": 6,
    "0": 7,
    "1": 8,
    "2": 9,
    "3": 10,
    "4": 11,
    "5": 12,
    "6": 13,
    "7": 14,
    "8": 15,
    "9": 16,
    "STAR": 17,
    "POUND": 18,
    "DPAD_UP": 19,
    "DPAD_DOWN": 20,
    "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23,
    "VOLUME_UP": 24,
    "VOLUME_DOWN": 25,
    "POWER": 26,
    "CAMERA": 27,
    "CLEAR": 28,
    **{chr(ord("A") + i): 29 + i for i in range(26)},
    "COMMA": 55,
    "PERIOD": 56,
    "ALT_LEFT": 57,
    "ALT_RIGHT": 58,
    "SHIFT_LEFT": 59,
    "SHIFT_RIGHT": 60,
    "TAB": 61,
    "SPACE": 62,
    "SYM": 63,
    "EXPLORER": 64,
    "ENVELOPE": 65,
    "ENTER": 66,
    "DEL": 67,
    "GRAVE": 68,
    "MINUS": 69,
    "EQUALS": 70,
    "LEFT_BRACKET": 71,
    "RIGHT_BRACKET": 72,
    "BACKSLASH": 73,
    "SEMICOLON": 74,
    "APOSTROPHE": 75,
    "SLASH": 76,
    "AT": 77,
    "NUM": 78,
    "HEADSETHOOK": 79,
    "FOCUS": 80,
    "PLUS": 81,
    "MENU": 82,
    "NOTIFICATION": 83,
    "SEARCH": 84,
    "MEDIA_PLAY_PAUSE": 85,
    "MEDIA_STOP": 86,
    "MEDIA_NEXT": 87,
    "MEDIA_PREVIOUS": 88,
    "MEDIA_REWIND": 89,
    "MEDIA_FAST_FORWARD": 90,
    "MUTE": 91,
    "PAGE_UP": 92,
    "PAGE_DOWN": 93,
    "ESCAPE": 111,
    "FORWARD_DEL": 112,
    "CTRL_LEFT": 113,
    "CTRL_RIGHT": 114,
    "CAPS_LOCK": 115,
    "MOVE_HOME": 122,
    "MOVE_END": 123,
    "INSERT": 124,
    "MEDIA_PLAY": 126,
    "MEDIA_PAUSE": 127,
    "VOLUME_MUTE": 164,
    "SETTINGS": 176,
    "APP_SWITCH": 187,
    "ASSIST": 219,
    "BRIGHTNESS_DOWN": 220,
    "BRIGHTNESS_UP": 221,
    "SLEEP": 223,
    "WAKEUP": 224,
    "VOICE_ASSIST": 231,
    "SYSTEM_NAVIGATION_UP": 280,
    "SYSTEM_NAVIGATION_DOWN": 281,
    "ALL_APPS": 284,
    "SCREENSHOT": 120,
}

#: Friendly names (the JS baremobile's key map and then some).
ALIASES: dict[str, str] = {
    "back": "BACK",
    "home": "HOME",
    "enter": "ENTER",
    "return": "ENTER",
    "delete": "DEL",
    "backspace": "DEL",
    "del": "DEL",
    "forward_delete": "FORWARD_DEL",
    "tab": "TAB",
    "escape": "ESCAPE",
    "esc": "ESCAPE",
    "up": "DPAD_UP",
    "down": "DPAD_DOWN",
    "left": "DPAD_LEFT",
    "right": "DPAD_RIGHT",
    "center": "DPAD_CENTER",
    "space": "SPACE",
    "power": "POWER",
    "volup": "VOLUME_UP",
    "voldown": "VOLUME_DOWN",
    "volume_up": "VOLUME_UP",
    "volume_down": "VOLUME_DOWN",
    "mute": "VOLUME_MUTE",
    "recent": "APP_SWITCH",
    "recents": "APP_SWITCH",
    "app_switch": "APP_SWITCH",
    "menu": "MENU",
    "search": "SEARCH",
    "camera": "CAMERA",
    "notifications": "NOTIFICATION",
    "wakeup": "WAKEUP",
    "wake": "WAKEUP",
    "sleep": "SLEEP",
    "page_up": "PAGE_UP",
    "page_down": "PAGE_DOWN",
    "move_home": "MOVE_HOME",
    "move_end": "MOVE_END",
    "play_pause": "MEDIA_PLAY_PAUSE",
    "assist": "ASSIST",
    "settings": "SETTINGS",
}


def keycode(key: str | int) -> int:
    """Resolve a key name or number to an Android key code (validated)."""
    if isinstance(key, bool):
        raise InvalidArgument(f"key must be a name or a key code, not {key!r}")
    if isinstance(key, int):
        if 0 <= key <= 400:
            return key
        raise InvalidArgument(f"key code {key} is out of range (0–400)")
    if not isinstance(key, str):
        raise InvalidArgument(f"key must be a name or a key code, not {type(key).__name__}")
    name = key.strip()
    digits = name.isascii() and name.isdigit()  # not "²" or "٣", which isdigit() accepts
    if digits and len(name) == 1:  # "5" is the digit 5 (KEYCODE_5), not code 5 (CALL)
        return KEYCODES[name]
    if digits:
        return keycode(int(name))
    norm = name.replace("-", "_").replace(" ", "_")
    alias = ALIASES.get(norm.lower())
    if alias is not None:
        return KEYCODES[alias]
    upper = norm.upper().removeprefix("KEYCODE_")
    if upper in KEYCODES:
        return KEYCODES[upper]
    known = ", ".join(sorted(ALIASES))
    names = [k for k in KEYCODES if not k.isdigit()]
    if norm.upper().startswith("KEYCODE_"):  # an Android name: the Android name nearest
        near = did_you_mean(upper, names, cutoff=0.75, shown="KEYCODE_{}")
    else:
        near = did_you_mean(norm.lower(), ALIASES) or did_you_mean(upper, names, cutoff=0.75)
    raise InvalidArgument(
        f"unknown key {key!r}{near}",
        hint=f"use a key code number, an Android name like 'KEYCODE_MEDIA_PLAY', "
        f"or one of: {known}",
    )
