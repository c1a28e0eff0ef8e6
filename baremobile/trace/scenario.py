"""A trace as a virtual-phone scenario: replay a real phone's session in CI.

``baremobile trace to-scenario TRACE DIR`` (:func:`to_scenario`) writes ``DIR/scenario.yaml``
and ``DIR/screens/*.xml``; ``connect("virtual:DIR")`` (or ``@pytest.mark.scenario(DIR)``)
then serves it. The scenario is **recorded** (``recorded: true``, ``docs/scenarios.md``):

* each distinct screen the session saw (its raw dump, byte for byte) is a screen, served
  exactly as recorded — so a replayed flow reads the same snapshot text;
* each action the session took becomes a rule on the screen it was taken on, leading to
  the screen seen next (also when it did not change the screen: the replay accepts it):
  ``tap``/``long_press`` on the element (pinned by its bounds), ``type`` (the text, the
  field, ``submit``), ``swipe`` (direction, start element), ``key``, ``launched``,
  ``opened``;
* anything the recording did not do answers "not in the recording" on the phone's side.

What is not replayed (each named in :attr:`Conversion.warnings`): typed text the trace
hid, gestures beyond tap/long press/swipe (double tap, drag, pinch), intents other than
launching and opening a URI, verbs that change no screen (files, apps, settings are
accepted by the virtual phone as it always does), failed actions. Two actions taken on
the same screen one after the other with no snapshot between lead through a copy of that
screen (the phone was not looked at in between); a screen that changed by itself between
two snapshots is replayed as the last one seen. When the same action on the same screen
led to different screens at different times, the first is kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from defusedxml import ElementTree

from baremobile.android.keycodes import keycode
from baremobile.errors import InvalidArgument
from baremobile.localfiles import write_atomically
from baremobile.snapshot import from_xml
from baremobile.trace.format import Trace

__all__ = ["Conversion", "to_scenario", "ACTING"]

#: Acting verbs a recorded scenario replays.
ACTING = ("tap", "long_press", "tap_xy", "type", "press", "back", "home", "recents",
          "launch", "open_url", "scroll", "swipe")
_KEYS = {"back": "BACK", "home": "HOME", "recents": "APP_SWITCH"}
_FINGER = {"down": "up", "up": "down", "left": "right", "right": "left"}  # content → finger
_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+")


@dataclass
class Conversion:
    """What :func:`to_scenario` wrote."""

    scenario: Path  #: the scenario file (``DIR/scenario.yaml``)
    screens: int  #: how many screens
    rules: int  #: how many rules
    warnings: list[str] = field(default_factory=list)  #: what could not be replayed


@dataclass
class _Screen:
    name: str
    xml: bytes
    package: str
    size: tuple[int, int]
    rules: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


class _Builder:
    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.screens: dict[str, _Screen] = {}
        self.by_xml: dict[bytes, str] = {}
        self.launched: set[str] = set()
        self.warnings: list[str] = []

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
            self.warnings.append(f"dump {dump} is not readable ({exc}); left out")
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


def _pinned(node: dict[str, Any] | None) -> dict[str, Any] | None:
    """A selector for the recorded element: its bounds as dumped, its class."""
    if not node:
        return None
    b = node.get("raw_bounds") or node.get("bounds")
    if not b:
        return None
    sel: dict[str, Any] = {"bounds": "[{},{}][{},{}]".format(*b)}
    if node.get("cls"):
        sel["class"] = node["cls"]
    return sel


def _node_at(xml: bytes, x: float, y: float) -> dict[str, Any] | None:
    """The smallest node of a dump containing the point, as a selector."""
    try:
        root = ElementTree.fromstring(xml)
    except Exception:
        return None
    best: tuple[int, dict[str, Any]] | None = None
    for el in root.iter("node"):
        m = re.fullmatch(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]", el.get("bounds", ""))
        if not m:
            continue
        x1, y1, x2, y2 = map(int, m.groups())
        area = (x2 - x1) * (y2 - y1)
        if x1 <= x < x2 and y1 <= y < y2 and area > 0 and (best is None or area < best[0]):
            best = (area, {"bounds": el.get("bounds"), "class": el.get("class", "")})
    return best[1] if best is not None else None


def _in_screen(sel: dict[str, Any] | None, xml: bytes) -> bool:
    return sel is not None and f'bounds="{sel["bounds"]}"'.encode() in xml


def _trigger(b: _Builder, step: dict[str, Any], source: str
             ) -> tuple[str, dict[str, Any]] | str:
    """The rule's trigger for an acting step, or why there is none."""
    verb, args = step["verb"], step.get("args") or {}
    xml = b.screens[source].xml
    if verb in ("tap", "long_press"):
        sel = _pinned(step.get("target"))
        if sel is None:
            return "its element was not resolved to a ref (a selector matched plain text)"
        if not _in_screen(sel, xml):
            return "its element is not on the screen it was taken on"
        return verb, {verb: sel}
    if verb == "tap_xy":
        sel = _node_at(xml, float(args.get("x", -1)), float(args.get("y", -1)))
        return ("tap", {"tap": sel}) if sel else "no element lies at that point"
    if verb == "type":
        if args.get("hidden"):
            return "its text was hidden from the trace"
        text = args.get("text")
        if not isinstance(text, str):
            return "no text recorded"
        out: dict[str, Any] = {"type": text}
        sel = _pinned(step.get("target"))
        if sel is not None and _in_screen(sel, xml):
            out["into"] = sel
        if args.get("submit"):
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
        if not isinstance(package, str):
            return "no package recorded"
        b.launched.add(package)
        return "launched", {"launched": package}
    if verb == "open_url":
        return "opened", {"opened": str(args.get("uri"))}
    if verb == "scroll":
        finger = _FINGER.get(str(args.get("direction", "down")))
        if finger is None:
            return "no direction recorded"
        out = {"swipe": finger}
        sel = _pinned(step.get("target"))
        if sel is not None and _in_screen(sel, xml):
            out["from"] = sel
        return "swipe", out
    if verb == "swipe":
        dx = float(args.get("x2", 0)) - float(args.get("x1", 0))
        dy = float(args.get("y2", 0)) - float(args.get("y1", 0))
        finger = ("left" if dx < 0 else "right") if abs(dx) > abs(dy) else \
            ("up" if dy < 0 else "down")
        return "swipe", {"swipe": finger}
    return f"{verb} is not replayed"


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
    for step, after in trace.transitions():
        if step.get("error") is not None:
            b.warnings.append(f"step {step['n']} ({step['verb']}) failed: not replayed")
            target = b.screen(after) if after else None
            current = target or current
            continue
        trigger = _trigger(b, step, current)
        target = b.screen(after) if after else None
        if target is None:  # the screen was not read before the next action
            target = b.screen(None, copy_of=current)
            assert target is not None
        if isinstance(trigger, str):
            b.warnings.append(f"step {step['n']} ({step['verb']}): {trigger}; not replayed")
        else:
            b.rule(current, trigger, target, step)
        current = target
    return _write(b, Path(folder), start, name or trace.meta.get("title") or trace.path.stem)


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
    return Conversion(path, len(b.screens), rules, b.warnings)
