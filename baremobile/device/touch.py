"""Gestures on a device: which route this Android allows, and running a
:class:`~baremobile.android.gestures.GesturePlan` through it.

The routes, best first (see :mod:`baremobile.android.touch_events` for the why):

* ``input`` — single-pointer gestures ``input`` has a command for: a double tap as two
  ``input tap`` in one shell command on API 31+ (where ``input`` is a binder call into
  system_server, not a Java VM start), a drag as ``input draganddrop`` (API 26+);
* ``uinput`` — ``/system/bin/uinput`` (Android 11+; probed with ``command -v``): a
  virtual touch screen replays any plan with exact timing;
* ``sendevent`` — the real touch screen's node, found with ``getevent -lp``; the shell may
  write it up to Android 9 (or as root). On Android 10+ the attempt fails with the
  device's ``Permission denied`` and the caller gets :class:`~baremobile.errors.Unsupported`
  with those words.

A plan is pushed as a file (sync, binary-safe, any length) and run in one shell round
trip, so nothing between two frames waits for the network. The probe (``getevent -lp`` and
whether ``uinput`` exists) is cached per device; the screen's size and rotation are read
fresh for every gesture (``dumpsys window displays``), since the screen may have turned.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from baremobile.android.display import default_display
from baremobile.android.gestures import (
    GesturePlan,
    double_tap_plan,
    drag_plan,
)
from baremobile.android.shell_words import command_line, quote
from baremobile.android.touch_events import (
    INPUT_GAP_MS,
    Touchscreen,
    double_tap_timing,
    parse_getevent,
    pick_touchscreen,
    sendevent_script,
    uinput_script,
)
from baremobile.device.core import Device
from baremobile.errors import CommandFailed, Unsupported
from baremobile.safetext import decode

__all__ = ["Screen", "Probe", "Touch", "INPUT_DOUBLE_TAP_API", "UINPUT_API", "DRAG_API"]

#: ``input`` runs in system_server (no VM start per call) from API 31
INPUT_DOUBLE_TAP_API = 31
#: ``/system/bin/uinput`` ships from Android 11 (``frameworks/base/cmds/uinput``, 2020)
UINPUT_API = 30
#: ``input draganddrop`` (``Input.java`` of the Oreo era)
DRAG_API = 26
#: the shell may write ``/dev/input/event*`` up to Android 9 (SELinux)
EVDEV_MAX_API = 28

_MARK = "@@baremobile@@"
TMP = "/data/local/tmp"


@dataclass(frozen=True)
class Screen:
    """The display now: size in the current orientation, rotation (0–3), natural size."""

    width: int
    height: int
    rotation: int
    natural_w: int
    natural_h: int


@dataclass(frozen=True)
class Probe:
    """What the device offers for gestures (cached per device)."""

    api_level: int
    uinput: bool
    touchscreen: Touchscreen | None
    getevent: str  # what getevent printed (kept for the error messages)


#: what ``rotation`` greps out of ``dumpsys window displays``: the display headers (so
#: a virtual display listed before display 0 is told apart), sizes and rotations
_DISPLAY_LINES = quote("Display: mDisplayId=|init=|mRotation=|mCurrentRotation=")


def display_command(api_level: int) -> str:
    """The shell command that prints the display blocks and their rotations: ``dumpsys
    window displays`` — on Android ≤ 9 the whole window dump, whose rotation line
    (``mRotation=``) is not in the displays section."""
    section = "dumpsys window displays" if api_level >= 29 else "dumpsys window"
    return f"{section} | grep -E {_DISPLAY_LINES}"


def parse_screen(text: str) -> Screen | None:
    """Display 0's size and rotation from ``dumpsys window displays`` (read by
    :func:`baremobile.android.display.default_display`: a virtual display listed first is
    skipped, ``mRotation=1`` and ``ROTATION_90`` forms)."""
    d = default_display(text)
    if d is None:
        return None
    return Screen(d.current[0], d.current[1], d.rotation, d.natural[0], d.natural[1])


class Touch:
    """Gestures on one :class:`~baremobile.device.core.Device`."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._probe: Probe | None = None

    # -- what the device offers -----------------------------------------------------------
    def probe(self, *, refresh: bool = False) -> Probe:
        """``getevent -lp`` and ``command -v uinput``, in one round trip (cached)."""
        if self._probe is None or refresh:
            r = self.device.transport.shell(
                f"getevent -lp 2>&1; echo {_MARK}; command -v uinput")
            text = r.text
            getevent, _, rest = text.partition(_MARK)
            ts = pick_touchscreen(parse_getevent(getevent))
            self._probe = Probe(self.device.api_level, bool(rest.strip()), ts, getevent)
        return self._probe

    def screen(self, text: str | None = None) -> Screen:
        """The display's size and rotation now: ``text`` is :func:`display_command`'s output
        when the caller read it already (else it is read here). An unknown dumpsys layout
        gives ``wm size`` at rotation 0, natural as it is now."""
        if text is None:
            text = self.device.transport.shell(display_command(self.device.api_level)).text
        found = parse_screen(text)
        if found is None:
            w, h = self.device.screen_size()
            return Screen(w, h, 0, w, h)
        return found

    # -- running a plan -------------------------------------------------------------------
    def play(self, plan: GesturePlan, screen: Screen, *, timeout: float = 60.0) -> str:
        """Replay ``plan``; returns the route (``uinput`` or ``sendevent``).

        Raises :class:`~baremobile.errors.Unsupported` when neither route works here, with
        the device's words."""
        probe = self.probe()
        if probe.uinput:
            script = uinput_script(plan, rotation=screen.rotation, natural_w=screen.natural_w,
                                   natural_h=screen.natural_h)
            self._run_file("uinput", script.encode(), "json", timeout)
            return "uinput"
        ts = probe.touchscreen
        if ts is None:
            raise Unsupported(
                "this device has no touch screen event device the shell can see "
                "(getevent -lp lists no multi-touch panel: ABS_MT_POSITION_X/Y) "
                "and no /system/bin/uinput", device_output=probe.getevent.strip()[:500],
                hint="single-finger gestures still work (tap, swipe, long_press)")
        script = sendevent_script(plan, ts, rotation=screen.rotation,
                                  natural_w=screen.natural_w, natural_h=screen.natural_h)
        self._run_file("sh", script.encode(), "sh", timeout)
        return "sendevent"

    def _run_file(self, program: str, data: bytes, ext: str, timeout: float) -> None:
        path = f"{TMP}/baremobile-gesture-{secrets.token_hex(4)}.{ext}"
        self.device.transport.push(data, path)
        line = (f"{command_line([program, path])}; s=$?; "
                f"{command_line(['rm', '-f', path])}; exit $s")
        r = self.device.transport.shell(line, timeout=timeout)
        if r.exit_code == 0:
            return
        said = decode(r.stderr or r.stdout).strip()
        if program == "sh" and "Permission denied" in said and \
                self.device.api_level > EVDEV_MAX_API:
            raise Unsupported(
                f"the shell may not write the touch screen's event device: {said} "
                f"(Android {self._release()} / API {self.device.api_level}: SELinux has "
                "denied the shell write access to input devices since Android 10, and "
                "this device has no /system/bin/uinput)", device_output=said,
                hint="multi-finger gestures need Android 11+ (uinput), Android 9 or older, "
                     "or a rooted/userdebug device (adb root); single-finger gestures "
                     "(tap, swipe, long_press, drag) still work")
        if program == "uinput" and not said:
            said = self.device.transport.shell("logcat -d -s UINPUT:E -t 5").text.strip()
        raise CommandFailed(f"{program} could not replay the gesture (exit {r.exit_code})"
                            + (f": {said.splitlines()[-1]}" if said else ""),
                            command=line, exit_code=r.exit_code, output=said)

    def _release(self) -> str:
        return self.device.getprop("ro.build.version.release") or "?"

    # -- gestures with a route of their own -----------------------------------------------
    def double_tap(self, x: int, y: int, *, display: int = 0) -> dict[str, Any]:
        """Two taps the app takes for a double tap; returns the route and its timing model
        (``interval_ms``: the range the app measures between the taps)."""
        api = self.device.api_level
        if api >= INPUT_DOUBLE_TAP_API:
            timing = double_tap_timing("input")
            tap = command_line(self.device.tap_argv(x, y, display=display))
            self.device.transport.shell(f"{tap} && sleep {INPUT_GAP_MS / 1000:g} && {tap}").check()
            return {"route": "input", "interval_ms": [timing.low_ms, timing.high_ms]}
        screen = self.screen()
        plan = double_tap_plan(x, y, screen.width, screen.height)
        probe = self.probe()
        try:  # without uinput on API 29 the node is tried anyway: a root shell may write it
            route = self.play(plan, screen)
        except Unsupported as exc:
            vm = double_tap_timing("input-vm")
            raise Unsupported(
                f"a double tap needs two taps 40–300 ms apart; on API {api} each `input` "
                f"starts a Java VM ({vm.low_ms:.0f}–{vm.high_ms:.0f} ms) and {exc.message}",
                device_output=exc.device_output,
                hint="tap twice with the tap tool (apps may see two single taps), or use a "
                     "device with Android 11+") from None
        if route == "uinput":
            timing = double_tap_timing("uinput")
        else:
            ts = probe.touchscreen
            assert ts is not None
            timing = double_tap_timing("sendevent", sendevent_script(
                plan, ts, rotation=screen.rotation, natural_w=screen.natural_w,
                natural_h=screen.natural_h))
        return {"route": route, "interval_ms": [timing.low_ms, timing.high_ms]}

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int, *,
             display: int = 0) -> str:
        """Press, hold past the long-press timeout, move, lift; returns the route."""
        if self.device.api_level >= DRAG_API:
            base = ["input", "-d", str(display)] if display else ["input"]
            self.device.run([*base, "draganddrop", str(x1), str(y1), str(x2), str(y2),
                             str(duration_ms)], timeout=duration_ms / 1000 + 30)
            return "input"
        screen = self.screen()
        return self.play(drag_plan(x1, y1, x2, y2, screen.width, screen.height,
                                   duration_ms=duration_ms), screen)
