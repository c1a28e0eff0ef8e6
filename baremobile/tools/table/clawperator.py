"""clawperator's words for our tools (its MCP server's tools and ``execute`` actions), so a
clawperator client works against ours unchanged — accepted at every door, never shown in
our menu (:mod:`baremobile.tools.aliases`).

Its tools: ``click`` (a selector or a ``coordinate``; ``clickType`` long_click, focus),
``open`` (``appId`` or ``uri``), ``wait`` with a ``selector`` (it waits for the element:
ours, with ``seconds``, sleeps), ``execute`` with ``actions: [{id, type, params}]`` (each
action type, and its aliases, a call of ours), and camelCase parameters on every tool
(``timeoutMs``, ``maxChars``, ``clickAfter``, ``deviceId``, ``validatorPattern``:
:data:`baremobile.tools.aliases.PARAMETERS`). Its selector keys (``textEquals``,
``contentDescContains``, ``resourceId`` …) are the Selector's own aliases. ``type`` replaces
what the field holds, as ours does; its ``clear`` flag is accepted.
"""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools.aliases import Alias, Args

__all__ = ["ALIASES"]

SYSTEM = "clawperator"
#: every clawperator tool may name its on-device operator app: we have none (ADB alone)
_OPERATOR = ("operatorPackage",)


def _point_or_selector(a: Args, selector_key: str = "selector") -> Args:
    out: Args = {}
    if "coordinate" in a:
        point = a["coordinate"]
        if not isinstance(point, dict) or set(point) - {"x", "y"}:
            raise InvalidArgument("coordinate is {x, y}")
        out.update(x=point.get("x"), y=point.get("y"))
    if selector_key in a:
        out["selector"] = a[selector_key]
    if ("selector" in out) == ("x" in out):
        raise InvalidArgument("give exactly one of selector and coordinate")
    return out


def _click_tool(a: Args) -> str:
    kind = a.get("clickType", "default")
    if kind not in ("default", "long_click", "focus"):
        raise InvalidArgument(f"clickType is default, long_click or focus, not {kind!r}")
    return "long_press" if kind == "long_click" else "tap"


def _click(a: Args) -> Args:
    if a.get("clickType") == "focus" and "coordinate" in a:
        raise InvalidArgument("clickType focus takes a selector, not a coordinate")
    return {**_point_or_selector(a), **_rest(a, "selector", "coordinate", "clickType")}


def _rest(a: Args, *used: str) -> Args:
    return {k: v for k, v in a.items() if k not in used}


def _open_tool(a: Args) -> str:
    if ("appId" in a) == ("uri" in a):
        raise InvalidArgument("give exactly one of appId and uri")
    return "launch" if "appId" in a else "open_url"


def _open(a: Args) -> Args:
    if "appId" in a:
        return {"package": a["appId"], **_rest(a, "appId")}
    return dict(a)


# -- execute: actions → our steps ---------------------------------------------------------

#: clawperator's other names for its action types (case-insensitive)
_ACTION_ALIASES = {
    "open_url": "open_uri", "tap": "click", "press": "click", "wait_for": "wait_for_node",
    "find": "wait_for_node", "find_node": "wait_for_node", "read": "read_text",
    "snapshot": "snapshot_ui", "screenshot": "take_screenshot",
    "capture_screenshot": "take_screenshot", "type_text": "enter_text",
    "text_entry": "enter_text", "input_text": "enter_text", "key_press": "press_key",
}


def _matcher(p: Args, key: str = "matcher") -> Args:
    m = p.get(key)
    if not isinstance(m, dict) or not m:
        raise InvalidArgument(f"{key} is an object naming the element (textEquals, "
                              "textContains, contentDescEquals, resourceId, role …)")
    return dict(m)


def _container(p: Args, out: Args) -> Args:
    if "container" in p:
        out["container"] = _matcher(p, "container")
    return out


def _step(action: Any) -> Args:
    """One clawperator action as one of our tool calls ``{tool, args}``."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise InvalidArgument("each action is {id, type, params}")
    kind = action["type"].strip().lower()
    kind = _ACTION_ALIASES.get(kind, kind)
    p = action.get("params") or {}
    if not isinstance(p, dict):
        raise InvalidArgument(f"action {action.get('id')!r}: params is an object")
    if kind == "open_app":
        return {"tool": "launch", "args": {"package": p.get("applicationId")}}
    if kind == "open_uri":
        return {"tool": "open_url", "args": {"uri": p.get("uri")}}
    if kind == "close_app":
        return {"tool": "stop_app", "args": {"package": p.get("applicationId")}}
    if kind == "click":
        target = {"coordinate": p["coordinate"]} if "coordinate" in p else \
            {"selector": _matcher(p)}
        target["clickType"] = p.get("clickType", "default")
        return {"tool": _click_tool(target), "args": _click(target)}
    if kind == "scroll":
        args: Args = {"direction": p.get("direction", "down")}
        if "container" in p:
            args["selector"] = _matcher(p, "container")
        if "distanceRatio" in p:
            args["amount"] = p["distanceRatio"]
        return {"tool": "scroll", "args": args}
    if kind in ("scroll_until", "scroll_and_click"):
        args = {"selector": _matcher(p), "direction": p.get("direction", "down"),
                "click_after": bool(p.get("clickAfter", kind == "scroll_and_click"))}
        if "maxScrolls" in p or "maxSwipes" in p:
            args["max_swipes"] = p.get("maxScrolls", p.get("maxSwipes"))
        return {"tool": "scroll_until", "args": _container(p, args)}
    if kind == "read_text":
        args = {"selector": _matcher(p), "all": bool(p.get("all", False))}
        if p.get("validator") == "regex":
            args["regex"] = p.get("validatorPattern")
        return {"tool": "read", "args": _container(p, args)}
    if kind == "enter_text":
        return {"tool": "type", "args": {"selector": _matcher(p), "text": p.get("text"),
                                         "submit": bool(p.get("submit", False))}}
    if kind == "press_key":
        return {"tool": "press", "args": {"key": p.get("key")}}
    if kind == "wait_for_node":
        args = {"selector": _matcher(p)}
        if "timeoutMs" in p:
            args["timeout"] = p["timeoutMs"] / 1000 if isinstance(
                p["timeoutMs"], (int, float)) else p["timeoutMs"]
        return {"tool": "wait_for", "args": args}
    if kind == "snapshot_ui":
        return {"tool": "snapshot", "args": {}}
    if kind == "take_screenshot":
        if "path" in p:
            raise InvalidArgument("take_screenshot's path is refused: the image comes back "
                                  "in the answer")
        return {"tool": "screenshot", "args": {}}
    if kind == "sleep":
        ms = p.get("durationMs")
        return {"tool": "wait", "args": {"seconds": ms / 1000 if isinstance(
            ms, (int, float)) else ms}}
    raise InvalidArgument(f"Unsupported action type: {action['type']}",
                          hint="clawperator's action types: open_app, open_uri, close_app, "
                               "click, scroll, scroll_until, scroll_and_click, read_text, "
                               "enter_text, press_key, wait_for_node, snapshot_ui, "
                               "take_screenshot, sleep")


def _execute(a: Args) -> Args:
    actions = a.get("actions")
    if not isinstance(actions, list) or not actions:
        raise InvalidArgument("actions is a list of {id, type, params}")
    out: Args = {"steps": [_step(x) for x in actions]}
    if "timeoutMs" in a:
        out["timeoutMs"] = a["timeoutMs"]
    return out


def _execute_result(result: dict[str, Any], a: Args) -> dict[str, Any]:
    """clawperator's envelope: each action's id, type and success."""
    steps = result.get("steps") or []
    actions = a.get("actions") or []
    results = []
    for i, action in enumerate(actions):
        done = next((s for s in steps if s.get("step") == i), None)
        results.append({"id": action.get("id") if isinstance(action, dict) else None,
                        "actionType": action.get("type") if isinstance(action, dict) else None,
                        "success": bool(done and done.get("ok"))})
    ok = bool(result.get("ok")) and all(r["success"] for r in results)
    return {**result, "envelope": {"status": "success" if ok else "failed",
                                   "stepResults": results}}


ALIASES = (
    Alias("click", SYSTEM, _click_tool, _click, ignored=_OPERATOR),
    Alias("open", SYSTEM, _open_tool, _open, ignored=_OPERATOR),
    Alias("wait", SYSTEM, "wait_for", lambda a: dict(a), ignored=_OPERATOR,
          when=lambda a: "selector" in a and "seconds" not in a),
    Alias("execute", SYSTEM, "execute", _execute, _execute_result, ignored=_OPERATOR,
          when=lambda a: "actions" in a and "steps" not in a, adds=True),
    Alias("configure", SYSTEM, "configure", lambda a: dict(a), ignored=_OPERATOR,
          when=lambda a: "operatorPackage" in a),
)
