"""App verbs of :class:`~baremobile.page.Page`: list installed apps (kinds, versions,
labels read from their APKs), an app's label, the package behind a label, uninstall.
Install, stop, clear data, grant and revoke permissions.
Thin wrappers over :class:`baremobile.device.apps.Apps` (``launch`` by label is an acting
verb: :mod:`baremobile.page.actions`).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from baremobile.android.shell_words import validate_package
from baremobile.device.apps import App
from baremobile.localfiles import bytes_of
from baremobile.page.base import PageBase
from baremobile.page.steps import verb
from baremobile.transport.progress import Progress, shown

__all__ = ["AppVerbs"]


class AppVerbs(PageBase):
    """The installed apps (see the module's docs)."""

    @verb()
    def list_apps(self, name: str | None = None, *, kind: str = "all", versions: bool = False,
                  labels: bool = False) -> list[App]:
        """Installed apps of ``kind`` (``all``, ``user``, ``system``); ``name`` keeps those
        whose package — or label, with ``labels=True`` (read from each APK: slower the
        first time) — contains it; ``versions`` adds version names."""
        return self._apps.list(kind=kind, name=name, versions=versions, labels=labels)

    @verb()
    def app_label(self, package: str) -> str | None:
        """The label the launcher shows for ``package`` (read from its APK)."""
        return self._apps.label(package)

    @verb()
    def find_app(self, label: str) -> str:
        """The package of the launchable app labelled ``label`` (exact, ignoring case, or
        the one label containing it)."""
        return self._apps.by_label(label)

    @verb(acts=True)
    def uninstall(self, package: str, *, keep_data: bool = False) -> str:
        """Remove a user-installed app (``pm uninstall``); returns pm's answer."""
        return self._apps.uninstall(package, keep_data=keep_data)

    @verb()
    def install(self, apk: bytes | str | Path, *, replace: bool = True,
                progress: Progress | None = None) -> str:
        """Install an APK (its bytes, or the path of a local file): pushed, then ``pm install``
        (``replace``: over an installed version, keeping its data); returns pm's answer.
        ``progress``: ``progress(done_bytes, total_bytes)`` while the APK is pushed, or
        ``True`` for a bar. A file that is no APK is refused (``COMMAND_FAILED``, with pm's
        reason)."""
        payload = bytes_of(apk, "install")
        with shown(progress, "install"):
            return self._apps.install(payload, replace=replace)

    @verb(acts=True)
    def stop_app(self, package: str) -> None:
        """Force-stop an app (``am force-stop``): its processes end, its task goes (the next
        launch starts it afresh). A package that is not installed is ``INVALID_ARGUMENT``,
        as for the other app verbs (``am force-stop`` alone would answer success)."""
        self.device.force_stop(validate_package(package))

    @verb(acts=True)
    def clear_app_data(self, package: str) -> None:
        """Erase an app's data and stop it (``pm clear``), as a fresh install has it; a
        package that is not installed is ``INVALID_ARGUMENT``."""
        self.device.clear_data(validate_package(package))

    @verb()
    def grant_permission(self, package: str, permission: str) -> None:
        """Grant a runtime permission the app declares (``pm grant``), e.g.
        ``android.permission.CAMERA``."""
        self._apps.set_permission(package, permission, True)

    @verb()
    def revoke_permission(self, package: str, permission: str) -> None:
        """Revoke a runtime permission (``pm revoke``)."""
        self._apps.set_permission(package, permission, False)

    @verb()
    def apps(self, *, third_party: bool = False) -> list[str]:
        """Installed package names (``third_party=True``: only user-installed apps).

        .. deprecated:: 0.1
           Use :meth:`list_apps` (``kind="user"`` for ``third_party=True``), which returns
           :class:`~baremobile.device.apps.App` objects (``.package``)."""
        warnings.warn("Page.apps() is deprecated: use Page.list_apps(kind='user' | 'all') "
                      "and each App's .package", DeprecationWarning, stacklevel=3)
        found = self._apps.list(kind="user" if third_party else "all")
        return sorted(app.package for app in found)
