"""The virtual adbd's wire codec (sans-I/O) and its behaviour on a real TCP socket."""

from __future__ import annotations

import io
import os
import socket
import struct
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.virtual import protocol as P
from baremobile.virtual.auth import KeyStore, parse_public_key, verify_signature

# ---------------------------------------------------------------------------------------
# codec
# ---------------------------------------------------------------------------------------

commands = st.sampled_from([P.A_CNXN, P.A_AUTH, P.A_OPEN, P.A_OKAY, P.A_CLSE, P.A_WRTE])
u32 = st.integers(0, 2**32 - 1)
messages = st.builds(P.Message, commands, u32, u32, st.binary(max_size=3000))


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, prev = [], 0
    for p in points + [len(data)]:
        out.append(data[prev:p])
        prev = p
    return out


@given(st.lists(messages, max_size=8), st.lists(st.integers(0, 10**6), max_size=20), st.booleans())
def test_any_chunking_decodes_the_same_messages(msgs, cuts, with_checksum):
    wire = b"".join(
        P.pack(m.command, m.arg0, m.arg1, m.payload, with_checksum=with_checksum) for m in msgs
    )
    reader = P.MessageReader(check_checksum=with_checksum)
    got = []
    for chunk in _split(wire, cuts):
        got.extend(reader.feed(chunk))
    assert got == msgs
    assert reader.buffered == 0


@given(messages, st.integers(0, 23), st.integers(1, 255))
def test_corrupted_magic_is_rejected(msg, byte, flip):
    wire = bytearray(P.pack(msg.command, msg.arg0, msg.arg1, msg.payload))
    pos = 20 + byte % 4  # inside the magic word
    wire[pos] ^= flip
    with pytest.raises(P.ProtocolViolation, match="magic"):
        P.MessageReader().feed(bytes(wire))


@given(st.binary(min_size=1, max_size=2000), st.integers(1, 2**32 - 1))
def test_bad_checksum_rejected_only_below_skip_checksum_version(payload, delta):
    wire = bytearray(P.pack(P.A_WRTE, 1, 2, payload))
    check = struct.unpack_from("<I", wire, 16)[0]
    struct.pack_into("<I", wire, 16, (check + delta) & 0xFFFFFFFF)
    with pytest.raises(P.ProtocolViolation, match="checksum"):
        P.MessageReader(check_checksum=True).feed(bytes(wire))
    # adbd skips the check once the negotiated version is >= 0x01000001
    assert P.MessageReader(check_checksum=False).feed(bytes(wire)) == [
        P.Message(P.A_WRTE, 1, 2, payload)
    ]


@pytest.mark.fast
def test_oversized_payload_is_rejected_before_it_is_buffered():
    header = P.HEADER.pack(P.A_WRTE, 1, 2, P.MAX_PAYLOAD + 1, 0, P.A_WRTE ^ 0xFFFFFFFF)
    with pytest.raises(P.ProtocolViolation, match="exceeds"):
        P.MessageReader().feed(header)


@pytest.mark.fast
def test_command_names():
    assert P.command_name(P.A_CNXN) == "CNXN"
    assert P.command_name(0) == "0x00000000"


# ---------------------------------------------------------------------------------------
# auth: real RSA signatures
# ---------------------------------------------------------------------------------------


def test_signature_checks_are_real_rsa(adb_key):
    key = parse_public_key(adb_key.GetPublicKey())
    token = os.urandom(20)
    sig = adb_key.Sign(token)
    assert verify_signature(key, token, sig)
    assert not verify_signature(key, os.urandom(20), sig)
    tampered = bytearray(sig)
    tampered[100] ^= 1
    assert not verify_signature(key, token, bytes(tampered))
    store = KeyStore("known-keys")
    assert store.verify(token, sig) is None
    store.trust(adb_key.GetPublicKey())
    assert store.verify(token, sig) == key


@pytest.mark.fast
def test_public_key_roundtrip_and_validation(adb_key):
    key = parse_public_key(adb_key.GetPublicKey())
    assert key.to_adb_line().split()[0] == adb_key.GetPublicKey().split()[0]
    with pytest.raises(ValueError):
        parse_public_key(b"not base64 !!")
    with pytest.raises(ValueError):
        parse_public_key(b"QUFBQQ== x@y")


# ---------------------------------------------------------------------------------------
# over TCP: raw sockets speaking to the virtual adbd
# ---------------------------------------------------------------------------------------


def _raw_connect(phone, version=P.A_VERSION, maxdata=P.MAX_PAYLOAD):
    sock = socket.create_connection((phone.host, phone.port), timeout=5)
    sock.sendall(P.pack(P.A_CNXN, version, maxdata, b"host::features=shell_v2\0"))
    return sock


def _read_messages(sock, reader, count=1, timeout=5.0):
    out = []
    sock.settimeout(timeout)
    while len(out) < count:
        data = sock.recv(65536)
        if not data:
            break
        out.extend(reader.feed(data))
    return out


def _is_closed(sock, timeout=3.0) -> bool:
    sock.settimeout(timeout)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


@pytest.mark.fast
def test_handshake_token_then_cnxn_banner(phone, adb_key):
    sock = _raw_connect(phone)
    reader = P.MessageReader(check_checksum=False)
    (auth,) = _read_messages(sock, reader)
    assert auth.command == P.A_AUTH and auth.arg0 == P.AUTH_TOKEN and len(auth.payload) == 20
    # a wrong signature earns a fresh token, as adbd does
    sock.sendall(P.pack(P.A_AUTH, P.AUTH_SIGNATURE, 0, os.urandom(256)))
    (again,) = _read_messages(sock, reader)
    assert again.command == P.A_AUTH and again.payload != auth.payload
    # accept-all: offering the public key is accepted at once
    sock.sendall(P.pack(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, adb_key.GetPublicKey().encode() + b"\0"))
    (cnxn,) = _read_messages(sock, reader)
    assert cnxn.command == P.A_CNXN and cnxn.arg0 == P.A_VERSION
    banner = cnxn.payload.decode()
    assert banner.startswith("device::ro.product.name=")
    assert "features=" in banner and "shell_v2" in banner
    sock.close()


@pytest.mark.parametrize("corruption", ["magic", "checksum"])
def test_corrupt_packet_drops_the_connection(phone, corruption):
    # version 0x01000000 (what adb-shell announces) keeps checksums mandatory
    sock = _raw_connect(phone, version=P.A_VERSION_MIN)
    reader = P.MessageReader()
    _read_messages(sock, reader)  # AUTH token
    wire = bytearray(P.pack(P.A_AUTH, P.AUTH_SIGNATURE, 0, b"x" * 256))
    if corruption == "magic":
        wire[20] ^= 0xFF
    else:
        wire[16] ^= 0x01
    sock.sendall(bytes(wire))
    assert _is_closed(sock)


def test_messages_before_cnxn_are_ignored(phone):
    sock = socket.create_connection((phone.host, phone.port), timeout=5)
    sock.sendall(P.pack(P.A_OPEN, 1, 0, b"shell:echo hi\0"))
    sock.settimeout(0.3)
    with pytest.raises(TimeoutError):
        sock.recv(100)
    sock.close()


def _online(phone, adb_key, version=P.A_VERSION):
    sock = _raw_connect(phone, version=version)
    reader = P.MessageReader(check_checksum=version < P.A_VERSION_SKIP_CHECKSUM)
    _read_messages(sock, reader)
    sock.sendall(P.pack(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, adb_key.GetPublicKey().encode() + b"\0"))
    (cnxn,) = _read_messages(sock, reader)
    assert cnxn.command == P.A_CNXN
    return sock, reader


def test_unknown_service_fails_open_with_clse(phone, adb_key):
    sock, reader = _online(phone, adb_key)
    sock.sendall(P.pack(P.A_OPEN, 7, 0, b"jdwp:1234\0"))
    (m,) = _read_messages(sock, reader)
    assert (m.command, m.arg0, m.arg1) == (P.A_CLSE, 0, 7)
    # the connection stays usable
    sock.sendall(P.pack(P.A_OPEN, 8, 0, b"exec:echo still here\0"))
    got = _read_messages(sock, reader, count=3)
    assert got[0].command == P.A_OKAY and got[0].arg1 == 8
    assert got[1].command == P.A_WRTE and got[1].payload == b"still here\n"
    assert got[2].command == P.A_CLSE
    sock.close()


def test_stream_data_and_close_arrive_in_one_segment_and_stray_clse_is_ignored(phone, adb_key):
    sock, reader = _online(phone, adb_key)
    sock.sendall(P.pack(P.A_OPEN, 9, 0, b"exec:echo one\0"))
    okay, wrte, clse = _read_messages(sock, reader, count=3)
    assert okay.command == P.A_OKAY and wrte.command == P.A_WRTE and clse.command == P.A_CLSE
    assert clse.arg0 == okay.arg0 and clse.arg1 == 9
    # a client's CLSE after the device already closed (adb-shell does this) is ignored
    sock.sendall(P.pack(P.A_OKAY, 9, okay.arg0) + P.pack(P.A_CLSE, 9, okay.arg0))
    sock.settimeout(0.3)
    with pytest.raises(TimeoutError):
        sock.recv(100)
    sock.close()


def test_flow_control_one_write_in_flight(phone, adb_key):
    phone.fs.write("/data/local/tmp/big", bytes(300_000))
    sock, reader = _online(phone, adb_key)
    sock.sendall(P.pack(P.A_CNXN, P.A_VERSION, 64 * 1024, b"host::\0"))  # renegotiate 64 KiB
    _read_messages(sock, reader)  # AUTH token again (new session)
    sock.sendall(P.pack(P.A_AUTH, P.AUTH_RSAPUBLICKEY, 0, adb_key.GetPublicKey().encode() + b"\0"))
    _read_messages(sock, reader)
    sock.sendall(P.pack(P.A_OPEN, 3, 0, b"exec:cat /data/local/tmp/big\0"))
    okay, first = _read_messages(sock, reader, count=2)
    assert first.command == P.A_WRTE and len(first.payload) == 64 * 1024
    # without our OKAY, nothing more comes
    sock.settimeout(0.3)
    with pytest.raises(TimeoutError):
        sock.recv(100)
    total = len(first.payload)
    closed = False
    while not closed:
        sock.sendall(P.pack(P.A_OKAY, 3, okay.arg0))
        got = _read_messages(sock, reader)
        assert got[0].command == P.A_WRTE and len(got[0].payload) <= 64 * 1024
        total += len(got[0].payload)
        # the last data and the CLSE come together; otherwise one WRTE per OKAY
        assert len(got) == 1 or (len(got) == 2 and got[1].command == P.A_CLSE)
        closed = len(got) == 2
    assert total == 300_000
    sock.close()


# ---------------------------------------------------------------------------------------
# adb-shell (the product's client library) against the virtual phone
# ---------------------------------------------------------------------------------------

BOUNDARY_SIZES = [
    0,
    1,
    4095,
    4096,
    4097,
    65535,
    65536,
    65537,
    1024 * 1024 - 1,
    1024 * 1024,
    1024 * 1024 + 1,
    2 * 1024 * 1024 + 3,
]


@pytest.fixture
def adbshell_device(phone, adb_key):
    from adb_shell.adb_device import AdbDeviceTcp

    dev = AdbDeviceTcp(phone.host, phone.port, default_transport_timeout_s=10)
    dev.connect(rsa_keys=[adb_key], auth_timeout_s=5)
    yield dev
    dev.close()


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    size=st.one_of(st.sampled_from(BOUNDARY_SIZES), st.integers(0, 1_100_000)),
    seed=st.integers(0, 255),
)
def test_payloads_across_maxdata_boundaries_arrive_intact(adbshell_device, phone, size, seed):
    data = bytes((seed + i * 7) & 0xFF for i in range(size))
    adbshell_device.push(io.BytesIO(data), "/data/local/tmp/blob")
    assert phone.fs.read("/data/local/tmp/blob") == data
    out = io.BytesIO()
    adbshell_device.pull("/data/local/tmp/blob", out)
    assert out.getvalue() == data
    assert adbshell_device.exec_out("cat /data/local/tmp/blob", decode=False) == data


def test_adb_shell_client_needs_allow_in_known_keys_mode(adb_key):
    from adb_shell.adb_device import AdbDeviceTcp
    from adb_shell.exceptions import TcpTimeoutException

    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port

    with VirtualPhone(port=free_port(), auth="known-keys") as ph:
        dev = AdbDeviceTcp(ph.host, ph.port, default_transport_timeout_s=5)
        with pytest.raises(TcpTimeoutException):
            dev.connect(rsa_keys=[adb_key], auth_timeout_s=0.5)
        dev.close()
        assert [k.fingerprint for k in ph.pending_keys] == [adb_key.fingerprint]
        ph.allow()
        dev = AdbDeviceTcp(ph.host, ph.port, default_transport_timeout_s=5)
        assert dev.connect(rsa_keys=[adb_key], auth_timeout_s=2)
        assert dev.shell("echo hello") == "hello\n"
        assert dev.exec_out("echo -n raw", decode=False) == b"raw"
        dev.push(io.BytesIO(b"pushed"), "/sdcard/Download/p.txt")
        assert ph.fs.read("/storage/emulated/0/Download/p.txt") == b"pushed"
        out = io.BytesIO()
        dev.pull("/sdcard/Download/p.txt", out)
        assert out.getvalue() == b"pushed"
        dev.close()


def test_waiting_connection_completes_when_allowed(adb_key):
    """The prompt case: the host waits; the phone's Allow completes that same connection."""
    from adb_shell.adb_device import AdbDeviceTcp

    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port

    prompts = []
    with VirtualPhone(port=free_port(), auth="known-keys", on_auth_prompt=prompts.append) as ph:
        import threading

        timer = threading.Timer(0.3, ph.allow)
        timer.start()
        dev = AdbDeviceTcp(ph.host, ph.port, default_transport_timeout_s=5)
        t0 = time.monotonic()
        assert dev.connect(rsa_keys=[adb_key], auth_timeout_s=5)
        assert time.monotonic() - t0 >= 0.25
        assert [k.fingerprint for k in prompts] == [adb_key.fingerprint]
        assert dev.shell("echo ok") == "ok\n"
        dev.close()
        timer.join()
