"""This computer's ADB key: created once even by processes racing on a fresh machine, and
its problems reported as key problems, never as a lost device."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from baremobile import connect
from baremobile.errors import AdbKeyError
from baremobile.transport.keys import AdbKey, ensure_key
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

_RACER = """
import json, sys, time
from pathlib import Path
from baremobile.transport.keys import ensure_key
start = Path(sys.argv[2])
while not start.exists():  # every racer waits at the line, then all start at once
    time.sleep(0.001)
key = ensure_key(sys.argv[1])
print(json.dumps({"fingerprint": key.fingerprint, "public": key.public_line.split()[0]}))
"""


def test_six_processes_starting_at_once_end_with_one_key(tmp_path):
    path = tmp_path / "fresh" / "adbkey"
    start = tmp_path / "go"
    racers = [subprocess.Popen([sys.executable, "-c", _RACER, str(path), str(start)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(6)]
    start.touch()
    results = []
    for p in racers:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        results.append(json.loads(out))
    assert len({r["fingerprint"] for r in results}) == 1, results
    on_disk = AdbKey.load(path)
    assert on_disk.fingerprint == results[0]["fingerprint"]
    assert (path.parent / "adbkey.pub").read_text().split()[0] == results[0]["public"]
    assert sorted(p.name for p in path.parent.iterdir()) == ["adbkey", "adbkey.pub"]
    assert (path.stat().st_mode & 0o777) == 0o600


@pytest.fixture(scope="module")
def rsa_4096_pem() -> bytes:
    """An RSA-4096 private key as adb would write it (PKCS#8 PEM), made by the
    ``cryptography`` package adb-shell's keygen uses (pure-Python ``rsa`` takes minutes)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa as crsa

    return crsa.generate_private_key(public_exponent=65537, key_size=4096).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())


def test_an_rsa_4096_key_is_a_key_error_not_a_lost_device(tmp_path, rsa_4096_pem):
    key = tmp_path / "adbkey"
    key.write_bytes(rsa_4096_pem)
    with pytest.raises(AdbKeyError, match="RSA-4096") as exc:
        AdbKey.load(key)
    assert exc.value.code == "ADB_KEY_ERROR" and "2048" in exc.value.message
    with VirtualPhone(port=free_port()) as phone:
        with pytest.raises(AdbKeyError, match="RSA-4096"):
            connect(phone.address, key_path=str(key))
        assert phone.events.list("connect") == []


def test_a_key_folder_that_cannot_be_written_is_a_key_error(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the key's folder should be")
    with VirtualPhone(port=free_port()) as phone:
        with pytest.raises(AdbKeyError, match="cannot create the adb key") as exc:
            connect(phone.address, key_path=str(blocker / "adbkey"))
        assert "writable" in exc.value.hint
        assert phone.events.list("connect") == []


def test_a_key_error_reaches_a_tool_call_as_a_key_error(tmp_path, rsa_4096_pem, monkeypatch):
    from baremobile.tools import Session, call

    (tmp_path / "adbkey").write_bytes(rsa_4096_pem)
    monkeypatch.setenv("ANDROID_USER_HOME", str(tmp_path))
    with VirtualPhone(port=free_port()) as phone, Session() as s:
        r = call(s, "snapshot", {"device": phone.address})
    assert r["error"]["code"] == "ADB_KEY_ERROR", r
    assert r["error"]["category"] == "DEVICE_UNAVAILABLE"


def test_an_existing_key_is_never_replaced(tmp_path):
    first = ensure_key(tmp_path / "adbkey")
    again = ensure_key(tmp_path / "adbkey")
    assert first.fingerprint == again.fingerprint
    assert Path(tmp_path / "adbkey").read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
