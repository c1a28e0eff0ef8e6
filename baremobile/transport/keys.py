"""ADB keys: the user's ``~/.android/adbkey`` so a phone that trusts their adb trusts us.

* :func:`default_key_path` — ``$ANDROID_USER_HOME/adbkey``, else ``~/.android/adbkey``
  (where Google's adb keeps it).
* :func:`load_signers` — the key at that path (generated there, mode 0600, when missing)
  plus every key named by ``ADB_VENDOR_KEYS`` (files or directories, ``:``-separated),
  as adb does.
* Generation is race-free across processes: each writes its new key to a private
  temporary file and hard-links it to ``adbkey`` — which fails if another process got
  there first, and then everyone loads that one key (no last-writer-wins).
* Problems with the key itself (unreadable, not RSA-2048, a folder that cannot be
  written) are :class:`~baremobile.errors.AdbKeyError`, never a device error.
* :class:`AdbKey` — signs the AUTH token with the ``rsa`` package
  (PKCS#1 v1.5 over the token as a pre-hashed SHA-1 digest) and hands out the public
  key in Android's format. It reads PKCS#8 (``BEGIN PRIVATE KEY``, what adb writes) and
  PKCS#1 (``BEGIN RSA PRIVATE KEY``) PEM files, and derives the public key when
  ``adbkey.pub`` is missing.
"""

from __future__ import annotations

import base64
import errno
import getpass
import os
import shutil
import socket
import struct
import tempfile
import threading
from pathlib import Path

import rsa

from baremobile.errors import AdbKeyError

__all__ = ["AdbKey", "default_key_path", "ensure_key", "load_signers"]

_MODULUS_BYTES = 256
_SHA1_DIGEST_INFO = bytes.fromhex("3021300906052b0e03021a05000414")
_gen_lock = threading.Lock()


def default_key_path() -> Path:
    """Where adb keeps its private key for this user."""
    home = os.environ.get("ANDROID_USER_HOME")
    if home:
        return Path(home) / "adbkey"
    return Path.home() / ".android" / "adbkey"


def _android_pubkey(n: int, e: int) -> bytes:
    n0inv = (-pow(n, -1, 1 << 32)) & 0xFFFFFFFF
    rr = pow(2, 2 * 8 * _MODULUS_BYTES, n)
    return struct.pack(
        f"<II{_MODULUS_BYTES}s{_MODULUS_BYTES}sI",
        _MODULUS_BYTES // 4,
        n0inv,
        n.to_bytes(_MODULUS_BYTES, "little"),
        rr.to_bytes(_MODULUS_BYTES, "little"),
        e,
    )


def _user_at_host() -> str:
    try:
        user = getpass.getuser() or "unknown"
    except Exception:  # no passwd entry in some containers
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'unknown'}"


class AdbKey:
    """One RSA-2048 key pair usable as an adb-shell signer (``Sign``, ``GetPublicKey``)."""

    def __init__(self, private_key: rsa.PrivateKey, public_line: str, path: Path | None = None):
        _check_size(private_key, path)
        self._key = private_key
        self.public_line = public_line.strip()
        self.path = path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> AdbKey:
        """Load ``path`` (and ``path.pub`` when present)."""
        p = Path(path)
        try:
            pem = p.read_bytes()
        except OSError as exc:
            raise AdbKeyError(f"cannot read adb key {p}: {exc.strerror}") from None
        key = _load_private_key(pem, p)
        _check_size(key, p)
        pub = p.with_name(p.name + ".pub")
        line = ""
        if pub.is_file():
            line = pub.read_text("utf-8", "replace").strip()
        expected = base64.b64encode(_android_pubkey(key.n, key.e)).decode("ascii")
        if not line.startswith(expected):
            line = f"{expected} {_user_at_host()}"  # missing or stale .pub: derive it
        return cls(key, line, p)

    # adb-shell signer protocol ------------------------------------------------------------
    def Sign(self, data: bytes) -> bytes:  # noqa: N802 (adb-shell's name)
        """PKCS#1 v1.5 signature of ``data`` treated as an already-hashed SHA-1 digest."""
        k = self._key
        size = (k.n.bit_length() + 7) // 8
        suffix = b"\x00" + _SHA1_DIGEST_INFO + data
        em = b"\x00\x01" + b"\xff" * (size - 2 - len(suffix)) + suffix
        m = int.from_bytes(em, "big")
        return pow(m, k.d, k.n).to_bytes(size, "big")

    def GetPublicKey(self) -> str:  # noqa: N802 (adb-shell's name)
        return self.public_line

    @property
    def fingerprint(self) -> str:
        """MD5 fingerprint of the public key, as the phone's prompt shows it."""
        import hashlib

        raw = base64.b64decode(self.public_line.split()[0])
        d = hashlib.md5(raw, usedforsecurity=False).hexdigest().upper()
        return ":".join(d[i : i + 2] for i in range(0, len(d), 2))

    def __repr__(self) -> str:
        return f"<AdbKey {self.path or '(memory)'} {self.fingerprint}>"


def _check_size(key: rsa.PrivateKey, path: Path | None) -> None:
    bits = key.n.bit_length()
    if bits > 8 * _MODULUS_BYTES:
        raise AdbKeyError(
            f"{path or 'the key'} is an RSA-{bits} key; adb keys must be RSA-2048 "
            "(adbd only accepts 2048-bit public keys)"
        )


def _load_private_key(pem: bytes, path: Path) -> rsa.PrivateKey:
    if b"BEGIN RSA PRIVATE KEY" in pem:
        try:
            return rsa.PrivateKey.load_pkcs1(pem, format="PEM")
        except Exception as exc:
            raise AdbKeyError(f"{path} is not a readable RSA key: {exc}") from None
    from adb_shell.auth.sign_pythonrsa import PythonRSASigner  # PKCS#8 unwrapping

    try:
        return PythonRSASigner(None, pem.decode("ascii")).priv_key
    except Exception as exc:
        raise AdbKeyError(
            f"{path} is not a readable adb key (PEM RSA private key expected): {exc}",
        ) from None


def ensure_key(path: str | os.PathLike[str] | None = None) -> AdbKey:
    """Load the key at ``path`` (default :func:`default_key_path`), generating it if missing.

    A new key is written the way adb writes it: PKCS#8 PEM private key with mode 0600
    and ``adbkey.pub`` beside it, inside a 0700 directory created if needed.
    """
    p = Path(path) if path is not None else default_key_path()
    with _gen_lock:
        if not p.exists():
            try:
                _generate(p)
            except OSError as exc:
                raise AdbKeyError(
                    f"cannot create the adb key {p}: {exc.strerror or exc}",
                    hint="make its folder writable, set $ANDROID_USER_HOME to a writable "
                    "folder, or pass key_path=...",
                ) from None
    return AdbKey.load(p)


def _generate(path: Path) -> None:
    """Create the key pair at ``path`` unless another process does so first (then its key
    is kept: every process ends up loading the same one)."""
    from adb_shell.auth.keygen import keygen  # uses the cryptography package adb-shell needs

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmpdir = tempfile.mkdtemp(prefix=".adbkey-", dir=path.parent)
    try:
        tmp = os.path.join(tmpdir, "adbkey")
        keygen(tmp)
        os.chmod(tmp, 0o600)
        os.chmod(tmp + ".pub", 0o644)
        # fix the comment: adb-shell writes it without a separating newline
        pub = Path(tmp + ".pub").read_text().strip()
        Path(tmp + ".pub").write_text(pub + "\n")
        if not _claim(tmp, path):
            return  # another process created the key meanwhile: use theirs
        os.replace(tmp + ".pub", str(path) + ".pub")
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _claim(tmp: str, path: Path) -> bool:
    """Put the complete file ``tmp`` at ``path`` unless something is there already.

    A hard link is atomic and never replaces an existing file; on a file system without
    hard links an exclusive create (``O_EXCL``) decides, and the winner copies the key in.
    """
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
            raise
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as f:
        f.write(Path(tmp).read_bytes())
    return True


def load_signers(key_path: str | os.PathLike[str] | None = None) -> list[AdbKey]:
    """The user's key (created if missing) followed by ``ADB_VENDOR_KEYS`` keys."""
    keys = [ensure_key(key_path)]
    seen = {keys[0].public_line.split()[0]}
    for entry in filter(None, os.environ.get("ADB_VENDOR_KEYS", "").split(os.pathsep)):
        p = Path(entry)
        candidates = sorted(p.glob("*")) if p.is_dir() else [p]
        for c in candidates:
            if c.suffix == ".pub" or not c.is_file():
                continue
            try:
                k = AdbKey.load(c)
            except AdbKeyError:
                continue
            if k.public_line.split()[0] not in seen:
                seen.add(k.public_line.split()[0])
                keys.append(k)
    return keys
