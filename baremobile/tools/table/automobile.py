"""AutoMobile's words for our tools (its MCP tools, as its daemon's ``tools/call`` and
``tools/list`` serve them), so a client written for AutoMobile works against ours unchanged
— accepted at every door, listed (with AutoMobile's schemas) only where AutoMobile's
vocabulary is spoken: the daemon's AutoMobile endpoint (:mod:`baremobile.daemon.automobile`,
``docs/daemon.md``). Read from AutoMobile's own sources (``schemas/tool-definitions.json``,
``src/server/*Tools.ts``); ``notes/seed-clients.md`` §A.5 has the citations.

What each alias says about a call of AutoMobile's:

* **targeting** (every tool): ``sessionUuid`` is the session (the daemon's door reads it),
  ``deviceId`` our ``device``, ``keepScreenAwake`` and the plan-only device *label*
  ``device`` say nothing here; ``platform: "ios"`` answers AutoMobile's words for a host
  without iOS tools;
* **elements**: ``elementId`` (a resource id; ``testTag`` too) is our selector's ``id``;
  ``text`` — a text *or* a content description, any case, a part of it, as AutoMobile
  matches — tries ``text_contains``, then ``desc_contains`` (alternatives: nothing is sent
  for a try that finds nothing);
* **directions**: ``swipeOn``'s direction is the *finger's* (``up`` reveals what is below:
  our ``down``) unless ``gestureType: "scrollTowardsDirection"``;
* **results**: AutoMobile's payloads (``{message, success, …}``; ``observe``'s screen with
  ``screenSize``, ``activeWindow``, ``elements.{clickable, scrollable, text}``, built from
  the page's last snapshot — no more device I/O);
* **absent parts**: what needs AutoMobile's on-device accessibility service, its app SDK,
  emulator images or iOS answers AutoMobile's own words for that part being absent
  (``UNSUPPORTED``; nothing runs);
* **floors**: ``launchApp`` and ``openLink`` 90 s (``AUTOMOBILE_OPEN_LINK_MCP_TIMEOUT_MS``
  raises ``openLink``'s), ``executePlan`` 600 s, ``startDevice`` 180 s.

``executePlan`` reads AutoMobile's YAML plan (``{name?, steps: [{tool, params? | the
arguments beside tool, label?}]}``) and runs its steps through these same aliases, in one
batch (our ``execute``) on the session's device.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from baremobile.errors import InvalidArgument, Unsupported
from baremobile.timeouts import env_floor_s
from baremobile.tools.aliases import Alias, Args

__all__ = ["ALIASES", "SYSTEM", "TARGETING", "observation"]

SYSTEM = "automobile"

#: the targeting fields every AutoMobile device tool takes (``addDeviceTargetingToSchema``)
TARGETING: dict[str, Any] = {
    "sessionUuid": {"type": "string", "description": "Session UUID for device targeting"},
    "keepScreenAwake": {"type": "boolean", "description": "Keep physical Android devices "
                                                          "awake during the session "
                                                          "(default: true)"},
    "device": {"type": "string", "description": "Device label for multi-device plans "
                                                "(e.g., \"A\", \"B\")"},
    "deviceId": {"type": "string",
                 "description": "Device identifier for targeting a specific device"},
}
_PLATFORM = {"type": "string", "enum": ["android", "ios"], "description": "Platform"}
_DRAFT = "https://json-schema.org/draft/2020-12/schema"

#: AutoMobile's answer where a host has no iOS tools (``DeviceSessionManager``)
NO_IOS = "iOS simulator tools not available"

#: their other names for ``appId`` (``launchApp``, ``terminateApp`` …)
_APP_ID = ("packageId", "package", "packageName", "appPackage", "appPackageId", "bundle",
           "bundleId", "bundleID", "bundleIdentifier", "application", "applicationId",
           "applicationIdentifier", "app", "appIdentifier", "package_id", "package_name",
           "bundle_id", "application_id")

#: a ``text`` names the element by its text or its content description, as AutoMobile's
#: ElementFinder matches (any case, a part): our selector fields to try, in turn
_TEXT_FIELDS = ("text_contains", "desc_contains")


def _schema(props: dict[str, Any], required: tuple[str, ...] = (), *,
            targeted: bool = True, platform: bool = True) -> dict[str, Any]:
    """An AutoMobile input schema: ``props``, the platform and the targeting fields."""
    properties = dict(props)
    if platform:
        properties["platform"] = _PLATFORM
    if targeted:
        properties.update(TARGETING)
    out: dict[str, Any] = {"$schema": _DRAFT, "type": "object", "properties": properties,
                           "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


def _element_schema(what: str) -> dict[str, Any]:
    return {"description": f"{what}: {{\"elementId\": \"<id>\"}} or {{\"text\": \"<text>\"}}",
            "anyOf": [{"type": "object", "properties": {"elementId": {"type": "string"}},
                       "required": ["elementId"], "additionalProperties": False},
                      {"type": "object", "properties": {"text": {"type": "string"}},
                       "required": ["text"], "additionalProperties": False}]}


# -- their arguments ------------------------------------------------------------------------


def _targeted(fn: Callable[[Args], Any]) -> Callable[[Args], Any]:
    """``fn`` over their arguments less the targeting fields: ``platform: "ios"`` refused in
    AutoMobile's words, ``deviceId`` → our ``device`` (on each alternative)."""

    def mapped(a: Args) -> Any:
        if a.get("platform") == "ios":
            raise Unsupported(NO_IOS, hint="baremobile drives Android devices over ADB")
        rest = {k: v for k, v in a.items() if k not in (*TARGETING, "platform")}
        ours = fn(rest)
        device = a.get("deviceId")
        if device is None:
            return ours
        if isinstance(ours, list):
            return [{**x, "device": device} for x in ours]
        return {**ours, "device": device}

    return mapped


def _rest(a: Args, *used: str) -> Args:
    return {k: v for k, v in a.items() if k not in used}


def _selectors(given: Any, what: str) -> list[dict[str, Any]]:
    """Our selectors to try for one of their element selectors: ``{elementId}``,
    ``{testTag}``, ``{text}`` or ``{textAny: [...]}`` (exactly one)."""
    if not isinstance(given, dict):
        raise InvalidArgument(f"{what} is {{elementId}} or {{text}}, not {given!r}")
    keys = [k for k in ("elementId", "testTag", "text", "textAny") if k in given]
    extra = set(given) - {"elementId", "testTag", "text", "textAny"}
    if len(keys) != 1 or extra:
        raise InvalidArgument(f"{what} takes exactly one of elementId and text"
                              + (f" (not {', '.join(sorted(extra))})" if extra else ""))
    key = keys[0]
    value = given[key]
    if key in ("elementId", "testTag"):
        if not isinstance(value, str) or not value:
            raise InvalidArgument(f"{what}.{key} is a non-empty string")
        return [{"id": value}]
    texts = value if key == "textAny" else [value]
    if not isinstance(texts, list) or not texts or \
            not all(isinstance(t, str) and t for t in texts):
        raise InvalidArgument(f"{what}.{key} is a non-empty string"
                              + (" list" if key == "textAny" else ""))
    return [{field: t} for t in texts for field in _TEXT_FIELDS]


def _one(given: Any, what: str) -> dict[str, Any]:
    """One selector (no alternatives): an ``elementId``, or a ``text`` any part of which
    the element's text shows."""
    return _selectors(given, what)[0]


def _element_of(a: Args, what: str = "the element") -> list[dict[str, Any]]:
    """``tapOn``'s element: ``elementId``/``text`` beside the action (AutoMobile 0.0.x), or
    ``selector`` (later versions) — exactly one way."""
    top = {k: a[k] for k in ("elementId", "text") if k in a}
    if "selector" in a:
        if top:
            raise InvalidArgument("give selector, or elementId/text, not both")
        return _selectors(a["selector"], "selector")
    if not top:
        raise InvalidArgument(f"name {what}: elementId or text",
                              hint="observe lists the elements with their text and "
                                   "resource-id")
    return _selectors(top, what)


def _ms(value: Any, what: str, default: float | None = None) -> float | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InvalidArgument(f"{what} is a number of milliseconds, not {value!r}")
    return value / 1000


def _app_id(a: Args) -> str:
    given = [k for k in ("appId", *_APP_ID) if k in a]
    if not given:
        raise InvalidArgument("appId is required (the app's package name)")
    values = {a[k] for k in given}
    if len(values) > 1:
        raise InvalidArgument(f"{', '.join(given)} name different apps")
    value = a[given[0]]
    if not isinstance(value, str) or not value:
        raise InvalidArgument("appId is a package name, e.g. com.android.settings")
    return value


# -- their results --------------------------------------------------------------------------


def _flag(attrs: dict[str, str], key: str) -> bool | None:
    value = attrs.get(key)
    return None if value is None else value == "true"


def _bounds(box: tuple[int, int, int, int]) -> dict[str, int]:
    left, top, right, bottom = box
    return {"left": left, "top": top, "right": right, "bottom": bottom,
            "centerX": (left + right) // 2, "centerY": (top + bottom) // 2}


def _raw_bounds(attrs: dict[str, str]) -> tuple[int, int, int, int] | None:
    raw = attrs.get("bounds", "")
    try:
        a, b = raw.strip("[]").split("][")
        left, top = (int(v) for v in a.split(","))
        right, bottom = (int(v) for v in b.split(","))
    except ValueError:
        return None
    return left, top, right, bottom


def _element(node: Any) -> dict[str, Any] | None:
    """One node of our snapshot as AutoMobile's ``Element`` (``bounds`` and the dump's
    attributes under their names), or None when it has no bounds."""
    attrs = dict(node.attrs or {})
    box = _raw_bounds(attrs) or node.vis
    if box is None:
        return None
    out: dict[str, Any] = {"bounds": _bounds(box)}
    text = node.text or attrs.get("text", "")
    if text:
        out["text"] = text
    for key in ("resource-id", "content-desc", "class", "package"):
        if attrs.get(key):
            out[key] = attrs[key]
    for key in ("checkable", "checked", "clickable", "enabled", "focusable", "focused",
                "scrollable", "selected", "long-clickable", "password"):
        flag = _flag(attrs, key)
        if flag is not None:
            out[key] = flag
    if node.ref is not None:
        out["ref"] = node.ref  # ours: what our own tools take (tap {ref})
    return out


def _insets(snap: Any) -> dict[str, int]:
    """The system bars' extent, from the windows the snapshot shows (no I/O)."""
    top = bottom = 0
    for window in snap.tree.children:
        boxes = [n.vis for n in window.walk() if n.vis]
        if not boxes:
            continue
        if window.role == "status bar":
            top = max(top, max(b[3] for b in boxes))
        elif window.role == "navigation bar" and snap.height:
            bottom = max(bottom, snap.height - min(b[1] for b in boxes))
    return {"top": top, "right": 0, "bottom": bottom, "left": 0}


def observation(snap: Any, *, now_ms: int | None = None) -> dict[str, Any]:
    """AutoMobile's observe result of one of our snapshots: ``updatedAt``, ``screenSize``,
    ``systemInsets``, ``rotation``, ``activeWindow`` (the app in front), ``elements``
    (``clickable``, ``scrollable``, ``text``) and ``focusedElement``; ``screen`` is our
    snapshot's text (what our own tools read)."""
    clickable: list[dict[str, Any]] = []
    scrollable: list[dict[str, Any]] = []
    texts: list[dict[str, Any]] = []
    focused = None
    for node in snap.nodes():
        element = _element(node)
        if element is None:
            continue
        if element.get("clickable") or element.get("long-clickable") or node.ref is not None \
                and element.get("focusable") and element.get("class", "").endswith("EditText"):
            clickable.append(element)
        if element.get("scrollable"):
            scrollable.append(element)
        if element.get("text"):
            texts.append(element)
        if element.get("focused") and focused is None:
            focused = element
    out: dict[str, Any] = {
        "updatedAt": now_ms if now_ms is not None else int(time.time() * 1000),
        "screenSize": {"width": snap.width, "height": snap.height},
        "systemInsets": _insets(snap),
        "rotation": snap.rotation,  # the dump's: 0-3, quarter turns
        "activeWindow": {"appId": snap.package or "", "type": "application"},
        "elements": {"clickable": clickable, "scrollable": scrollable, "text": texts},
        "screen": snap.full_text,
    }
    if focused is not None:
        out["focusedElement"] = focused
    return out


def _screen_of(page: Any) -> Any:
    return getattr(page, "last_snapshot", None) if page is not None else None


def _observed(ours: dict[str, Any], page: Any) -> dict[str, Any]:
    """``observation``: the screen after the action, when the session observed it (an
    acting call's result holds ``snapshot`` then); AutoMobile's clients read it."""
    snap = _screen_of(page)
    if "snapshot" not in ours or snap is None:
        return {}
    return {"observation": observation(snap)}


class _Words(dict):  # type: ignore[type-arg]
    """Their arguments for a message: one not given reads as itself."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _said(message: str, **more: Any) -> Callable[..., dict[str, Any]]:
    """A result ``{message, success: true, …more}`` (their arguments fill ``{…}`` in the
    message), with the observation when the session observes."""

    def result(ours: dict[str, Any], a: Args, page: Any = None) -> dict[str, Any]:
        words = _Words({k: v for k, v in a.items() if isinstance(v, (str, int, float))})
        out = {"message": message.format_map(words), "success": True, **more}
        return {**out, **_observed(ours, page)}

    return result


# -- the tools ------------------------------------------------------------------------------


def _observe_tool(a: Args) -> str:
    return "wait_for" if a.get("waitFor") is not None else "snapshot"


def _observe(a: Args) -> Args:
    wait = a.get("waitFor")
    if wait is None:
        return {}
    if not isinstance(wait, dict):
        raise InvalidArgument("waitFor is {elementId, timeout?} or {text, timeout?}")
    timeout = _ms(wait.get("timeout"), "waitFor.timeout", 5.0)
    return {"selector": _one(_rest(wait, "timeout"), "waitFor"), "timeout": timeout}


def _observe_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    snap = _screen_of(page)
    if snap is None:  # a snapshot ran: its page has one
        raise InvalidArgument("observe: no screen was read")
    out = observation(snap)
    wait = a.get("waitFor")
    if isinstance(wait, dict):
        found = ours.get("match")
        out["awaitTimeout"] = int(wait.get("timeout", 5000))
        if found:
            out["awaitedElement"] = {"text": found.get("text", ""),
                                     "bounds": _bounds(tuple(found["bounds"]))
                                     if found.get("bounds") else None}
    return out


_TAP_ACTIONS = {"tap": "tap", "focus": "tap", "doubleTap": "double_tap",
            "longPress": "long_press"}


def _tap_tool(a: Args) -> str:
    action = a.get("action", "tap")
    if action not in _TAP_ACTIONS:
        raise InvalidArgument(f"action is tap, doubleTap, longPress or focus, not {action!r}")
    return "execute" if a.get("searchUntil") is not None else _TAP_ACTIONS[action]


def _tap(a: Args) -> Args | list[Args]:
    if a.get("container") is not None:
        raise InvalidArgument("tapOn's container is not supported here: name the element "
                              "itself", hint="its elementId (resource-id) is the most "
                                             "precise; observe lists them")
    if a.get("selectionStrategy", "first") not in ("first", "random"):
        raise InvalidArgument("selectionStrategy is first or random")
    action = a.get("action", "tap")
    tries = [{"selector": s} for s in _element_of(a)]
    if action == "longPress" and a.get("duration") is not None:
        ms = _ms(a["duration"], "duration")
        tries = [{**t, "ms": max(1, int((ms or 0) * 1000))} for t in tries]
    search = a.get("searchUntil")
    if search is None:
        return tries
    if not isinstance(search, dict):
        raise InvalidArgument("searchUntil is {duration: ms}")
    wait = _ms(search.get("duration"), "searchUntil.duration", 0.5)
    first = tries[0]
    return {"steps": [{"tool": "wait_for", "args": {"selector": first["selector"],
                                                    "timeout": wait}},
                      {"tool": _TAP_ACTIONS[action], "args": first}]}


def _tap_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    return {"success": True, "action": a.get("action", "tap"),
            "message": "Tapped on element", **_observed(ours, page)}


#: AutoMobile's IME actions over ADB (``ImeAction.ts``: its fallback without its service)
_IME_KEYS = {"done": ["enter"], "send": ["enter"], "go": ["enter"], "next": ["tab"],
             "search": ["search"], "previous": ["shift_left", "tab"]}


def _ime_steps(action: Any) -> list[dict[str, Any]]:
    if action not in _IME_KEYS:
        raise InvalidArgument(f"imeAction is one of {', '.join(_IME_KEYS)}, not {action!r}")
    return [{"tool": "press", "args": {"key": k}} for k in _IME_KEYS[action]]


def _ime(a: Args) -> Args:
    steps = _ime_steps(a.get("action"))
    return steps[0]["args"] if len(steps) == 1 else {"steps": steps}


def _input_tool(a: Args) -> str:
    ime = a.get("imeAction")
    return "type" if ime is None or _IME_KEYS.get(ime) == ["enter"] else "execute"


def _input(a: Args) -> Args:
    text = a.get("text")
    if not isinstance(text, str) or not text:
        raise InvalidArgument("text is required: the text the focused field should hold")
    typed: Args = {"text": text, "clear": True}  # AutoMobile sets the field's text
    if a.get("selector") is not None:
        typed["selector"] = _one(a["selector"], "selector")
    ime = a.get("imeAction")
    if ime is None:
        return typed
    steps = _ime_steps(ime)
    if steps == [{"tool": "press", "args": {"key": "enter"}}]:
        return {**typed, "submit": True}
    return {"steps": [{"tool": "type", "args": typed}, *steps]}


def _input_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    out = {"message": "Input text", "success": True, "text": a.get("text")}
    if a.get("imeAction"):
        out["imeAction"] = a["imeAction"]
    return {**out, **_observed(ours, page)}


#: AutoMobile's buttons (``pressButton``/``pressKey``) as our key names
_BUTTONS = ("home", "back", "menu", "power", "volume_up", "volume_down", "recent")


def _press(field: str) -> Callable[[Args], Args]:
    def mapped(a: Args) -> Args:
        key = a.get(field)
        if key not in _BUTTONS:
            raise InvalidArgument(f"{field} is one of {', '.join(_BUTTONS)}, not {key!r}")
        return {"key": key}

    return mapped


def _press_result(field: str, word: str) -> Callable[..., dict[str, Any]]:
    def result(ours: dict[str, Any], a: Args, page: Any = None) -> dict[str, Any]:
        from baremobile.android.keycodes import keycode

        return {"message": f"Pressed {word} {a.get(field)}", "success": True,
                field: a.get(field), "keyCode": keycode(a[field]), **_observed(ours, page)}

    return result


_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _content_direction(a: Args) -> str:
    """Our scroll direction (where the content goes) for theirs: the finger's by default."""
    direction = a.get("direction")
    if direction not in _OPPOSITE:
        raise InvalidArgument(f"direction is up, down, left or right, not {direction!r}")
    kind = a.get("gestureType", "swipeFingerTowardsDirection")
    if kind == "scrollTowardsDirection":
        return str(direction)
    if kind != "swipeFingerTowardsDirection":
        raise InvalidArgument("gestureType is swipeFingerTowardsDirection or "
                              "scrollTowardsDirection")
    return _OPPOSITE[direction]


def _swipe_tool(a: Args) -> str:
    return "scroll_until" if a.get("lookFor") is not None else "scroll"


def _swipe(a: Args) -> Args:
    out: Args = {"direction": _content_direction(a)}
    container = _one(a["container"], "container") if a.get("container") else None
    if a.get("lookFor") is not None:
        out["selector"] = _one(a["lookFor"], "lookFor")
        if container is not None:
            out["container"] = container
        return out
    if container is not None:
        out["selector"] = container
    return out


def _swipe_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    found = a.get("lookFor") is not None
    out: dict[str, Any] = {
        "success": True, "targetType": "element" if a.get("container") else "screen",
        "message": f"Swiped {a.get('direction')}" + (" and found element" if found else "")}
    if found:
        out["found"] = True
    return {**out, **_observed(ours, page)}


def _pinch(a: Args) -> Args:
    direction = a.get("direction")
    if direction not in ("in", "out"):
        raise InvalidArgument("direction is in or out")
    scale = a.get("scale")
    if scale is None:  # their finger distances: 400 → 100 px by default
        start, end = a.get("distanceStart", 400), a.get("distanceEnd", 100)
        if not all(isinstance(v, (int, float)) and v > 0 for v in (start, end)):
            raise InvalidArgument("distanceStart and distanceEnd are positive pixels")
        near, far = sorted((start, end))
        scale = near / far if direction == "in" else far / near
    out: Args = {"scale": scale}
    if a.get("duration") is not None:
        out["ms"] = max(50, int((_ms(a["duration"], "duration") or 0) * 1000))
    if a.get("container"):
        out["selector"] = _one(a["container"], "container")
    return out


def _drag(a: Args) -> Args:
    for key in ("source", "target"):
        if key not in a:
            raise InvalidArgument(f"{key} is required: {{elementId}} or {{text}}")
    out: Args = {"from_selector": _one(a["source"], "source"),
                 "to_selector": _one(a["target"], "target")}
    if a.get("pressDurationMs") is not None:
        out["ms"] = int(a["pressDurationMs"])
    return out


def _rotate(a: Args) -> Args:
    if a.get("orientation") not in ("portrait", "landscape"):
        raise InvalidArgument("orientation is portrait or landscape")
    return {"orientation": a["orientation"]}


def _clipboard_tool(a: Args) -> str:
    action = a.get("action")
    tools = {"copy": "set_clipboard", "clear": "set_clipboard", "get": "get_clipboard",
             "paste": "press"}
    if action not in tools:
        raise InvalidArgument("action is copy, paste, clear or get")
    return tools[action]


def _clipboard(a: Args) -> Args:
    action = a["action"]
    if action == "copy":
        if not isinstance(a.get("text"), str):
            raise InvalidArgument("text is required for copy")
        return {"text": a["text"]}
    if action == "clear":
        return {"text": ""}
    if action == "paste":
        return {"key": 279}  # KEYCODE_PASTE
    return {}


def _clipboard_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    action = a.get("action")
    text = ours.get("text")
    message = {"copy": "Copied text to clipboard",
               "paste": "Pasted clipboard content into focused field",
               "clear": "Cleared clipboard",
               "get": (f'Retrieved clipboard content: "{text[:50]}'
                       f'{"..." if len(text) > 50 else ""}"') if text
               else "Retrieved empty clipboard"}[action]
    out = {"message": message, "success": True, "action": action}
    if action == "get":
        out["text"] = text or ""
    return out


def _tray_tool(a: Args) -> str:
    action = a.get("action")
    if action in ("dismiss", "clearAll"):
        raise Unsupported(f"systemTray {action} is not supported over ADB here",
                          hint="open the tray (systemTray open) and swipe the notification "
                               "away (swipeOn on it)")
    tools = {"open": "open_notifications", "close": "close_panels", "find": "execute",
             "tap": "execute"}
    if action not in tools:
        raise InvalidArgument("action is open, close, find, tap, dismiss or clearAll")
    return tools[action]


def _tray(a: Args) -> Args:
    action = a["action"]
    if action in ("open", "close"):
        return {}
    wanted = a.get("notification")
    if not isinstance(wanted, dict) or not any(wanted.get(k) for k in ("title", "body")):
        raise InvalidArgument(f"{action} action requires at least one notification criteria "
                              "(title, body, or appId)",
                              hint="here a title or a body: the tray shows the app's "
                                   "label, not its package")
    text = wanted.get("title") or wanted.get("body")
    timeout = _ms(a.get("awaitTimeout"), "awaitTimeout", 5.0)
    steps: list[dict[str, Any]] = [
        {"tool": "open_notifications", "args": {}},
        {"tool": "wait_for", "args": {"selector": {"text_contains": text},
                                      "timeout": timeout}}]
    if action == "tap":
        label = wanted.get("tapActionLabel")
        steps.append({"tool": "tap", "args": {"selector": {"text_contains": label or text}}})
    return {"steps": steps}


def _tray_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    action = a.get("action")
    wanted = a.get("notification") or {}
    message = {"open": "Opened system tray by swiping down from the status bar",
               "close": "Closed system tray",
               "find": "Found notification in system tray",
               "tap": f'Tapped notification action "{wanted.get("tapActionLabel")}"'
               if wanted.get("tapActionLabel") else "Tapped notification"}[action]
    return {"message": message, "success": True, **_observed(ours, page)}


def _launch_tool(a: Args) -> str:
    return "execute" if a.get("clearAppData") or a.get("coldBoot") else "launch"


def _launch(a: Args) -> Args:
    app = _app_id(a)
    if not (a.get("clearAppData") or a.get("coldBoot")):
        return {"package": app}
    first = "clear_app_data" if a.get("clearAppData") else "stop_app"
    return {"steps": [{"tool": first, "args": {"package": app}},
                      {"tool": "launch", "args": {"package": app}}]}


def _launch_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    app = _app_id(a)
    return {"message": f"Launched app {app}", "success": True, "packageName": app,
            **_observed(ours, page)}


def _terminate(a: Args) -> Args:
    app = _app_id(a)
    # is it installed (AutoMobile answers success either way, saying so), then force-stop
    return {"steps": [{"tool": "list_apps", "args": {"name": app}},
                      {"tool": "stop_app", "args": {"package": app}}],
            "stop_on_error": False}


def _terminate_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    app = _app_id(a)
    steps = {s.get("step"): s for s in ours.get("steps") or []}
    installed = app in (steps.get(0, {}).get("packages") or [])
    stopped = bool(steps.get(1, {}).get("ok"))
    if installed and not stopped:
        error = (steps.get(1, {}).get("error") or {}).get("message", "force-stop failed")
        return {"message": f"Failed to terminate app {app}", "success": False,
                "packageName": app, "wasInstalled": True, "error": error}
    return {"message": f"Terminated app {app}", "success": True, "packageName": app,
            "wasInstalled": installed}


def _install(a: Args) -> Args:
    path = a.get("apkPath", a.get("artifactPath"))
    if not isinstance(path, str) or not path:
        raise InvalidArgument("apkPath is required: the APK file's path on this computer")
    return {"apk": path}


def _install_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    path = a.get("apkPath", a.get("artifactPath"))
    return {"message": f"Installed app from {path}", "success": True, "apkPath": path}


def _keyboard_tool(a: Args) -> str:
    if a.get("action") in ("open", "close"):
        raise Unsupported(f"keyboard {a['action']} is not supported over ADB here",
                          hint="tap a text field to open the keyboard; pressButton back "
                               "closes it")
    if a.get("action") != "detect":
        raise InvalidArgument("action is open, close or detect")
    return "snapshot"


def _keyboard_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    snap = _screen_of(page)
    shown = snap is not None and any(w.role == "keyboard" for w in snap.tree.children)
    return {"success": True, "action": "detect", "open": shown,
            "message": "Keyboard is open" if shown else "Keyboard is closed"}


def _open_link(a: Args) -> Args:
    if not isinstance(a.get("url"), str) or not a["url"]:
        raise InvalidArgument("url is required")
    return {"uri": a["url"]}


def _active_device(a: Args) -> Args:
    if not isinstance(a.get("deviceId"), str) or not a["deviceId"]:
        raise InvalidArgument("deviceId is required")
    return {"device": a["deviceId"]}


def _apps_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    return {"message": f"Found {ours.get('count', 0)} installed apps", "success": True,
            "apps": ours.get("packages", [])}


def _devices_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    devices = [{"deviceId": d.get("serial"), "platform": "android", "status":
                "booted" if d.get("state", "device") == "device" else d.get("state"),
                "name": d.get("model") or d.get("serial")}
               for d in ours.get("devices") or [] if isinstance(d, dict)]
    return {"message": f"Found {len(devices)} android devices", "success": True,
            "devices": devices}


def _doctor_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    return {"success": True, "android": {
        "adb": "baremobile speaks the ADB protocol itself (no platform-tools needed)",
        "devices": [d.get("serial") for d in ours.get("devices") or []
                    if isinstance(d, dict)]},
        "ios": {"available": False, "message": NO_IOS}}


# -- executePlan ------------------------------------------------------------------------------

#: a plan step's keys that are not the tool's arguments (``test-plan.schema.json``)
_STEP_KEYS = ("tool", "params", "label", "device", "expectations", "description", "id")


def _plan(a: Args) -> list[dict[str, Any]]:
    """The plan's steps ``[{tool, args}]`` from its YAML (``startStep`` on)."""
    from io import StringIO

    from ruamel.yaml import YAML, YAMLError

    content = a.get("planContent")
    if not isinstance(content, str) or not content.strip():
        raise InvalidArgument("planContent is required: the plan's YAML")
    if len(content) > 1_000_000:
        raise InvalidArgument("planContent is larger than 1 MB")
    try:
        plan = YAML(typ="safe", pure=True).load(StringIO(content))
    except YAMLError as exc:
        raise InvalidArgument(f"planContent is not YAML: {str(exc)[:200]}") from None
    steps = plan.get("steps") if isinstance(plan, dict) else None
    if not isinstance(steps, list) or not steps:
        raise InvalidArgument("the plan has no steps: {name, steps: [{tool, params}]}")
    start = a.get("startStep", 0)
    if isinstance(start, bool) or not isinstance(start, (int, float)) or \
            not 0 <= start < len(steps):
        raise InvalidArgument(f"startStep is a step index (0–{len(steps) - 1})")
    if a.get("devices"):
        raise Unsupported("Multi-device plans require an active daemon session.",
                          hint="here a plan runs on its session's one device: leave "
                               "devices out")
    out = []
    for i, step in enumerate(steps[int(start):], int(start)):
        if not isinstance(step, dict) or not isinstance(step.get("tool"), str):
            raise InvalidArgument(f"step {i} is {{tool, params}}")
        params = step.get("params")
        if params is None:
            params = {k: v for k, v in step.items() if k not in _STEP_KEYS}
        if not isinstance(params, dict):
            raise InvalidArgument(f"step {i}: params is an object")
        out.append({"tool": step["tool"], "args": params})
    return out


def _expanded(a: Args) -> tuple[list[dict[str, Any]], list[int]]:
    """The plan's steps as one batch — a step whose alias is a batch itself (``launchApp``
    with ``clearAppData``, ``terminateApp``, ``tapOn`` with ``searchUntil`` …) gives its own
    steps — and, for each, the index of the plan step it belongs to."""
    start = int(a.get("startStep", 0) or 0)
    flat: list[dict[str, Any]] = []
    owner: list[int] = []
    steps = _plan(a)
    cleanup = a.get("cleanupAppId")
    if isinstance(cleanup, str) and cleanup:
        steps.append({"tool": "terminateApp", "args": {"appId": cleanup}})
    for i, step in enumerate(steps, start):
        alias = _BY_NAME.get(step["tool"])
        inner = None
        if alias is not None and alias.name != "executePlan" and alias.tool is not None \
                and alias.args is not None and alias.row_name(step["args"]) == "execute":
            inner = alias.args(step["args"])
        for each in inner["steps"] if isinstance(inner, dict) else [step]:
            flat.append(each)
            owner.append(i)
    return flat, owner


def _execute_plan(a: Args) -> Args:
    return {"steps": _expanded(a)[0]}


def _plan_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    flat, owner = _expanded(a)
    start = int(a.get("startStep", 0) or 0)
    total = start + len(_plan(a))
    out: dict[str, Any] = {"success": True, "executedSteps": len(set(owner)),
                           "totalSteps": total, "platform": "android"}
    if ours.get("device"):
        out["deviceId"] = ours["device"]
    return out


def _plan_failed(ours: dict[str, Any], a: Args) -> dict[str, Any] | None:
    """AutoMobile's result of a plan that stopped at a step (it answers it, success false,
    rather than failing the call); None when the plan itself was refused."""
    stopped = ours.get("stopped_at")
    if stopped is None:
        return None
    flat, owner = _expanded(a)
    start = int(a.get("startStep", 0) or 0)
    failed = owner[stopped] if stopped < len(owner) else None
    step = next((s for s in ours.get("steps") or [] if not s.get("ok")), {})
    error = (step.get("error") or ours.get("error") or {}).get("message", "the step failed")
    plan = _plan(a)
    out: dict[str, Any] = {
        "success": False, "executedSteps": len({o for o in owner[:stopped]} - {failed}),
        "totalSteps": start + len(plan), "error": error, "platform": "android"}
    if failed is not None:
        name = plan[failed - start]["tool"] if failed - start < len(plan) else "terminateApp"
        out["failedStep"] = {"stepIndex": failed, "tool": name, "error": error}
    return out


# -- schemas --------------------------------------------------------------------------------

_OBSERVE_OUT = {
    "$schema": _DRAFT, "type": "object",
    "properties": {
        "updatedAt": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        "screenSize": {"type": "object", "properties": {"width": {"type": "integer"},
                                                        "height": {"type": "integer"}},
                       "required": ["width", "height"]},
        "systemInsets": {"type": "object",
                         "properties": {k: {"type": "integer"}
                                        for k in ("top", "right", "bottom", "left")},
                         "required": ["top", "right", "bottom", "left"]},
        "rotation": {"type": "integer"},
        "activeWindow": {"type": "object", "properties": {"appId": {"type": "string"},
                                                          "activityName": {"type": "string"},
                                                          "type": {"type": "string"}}},
        "elements": {"type": "object", "properties": {
            k: {"type": "array", "items": {"type": "object", "required": ["bounds"]}}
            for k in ("clickable", "scrollable", "text")}},
        "focusedElement": {"type": "object"},
        "awaitedElement": {"type": "object"},
        "awaitTimeout": {"type": "number"},
        "screen": {"type": "string"},
    },
    "required": ["updatedAt", "screenSize", "systemInsets"],
}
_ACTION_OUT = {"$schema": _DRAFT, "type": "object",
               "properties": {"success": {"type": "boolean"}, "action": {"type": "string"},
                              "message": {"type": "string"}, "observation": _OBSERVE_OUT,
                              "error": {"type": "string"}},
               "required": ["success", "action"]}
_SWIPE_OUT = {"$schema": _DRAFT, "type": "object",
              "properties": {"success": {"type": "boolean"}, "targetType":
                             {"type": "string", "enum": ["screen", "element"]},
                             "message": {"type": "string"}, "found": {"type": "boolean"},
                             "observation": _OBSERVE_OUT, "error": {"type": "string"}},
              "required": ["success", "targetType"]}
_PLAN_OUT = {"$schema": _DRAFT, "type": "object",
             "properties": {"success": {"type": "boolean"},
                            "executedSteps": {"type": "integer"},
                            "totalSteps": {"type": "integer"},
                            "failedStep": {"type": "object", "properties": {
                                "stepIndex": {"type": "integer"},
                                "tool": {"type": ["string", "null"]},
                                "error": {"type": ["string", "null"]}}},
                            "error": {"type": "string"}, "platform": {"type": "string"},
                            "deviceId": {"type": "string"}},
             "required": ["success", "executedSteps", "totalSteps"]}

_APP = {"appId": {"type": "string", "description": "App package ID"}}
_BUTTON = {"type": "string", "enum": list(_BUTTONS)}
_SEARCH = {"type": "object", "properties": {"duration": {
    "type": "number", "minimum": 100, "maximum": 12000,
    "description": "Polling duration (ms, default: 500)"}}, "additionalProperties": False}


def _open_schema(props: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema of a tool answered as absent: any of its arguments is taken."""
    schema = _schema(props or {})
    schema["additionalProperties"] = True
    return schema


def _absent(name: str, description: str, words: str, *, floor: float | None = None
            ) -> Alias:
    return Alias(name, SYSTEM, None, description=description, schema=_open_schema(),
                 absent=words, floor=floor)


#: AutoMobile's words where its on-device accessibility service (CtrlProxy) is absent
_NO_SERVICE = "Failed to connect to accessibility service"
_NO_SDK = ("{what} requires the AutoMobile SDK integrated in the app, which baremobile does "
           "not use (it drives the device over ADB alone)")

ALIASES = (
    Alias("observe", SYSTEM, _observe_tool, _targeted(_observe), _observe_result,
          page=True, output=_OBSERVE_OUT,
          description="Get screen view hierarchy",
          schema=_schema({"waitFor": {
              "description": "Wait for element to appear before returning observation",
              "type": "object", "properties": {
                  "elementId": {"type": "string"}, "text": {"type": "string"},
                  "timeout": {"type": "number", "description": "ms (default 5000)"}}},
              "raw": {"type": "boolean"}})),
    Alias("tapOn", SYSTEM, _tap_tool, _targeted(_tap), _tap_result, page=True,
          output=_ACTION_OUT,
          description="Tap UI elements by text or ID",
          schema=_schema({
              "action": {"type": "string", "enum": list(_TAP_ACTIONS),
                         "description": "Action type (default tap)"},
              "elementId": {"type": "string",
                            "description": "Element resource ID / accessibility identifier"},
              "text": {"type": "string", "description": "Element text"},
              "selector": {"type": "object", "description": "{elementId} | {testTag} | "
                                                            "{text} | {textAny: [...]}"},
              "container": _element_schema("Container selector object to scope search"),
              "selectionStrategy": {"type": "string", "enum": ["first", "random"]},
              "duration": {"type": "number", "description": "Long press duration (ms)"},
              "searchUntil": _SEARCH})),
    Alias("inputText", SYSTEM, _input_tool, _targeted(_input), _input_result, page=True,
          description="Input text",
          schema=_schema({"text": {"type": "string", "minLength": 1},
                          "imeAction": {"type": "string", "enum": list(_IME_KEYS)},
                          "selector": {"type": "object"}}, ("text",))),
    Alias("clearText", SYSTEM, "type", _targeted(lambda a: {"text": "", "clear": True}),
          _said("Cleared text from input field"), page=True,
          description="Clear text from focused input", schema=_schema({})),
    _absent("selectAllText", "Select all text in focused input",
            f"Accessibility service selectAll failed: {_NO_SERVICE}"),
    Alias("pressButton", SYSTEM, "press", _targeted(_press("button")),
          _press_result("button", "button"), page=True, description="Press hardware button",
          schema=_schema({"button": _BUTTON}, ("button",))),
    Alias("pressKey", SYSTEM, "press", _targeted(_press("key")), _press_result("key", "key"),
          page=True, description="Press hardware key (same as pressButton)",
          schema=_schema({"key": _BUTTON}, ("key",))),
    Alias("swipeOn", SYSTEM, _swipe_tool, _targeted(_swipe), _swipe_result, page=True,
          output=_SWIPE_OUT, description="Swipe/scroll on screen or elements",
          schema=_schema({
              "direction": {"type": "string", "enum": list(_OPPOSITE),
                            "description": "Swipe direction: where the finger moves (up "
                                           "reveals what is below) unless gestureType is "
                                           "scrollTowardsDirection"},
              "gestureType": {"type": "string", "enum": ["swipeFingerTowardsDirection",
                                                         "scrollTowardsDirection"]},
              "container": _element_schema("Container to swipe in"),
              "lookFor": _element_schema("Element to look for during swipe"),
              "autoTarget": {"type": "boolean"}, "includeSystemInsets": {"type": "boolean"},
              "speed": {"type": "string", "enum": ["slow", "normal", "fast"]}},
              ("direction",))),
    Alias("pinchOn", SYSTEM, "pinch", _targeted(_pinch), _said("Pinched {direction}"),
          page=True, description="Pinch to zoom",
          schema=_schema({"direction": {"type": "string", "enum": ["in", "out"]},
                          "distanceStart": {"type": "number"},
                          "distanceEnd": {"type": "number"},
                          "scale": {"type": "number", "exclusiveMinimum": 0},
                          "duration": {"type": "number"},
                          "container": _element_schema("Element to pinch on")},
                         ("direction",))),
    Alias("dragAndDrop", SYSTEM, "drag", _targeted(_drag), _said("Dragged element to target"),
          page=True, description="Drag and drop element",
          schema=_schema({"source": _element_schema("Source"),
                          "target": _element_schema("Target"),
                          "pressDurationMs": {"type": "number", "minimum": 600,
                                              "maximum": 3000},
                          "dragDurationMs": {"type": "number"},
                          "holdDurationMs": {"type": "number"}}, ("source", "target"))),
    _absent("shake", "Shake device", "shake is not supported over ADB (it needs an "
                                     "emulator's sensor console or an iOS simulator)"),
    Alias("imeAction", SYSTEM, lambda a: "press" if len(_ime_steps(a.get("action"))) == 1
          else "execute", _targeted(_ime),
          _said('Executed IME action "{action}"'), page=True,
          description="Perform IME action",
          schema=_schema({"action": {"type": "string", "enum": list(_IME_KEYS)}},
                         ("action",))),
    Alias("keyboard", SYSTEM, _keyboard_tool, _targeted(lambda a: {}), _keyboard_result,
          page=True, description="Open, close, or detect the on-screen keyboard",
          schema=_schema({"action": {"type": "string", "enum": ["open", "close", "detect"]}},
                         ("action",))),
    Alias("recentApps", SYSTEM, "recents", _targeted(lambda a: {}), _said("Opened recent apps"),
          page=True, description="Open recent apps", schema=_schema({})),
    Alias("homeScreen", SYSTEM, "home", _targeted(lambda a: {}),
          _said("Pressed home button to return to the home screen"), page=True,
          description="Go to home screen", schema=_schema({})),
    Alias("rotate", SYSTEM, "rotate", _targeted(_rotate),
          _said("Rotated device to {orientation} orientation"), page=True,
          when=lambda a: "platform" in a or "sessionUuid" in a,
          description="Rotate device orientation",
          schema=_schema({"orientation": {"type": "string", "enum": ["portrait", "landscape"]}},
                         ("orientation",))),
    Alias("clipboard", SYSTEM, _clipboard_tool, _targeted(_clipboard), _clipboard_result,
          page=True, description="Clipboard operations (copy/paste/clear/get)",
          schema=_schema({"action": {"type": "string",
                                     "enum": ["copy", "paste", "clear", "get"]},
                          "text": {"type": "string"}}, ("action",))),
    Alias("systemTray", SYSTEM, _tray_tool, _targeted(_tray), _tray_result, page=True,
          description="System tray actions for notifications (open/close/find/tap)",
          schema=_schema({"action": {"type": "string", "enum": ["open", "close", "find",
                                                                 "tap", "dismiss",
                                                                 "clearAll"]},
                          "notification": {"type": "object", "properties": {
                              "title": {"type": "string"}, "body": {"type": "string"},
                              "appId": {"type": "string"},
                              "tapActionLabel": {"type": "string"}}},
                          "awaitTimeout": {"type": "number"}}, ("action",))),
    Alias("openLink", SYSTEM, "open_url", _targeted(_open_link), _said("Opened link {url}"),
          page=True, floor=lambda: env_floor_s(90.0, "AUTOMOBILE_OPEN_LINK_MCP_TIMEOUT_MS",
                                               "AUTO_MOBILE_OPEN_LINK_MCP_TIMEOUT_MS"),
          description="Open URL in browser",
          schema=_schema({"url": {"type": "string"}}, ("url",))),
    Alias("launchApp", SYSTEM, _launch_tool, _targeted(_launch), _launch_result, page=True,
          floor=90.0, description="Launch app by package name",
          schema=_schema({**_APP, "clearAppData": {"type": "boolean"},
                          "coldBoot": {"type": "boolean"}}, ("appId",), platform=False)),
    Alias("terminateApp", SYSTEM, "execute", _targeted(_terminate), _terminate_result,
          description="Terminate app by package name",
          schema=_schema(_APP, ("appId",), platform=False)),
    Alias("installApp", SYSTEM, "install_app", _targeted(_install), _install_result,
          description="Install APK file",
          schema=_schema({"apkPath": {"type": "string", "description": "APK file path"}},
                         ("apkPath",), platform=False)),
    Alias("listApps", SYSTEM, "list_apps", _targeted(lambda a: {}), _apps_result,
          description="List installed apps", schema=_schema({}, platform=False)),
    Alias("listDevices", SYSTEM, "devices", lambda a: {}, _devices_result,
          description="List devices", schema=_schema({}, targeted=False)),
    Alias("setActiveDevice", SYSTEM, "configure", _targeted(_active_device),
          _said("Active device set to {deviceId}"),
          description="Set active device",
          schema=_schema({"deviceId": {"type": "string"}}, ("deviceId",))),
    Alias("doctor", SYSTEM, "devices", lambda a: {}, _doctor_result,
          description="Run diagnostic checks", schema=_schema({}, targeted=False,
                                                            platform=False)),
    Alias("executePlan", SYSTEM, "execute", _targeted(_execute_plan), _plan_result,
          failure=_plan_failed, floor=600.0, output=_PLAN_OUT,
          description="Execute a series of tool calls from a YAML plan content. Stops "
                      "execution if any step fails (success: false). Optionally can resume "
                      "execution from a specific step index.",
          schema=_schema({"planContent": {"type": "string", "description": "YAML plan "
                                                                           "content"},
                          "startStep": {"type": "number", "default": 0},
                          "devices": {"type": "array", "items": {"type": "string"}},
                          "deviceAllocationTimeoutMs": {"type": "number"},
                          "abortStrategy": {"type": "string",
                                            "enum": ["immediate", "finish-current-step"]},
                          "testMetadata": {"type": "object"},
                          "cleanupAppId": {"type": "string"},
                          "cleanupClearAppData": {"type": "boolean"}}, ("planContent",))),
    _absent("startDevice", "Start device",
            "Failed to start android device: no emulator images here (baremobile drives "
            "running devices over ADB; a session's own virtual phone is device "
            "\"virtual:new\")", floor=180.0),
    _absent("killDevice", "Kill device",
            "Failed to kill android device: baremobile starts no emulators to stop"),
    _absent("listDeviceImages", "List device images",
            "Failed to list android AVDs: no emulator images here (baremobile drives "
            "running devices over ADB)"),
    _absent("getDeepLinks", "Query deep links for app",
            "getDeepLinks is not available here: open a link with openLink"),
    _absent("changeLocalization", "Change locale, time zone, text direction, time format",
            "changeLocalization is not available over ADB here"),
    _absent("postNotification", "Post a notification from the app-under-test",
            _NO_SDK.format(what="postNotification")),
    _absent("biometricAuth", "Simulate biometric authentication",
            _NO_SDK.format(what="biometricAuth")),
    _absent("highlight", "Draw a visual highlight around a UI element",
            f"highlight failed: {_NO_SERVICE}"),
    _absent("videoRecording", "Start or stop a video recording",
            "videoRecording is not available here: baremobile records traces "
            "(docs/traces.md), not video"),
    _absent("deviceSnapshot", "Capture or restore a device snapshot",
            "deviceSnapshot is not available here: it needs an emulator's VM snapshots"),
    _absent("criticalSection", "Coordinate multiple devices at a synchronization barrier",
            "Multi-device plans require an active daemon session."),
    _absent("startTestRecording", "Start test recording mode",
            "startTestRecording is not available here: start the daemon with --trace DIR "
            "to record each session (docs/traces.md)"),
    _absent("exportPlan", "Export recorded interactions as a YAML plan",
            "exportPlan is not available here: no test recording runs"),
)

_BY_NAME = {a.name: a for a in ALIASES}
