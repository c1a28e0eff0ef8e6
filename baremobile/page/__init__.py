"""``Page``: one device, its last snapshot's refs, and every agent verb.

>>> from baremobile import connect
>>> with connect("virtual") as page:                     # doctest: +SKIP
...     page.launch("com.android.settings")
...     print(page.snapshot())
...     page.tap(page.find(text="Network & internet")[0])

Verbs act on refs of the **last** snapshot (``[ref=N]``). Refs are stable within a Page: an
element keeps its number from snapshot to snapshot while it stays on screen, a new element
gets a new number, and a number is never given to another element (see
``docs/snapshot.md``). Wherever a ref is accepted, a selector works too:
``page.tap({"text": "OK"})`` or ``page.tap(Selector(desc_contains="send"))``.

The package: :mod:`~baremobile.page.base` (the state, the per-verb guard, observing,
resolving targets) under the verb families — :mod:`~baremobile.page.actions`,
:mod:`~baremobile.page.waits`, :mod:`~baremobile.page.editing`,
:mod:`~baremobile.page.gestures`,
:mod:`~baremobile.page.apps`, :mod:`~baremobile.page.files`,
:mod:`~baremobile.page.system`, :mod:`~baremobile.page.reading`,
:mod:`~baremobile.page.prefs`,
:mod:`~baremobile.page.web` — assembled here; :mod:`~baremobile.page.aio` is
:class:`AsyncPage`, generated from :class:`Page`.
"""

from __future__ import annotations

from typing import Any

from baremobile.page.apps import AppVerbs
from baremobile.page.editing import EditVerbs
from baremobile.page.files import FileVerbs
from baremobile.page.gestures import GestureVerbs
from baremobile.page.prefs import PrefsVerbs
from baremobile.page.reading import ReadVerbs
from baremobile.page.screenshot import Screenshot
from baremobile.page.selector import Selector, Target
from baremobile.page.steps import Step, StepObserver
from baremobile.page.system import SystemVerbs
from baremobile.page.waits import WaitVerbs
from baremobile.snapshot import Snapshot
from baremobile.transport import open_transport

__all__ = ["Page", "Selector", "Screenshot", "Step", "StepObserver", "Target", "connect",
           "snapshot"]


class Page(WaitVerbs, EditVerbs, GestureVerbs, AppVerbs, FileVerbs, SystemVerbs, ReadVerbs,
           PrefsVerbs):
    """An Android device as an agent sees it. Create it with :func:`connect`.

    Thread-safe: calls are serialised per page. Use as a context manager, or call
    :meth:`close`. :meth:`cancel` (from any thread) stops the verb in flight at once.
    """

    def __enter__(self) -> Page:
        return self


def connect(device: str | None = None, **options: Any) -> Page:
    """Connect to an Android device and return its :class:`Page`.

    ``device``: ``None``/``"auto"``, ``"host:port"``, ``"usb"``/``"usb:SERIAL"``, a serial
    known to a running adb server, or ``"virtual"`` (the built-in virtual phone). Options:
    ``timeout``, ``auth_timeout``, ``on_auth_prompt``, ``key_path``, ``connect_timeout``,
    and for ``"virtual"`` ``scenario`` / ``api_level`` / ``profile``.
    """
    from baremobile.page import phone

    return Page(open_transport(device, start_phone=phone.start, **options))


def snapshot(device: str | None = None, **options: Any) -> Snapshot:
    """One-shot: connect, snapshot, close."""
    with connect(device, **options) as page:
        return page.snapshot()
