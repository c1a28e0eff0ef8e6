"""AutoMobile's ``ide/*`` endpoints on our daemon (``automobile-daemon-socket-api.md``).

* ``ide/ping`` — ``{ok, timestamp}`` (and our ``version``);
* ``ide/status`` — ``version``, ``releaseVersion``; ``android.accessibilityService`` and
  ``ios`` are null: baremobile puts no service on the device (``service: "none"`` says so);
* ``ide/listFeatureFlags`` / ``ide/setFeatureFlag`` — the session defaults that exist, as
  flags: ``observe`` (``config.mode``: ``"snapshot"`` or ``"diff"``), ``settle``,
  ``busyWait`` and ``waitTimeout`` (``config.seconds``), ``maxChars`` (``config.chars``).
  Without ``sessionId`` they are the daemon's defaults for new sessions; with it, that
  session's. Turning a flag off sets its off value (no observing, no settling, no waiting
  for a busy device, no size limit); ``waitTimeout`` cannot be off (a wait always ends):
  off puts the default back;
* ``ide/setKeyValue`` / ``ide/removeKeyValue`` / ``ide/clearKeyValueFile`` — an app's
  SharedPreferences through ``run-as`` (:class:`~baremobile.page.prefs.PrefsVerbs`), on
  the device's page under its lock; ``NOT_DEBUGGABLE`` for a release build;
* ``ide/updateService`` — ``NO_ON_DEVICE_SERVICE``: there is none to update.

``ide/getNavigationGraph`` lives with the traces that build the graph.
"""

from __future__ import annotations

import math
import time
from typing import Any

from baremobile.android.prefs import check_file_name
from baremobile.daemon.errors import NoOnDeviceService
from baremobile.daemon.sessions import policy_of
from baremobile.errors import InvalidArgument
from baremobile.tools.session import Options

__all__ = ["FLAGS", "HANDLERS"]

_DEFAULTS = Options()

#: flag key → (the ``Options`` field, what ``config`` holds, what it means)
FLAGS: dict[str, tuple[str, str | None, str]] = {
    "observe": ("observe", "mode", "acting tools answer with the screen after them "
                                   "(config.mode: snapshot, or diff: only what changed)"),
    "settle": ("settle", "seconds", "seconds to wait after an action before observing"),
    "busyWait": ("busy_wait", "seconds", "seconds a call waits for another call on the "
                                         "same device before answering BUSY"),
    "waitTimeout": ("timeout", "seconds", "seconds wait_for, wait_for_text and wait_stable "
                                          "wait when a call gives no timeout"),
    "maxChars": ("max_chars", "chars", "the longest snapshot or log text a tool returns"),
}


def _flag(key: str, options: Options) -> dict[str, Any]:
    field, unit, description = FLAGS[key]
    value = getattr(options, field)
    if key == "observe":
        enabled = bool(value)
        config: dict[str, Any] | None = {"mode": "diff" if value == "diff" else "snapshot"} \
            if enabled else None
    elif key == "waitTimeout":
        enabled, config = True, {"seconds": value}
    elif key == "maxChars":
        enabled = value is not None
        config = {"chars": value} if enabled else None
    else:
        enabled = bool(value and value > 0)
        config = {"seconds": value}
    return {"key": key, "enabled": enabled, "config": config, "description": description}


def _options(server: Any, params: dict[str, Any]) -> tuple[Options, str | None]:
    name = params.get("sessionId", params.get("session"))
    if name is None:
        return server.hub.defaults, None
    return server.hub.session(name).options, name


def _m_ping(server: Any, params: dict[str, Any], conn: Any) -> Any:
    return {"ok": True, "timestamp": int(time.time() * 1000), "version": server.version}


def _m_status(server: Any, params: dict[str, Any], conn: Any) -> Any:
    return {"version": server.version, "releaseVersion": server.version,
            "android": {"accessibilityService": None}, "ios": None, "service": "none",
            "note": "baremobile drives devices over ADB alone: no on-device service, no "
                    "helper APK, nothing to update"}


def _m_list_flags(server: Any, params: dict[str, Any], conn: Any) -> Any:
    options, session = _options(server, params)
    out: dict[str, Any] = {"flags": [_flag(k, options) for k in FLAGS]}
    if session is not None:
        out["sessionId"] = session
    return out


def _seconds(config: Any, key: str, limit: float) -> float | None:
    if not isinstance(config, dict) or "seconds" not in config:
        return None
    value = config["seconds"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or not 0 <= value <= limit:
        raise InvalidArgument(f"{key}: config.seconds must be a number of seconds "
                              f"(0–{limit:g}), not {value!r}")
    return float(value)


def _m_set_flag(server: Any, params: dict[str, Any], conn: Any) -> Any:
    key, enabled, config = params.get("key"), params.get("enabled"), params.get("config")
    if not isinstance(key, str) or key not in FLAGS:
        raise InvalidArgument(f"there is no feature flag {key!r}",
                              hint="flags: " + ", ".join(FLAGS))
    if not isinstance(enabled, bool):
        raise InvalidArgument("params.enabled must be true or false")
    if config is not None and not isinstance(config, dict):
        raise InvalidArgument("params.config must be an object or null")
    options, _ = _options(server, params)
    field = FLAGS[key][0]
    if key == "observe":
        mode = (config or {}).get("mode", "snapshot")
        if mode not in ("snapshot", "diff"):
            raise InvalidArgument(f"observe: config.mode is snapshot or diff, not {mode!r}")
        value: Any = ("diff" if mode == "diff" else True) if enabled else False
    elif key == "maxChars":
        chars = (config or {}).get("chars", _DEFAULTS.max_chars)
        if isinstance(chars, bool) or not isinstance(chars, int) or \
                not 200 <= chars <= 1_000_000:
            raise InvalidArgument(f"maxChars: config.chars is 200–1000000, not {chars!r}")
        value = chars if enabled else None
    else:
        limit = 60.0 if key == "settle" else 600.0
        given = _seconds(config, key, limit)
        default = getattr(_DEFAULTS, field)
        if key == "waitTimeout":
            value = given if enabled and given is not None else default
        elif enabled:
            value = given if given is not None else (getattr(options, field) or default)
        else:
            value = 0.0
    setattr(options, field, value)
    return _flag(key, options)


def _prefs_params(params: dict[str, Any], *keys: str) -> dict[str, Any]:
    out = {}
    for k in ("deviceId", "appId", "fileName", *keys):
        value = params.get(k)
        if not isinstance(value, str) or not value:
            raise InvalidArgument(f"params.{k} must be a non-empty string",
                                  hint="deviceId: an ADB serial; appId: the package name; "
                                       "fileName: the SharedPreferences file, without .xml")
        out[k] = value
    check_file_name(out["fileName"])  # before the device is even looked up
    return out


def _on_page(server: Any, params: dict[str, Any], device: str, run: Any) -> Any:
    """Run ``run(page)`` on ``device``'s page — a device the client may name (the daemon's
    one gate, :meth:`~baremobile.daemon.hub.Hub.gate`, in the request's limits) — under its
    lock (``BUSY`` after the default busy wait when a call is acting on it)."""
    pages = server.hub.gate(policy_of(params))
    page = pages.page(server.hub.spec_of(device))
    with pages.acting(page, server.hub.defaults.busy_wait):
        return run(page)


def _m_set_key_value(server: Any, params: dict[str, Any], pending: Any) -> Any:
    p = _prefs_params(params, "key")
    if "value" not in params:
        raise InvalidArgument("params.value is required: a string, or null to remove the key")
    value, kind = params["value"], params.get("type")
    if value is not None and not isinstance(value, (str, list)):
        raise InvalidArgument("params.value must be a string or null")
    if not isinstance(kind, str):
        raise InvalidArgument("params.type must be STRING, INT, LONG, FLOAT, BOOLEAN or "
                              "STRING_SET")
    _on_page(server, params, p["deviceId"], lambda page: page.set_preference(
        p["appId"], p["fileName"], p["key"], value, kind))
    return {"success": True}


def _m_remove_key_value(server: Any, params: dict[str, Any], pending: Any) -> Any:
    p = _prefs_params(params, "key")
    _on_page(server, params, p["deviceId"], lambda page: page.remove_preference(
        p["appId"], p["fileName"], p["key"]))
    return {"success": True}


def _m_clear_file(server: Any, params: dict[str, Any], pending: Any) -> Any:
    p = _prefs_params(params)
    _on_page(server, params, p["deviceId"], lambda page: page.clear_preferences(
        p["appId"], p["fileName"]))
    return {"success": True}


def _m_update_service(server: Any, params: dict[str, Any], conn: Any) -> Any:
    platform = params.get("platform", "android")
    if platform == "ios":
        raise NoOnDeviceService("baremobile drives Android only: there is no iOS service "
                                "(CtrlProxy) to restart")
    raise NoOnDeviceService("there is no on-device service to update: baremobile drives "
                            "the device over ADB alone (no accessibility service APK)")


#: method → (handler, runs in a worker thread, doc)
HANDLERS: dict[str, tuple[Any, bool, str]] = {
    "ide/ping": (_m_ping, False, "liveness: {ok, timestamp}"),
    "ide/status": (_m_status, False, "version, releaseVersion; no on-device service"),
    "ide/listFeatureFlags": (_m_list_flags, False,
                             "{sessionId?}: the session defaults as flags"),
    "ide/setFeatureFlag": (_m_set_flag, False, "{key, enabled, config?, sessionId?}"),
    "ide/setKeyValue": (_m_set_key_value, True, "{deviceId, appId, fileName, key, value, "
                                                "type}: SharedPreferences via run-as"),
    "ide/removeKeyValue": (_m_remove_key_value, True,
                           "{deviceId, appId, fileName, key}"),
    "ide/clearKeyValueFile": (_m_clear_file, True, "{deviceId, appId, fileName}"),
    "ide/updateService": (_m_update_service, False, "answers NO_ON_DEVICE_SERVICE"),
}
