"""The transport interface: bytes to and from one device's adbd.

Every transport offers the same five verbs — :meth:`Transport.shell` (output and exit
status), :meth:`Transport.stream` (raw ``exec:`` output as it arrives),
:meth:`Transport.exec_out`, :meth:`Transport.push`, :meth:`Transport.pull` — so the
device layer never knows whether it talks to adbd directly over TCP or USB, or through
a running adb server.

Exit status: devices that advertise ``shell_v2`` (Android 7+) report it natively,
with stderr apart from stdout. Older ones get a sentinel: the command is followed by
``echo <random marker>$?`` and the marker is cut off the output (stderr stays merged).

Cancellation: every transport aborts its in-flight I/O on :meth:`Transport.abort` (or when
the :class:`~baremobile.transport.cancel.CancelToken` of the calling scope is cancelled)
without waiting for the device; the aborted call raises
:class:`~baremobile.errors.Cancelled` and the next call reconnects.
"""

from __future__ import annotations

import io
import secrets
import struct
from abc import ABC, abstractmethod
from collections.abc import Generator, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from baremobile.android.shell_command import parse_exception
from baremobile.errors import CommandFailed, InvalidArgument, ProtocolError, ServiceRefused
from baremobile.safetext import decode
from baremobile.transport import progress

__all__ = [
    "DEFAULT_TIMEOUT",
    "DUMP_TIMEOUT",
    "MAX_PAYLOAD_V1",
    "ShellResult",
    "Transport",
    "ShellV2Decoder",
    "Sink",
    "ByteStream",
    "check_text",
    "with_sentinel",
    "split_sentinel",
]

#: Default per-call timeout (seconds). ``uiautomator dump`` alone may wait ~10 s for an
#: idle UI, so the device layer passes :data:`DUMP_TIMEOUT` for dumps.
DEFAULT_TIMEOUT = 20.0
#: The longest deadline one call may be given, in seconds (a week): a caller's 1e308 or
#: infinity is refused here, once for every verb, instead of overflowing the socket's clock.
MAX_CALL_TIMEOUT = 7 * 24 * 3600.0
DUMP_TIMEOUT = 30.0

#: The most output one ``shell``/``exec_out`` call keeps (bytes). A dump is bounded by the
#: pruner, a pull streams to disk; a command's answer held in memory is bounded here, as a
#: device (or what its apps print) could send without end.
MAX_OUTPUT = 256 * 1024 * 1024

#: The largest ADB message payload every adbd accepts: 4 KiB. Android 6 (API 23) and older
#: drop the connection on anything bigger (AOSP adb ``check_header``; 256 KiB came with
#: Android 7, 1 MiB with Android 9), so an OPEN — the whole shell command line — must fit.
MAX_PAYLOAD_V1 = 4096


@dataclass(frozen=True)
class ShellResult:
    """What a shell command produced."""

    stdout: bytes
    stderr: bytes
    exit_code: int
    command: str = field(default="", compare=False)

    @property
    def text(self) -> str:
        """stdout decoded as UTF-8 (invalid bytes replaced)."""
        return decode(self.stdout)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def check(self) -> ShellResult:
        """Return self, or raise :class:`CommandFailed` with the device's own words."""
        if self.exit_code != 0:
            said = decode(self.stderr or self.stdout).strip()
            thrown = parse_exception(said)  # what went wrong, not "Exception occurred while…"
            first = str(thrown) if thrown is not None else (said.splitlines()[0] if said
                                                            else "no output")
            raise CommandFailed(
                f"`{self.command}` failed on the device (exit {self.exit_code}): {first}",
                command=self.command,
                exit_code=self.exit_code,
                output=said,
            )
        return self


class Sink(Protocol):
    """Where streamed bytes go: anything with ``write(bytes)`` (an open binary file)."""

    def write(self, data: bytes, /) -> Any: ...


class ByteStream(Protocol):
    """Bytes both ways to one service on the device (:meth:`Transport.open_stream`)."""

    def send(self, data: bytes, timeout: float = 20.0) -> None:
        """Write all of ``data``."""

    def recv(self, timeout: float) -> bytes:
        """The next bytes that arrive (``b""`` once the device closed the stream); raises
        :class:`~baremobile.errors.CommandTimeout` when nothing came within ``timeout``."""

    def close(self) -> None:
        """Close the stream (idempotent)."""


class SinkRelay(io.BytesIO):
    """A BytesIO that keeps nothing: it hands every write on to ``sink`` (adb-shell pulls
    only into a BytesIO). A failure of the sink itself is kept in ``error``, so that the
    caller re-raises it as what it is — a local write error, not a device fault."""

    def __init__(self, sink: Sink) -> None:
        super().__init__()
        self._sink = sink
        self.count = 0
        self.total: int | None = None  #: the file's size, when the transport learnt it
        self.error: BaseException | None = None

    def write(self, data: Any, /) -> int:
        try:
            self._sink.write(data)
        except BaseException as exc:
            self.error = exc
            raise
        self.count += len(data)
        progress.report(self.count, self.total)
        return len(data)


class InFlight(Protocol):
    """A call of a transport while it runs: why it was aborted (None while it is not)."""

    aborted: str | None


class AbortsCalls:
    """What a transport keeps of its calls in flight, so that any of them can be aborted
    from any thread without waiting for the device: the set :attr:`_flight` under
    :attr:`_flight_lock`, and :meth:`_abort_locked` — how one call's I/O is stopped (its
    socket shut down; never blocking)."""

    _flight: set[Any]
    _flight_lock: AbstractContextManager[Any]

    def abort(self, reason: str = "aborted") -> bool:
        """Abort every call in flight; each raises :class:`~baremobile.errors.Cancelled`
        at once. Never blocks on I/O. True when there was something to abort."""
        with self._flight_lock:
            calls = [c for c in self._flight if c.aborted is None]
            for call in calls:
                self._abort_locked(call, reason)
        return bool(calls)

    def _abort_one(self, call: InFlight, reason: str) -> None:
        """Abort ``call`` if it is still in flight (a cancel token's hook)."""
        with self._flight_lock:
            if call in self._flight and call.aborted is None:
                self._abort_locked(call, reason)

    def _abort_locked(self, call: Any, reason: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class Transport(ABC):
    """Bytes to and from one device. Implementations are thread-safe.

    An implementation provides :meth:`open_service` (a stream to ``service:command``),
    :attr:`features`, :meth:`push`, :meth:`pull` and :meth:`close`; the shell verbs and
    their exit-status rules are shared here.
    """

    #: The serial adb would show (``emulator-5554``, ``192.168.1.7:5555``, a USB serial).
    serial: str
    #: ``"tcp"``, ``"usb"``, ``"server"`` (through an adb server) or ``"virtual"``.
    kind: str
    #: Default per-call timeout in seconds.
    timeout: float = DEFAULT_TIMEOUT

    @property
    @abstractmethod
    def features(self) -> frozenset[str]:
        """Features the device's adbd advertises (``shell_v2``, ``cmd``, ``stat_v2`` …)."""

    @abstractmethod
    def open_service(self, service: str, command: str, *, timeout: float
                     ) -> Generator[bytes, None, None]:
        """Open ``service:command`` on the device and yield the bytes it sends, as they come."""

    def _timeout(self, timeout: float | None) -> float:
        if timeout is None:
            return self.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                not 0 <= timeout <= MAX_CALL_TIMEOUT:  # NaN too
            raise InvalidArgument(f"timeout must be seconds, 0 to {MAX_CALL_TIMEOUT:g}, not "
                                  f"{str(timeout)[:40]}")
        return float(timeout)

    @property
    def max_payload(self) -> int:
        """The largest ADB message payload the device accepts (negotiated at connect;
        :data:`MAX_PAYLOAD_V1` where a transport cannot tell)."""
        return MAX_PAYLOAD_V1

    @property
    def max_command(self) -> int:
        """The longest command (in UTF-8 bytes) :meth:`shell` sends in one round trip:
        the OPEN payload is ``shell,v2,raw:CMD`` (or ``shell:`` + CMD in the sentinel
        wrapper) plus a NUL, and it must fit in :attr:`max_payload`."""
        if "shell_v2" in self.features:
            overhead = len("shell,v2,raw:") + 1
        else:
            overhead = len("shell:") + len(with_sentinel("")[0]) + 1
        return self.max_payload - overhead

    def check_size(self, service: str, command: str) -> None:
        """Raise :class:`InvalidArgument` (nothing sent) when ``service:command`` would not
        fit in one ADB message to this device."""
        size = len(service.encode()) + 1 + len(command.encode("utf-8")) + 1
        if size <= MAX_PAYLOAD_V1:
            return  # every adbd takes it: no need to ask the device
        limit = self.max_payload
        if size > limit:
            raise InvalidArgument(
                f"the command is {size} bytes with its service name; {self.serial} accepts "
                f"at most {limit} bytes in one message",
                hint="split it into shorter commands (Transport.max_command says how long "
                "one may be); nothing was sent",
            )

    def open_stream(self, service: str, *, timeout: float | None = None
                    ) -> AbstractContextManager[ByteStream]:
        """A two-way :class:`ByteStream` to ``service`` (``localabstract:<socket>``,
        ``tcp:<port>``) for the ``with`` block; the device is held for the block (other
        calls wait), ``timeout`` bounds the whole block. The device refusing it (nothing
        listens there) raises :class:`~baremobile.errors.ServiceRefused`."""
        raise ServiceRefused(f"{self.kind} transports cannot open two-way streams")

    def abort(self, reason: str = "aborted") -> bool:
        """Abort the calls in flight now, from any thread, without waiting for the device:
        each raises :class:`~baremobile.errors.Cancelled` and the connection is dropped
        (the next call reconnects). True when there was something to abort."""
        return False

    def shell(self, command: str, *, timeout: float | None = None) -> ShellResult:
        """Run ``command`` through the device's ``sh -c``; wait for its exit status.

        ``shell,v2`` when the device has it (stdout, stderr and the status apart); else the
        command in a subshell followed by a sentinel echo of ``$?`` (stderr merged).
        """
        check_text("the command", command)
        t = self._timeout(timeout)
        if "shell_v2" in self.features:
            chunks = self.open_service("shell,v2,raw", command, timeout=t)
            return ShellV2Decoder.decode_all(capped(chunks, command), command)
        wrapped, marker = with_sentinel(command)
        out = b"".join(capped(self.open_service("shell", wrapped, timeout=t), command))
        # before Android 7, shell: runs on a pty, which turns every \n into \r\n
        out = out.replace(b"\r\n", b"\n")
        stdout, code = split_sentinel(out, marker, command)
        return ShellResult(stdout, b"", code, command)

    def stream(self, command: str, *, timeout: float | None = None
               ) -> Generator[bytes, None, None]:
        """Run ``command`` with ``exec:`` and yield its raw stdout as it arrives.

        ``timeout`` bounds the whole command. Close the iterator to abandon it early.
        """
        check_text("the command", command)
        return self.open_service("exec", command, timeout=self._timeout(timeout))

    def exec_out(self, command: str, *, timeout: float | None = None) -> bytes:
        """Raw stdout of ``command`` (binary-safe; ``exec:`` has no pty), at most
        :data:`MAX_OUTPUT` bytes (more is :class:`~baremobile.errors.CommandFailed`)."""
        return b"".join(capped(self.stream(command, timeout=timeout), command))

    @abstractmethod
    def push(
        self, data: bytes, path: str, *, mode: int = 0o644, timeout: float | None = None
    ) -> None:
        """Write ``data`` to ``path`` on the device (sync ``SEND``)."""

    @abstractmethod
    def pull(self, path: str, *, timeout: float | None = None) -> bytes:
        """Read ``path`` from the device (sync ``RECV``)."""

    def pull_into(self, path: str, sink: Sink, *, timeout: float | None = None) -> int:
        """Stream ``path`` into ``sink`` as it arrives (sync ``RECV``); returns the byte
        count. An exception of the sink's own (a full disk) is raised as it is.

        This fallback reads the whole file first; the built-in transports stream.
        """
        data = self.pull(path, timeout=timeout)
        sink.write(data)
        return len(data)

    @abstractmethod
    def close(self) -> None:
        """Release the connection (aborting calls in flight). Further calls reconnect."""

    def shutdown(self) -> None:
        """Release everything this transport owns (for the virtual phone: stop it too)."""
        self.close()

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def capped(chunks: Iterable[bytes], command: str, limit: int | None = None) -> Iterator[bytes]:
    """``chunks`` as they come, until more than ``limit`` (:data:`MAX_OUTPUT`) bytes came:
    then :class:`~baremobile.errors.CommandFailed` (the stream is closed)."""
    limit = MAX_OUTPUT if limit is None else limit
    total = 0
    it = iter(chunks)
    try:
        for chunk in it:
            total += len(chunk)
            if total > limit:
                raise CommandFailed(f"`{command[:80]}` answered more than {limit >> 20} MiB; "
                                    "refused", command=command,
                                    hint="the device sent more than any answer needs")
            yield chunk
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            close()


def check_path(verb: str, path: object) -> None:
    """A device path must be a non-empty string without NUL that UTF-8 can carry."""
    if not isinstance(path, str) or not path or "\0" in path:
        raise InvalidArgument(f"{verb} needs a device path (a non-empty string), not {path!r}")
    check_text(f"the {verb} path", path)


def check_text(what: str, text: str) -> None:
    """Refuse text the device cannot be sent — a lone surrogate has no UTF-8 form — before
    anything is sent (the connection would otherwise fail halfway through a message)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = ord(text[exc.start])
        raise InvalidArgument(
            f"{what} contains a lone surrogate (U+{bad:04X} at index {exc.start}), which "
            "cannot be sent to the device; nothing was sent",
            hint="pass well-formed text: a character outside the BMP as itself, not as one "
            "half of a UTF-16 surrogate pair",
        ) from None


# ---------------------------------------------------------------------------------------
# exit status without shell_v2
# ---------------------------------------------------------------------------------------


def with_sentinel(command: str) -> tuple[str, bytes]:
    """``command`` in a subshell, then an echo of its ``$?`` behind a random marker.

    The subshell keeps an ``exit`` in ``command`` from skipping the echo.
    """
    marker = f"__bm_rc_{secrets.token_hex(8)}="
    return f"(\n{command}\n)\necho {marker}$?", marker.encode("ascii")


def split_sentinel(output: bytes, marker: bytes, command: str = "") -> tuple[bytes, int]:
    """Cut the sentinel off ``output``: (the command's own output, its exit status)."""
    idx = output.rfind(marker)
    if idx < 0:
        raise CommandFailed(
            f"`{command}` did not finish normally (no exit status came back)",
            command=command,
            output=decode(output),
            hint="the command line may be malformed for the device's shell, "
            "or the shell was killed",
        )
    tail = output[idx + len(marker) :].strip()
    try:
        code = int(tail)
    except ValueError:
        raise ProtocolError(f"garbled exit status after `{command}`: {tail[:40]!r}") from None
    return output[:idx], code


# ---------------------------------------------------------------------------------------
# shell protocol v2
# ---------------------------------------------------------------------------------------

_V2 = struct.Struct("<BI")
V2_STDIN, V2_STDOUT, V2_STDERR, V2_EXIT, V2_CLOSE_STDIN = 0, 1, 2, 3, 4


class ShellV2Decoder:
    """Splits a ``shell,v2`` byte stream into stdout, stderr and the exit status."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.exit_code: int | None = None

    def feed(self, data: bytes) -> bytes:
        """Consume bytes; return the stdout they completed (for streaming callers)."""
        self._buf += data
        out = bytearray()
        while len(self._buf) >= _V2.size:
            pid, length = _V2.unpack_from(self._buf)
            if len(self._buf) < _V2.size + length:
                break
            body = bytes(self._buf[_V2.size : _V2.size + length])
            del self._buf[: _V2.size + length]
            if pid == V2_STDOUT:
                self.stdout += body
                out += body
            elif pid == V2_STDERR:
                self.stderr += body
            elif pid == V2_EXIT:
                self.exit_code = body[0] if body else 0
        return bytes(out)

    def result(self, command: str) -> ShellResult:
        if self.exit_code is None:
            raise ProtocolError(
                f"`{command}`: the device closed the shell without an exit status",
            )
        return ShellResult(bytes(self.stdout), bytes(self.stderr), self.exit_code, command)

    @staticmethod
    def decode_all(chunks: Iterable[bytes], command: str) -> ShellResult:
        dec = ShellV2Decoder()
        for c in chunks:
            dec.feed(c)
        return dec.result(command)
