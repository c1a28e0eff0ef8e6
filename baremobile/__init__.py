"""baremobile — drive Android devices from AI agents.

``from baremobile import connect`` → ``page = connect()`` → ``page.snapshot()`` gives a
pruned, token-efficient view of the screen in which every interactive element carries
``[ref=N]``; ``page.tap(ref)``, ``page.type(ref, text)``, ``page.press("back")`` act on it.
Everything travels over the ADB wire protocol spoken from Python (no ``adb`` binary).

The public names below load on first use (PEP 562): ``import baremobile`` alone stays cheap,
so the ``baremobile`` command's session verbs (thin clients of the daemon) start as fast as
a bare Python process. ``from baremobile import connect`` works exactly as before.
"""

from __future__ import annotations

import importlib
import sys
import types as _types

from baremobile.errors import (
    AutomationBusy,
    BaremobileError,
    Busy,
    Cancelled,
    CommandFailed,
    CommandTimeout,
    DeviceBusy,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceNotIdle,
    DevicePermissionDenied,
    DeviceUnauthorized,
    DumpFailed,
    InvalidArgument,
    InvalidDump,
    MultipleDevices,
    NullRootNode,
    PageClosed,
    ProtocolError,
    RefCovered,
    RefNotFound,
    ServiceRefused,
    UnsupportedText,
)

TYPE_CHECKING = False  # typing stays unimported: the CLI's fast path starts here
if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from typing import Any

    from baremobile.page import Page, Screenshot, Selector, connect
    from baremobile.page.aio import AsyncPage, connect_async
    from baremobile.snapshot import Snapshot
    from baremobile.transport.cancel import CancelToken, cancel_scope
    from baremobile.transport.discovery import DeviceInfo, devices

__version__ = "0.1.0.dev0"

#: public name → the module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "AsyncPage": "baremobile.page.aio",
    "connect_async": "baremobile.page.aio",
    "Page": "baremobile.page",
    "Screenshot": "baremobile.page",
    "Selector": "baremobile.page",
    "connect": "baremobile.page",
    "Snapshot": "baremobile.snapshot",
    "CancelToken": "baremobile.transport.cancel",
    "cancel_scope": "baremobile.transport.cancel",
    "DeviceInfo": "baremobile.transport.discovery",
    "devices": "baremobile.transport.discovery",
}
#: submodules that ``import baremobile`` used to load eagerly: still reachable as attributes
_SUBMODULES = ("page", "device", "android", "snapshot", "transport")


class _CallableSnapshotPackage(_types.ModuleType):
    """``baremobile.snapshot`` is both the pipeline package (``baremobile.snapshot.from_xml``)
    and the one-shot ``baremobile.snapshot(device=None)``: connect, snapshot, close."""

    def __call__(self, device: str | None = None, **options: object) -> Snapshot:
        from baremobile.page import snapshot as one_shot

        return one_shot(device, **options)


class _Package(_types.ModuleType):
    """This package's module type: whenever ``baremobile.snapshot`` is bound as an attribute
    (the import system binds every submodule it loads to its parent), it becomes callable —
    however it was first imported (``import baremobile.snapshot``, ``from baremobile import
    snapshot``, or as a dependency of ``baremobile.page``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "snapshot" and type(value) is _types.ModuleType:
            value.__class__ = _CallableSnapshotPackage
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    """Load a public name (or an eagerly-loaded-before submodule) on first access."""
    where = _LAZY.get(name)
    if where is not None:
        value = getattr(importlib.import_module(where), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))


__all__ = [
    "__version__",
    "AsyncPage",
    "connect_async",
    "Page",
    "Screenshot",
    "Selector",
    "Snapshot",
    "connect",
    "snapshot",
    "DeviceInfo",
    "devices",
    "CancelToken",
    "cancel_scope",
    "AutomationBusy",
    "BaremobileError",
    "Busy",
    "Cancelled",
    "CommandFailed",
    "CommandTimeout",
    "DeviceBusy",
    "DevicePermissionDenied",
    "DeviceDisconnected",
    "DeviceNotFound",
    "DeviceNotIdle",
    "DeviceUnauthorized",
    "DumpFailed",
    "InvalidArgument",
    "InvalidDump",
    "MultipleDevices",
    "NullRootNode",
    "PageClosed",
    "ProtocolError",
    "RefCovered",
    "RefNotFound",
    "ServiceRefused",
    "UnsupportedText",
]
