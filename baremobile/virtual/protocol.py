"""ADB wire protocol messages — a sans-I/O codec.

A message is a 24-byte little-endian header (command, arg0, arg1, data_length,
data_check, magic) followed by ``data_length`` bytes of payload. ``magic`` is
``command ^ 0xffffffff``; ``data_check`` is the byte sum of the payload, required while
the negotiated protocol version is below :data:`A_VERSION_SKIP_CHECKSUM` (adb-shell
announces ``0x01000000``, so every message to and from it carries one).

:class:`MessageReader` is fed bytes in any chunking and hands back whole
:class:`Message` objects; it validates exactly what adbd validates and raises
:class:`ProtocolViolation` where adbd drops the connection. Nothing here touches a
socket, so it is tested with hypothesis under every split of the byte stream.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

__all__ = [
    "A_SYNC",
    "A_CNXN",
    "A_AUTH",
    "A_OPEN",
    "A_OKAY",
    "A_CLSE",
    "A_WRTE",
    "A_STLS",
    "A_VERSION",
    "A_VERSION_MIN",
    "A_VERSION_SKIP_CHECKSUM",
    "MAX_PAYLOAD",
    "MAX_PAYLOAD_V1",
    "AUTH_TOKEN",
    "AUTH_SIGNATURE",
    "AUTH_RSAPUBLICKEY",
    "HEADER",
    "Message",
    "MessageReader",
    "ProtocolViolation",
    "checksum",
    "command_name",
    "pack",
]


def _cmd(name: bytes) -> int:
    return int.from_bytes(name, "little")


A_SYNC = _cmd(b"SYNC")
A_CNXN = _cmd(b"CNXN")
A_AUTH = _cmd(b"AUTH")
A_OPEN = _cmd(b"OPEN")
A_OKAY = _cmd(b"OKAY")
A_CLSE = _cmd(b"CLSE")
A_WRTE = _cmd(b"WRTE")
A_STLS = _cmd(b"STLS")

KNOWN_COMMANDS = frozenset({A_SYNC, A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS})

A_VERSION_MIN = 0x01000000
A_VERSION_SKIP_CHECKSUM = 0x01000001
A_VERSION = 0x01000001

#: adbd's maximum payload since Android 9 (older devices: 256 KiB, and 4 KiB for v1).
MAX_PAYLOAD = 1024 * 1024
MAX_PAYLOAD_V1 = 4 * 1024

AUTH_TOKEN = 1
AUTH_SIGNATURE = 2
AUTH_RSAPUBLICKEY = 3

HEADER = struct.Struct("<6I")


def checksum(data: bytes | bytearray | memoryview) -> int:
    """The ADB ``data_check``: the unsigned sum of the payload bytes, mod 2**32."""
    return sum(data) & 0xFFFFFFFF


def command_name(command: int) -> str:
    """``0x4e584e43`` → ``"CNXN"`` (non-printable commands as hex)."""
    raw = command.to_bytes(4, "little")
    if all(0x20 <= b < 0x7F for b in raw):
        return raw.decode("ascii")
    return f"0x{command:08x}"


def pack(
    command: int, arg0: int, arg1: int, payload: bytes = b"", *, with_checksum: bool = True
) -> bytes:
    """One complete message (header + payload) ready for a single ``send``."""
    check = checksum(payload) if with_checksum and payload else 0
    header = HEADER.pack(
        command,
        arg0 & 0xFFFFFFFF,
        arg1 & 0xFFFFFFFF,
        len(payload),
        check,
        command ^ 0xFFFFFFFF,
    )
    return header + payload


@dataclass(frozen=True)
class Message:
    """One decoded message."""

    command: int
    arg0: int
    arg1: int
    payload: bytes = b""

    @property
    def name(self) -> str:
        return command_name(self.command)

    def __repr__(self) -> str:
        shown = self.payload[:40]
        more = "…" if len(self.payload) > 40 else ""
        return f"{self.name}({self.arg0:#x}, {self.arg1:#x}, {shown!r}{more})"


class ProtocolViolation(Exception):
    """The peer broke the protocol; adbd closes the connection on this."""


class MessageReader:
    """Incremental decoder: ``feed(bytes)`` → complete messages, validated as adbd does.

    * magic must equal ``command ^ 0xffffffff``;
    * ``data_length`` must not exceed :attr:`max_payload`;
    * while :attr:`check_checksum` is true (negotiated version below
      ``0x01000001``), ``data_check`` must equal the payload's byte sum.
    """

    def __init__(self, max_payload: int = MAX_PAYLOAD, *, check_checksum: bool = True) -> None:
        self.max_payload = max_payload
        self.check_checksum = check_checksum
        self._buf = bytearray()
        self._header: tuple[int, int, int, int, int] | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a complete message."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[Message]:
        """Add bytes; return every message they complete (possibly none)."""
        self._buf += data
        out: list[Message] = []
        while True:
            if self._header is None:
                if len(self._buf) < HEADER.size:
                    return out
                cmd, a0, a1, length, check, magic = HEADER.unpack_from(self._buf)
                if magic != cmd ^ 0xFFFFFFFF:
                    raise ProtocolViolation(
                        f"invalid magic {magic:#010x} for command {command_name(cmd)}"
                    )
                if length > self.max_payload:
                    raise ProtocolViolation(
                        f"{command_name(cmd)} payload of {length} bytes exceeds "
                        f"max payload {self.max_payload}"
                    )
                del self._buf[: HEADER.size]
                self._header = (cmd, a0, a1, length, check)
            cmd, a0, a1, length, check = self._header
            if len(self._buf) < length:
                return out
            payload = bytes(self._buf[:length])
            del self._buf[:length]
            self._header = None
            if self.check_checksum and checksum(payload) != check:
                raise ProtocolViolation(
                    f"{command_name(cmd)} payload checksum {checksum(payload):#x} "
                    f"does not match header {check:#x}"
                )
            out.append(Message(cmd, a0, a1, payload))
