"""baremobile — drive Android devices from AI agents.

``from baremobile import connect`` → ``page = connect()`` → ``page.snapshot()`` gives a
pruned, token-efficient view of the screen in which every interactive element carries
``[ref=N]``; ``page.tap(ref)``, ``page.type(ref, text)``, ``page.press("back")`` act on it.
Everything travels over the ADB wire protocol spoken from Python (no ``adb`` binary).
"""

from __future__ import annotations

from baremobile.errors import (
    AutomationBusy,
    BaremobileError,
    Busy,
    CommandFailed,
    CommandTimeout,
    DeviceBusy,
    DevicePermissionDenied,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceNotIdle,
    DeviceUnauthorized,
    DumpFailed,
    InvalidArgument,
    InvalidDump,
    MultipleDevices,
    NullRootNode,
    ProtocolError,
    RefNotFound,
    UnsupportedText,
)

from baremobile.transport.discovery import DeviceInfo, devices

__version__ = "0.1.0.dev0"

__all__ = [
    "__version__",
    "DeviceInfo",
    "devices",
    "AutomationBusy",
    "BaremobileError",
    "Busy",
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
    "ProtocolError",
    "RefNotFound",
    "UnsupportedText",
]
