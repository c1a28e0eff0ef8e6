"""Device verbs of :class:`~baremobile.page.Page` beyond the screen: what the device is
(``device_info``, the foreground app), apps (list, labels, launch by label, uninstall),
files (push, pull, list, delete, append), rotation, battery, the clipboard, the log, and
the raw ``shell`` escape hatch. Thin wrappers over :mod:`baremobile.device_apps`,
:mod:`baremobile.device_files` and :mod:`baremobile.device_system`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baremobile import device_files, device_system
from baremobile.device import Focus
from baremobile.device_apps import App, Apps
from baremobile.errors import InvalidArgument

__all__ = ["DeviceVerbs"]


class DeviceVerbs:
    """Mixed into :class:`~baremobile.page.Page` (which provides ``_using`` and
    ``device``)."""

    device: Any
    transport: Any

    def _apps(self) -> Apps:
        apps = getattr(self, "_apps_cache", None)
        if apps is None:
            apps = self._apps_cache = Apps(self.device)
        return apps

    # -- apps ------------------------------------------------------------------------------
    def list_apps(self, name: str | None = None, *, kind: str = "all", versions: bool = False,
                  labels: bool = False) -> list[App]:
        """Installed apps of ``kind`` (``all``, ``user``, ``system``); ``name`` keeps those
        whose package — or label, with ``labels=True`` (read from each APK: slower the
        first time) — contains it; ``versions`` adds version names."""
        with self._using():  # type: ignore[attr-defined]
            return self._apps().list(kind=kind, name=name, versions=versions, labels=labels)

    def app_label(self, package: str) -> str | None:
        """The label the launcher shows for ``package`` (read from its APK)."""
        with self._using():  # type: ignore[attr-defined]
            return self._apps().label(package)

    def find_app(self, label: str) -> str:
        """The package of the launchable app labelled ``label`` (exact, ignoring case, or
        the one label containing it)."""
        with self._using():  # type: ignore[attr-defined]
            return self._apps().by_label(label)

    def uninstall(self, package: str, *, keep_data: bool = False) -> str:
        """Remove a user-installed app (``pm uninstall``); returns pm's answer."""
        with self._using():  # type: ignore[attr-defined]
            return self._apps().uninstall(package, keep_data=keep_data)

    # -- files -----------------------------------------------------------------------------
    def list_files(self, path: str, *, offset: int = 0, limit: int = 200) -> dict[str, Any]:
        """A page of a device directory: entries with ``name``, ``type``, ``size``,
        ``modified`` (device time, to the minute), directories first; ``total`` and
        ``has_more`` for paging."""
        with self._using():  # type: ignore[attr-defined]
            return device_files.list_dir(self.device, path, offset=offset, limit=limit)

    def delete_file(self, path: str, *, recursive: bool = False) -> None:
        """Delete a device file (a folder and its content only with ``recursive``)."""
        with self._using():  # type: ignore[attr-defined]
            device_files.delete(self.device, path, recursive=recursive)

    def append_file(self, path: str, data: bytes | str) -> int:
        """Add text (UTF-8) or bytes at the end of a device file (created if missing);
        returns its new size."""
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        with self._using():  # type: ignore[attr-defined]
            return device_files.append(self.device, path, payload)

    # -- the device ------------------------------------------------------------------------
    def rotation(self) -> dict[str, Any]:
        """``{"orientation", "rotation", "auto"}``: how the screen is turned now."""
        with self._using():  # type: ignore[attr-defined]
            return device_system.rotation(self.device)

    def rotate(self, orientation: str) -> dict[str, Any]:
        """Turn the screen: ``portrait``, ``landscape``, ``reverse_portrait``,
        ``reverse_landscape`` (locked there) or ``auto`` (follow the sensor); returns the
        orientation afterwards (an app that fixes its own keeps it)."""
        with self._using():  # type: ignore[attr-defined]
            return device_system.set_rotation(self.device, orientation)

    def battery(self) -> dict[str, Any]:
        """``{"level" (%), "status", "charging", "plugged"}``."""
        with self._using():  # type: ignore[attr-defined]
            return device_system.battery(self.device)

    def get_clipboard(self) -> str:
        """The clipboard's text — not possible over ADB on stock Android: raises
        :class:`~baremobile.errors.Unsupported` with the device's answer."""
        with self._using():  # type: ignore[attr-defined]
            device_system.clipboard_probe(self.device, "read")

    def set_clipboard(self, text: str) -> None:
        """Put text on the clipboard — not possible over ADB on stock Android: raises
        :class:`~baremobile.errors.Unsupported` with the device's answer."""
        if not isinstance(text, str):
            raise InvalidArgument(f"text must be a string, not {type(text).__name__}")
        with self._using():  # type: ignore[attr-defined]
            device_system.clipboard_probe(self.device, "set")

    def read_log(self, *, lines: int = 200, tag: str | None = None, since: Any = None,
                 package: str | None = None, pid: int | None = None,
                 priority: str | None = None) -> dict[str, Any]:
        """The device log (newest last) with filters: ``since`` (seconds since the epoch or
        ISO time), ``package`` or ``pid``, minimum ``priority`` (V D I W E F), ``tag``."""
        with self._using():  # type: ignore[attr-defined]
            return device_system.logcat(self.device, lines=lines, tag=tag, since=since,
                                        package=package, pid=pid, priority=priority)

    # -- the device ---------------------------------------------------------------------
    def device_info(self) -> dict[str, Any]:
        """Model, Android version, API level, screen size (as the screen is turned now) and
        density, orientation, battery, foreground app."""
        with self._using():  # type: ignore[attr-defined]
            props = self.device.props()
            w, h = self.device.screen_size()
            turned = device_system.rotation(self.device)
            if turned["rotation"] % 2:
                w, h = h, w
            focus = self.device.focus()
            return {
                "serial": self.serial,  # type: ignore[attr-defined]
                "transport": self.transport.kind,
                "manufacturer": props.get("ro.product.manufacturer", ""),
                "model": props.get("ro.product.model", ""),
                "android": props.get("ro.build.version.release", ""),
                "api_level": self.device.api_level,
                "screen": {"width": w, "height": h, "density": self.device.density()},
                "orientation": turned,
                "battery": device_system.battery(self.device),
                "foreground": {"package": focus.package, "activity": focus.activity}
                if focus
                else None,
            }

    def foreground(self) -> Focus | None:
        """The focused app (package, activity)."""
        with self._using():  # type: ignore[attr-defined]
            return self.device.focus()

    def apps(self, *, third_party: bool = False) -> list[str]:
        """Installed package names (``third_party=True``: only user-installed apps)."""
        with self._using():  # type: ignore[attr-defined]
            return self.device.packages(third_party=third_party)

    def logcat(self, *, lines: int = 200, tag: str | None = None) -> str:
        with self._using():  # type: ignore[attr-defined]
            return self.device.logcat(lines=lines, tag=tag)

    def push(self, data: bytes | str | Path, device_path: str) -> None:
        """Copy ``data`` (bytes, or the path of a local file) to ``device_path``."""
        if isinstance(data, (bytes, bytearray, memoryview)):
            payload = bytes(data)
        elif isinstance(data, (str, Path)):
            try:
                payload = Path(data).read_bytes()
            except OSError as exc:
                raise InvalidArgument(
                    f"cannot read local file {str(data)!r}: {exc.strerror or exc}",
                    hint="pass bytes to push content, or the path of an existing file",
                ) from None
        else:
            raise InvalidArgument(f"push takes bytes or a local path, not {type(data).__name__}")
        with self._using():  # type: ignore[attr-defined]
            self.transport.push(payload, device_path)

    def pull(self, device_path: str) -> bytes:
        """The contents of ``device_path`` on the device (in memory: for big files, use
        :meth:`pull_into`)."""
        with self._using():  # type: ignore[attr-defined]
            return self.transport.pull(device_path)

    def pull_into(self, device_path: str, sink: Any) -> int:
        """Stream ``device_path`` into ``sink`` (an open binary file, anything with
        ``write(bytes)``) as it arrives; returns the byte count. Memory stays small
        whatever the file's size; a failure of the sink (a full disk) is raised as is."""
        with self._using():  # type: ignore[attr-defined]
            return self.transport.pull_into(device_path, sink)

    def shell(self, command: str, *, timeout: float | None = None) -> str:
        """Run a raw shell command and return its stdout (raises on a non-zero exit).

        An escape hatch: the command line is passed to the device's shell as written.
        """
        with self._using():  # type: ignore[attr-defined]
            return self.transport.shell(command, timeout=timeout).check().text
