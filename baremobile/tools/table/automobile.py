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

from typing import Any

from baremobile.timeouts import env_floor_s
from baremobile.tools.aliases import Alias
from baremobile.tools.table import automobile_calls as am
from baremobile.tools.table import automobile_plan as plan
from baremobile.tools.table.automobile_calls import TARGETING
from baremobile.tools.table.automobile_screen import (
    ACTION_OUT,
    DRAFT,
    OBSERVE_OUT,
    PLAN_OUT,
    SWIPE_OUT,
    observation,
)

__all__ = ["ALIASES", "SYSTEM", "TARGETING", "observation"]

SYSTEM = "automobile"

_PLATFORM = {"type": "string", "enum": ["android", "ios"], "description": "Platform"}

def _schema(props: dict[str, Any], required: tuple[str, ...] = (), *,
            targeted: bool = True, platform: bool = True) -> dict[str, Any]:
    """An AutoMobile input schema: ``props``, the platform and the targeting fields."""
    properties = dict(props)
    if platform:
        properties["platform"] = _PLATFORM
    if targeted:
        properties.update(TARGETING)
    out: dict[str, Any] = {"$schema": DRAFT, "type": "object", "properties": properties,
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


_APP = {"appId": {"type": "string", "description": "App package ID"}}
_BUTTON = {"type": "string", "enum": list(am.BUTTONS)}
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

#: the aliases by name (what a plan's steps are looked up in; filled below)
_BY_NAME: dict[str, Alias] = {}

ALIASES = (
    Alias("observe", SYSTEM, am.observe_tool, am.targeted(am.observe), am.observe_result,
          page=True, output=OBSERVE_OUT,
          description="Get screen view hierarchy",
          schema=_schema({"waitFor": {
              "description": "Wait for element to appear before returning observation",
              "type": "object", "properties": {
                  "elementId": {"type": "string"}, "text": {"type": "string"},
                  "timeout": {"type": "number", "description": "ms (default 5000)"}}},
              "raw": {"type": "boolean"}})),
    Alias("tapOn", SYSTEM, am.tap_tool, am.targeted(am.tap), am.tap_result, page=True,
          output=ACTION_OUT,
          description="Tap UI elements by text or ID",
          schema=_schema({
              "action": {"type": "string", "enum": list(am.TAP_ACTIONS),
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
    Alias("inputText", SYSTEM, am.input_tool, am.targeted(am.input), am.input_result, page=True,
          description="Input text",
          schema=_schema({"text": {"type": "string", "minLength": 1},
                          "imeAction": {"type": "string", "enum": list(am.IME_KEYS)},
                          "selector": {"type": "object"}}, ("text",))),
    Alias("clearText", SYSTEM, "type", am.targeted(lambda a: {"text": "", "clear": True}),
          am.said("Cleared text from input field"), page=True,
          description="Clear text from focused input", schema=_schema({})),
    _absent("selectAllText", "Select all text in focused input",
            f"Accessibility service selectAll failed: {_NO_SERVICE}"),
    Alias("pressButton", SYSTEM, "press", am.targeted(am.press("button")),
          am.press_result("button", "button"), page=True, description="Press hardware button",
          schema=_schema({"button": _BUTTON}, ("button",))),
    Alias("pressKey", SYSTEM, "press", am.targeted(am.press("key")), am.press_result("key", "key"),
          page=True, description="Press hardware key (same as pressButton)",
          schema=_schema({"key": _BUTTON}, ("key",))),
    Alias("swipeOn", SYSTEM, am.swipe_tool, am.targeted(am.swipe), am.swipe_result, page=True,
          output=SWIPE_OUT, description="Swipe/scroll on screen or elements",
          schema=_schema({
              "direction": {"type": "string", "enum": list(am.OPPOSITE),
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
    Alias("pinchOn", SYSTEM, "pinch", am.targeted(am.pinch), am.said("Pinched {direction}"),
          page=True, description="Pinch to zoom",
          schema=_schema({"direction": {"type": "string", "enum": ["in", "out"]},
                          "distanceStart": {"type": "number"},
                          "distanceEnd": {"type": "number"},
                          "scale": {"type": "number", "exclusiveMinimum": 0},
                          "duration": {"type": "number"},
                          "container": _element_schema("Element to pinch on")},
                         ("direction",))),
    Alias("dragAndDrop", SYSTEM, "drag", am.targeted(am.drag), am.said("Dragged element to target"),
          page=True, description="Drag and drop element",
          schema=_schema({"source": _element_schema("Source"),
                          "target": _element_schema("Target"),
                          "pressDurationMs": {"type": "number", "minimum": 600,
                                              "maximum": 3000},
                          "dragDurationMs": {"type": "number"},
                          "holdDurationMs": {"type": "number"}}, ("source", "target"))),
    _absent("shake", "Shake device", "shake is not supported over ADB (it needs an "
                                     "emulator's sensor console or an iOS simulator)"),
    Alias("imeAction", SYSTEM, lambda a: "press" if len(am.ime_steps(a.get("action"))) == 1
          else "execute", am.targeted(am.ime_action),
          am.said('Executed IME action "{action}"'), page=True,
          description="Perform IME action",
          schema=_schema({"action": {"type": "string", "enum": list(am.IME_KEYS)}},
                         ("action",))),
    Alias("keyboard", SYSTEM, am.keyboard_tool, am.targeted(lambda a: {}), am.keyboard_result,
          page=True, description="Open, close, or detect the on-screen keyboard",
          schema=_schema({"action": {"type": "string", "enum": ["open", "close", "detect"]}},
                         ("action",))),
    Alias("recentApps", SYSTEM, "recents", am.targeted(lambda a: {}), am.said("Opened recent apps"),
          page=True, description="Open recent apps", schema=_schema({})),
    Alias("homeScreen", SYSTEM, "home", am.targeted(lambda a: {}),
          am.said("Pressed home button to return to the home screen"), page=True,
          description="Go to home screen", schema=_schema({})),
    Alias("rotate", SYSTEM, "rotate", am.targeted(am.rotate),
          am.said("Rotated device to {orientation} orientation", "orientation"), page=True,
          when=lambda a: "platform" in a or "sessionUuid" in a,
          description="Rotate device orientation",
          schema=_schema({"orientation": {"type": "string", "enum": ["portrait", "landscape"]}},
                         ("orientation",))),
    Alias("clipboard", SYSTEM, am.clipboard_tool, am.targeted(am.clipboard), am.clipboard_result,
          page=True, description="Clipboard operations (copy/paste/clear/get)",
          schema=_schema({"action": {"type": "string",
                                     "enum": ["copy", "paste", "clear", "get"]},
                          "text": {"type": "string"}}, ("action",))),
    Alias("systemTray", SYSTEM, am.tray_tool, am.targeted(am.tray), am.tray_result, page=True,
          description="System tray actions for notifications (open/close/find/tap)",
          schema=_schema({"action": {"type": "string", "enum": ["open", "close", "find",
                                                                 "tap", "dismiss",
                                                                 "clearAll"]},
                          "notification": {"type": "object", "properties": {
                              "title": {"type": "string"}, "body": {"type": "string"},
                              "appId": {"type": "string"},
                              "tapActionLabel": {"type": "string"}}},
                          "awaitTimeout": {"type": "number"}}, ("action",))),
    Alias("openLink", SYSTEM, "open_url", am.targeted(am.open_link),
          am.said("Opened link {url}", "url"), page=True,
          floor=lambda: env_floor_s(90.0, "AUTOMOBILE_OPEN_LINK_MCP_TIMEOUT_MS",
                                    "AUTO_MOBILE_OPEN_LINK_MCP_TIMEOUT_MS"),
          description="Open URL in browser",
          schema=_schema({"url": {"type": "string"}}, ("url",))),
    Alias("launchApp", SYSTEM, am.launch_tool, am.targeted(am.launch), am.launch_result, page=True,
          floor=90.0, description="Launch app by package name",
          schema=_schema({**_APP, "clearAppData": {"type": "boolean"},
                          "coldBoot": {"type": "boolean"}}, ("appId",), platform=False)),
    Alias("terminateApp", SYSTEM, "execute", am.targeted(am.terminate), am.terminate_result,
          description="Terminate app by package name",
          schema=_schema(_APP, ("appId",), platform=False)),
    Alias("installApp", SYSTEM, "install_app", am.targeted(am.install), am.install_result,
          description="Install APK file",
          schema=_schema({"apkPath": {"type": "string", "description": "APK file path"}},
                         ("apkPath",), platform=False)),
    Alias("listApps", SYSTEM, "list_apps", am.targeted(lambda a: {}), am.apps_result,
          description="List installed apps", schema=_schema({}, platform=False)),
    Alias("listDevices", SYSTEM, "devices", lambda a: {}, am.devices_result,
          description="List devices", schema=_schema({}, targeted=False)),
    Alias("setActiveDevice", SYSTEM, "configure", am.targeted(am.active_device),
          am.said("Active device set to {deviceId}"),
          description="Set active device",
          schema=_schema({"deviceId": {"type": "string"}}, ("deviceId",))),
    Alias("doctor", SYSTEM, "devices", lambda a: {}, am.doctor_result,
          description="Run diagnostic checks", schema=_schema({}, targeted=False,
                                                            platform=False)),
    Alias("executePlan", SYSTEM, "execute",
          am.targeted(lambda a: plan.batch(a, _BY_NAME)),
          lambda ours, a: plan.result(ours, a, _BY_NAME),
          failure=lambda ours, a: plan.failed(ours, a, _BY_NAME), floor=600.0, output=PLAN_OUT,
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

_BY_NAME.update((a.name, a) for a in ALIASES)
