"""Bytes to and from a device's adbd — directly (TCP, USB) or through an adb server.

No ``adb`` binary is ever run. See :mod:`baremobile.transport.discovery` for the device
specs ``connect()`` accepts.
"""

from __future__ import annotations

from baremobile.transport.base import DEFAULT_TIMEOUT, DUMP_TIMEOUT, ShellResult, Transport
from baremobile.transport.direct import DirectTransport
from baremobile.transport.discovery import DeviceInfo, devices, open_transport
from baremobile.transport.keys import AdbKey, default_key_path, ensure_key
from baremobile.transport.server import AdbServerClient, ServerTransport

__all__ = [
    "DEFAULT_TIMEOUT",
    "DUMP_TIMEOUT",
    "AdbKey",
    "AdbServerClient",
    "DeviceInfo",
    "DirectTransport",
    "ServerTransport",
    "ShellResult",
    "Transport",
    "default_key_path",
    "devices",
    "ensure_key",
    "open_transport",
]
