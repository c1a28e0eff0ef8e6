"""Transport pieces that need no device: keys, sentinels, shell v2, banners, specs, USB errors."""

from __future__ import annotations

import os
import stat
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baremobile.errors import (
    AdbKeyError,
    CommandFailed,
    DeviceBusy,
    DeviceDisconnected,
    DeviceNotFound,
    DevicePermissionDenied,
    ProtocolError,
)
from baremobile.transport.base import ShellV2Decoder, split_sentinel, with_sentinel
from baremobile.transport.direct import WireWatcher, parse_banner
from baremobile.transport.discovery import parse_host_port
from baremobile.transport.keys import AdbKey, ensure_key, load_signers
from baremobile.transport.usb import map_usb_error
from baremobile.virtual import protocol as P
from baremobile.virtual.auth import parse_public_key, verify_signature

# -- keys --------------------------------------------------------------------------------


def test_generated_key_is_0600_in_0700_dir_and_signs(tmp_path):
    path = tmp_path / "new" / ".android" / "adbkey"
    key = ensure_key(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert path.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    pub_line = (path.parent / "adbkey.pub").read_text()
    assert pub_line.endswith("\n") and " " in pub_line.strip()
    token = os.urandom(20)
    assert verify_signature(parse_public_key(pub_line), token, key.Sign(token))
    # loading again gives the same key, and nothing is regenerated
    assert ensure_key(path).GetPublicKey() == key.GetPublicKey()


def test_default_key_location_follows_android_user_home(tmp_path, monkeypatch):
    monkeypatch.setenv("ANDROID_USER_HOME", str(tmp_path / "h"))
    (key,) = load_signers()
    assert key.path == tmp_path / "h" / "adbkey"


def test_missing_pub_is_derived_and_pkcs1_keys_load(tmp_path, adb_key):
    import rsa

    priv = rsa.PrivateKey.load_pkcs1(
        adb_key._key.save_pkcs1("PEM"),
        "PEM",  # the same key, as PKCS#1 PEM
    )
    p = tmp_path / "legacy"
    p.write_bytes(priv.save_pkcs1("PEM"))
    k = AdbKey.load(p)
    assert k.GetPublicKey().split()[0] == adb_key.GetPublicKey().split()[0]


def test_unreadable_key_is_a_clear_error(tmp_path):
    p = tmp_path / "adbkey"
    p.write_text("not a key")
    with pytest.raises(AdbKeyError, match="not a readable"):
        AdbKey.load(p)


def test_vendor_keys_are_added(tmp_path, monkeypatch, adb_key):
    other = ensure_key(tmp_path / "vendor" / "k1")
    monkeypatch.setenv("ADB_VENDOR_KEYS", str(tmp_path / "vendor"))
    keys = load_signers(adb_key.path)
    assert [k.GetPublicKey() for k in keys] == [adb_key.GetPublicKey(), other.GetPublicKey()]


# -- exit status -------------------------------------------------------------------------


@given(st.binary(max_size=200), st.integers(0, 255))
def test_sentinel_roundtrip(output, code):
    _, marker = with_sentinel("true")
    stdout, got = split_sentinel(output + marker + b"%d\n" % code, marker)
    assert (stdout, got) == (output, code)


def test_missing_sentinel_is_command_failed():
    _, marker = with_sentinel("x")
    with pytest.raises(CommandFailed, match="did not finish"):
        split_sentinel(b"sh: syntax error", marker, "x")


def _v2(pid: int, data: bytes) -> bytes:
    return struct.pack("<BI", pid, len(data)) + data


@given(st.binary(max_size=300), st.binary(max_size=300), st.integers(0, 255), st.integers(1, 17))
def test_shell_v2_decoder_any_chunking(out, err, code, step):
    wire = _v2(1, out) + _v2(2, err) + _v2(3, bytes([code]))
    chunks = [wire[i : i + step] for i in range(0, len(wire), step)]
    r = ShellV2Decoder.decode_all(chunks, "cmd")
    assert (r.stdout, r.stderr, r.exit_code) == (out, err, code)


def test_shell_v2_without_exit_is_protocol_error():
    with pytest.raises(ProtocolError):
        ShellV2Decoder.decode_all([_v2(1, b"x")], "cmd")


# -- banners and wire validation ---------------------------------------------------------


def test_parse_banner():
    props, feats = parse_banner(
        "device::ro.product.name=vphone;ro.product.model=Virtual Phone;features=shell_v2,cmd"
    )
    assert props == {"ro.product.name": "vphone", "ro.product.model": "Virtual Phone"}
    assert feats == {"shell_v2", "cmd"}


@given(st.integers(1, 40))
def test_wire_watcher_keeps_banner_and_rejects_garbage(step):
    wire = (
        P.pack(P.A_AUTH, 1, 0, os.urandom(20))
        + P.pack(P.A_CNXN, P.A_VERSION, 4096, b"device::features=shell_v2")
        + P.pack(P.A_WRTE, 1, 2, b"payload that looks like a header" * 3)
    )
    w = WireWatcher()
    for i in range(0, len(wire), step):
        w.feed(wire[i : i + step])
    assert w.banner == "device::features=shell_v2"
    bad = bytearray(P.pack(P.A_WRTE, 1, 2, b"x"))
    bad[20] ^= 0xFF
    with pytest.raises(ProtocolError, match="corrupt"):
        w.feed(bytes(bad))


# -- device specs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("192.168.1.7:5555", ("192.168.1.7", 5555)),
        ("localhost:40001", ("localhost", 40001)),
        ("[::1]:5555", ("::1", 5555)),
        ("emulator-5554", None),
        ("usb:ABC123", None),
        ("R58M12345", None),
        ("host:99999", None),
        ("adb-XYZ._adb-tls-connect._tcp", None),
    ],
)
def test_parse_host_port(spec, expected):
    assert parse_host_port(spec) == expected


# -- USB error mapping (real USB cannot be exercised here) -------------------------------


class _FakeUsbError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"LIBUSB_ERROR {value}")
        self.value = value


def test_usb_busy_says_an_adb_server_holds_it_and_what_to_do():
    err = map_usb_error(_FakeUsbError(-6), "R58M123")
    assert isinstance(err, DeviceBusy)
    text = str(err)
    assert "adb server" in text and "adb kill-server" in text and "R58M123" in text


@pytest.mark.parametrize(
    ("value", "kind"),
    [(-3, DevicePermissionDenied), (-4, DeviceDisconnected), (-5, DeviceDisconnected)],
)
def test_usb_error_codes(value, kind):
    assert isinstance(map_usb_error(_FakeUsbError(value)), kind)


def test_usb_real_libusb_exceptions_map_when_available():
    usb1 = pytest.importorskip("usb1")
    assert isinstance(map_usb_error(usb1.USBErrorBusy()), DeviceBusy)
    assert isinstance(map_usb_error(usb1.USBErrorAccess()), DevicePermissionDenied)


def test_usb_other_errors_are_not_claimed():
    assert map_usb_error(ValueError("x")) is None
    from adb_shell.exceptions import UsbDeviceNotFoundError

    assert isinstance(map_usb_error(UsbDeviceNotFoundError("none")), DeviceNotFound)


# -- the adb server client against a scripted server ------------------------------------


class _ScriptedServer:
    """A one-shot fake adb server: answers each accepted connection with canned bytes."""

    def __init__(self, replies):
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.replies = list(replies)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        import time

        for reply in self.replies:
            conn, _ = self.sock.accept()
            conn.recv(4096)
            if callable(reply):
                reply(conn)
            else:
                conn.sendall(reply)
                time.sleep(0.05)
            conn.close()


def _hex(s: bytes) -> bytes:
    return b"%04x" % len(s) + s


def test_devices_l_parsing_including_no_permissions():
    from baremobile.transport.server import AdbServerClient

    listing = (
        b"emulator-5554          device product:sdk_gphone64 model:sdk_gphone64_x86_64 "
        b"device:emu64x transport_id:1\n"
        b"R58M12345              no permissions (missing udev rules? user is in the plugdev "
        b"group); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:2\n"
        b"10.0.0.7:5555\tunauthorized usb:3-1 transport_id:3\n"
    )
    srv = _ScriptedServer([b"OKAY" + _hex(listing)])
    devs = AdbServerClient(port=srv.port).devices()
    assert [(d.serial, d.state) for d in devs] == [
        ("emulator-5554", "device"),
        ("R58M12345", "no permissions"),
        ("10.0.0.7:5555", "unauthorized"),
    ]
    assert devs[0].properties["model"] == "sdk_gphone64_x86_64"
    assert devs[1].properties == {"usb": "1-1", "transport_id": "2"}


def test_server_garbage_and_resets_are_typed_errors():
    from baremobile.transport.server import AdbServerClient

    srv = _ScriptedServer([b"OKAYzz!!", b"WHAT", lambda c: c.close()])
    client = AdbServerClient(port=srv.port)
    with pytest.raises(ProtocolError):
        client.devices()  # a length that is not hex
    with pytest.raises(ProtocolError):
        client.devices()  # neither OKAY nor FAIL
    with pytest.raises(DeviceDisconnected):
        client.devices()  # closed without a word


def test_server_timeout_bounds_the_whole_command():
    import time

    from baremobile.errors import CommandTimeout
    from baremobile.transport.server import AdbServerClient, ServerTransport

    started = []

    def trickle(conn):  # OKAY for transport and service, then a byte every 0.1 s forever
        conn.sendall(b"OKAY")  # host:transport (already read)
        conn.recv(4096)  # exec:yes
        conn.sendall(b"OKAY")
        started.append(True)
        try:
            for _ in range(100):
                conn.sendall(b".")
                time.sleep(0.1)
        except OSError:
            pass

    srv = _ScriptedServer([trickle])
    t = ServerTransport("x", client=AdbServerClient(port=srv.port))
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout):
        b"".join(t.stream("yes", timeout=0.5))
    assert started and 0.4 < time.monotonic() - t0 < 1.5  # bytes kept coming; still cut


# -- USB: transfers wait in slices, so an abort and the deadline are seen -------------------


class _SlowUsb:
    """A stand-in for adb-shell's UsbTransport: every transfer times out as libusb does
    (adb-shell wraps libusb1's USBErrorTimeout, which carries what was transferred)."""

    def __init__(self, partial: bytes = b"", sent: int = 0) -> None:
        self.waits: list[float] = []
        self.partial = partial
        self.sent = sent

    def _timeout(self, wait: float, **fields):
        import time

        import usb1
        from adb_shell.exceptions import UsbReadFailedError

        self.waits.append(wait)
        time.sleep(wait)
        err = usb1.USBErrorTimeout()
        for k, v in fields.items():
            setattr(err, k, v)
        return UsbReadFailedError("timed out", err)

    def bulk_read(self, numbytes: int, timeout: float) -> bytes:
        data, self.partial = self.partial, b""
        raise self._timeout(timeout, received=data)

    def bulk_write(self, data: bytes, timeout: float) -> int:
        sent, self.sent = self.sent, 0
        raise self._timeout(timeout, transferred=sent)


def test_usb_abort_is_seen_between_short_transfers():
    import threading
    import time

    from baremobile.errors import Cancelled
    from baremobile.transport.usb import _ClaimMapped

    inner = _SlowUsb()
    pipe = _ClaimMapped(inner, "R58M")
    threading.Timer(0.2, pipe.abort, args=("test",)).start()
    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        pipe.bulk_read(24, 30)
    assert time.monotonic() - t0 < 2  # one 50 ms slice after the abort, not 30 s
    assert inner.waits and max(inner.waits) <= 0.05 and min(inner.waits) > 0  # never 0 (= forever)


def test_usb_timed_out_slices_lose_nothing_and_the_deadline_holds():
    import time

    from baremobile.transport.usb import _ClaimMapped
    from baremobile.transport.wire import DeadlineExpired

    pipe = _ClaimMapped(_SlowUsb(partial=b"CNXN"), "R58M")
    assert pipe.bulk_read(24, 5) == b"CNXN"  # what a timed-out slice received is kept
    inner = _SlowUsb(sent=3)
    pipe = _ClaimMapped(inner, "R58M")
    pipe.deadline = time.monotonic() + 0.3
    with pytest.raises(DeadlineExpired):
        pipe.bulk_write(b"abcdef", 30)  # 3 bytes went; the rest never did, within the deadline
    assert len(inner.waits) >= 2
