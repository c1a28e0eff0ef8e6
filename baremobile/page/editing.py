"""Editing a native text field in place: ``edit_text`` — insert at an offset, replace a range
or a found text, append — with the keys Android has, read back to check.

``type`` makes a field hold exactly a text; editing keeps what is there. Over ADB there is
no ``InputConnection`` (Android Remote Control's ``commitText``): what reaches a field is
key events and ``input text`` at the caret. So the verb

1. focuses the field (a tap, unless it has focus) and reads its text from a fresh dump;
2. moves the caret with ``MOVE_HOME``/``MOVE_END`` and ``DPAD_LEFT``/``DPAD_RIGHT`` (from
   whichever end needs fewer presses) to the end of the range, and deletes the range
   backwards with ``DEL``;
3. types the new text at the caret (the typing plan of ``type``: ASCII, spaces and
   newlines);
4. reads the field back and checks it holds what was meant — else ``COMMAND_FAILED`` with
   what it holds (an input method that autocorrects, a field that filters input).

``MOVE_HOME``/``MOVE_END`` go to the ends of the caret's *line*, so a field whose text has
several lines is instead emptied and retyped whole (``type(clear=True)``, then read back):
the same result, without a caret count that lines would make wrong. A password's text
cannot be read back: refused.
"""

from __future__ import annotations

from baremobile.android.keycodes import KEYCODES
from baremobile.android.text_input import typing_plan
from baremobile.errors import CommandFailed, InvalidArgument, RefNotFound, Unsupported
from baremobile.page.actions import ActionVerbs
from baremobile.page.selector import Target
from baremobile.page.steps import verb
from baremobile.snapshot import RefNode
from baremobile.transport.base import check_text

__all__ = ["EditVerbs"]

#: key presses sent in one ``input keyevent`` (long edits are split)
_KEYS_PER_COMMAND = 100


def _index(name: str, value: object, top: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise InvalidArgument(f"{name} must be a character offset from 0 to {top} (the "
                              f"field holds {top} characters), not {value!r}")
    return value


def _value(field: RefNode) -> str:
    """The field's text: an empty field's dump shows its hint as the text (API 26+)."""
    text = field.text or ""
    return "" if field.hint and text == field.hint else text


class EditVerbs(ActionVerbs):
    """``edit_text`` (see the module's docs)."""

    @verb(acts=True, secret=("text", "search"))
    def edit_text(self, target: Target, text: str = "", *, offset: int | None = None,
                  start: int | None = None, end: int | None = None,
                  search: str | None = None) -> str:
        """Edit the text field ``target`` in place and return its text afterwards (read
        back from the device).

        * ``offset``: insert ``text`` at that character offset (0 = the start);
        * ``start`` and ``end``: replace characters ``start``–``end`` with ``text``
          (``text=""`` deletes them);
        * ``search``: replace the first occurrence of ``search`` with ``text``;
        * none of them: append ``text`` at the end.
        """
        if not isinstance(text, str):
            raise InvalidArgument(f"text must be a string, not {type(text).__name__}")
        modes = [m for m, v in (("offset", offset), ("start/end", start if start is not None
                                                     else end), ("search", search))
                 if v is not None]
        if len(modes) > 1:
            raise InvalidArgument(f"give one of offset, start/end, search, not {modes}")
        if (start is None) != (end is None):
            raise InvalidArgument("start and end go together: the range to replace")
        if search is not None and (not isinstance(search, str) or not search):
            raise InvalidArgument("search must be a non-empty string")
        if search is not None:
            check_text("search", search)
        plan = typing_plan(text) if text else []  # untypable text is refused first
        field = self._focus_field(target)
        value = _value(field)
        if field.password:
            raise Unsupported("a password field's text cannot be read back, so it cannot "
                              "be edited in place", hint="retype it whole with type and "
                                                         "clear=true")
        n = len(value)
        if search is not None:
            at = value.find(search)
            if at < 0:
                raise RefNotFound(f"{search!r} is not in the field's text ({value[:200]!r})",
                                  hint="check the text to replace (find shows the field's "
                                       "text)")
            lo, hi = at, at + len(search)
        elif start is not None:
            lo, hi = _index("start", start, n), _index("end", end, n)
            if hi < lo:
                raise InvalidArgument(f"end ({hi}) comes before start ({lo})")
        elif offset is not None:
            lo = hi = _index("offset", offset, n)
        else:
            lo = hi = n
        expected = value[:lo] + text + value[hi:]
        if "\n" in value:  # line ends would throw the caret count off: retype it whole
            self.type(None, expected, clear=True)
        else:
            self.device.run_all(self._caret_plan(n, lo, hi) + plan)
        got = self.focused_field()
        now = _value(got) if got is not None else None
        if now != expected:
            raise CommandFailed(f"the field holds {now!r} after the edit, not {expected!r}",
                                hint="the app or its keyboard changed the text (autocorrect, "
                                     "an input filter): read it and retype with type")
        return expected

    def _focus_field(self, target: Target) -> RefNode:
        (x, y), _, node = self._target(target)
        if node is None or not node.focused:
            x, y, display, node = self._touch_point(target)
            self.device.run_all([self.device.tap_argv(x, y, display=display)])
        field = self.focused_field()
        if field is None:
            raise InvalidArgument("no text field has focus after tapping the target",
                                  hint="give a text field's own ref or selector (a "
                                       "TextInput in a new snapshot: {snapshot})")
        return field

    @staticmethod
    def _caret_plan(length: int, lo: int, hi: int) -> list[list[str]]:
        """Keys that put the caret at ``hi`` (from the nearer end) and delete back to
        ``lo``."""
        if hi <= length - hi:
            keys = [KEYCODES["MOVE_HOME"]] + [KEYCODES["DPAD_RIGHT"]] * hi
        else:
            keys = [KEYCODES["MOVE_END"]] + [KEYCODES["DPAD_LEFT"]] * (length - hi)
        keys += [KEYCODES["DEL"]] * (hi - lo)
        return [["input", "keyevent", *map(str, keys[i:i + _KEYS_PER_COMMAND])]
                for i in range(0, len(keys), _KEYS_PER_COMMAND)]
