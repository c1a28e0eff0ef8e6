"""adbd's side of ADB authentication: Android public keys and token signatures.

The host proves it holds a key by signing a 20-byte random token; adbd checks the
signature with ``RSA_verify(NID_sha1, token, …)`` — i.e. PKCS#1 v1.5 with the SHA-1
DigestInfo prefix wrapped around the *token itself* (the token plays the digest). Public
keys travel in Android's own format: base64 of a little-endian struct
``{u32 words, u32 n0inv, u8 n[256], u8 rr[256], u32 e}`` followed by ``" user@host"``.

Verification here is the real modular arithmetic, so a wrong key or a forged signature
is rejected exactly as on a phone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = [
    "AndroidPublicKey",
    "KeyStore",
    "parse_public_key",
    "verify_signature",
    "AUTH_MODES",
]

#: ``accept-all``: any key is trusted when offered (as if the user always taps Allow);
#: ``known-keys``: only trusted keys connect, an offered unknown key waits for
#: :meth:`KeyStore.allow` (the phone's "Allow USB debugging?" prompt);
#: ``none``: ``ro.adb.secure=0`` — no AUTH exchange at all.
AUTH_MODES = ("accept-all", "known-keys", "none")

_MODULUS_BYTES = 256
_KEY_STRUCT = struct.Struct(f"<II{_MODULUS_BYTES}s{_MODULUS_BYTES}sI")
_SHA1_DIGEST_INFO = bytes.fromhex("3021300906052b0e03021a05000414")


@dataclass(frozen=True)
class AndroidPublicKey:
    """An RSA-2048 public key as adb sends it."""

    n: int
    e: int
    comment: str = ""

    @property
    def fingerprint(self) -> str:
        """MD5 of the encoded key, colon separated — what the phone's prompt shows."""
        digest = hashlib.md5(self.encode(), usedforsecurity=False).hexdigest().upper()
        return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))

    def encode(self) -> bytes:
        """The raw Android struct (before base64)."""
        n0inv = (-pow(self.n, -1, 1 << 32)) & 0xFFFFFFFF
        rr = pow(2, 2 * 8 * _MODULUS_BYTES, self.n)
        return _KEY_STRUCT.pack(
            _MODULUS_BYTES // 4,
            n0inv,
            self.n.to_bytes(_MODULUS_BYTES, "little"),
            rr.to_bytes(_MODULUS_BYTES, "little"),
            self.e,
        )

    def to_adb_line(self) -> str:
        """``<base64> <comment>`` as in ``adbkey.pub`` and ``/data/misc/adb/adb_keys``."""
        b64 = base64.b64encode(self.encode()).decode("ascii")
        return f"{b64} {self.comment}".rstrip()


def parse_public_key(data: bytes | str) -> AndroidPublicKey:
    """Decode an ``adbkey.pub`` line / AUTH RSAPUBLICKEY payload. Raises ``ValueError``."""
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    data = data.rstrip(b"\0").strip()
    b64, _, comment = data.partition(b" ")
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"public key is not valid base64: {exc}") from None
    if len(raw) != _KEY_STRUCT.size:
        raise ValueError(f"public key struct is {len(raw)} bytes, expected {_KEY_STRUCT.size}")
    words, n0inv, n_le, _rr, e = _KEY_STRUCT.unpack(raw)
    if words != _MODULUS_BYTES // 4:
        raise ValueError(f"public key modulus is {words} words, expected {_MODULUS_BYTES // 4}")
    n = int.from_bytes(n_le, "little")
    if n % 2 == 0 or n.bit_length() < 2040:
        raise ValueError("public key modulus is not an RSA-2048 modulus")
    if (n * n0inv) & 0xFFFFFFFF != 0xFFFFFFFF:  # n0inv == -1/n mod 2^32
        raise ValueError("public key n0inv does not match its modulus")
    if e not in (3, 65537):
        raise ValueError(f"public key exponent {e} is not 3 or 65537")
    return AndroidPublicKey(n, e, comment.decode("utf-8", "replace"))


def verify_signature(key: AndroidPublicKey, token: bytes, signature: bytes) -> bool:
    """True when ``signature`` is ``key``'s PKCS#1 v1.5 SHA-1 signature of ``token``."""
    if len(signature) != _MODULUS_BYTES or len(token) != 20:
        return False
    s = int.from_bytes(signature, "big")
    if s >= key.n:
        return False
    em = pow(s, key.e, key.n).to_bytes(_MODULUS_BYTES, "big")
    suffix = b"\x00" + _SHA1_DIGEST_INFO + token
    expected = b"\x00\x01" + b"\xff" * (_MODULUS_BYTES - 2 - len(suffix)) + suffix
    return em == expected


class KeyStore:
    """The phone's trusted keys (``/data/misc/adb/adb_keys``) and its pending prompts."""

    def __init__(self, mode: str = "accept-all", trusted: Iterable[AndroidPublicKey] = ()) -> None:
        if mode not in AUTH_MODES:
            raise ValueError(f"auth mode must be one of {', '.join(AUTH_MODES)}, not {mode!r}")
        self.mode = mode
        self._lock = threading.Lock()
        self._trusted: dict[tuple[int, int], AndroidPublicKey] = {}
        self._pending: dict[tuple[int, int], AndroidPublicKey] = {}
        self._listeners: list[Callable[[AndroidPublicKey], None]] = []
        for k in trusted:
            self.trust(k)

    # -- queries ---------------------------------------------------------------------
    def is_trusted(self, key: AndroidPublicKey) -> bool:
        with self._lock:
            return (key.n, key.e) in self._trusted

    @property
    def trusted(self) -> list[AndroidPublicKey]:
        with self._lock:
            return list(self._trusted.values())

    @property
    def pending(self) -> list[AndroidPublicKey]:
        """Keys offered by a host and waiting for the user's "Allow" (known-keys mode)."""
        with self._lock:
            return list(self._pending.values())

    def verify(self, token: bytes, signature: bytes) -> AndroidPublicKey | None:
        """The trusted key that made ``signature`` over ``token``, if any."""
        for key in self.trusted:
            if verify_signature(key, token, signature):
                return key
        return None

    # -- changes ---------------------------------------------------------------------
    def trust(self, key: AndroidPublicKey | str | bytes) -> AndroidPublicKey:
        """Add a key (object, ``adbkey.pub`` text) to the trusted set."""
        if not isinstance(key, AndroidPublicKey):
            key = parse_public_key(key)
        with self._lock:
            self._trusted[(key.n, key.e)] = key
            self._pending.pop((key.n, key.e), None)
            listeners = list(self._listeners)
        for cb in listeners:
            cb(key)
        return key

    def offer(self, key: AndroidPublicKey) -> bool:
        """A host sent its public key. Returns True when it is (now) trusted."""
        if self.mode == "accept-all" or self.is_trusted(key):
            self.trust(key)
            return True
        with self._lock:
            self._pending[(key.n, key.e)] = key
        return False

    def allow(self, key: AndroidPublicKey | str | bytes | None = None) -> list[AndroidPublicKey]:
        """The user taps "Allow": trust ``key`` (or every pending key when ``None``)."""
        if key is None:
            return [self.trust(k) for k in self.pending]
        return [self.trust(key)]

    def revoke_all(self) -> None:
        """ "Revoke USB debugging authorizations"."""
        with self._lock:
            self._trusted.clear()

    def on_trust(self, callback: Callable[[AndroidPublicKey], None]) -> Callable[[], None]:
        """Call ``callback(key)`` whenever a key becomes trusted; returns an unsubscribe."""
        with self._lock:
            self._listeners.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return unsubscribe
