"""SharedPreferences verbs of :class:`~baremobile.page.Page`: read, set, remove and clear an
app's preferences — without a service on the phone, through ``run-as`` (debuggable apps
only: ``NOT_DEBUGGABLE`` otherwise). The file is read, edited and written back as Android
writes it (:mod:`baremobile.android.prefs`, :mod:`baremobile.device.prefs`).

A running app holds its preferences in memory and writes them all back on its next
commit, so these verbs stop the app first (``stop_app=True``, the default): it reads the
new values when it starts again.
"""

from __future__ import annotations

from typing import Any

from baremobile.android import prefs
from baremobile.android.shell_words import validate_package
from baremobile.page.base import PageBase
from baremobile.page.steps import verb

__all__ = ["PrefsVerbs"]

_KIND_OF_TAG = {tag: kind for kind, tag in prefs.TYPES.items()}


def _as_data(e: prefs.Entry) -> dict[str, Any]:
    kind = _KIND_OF_TAG.get(e.tag, e.tag.upper())
    if e.tag == "set":
        return {"type": kind, "value": list(e.items)}
    if e.tag == "null":
        return {"type": "NULL", "value": None}
    return {"type": kind, "value": e.value}


class PrefsVerbs(PageBase):
    """An app's SharedPreferences (see the module's docs)."""

    @verb()
    def preferences(self, package: str, file: str) -> dict[str, dict[str, Any]]:
        """The preferences in ``package``'s ``shared_prefs/FILE.xml``: ``{key: {"type",
        "value"}}`` (types ``STRING``, ``INT``, ``LONG``, ``FLOAT``, ``BOOLEAN``,
        ``STRING_SET``; values as the file holds them). A missing file is empty."""
        text = self._prefs.read(package, file)
        return {e.name: _as_data(e) for e in prefs.parse(text)}

    @verb(secret=("value",))
    def set_preference(self, package: str, file: str, key: str, value: Any,
                       type: str = "STRING", *, stop_app: bool = True  # noqa: A002
                       ) -> dict[str, dict[str, Any]]:
        """Set ``key`` in ``package``'s ``shared_prefs/FILE.xml`` to ``value`` of ``type``
        (``value`` None removes it); the file is created when missing. Returns the
        preferences as written (read back from the device)."""
        return self._edit(package, file, stop_app,
                          lambda entries: prefs.set_value(entries, key, value, type))

    @verb()
    def remove_preference(self, package: str, file: str, key: str, *,
                          stop_app: bool = True) -> dict[str, dict[str, Any]]:
        """Remove ``key`` from ``package``'s ``shared_prefs/FILE.xml`` (absent: nothing
        changes). Returns the preferences read back."""
        return self._edit(package, file, stop_app, lambda entries: prefs.remove(entries, key))

    @verb()
    def clear_preferences(self, package: str, file: str, *,
                          stop_app: bool = True) -> dict[str, dict[str, Any]]:
        """Remove every key of ``package``'s ``shared_prefs/FILE.xml`` (an empty map stays).
        The old file is not read, so this also repairs one no other verb can read
        (``INVALID_PREFERENCES``). Returns the preferences read back (none)."""
        package = validate_package(package)
        prefs.check_file_name(file)
        return self._write(package, file, stop_app, [])

    def _edit(self, package: str, file: str, stop_app: bool,
              change: Any) -> dict[str, dict[str, Any]]:
        package = validate_package(package)
        prefs.check_file_name(file)
        change([])  # the arguments are checked before anything is sent
        entries = prefs.parse(self._prefs.read(package, file))
        return self._write(package, file, stop_app, change(entries))

    def _write(self, package: str, file: str, stop_app: bool,
               entries: list[prefs.Entry]) -> dict[str, dict[str, Any]]:
        text = prefs.render(entries)  # refuses what would not read back, before the app stops
        if stop_app:
            self.device.force_stop(package)
        self._prefs.write(package, file, text)
        return {e.name: _as_data(e) for e in prefs.parse(
            self._prefs.read(package, file))}
