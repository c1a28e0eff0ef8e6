"""The device's state beyond the screen's content: rotation, battery, the clipboard, the log.

* **Rotation** (orientation names from the rotation and the natural size, see
  :mod:`baremobile.android.display`) is what ``WindowManager`` reads from two system settings
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
  minimum priority. Several processes, or one before Android 7 (no ``--pid``; brief
  format), are filtered here on the pid each line carries
  (:func:`baremobile.android.logs.keep_pids`, every ``-v`` format).
"""

from __future__ import annotations

from typing import Any, NoReturn

from baremobile.android.battery import STATUS as BATTERY_STATUS
from baremobile.android.battery import parse_battery
from baremobile.android.display import (
    ORIENTATIONS,
    orientation_of,
    rotation_for,
)
from baremobile.android.logs import keep_pids
from baremobile.android.logtime import log_time
from baremobile.android.processes import parse_ps
from baremobile.android.shell_words import (
    command_line,
    number,
    validate_log_tag,
    validate_package,
)
from baremobile.device.core import Device
from baremobile.device.touch import Touch, display_command
from baremobile.errors import InvalidArgument, Unsupported

__all__ = ["BATTERY_STATUS", "ORIENTATIONS", "STATUSBAR", "System"]

_PRIORITIES = "VDIWEF"


#: What ``statusbar`` does → ``cmd statusbar`` (``StatusBarShellCommand``) verbs.
STATUSBAR = {
    "notifications": "expand-notifications",
    "quick_settings": "expand-settings",
    "collapse": "collapse",
}


class System:
    """The device beyond the screen's content, over a :class:`Device`: display 0 and
    rotation, battery, the status bar panels, the clipboard probe, the log."""

    def __init__(self, device: Device) -> None:
        self.device = device

    def rotation(self) -> dict[str, Any]:
        """``{"orientation", "rotation", "auto"}``: how the screen is turned now and whether it
        follows the sensor. The orientation is named from the rotation **and** the natural
        size: a landscape-natural tablet or head unit at rotation 0 is landscape."""
        text = self.device.transport.shell(
            f"settings get system accelerometer_rotation; {display_command(self.device.api_level)}"
        ).text
        first, _, rest = text.partition("\n")
        shown = Touch(self.device).screen(rest)
        return {"orientation": orientation_of(shown.rotation, (shown.natural_w, shown.natural_h)),
                "rotation": shown.rotation, "auto": first.strip() == "1"}

    def set_rotation(self, orientation: str) -> dict[str, Any]:
        """Turn the screen: ``portrait``, ``landscape``, ``reverse_portrait``,
        ``reverse_landscape`` (locks it there) or ``auto`` (follow the sensor again); returns
        :func:`rotation` afterwards. The ``user_rotation`` for a name depends on the display's
        natural orientation (``DisplayRotation``)."""
        if orientation == "auto":
            commands = [["settings", "put", "system", "accelerometer_rotation", "1"]]
        elif orientation in ORIENTATIONS:
            shown = Touch(self.device).screen()
            natural = (shown.natural_w, shown.natural_h)
            commands = [["settings", "put", "system", "accelerometer_rotation", "0"],
                        ["settings", "put", "system", "user_rotation",
                         str(rotation_for(orientation, natural))]]
        else:
            raise InvalidArgument(f"orientation must be one of {', '.join([*ORIENTATIONS, 'auto'])}"
                                  f", not {orientation!r}")
        self.device.run_all(commands)
        return self.rotation()

    def battery(self) -> dict[str, Any]:
        """``{"level", "status", "charging", "plugged"}`` from ``dumpsys battery`` (read by
        :func:`baremobile.android.battery.parse_battery`)."""
        b = parse_battery(self.device.run(["dumpsys", "battery"]).stdout)
        out: dict[str, Any] = {
            "level": b.percent,
            "status": BATTERY_STATUS.get(b.status or 1, "unknown"),
            "charging": b.status == 2,
            "plugged": list(b.plugged),
        }
        if b.temperature_tenths is not None:
            out["temperature_c"] = b.temperature_tenths / 10
        if b.frozen:
            out["simulated"] = True  # `dumpsys battery set/unplug` froze it
        return out

    def statusbar(self, what: str) -> None:
        """Open the notification shade (``notifications``) or quick settings
        (``quick_settings``), or close them (``collapse``).

        Android 7+ has ``cmd statusbar`` (``StatusBarShellCommand``); before it, ``cmd``
        does not exist and the status bar service is called by transaction code (``service
        call statusbar 1`` = ``expandNotificationsPanel``, ``2`` = ``collapsePanels``: the
        first two methods of ``IStatusBarService.aidl`` since Android 4.2) — quick settings
        has no stable code there."""
        if what not in STATUSBAR:
            raise InvalidArgument(f"statusbar takes one of {', '.join(STATUSBAR)}, not {what!r}")
        if self.device.api_level >= 24:
            self.device.run(["cmd", "statusbar", STATUSBAR[what]])
            return
        codes = {"notifications": "1", "collapse": "2"}
        if what not in codes:
            raise Unsupported("quick settings cannot be opened over ADB before Android 7 (no "
                              "`cmd statusbar`, and no stable transaction code for it)",
                              hint="open the notifications (statusbar notifications), then "
                                   "swipe down from their top")
        self.device.run(["service", "call", "statusbar", codes[what]])

    def clipboard_probe(self, what: str) -> NoReturn:
        """Ask the device whether its clipboard service takes shell commands; it does not on
        stock Android, so this raises :class:`Unsupported` with the device's answer."""
        r = self.device.transport.shell("cmd clipboard help 2>&1")
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

    def logcat(self, *, lines: int = 200, tag: str | None = None,
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
            r = self.device.run(["pidof", package], check=False)
            pids = [int(p) for p in r.text.split() if p.isdigit()]
            if r.exit_code == 127 or b"not found" in r.stderr:  # no pidof (toolbox): read ps
                procs = parse_ps(self.device.run(["ps"], check=False).stdout).by_pid.values()
                pids = sorted(p.pid for p in procs if p.package == package)
            if not pids:
                return {"log": "", "pids": [], "note": f"{package} is not running"}
        elif pid is not None:
            pids = [number("pid", pid, minimum=1, maximum=2**31 - 1)]
        here = len(pids) == 1 and self.device.api_level >= 24
        if here:
            argv.append(f"--pid={pids[0]}")
        elif pids and since is None:  # several processes, or no --pid (before Android 7):
            # filtered here on each line's pid (brief format before Android 7), so `-t N` must
            # reach past the other processes' lines
            argv[argv.index("-t") + 1] = str(min(100_000, max(lines * 50, 5000)))
        text = self.device.run(argv, timeout=60).text
        if pids and not here:
            text = keep_pids(text, pids)
        if since is not None or (pids and not here):  # keep the newest `lines`
            text = "".join(text.splitlines(keepends=True)[-lines:])
        return {"log": text, "pids": pids, "command": command_line(argv)}
