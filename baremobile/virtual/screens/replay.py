"""A recorded scenario played back (``recorded: true``; ``baremobile trace to-scenario``).

A recorded scenario is a session of a real phone: each distinct screen it showed is a
screen (its dump, served byte for byte as recorded), each action it saw is a rule leading
to the screen that came next. Playing it back is a walk along those rules:

* a tap, long press or swipe fires the current screen's rule whose node is under the
  finger (``tap: {…, bounds: …}``; a swipe by its direction and ``from`` node);
* typed text goes into the field as it is typed (``input text``, SPACE, DEL, CTRL+A):
  while it is the beginning of some ``type`` rule's text, typing goes on; the rule fires
  when the next thing happens (a dump, a touch, a key) with the whole text typed — or on
  ENTER for a rule with ``submit: true``; a tap on a ``type`` rule's ``into`` field
  focuses it (nothing changes on screen);
* a double tap fires the ``double_tap`` rule under it: a tap on such an element waits (as
  ``GestureDetector`` does) for a second one 40–300 ms after it lifted, inside the same
  element; anything else first plays it as the single tap it was;
* a drag fires the ``drag`` rule whose element lies under its start (and its ``to`` under
  its end), else plays as the swipe a recording may have seen; a pinch fires the ``pinch``
  rule under its centre that zooms the same way (in or out) by a scale within 25% of the
  recorded one; the fingers of any gesture, as the touch model tracked them, fire a
  ``gesture`` rule whose paths start and end within reach of theirs (else the gesture is
  played as what the touch model recognised);
* keys fire ``key`` rules, ``am start`` fires the ``intent`` rule of the same action, data,
  component, package and categories (else, as ``monkey`` does, ``launched`` rules), and
  ``ACTION_VIEW`` fires ``opened`` rules.

Anything else is **not in the recording**: the input is refused with
:class:`~baremobile.virtual.shell.process.Refused` (the program prints why on stderr and
exits 1, as a failing command on a phone would) and the screen stays, so an agent that
diverges from the recording sees an error instead of passing silently.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

from baremobile.virtual.scenario import Rule, Scenario, ScreenDef, Selector
from baremobile.virtual.shell.process import Refused
from baremobile.virtual.uixml import Node

from .display import area
from .gestures import LONG_PRESS_MS, TOUCH_SLOP
from .keys import (
    KEY_A,
    KEY_CTRL,
    KEY_DEL,
    KEY_DPAD_LEFT,
    KEY_DPAD_RIGHT,
    KEY_ENTER,
    KEY_FORWARD_DEL,
    KEY_MOVE_END,
    KEY_MOVE_HOME,
    KEY_SPACE,
)

__all__ = ["Replay", "NOT_RECORDED"]

#: How every refusal starts (what tests and agents look for).
NOT_RECORDED = "not in the recording"

_CARET_KEYS = {KEY_MOVE_HOME, KEY_MOVE_END, KEY_DPAD_LEFT, KEY_DPAD_RIGHT}
#: px: a swipe this short is a touch in place (as the input command logs it: the verbs a
#: recording saw as swipes stay swipes)
_SLOP = 10
#: GestureDetector's double-tap window: the second touch-down this long after the first
#: lift (ViewConfiguration's DOUBLE_TAP_MIN_TIME, DOUBLE_TAP_TIMEOUT)
_DOUBLE_TAP_MS = (40, 300)
#: how far a pinch's scale may be from the recorded one (a ratio)
_PINCH_RATIO = 1.25
#: px: how far a replayed finger may start or end from the recorded one
_FINGER_REACH = 2 * TOUCH_SLOP


class Replay:
    """Where a recorded scenario's playback is, and what input does to it (not
    thread-safe: :class:`~baremobile.virtual.screens.ScreenModel` holds its lock)."""

    def __init__(self, scenario: Scenario) -> None:
        self.sc = scenario
        self.start = self._start_screen()
        self.screen = self.start
        self._typed = ""  # what was typed into the field since the screen came
        self._typing = False  # a field was focused or typed into
        self._selected = False  # CTRL+A: the next text or DEL replaces everything
        #: a tap on a double_tap rule's element, waiting for its second tap:
        #: (lift time ms, x, y, the rule)
        self._pending: tuple[float, float, float, Rule] | None = None

    def _start_screen(self) -> str:
        sc = self.sc
        if sc.start is not None:
            if sc.start in sc.screens:
                return sc.start
            app = sc.apps[sc.start]
            if app.start is not None:
                return app.start
        return next(iter(sc.screens))

    def reset(self) -> None:
        """Back to the first screen."""
        self.screen = self.start
        self._clear_typing()

    # -- what is shown ------------------------------------------------------------------
    @property
    def sd(self) -> ScreenDef:
        """The screen shown now."""
        return self.sc.screens[self.screen]

    def dump(self) -> bytes:
        """The screen's dump exactly as it was recorded (typing in progress settled first)."""
        self._settle()
        return self.sd.recorded_xml or b""  # the bytes read (and checked) at loading

    def windows(self) -> list[Node]:
        """The screen's windows (for the screenshot)."""
        self._settle()
        return self.sd.windows

    def current(self) -> tuple[str, str]:
        """(package, activity) of the screen shown."""
        return self.sd.package, self.sd.activity

    # -- touches --------------------------------------------------------------------------
    def tap(self, x: float, y: float, down_ms: float = 0.0, up_ms: float | None = None
            ) -> str:
        """A tap at (x, y), down and up at ``down_ms``/``up_ms`` (the phone's clock): returns
        ``"double_tap"`` when it completed a recorded double tap, else ``"tap"``."""
        up = down_ms if up_ms is None else up_ms
        pending, self._pending = self._pending, None
        if pending is not None:
            lifted, _x0, _y0, rule = pending
            lo, hi = _DOUBLE_TAP_MS
            if lo <= down_ms - lifted <= hi and self._on(rule.selector, x, y):
                self._fire(rule)
                return "double_tap"
            self._single(pending[1], pending[2])  # the first was a single tap after all
        self._settle()
        waiting = self._under("double_tap", x, y)
        if waiting is not None:  # wait for the second tap
            self._pending = (up, x, y, waiting)
            return "tap"
        self._single(x, y)
        return "tap"

    def _on(self, sel: Selector | None, x: float, y: float) -> bool:
        return any(n.contains(x, y) for n in (sel or Selector()).find(self.sd.windows))

    def _single(self, x: float, y: float) -> None:
        """A single tap: the tap rule under it, or the field the recording typed into."""
        rule = self._under("tap", x, y)
        if rule is not None:
            return self._fire(rule)
        fields = [r.options["into"] for r in self._rules("type") if "into" in r.options]
        if any(n.contains(x, y) for sel in fields for n in sel.find(self.sd.windows)):
            self._typing = True  # the field the recording typed into gets focus
            return None
        self._refuse(f"a tap at ({x:g}, {y:g})")

    def long_press(self, x: float, y: float) -> None:
        self._settle()
        rule = self._under("long_press", x, y)
        if rule is None:
            self._refuse(f"a long press at ({x:g}, {y:g})")
        self._fire(rule)

    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None:
        dx, dy = x2 - x1, y2 - y1
        if abs(dx) <= _SLOP and abs(dy) <= _SLOP:
            if ms >= LONG_PRESS_MS:
                self.long_press(x1, y1)
            else:
                self.tap(x1, y1)
            return
        self._settle()
        if not self._swiped(x1, y1, x2, y2):
            self._refuse(f"a swipe {_direction(dx, dy)} from ({x1:g}, {y1:g})")
        return None

    def _swiped(self, x1: float, y1: float, x2: float, y2: float) -> bool:
        """Fire the swipe rule of this direction starting here; False when there is none."""
        direction = _direction(x2 - x1, y2 - y1)
        for rule in self._rules("swipe"):
            start = rule.options.get("from")
            if rule.direction == direction and (start is None or self._on(start, x1, y1)):
                self._fire(rule)
                return True
        return False

    def drag(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None:
        """Press, hold, move: the ``drag`` rule of its start (and end) element, else the
        swipe a recording may have seen."""
        self._settle()
        best: tuple[int, Rule] | None = None
        for rule in self._rules("drag"):
            to = rule.options.get("to")
            if to is not None and not self._on(to, x2, y2):
                continue
            for n in (rule.selector or Selector()).find(self.sd.windows):
                if n.contains(x1, y1) and (best is None or area(n.bounds) < best[0]):
                    best = (area(n.bounds), rule)
        if best is not None:
            return self._fire(best[1])
        if self._swiped(x1, y1, x2, y2):
            return None
        self._refuse(f"a drag from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})")

    def pinch(self, x: float, y: float, scale: float) -> bool:
        """Two fingers around (x, y) ending ``scale`` times as far apart: the ``pinch``
        rule under them that zooms the same way by a scale near the recorded one."""
        self._settle()
        best: tuple[int, Rule] | None = None
        for rule in self._rules("pinch"):
            want = float(rule.options.get("scale", 1.0))
            if scale <= 0 or (want > 1) != (scale > 1) or \
                    abs(math.log(scale / want)) > math.log(_PINCH_RATIO):
                continue
            for n in (rule.selector or Selector()).find(self.sd.windows):
                if n.contains(x, y) and (best is None or area(n.bounds) < best[0]):
                    best = (area(n.bounds), rule)
        if best is None:
            self._refuse(f"a pinch at ({x:g}, {y:g}) scaling by {scale:g}")
        self._fire(best[1])
        return True

    def gesture(self, fingers: list[list[tuple[float, float, float]]]) -> bool:
        """The fingers of one touch as the touch model tracked them (``(ms, x, y)`` each):
        True when they fired a recorded ``gesture`` rule (each finger starting and ending
        within reach of a recorded one), False when no rule is theirs (the gesture is then
        played as what it was recognised as)."""
        for rule in self._rules("gesture"):
            if _same_fingers(fingers, rule.options["paths"]):
                self._settle()
                self._fire(rule)
                return True
        return False

    def intent(self, fields: dict[str, Any]) -> bool:
        """``am start`` of an intent (``action``, ``data``, ``component``, ``package``,
        ``categories``): True when it fired the ``intent`` rule of the same intent."""
        self._settle()
        mine = _intent_key(fields)
        for rule in self._rules("intent"):
            if _intent_key(rule.options["intent"]) == mine:
                self._fire(rule)
                return True
        return False

    def settle_and_refuse(self, what: str) -> None:
        """Input the recording has no rules for at all."""
        self._settle()
        self._refuse(what)

    # -- typing and keys ------------------------------------------------------------------
    def text(self, text: str) -> None:
        self._edit(("" if self._selected else self._typed) + text)

    def key(self, code: int) -> None:
        if code == KEY_SPACE:
            return self.text(" ")
        if code in (KEY_DEL, KEY_FORWARD_DEL) and (self._typing or self._rules("type")):
            if self._selected or code == KEY_FORWARD_DEL:
                return self._edit("" if self._selected else self._typed)
            return self._edit(self._typed[:-1])  # DEL on an empty field deletes what was there
        if code in _CARET_KEYS and self._typing:
            return None
        if code == KEY_ENTER and self._typing:
            for rule in self._rules("type"):
                if rule.options.get("submit") and rule.options["text"] == self._typed:
                    return self._fire(rule)
        self._settle()
        for rule in self._rules("key"):
            if rule.options["key"] == code:
                return self._fire(rule)
        self._refuse(f"key {code}")

    def combination(self, codes: list[int]) -> None:
        if len(codes) == 2 and codes[0] in KEY_CTRL and codes[1] == KEY_A and self._rules("type"):
            self._typing = self._selected = True
            return
        self._settle()
        self._refuse(f"the key combination {' '.join(map(str, codes))}")

    # -- intents --------------------------------------------------------------------------
    def launch(self, package: str) -> bool:
        self._settle()
        for rule in self._rules("launched"):
            if rule.options["package"] == package:
                self._fire(rule)
                return True
        self._refuse(f"starting {package}")
        return False  # pragma: no cover - refused above

    def view(self, uri: str) -> str:
        self._settle()
        for rule in self._rules("opened"):
            if rule.options["uri"] == uri:
                self._fire(rule)
                return self.sd.package
        self._refuse(f"opening {uri}")
        return ""  # pragma: no cover - refused above

    # -- inside ---------------------------------------------------------------------------
    def _rules(self, trigger: str) -> list[Rule]:
        return [r for r in self.sd.rules if r.trigger == trigger]

    def _under(self, trigger: str, x: float, y: float) -> Rule | None:
        """The rule whose node lies under (x, y); the smallest node wins."""
        best: tuple[int, Rule] | None = None
        for rule in self._rules(trigger):
            sel = rule.selector or Selector()
            for n in sel.find(self.sd.windows):
                if n.contains(x, y) and (best is None or area(n.bounds) < best[0]):
                    best = (area(n.bounds), rule)
        return best[1] if best is not None else None

    def _fire(self, rule: Rule) -> None:
        for a in rule.actions:
            if a.kind in ("goto", "replace"):
                self.screen = a.arg["screen"]
        self._clear_typing()

    def _clear_typing(self) -> None:
        self._typed, self._typing, self._selected = "", False, False

    def _edit(self, typed: str) -> None:
        """Typing that makes the field hold ``typed`` (since the screen came)."""
        texts = [r.options["text"] for r in self._rules("type")]
        if not any(t.startswith(typed) for t in texts):
            said = ", ".join(repr(t) for t in texts) or "nothing"
            self._refuse(f"typing {typed!r} (the recording typed {said} here)")
        self._typed, self._typing, self._selected = typed, True, False

    def _settle(self) -> None:
        """Something else happens: a tap waiting for its second is a single tap, and
        typing is over (fire the rule of what was typed)."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._single(pending[1], pending[2])
        if not self._typed and not self._selected:
            self._typing = False
            return
        for rule in self._rules("type"):
            if rule.options["text"] == self._typed and not rule.options.get("submit"):
                return self._fire(rule)
        typed, self._typed, self._selected = self._typed, "", False
        self._refuse(f"typing {typed!r} without finishing what the recording typed")

    def _refuse(self, what: str) -> NoReturn:
        seen = "; ".join(_describe(r) for r in self.sd.rules) or "nothing"
        raise Refused(f"{NOT_RECORDED}: {what} on screen {self.screen!r} "
                      f"({self.sd.package}); the recording did here: {seen}")


def _direction(dx: float, dy: float) -> str:
    return ("left" if dx < 0 else "right") if abs(dx) > abs(dy) else ("up" if dy < 0 else
                                                                      "down")


def _same_fingers(got: list[list[tuple[float, float, float]]],
                  recorded: list[list[tuple[float, ...]]]) -> bool:
    """Whether each finger starts and ends within reach of a recorded finger (one each)."""
    if len(got) != len(recorded):
        return False
    left = list(recorded)
    for f in got:
        for r in left:
            if math.dist(f[0][1:], r[0][1:]) <= _FINGER_REACH and \
                    math.dist(f[-1][1:], r[-1][1:]) <= _FINGER_REACH:
                left.remove(r)
                break
        else:
            return False
    return True


def _intent_key(fields: dict[str, Any]) -> tuple[Any, ...]:
    """An intent's fields as compared (a component's activity written out in full)."""
    comp = fields.get("component")
    if isinstance(comp, str) and "/" in comp:
        pkg, _, cls = comp.partition("/")
        comp = f"{pkg}/{pkg + cls if cls.startswith('.') else cls}"
    cats = fields.get("categories") or []
    return (fields.get("action"), fields.get("data"), comp, fields.get("package"),
            tuple(sorted(cats)))


def _describe(rule: Rule) -> str:
    o = rule.options
    if rule.trigger == "gesture":
        return f"a gesture of {len(o['paths'])} finger(s)"
    if rule.trigger == "intent":
        return "intent " + ", ".join(f"{k}={v}" for k, v in o["intent"].items())
    if rule.trigger == "pinch":
        return f"pinch {rule.selector} by {o.get('scale')}"
    if rule.trigger == "type":
        return f"type {o['text']!r}" + (" + enter" if o.get("submit") else "")
    if rule.trigger == "key":
        return f"key {o['key']}"
    if rule.trigger in ("launched", "opened"):
        return f"{rule.trigger} {o.get('package') or o.get('uri')}"
    if rule.trigger == "swipe":
        return f"swipe {rule.direction}"
    return f"{rule.trigger} {rule.selector}"
