"""The focused window and app: the ``mCurrentFocus`` / ``mFocusedApp`` lines of ``dumpsys
window`` (the caller filters them with ``grep``).

* ``mCurrentFocus=Window{HASH u0 PACKAGE/ACTIVITY}`` (``WindowState.toString``: ``Window{``
  identity hash, ``u`` + user id — absent before Android 4.2 — and the window title, which
  for an activity window is ``package/class``), ``mCurrentFocus=null`` when the display has
  no focused window; other windows carry their title only (``StatusBar``,
  ``NotificationShade``, a package name for a dialog or toast, ``PopupWindow:…``).
* ``mFocusedApp=ActivityRecord{HASH u0 PACKAGE/ACTIVITY tTASK}`` (``ActivityRecord.toString``);
  Android ≤ 9 wrapped it as ``AppWindowToken{… token=Token{… ActivityRecord{…}}}``.
* Android 10+ prints both per display (``DisplayContent.dump``) and once more for the whole
  window manager, so a phone with a cover screen or a cast display lists several; the one
  that has input focus is the display whose ``mCurrentFocus`` is not ``null``.
* A class name starting with ``.`` is relative to the package (``ComponentName
  .flattenToShortString``); anything else is already a full class name (a Xamarin app's
  ``crc64….MainActivity``, a camera activity from another package).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.android.text import lines

__all__ = ["Focus", "parse_focus", "full_class"]


@dataclass(frozen=True)
class Focus:
    """The focused app: its package and activity class (``""`` when unknown)."""

    package: str
    activity: str


_WINDOW = re.compile(r"mCurrentFocus=Window\{[0-9a-f]+(?: u\d+)? ([^}]*)\}")
_RECORD = re.compile(r"ActivityRecord\{[0-9a-f]+(?: u\d+)? ([\w.$]+)/"
                     r"(\.?[A-Za-z_$][\w.$]*)(?=[\s}])")
_PACKAGE = re.compile(r"^[A-Za-z][\w]*(?:\.[\w]+)+$")


def full_class(package: str, activity: str) -> str:
    """``activity`` as a full class name (a leading ``.`` is relative to ``package``)."""
    return package + activity if activity.startswith(".") else activity


def parse_focus(data: bytes | str) -> Focus | None:
    """The focused app of ``dumpsys window`` output (None: nothing focused is an app)."""
    windows: list[str] = []
    apps: list[tuple[str, str]] = []
    for line in lines(data):
        w = _WINDOW.search(line)
        if w:
            windows.append(w.group(1).strip())
        if "mFocusedApp=" in line:
            r = _RECORD.search(line)
            if r:
                apps.append((r.group(1), full_class(r.group(1), r.group(2))))
    for title in windows:
        first = title.split()[0] if title.split() else ""  # Android 4.0-4.1 add " paused=…"
        pkg, slash, act = first.partition("/")
        if slash and _PACKAGE.match(pkg) and re.match(r"^\.?[A-Za-z_$][\w.$]*$", act):
            return Focus(pkg, full_class(pkg, act))
        if _PACKAGE.match(title):  # a dialog or toast window of an app: its title is the package
            act = next((a for p, a in apps if p == title), "")
            return Focus(title, act)
    if apps:
        return Focus(*apps[0])
    return None
