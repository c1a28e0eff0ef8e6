"""Keys and typed text: what ``input keyevent``, ``input keycombination`` and ``input text``
do to the screen.

POWER/SLEEP/WAKEUP switch the display; BACK, HOME and APP_SWITCH navigate; ENTER runs the
focused field's ``enter`` rule; editing keys (DEL, FORWARD_DEL, MOVE_HOME/END, DPAD
LEFT/RIGHT, printable keys) edit the focused field at its caret; CTRL+A/C/X/V select, copy,
cut and paste through the clipboard, as do KEYCODE_COPY/CUT/PASTE (API 24+, what
``TextView.onKeyDown`` maps to its copy/cut/paste actions); SHIFT+letter types a capital.
"""

from __future__ import annotations

from typing import Any

from .reactions import Reactions
from .state import ScreenState, insert_text

__all__ = ["KeyInput", "KEY_CHARS"]

# key codes the model understands
KEY_HOME, KEY_BACK, KEY_APP_SWITCH, KEY_POWER = 3, 4, 187, 26
KEY_SLEEP, KEY_WAKEUP, KEY_ESCAPE = 223, 224, 111
KEY_ENTER, KEY_NUMPAD_ENTER, KEY_DEL, KEY_FORWARD_DEL = 66, 160, 67, 112
KEY_MOVE_HOME, KEY_MOVE_END, KEY_DPAD_LEFT, KEY_DPAD_RIGHT = 122, 123, 21, 22
KEY_CTRL = (113, 114)
KEY_SHIFT = (59, 60)
KEY_A, KEY_C, KEY_V, KEY_X = 29, 31, 50, 52
KEY_CUT, KEY_COPY, KEY_PASTE = 277, 278, 279
KEY_SPACE = 62

KEY_CHARS: dict[int, str] = {
    **{7 + i: str(i) for i in range(10)},
    **{29 + i: chr(ord("a") + i) for i in range(26)},
    55: ",",
    56: ".",
    62: " ",
    68: "`",
    69: "-",
    70: "=",
    71: "[",
    72: "]",
    73: "\\",
    74: ";",
    75: "'",
    76: "/",
    77: "@",
    81: "+",
    17: "*",
    18: "#",
}


class KeyInput:
    """Key events and typed text into a :class:`~.state.ScreenState`."""

    def __init__(self, state: ScreenState, reactions: Reactions) -> None:
        self.state = state
        self.reactions = reactions
        #: the real browser's room (:class:`~.web.WebRoom`): while a page's WebView has
        #: focus, text and editing keys go to the page
        self.web: Any = None

    def _web_focus(self) -> Any:
        if self.web is None or self.state.mode == "recents":
            return None
        return self.web.focused()

    def key(self, code: int) -> None:
        """One key event (``input keyevent``): power, navigation, ENTER, or editing the
        focused field."""
        if code in (KEY_POWER, KEY_SLEEP, KEY_WAKEUP):
            on = {KEY_POWER: not self.state.screen_on, KEY_SLEEP: False, KEY_WAKEUP: True}[code]
            if on != self.state.screen_on:
                self.state.screen_on = on
                self.state.shade = None  # the shade closes with the screen
                self.state.changed()
            return
        if not self.state.screen_on:
            return
        nav = code in (KEY_BACK, KEY_ESCAPE, KEY_HOME, KEY_APP_SWITCH)
        if self.state.shade is not None and not nav:
            return  # the shade has the focus: other keys reach no app
        if not nav:
            surface = self._web_focus()
            if surface is not None and self.web.key(surface, code):
                return
        elif code == KEY_BACK and self.state.shade is None and self.web is not None and \
                self.web.back():
            return
        self.state.changed()
        if code in (KEY_BACK, KEY_ESCAPE):
            self.state.back()
        elif code == KEY_HOME:
            self.state.go_home()
        elif code == KEY_APP_SWITCH:
            self.state.open_recents()
        elif code in (KEY_ENTER, KEY_NUMPAD_ENTER):
            self.reactions.enter()
        elif code in (KEY_CUT, KEY_COPY, KEY_PASTE):
            field = self.state.focused_field()
            if field is not None and self.state.mode != "recents":
                self._clip(field, {KEY_CUT: KEY_X, KEY_COPY: KEY_C, KEY_PASTE: KEY_V}[code])
        else:
            field = self.state.focused_field()
            if field is None or self.state.mode == "recents":
                return
            v = field.value or ""
            cur = min(max(field.cursor, 0), len(v))
            if code == KEY_DEL:
                if field.select_all:
                    field.value, field.cursor = "", 0
                elif cur > 0:
                    field.value, field.cursor = v[: cur - 1] + v[cur:], cur - 1
            elif code == KEY_FORWARD_DEL:
                if field.select_all:
                    field.value, field.cursor = "", 0
                else:
                    field.value = v[:cur] + v[cur + 1:]
            elif code == KEY_MOVE_HOME:
                field.cursor = 0
            elif code == KEY_MOVE_END:
                field.cursor = len(v)
            elif code == KEY_DPAD_LEFT:
                field.cursor = 0 if field.select_all else max(0, cur - 1)
            elif code == KEY_DPAD_RIGHT:
                field.cursor = len(v) if field.select_all else min(len(v), cur + 1)
            elif code in KEY_CHARS:
                insert_text(field, KEY_CHARS[code])
                return
            else:
                return
            field.select_all = False

    def key_combination(self, keycodes: list[int]) -> None:
        """Keys held together (``input keycombination``): CTRL+A/C/X/V, SHIFT+letter."""
        codes = [int(c) for c in keycodes]
        if not codes or not self.state.screen_on:
            return
        mods = {c for c in codes[:-1]}
        last = codes[-1]
        surface = self._web_focus()
        if surface is not None and mods and mods <= set(KEY_CTRL) | set(KEY_SHIFT):
            bits = (2 if mods & set(KEY_CTRL) else 0) | (8 if mods & set(KEY_SHIFT) else 0)
            self.web.key(surface, last, bits)
            return
        field = self.state.focused_field()
        if mods & set(KEY_CTRL):
            if field is None:
                return
            if last == KEY_A:
                field.select_all = bool(field.value or "")
            else:
                self._clip(field, last)
            self.state.changed()
        elif mods & set(KEY_SHIFT) and last in KEY_CHARS and field is not None:
            insert_text(field, KEY_CHARS[last].upper())
            self.state.changed()
        elif not mods:
            self.key(last)
        else:
            for c in codes:
                self.key(c)

    def _clip(self, field: Any, letter: int) -> None:
        """Copy (C), cut (X) the selected text of ``field``, or paste (V) into it."""
        v = field.value or ""
        if letter == KEY_C and field.select_all:
            self.state.clipboard = v
        elif letter == KEY_X and field.select_all:
            self.state.clipboard = v
            field.value, field.cursor, field.select_all = "", 0, False
        elif letter == KEY_V and self.state.clipboard:
            insert_text(field, self.state.clipboard)

    def type_text(self, text: str) -> None:
        """Characters into the focused editable field (no-op when nothing is focused)."""
        if not self.state.screen_on or self.state.mode == "recents":
            return
        field = self.state.focused_field()
        if field is None and text:
            surface = self._web_focus()
            if surface is not None:
                self.web.type_text(surface, text)
            return
        if field is None or not text:
            return
        insert_text(field, text)
        self.state.changed()
