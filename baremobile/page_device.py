"""Device verbs of :class:`~baremobile.page.Page` beyond the screen: apps (list, labels,
launch by label, uninstall), files (list, delete, append), rotation, battery, the
clipboard, the log. Thin wrappers over :mod:`baremobile.device_apps`,
:mod:`baremobile.device_files` and :mod:`baremobile.device_system`.
"""

from __future__ import annotations

from typing import Any

from baremobile import device_files, device_system
from baremobile.device_apps import App, Apps
from baremobile.errors import InvalidArgument

__all__ = ["DeviceVerbs"]


class DeviceVerbs:
    """Mixed into :class:`~baremobile.page.Page` (which provides ``_using`` and
    ``device``)."""

    device: Any

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

