"""The device's state beyond the screen's content: rotation, battery, the clipboard, the log.

* **Rotation** is what ``WindowManager`` reads from two system settings
  (``DisplayRotation``'s settings observer): ``accelerometer_rotation`` (1 = follow the
  sensor) and ``user_rotation`` (``Surface.ROTATION_0..270`` = 0..3, used while the first
  is 0) — ``wm user-rotation lock|free`` writes the same two on the default display. The
  result is read back from ``dumpsys window displays`` (``mRotation=``): an app that fixes
  its orientation keeps it.
* **Battery**: ``dumpsys battery`` (``BatteryService.dumpInternal``): level/scale, status
  (``BatteryManager``: 2 charging, 5 full …), what it is plugged into.
* **Clipboard**: stock Android has no shell command for it — ``ClipboardService`` does not
  implement ``onShellCommand``, so ``cmd clipboard`` answers ``No shell command
  implementation.`` — and setting it needs an app (``ClipboardManager``). The probe asks
  the device and raises :class:`~baremobile.errors.Unsupported` with its answer.
* **logcat** (``system/logging/logcat``): ``-t 'TIME'`` (API 23+) for "since",
  ``--pid=`` (API 24+) for one process (the package's, from ``pidof``), ``*:P`` for a
  minimum priority.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any, NoReturn

from baremobile.android.shell_words import (
    command_line,
    number,
    quote,
    validate_log_tag,
    validate_package,
)
from baremobile.device.core import Device
from baremobile.device.touch import parse_screen
from baremobile.errors import InvalidArgument, Unsupported

__all__ = ["ORIENTATIONS", "STATUSBAR", "statusbar", "rotation", "set_rotation", "battery",
           "clipboard_probe", "logcat", "log_time", "BATTERY_STATUS"]

#: orientation names → ``Surface.ROTATION_*``
ORIENTATIONS = {"portrait": 0, "landscape": 1, "reverse_portrait": 2, "reverse_landscape": 3}
_NAMES = {v: k for k, v in ORIENTATIONS.items()}
#: ``BatteryManager.BATTERY_STATUS_*``
BATTERY_STATUS = {1: "unknown", 2: "charging", 3: "discharging", 4: "not charging", 5: "full"}
_PRIORITIES = "VDIWEF"


def rotation(device: Device) -> dict[str, Any]:
    """``{"orientation", "rotation", "auto"}``: how the screen is turned now and whether it
    follows the sensor."""
    pattern = quote("init=|mRotation=|mCurrentRotation=")
    text = device.transport.shell(
        f"settings get system accelerometer_rotation; dumpsys window displays | grep -E "
        f"{pattern}").text
    first, _, rest = text.partition("\n")
    screen = parse_screen(rest)
    r = screen.rotation if screen is not None else 0
    return {"orientation": _NAMES[r], "rotation": r, "auto": first.strip() == "1"}


def set_rotation(device: Device, orientation: str) -> dict[str, Any]:
    """Turn the screen: ``portrait``, ``landscape``, ``reverse_portrait``,
    ``reverse_landscape`` (locks it there) or ``auto`` (follow the sensor again); returns
    :func:`rotation` afterwards."""
    if orientation == "auto":
        commands = [["settings", "put", "system", "accelerometer_rotation", "1"]]
    elif orientation in ORIENTATIONS:
        commands = [["settings", "put", "system", "accelerometer_rotation", "0"],
                    ["settings", "put", "system", "user_rotation",
                     str(ORIENTATIONS[orientation])]]
    else:
        raise InvalidArgument(f"orientation must be one of {', '.join([*ORIENTATIONS, 'auto'])}"
                              f", not {orientation!r}")
    device.run_all(commands)
    return rotation(device)


def battery(device: Device) -> dict[str, Any]:
    """``{"level", "status", "charging", "plugged"}`` from ``dumpsys battery``."""
    text = device.run(["dumpsys", "battery"]).text
    fields = dict(re.findall(r"^\s+([\w ]+): (.*)$", text, re.M))

    def num(key: str) -> int | None:
        v = fields.get(key, "").strip()
        return int(v) if re.fullmatch(r"-?\d+", v) else None

    level, scale, status = num("level"), num("scale") or 100, num("status")
    plugged = [src for src, key in (("ac", "AC powered"), ("usb", "USB powered"),
                                    ("wireless", "Wireless powered"), ("dock", "Dock powered"))
               if fields.get(key, "").strip() == "true"]
    out: dict[str, Any] = {
        "level": round(level * 100 / scale) if level is not None and scale else None,
        "status": BATTERY_STATUS.get(status or 1, "unknown"),
        "charging": status == 2,
        "plugged": plugged,
    }
    if num("temperature") is not None:
        out["temperature_c"] = num("temperature") / 10  # type: ignore[operator]
    if "UPDATES STOPPED" in text:
        out["simulated"] = True  # `dumpsys battery set/unplug` froze it
    return out


#: What ``statusbar`` does → ``cmd statusbar`` (``StatusBarShellCommand``) verbs.
STATUSBAR = {
    "notifications": "expand-notifications",
    "quick_settings": "expand-settings",
    "collapse": "collapse",
}


def statusbar(device: Device, what: str) -> None:
    """Open the notification shade (``notifications``) or quick settings
    (``quick_settings``), or close them (``collapse``)."""
    if what not in STATUSBAR:
        raise InvalidArgument(f"statusbar takes one of {', '.join(STATUSBAR)}, not {what!r}")
    device.run(["cmd", "statusbar", STATUSBAR[what]])


def clipboard_probe(device: Device, what: str) -> NoReturn:
    """Ask the device whether its clipboard service takes shell commands; it does not on
    stock Android, so this raises :class:`Unsupported` with the device's answer."""
    r = device.transport.shell("cmd clipboard help 2>&1")
    said = r.text.strip()
    if "No shell command implementation" in said:
        why = ("Android's clipboard service has no shell command (the device answers "
               f"{said!r}), and only an app may {what} the clipboard")
    elif "Can't find service" in said:
        why = f"this device has no clipboard service (it answers {said!r})"
    else:
        why = ("this device's clipboard service has a shell command baremobile does not "
               f"know ({said.splitlines()[0] if said else 'no answer'!r})")
    raise Unsupported(f"cannot {what} the clipboard over ADB: {why}", device_output=said,
                      hint="to put text into a field, type it (the type tool); to read text, "
                           "take a snapshot; to hand text to an app, use an intent extra "
                           "(android.intent.extra.TEXT)")


def log_time(since: object) -> str:
    """``since`` (seconds since the epoch, or an ISO 8601 time — without a zone it is the
    device's local time) as logcat's ``-t`` argument."""
    if isinstance(since, bool):
        raise InvalidArgument("since must be a time, not a boolean")
    if isinstance(since, (int, float)):
        if not math.isfinite(since) or since < 0:
            raise InvalidArgument(f"since must be a time, not {since!r}")
        return f"{since:.3f}"
    if not isinstance(since, str):
        raise InvalidArgument(f"since is seconds since the epoch or an ISO time, not {since!r}")
    try:
        t = _dt.datetime.fromisoformat(since.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument(f"since {since!r} is not an ISO 8601 time",
                              hint="e.g. '2025-01-15T10:30:00' (device time) or seconds "
                                   "since the epoch") from None
    if t.tzinfo is not None:
        return f"{t.timestamp():.3f}"
    return t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"


def logcat(device: Device, *, lines: int = 200, tag: str | None = None,
           since: object = None, package: str | None = None, pid: int | None = None,
           priority: str | None = None) -> dict[str, Any]:
    """The log, newest last: ``{"log", "pids"}`` (``pids``: the processes a ``package``
    filter used). With ``since`` only what came after; ``package`` keeps that app's
    processes (none running: an empty log and a note)."""
    lines = number("lines", lines, minimum=1, maximum=100_000)
    argv = ["logcat", "-d"]
    argv += ["-t", log_time(since)] if since is not None else ["-t", str(lines)]
    if priority is not None and priority not in _PRIORITIES:
        raise InvalidArgument(f"priority must be one of {', '.join(_PRIORITIES)}, "
                              f"not {priority!r}")
    if tag is not None:
        name, _, prio = validate_log_tag(tag).partition(":")
        argv += ["-s", tag if prio else f"{name}:{priority or 'V'}"]
    elif priority is not None:
        argv.append(f"*:{priority}")
    pids: list[int] = []
    if package is not None and pid is not None:
        raise InvalidArgument("give package or pid, not both")
    if package is not None:
        validate_package(package)
        found = device.run(["pidof", package], check=False).text.split()
        pids = [int(p) for p in found if p.isdigit()]
        if not pids:
            return {"log": "", "pids": [], "note": f"{package} is not running"}
    elif pid is not None:
        pids = [number("pid", pid, minimum=1, maximum=2**31 - 1)]
    if len(pids) == 1:
        if device.api_level < 24:
            raise Unsupported("logcat --pid needs Android 7 (API 24)",
                              hint="read the log without a package filter")
        argv.append(f"--pid={pids[0]}")
    text = device.run(argv, timeout=60).text
    if len(pids) > 1:  # several processes: keep their lines (threadtime: date time PID ...)
        keep = {str(p) for p in pids}
        text = "".join(line for line in text.splitlines(keepends=True)
                       if len(line.split()) > 2 and line.split()[2] in keep)
    if since is not None:  # -t TIME gives everything after it; keep the newest `lines`
        text = "".join(text.splitlines(keepends=True)[-lines:])
    return {"log": text, "pids": pids, "command": command_line(argv)}
