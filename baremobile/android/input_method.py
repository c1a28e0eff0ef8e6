"""``dumpsys input_method``: which view the input method serves, and whether it takes text.

No I/O: :meth:`~baremobile.device.core.Device.input_target` runs the command (filtered on
the device with :data:`GREP_PATTERN`) and hands the text to :func:`parse_input_target`.

What AOSP prints (``InputMethodManagerService.dump``, then — through the current client's
binder — ``InputMethodManager.dump`` of the app that holds the input connection):

* the service's state: ``mCurClient=…``, ``mCurFocusedWindow=…`` (``mFocusedWindow()=``
  from Android 15), ``mShowRequested=… mInputShown=true|false`` (its own line, from
  ``ImeVisibilityStateComputer``, on Android 14+), the ``mStartInputHistory`` entries;
* ``Input method client state for android.view.inputmethod.InputMethodManager@…:`` and
  the client's lines, two spaces in: ``mServedView=`` (the view the connection was made
  for: an ``EditText{…}``, a ``WebView``, the window's ``DecorView@…`` when no view has
  focus, or ``null``), ``mCurrentTextBoxAttribute:`` (``mCurrentEditorInfo:`` from Android
  13) followed by the ``EditorInfo`` four spaces in — ``inputType=0x1 imeOptions=…``,
  ``hintText=… label=…``, ``packageName=… fieldId=…`` — or ``: null``, and
  ``mServedInputConnectionWrapper=`` (``mServedInputConnection=`` from Android 12): the
  connection the app gave, ``null`` when the served view made none;
* when the focused window is not the current client (Android 11+): ``Warning: Current input
  method client doesn't match the last focused. window.``, then the focused window's client
  dumped the same way — keys go to the focused window, so that one counts;
* ``Input method service state for …`` (the keyboard app's own state, and whatever its
  ``dump`` adds: Gboard prints ~100 KB; the device-side filter drops it).

A view takes text when the connection exists and its ``EditorInfo`` has an input class
(``inputType & TYPE_MASK_CLASS`` non-zero: ``TYPE_NULL`` is what a ``DecorView`` or a
button reports).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["GREP_PATTERN", "InputTarget", "parse_input_target"]

#: What the device-side ``grep -E`` keeps of ``dumpsys input_method``: the section heads
#: and the lines :func:`parse_input_target` reads, in their order.
GREP_PATTERN = (
    "Input method (client|service) state|Warning: Current input method client|"
    "mServedView=|mCurrentTextBoxAttribute|mCurrentEditorInfo|inputType=|hintText=|"
    "packageName=|mServedInputConnection|mInputShown="
)

_TYPE_MASK_CLASS = 0x0000000F
_CLIENT = "Input method client state for "
_SERVICE = "Input method service state for "
_MISMATCH = "Warning: Current input method client"
_SHOWN = re.compile(r"\bmInputShown=(true|false)\b")


@dataclass(frozen=True)
class InputTarget:
    """What ``dumpsys input_method`` says about the view the keyboard would type into."""

    #: a view that takes text holds the input connection (see the module docs)
    editor: bool
    #: the served view as printed (``android.widget.EditText{… app:id/search}``), ``""``
    served_view: str = ""
    #: the ``EditorInfo``'s ``inputType`` (0: none, or not a text field)
    input_type: int = 0
    #: its ``hintText`` (``""`` when ``null``) and ``packageName``
    hint: str = ""
    package: str = ""
    #: whether the keyboard is shown (``mInputShown``), None when not printed
    shown: bool | None = None
    #: whether the output had a client section at all (False: it said nothing usable — a
    #: vendor's stripped dump, or no client yet)
    known: bool = False


def _client_sections(lines: list[str]) -> list[list[str]]:
    """Each client section's lines; the focused window's (after the mismatch warning) last."""
    sections: list[list[str]] = []
    cur: list[str] | None = None
    for line in lines:
        if line.startswith(_CLIENT):
            cur = []
            sections.append(cur)
        elif line.startswith(_SERVICE) or (line and not line.startswith(" ")):
            cur = None
        elif cur is not None:
            cur.append(line)
    return sections


def _value(line: str, key: str) -> str:
    """``key=value`` on a ``k=v k=v`` line: the value up to the next `` word=``."""
    i = line.find(key + "=")
    if i < 0:
        return ""
    rest = line[i + len(key) + 1:]
    m = re.search(r" [A-Za-z]+=", rest)
    return (rest[: m.start()] if m else rest).strip()


def parse_input_target(text: str) -> InputTarget:
    """Read ``dumpsys input_method`` (whole, or as :data:`GREP_PATTERN` filtered it)."""
    lines = text.replace("\r\n", "\n").split("\n")
    m = _SHOWN.search(text)
    shown = None if m is None else m.group(1) == "true"
    sections = _client_sections(lines)
    if not sections:
        return InputTarget(editor=False, shown=shown)
    mismatch = any(line.startswith(_MISMATCH) for line in lines)
    section = sections[-1] if mismatch else sections[0]
    served = ""
    has_view = False
    editor_info = False
    connection: bool | None = None
    input_type = 0
    hint = package = ""
    for line in section:
        s = line.strip()
        if s.startswith("mServedView="):
            served = s[len("mServedView="):]
            has_view = served not in ("", "null")
        elif s.startswith(("mCurrentTextBoxAttribute", "mCurrentEditorInfo")):
            editor_info = not s.endswith("null")
        elif editor_info and line.startswith("    ") and "inputType=" in s:
            try:
                input_type = int(_value(s, "inputType"), 16)
            except ValueError:
                input_type = 0
        elif editor_info and line.startswith("    ") and "hintText=" in s:
            hint = _value(s, "hintText")
            hint = "" if hint == "null" else hint
        elif editor_info and line.startswith("    ") and s.startswith("packageName="):
            package = _value(s, "packageName")
        elif s.startswith(("mServedInputConnection=", "mServedInputConnectionWrapper=")):
            connection = s.split("=", 1)[1].strip() not in ("", "null")
    editor = (has_view and editor_info and bool(input_type & _TYPE_MASK_CLASS)
              and connection is not False)
    return InputTarget(editor=editor, served_view=served, input_type=input_type, hint=hint,
                       package=package, shown=shown, known=True)
