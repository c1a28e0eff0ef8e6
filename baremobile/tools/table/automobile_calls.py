"""Each AutoMobile tool call in our terms: its arguments as ours (targeting fields,
element selectors, milliseconds, directions, app ids) and our results as AutoMobile's
payloads — the functions the aliases of :mod:`baremobile.tools.table.automobile` name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baremobile.errors import InvalidArgument, Unsupported
from baremobile.tools.aliases import Args
from baremobile.tools.table.automobile_screen import bounds, observation, observed, screen_of

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


# -- their arguments ------------------------------------------------------------------------


def targeted(fn: Callable[[Args], Any]) -> Callable[[Args], Any]:
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


class _Words(dict[str, Any]):
    """Their arguments for a message: one not given reads as itself."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def said(message: str, *echo: str) -> Callable[..., dict[str, Any]]:
    """A result ``{message, success: true}`` (their arguments fill ``{…}`` in the message;
    those named in ``echo`` come back beside it, as AutoMobile's results repeat them), with
    the observation when the session observes."""

    def result(ours: dict[str, Any], a: Args, page: Any = None) -> dict[str, Any]:
        words = _Words({k: v for k, v in a.items() if isinstance(v, (str, int, float))})
        out = {"message": message.format_map(words), "success": True,
               **{k: a[k] for k in echo if k in a}}
        return {**out, **observed(ours, page)}

    return result


# -- the tools ------------------------------------------------------------------------------


def observe_tool(a: Args) -> str:
    return "wait_for" if a.get("waitFor") is not None else "snapshot"


def observe(a: Args) -> Args:
    wait = a.get("waitFor")
    if wait is None:
        return {}
    if not isinstance(wait, dict):
        raise InvalidArgument("waitFor is {elementId, timeout?} or {text, timeout?}")
    timeout = _ms(wait.get("timeout"), "waitFor.timeout", 5.0)
    return {"selector": _one(_rest(wait, "timeout"), "waitFor"), "timeout": timeout}


def observe_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    snap = screen_of(page)
    if snap is None:  # a snapshot ran: its page has one
        raise InvalidArgument("observe: no screen was read")
    out = observation(snap)
    wait = a.get("waitFor")
    if isinstance(wait, dict):
        found = ours.get("match")
        out["awaitTimeout"] = int(wait.get("timeout", 5000))
        if found:
            out["awaitedElement"] = {"text": found.get("text", ""),
                                     "bounds": bounds(tuple(found["bounds"]))
                                     if found.get("bounds") else None}
    return out


TAP_ACTIONS = {"tap": "tap", "focus": "tap", "doubleTap": "double_tap",
            "longPress": "long_press"}


def tap_tool(a: Args) -> str:
    action = a.get("action", "tap")
    if action not in TAP_ACTIONS:
        raise InvalidArgument(f"action is tap, doubleTap, longPress or focus, not {action!r}")
    return "execute" if a.get("searchUntil") is not None else TAP_ACTIONS[action]


def tap(a: Args) -> Args | list[Args]:
    if a.get("container") is not None:
        raise InvalidArgument("tapOn's container is not supported here: name the element "
                              "itself", hint="its elementId (resource-id) is the most "
                                             "precise; observe lists them")
    if a.get("selectionStrategy", "first") not in ("first", "random"):
        raise InvalidArgument("selectionStrategy is first or random")
    action = a.get("action", "tap")
    tries: list[dict[str, Any]] = [{"selector": s} for s in _element_of(a)]
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
                      {"tool": TAP_ACTIONS[action], "args": first}]}


def tap_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    return {"success": True, "action": a.get("action", "tap"),
            "message": "Tapped on element", **observed(ours, page)}


#: AutoMobile's IME actions over ADB (``ImeAction.ts``: its fallback without its service)
IME_KEYS = {"done": ["enter"], "send": ["enter"], "go": ["enter"], "next": ["tab"],
             "search": ["search"], "previous": ["shift_left", "tab"]}


def ime_steps(action: Any) -> list[dict[str, Any]]:
    if action not in IME_KEYS:
        raise InvalidArgument(f"imeAction is one of {', '.join(IME_KEYS)}, not {action!r}")
    return [{"tool": "press", "args": {"key": k}} for k in IME_KEYS[action]]


def ime_action(a: Args) -> Args:
    steps = ime_steps(a.get("action"))
    return steps[0]["args"] if len(steps) == 1 else {"steps": steps}


def input_tool(a: Args) -> str:
    ime = a.get("imeAction")
    return "type" if ime is None or IME_KEYS.get(ime) == ["enter"] else "execute"


def input(a: Args) -> Args:
    text = a.get("text")
    if not isinstance(text, str) or not text:
        raise InvalidArgument("text is required: the text the focused field should hold")
    typed: Args = {"text": text, "clear": True}  # AutoMobile sets the field's text
    if a.get("selector") is not None:
        typed["selector"] = _one(a["selector"], "selector")
    ime = a.get("imeAction")
    if ime is None:
        return typed
    steps = ime_steps(ime)
    if steps == [{"tool": "press", "args": {"key": "enter"}}]:
        return {**typed, "submit": True}
    return {"steps": [{"tool": "type", "args": typed}, *steps]}


def input_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    out = {"message": "Input text", "success": True, "text": a.get("text")}
    if a.get("imeAction"):
        out["imeAction"] = a["imeAction"]
    return {**out, **observed(ours, page)}


#: AutoMobile's buttons (``pressButton``/``pressKey``) as our key names
BUTTONS = ("home", "back", "menu", "power", "volume_up", "volume_down", "recent")


def press(field: str) -> Callable[[Args], Args]:
    def mapped(a: Args) -> Args:
        key = a.get(field)
        if key not in BUTTONS:
            raise InvalidArgument(f"{field} is one of {', '.join(BUTTONS)}, not {key!r}")
        return {"key": key}

    return mapped


def press_result(field: str, word: str) -> Callable[..., dict[str, Any]]:
    def result(ours: dict[str, Any], a: Args, page: Any = None) -> dict[str, Any]:
        from baremobile.android.keycodes import keycode

        return {"message": f"Pressed {word} {a.get(field)}", "success": True,
                field: a.get(field), "keyCode": keycode(a[field]), **observed(ours, page)}

    return result


OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _content_direction(a: Args) -> str:
    """Our scroll direction (where the content goes) for theirs: the finger's by default."""
    direction = a.get("direction")
    if direction not in OPPOSITE:
        raise InvalidArgument(f"direction is up, down, left or right, not {direction!r}")
    kind = a.get("gestureType", "swipeFingerTowardsDirection")
    if kind == "scrollTowardsDirection":
        return str(direction)
    if kind != "swipeFingerTowardsDirection":
        raise InvalidArgument("gestureType is swipeFingerTowardsDirection or "
                              "scrollTowardsDirection")
    return OPPOSITE[direction]


def swipe_tool(a: Args) -> str:
    return "scroll_until" if a.get("lookFor") is not None else "scroll"


def swipe(a: Args) -> Args:
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


def swipe_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    found = a.get("lookFor") is not None
    out: dict[str, Any] = {
        "success": True, "targetType": "element" if a.get("container") else "screen",
        "message": f"Swiped {a.get('direction')}" + (" and found element" if found else "")}
    if found:
        out["found"] = True
    return {**out, **observed(ours, page)}


def pinch(a: Args) -> Args:
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


def drag(a: Args) -> Args:
    for key in ("source", "target"):
        if key not in a:
            raise InvalidArgument(f"{key} is required: {{elementId}} or {{text}}")
    out: Args = {"from_selector": _one(a["source"], "source"),
                 "to_selector": _one(a["target"], "target")}
    if a.get("pressDurationMs") is not None:
        out["ms"] = int(a["pressDurationMs"])
    return out


def rotate(a: Args) -> Args:
    if a.get("orientation") not in ("portrait", "landscape"):
        raise InvalidArgument("orientation is portrait or landscape")
    return {"orientation": a["orientation"]}


def clipboard_tool(a: Args) -> str:
    action = a.get("action")
    tools = {"copy": "set_clipboard", "clear": "set_clipboard", "get": "get_clipboard",
             "paste": "press"}
    if action not in tools:
        raise InvalidArgument("action is copy, paste, clear or get")
    return tools[action]


def clipboard(a: Args) -> Args:
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


def clipboard_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    action = str(a.get("action"))
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


def tray_tool(a: Args) -> str:
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


def tray(a: Args) -> Args:
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


def tray_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    action = str(a.get("action"))
    wanted = a.get("notification") or {}
    message = {"open": "Opened system tray by swiping down from the status bar",
               "close": "Closed system tray",
               "find": "Found notification in system tray",
               "tap": f'Tapped notification action "{wanted.get("tapActionLabel")}"'
               if wanted.get("tapActionLabel") else "Tapped notification"}[action]
    return {"message": message, "success": True, **observed(ours, page)}


def launch_tool(a: Args) -> str:
    return "execute" if a.get("clearAppData") or a.get("coldBoot") else "launch"


def launch(a: Args) -> Args:
    app = _app_id(a)
    if not (a.get("clearAppData") or a.get("coldBoot")):
        return {"package": app}
    first = "clear_app_data" if a.get("clearAppData") else "stop_app"
    return {"steps": [{"tool": first, "args": {"package": app}},
                      {"tool": "launch", "args": {"package": app}}]}


def launch_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    app = _app_id(a)
    return {"message": f"Launched app {app}", "success": True, "packageName": app,
            **observed(ours, page)}


def terminate(a: Args) -> Args:
    app = _app_id(a)
    # is it installed (AutoMobile answers success either way, saying so), then force-stop
    return {"steps": [{"tool": "list_apps", "args": {"name": app}},
                      {"tool": "stop_app", "args": {"package": app}}],
            "stop_on_error": False}


def terminate_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
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


def install(a: Args) -> Args:
    path = a.get("apkPath", a.get("artifactPath"))
    if not isinstance(path, str) or not path:
        raise InvalidArgument("apkPath is required: the APK file's path on this computer")
    return {"apk": path}


def install_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    path = a.get("apkPath", a.get("artifactPath"))
    return {"message": f"Installed app from {path}", "success": True, "apkPath": path}


def keyboard_tool(a: Args) -> str:
    if a.get("action") in ("open", "close"):
        raise Unsupported(f"keyboard {a['action']} is not supported over ADB here",
                          hint="tap a text field to open the keyboard; pressButton back "
                               "closes it")
    if a.get("action") != "detect":
        raise InvalidArgument("action is open, close or detect")
    return "snapshot"


def keyboard_result(ours: dict[str, Any], a: Args, page: Any) -> dict[str, Any]:
    snap = screen_of(page)
    shown = snap is not None and any(w.role == "keyboard" for w in snap.tree.children)
    return {"success": True, "action": "detect", "open": shown,
            "message": "Keyboard is open" if shown else "Keyboard is closed"}


def open_link(a: Args) -> Args:
    if not isinstance(a.get("url"), str) or not a["url"]:
        raise InvalidArgument("url is required")
    return {"uri": a["url"]}


def active_device(a: Args) -> Args:
    if not isinstance(a.get("deviceId"), str) or not a["deviceId"]:
        raise InvalidArgument("deviceId is required")
    return {"device": a["deviceId"]}


def apps_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    return {"message": f"Found {ours.get('count', 0)} installed apps", "success": True,
            "apps": ours.get("packages", [])}


def devices_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    devices = [{"deviceId": d.get("serial"), "platform": "android", "status":
                "booted" if d.get("state", "device") == "device" else d.get("state"),
                "name": d.get("model") or d.get("serial")}
               for d in ours.get("devices") or [] if isinstance(d, dict)]
    return {"message": f"Found {len(devices)} android devices", "success": True,
            "devices": devices}


def doctor_result(ours: dict[str, Any], a: Args) -> dict[str, Any]:
    return {"success": True, "android": {
        "adb": "baremobile speaks the ADB protocol itself (no platform-tools needed)",
        "devices": [d.get("serial") for d in ours.get("devices") or []
                    if isinstance(d, dict)]},
        "ios": {"available": False, "message": NO_IOS}}


# -- executePlan ------------------------------------------------------------------------------

# -- schemas --------------------------------------------------------------------------------
