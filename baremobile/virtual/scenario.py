"""Loading and validating virtual-phone scenario files (YAML, read with ruamel.yaml).

A scenario names the device, the installed apps, and for each app its screens: a real
``uiautomator dump`` XML plus the rules that say what input does on it. The format is
documented in ``docs/scenarios.md``; this module turns a file into checked, immutable-ish
definitions (:class:`Scenario`, :class:`AppDef`, :class:`ScreenDef`, :class:`Rule`, ...)
and raises :class:`ScenarioError` naming the file, the line, the screen and the problem
for anything it cannot use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .uixml import DumpError, Node, is_editable_class, parse_dump

__all__ = [
    "ScenarioError",
    "Selector",
    "Action",
    "Rule",
    "FilterDef",
    "ViewDef",
    "ScreenDef",
    "AppDef",
    "Scenario",
    "load_scenario",
    "render_template",
    "DEMO_PATH",
]

#: The built-in demo scenario.
DEMO_PATH = Path(__file__).with_name("scenarios") / "demo" / "demo.yaml"


class ScenarioError(ValueError):
    """A scenario file is invalid; the message names the file, the screen and the problem."""


# -- templates ----------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")


def _format_phone(value: str) -> str:
    digits = re.sub(r"\D", "", value)
    if len(digits) == 10:
        return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
    if len(digits) == 11 and digits[0] == "1":
        return f"+1 {digits[1:4]}-{digits[4:7]}-{digits[7:]}"
    return value


_FORMATTERS: dict[str, Callable[[str], str]] = {
    "phone": _format_phone,
    "upper": str.upper,
    "lower": str.lower,
    "strip": str.strip,
}


def render_template(template: str, context: dict[str, str]) -> str:
    """Replace ``{name}`` / ``{name:format}`` with values from ``context``.

    Names missing from ``context`` are left as written, so text of a real dump that
    happens to contain braces is never touched. Formats: ``phone``, ``upper``, ``lower``,
    ``strip``.
    """
    if "{" not in template:
        return template

    def sub(m: re.Match[str]) -> str:
        name, fmt = m.group(1), m.group(2)
        if name not in context:
            return m.group(0)
        value = context[name]
        if fmt:
            f = _FORMATTERS.get(fmt)
            if f is None:
                return m.group(0)
            value = f(value)
        return value

    return _PLACEHOLDER.sub(sub, template)


def placeholders(template: str) -> set[str]:
    """Names used as ``{name}`` in a string."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(template)}


# -- definitions ----------------------------------------------------------------------------

_SELECTOR_KEYS = ("id", "text", "desc", "text_contains", "desc_contains", "class", "label")


@dataclass(frozen=True)
class Selector:
    """Which node a rule is about. Every given key must hold for the same node.

    ``id`` matches the full resource-id or just the part after ``:id/``; ``label`` (what a
    bare string selector means) matches text or content-desc exactly.
    """

    id: str | None = None
    text: str | None = None
    desc: str | None = None
    text_contains: str | None = None
    desc_contains: str | None = None
    cls: str | None = None
    label: str | None = None

    def matches(self, node: Node) -> bool:
        """Whether ``node`` itself satisfies every key."""
        if self.id is not None:
            rid = node.rid
            if rid != self.id and not (":id/" not in self.id and rid.endswith(":id/" + self.id)):
                return False
        if self.text is not None and node.text != self.text:
            return False
        if self.desc is not None and node.desc != self.desc:
            return False
        if self.text_contains is not None and self.text_contains not in node.text:
            return False
        if self.desc_contains is not None and self.desc_contains not in node.desc:
            return False
        if self.cls is not None and node.cls != self.cls and not node.cls.endswith("." + self.cls):
            return False
        return self.label is None or self.label in (node.text, node.desc)

    def find(self, roots: list[Node]) -> list[Node]:
        """Every matching node under ``roots``, in document order."""
        return [n for r in roots for n in r.iter() if self.matches(n)]

    def __str__(self) -> str:
        if self.label is not None and all(
            getattr(self, k) is None for k in ("id", "text", "desc", "text_contains",
                                               "desc_contains", "cls")
        ):
            return repr(self.label)
        parts = [
            f"{k}: {v!r}"
            for k, v in (
                ("id", self.id),
                ("text", self.text),
                ("desc", self.desc),
                ("text_contains", self.text_contains),
                ("desc_contains", self.desc_contains),
                ("class", self.cls),
                ("label", self.label),
            )
            if v is not None
        ]
        return "{" + ", ".join(parts) + "}"


@dataclass
class Action:
    """One step of a rule: ``kind`` is a verb of the vocabulary, ``arg`` its argument."""

    kind: str
    arg: Any = None


@dataclass
class Rule:
    """``trigger`` (tap, long_press, enter, swipe) on ``selector`` (or ``direction``) → actions."""

    trigger: str
    selector: Selector | None
    actions: list[Action]
    direction: str | None = None
    line: int = 0


@dataclass
class FilterDef:
    """A list whose items are filtered by what an editable field holds."""

    field: Selector
    list: Selector
    empty: str = "all"  # what an empty query shows: "all" or "none"
    keywords: dict[str, str] = field(default_factory=dict)
    no_results: Selector | None = None
    var: str = "query"


@dataclass
class ViewDef:
    """``ACTION_VIEW`` URIs with one of ``schemes`` open ``screen`` with ``vars``."""

    schemes: list[str]
    screen: str
    vars: dict[str, str]


@dataclass
class ScreenDef:
    """One screen: its dump, its app, its activity, its rules."""

    name: str
    package: str
    activity: str
    xml_path: Path
    windows: list[Node]
    rules: list[Rule]
    filters: list[FilterDef]
    vars: dict[str, str]
    templates: list[Node]
    resize: Selector | None = None
    resize_off: bool = False
    keyboard: bool = True
    cancelable: bool = True
    system_bars: str = "auto"  # "auto", "on" or "off"


@dataclass
class AppDef:
    """One installed app."""

    package: str
    label: str
    activity: str | None
    system: bool
    version_name: str
    version_code: int
    start: str | None
    screens: list[str]
    views: list[ViewDef]
    launch_by_label: bool = False


@dataclass
class Scenario:
    """A loaded, validated scenario."""

    path: Path
    name: str
    width: int
    height: int
    density: int
    rotation: int
    utc_offset: int  # minutes east of UTC for clocks and timestamps
    extras: bool  # dumps carry drawing-order and hint (API 26+)
    status_bar: bool
    nav_bar: str  # "buttons", "gesture" or "none"
    keyboard: bool
    home: str | None
    start: str | None
    apps: dict[str, AppDef] = field(default_factory=dict)
    screens: dict[str, ScreenDef] = field(default_factory=dict)


# -- loading ----------------------------------------------------------------------------------

_TRIGGERS = ("tap", "long_press", "enter", "swipe")
_FLAG_ACTIONS = ("back", "home", "recents", "dismiss", "close_panel", "toggle", "clear")
_ARG_ACTIONS = (
    "goto",
    "replace",
    "back_to",
    "dialog",
    "panel",
    "toggle",
    "set_text",
    "insert",
    "clear",
    "send",
    "launch",
    "view",
    "focus",
)
_NAV_ACTIONS = ("goto", "replace", "back_to", "back", "home", "recents", "dismiss", "launch",
                "view")


class _Ctx:
    """Where we are in the file, for error messages."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def err(self, problem: str, *, screen: str | None = None, node: Any = None) -> ScenarioError:
        where = str(self.path)
        line = _line(node)
        if line:
            where += f":{line}"
        if screen:
            where += f": screen {screen!r}"
        return ScenarioError(f"{where}: {problem}")


def _line(node: Any) -> int:
    lc = getattr(node, "lc", None)
    if lc is not None and getattr(lc, "line", None) is not None:
        return int(lc.line) + 1
    return 0


def _check_keys(ctx: _Ctx, m: Any, allowed: tuple[str, ...], what: str,
                screen: str | None = None) -> None:
    if not isinstance(m, dict):
        raise ctx.err(f"{what} must be a mapping, not {type(m).__name__}", screen=screen,
                      node=m)
    unknown = [k for k in m if k not in allowed]
    if unknown:
        raise ctx.err(
            f"unknown key {unknown[0]!r} in {what} (expected one of: {', '.join(allowed)})",
            screen=screen,
            node=m,
        )


def _str(ctx: _Ctx, v: Any, what: str, screen: str | None = None, node: Any = None) -> str:
    if isinstance(v, bool) or v is None or isinstance(v, (dict, list)):
        raise ctx.err(f"{what} must be a string", screen=screen, node=node)
    return str(v)


def _int(ctx: _Ctx, v: Any, what: str, node: Any = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.err(f"{what} must be an integer", node=node)
    return v


def _bool(ctx: _Ctx, v: Any, what: str, screen: str | None = None, node: Any = None) -> bool:
    if not isinstance(v, bool):
        raise ctx.err(f"{what} must be true or false", screen=screen, node=node)
    return v


def parse_selector(ctx: _Ctx, spec: Any, screen: str | None, node: Any = None) -> Selector:
    """A selector from YAML: a string (text or desc) or a mapping of keys."""
    if isinstance(spec, str):
        return Selector(label=spec)
    if not isinstance(spec, dict) or not spec:
        raise ctx.err(
            "a selector is a string (text or content-desc) or a mapping with "
            f"{', '.join(_SELECTOR_KEYS)}",
            screen=screen,
            node=node if spec is None else spec,
        )
    _check_keys(ctx, spec, _SELECTOR_KEYS, "selector", screen)
    kw = {("cls" if k == "class" else k): _str(ctx, v, f"selector key {k!r}", screen, spec)
          for k, v in spec.items()}
    return Selector(**kw)


def _qualify(package: str, activity: str) -> str:
    if activity.startswith("."):
        return package + activity
    if "." not in activity:
        return f"{package}.{activity}"
    return activity


def _screen_ref(ctx: _Ctx, v: Any, what: str, screen: str, node: Any) -> dict[str, Any]:
    if isinstance(v, str):
        return {"screen": v, "vars": {}}
    if isinstance(v, dict):
        _check_keys(ctx, v, ("screen", "vars"), what, screen)
        if "screen" not in v:
            raise ctx.err(f"{what} needs 'screen'", screen=screen, node=v)
        vars_ = v.get("vars") or {}
        if not isinstance(vars_, dict):
            raise ctx.err(f"{what} vars must be a mapping", screen=screen, node=v)
        return {
            "screen": _str(ctx, v["screen"], f"{what} screen", screen, v),
            "vars": {str(k): _str(ctx, x, f"var {k!r}", screen, v) for k, x in vars_.items()},
        }
    raise ctx.err(f"{what} takes a screen name or {{screen, vars}}", screen=screen, node=node)


def _parse_action(ctx: _Ctx, kind: str, arg: Any, screen: str, node: Any) -> Action:
    if kind in ("back", "home", "recents", "dismiss", "close_panel"):
        if arg not in (None, True):
            raise ctx.err(f"{kind!r} takes no argument", screen=screen, node=node)
        return Action(kind)
    if kind in ("goto", "replace"):
        return Action(kind, _screen_ref(ctx, arg, kind, screen, node))
    if kind in ("back_to", "dialog", "panel"):
        return Action(kind, _str(ctx, arg, f"{kind!r}", screen, node))
    if kind in ("toggle", "clear", "focus"):
        if arg in (None, True) and kind != "focus":
            return Action(kind, None)
        return Action(kind, parse_selector(ctx, arg, screen, node))
    if kind == "set_text":
        if isinstance(arg, dict):
            _check_keys(ctx, arg, ("target", "text"), "set_text", screen)
            if "text" not in arg:
                raise ctx.err("set_text needs 'text'", screen=screen, node=arg)
            target = parse_selector(ctx, arg["target"], screen, arg) if "target" in arg else None
            return Action(kind, {"target": target,
                                 "text": _str(ctx, arg["text"], "set_text text", screen, arg)})
        return Action(kind, {"target": None, "text": _str(ctx, arg, "set_text", screen, node)})
    if kind == "insert":
        return Action(kind, _str(ctx, arg, "insert", screen, node))
    if kind == "send":
        _check_keys(ctx, arg, ("from", "to", "template"), "send", screen)
        for k in ("from", "to", "template"):
            if k not in arg:
                raise ctx.err(f"send needs {k!r}", screen=screen, node=arg)
        return Action(kind, {k: parse_selector(ctx, arg[k], screen, arg)
                             for k in ("from", "to", "template")})
    if kind == "launch":
        if isinstance(arg, dict):
            _check_keys(ctx, arg, ("package", "activity"), "launch", screen)
            return Action(kind, {"package": _str(ctx, arg.get("package"), "launch package",
                                                 screen, arg),
                                 "activity": arg.get("activity")})
        return Action(kind, {"package": _str(ctx, arg, "launch", screen, node), "activity": None})
    if kind == "view":
        return Action(kind, _str(ctx, arg, "view", screen, node))
    raise ctx.err(
        f"unknown action {kind!r} (known: {', '.join(sorted(set(_FLAG_ACTIONS + _ARG_ACTIONS)))})",
        screen=screen,
        node=node,
    )


def _parse_rule(ctx: _Ctx, spec: Any, screen: str) -> Rule:
    if not isinstance(spec, dict):
        raise ctx.err("each entry of 'on' is a mapping like {tap: <selector>, goto: <screen>}",
                      screen=screen, node=spec)
    triggers = [k for k in spec if k in _TRIGGERS]
    if len(triggers) != 1:
        raise ctx.err(
            f"a rule needs exactly one trigger ({', '.join(_TRIGGERS)}); got {triggers or 'none'}",
            screen=screen,
            node=spec,
        )
    trigger = triggers[0]
    selector: Selector | None = None
    direction: str | None = None
    if trigger == "swipe":
        direction = _str(ctx, spec[trigger], "swipe direction", screen, spec)
        if direction not in ("up", "down", "left", "right"):
            raise ctx.err("swipe direction is up, down, left or right", screen=screen, node=spec)
    else:
        selector = parse_selector(ctx, spec[trigger], screen, spec)
    actions: list[Action] = []
    for k, v in spec.items():
        if k == trigger:
            continue
        if k == "do":
            if not isinstance(v, list) or not v:
                raise ctx.err("'do' is a non-empty list of actions", screen=screen, node=spec)
            for item in v:
                if isinstance(item, str):
                    actions.append(_parse_action(ctx, item, None, screen, v))
                elif isinstance(item, dict) and len(item) == 1:
                    (ak, av), = item.items()
                    actions.append(_parse_action(ctx, str(ak), av, screen, item))
                else:
                    raise ctx.err("each item of 'do' is a verb or a one-key mapping",
                                  screen=screen, node=v)
        else:
            actions.append(_parse_action(ctx, str(k), v, screen, spec))
    if not actions:
        raise ctx.err(f"the {trigger} rule has no action", screen=screen, node=spec)
    return Rule(trigger, selector, actions, direction, _line(spec))


def _parse_filter(ctx: _Ctx, spec: Any, screen: str) -> FilterDef:
    _check_keys(ctx, spec, ("field", "list", "empty", "keywords", "no_results", "var"),
                "filter", screen)
    for k in ("field", "list"):
        if k not in spec:
            raise ctx.err(f"filter needs {k!r}", screen=screen, node=spec)
    empty = str(spec.get("empty", "all"))
    if empty not in ("all", "none"):
        raise ctx.err("filter 'empty' is 'all' or 'none'", screen=screen, node=spec)
    kw = spec.get("keywords") or {}
    if not isinstance(kw, dict):
        raise ctx.err("filter 'keywords' maps an item's label to extra words",
                      screen=screen, node=spec)
    return FilterDef(
        field=parse_selector(ctx, spec["field"], screen, spec),
        list=parse_selector(ctx, spec["list"], screen, spec),
        empty=empty,
        keywords={str(k): str(v) for k, v in kw.items()},
        no_results=(parse_selector(ctx, spec["no_results"], screen, spec)
                    if spec.get("no_results") is not None else None),
        var=str(spec.get("var", "query")),
    )


_SCREEN_KEYS = ("xml", "activity", "vars", "filter", "resize", "keyboard", "cancelable", "on",
                "system_bars")
_APP_KEYS = ("package", "label", "activity", "system", "version", "version_code", "start",
             "screens", "view", "launch_by_label")
_TOP_KEYS = ("scenario", "name", "device", "system_ui", "home", "start", "apps")


def _load_xml(ctx: _Ctx, base: Path, rel: str, screen: str, node: Any) -> tuple[Path, list[Node]]:
    p = Path(rel)
    if not p.is_absolute():
        p = base / p
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ctx.err(f"cannot read its XML {str(p)!r}: {e.strerror or e}", screen=screen,
                      node=node) from None
    try:
        windows, _rotation = parse_dump(data, origin=screen)
    except DumpError as e:
        raise ctx.err(f"{p.name} is not a uiautomator dump: {e}", screen=screen,
                      node=node) from None
    return p, windows


def _detach(windows: list[Node], target: Node) -> bool:
    for w in windows:
        for n in w.iter():
            if target in n.children:
                n.children.remove(target)
                return True
    return False


def load_scenario(path: str | Path) -> Scenario:
    """Read, check and return a scenario; raises :class:`ScenarioError`."""
    path = Path(path)
    ctx = _Ctx(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read the scenario: {e.strerror or e}") from None
    try:
        doc = YAML(typ="rt").load(text)
    except YAMLError as e:
        raise ScenarioError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(doc, dict):
        raise ScenarioError(f"{path}: a scenario is a YAML mapping with 'apps'")
    _check_keys(ctx, doc, _TOP_KEYS, "the scenario")
    if doc.get("scenario", 1) != 1:
        raise ctx.err(f"unsupported scenario format {doc.get('scenario')!r} (this is format 1)",
                      node=doc)
    base = path.parent

    dev = doc.get("device") or {}
    _check_keys(ctx, dev, ("width", "height", "density", "rotation", "utc_offset",
                           "dump_attributes"), "device")
    sui = doc.get("system_ui") or {}
    _check_keys(ctx, sui, ("status_bar", "nav_bar", "keyboard"), "system_ui")
    nav = str(sui.get("nav_bar", "buttons"))
    if nav not in ("buttons", "gesture", "none"):
        raise ctx.err("system_ui.nav_bar is buttons, gesture or none", node=sui)
    attrs_kind = str(dev.get("dump_attributes", "api26"))
    if attrs_kind not in ("api26", "standard"):
        raise ctx.err("device.dump_attributes is api26 or standard", node=dev)
    rotation = _int(ctx, dev.get("rotation", 0), "device.rotation", dev)
    if rotation not in (0, 1, 2, 3):
        raise ctx.err("device.rotation is 0, 1, 2 or 3", node=dev)

    scenario = Scenario(
        path=path,
        name=str(doc.get("name", path.stem)),
        width=0,
        height=0,
        density=_int(ctx, dev.get("density", 420), "device.density", dev),
        rotation=rotation,
        utc_offset=_int(ctx, dev.get("utc_offset", 0), "device.utc_offset", dev),
        extras=attrs_kind == "api26",
        status_bar=_bool(ctx, sui.get("status_bar", True), "system_ui.status_bar", node=sui),
        nav_bar=nav,
        keyboard=_bool(ctx, sui.get("keyboard", True), "system_ui.keyboard", node=sui),
        home=None,
        start=None,
    )

    apps_spec = doc.get("apps")
    if not isinstance(apps_spec, list) or not apps_spec:
        raise ctx.err("'apps' must be a non-empty list", node=doc)

    first_window: Node | None = None
    for aspec in apps_spec:
        _check_keys(ctx, aspec, _APP_KEYS, "an app")
        if "package" not in aspec:
            raise ctx.err("an app needs 'package'", node=aspec)
        pkg = _str(ctx, aspec["package"], "package", node=aspec)
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+", pkg):
            raise ctx.err(f"{pkg!r} is not a valid package name", node=aspec)
        if pkg in scenario.apps:
            raise ctx.err(f"package {pkg!r} is listed twice", node=aspec)
        act = aspec.get("activity")
        app = AppDef(
            package=pkg,
            label=_str(ctx, aspec.get("label", pkg.rsplit(".", 1)[-1].title()), "label",
                       node=aspec),
            activity=_qualify(pkg, _str(ctx, act, "activity", node=aspec)) if act else None,
            system=_bool(ctx, aspec.get("system", False), "system", node=aspec),
            version_name=str(aspec.get("version", "1.0")),
            version_code=_int(ctx, aspec.get("version_code", 1), "version_code", aspec),
            start=None,
            screens=[],
            views=[],
            launch_by_label=_bool(ctx, aspec.get("launch_by_label", True), "launch_by_label",
                                  node=aspec),
        )
        scenario.apps[pkg] = app
        screens = aspec.get("screens") or {}
        if not isinstance(screens, dict):
            raise ctx.err(f"app {pkg}: 'screens' is a mapping of name → screen", node=aspec)
        for sname, sspec in screens.items():
            sname = str(sname)
            if sname in scenario.screens:
                raise ctx.err("the screen name is used twice (names are global)", screen=sname,
                              node=screens)
            if isinstance(sspec, str):
                sspec = {"xml": sspec}
            _check_keys(ctx, sspec, _SCREEN_KEYS, "a screen", sname)
            if "xml" not in sspec:
                raise ctx.err("a screen needs 'xml' (a uiautomator dump file)", screen=sname,
                              node=sspec)
            xml_path, windows = _load_xml(ctx, base, _str(ctx, sspec["xml"], "xml", sname,
                                                          sspec), sname, sspec)
            if first_window is None:
                first_window = max(windows, key=lambda w: (w.bounds[2] - w.bounds[0])
                                   * (w.bounds[3] - w.bounds[1]))
            sact = sspec.get("activity")
            activity = (_qualify(pkg, _str(ctx, sact, "activity", sname, sspec)) if sact
                        else app.activity or f"{pkg}.MainActivity")
            vars_ = sspec.get("vars") or {}
            if not isinstance(vars_, dict):
                raise ctx.err("'vars' is a mapping", screen=sname, node=sspec)
            filters_spec = sspec.get("filter")
            if filters_spec is None:
                filters_spec = []
            elif isinstance(filters_spec, dict):
                filters_spec = [filters_spec]
            resize = sspec.get("resize")
            sb = sspec.get("system_bars", "auto")
            sb = {True: "on", False: "off"}.get(sb, sb) if isinstance(sb, bool) else str(sb)
            if sb not in ("auto", "on", "off"):
                raise ctx.err("system_bars is auto, true or false", screen=sname, node=sspec)
            rules_spec = sspec.get("on") or []
            if not isinstance(rules_spec, list):
                raise ctx.err("'on' is a list of rules", screen=sname, node=sspec)
            sd = ScreenDef(
                name=sname,
                package=pkg,
                activity=activity,
                xml_path=xml_path,
                windows=windows,
                rules=[_parse_rule(ctx, r, sname) for r in rules_spec],
                filters=[_parse_filter(ctx, f, sname) for f in filters_spec],
                vars={str(k): str(v) for k, v in vars_.items()},
                templates=[],
                resize=(parse_selector(ctx, resize, sname, sspec)
                        if resize not in (None, False) else None),
                resize_off=resize is False,
                keyboard=_bool(ctx, sspec.get("keyboard", True), "keyboard", sname, sspec),
                cancelable=_bool(ctx, sspec.get("cancelable", True), "cancelable", sname, sspec),
                system_bars=sb,
            )
            scenario.screens[sname] = sd
            app.screens.append(sname)
        start = aspec.get("start")
        if start is not None:
            app.start = _str(ctx, start, "start", node=aspec)
        elif app.screens:
            app.start = app.screens[0]
        vspecs = aspec.get("view") or []
        if isinstance(vspecs, dict):
            vspecs = [vspecs]
        for v in vspecs:
            _check_keys(ctx, v, ("schemes", "screen", "vars"), f"app {pkg} view")
            schemes = v.get("schemes")
            if isinstance(schemes, str):
                schemes = [schemes]
            if not schemes or "screen" not in v:
                raise ctx.err(f"app {pkg}: a view entry needs 'schemes' and 'screen'", node=v)
            app.views.append(ViewDef([str(s).lower() for s in schemes], str(v["screen"]),
                                     {str(k): str(x) for k, x in (v.get("vars") or {}).items()}))

    # device size: given, or taken from the first screen's window
    if "width" in dev or "height" in dev:
        scenario.width = _int(ctx, dev.get("width", 1080), "device.width", dev)
        scenario.height = _int(ctx, dev.get("height", 2400), "device.height", dev)
    elif first_window is not None and first_window.bounds[2] > 0 and first_window.bounds[3] > 0:
        scenario.width, scenario.height = first_window.bounds[2], first_window.bounds[3]
    else:
        scenario.width, scenario.height = 1080, 2400
    if scenario.width < 100 or scenario.height < 100:
        raise ctx.err("the device must be at least 100x100", node=dev)

    home = doc.get("home")
    if home is not None:
        home = _str(ctx, home, "home", node=doc)
        if home not in scenario.apps:
            raise ctx.err(f"home app {home!r} is not among the apps", node=doc)
        if not scenario.apps[home].start:
            raise ctx.err(f"home app {home!r} has no screens", node=doc)
        scenario.home = home
    start_at = doc.get("start")
    if start_at is not None:
        start_at = _str(ctx, start_at, "start", node=doc)
        if start_at not in scenario.apps and start_at not in scenario.screens:
            raise ctx.err(f"start {start_at!r} is neither a package nor a screen", node=doc)
        scenario.start = start_at

    _validate(ctx, scenario)
    return scenario


def _validate(ctx: _Ctx, sc: Scenario) -> None:
    """Cross-references: screens named by rules exist, selectors match something."""
    for app in sc.apps.values():
        if app.start is not None and app.start not in sc.screens:
            raise ctx.err(f"app {app.package}: start screen {app.start!r} does not exist")
        for v in app.views:
            if v.screen not in sc.screens:
                raise ctx.err(f"app {app.package}: view screen {v.screen!r} does not exist")

    def need_screen(name: str, owner: str, line: int) -> None:
        if name not in sc.screens:
            known = ", ".join(sorted(sc.screens)[:12])
            raise ScenarioError(
                f"{ctx.path}:{line}: screen {owner!r}: unknown screen {name!r} "
                f"(known: {known}{', …' if len(sc.screens) > 12 else ''})"
                if line else
                f"{ctx.path}: screen {owner!r}: unknown screen {name!r} (known: {known})"
            )

    def need_match(sel: Selector, sd: ScreenDef, line: int, what: str,
                   pool: list[Node] | None = None) -> list[Node]:
        found = sel.find(pool if pool is not None else sd.windows + sd.templates)
        if not found:
            loc = f"{ctx.path}:{line}" if line else str(ctx.path)
            raise ScenarioError(
                f"{loc}: screen {sd.name!r}: {what} {sel} matches no node of {sd.xml_path.name}"
            )
        return found

    for sd in sc.screens.values():
        # send templates are detached first so the rest of the screen never shows them
        for rule in sd.rules:
            for a in rule.actions:
                if a.kind == "send":
                    tsel: Selector = a.arg["template"]
                    found = tsel.find(sd.windows)
                    if found:
                        node = found[0]
                        if any(node is w for w in sd.windows):
                            raise ctx.err("a send template cannot be a whole window",
                                          screen=sd.name)
                        _detach(sd.windows, node)
                        sd.templates.append(node)
                    elif not tsel.find(sd.templates):
                        need_match(tsel, sd, rule.line, "send template")
        for f in sd.filters:
            fields = need_match(f.field, sd, 0, "filter field", sd.windows)
            if not any(n.editable for n in fields):
                raise ctx.err(f"filter field {f.field} is not an editable field",
                              screen=sd.name)
            need_match(f.list, sd, 0, "filter list", sd.windows)
            if f.no_results is not None:
                need_match(f.no_results, sd, 0, "filter no_results", sd.windows)
        if sd.resize is not None:
            need_match(sd.resize, sd, 0, "resize", sd.windows)
        for rule in sd.rules:
            if rule.selector is not None:
                found = need_match(rule.selector, sd, rule.line, f"{rule.trigger} selector")
                if rule.trigger == "enter" and not any(
                    n.editable or is_editable_class(n.cls) for n in found
                ):
                    raise ScenarioError(
                        f"{ctx.path}:{rule.line}: screen {sd.name!r}: enter selector "
                        f"{rule.selector} matches no editable field"
                    )
            current: ScreenDef | None = sd
            for a in rule.actions:
                if a.kind in ("goto", "replace"):
                    need_screen(a.arg["screen"], sd.name, rule.line)
                    current = sc.screens[a.arg["screen"]]
                elif a.kind in ("back_to", "dialog", "panel"):
                    need_screen(a.arg, sd.name, rule.line)
                    current = sc.screens[a.arg] if a.kind != "panel" else current
                elif a.kind == "launch":
                    if a.arg["package"] not in sc.apps:
                        raise ScenarioError(
                            f"{ctx.path}:{rule.line}: screen {sd.name!r}: launch of unknown "
                            f"package {a.arg['package']!r}"
                        )
                    current = None
                elif a.kind in _NAV_ACTIONS:
                    current = None
                elif a.kind in ("toggle", "clear", "focus") and isinstance(a.arg, Selector):
                    if current is not None:
                        need_match(a.arg, current, rule.line, a.kind + " target")
                elif a.kind == "set_text" and a.arg["target"] is not None and current is not None:
                    need_match(a.arg["target"], current, rule.line, "set_text target")
                elif a.kind == "send" and current is not None:
                    need_match(a.arg["from"], current, rule.line, "send from", current.windows)
                    need_match(a.arg["to"], current, rule.line, "send to", current.windows)
