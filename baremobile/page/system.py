"""System verbs of :class:`~baremobile.page.Page`: what the device is (``device_info``,
the foreground app), rotation, battery, the clipboard, the log, and the raw ``shell``
escape hatch. Thin wrappers over :class:`baremobile.device.system.System` and
:class:`baremobile.device.core.Device`.
"""

from __future__ import annotations

import warnings
from typing import Any

from baremobile.android import logtime
from baremobile.android.shell_words import number
from baremobile.device.core import Focus
from baremobile.errors import InvalidArgument
from baremobile.page.base import PageBase
from baremobile.page.steps import verb

__all__ = ["SystemVerbs"]


class SystemVerbs(PageBase):
    """The device beyond the screen's content (see the module's docs)."""

    @verb()
    def device_info(self) -> dict[str, Any]:
        """Model, Android version, API level, screen size (as the screen is turned now) and
        density, orientation, battery, foreground app."""
        props = self.device.props()
        w, h = self.device.screen_size()
        turned = self._system.rotation()
        if turned["rotation"] % 2:
            w, h = h, w
        focus = self.device.focus()
        return {
            "serial": self.serial,
            "transport": self.transport.kind,
            "manufacturer": props.get("ro.product.manufacturer", ""),
            "model": props.get("ro.product.model", ""),
            "android": props.get("ro.build.version.release", ""),
            "api_level": self.device.api_level,
            "screen": {"width": w, "height": h, "density": self.device.density()},
            "orientation": turned,
            "battery": self._system.battery(),
            "foreground": {"package": focus.package, "activity": focus.activity}
            if focus
            else None,
        }

    @verb()
    def foreground(self) -> Focus | None:
        """The focused app (package, activity)."""
        return self.device.focus()

    @verb()
    def rotation(self) -> dict[str, Any]:
        """``{"orientation", "rotation", "auto"}``: how the screen is turned now."""
        return self._system.rotation()

    @verb(acts=True)
    def rotate(self, orientation: str) -> dict[str, Any]:
        """Turn the screen: ``portrait``, ``landscape``, ``reverse_portrait``,
        ``reverse_landscape`` (locked there) or ``auto`` (follow the sensor); returns the
        orientation afterwards (an app that fixes its own keeps it)."""
        return self._system.set_rotation(orientation)

    @verb()
    def screen_size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels as the screen is turned now."""
        w, h = self.device.screen_size()
        if self._system.rotation()["rotation"] % 2:
            w, h = h, w
        return w, h

    @verb(acts=True)
    def statusbar(self, what: str) -> None:
        """Open the notification shade (``"notifications"``) or quick settings
        (``"quick_settings"``), or close them (``"collapse"``)."""
        self._system.statusbar(what)

    @verb()
    def battery(self) -> dict[str, Any]:
        """``{"level" (%), "status", "charging", "plugged"}``."""
        return self._system.battery()

    @verb()
    def get_clipboard(self) -> str:
        """The clipboard's text — not possible over ADB on stock Android: raises
        :class:`~baremobile.errors.Unsupported` with the device's answer."""
        self._system.clipboard_probe("read")

    @verb(secret=("text",))
    def set_clipboard(self, text: str) -> None:
        """Put text on the clipboard — not possible over ADB on stock Android: raises
        :class:`~baremobile.errors.Unsupported` with the device's answer."""
        if not isinstance(text, str):
            raise InvalidArgument(f"text must be a string, not {type(text).__name__}")
        self._system.clipboard_probe("set")

    @verb()
    def read_log(self, *, lines: int = 200, tag: str | None = None, since: Any = None,
                 package: str | None = None, pid: int | None = None,
                 priority: str | None = None, until: Any = None) -> dict[str, Any]:
        """The device log (newest last) with filters: ``since`` and ``until`` (seconds since
        the epoch or ISO time; without a zone, the device's local time), ``package`` or
        ``pid``, minimum ``priority`` (V D I W E F), ``tag``. With ``until``: the newest
        ``lines`` lines logged at or before it."""
        if until is None:
            return self._system.logcat(lines=lines, tag=tag, since=since,
                                        package=package, pid=pid, priority=priority)
        offset = logtime.parse_offset(self.device.run(["date", "+%z"]).text)
        cut = logtime.local_time(until, offset)  # checked before the log is read
        lines = number("lines", lines, minimum=1, maximum=100_000)
        out = self._system.logcat(lines=100_000, tag=tag, since=since,
                                   package=package, pid=pid, priority=priority)
        kept = logtime.cut_until(str(out["log"]), cut).splitlines(keepends=True)
        out["log"] = "".join(kept[-lines:])
        out["until"] = cut.isoformat(sep=" ", timespec="milliseconds")
        return out

    @verb()
    def logcat(self, *, lines: int = 200, tag: str | None = None) -> str:
        """The newest ``lines`` lines of the device log.

        .. deprecated:: 0.1
           Use :meth:`read_log`, which also filters by time, package, pid and priority and
           returns ``{"log": text, ...}``."""
        warnings.warn("Page.logcat() is deprecated: use Page.read_log(...)['log']",
                      DeprecationWarning, stacklevel=3)
        return str(self._system.logcat(lines=lines, tag=tag)["log"])

    @verb(acts=True, waits="timeout")
    def shell(self, command: str, *, timeout: float | None = None) -> str:
        """Run a raw shell command and return its stdout (raises on a non-zero exit).

        An escape hatch: the command line is passed to the device's shell as written.
        """
        return self.transport.shell(command, timeout=timeout).check().text
