"""Reading the rule vocabulary of a scenario: selectors, triggers, actions and filters, with
the small typed readers every part of the loader shares."""

from __future__ import annotations

from typing import Any

from .definitions import (
    SELECTOR_KEYS,
    Action,
    FilterDef,
    Rule,
    Selector,
    Where,
    ZoomDef,
    line_of,
)

__all__ = [
    "TRIGGERS", "RECORDED_TRIGGERS", "NAV_ACTIONS", "check_keys", "as_str", "as_int", "as_bool",
    "parse_selector", "qualify", "parse_action", "parse_rule", "parse_filter", "parse_zoom",
]

TRIGGERS = ("tap", "double_tap", "long_press", "enter", "swipe", "broadcast")
#: the triggers only a recorded scenario has (``recorded: true``; made from a trace)
RECORDED_TRIGGERS = ("type", "key", "launched", "opened", "drag", "pinch", "gesture", "intent")
#: recorded triggers whose value is a selector (the element touched)
_RECORDED_SELECTORS = ("drag", "pinch")
#: what a recorded rule may say besides its trigger and actions
_RECORDED_OPTIONS = {"type": ("into", "submit"), "swipe": ("from",), "drag": ("to",),
                     "pinch": ("scale",)}
#: what a recorded intent is matched by
INTENT_FIELDS = ("action", "data", "component", "package", "categories")
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
    "zoom",
    "remove",
)
NAV_ACTIONS = ("goto", "replace", "back_to", "back", "home", "recents", "dismiss", "launch",
                "view")


def check_keys(ctx: Where, m: Any, allowed: tuple[str, ...], what: str,
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


def as_str(ctx: Where, v: Any, what: str, screen: str | None = None, node: Any = None) -> str:
    if isinstance(v, bool) or v is None or isinstance(v, (dict, list)):
        raise ctx.err(f"{what} must be a string", screen=screen, node=node)
    return str(v)


def as_int(ctx: Where, v: Any, what: str, node: Any = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.err(f"{what} must be an integer", node=node)
    return v


def as_bool(ctx: Where, v: Any, what: str, screen: str | None = None, node: Any = None) -> bool:
    if not isinstance(v, bool):
        raise ctx.err(f"{what} must be true or false", screen=screen, node=node)
    return v


def parse_selector(ctx: Where, spec: Any, screen: str | None, node: Any = None) -> Selector:
    """A selector from YAML: a string (text or desc) or a mapping of keys."""
    if isinstance(spec, str):
        return Selector(label=spec)
    if not isinstance(spec, dict) or not spec:
        raise ctx.err(
            "a selector is a string (text or content-desc) or a mapping with "
            f"{', '.join(SELECTOR_KEYS)}",
            screen=screen,
            node=node if spec is None else spec,
        )
    check_keys(ctx, spec, SELECTOR_KEYS, "selector", screen)
    kw = {("cls" if k == "class" else k): as_str(ctx, v, f"selector key {k!r}", screen, spec)
          for k, v in spec.items()}
    return Selector(**kw)


def qualify(package: str, activity: str) -> str:
    if activity.startswith("."):
        return package + activity
    if "." not in activity:
        return f"{package}.{activity}"
    return activity


def screen_ref(ctx: Where, v: Any, what: str, screen: str, node: Any) -> dict[str, Any]:
    if isinstance(v, str):
        return {"screen": v, "vars": {}}
    if isinstance(v, dict):
        check_keys(ctx, v, ("screen", "vars"), what, screen)
        if "screen" not in v:
            raise ctx.err(f"{what} needs 'screen'", screen=screen, node=v)
        vars_ = v.get("vars") or {}
        if not isinstance(vars_, dict):
            raise ctx.err(f"{what} vars must be a mapping", screen=screen, node=v)
        return {
            "screen": as_str(ctx, v["screen"], f"{what} screen", screen, v),
            "vars": {str(k): as_str(ctx, x, f"var {k!r}", screen, v) for k, x in vars_.items()},
        }
    raise ctx.err(f"{what} takes a screen name or {{screen, vars}}", screen=screen, node=node)


def parse_action(ctx: Where, kind: str, arg: Any, screen: str, node: Any) -> Action:
    if kind in ("back", "home", "recents", "dismiss", "close_panel"):
        if arg not in (None, True):
            raise ctx.err(f"{kind!r} takes no argument", screen=screen, node=node)
        return Action(kind)
    if kind in ("goto", "replace"):
        return Action(kind, screen_ref(ctx, arg, kind, screen, node))
    if kind in ("back_to", "dialog", "panel"):
        return Action(kind, as_str(ctx, arg, f"{kind!r}", screen, node))
    if kind in ("toggle", "clear", "focus"):
        if arg in (None, True) and kind != "focus":
            return Action(kind, None)
        return Action(kind, parse_selector(ctx, arg, screen, node))
    if kind == "set_text":
        if isinstance(arg, dict):
            check_keys(ctx, arg, ("target", "text"), "set_text", screen)
            if "text" not in arg:
                raise ctx.err("set_text needs 'text'", screen=screen, node=arg)
            target = parse_selector(ctx, arg["target"], screen, arg) if "target" in arg else None
            return Action(kind, {"target": target,
                                 "text": as_str(ctx, arg["text"], "set_text text", screen, arg)})
        return Action(kind, {"target": None, "text": as_str(ctx, arg, "set_text", screen, node)})
    if kind == "insert":
        return Action(kind, as_str(ctx, arg, "insert", screen, node))
    if kind == "send":
        check_keys(ctx, arg, ("from", "to", "template"), "send", screen)
        for k in ("from", "to", "template"):
            if k not in arg:
                raise ctx.err(f"send needs {k!r}", screen=screen, node=arg)
        return Action(kind, {k: parse_selector(ctx, arg[k], screen, arg)
                             for k in ("from", "to", "template")})
    if kind == "launch":
        if isinstance(arg, dict):
            check_keys(ctx, arg, ("package", "activity"), "launch", screen)
            return Action(kind, {"package": as_str(ctx, arg.get("package"), "launch package",
                                                 screen, arg),
                                 "activity": arg.get("activity")})
        return Action(kind, {"package": as_str(ctx, arg, "launch", screen, node), "activity": None})
    if kind == "view":
        return Action(kind, as_str(ctx, arg, "view", screen, node))
    if kind == "remove":  # the app takes a node (a list's row) off its screen
        return Action(kind, parse_selector(ctx, arg, screen, node))
    if kind == "zoom":  # multiply the screen's zoom by a factor, or "reset" it
        if arg == "reset":
            return Action(kind, None)
        if isinstance(arg, bool) or not isinstance(arg, (int, float)) or arg <= 0:
            raise ctx.err("zoom takes a factor > 0 (2 doubles the scale) or 'reset'",
                          screen=screen, node=node)
        return Action(kind, float(arg))
    raise ctx.err(
        f"unknown action {kind!r} (known: {', '.join(sorted(set(_FLAG_ACTIONS + _ARG_ACTIONS)))})",
        screen=screen,
        node=node,
    )


def _recorded_trigger(ctx: Where, trigger: str, value: Any, screen: str,
                      spec: Any) -> dict[str, Any]:
    """The options of a recorded scenario's own triggers (``type``, ``key``, ``launched``,
    ``opened``)."""
    if trigger == "type":
        return {"text": as_str(ctx, value, "type (the text typed)", screen, spec)}
    if trigger == "key":
        from baremobile.virtual.commands.input import keycode_from_string

        code = keycode_from_string(str(value).upper()) if not isinstance(value, bool) else 0
        if code == 0:
            raise ctx.err(f"key {value!r} is not a key name or code (BACK, HOME, ENTER, 4 …)",
                          screen=screen, node=spec)
        return {"key": code}
    if trigger == "launched":
        return {"package": as_str(ctx, value, "launched (a package)", screen, spec)}
    if trigger == "gesture":
        return {"paths": _paths(ctx, value, screen, spec)}
    if trigger == "intent":
        check_keys(ctx, value, INTENT_FIELDS, "intent", screen)
        out: dict[str, Any] = {}
        for k, v in value.items():
            if k == "categories":
                if not isinstance(v, list) or not all(isinstance(c, str) for c in v):
                    raise ctx.err("intent categories is a list of strings", screen=screen,
                                  node=spec)
                out[k] = sorted(v)
            else:
                out[k] = as_str(ctx, v, f"intent {k}", screen, spec)
        return {"intent": out}
    return {"uri": as_str(ctx, value, "opened (a URI)", screen, spec)}


def _paths(ctx: Where, value: Any, screen: str, spec: Any) -> list[list[tuple[float, ...]]]:
    """A recorded gesture's fingers: 1–10 lists of at least two ``[ms, x, y]``."""
    def point(p: Any) -> tuple[float, ...] | None:
        if isinstance(p, list) and len(p) == 3 and all(
                isinstance(c, (int, float)) and not isinstance(c, bool) for c in p):
            return tuple(float(c) for c in p)
        return None

    if isinstance(value, list) and 1 <= len(value) <= 10:
        fingers = [[point(p) for p in f] if isinstance(f, list) else [None] for f in value]
        if all(len(f) >= 2 and None not in f for f in fingers):
            return fingers  # type: ignore[return-value]
    raise ctx.err("gesture is a list of 1-10 fingers, each a list of at least two "
                  "[ms, x, y] points", screen=screen, node=spec)


def parse_rule(ctx: Where, spec: Any, screen: str, *, recorded: bool = False) -> Rule:
    """One entry of a screen's ``on``; ``recorded`` scenarios have more triggers."""
    if not isinstance(spec, dict):
        raise ctx.err("each entry of 'on' is a mapping like {tap: <selector>, goto: <screen>}",
                      screen=screen, node=spec)
    known = TRIGGERS + RECORDED_TRIGGERS if recorded else TRIGGERS
    triggers = [k for k in spec if k in known]
    if len(triggers) != 1:
        raise ctx.err(
            f"a rule needs exactly one trigger ({', '.join(known)}); got {triggers or 'none'}",
            screen=screen,
            node=spec,
        )
    trigger = triggers[0]
    selector: Selector | None = None
    direction: str | None = None
    options: dict[str, Any] = {}
    if trigger == "swipe":
        direction = as_str(ctx, spec[trigger], "swipe direction", screen, spec)
        if direction not in ("up", "down", "left", "right"):
            raise ctx.err("swipe direction is up, down, left or right", screen=screen, node=spec)
    elif trigger == "broadcast":  # an intent's action the screen's receiver listens for
        options = {"action": as_str(ctx, spec[trigger], "broadcast (an intent action)",
                                    screen, spec)}
    elif trigger in _RECORDED_SELECTORS:
        selector = parse_selector(ctx, spec[trigger], screen, spec)
    elif trigger in RECORDED_TRIGGERS:
        options = _recorded_trigger(ctx, trigger, spec[trigger], screen, spec)
    else:
        selector = parse_selector(ctx, spec[trigger], screen, spec)
    extra = _RECORDED_OPTIONS.get(trigger, ()) if recorded else ()
    for k in extra:
        if k in spec:
            v = spec[k]
            if k == "submit":
                options[k] = as_bool(ctx, v, f"{trigger} {k}", screen, spec)
            elif k == "scale":
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                    raise ctx.err("pinch scale is a number > 0", screen=screen, node=spec)
                options[k] = float(v)
            else:
                options[k] = parse_selector(ctx, v, screen, spec)
    actions: list[Action] = []
    for k, v in spec.items():
        if k == trigger or k in extra:
            continue
        if k == "do":
            if not isinstance(v, list) or not v:
                raise ctx.err("'do' is a non-empty list of actions", screen=screen, node=spec)
            for item in v:
                if isinstance(item, str):
                    actions.append(parse_action(ctx, item, None, screen, v))
                elif isinstance(item, dict) and len(item) == 1:
                    (ak, av), = item.items()
                    actions.append(parse_action(ctx, str(ak), av, screen, item))
                else:
                    raise ctx.err("each item of 'do' is a verb or a one-key mapping",
                                  screen=screen, node=v)
        else:
            actions.append(parse_action(ctx, str(k), v, screen, spec))
    if not actions:
        raise ctx.err(f"the {trigger} rule has no action", screen=screen, node=spec)
    return Rule(trigger, selector, actions, direction, line_of(spec), options)


def parse_zoom(ctx: Where, spec: Any, screen: str) -> ZoomDef:
    """``zoom: {node: <selector>, var: zoom, min: 1, max: 8}`` (or just a selector)."""
    if not isinstance(spec, dict) or "node" not in spec:
        spec = {"node": spec}
    check_keys(ctx, spec, ("node", "var", "min", "max"), "zoom", screen)
    lo, hi = spec.get("min", 1.0), spec.get("max", 8.0)
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            raise ctx.err("zoom min and max are numbers > 0", screen=screen, node=spec)
    if lo > hi:
        raise ctx.err("zoom min is larger than its max", screen=screen, node=spec)
    return ZoomDef(parse_selector(ctx, spec["node"], screen, spec),
                   as_str(ctx, spec.get("var", "zoom"), "zoom var", screen, spec),
                   float(lo), float(hi))


def parse_filter(ctx: Where, spec: Any, screen: str) -> FilterDef:
    check_keys(ctx, spec, ("field", "list", "empty", "keywords", "no_results", "var"),
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
