"""clawperator's words for our tools (its MCP server's tools and ``execute`` actions), so a
clawperator client works against ours unchanged (:mod:`baremobile.tools.aliases`).

Its tools: ``click`` (a selector or a ``coordinate``; ``clickType`` long_click, focus),
``open`` (``appId`` or ``uri``), ``wait`` with a ``selector`` (it waits for the element:
ours, with ``seconds``, sleeps), ``execute`` with ``actions: [{id, type, params}]`` (each
action type, and its aliases, a call of ours), and camelCase parameters on every tool
(``timeoutMs``, ``maxChars``, ``clickAfter``, ``deviceId``, ``validatorPattern``:
:data:`baremobile.tools.aliases.PARAMETERS`). Its selector keys (``textEquals``,
``contentDescContains``, ``resourceId`` …) are the Selector's own aliases. ``type`` replaces
what the field holds, as ours does; its ``clear`` flag is accepted. These are accepted at
every door, never shown in our menu.

**Its door** (``baremobile mcp --vocabulary clawperator``) speaks clawperator throughout:
``tools/list`` lists its eleven tools (:data:`ALIASES`, their schemas as its document
gives them), and its names are its own there — ``snapshot`` is the hierarchy as XML
(``maxChars`` cuts it, ``truncated`` says so), ``read`` answers the text (a JSON string, or
an array with ``all``), ``devices`` its ``{devices: [{serial, state}]}``, acting tools its
execution payload (``deviceId``, ``terminalSource``, ``envelope`` with one step per action).
Every success is JSON in the text with the same object as ``structuredContent``
(:func:`render`); a failure is ``isError`` with ``{code, message, hint}`` — an invalid
``execute`` payload ``EXECUTION_VALIDATION_FAILED`` —, while arguments its MCP boundary
refuses (a ``timeoutMs`` outside 1000–120000, a blank ``deviceId`` or
``operatorPackage``) are JSON-RPC ``InvalidParams`` errors, an unknown tool
``MethodNotFound``. ``operatorPackage`` (its on-device operator app) is checked and
ignored: baremobile needs no app on the phone.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools.aliases import Alias, Args

__all__ = ["ALIASES", "GROUPS", "render"]

SYSTEM = "clawperator"
#: every clawperator tool may name its on-device operator app: we have none (ADB alone)
_OPERATOR = ("operatorPackage",)
#: the groups of the rows its tools run (its door enables them): snapshot's XML, execute,
#: its close_app action
GROUPS = ("inspect", "batch", "apps")
#: its execution timeouts, in milliseconds (``LIMITS`` in its contracts)
_TIMEOUT_MS = (1000, 120_000)


def _options(a: Args, *, keep_timeout: bool = False) -> Args:
    """``a`` with its common options checked as its MCP boundary checks them (a blank
    ``deviceId`` or ``operatorPackage``, a ``timeoutMs`` out of bounds: refused) and
    ``operatorPackage`` dropped; ``timeoutMs`` too, for a tool that has no wait of its own
    (ours bounds each device command itself)."""
    out = dict(a)
    for key in ("deviceId", "operatorPackage"):
        if key in out and (not isinstance(out[key], str) or not out[key].strip()):
            raise InvalidArgument(f"{key} must not be blank")
    out.pop("operatorPackage", None)
    if "timeoutMs" in out:
        ms = out["timeoutMs"]
        lo, hi = _TIMEOUT_MS
        if isinstance(ms, bool) or not isinstance(ms, int) or not lo <= ms <= hi:
            raise InvalidArgument(f"timeoutMs must be an integer from {lo} to {hi}, "
                                  f"not {ms!r}")
        if not keep_timeout:
            del out["timeoutMs"]
    return out


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
    a = _options(a)
    return {**_point_or_selector(a), **_rest(a, "selector", "coordinate", "clickType")}


def _rest(a: Args, *used: str) -> Args:
    return {k: v for k, v in a.items() if k not in used}


def _open_tool(a: Args) -> str:
    if ("appId" in a) == ("uri" in a):
        raise InvalidArgument("give exactly one of appId and uri")
    return "launch" if "appId" in a else "open_url"


def _open(a: Args) -> Args:
    a = _options(a)
    if "appId" in a:
        return {"package": a["appId"], **_rest(a, "appId")}
    return a


# -- execute: actions → our steps ---------------------------------------------------------

#: clawperator's other names for its action types (case-insensitive)
_ACTION_ALIASES = {
    "open_url": "open_uri", "tap": "click", "press": "click", "wait_for": "wait_for_node",
    "find": "wait_for_node", "find_node": "wait_for_node", "read": "read_text",
    "snapshot": "snapshot_ui", "screenshot": "take_screenshot",
    "capture_screenshot": "take_screenshot", "type_text": "enter_text",
    "text_entry": "enter_text", "input_text": "enter_text", "key_press": "press_key",
}


def _invalid(message: str, hint: str | None = None) -> InvalidArgument:
    """An invalid action payload: its answer carries clawperator's code for it beside ours
    (``execute`` at its door answers ``EXECUTION_VALIDATION_FAILED``, :func:`render`)."""
    exc = InvalidArgument(message, hint=hint)
    exc.data = {"clawperator_code": "EXECUTION_VALIDATION_FAILED"}
    return exc


def _matcher(p: Args, key: str = "matcher") -> Args:
    m = p.get(key)
    if not isinstance(m, dict) or not m:
        raise _invalid(f"{key} is an object naming the element (textEquals, "
                       "textContains, contentDescEquals, resourceId, role …)")
    return dict(m)


def _container(p: Args, out: Args) -> Args:
    if "container" in p:
        out["container"] = _matcher(p, "container")
    return out


def _step(action: Any) -> Args:
    """One clawperator action as one of our tool calls ``{tool, args}``."""
    kind = action["type"].strip().lower()
    kind = _ACTION_ALIASES.get(kind, kind)
    p = action.get("params") or {}
    if not isinstance(p, dict):
        raise _invalid(f"action {action.get('id')!r}: params is an object")
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
            raise _invalid("take_screenshot's path is refused: the image comes back in the "
                           "answer")
        return {"tool": "screenshot", "args": {}}
    if kind == "sleep":
        ms = p.get("durationMs")
        return {"tool": "wait", "args": {"seconds": ms / 1000 if isinstance(
            ms, (int, float)) else ms}}
    raise _invalid(f"Unsupported action type: {action['type']}",
                   hint="clawperator's action types: open_app, open_uri, close_app, click, "
                        "scroll, scroll_until, scroll_and_click, read_text, enter_text, "
                        "press_key, wait_for_node, snapshot_ui, take_screenshot, sleep")


def _execute(a: Args) -> Args:
    a = _options(a, keep_timeout=True)
    actions = a.get("actions")
    if not isinstance(actions, list) or not actions or not all(
            isinstance(x, dict) and isinstance(x.get("id"), str) and x["id"]
            and isinstance(x.get("type"), str) and x["type"] for x in actions):
        raise InvalidArgument("actions is a non-empty list of {id, type, params}: each "
                              "action needs its id and type")
    out: Args = {"steps": [_step(x) for x in actions]}
    for key in ("timeoutMs", "deviceId"):
        if key in a:
            out[key] = a[key]
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
    return {**result, "deviceId": result.get("device"), "terminalSource": _SOURCE,
            "envelope": {**_ids(), "status": "success" if ok else "failed",
                         "stepResults": results}}


# -- its door: its payloads, its tool list, its way of answering ----------------------------

#: where an answer came from, in its payloads
_SOURCE = "clawperator_result"


def _ids() -> dict[str, str]:
    return {"commandId": str(uuid.uuid4()), "taskId": str(uuid.uuid4())}


def _payload(ours: dict[str, Any], data: Any) -> dict[str, Any]:
    """An answer whose ``payload`` is clawperator's (:func:`render` sends it as it is)."""
    return {"ok": True, "tool": ours.get("tool"), "payload": data}


def _executed(action: str | Callable[[Args], str],
              data: Callable[[dict[str, Any], Args], dict[str, str]] | None = None
              ) -> Callable[[dict[str, Any], Args], dict[str, Any]]:
    """Its execution payload for a tool that ran one action of ``action``'s type."""
    def result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
        kind = action(a) if callable(action) else action
        step = {"id": f"{kind}-1", "actionType": kind, "success": True,
                "data": data(ours, a) if data is not None else {}}
        return _payload(ours, {"deviceId": ours.get("device"), "terminalSource": _SOURCE,
                               "envelope": {**_ids(), "status": "success",
                                            "stepResults": [step]}})
    return result


def _snapshot(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    xml = str(ours.get("text", ""))
    limit = a.get("maxChars")
    cut = isinstance(limit, int) and len(xml) > limit
    if cut:
        xml = xml[:limit]
    done = _executed("snapshot_ui", lambda o, _: {"text": xml})(ours, a)["payload"]
    return _payload(ours, {"snapshot": xml, **({"truncated": True} if cut else {}), **done})


def _snapshot_args(a: Args) -> Args:
    a = _options(a)
    limit = a.pop("maxChars", None)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise InvalidArgument(f"maxChars must be a positive integer, not {limit!r}")
    return {**a, "max_chars": 1_000_000}  # cut here, at exactly maxChars


def _read(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    return _payload(ours, ours.get("texts") if "texts" in ours else ours.get("text"))


def _devices(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    return _payload(ours, {"devices": [{"serial": d["serial"], "state": d["state"]}
                                       for d in ours.get("devices", [])]})


def _configured(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    now = ours.get("session") or {}
    session: dict[str, Any] = {}
    if now.get("device"):
        session["deviceId"] = now["device"]
    if a.get("operatorPackage"):
        session["operatorPackage"] = a["operatorPackage"]
    if now.get("timeout") is not None:
        session["timeoutMs"] = int(round(now["timeout"] * 1000))
    return _payload(ours, {"session": session})


def _press(a: Args) -> Args:
    a = _options(a)
    if a.get("key") not in ("back", "home", "recents"):
        raise InvalidArgument(f"key is back, home or recents, not {a.get('key')!r}")
    return a


def render(result: dict[str, Any]) -> dict[str, Any]:
    """One of our answers as clawperator's MCP server answers: a success's payload as JSON
    text (and, for an object, the same as ``structuredContent``), a failure as ``isError``
    with ``{code, message, hint}``. An argument its MCP boundary refuses, or an unknown
    tool, is a JSON-RPC error instead: ``{"jsonrpc_error": {code, message, data}}``."""
    def text(data: Any) -> str:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    if result.get("ok"):
        data = result["payload"] if "payload" in result else {
            k: v for k, v in result.items() if k not in ("ok", "tool", "image")}
        content: list[dict[str, Any]] = [{"type": "text", "text": text(data)}]
        image = result.get("image")
        if isinstance(image, dict) and isinstance(image.get("data"), str):
            content.append({"type": "image", "data": image["data"],
                            "mimeType": image.get("mime_type", "image/png")})
        out: dict[str, Any] = {"content": content, "isError": False}
        if isinstance(data, dict):
            out["structuredContent"] = data
        return out
    error = result.get("error", {})
    theirs = result.get("clawperator_code")
    if "stopped_at" in result and error.get("category") == "INVALID_ARGUMENT":
        theirs = "EXECUTION_VALIDATION_FAILED"  # an action its runtime would refuse
    if theirs is None and error.get("code") == "UNKNOWN_TOOL":
        return {"jsonrpc_error": {"code": -32601, "message": f"Unknown tool: {result.get('tool')}",
                                  "data": error}}
    if theirs is None and error.get("category") == "INVALID_ARGUMENT" and \
            error.get("code") != "NOT_ALLOWED":
        return {"jsonrpc_error": {"code": -32602, "message": error.get("message", ""),
                                  "data": error}}
    data = {"code": theirs or error.get("code"), "message": error.get("message", "")}
    if error.get("hint"):
        data["hint"] = error["hint"]
    if theirs:
        data["details"] = {"code": error.get("code")}
    return {"content": [{"type": "text", "text": text(data)}], "structuredContent": data,
            "isError": True}


# -- its tools as its document lists them ------------------------------------------------

_STRING = {"type": "string"}
_SELECTOR = {"type": "object", "description": "at least one of: id (resource id), role, "
                                              "text, textContains, desc, descContains",
             "properties": {k: _STRING for k in ("id", "role", "text", "textContains",
                                                 "desc", "descContains")}}
_COMMON = {"deviceId": {"type": "string", "description": "Explicit adb device serial"},
           "operatorPackage": {"type": "string", "description": "Operator package override"},
           "timeoutMs": {"type": "integer", "description": "Execution timeout (ms)"}}


def _schema(required: tuple[str, ...] = (), common: bool = True, **props: Any
            ) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object",
                           "properties": {**props, **(_COMMON if common else {})}}
    if required:
        out["required"] = list(required)
    return out


def _tool(name: str, tool: str | Callable[[Args], str], args: Callable[[Args], Args],
          result: Callable[..., dict[str, Any]], description: str, schema: dict[str, Any],
          **more: Any) -> Alias:
    return Alias(name, SYSTEM, tool, args, result, description=description, schema=schema,
                 **more)


ALIASES = (
    _tool("devices", "devices", lambda a: dict(a), _devices,
          "List connected Android devices visible to adb.", _schema(common=False)),
    _tool("snapshot", "ui_xml", _snapshot_args, _snapshot,
          "Capture the current Android UI hierarchy as XML.",
          _schema(maxChars={"type": "integer",
                            "description": "Truncate the returned XML to this many "
                                           "characters. Minimum 1."})),
    _tool("execute", "execute", _execute, _execute_result,
          "Run a validated Clawperator execution payload over the canonical execution "
          "engine.",
          _schema(("actions",), actions={"type": "array", "items": {
              "type": "object", "properties": {"id": _STRING, "type": _STRING,
                                               "params": {"type": "object"}},
              "required": ["id", "type"]}}),
          when=lambda a: "actions" in a and "steps" not in a, adds=True),
    _tool("configure", "configure", lambda a: _options(a, keep_timeout=True), _configured,
          "Store per-session defaults for deviceId, operatorPackage, and timeoutMs.",
          _schema(), when=lambda a: bool({"deviceId", "operatorPackage", "timeoutMs"} & set(a))),
    _tool("open", _open_tool, _open, _executed(lambda a: "open_app" if "appId" in a
                                               else "open_uri"),
          "Open an Android application by package id or launch a URI.",
          _schema(appId=_STRING, uri=_STRING)),
    _tool("click", _click_tool, _click, _executed("click"),
          "Click a matching node or absolute screen coordinate.",
          _schema(selector=_SELECTOR,
                  coordinate={"type": "object", "properties": {"x": {"type": "integer"},
                                                               "y": {"type": "integer"}}},
                  clickType={"type": "string", "enum": ["default", "long_click", "focus"]})),
    _tool("type", "type", _options,
          _executed("enter_text", lambda o, a: {"text": a.get("text", ""),
                                                "submit": str(bool(a.get("submit"))).lower()}),
          "Type text into a matching field, optionally clearing first or submitting after.",
          _schema(("selector", "text"), selector=_SELECTOR, text=_STRING,
                  submit={"type": "boolean"}, clear={"type": "boolean"})),
    _tool("read", "read", _options, _read,
          "Read text from a matching node, optionally returning all matches. Supports "
          "regex validation via validator and validatorPattern.",
          _schema(("selector",), selector=_SELECTOR, all={"type": "boolean"},
                  container=_SELECTOR, validator={"type": "string", "enum": ["regex"]},
                  validatorPattern=_STRING)),
    _tool("press", "press", _press, _executed("press_key"),
          "Press one of the supported Android navigation keys.",
          _schema(("key",), key={"type": "string", "enum": ["back", "home", "recents"]})),
    # a wait for a node; ``{seconds}`` (what its ``sleep`` action becomes) is our pause
    _tool("wait", lambda a: "wait" if "seconds" in a and "selector" not in a else "wait_for",
          lambda a: _options(a, keep_timeout=True),
          _executed(lambda a: "sleep" if "seconds" in a and "selector" not in a
                    else "wait_for_node"), "Wait until a matching node appears.",
          _schema(("selector",), selector=_SELECTOR),
          when=lambda a: "selector" in a and "seconds" not in a),
    _tool("scroll_until", "scroll_until", _options,
          _executed(lambda a: "scroll_and_click" if a.get("clickAfter") else "scroll_until"),
          "Scroll in the given direction until a matching node is visible, optionally "
          "clicking it afterward.",
          _schema(("selector", "direction"), selector=_SELECTOR,
                  direction={"type": "string", "enum": ["down", "up", "left", "right"]},
                  container=_SELECTOR, clickAfter={"type": "boolean"})),
)
