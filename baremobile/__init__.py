"""baremobile — drive Android devices from AI agents.

``from baremobile import connect`` → ``page = connect()`` → ``page.snapshot()`` gives a
pruned, token-efficient view of the screen in which every interactive element carries
``[ref=N]``; ``page.tap(ref)``, ``page.type(ref, text)``, ``page.press("back")`` act on it.
Everything travels over the ADB wire protocol spoken from Python (no ``adb`` binary).
"""

from __future__ import annotations

import types as _types

from baremobile import snapshot as _snapshot_package
from baremobile.async_page import AsyncPage, connect_async
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
from baremobile.page import Page, Screenshot, Selector, connect
from baremobile.page import snapshot as _one_shot_snapshot
from baremobile.snapshot import Snapshot
from baremobile.transport.cancel import CancelToken, cancel_scope
from baremobile.transport.discovery import DeviceInfo, devices

__version__ = "0.1.0.dev0"


class _CallableSnapshotPackage(_types.ModuleType):
    """``baremobile.snapshot`` is both the pipeline package (``baremobile.snapshot.from_xml``)
    and the one-shot ``baremobile.snapshot(device=None)``: connect, snapshot, close."""

    def __call__(self, device: str | None = None, **options: object) -> Snapshot:
        return _one_shot_snapshot(device, **options)


_snapshot_package.__class__ = _CallableSnapshotPackage

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
