"""A trace as a virtual-phone scenario: replay a real phone's session in CI.

``baremobile trace to-scenario TRACE DIR`` (:func:`to_scenario`) writes ``DIR/scenario.yaml``
and ``DIR/screens/*.xml``; ``connect("virtual:DIR")`` (or ``@pytest.mark.scenario(DIR)``)
then serves it. The scenario is **recorded** (``recorded: true``, ``docs/scenarios.md``):

* each distinct screen the session saw (its raw dump, byte for byte) is a screen, served
  exactly as recorded — so a replayed flow reads the same snapshot text;
* each move the session made (:mod:`.timeline`: every touch a verb sent, every key, text,
  app start, URI and intent) becomes a rule on the screen it was made on, leading to the
  screen seen next (also when it did not change the screen: the replay accepts it). A touch
  is pinned to the element it went to — the one its ref or selector resolved to when the
  recording ran, else the smallest element of the screen under the point it was sent to —
  so a selector that matched plain text replays too: ``tap``, ``long_press``,
  ``double_tap`` (the element), ``swipe`` (direction, start element), ``drag`` (start and
  end elements), ``pinch`` (the element, the scale), ``gesture`` (the fingers' paths, as
  the phone's touch model tracks them), ``type`` (text, field, ``submit``), ``key``,
  ``launched``, ``opened``, ``intent`` (action, data, component, package, categories);
* anything the recording did not do answers "not in the recording" on the phone's side.

What is not replayed is listed per step (:attr:`Conversion.skipped`, and as ``warnings``):
text the trace hid, failed actions, and acting verbs whose effect is not input the trace
can send again (``edit_text``'s caret moves, a raw ``shell``, ``eval_js``, stopping or
clearing apps …). Two moves made one after the other with no look between lead through a
copy of the screen (the phone was not looked at in between); a screen that changed by
itself between two snapshots is replayed as the last one seen. When the same move on the
same screen led to different screens at different times, the first is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from defusedxml import ElementTree

from baremobile.android.keycodes import keycode
from baremobile.errors import InvalidArgument
from baremobile.localfiles import write_atomically
from baremobile.snapshot import from_xml
from baremobile.trace.format import Trace
from baremobile.trace.timeline import Move, moves

__all__ = ["Conversion", "Skipped", "to_scenario", "ACTING"]

#: Acting verbs a recorded scenario replays.
ACTING = ("tap", "long_press", "tap_xy", "double_tap", "drag", "pinch", "gesture", "type",
          "press", "back", "home", "recents", "launch", "open_url", "intent", "scroll",
          "scroll_until", "swipe")
_KEYS = {"back": "BACK", "home": "HOME", "recents": "APP_SWITCH"}
_FINGER = {"down": "up", "up": "down", "left": "right", "right": "left"}  # content → finger
_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+")
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
#: why an acting verb the replay cannot send again is not replayed
_WHY_NOT = {
    "edit_text": "it edits a field in place with caret keys; a replay types only from the "
                 "start of a field",
    "shell": "a raw shell command: what it did to the screen is not in the trace",
    "eval_js": "a script in a page: what it did is not in the trace",
    "stop_app": "stopping an app is not input a replay sends",
    "clear_app_data": "clearing an app's data is not input a replay sends",
}


@dataclass
class Skipped:
    """A step (or one touch of it) the scenario does not replay, and why."""

    step: int
    verb: str
    why: str

    def __str__(self) -> str:
        return f"step {self.step} ({self.verb}): {self.why}; not replayed"


@dataclass
class Conversion:
    """What :func:`to_scenario` wrote."""

    scenario: Path  #: the scenario file (``DIR/scenario.yaml``)
    screens: int  #: how many screens
    rules: int  #: how many rules
    warnings: list[str] = field(default_factory=list)  #: what could not be replayed, said
    skipped: list[Skipped] = field(default_factory=list)  #: the same, per step


@dataclass
class _Screen:
    name: str
    xml: bytes
    package: str
    size: tuple[int, int]
    rules: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    nodes: list[tuple[tuple[int, int, int, int], str, str, bool]] | None = None


class _Builder:
    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.screens: dict[str, _Screen] = {}
        self.by_xml: dict[bytes, str] = {}
        self.launched: set[str] = set()
        self.warnings: list[str] = []
        self.skipped: list[Skipped] = []

    def skip(self, step: dict[str, Any], why: str) -> None:
        s = Skipped(step["n"], step["verb"], why)
        self.skipped.append(s)
        self.warnings.append(str(s))

    def screen(self, dump: str | None, *, copy_of: str | None = None) -> str | None:
        """The screen of stored dump ``dump`` (or a fresh copy of screen ``copy_of``)."""
        if copy_of is not None:
            base = self.screens[copy_of]
            name = f"s{len(self.screens) + 1}"
            self.screens[name] = _Screen(name, base.xml, base.package, base.size)
            return name
        xml = self.trace.dump(dump)
        if xml is None:
            return None
        if xml in self.by_xml:
            return self.by_xml[xml]
        try:
            snap = from_xml(xml)
        except Exception as exc:  # a damaged dump: no screen
            self.warnings.append(f"dump {dump} is not readable ({type(exc).__name__}); "
                                 "left out")
            return None
        name = f"s{len(self.screens) + 1}"
        package = snap.package if _PACKAGE.fullmatch(snap.package or "") else "android"
        self.screens[name] = _Screen(name, xml, package, (snap.width, snap.height))
        self.by_xml[xml] = name
        return name

    def rule(self, source: str, trigger: tuple[str, dict[str, Any]], target: str,
             step: dict[str, Any]) -> None:
        sc = self.screens[source]
        for have, to in [(r, r[1]["replace"]) for r in sc.rules]:
            key = {k: v for k, v in have[1].items() if k != "replace"}
            if have[0] == trigger[0] and key == trigger[1]:
                if to != target:
                    self.warnings.append(
                        f"step {step['n']} ({step['verb']}): the same action on screen "
                        f"{source} led to {to} before and to {target} now; the replay "
                        f"follows the first")
                return
        sc.rules.append((trigger[0], {**trigger[1], "replace": target}))


def _nodes(sc: _Screen) -> list[tuple[tuple[int, int, int, int], str, str, bool]]:
    """The dump's nodes: (bounds, the bounds as dumped, class, scrollable), read once."""
    if sc.nodes is None:
        sc.nodes = []
        try:
            root = ElementTree.fromstring(sc.xml)
        except Exception:
            return sc.nodes
        for el in root.iter("node"):
            m = _BOUNDS.fullmatch(el.get("bounds", ""))
            if m:
                box = (int(m[1]), int(m[2]), int(m[3]), int(m[4]))
                sc.nodes.append((box, el.get("bounds", ""), el.get("class", ""),
                                 el.get("scrollable") == "true"))
    return sc.nodes


def _sel(raw: str, cls: str) -> dict[str, Any]:
    return {"bounds": raw, **({"class": cls} if cls else {})}


def _node_at(sc: _Screen, x: float, y: float, *, scrollable: bool = False
             ) -> dict[str, Any] | None:
    """The smallest node of the screen containing the point (``scrollable``: of those that
    scroll), as a selector."""
    best: tuple[int, dict[str, Any]] | None = None
    for (x1, y1, x2, y2), raw, cls, scrolls in _nodes(sc):
        if scrollable and not scrolls:
            continue
        area = (x2 - x1) * (y2 - y1)
        if x1 <= x < x2 and y1 <= y < y2 and area > 0 and (best is None or area < best[0]):
            best = (area, _sel(raw, cls))
    return best[1] if best is not None else None


def _element(sc: _Screen, step: dict[str, Any], point: list[int] | None
             ) -> dict[str, Any] | None:
    """The element a touch at ``point`` went to: the one the step's ref or selector
    resolved to when it ran (when it is on this screen and holds the point), else the
    smallest element under the point."""
    t = step.get("target") or {}
    b = t.get("raw_bounds") or t.get("bounds")
    if b:
        raw = "[{},{}][{},{}]".format(*b)
        here = any(node[1] == raw for node in _nodes(sc))
        inside = point is None or (b[0] <= point[0] < b[2] and b[1] <= point[1] < b[3])
        if here and inside:
            return _sel(raw, t.get("cls") or "")
    return _node_at(sc, *point) if point is not None else None


def _direction(a: Sequence[float], b: Sequence[float]) -> str:
    dx, dy = b[0] - a[0], b[1] - a[1]
    return ("left" if dx < 0 else "right") if abs(dx) > abs(dy) else ("up" if dy < 0 else
                                                                      "down")


def _touch(sc: _Screen, step: dict[str, Any], touch: dict[str, Any]
           ) -> tuple[str, dict[str, Any]] | str:
    """The rule's trigger for one touch a step sent, or why there is none."""
    kind, points = touch["kind"], touch["points"]
    if kind in ("tap", "long_press", "double_tap"):
        sel = _element(sc, step, points[0])
        return (kind, {kind: sel}) if sel else "no element lies where it touched"
    if kind == "swipe":  # from the element scrolled (the target, else what scrolls there)
        out: dict[str, Any] = {"swipe": _direction(points[0], points[1])}
        start = _element(sc, step, points[0]) if step.get("target") else \
            _node_at(sc, *points[0], scrollable=True)
        if start is not None:
            out["from"] = start
        return "swipe", out
    if kind == "drag":
        start, end = _element(sc, step, points[0]), _node_at(sc, *points[1])
        if start is None:
            return "no element lies where the drag started"
        return "drag", {"drag": start, **({"to": end} if end is not None else {})}
    if kind == "pinch":
        sel = _element(sc, step, points[0])
        if sel is None or not touch.get("scale"):
            return "no element lies under the pinch"
        return "pinch", {"pinch": sel, "scale": touch["scale"]}
    paths = touch.get("paths") or []
    if len(paths) == 1 and len(paths[0]) == 2:  # one straight finger: sent as a swipe
        (_, x1, y1), (_, x2, y2) = paths[0]
        out = {"swipe": _direction([x1, y1], [x2, y2])}
        start = _node_at(sc, x1, y1, scrollable=True)
        if start is not None:
            out["from"] = start
        return "swipe", out
    return "gesture", {"gesture": paths}


def _whole(b: _Builder, step: dict[str, Any], source: str
           ) -> tuple[str, dict[str, Any]] | str:
    """The rule's trigger for a step that is one move, or why there is none."""
    verb, args = step["verb"], step.get("args") or {}
    sc = b.screens[source]
    target = step.get("target") or {}
    if verb in ("tap", "long_press", "double_tap"):  # format 1: no touches recorded
        sel = _element(sc, step, None)
        if sel is None:
            return "the element it touched is not on the screen it was taken on"
        return verb, {verb: sel}
    if verb == "tap_xy":
        x, y = args.get("x"), args.get("y")
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            return "no point recorded"
        sel = _node_at(sc, x, y)
        return ("tap", {"tap": sel}) if sel else "no element lies at that point"
    if verb == "type":
        if args.get("hidden"):
            return "its text was hidden from the trace"
        text = args.get("text")
        if not isinstance(text, str):
            return "no text recorded"
        out: dict[str, Any] = {"type": text}
        sel = _element(sc, step, None) if target else None
        if sel is not None:
            out["into"] = sel
        if args.get("submit") is True:
            out["submit"] = True
        return "type", out
    if verb in ("press", "back", "home", "recents"):
        key = _KEYS.get(verb) if verb != "press" else args.get("key")
        if not isinstance(key, (str, int)):
            return f"key {key!r} is not a key"
        try:
            code = keycode(key)
        except Exception:
            return f"key {key!r} is not a key"
        return "key", {"key": code}
    if verb == "launch":
        package = step.get("result") if isinstance(step.get("result"), str) else \
            args.get("package")
        if not isinstance(package, str) or not _PACKAGE.fullmatch(package):
            return "no package recorded"
        b.launched.add(package)
        return "launched", {"launched": package}
    if verb == "open_url":
        uri = args.get("uri")
        return ("opened", {"opened": uri}) if isinstance(uri, str) and uri else \
            "no URI recorded"
    if verb == "intent":
        fields = {k: args[k] for k in ("action", "data", "component", "package")
                  if isinstance(args.get(k), str)}
        cats = args.get("categories")
        if isinstance(cats, list) and cats and all(isinstance(c, str) for c in cats):
            fields["categories"] = sorted(cats)
        return ("intent", {"intent": fields}) if fields else "no intent recorded"
    if verb in ("scroll", "swipe"):  # format 1: no touches recorded
        if verb == "swipe":
            p = [args.get(k) for k in ("x1", "y1", "x2", "y2")]
            if not all(isinstance(v, (int, float)) for v in p):
                return "no points recorded"
            pts = [float(v) for v in p if isinstance(v, (int, float))]  # all four, checked
            return "swipe", {"swipe": _direction(pts[:2], pts[2:])}
        finger = _FINGER.get(str(args.get("direction", "down")))
        if finger is None:
            return "no direction recorded"
        out = {"swipe": finger}
        sel = _element(sc, step, None) if target else None
        if sel is not None:
            out["from"] = sel
        return "swipe", out
    return _WHY_NOT.get(verb, f"{verb} changes the phone in a way the trace does not record "
                              "as input")


def to_scenario(trace: Trace, folder: str | Path, *, name: str | None = None) -> Conversion:
    """Write ``trace`` as a recorded scenario into ``folder`` (see the module's docs)."""
    b = _Builder(trace)
    first = trace.meta.get("start_dump") or next(
        (s.get("before") for s in trace.steps if s.get("before")), None) or next(
        (d for s in trace.steps for d in s.get("dumps") or []), None)
    start = b.screen(first)
    if start is None:
        raise InvalidArgument("the trace holds no screen to start from (no dump was read)",
                              hint="record with a snapshot before the first action")
    current = start
    for move in moves(trace):
        step = move.step
        target = b.screen(move.after) if move.after else None
        if step.get("error") is not None:
            b.skip(step, "it failed")
            current = target or current
            continue
        trigger = _trigger(b, move, current)
        if target is None:  # the screen was not read before the next move
            target = b.screen(None, copy_of=current)
            assert target is not None
        if isinstance(trigger, str):
            b.skip(step, trigger)
        else:
            b.rule(current, trigger, target, step)
        current = target
    title = trace.meta.get("title") or trace.path.stem
    return _write(b, Path(folder), start, name or title)


def _trigger(b: _Builder, move: Move, source: str) -> tuple[str, dict[str, Any]] | str:
    if move.sent is not None:
        return _touch(b.screens[source], move.step, move.sent)
    return _whole(b, move.step, source)


def _yaml(value: Any) -> str:
    """A YAML scalar or flow mapping (JSON is YAML)."""
    return json.dumps(value, ensure_ascii=False)


def _write(b: _Builder, folder: Path, start: str, name: str) -> Conversion:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "screens").mkdir(exist_ok=True)
    first = b.screens[start]
    apps: dict[str, list[_Screen]] = {}
    for sc in b.screens.values():
        apps.setdefault(sc.package, []).append(sc)
    for package in sorted(b.launched - set(apps)):
        apps[package] = []
    lines = [
        "# A recorded scenario: written by `baremobile trace to-scenario` from a trace.",
        "# Screens are served exactly as recorded; input no rule covers is refused",
        "# (\"not in the recording\"). See docs/traces.md.",
        "scenario: 1",
        f"name: {_yaml(str(name))}",
        "recorded: true",
        f"device: {{width: {first.size[0] or 1080}, height: {first.size[1] or 2400}}}",
        "system_ui: {status_bar: false, nav_bar: none, keyboard: false}",
        f"home: {_yaml(first.package)}",
        f"start: {_yaml(start)}",
        "apps:",
    ]
    rules = 0
    for package in [first.package] + sorted(set(apps) - {first.package}):
        screens = apps[package]
        lines += [f"  - package: {_yaml(package)}",
                  "    activity: .MainActivity      # not recorded",
                  "    launch_by_label: false"]
        if not screens:
            continue
        lines.append("    screens:")
        for sc in screens:
            write_atomically(folder / "screens" / f"{sc.name}.xml", sc.xml, overwrite=True)
            lines.append(f"      {sc.name}:")
            lines.append(f"        xml: screens/{sc.name}.xml")
            if sc.rules:
                lines.append("        on:")
            for trigger, spec in sc.rules:
                rules += 1
                parts = [f"{trigger}: {_yaml(spec[trigger])}"] + [
                    f"{k}: {_yaml(v)}" for k, v in spec.items() if k != trigger]
                lines.append("          - {" + ", ".join(parts) + "}")
    path = folder / "scenario.yaml"
    write_atomically(path, ("\n".join(lines) + "\n").encode("utf-8"), overwrite=True)
    return Conversion(path, len(b.screens), rules, b.warnings, b.skipped)
