"""Transports end to end against the virtual phone over real TCP: direct adbd, through a
real adb server, authentication, faults, and discovery."""

from __future__ import annotations

import socket
import threading
import time

import pytest

import baremobile
from baremobile.errors import (
    CommandTimeout,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceUnauthorized,
    MultipleDevices,
    ProtocolError,
)
from baremobile.transport import DirectTransport, ServerTransport, open_transport
from baremobile.transport.keys import ensure_key
from baremobile.virtual import VirtualPhone
from baremobile.virtual import protocol as P
from baremobile.virtual.adbd import DEFAULT_FEATURES
from tests.conftest import RealAdb, free_port

COMMANDS = [
    "echo hello",
    "echo out; echo err >&2; exit 3",
    "getprop ro.build.version.sdk",
    "wm size",
    "cat /nonexistent",
    "nosuchcommand --flag",
    "printf 'a\\tb\\n' && false || echo fallback",
]


@pytest.fixture
def direct(phone, adb_key):
    t = DirectTransport(phone.host, phone.port, keys=[adb_key], timeout=10)
    yield t
    t.close()


# -- direct ------------------------------------------------------------------------------


@pytest.mark.fast
def test_direct_shell_gives_stdout_stderr_and_exit_status(direct, phone):
    r = direct.shell("echo out; echo err >&2; exit 3")
    assert (r.stdout, r.stderr, r.exit_code) == (b"out\n", b"err\n", 3)
    assert direct.shell("true").ok
    assert direct.features >= {"shell_v2"}
    assert direct.props["ro.product.model"] == "Virtual Phone"
    assert ["echo", "out"] in phone.events.commands()


def test_without_shell_v2_exit_status_comes_from_a_sentinel(adb_key):
    old = tuple(f for f in DEFAULT_FEATURES if f != "shell_v2")
    with VirtualPhone(port=free_port(), features=old) as ph:
        t = DirectTransport(ph.host, ph.port, keys=[adb_key])
        r = t.shell("echo out; echo err >&2; exit 3")
        assert r.exit_code == 3
        assert b"out\n" in r.stdout and b"err\n" in r.stdout  # merged, as on old devices
        assert b"__bm_rc_" not in r.stdout
        assert t.shell("printf no-newline").stdout == b"no-newline"
        t.close()


@pytest.mark.fast
def test_stream_and_sync_roundtrip(direct, phone):
    data = bytes(range(256)) * 5000
    direct.push(data, "/data/local/tmp/blob.bin")
    assert phone.fs.read("/data/local/tmp/blob.bin") == data
    assert direct.pull("/data/local/tmp/blob.bin") == data
    chunks = list(direct.stream("cat /data/local/tmp/blob.bin"))
    assert b"".join(chunks) == data and len(chunks) > 1  # arrives as it is sent
    assert direct.exec_out("screencap -p")[:8] == b"\x89PNG\r\n\x1a\n"


def test_one_write_per_message_and_nodelay(direct):
    """The fix for adb-shell's header/payload split: every socket write holds whole messages."""
    direct.connect()
    tr = direct._transport
    assert tr._connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    writes: list[bytes] = []
    orig = tr._sendall

    def spy(wire: bytes, timeout):
        writes.append(bytes(wire))
        return orig(wire, timeout)

    tr._sendall = spy
    direct.shell("echo " + "x" * 5000)
    direct.push(b"y" * 200_000, "/data/local/tmp/y")
    assert writes
    assert direct.protocol_version == P.A_VERSION_SKIP_CHECKSUM  # no checksums to check
    for w in writes:
        reader = P.MessageReader(check_checksum=False)
        assert reader.feed(w), "a write carried no complete message"
        assert reader.buffered == 0, "a write split a message"


def test_calls_from_many_threads_are_safe(direct):
    results: list[bytes] = []
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for j in range(5):
                results.append(direct.shell(f"echo {i}-{j}").stdout)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(results) == sorted(f"{i}-{j}\n".encode() for i in range(6) for j in range(5))


# -- through a real adb server -----------------------------------------------------------


def test_server_and_direct_give_the_same_shell_results(real_adb, phone, adb_key, monkeypatch):
    serial = real_adb.connect(phone)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(real_adb.port))
    assert isinstance(open_transport(serial, keys=[adb_key]), DirectTransport)  # host:port
    via_server = open_transport(f"adb:{serial}")
    assert isinstance(via_server, ServerTransport)
    direct = DirectTransport(phone.host, phone.port, keys=[adb_key])
    for cmd in COMMANDS:
        a, b = direct.shell(cmd), via_server.shell(cmd)
        assert (a.stdout, a.stderr, a.exit_code) == (b.stdout, b.stderr, b.exit_code), cmd
    data = b"\x00\x01binary\xff" * 10000
    via_server.push(data, "/sdcard/Download/s.bin")
    assert direct.pull("/sdcard/Download/s.bin") == data
    assert via_server.pull("/sdcard/Download/s.bin") == data
    assert via_server.exec_out("screencap -p")[:4] == b"\x89PNG"
    direct.close()


@pytest.mark.fast
def test_devices_lists_what_the_server_has(real_adb, phone, monkeypatch):
    serial = real_adb.connect(phone)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(real_adb.port))
    (info,) = baremobile.devices()
    assert (info.serial, info.state, info.kind, info.via) == (serial, "device", "tcp", "adb-server")
    assert info.model == "Virtual_Phone"
    t = open_transport()  # auto: the server's only device
    assert t.serial == serial and t.shell("echo auto").stdout == b"auto\n"


def test_two_devices_need_a_choice(real_adb, phone, monkeypatch):
    with VirtualPhone(port=free_port()) as second:
        real_adb.connect(phone)
        real_adb.connect(second)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(real_adb.port))
        with pytest.raises(MultipleDevices) as exc:
            open_transport()
        assert sorted(exc.value.serials) == sorted([phone.address, second.address])
        assert exc.value.code == "MULTIPLE_DEVICES_DEVICE_ID_REQUIRED"
        with pytest.raises(DeviceNotFound, match="does not know"):
            open_transport("emulator-5554")


@pytest.mark.fast
def test_no_device_anywhere_says_what_was_tried():
    with pytest.raises(DeviceNotFound) as exc:
        open_transport()
    tried = " ".join(exc.value.tried)
    assert "adb server" in tried and "emulator ports" in tried and "USB" in tried
    assert exc.value.code == "NO_DEVICES"


def test_virtual_spec_starts_and_stops_a_phone():
    from baremobile.page import phone

    t = open_transport("virtual", start_phone=phone.start)
    assert t.kind == "virtual"
    assert t.shell("getprop ro.product.model").stdout == b"Virtual Phone\n"
    port = t.port
    t.shutdown()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_host_port_spec_is_direct(phone, adb_key):
    t = open_transport(phone.address, keys=[adb_key])
    assert isinstance(t, DirectTransport) and t.kind == "tcp"
    assert t.shell("echo direct").stdout == b"direct\n"
    t.close()


def test_unreachable_address_is_device_disconnected():
    with pytest.raises(DeviceDisconnected, match="cannot reach"):
        open_transport(f"127.0.0.1:{free_port()}", connect_timeout=1)


# -- authentication ----------------------------------------------------------------------


@pytest.mark.fast
def test_known_key_is_accepted(adb_key):
    with VirtualPhone(
        port=free_port(), auth="known-keys", trusted_keys=[adb_key.GetPublicKey()]
    ) as ph:
        t = DirectTransport(ph.host, ph.port, keys=[adb_key], auth_timeout=1)
        assert t.shell("echo in").stdout == b"in\n"
        (ev,) = ph.events.list("connect")
        assert ev["key"] == adb_key.fingerprint
        t.close()


def test_unknown_key_is_unauthorized_until_allowed(adb_key, no_thread_leaks):
    prompts: list[str] = []
    with VirtualPhone(port=free_port(), auth="known-keys") as ph:
        t = DirectTransport(
            ph.host,
            ph.port,
            keys=[adb_key],
            auth_timeout=0.4,
            on_auth_prompt=lambda tr: prompts.append(tr.serial),
        )
        t0 = time.monotonic()
        with pytest.raises(DeviceUnauthorized) as exc:
            t.connect()
        elapsed = time.monotonic() - t0
        assert 0.3 < elapsed < 3
        assert "Allow USB debugging?" in str(exc.value)
        assert prompts == [ph.address]
        assert [k.fingerprint for k in ph.pending_keys] == [adb_key.fingerprint]
        ph.allow()
        assert t.shell("echo allowed").stdout == b"allowed\n"
        t.close()


def test_our_keys_are_readable_by_debian_adb(adb_binary, tmp_path):
    """A key baremobile generates is the key adb uses: the phone trusts only that key."""
    home = tmp_path / "home"
    key = ensure_key(home / ".android" / "adbkey")
    adb = RealAdb(adb_binary, home, free_port())
    with VirtualPhone(port=free_port(), auth="known-keys", trusted_keys=[key.GetPublicKey()]) as ph:
        adb.ok("start-server")
        try:
            serial = adb.connect(ph)
            assert adb.ok("-s", serial, "shell", "echo", "trusted") == b"trusted\n"
            assert ph.pending_keys == []  # adb never had to offer a key: it signed with ours
        finally:
            adb.run("kill-server")


# -- faults ------------------------------------------------------------------------------


def test_connection_dropped_mid_stream(direct, phone, no_thread_leaks):
    phone.fs.write("/data/local/tmp/big", bytes(2_000_000))
    rule = phone.faults.add("drop", service="cat /data/local/tmp/big", after_bytes=300_000)
    t0 = time.monotonic()
    with pytest.raises(DeviceDisconnected):
        direct.exec_out("cat /data/local/tmp/big", timeout=5)
    assert time.monotonic() - t0 < 5
    assert rule.hits == 1
    assert direct.shell("echo back").stdout == b"back\n"  # the next call reconnects


def test_stalled_command_times_out(direct, phone, no_thread_leaks):
    phone.faults.add("stall", service="echo stuck")
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout):
        direct.shell("echo stuck", timeout=0.4)
    assert 0.3 < time.monotonic() - t0 < 3
    assert direct.shell("echo fine").stdout == b"fine\n"


def test_wedged_adbd_times_out_and_recovers(direct, phone, no_thread_leaks):
    direct.connect()
    phone.stall(True)
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout):
        direct.shell("echo anyone", timeout=0.4)
    assert time.monotonic() - t0 < 3
    phone.stall(False)
    assert direct.shell("echo recovered").stdout == b"recovered\n"


def test_corrupt_packet_is_a_protocol_error(direct, phone, no_thread_leaks):
    phone.faults.add("corrupt", service="echo garbled")
    with pytest.raises(ProtocolError):
        direct.shell("echo garbled", timeout=3)
    assert direct.shell("echo clean").stdout == b"clean\n"


def test_cable_pulled_between_calls(direct, phone, no_thread_leaks):
    direct.shell("echo first")
    phone.disconnect_all()
    with pytest.raises(DeviceDisconnected):
        direct.shell("echo lost", timeout=3)
    assert direct.shell("echo again").stdout == b"again\n"


def test_refused_service_fails_at_once_not_after_the_timeout(direct, phone, no_thread_leaks):
    from baremobile.errors import ServiceRefused

    phone.faults.add("refuse", service="echo nope")
    t0 = time.monotonic()
    with pytest.raises(ServiceRefused, match="refused to open"):
        direct.shell("echo nope", timeout=10)
    assert time.monotonic() - t0 < 2
    assert direct.shell("echo yes").stdout == b"yes\n"


@pytest.fixture
def many_open_files():
    """This process holds more than 1024 open files (a server embedding baremobile): every
    socket it opens now gets a descriptor that ``select()`` cannot watch."""
    import os
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this system allows {hard} open files per process")
    if soft != resource.RLIM_INFINITY and soft < 1200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, hard), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_process_with_many_open_files_still_reaches_devices(phone, adb_key, many_open_files,
                                                              monkeypatch):
    """Every wait on a socket works for any descriptor number (select() raised "filedescriptor
    out of range", reported as DEVICE_DISCONNECTED: check the cable): commands, streams,
    sync, timeouts, discovery's probe and the daemon's client."""
    from baremobile.transport.discovery import probe_adbd

    t = DirectTransport(phone.host, phone.port, keys=[adb_key], timeout=10)
    try:
        assert t.shell("echo many").stdout == b"many\n"
        t.push(b"x" * 300_000, "/sdcard/many.bin")
        assert t.pull("/sdcard/many.bin") == b"x" * 300_000
        phone.faults.add("stall", service="echo stalled")
        with pytest.raises(CommandTimeout):
            t.shell("echo stalled", timeout=0.3)
        assert t.shell("echo again").stdout == b"again\n"
    finally:
        t.close()
    assert probe_adbd((phone.port,)) == {phone.port: "device"}
