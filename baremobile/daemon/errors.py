"""The daemon's own errors (every one a :class:`~baremobile.errors.BaremobileError`).

``category`` is the wider family, as in the tool results (``baremobile.tools.ERROR_CODES``):
a device the pool cannot give is ``DEVICE_UNAVAILABLE`` like ``NO_DEVICES``, a request the
daemon cannot read is ``INVALID_ARGUMENT``, and trouble reaching or trusting the daemon
itself is ``DAEMON``.
"""

from __future__ import annotations

from baremobile.errors import BaremobileError, DeviceNotFound, InvalidArgument, ResourceNotFound

__all__ = [
    "DaemonError",
    "DaemonUnavailable",
    "DeviceAssigned",
    "NoFreeDevice",
    "NoOnDeviceService",
    "ResourceNotFound",
    "SessionNotFound",
    "SessionNotOpen",
    "ToolFailed",
    "UnknownMethod",
    "VersionMismatch",
]


class DaemonError(BaremobileError):
    """Reaching, starting or trusting the daemon failed."""

    code = "DAEMON_ERROR"
    category = "DAEMON"
    default_hint = "see the daemon's log ({daemon_status} names it), or stop it with " \
                   "{daemon_stop}; the next command starts a fresh one"


class DaemonUnavailable(DaemonError):
    """No daemon answers and none could be started."""

    code = "DAEMON_UNAVAILABLE"


class VersionMismatch(DaemonError):
    """The running daemon is another version than this client."""

    code = "VERSION_MISMATCH"


class UnknownMethod(InvalidArgument):
    """No such daemon method."""

    code = "UNKNOWN_METHOD"
    category = "INVALID_ARGUMENT"
    default_hint = "{list_methods} lists the methods"


class SessionNotFound(InvalidArgument):
    """``daemon/sessionInfo`` of a session that does not exist."""

    code = "SESSION_NOT_FOUND"
    category = "INVALID_ARGUMENT"
    default_hint = "open it first: {open_session}"


class SessionNotOpen(DeviceNotFound):
    """A device tool was called in a session that holds no device and named none."""

    code = "SESSION_NOT_OPEN"
    category = "DEVICE_UNAVAILABLE"
    default_hint = "open the session on a device first ({open_session}), or name the " \
                   "device ({pick_device})"


class NoFreeDevice(DeviceNotFound):
    """Every device of the pool is assigned to a session (or in error)."""

    code = "NO_FREE_DEVICE"
    category = "DEVICE_UNAVAILABLE"
    default_hint = "close a session that is done ({close_session}), or connect another " \
                   "device and list the pool again ({devices})"


class DeviceAssigned(DeviceNotFound):
    """The named device belongs to another session."""

    code = "DEVICE_ASSIGNED"
    category = "DEVICE_UNAVAILABLE"


class NoOnDeviceService(BaremobileError):
    """A request for AutoMobile's on-device service (``ide/updateService``): baremobile
    installs nothing on the phone, so there is none to update."""

    code = "NO_ON_DEVICE_SERVICE"
    category = "UNSUPPORTED"
    default_hint = "nothing to do: baremobile drives the device over ADB alone (no " \
                   "accessibility service, no helper APK); ide/status says so"


class ToolFailed(BaremobileError):
    """A tool answered ``ok: false``: its error travels as the response's error."""

    def __init__(self, err: dict[str, str], tool: str) -> None:
        super().__init__(err.get("message", ""), hint=err.get("hint", ""))
        self.code = err.get("code", "INTERNAL_ERROR")
        self.category = err.get("category", self.code)
        self.tool = tool
