"""USB: adb-shell's ``UsbTransport`` (``[usb]`` extra: libusb1) and what its errors mean.

Real USB cannot be exercised in this project's CI (no phone is attached); the error
mapping below is unit-tested with libusb's error codes, and the data path is adb-shell's
own, shared with TCP above the transport.

**Aborting.** A synchronous libusb transfer cannot be interrupted from another thread
(closing the handle under it is undefined behaviour in libusb). So every read and write
waits in slices of at most :data:`~baremobile.transport.wire.SLICE_S` (50 ms): a slice that
times out hands back what it transferred (libusb1's ``USBErrorTimeout.received`` /
``.transferred``), the abort flag and the command's deadline are checked, and the transfer
goes on. An abort therefore takes effect within one slice, not at once as on TCP.
"""

from __future__ import annotations

import time
from typing import Any

from adb_shell.transport.base_transport import BaseTransport

from baremobile.errors import (
    BaremobileError,
    CommandTimeout,
    DeviceBusy,
    DeviceDisconnected,
    DeviceNotFound,
    DevicePermissionDenied,
)
from baremobile.transport.wire import SLICE_S, DeadlineExpired, Interruptible

__all__ = ["open_usb_transport", "map_usb_error", "list_usb_serials", "usb_available"]

# libusb error codes (libusb.h)
LIBUSB_ERROR_IO = -1
LIBUSB_ERROR_ACCESS = -3
LIBUSB_ERROR_NO_DEVICE = -4
LIBUSB_ERROR_NOT_FOUND = -5
LIBUSB_ERROR_BUSY = -6
LIBUSB_ERROR_TIMEOUT = -7
LIBUSB_ERROR_PIPE = -9

_INSTALL_HINT = "install the USB extra: pip install 'baremobile[usb]' (needs libusb-1.0)"


def usb_available() -> bool:
    """True when libusb1 and a libusb shared library are importable."""
    try:
        import usb1  # noqa: F401
    except Exception:
        return False
    return True


def map_usb_error(exc: BaseException, serial: str = "") -> BaremobileError | None:
    """The typed error for a libusb/adb-shell USB failure, or None if it is not one."""
    who = f"USB device {serial}" if serial else "the USB device"
    inner = getattr(exc, "usb_error", None)  # adb-shell wraps libusb errors in Usb*FailedError
    if inner is not None and (
        type(inner).__name__ == "USBErrorTimeout"
        or getattr(inner, "value", None) == LIBUSB_ERROR_TIMEOUT
    ):
        return CommandTimeout(f"{who} did not answer in time")
    name = type(exc).__name__
    code = getattr(exc, "value", None)
    if name == "USBErrorTimeout" or code == LIBUSB_ERROR_TIMEOUT:
        return CommandTimeout(f"{who} did not answer in time")
    if name == "USBErrorBusy" or code == LIBUSB_ERROR_BUSY:
        return DeviceBusy(
            f"{who} is busy: another program (almost always a running adb server) "
            "has claimed its ADB interface"
        )
    if name == "USBErrorAccess" or code == LIBUSB_ERROR_ACCESS:
        return DevicePermissionDenied(f"no permission to open {who}")
    if name in ("USBErrorNoDevice", "USBErrorNotFound") or code in (
        LIBUSB_ERROR_NO_DEVICE,
        LIBUSB_ERROR_NOT_FOUND,
    ):
        return DeviceDisconnected(f"{who} is gone (unplugged or rebooting)")
    if name == "UsbDeviceNotFoundError":
        return DeviceNotFound(
            f"no ADB device found on USB{f' with serial {serial}' if serial else ''}"
        )
    if name in ("UsbReadFailedError", "UsbWriteFailedError", "USBErrorIO", "USBErrorPipe"):
        return DeviceDisconnected(f"USB transfer with {who} failed ({exc})")
    return None


def _import_usb_transport() -> Any:
    try:
        from adb_shell.transport.usb_transport import UsbTransport
    except Exception as exc:  # ImportError, or libusb missing (OSError at import)
        raise DeviceNotFound(f"USB support is not available ({exc})", hint=_INSTALL_HINT) from None
    return UsbTransport


def open_usb_transport(serial: str | None, *, timeout: float = 10.0) -> Any:
    """Find the ADB interface of ``serial`` (or the first device) and return its transport.

    The interface is claimed later, in ``connect()``; a claim failure surfaces there and
    goes through :func:`map_usb_error`.
    """
    usb_transport = _import_usb_transport()
    try:
        return _ClaimMapped(
            usb_transport.find_adb(serial=serial, default_transport_timeout_s=timeout), serial or ""
        )
    except Exception as exc:
        mapped = map_usb_error(exc, serial or "")
        if mapped is not None:
            raise mapped from None
        raise


class _ClaimMapped(Interruptible, BaseTransport):
    """Wraps adb-shell's UsbTransport: claim/IO errors come out typed, and every transfer
    waits in short slices so that an abort or the command's deadline is seen."""

    def __init__(self, inner: Any, serial: str) -> None:
        self._inner = inner
        self._serial = serial
        self.sniffer = None

    def _call(self, name: str, *args: Any) -> Any:
        try:
            return getattr(self._inner, name)(*args)
        except Exception as exc:
            mapped = map_usb_error(exc, self._serial)
            if mapped is not None:
                raise mapped from None
            raise

    def connect(self, transport_timeout_s: float | None = None) -> None:
        self._check_abort()
        self._call("connect", transport_timeout_s)

    def close(self) -> None:
        self._call("close")

    def _slices(self, timeout: float | None) -> Any:
        """Yield the length of each wait until ``timeout`` (and the deadline) run out."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if end is None else end - time.monotonic()
            budget = self._budget(left)  # raises on abort or a passed deadline
            if budget is not None and budget <= 0:
                return
            # never 0: a libusb timeout of 0 ms means "wait forever"
            yield SLICE_S if budget is None else max(0.001, min(SLICE_S, budget))

    def bulk_read(self, numbytes: int, transport_timeout_s: float | None = None) -> bytes:
        for wait in self._slices(transport_timeout_s):
            try:
                return self._inner.bulk_read(numbytes, wait)
            except Exception as exc:
                partial = _timed_out(exc, "received")
                if partial is None:
                    raise self._typed(exc) from None
                if partial:
                    return bytes(partial)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise DeadlineExpired("the command's deadline passed")
        raise CommandTimeout(f"USB device {self._serial} did not answer in time")

    def bulk_write(self, data: bytes, transport_timeout_s: float | None = None) -> int:
        view = memoryview(data)
        for wait in self._slices(transport_timeout_s):
            try:
                sent = self._inner.bulk_write(bytes(view), wait)
            except Exception as exc:
                done = _timed_out(exc, "transferred")
                if done is None:
                    raise self._typed(exc) from None
                sent = int(done or 0)
            view = view[sent:]
            if not view:
                return len(data)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise DeadlineExpired("the command's deadline passed")
        raise CommandTimeout(f"USB device {self._serial} did not take the data in time")

    def _typed(self, exc: Exception) -> BaseException:
        mapped = map_usb_error(exc, self._serial)
        return mapped if mapped is not None else exc

    @property
    def serial_number(self) -> str:
        return self._inner.serial_number


def _timed_out(exc: BaseException, field: str) -> Any:
    """For a libusb timeout (bare, or wrapped by adb-shell): what it transferred before
    (``received`` bytes or ``transferred`` count, b"" / 0 if unknown); None otherwise."""
    inner = getattr(exc, "usb_error", None) or exc
    if type(inner).__name__ != "USBErrorTimeout" and getattr(inner, "value", None) != (
        LIBUSB_ERROR_TIMEOUT
    ):
        return None
    return getattr(inner, field, None) or (b"" if field == "received" else 0)


def list_usb_serials() -> list[str]:
    """Serials of ADB devices on USB ([] when USB support is unavailable)."""
    if not usb_available():
        return []
    try:
        usb_transport = _import_usb_transport()
        return [d.serial_number for d in usb_transport.find_all_adb_devices()]
    except Exception:
        return []
