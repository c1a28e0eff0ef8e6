"""Cancelling calls in flight and bounding whole commands (issue 15, items 1, 3 and 5).

The slow device is the virtual phone: ``uiautomator dump`` delayed 10 s (a cancellable wait
on the phone's side, so no test waits for it), a ``slow`` link fault that holds each message
back, and an Android 6 adbd that takes 4 KiB messages at most.
"""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile import connect
from baremobile.android.shell_words import batches
from baremobile.android.text_input import typing_plan
from baremobile.errors import Cancelled, CommandTimeout, InvalidArgument, PageClosed
from baremobile.transport import DirectTransport, ServerTransport
from baremobile.transport.cancel import CancelToken, cancel_scope
from baremobile.transport.server import AdbServerClient
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.phone.test_page_flows import open_conversation

DUMP_DELAY = 10.0  # what cancelling saves; no test waits for it
QUICK = 2.0  # generous bound for "at once" on a shared, loaded machine (target: 0.1 s)


@pytest.fixture
def slow_phone():
    with VirtualPhone(port=free_port()) as phone:
        phone.model.faults.set(None, delay_s=DUMP_DELAY)
        yield phone


def _dump_started(phone: VirtualPhone, timeout: float = 10.0) -> None:
    """Wait until the phone runs `uiautomator dump` (the call is blocked in a read)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any("uiautomator" in str(e.get("service", "")) for e in phone.events.list("open")):
            time.sleep(0.05)  # the host is now waiting for the dump's output
            return
        time.sleep(0.01)
    raise AssertionError("the dump never started")


def _in_thread(fn):
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc
        box["done"] = time.monotonic()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


def _no_dump_finished(phone: VirtualPhone) -> bool:
    time.sleep(0.2)  # give a still-running dump the chance to show up (it must not)
    return not phone.events.list("dump")


# -- Page.close() and Page.cancel() --------------------------------------------------------


def test_close_from_another_thread_aborts_a_snapshot_at_once(slow_phone, adb_key):
    page = connect(slow_phone.address, keys=[adb_key])
    t, box = _in_thread(page.snapshot)
    _dump_started(slow_phone)
    t0 = time.monotonic()
    page.close()
    closed = time.monotonic() - t0
    t.join(QUICK)
    assert closed < QUICK, f"close() took {closed:.2f} s"
    assert not t.is_alive() and isinstance(box.get("error"), Cancelled), box
    assert box["done"] - t0 < QUICK
    assert box["error"].code == "CANCELLED" and "closed" in str(box["error"])
    assert _no_dump_finished(slow_phone), "the cancelled dump ran to its end on the device"
    with pytest.raises(PageClosed):
        page.snapshot()


def test_cancel_answers_cancelled_and_the_page_reconnects(slow_phone, adb_key):
    with connect(slow_phone.address, keys=[adb_key]) as page:
        assert page.cancel() is False  # nothing in flight
        t, box = _in_thread(page.snapshot)
        _dump_started(slow_phone)
        t0 = time.monotonic()
        assert page.cancel() is True
        t.join(QUICK)
        assert isinstance(box.get("error"), Cancelled) and box["done"] - t0 < QUICK
        assert page.last_snapshot is None  # a cancelled snapshot sets nothing
        assert _no_dump_finished(slow_phone)
        slow_phone.model.faults.set(None, delay_s=0)
        snap = page.snapshot()  # the same page, a new connection
        assert snap.refs and page.last_snapshot is snap
        assert len(slow_phone.events.list("connect")) == 2


def test_a_call_cancelled_before_it_starts_sends_nothing(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as page:
        page.tap_xy(10, 10)
        before = len(phone.events.list("open"))
        with cancel_scope() as token, pytest.raises(Cancelled, match="gave up"):
            token.cancel("the client gave up")  # e.g. while the call waited in a queue
            page.tap_xy(100, 200)
        assert len(phone.events.list("open")) == before
        assert [e["x"] for e in phone.events.list("tap")] == [10]


def test_an_enclosing_scope_cancels_the_verb_it_runs(slow_phone, adb_key):
    """How the daemon bounds a request: its own token around a Page verb."""
    with connect(slow_phone.address, keys=[adb_key]) as page:
        request = CancelToken()

        def call():
            with cancel_scope(request):
                return page.snapshot()

        t, box = _in_thread(call)
        _dump_started(slow_phone)
        request.cancel("request timeoutMs passed")
        t.join(QUICK)
        assert isinstance(box.get("error"), Cancelled) and "timeoutMs" in str(box["error"])


def test_cancel_stops_a_wait_between_dumps(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as page:
        t, box = _in_thread(
            lambda: page.wait_for_text("never on screen", timeout=60, interval=30)
        )
        end = time.monotonic() + 10
        while not phone.events.list("dump") and time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.1)  # now in the 30 s interval
        t0 = time.monotonic()
        assert page.cancel()
        t.join(QUICK)
        assert isinstance(box.get("error"), Cancelled) and box["done"] - t0 < QUICK


def test_cancel_while_waiting_for_the_prompt(adb_key):
    """Connecting (here: waiting for "Allow USB debugging?") is cancellable too."""
    with VirtualPhone(port=free_port(), auth="known-keys") as ph:
        t = DirectTransport(ph.host, ph.port, keys=[adb_key], auth_timeout=60)
        token = CancelToken()

        def call():
            with cancel_scope(token):
                t.connect()

        th, box = _in_thread(call)
        end = time.monotonic() + 10
        while not ph.pending_keys and time.monotonic() < end:
            time.sleep(0.01)
        t0 = time.monotonic()
        token.cancel("the user walked away")
        th.join(QUICK)
        assert isinstance(box.get("error"), Cancelled) and box["done"] - t0 < QUICK
        t.close()


# -- the transports ------------------------------------------------------------------------


def test_direct_abort_and_close_wake_a_blocked_stream(slow_phone, adb_key):
    t = DirectTransport(slow_phone.host, slow_phone.port, keys=[adb_key])
    th, box = _in_thread(lambda: t.exec_out("uiautomator dump /sdcard/d.xml"))
    _dump_started(slow_phone)
    t0 = time.monotonic()
    assert t.abort("test") is True
    th.join(QUICK)
    assert isinstance(box.get("error"), Cancelled) and box["done"] - t0 < QUICK
    assert t.abort() is False  # nothing in flight any more
    assert t.shell("echo again").stdout == b"again\n"  # reconnected
    th, box = _in_thread(lambda: t.exec_out("uiautomator dump /sdcard/d.xml"))
    end = time.monotonic() + 10
    while len([e for e in slow_phone.events.list("open") if "uiautomator" in str(e.detail)]) < 2:
        assert time.monotonic() < end
        time.sleep(0.01)
    time.sleep(0.05)
    t0 = time.monotonic()
    t.close()
    assert time.monotonic() - t0 < QUICK
    th.join(QUICK)
    assert isinstance(box.get("error"), Cancelled)


def test_a_second_caller_waiting_for_the_device_can_be_cancelled(slow_phone, adb_key):
    t = DirectTransport(slow_phone.host, slow_phone.port, keys=[adb_key])
    first, _ = _in_thread(lambda: t.exec_out("uiautomator dump /sdcard/d.xml"))
    _dump_started(slow_phone)
    token = CancelToken()

    def second():
        with cancel_scope(token):
            return t.shell("echo second")

    th, box = _in_thread(second)
    time.sleep(0.1)  # it waits for the first to release the device
    token.cancel("not needed")
    th.join(QUICK)
    assert isinstance(box.get("error"), Cancelled)
    assert ["echo", "second"] not in slow_phone.events.commands()
    t.close()
    first.join(QUICK)


@pytest.mark.adb
def test_server_route_abort_is_immediate(real_adb, slow_phone, monkeypatch):
    serial = real_adb.connect(slow_phone)
    t = ServerTransport(serial, client=AdbServerClient(port=real_adb.port))
    token = CancelToken()

    def call():
        with cancel_scope(token):
            return t.exec_out("uiautomator dump /sdcard/d.xml")

    th, box = _in_thread(call)
    _dump_started(slow_phone)
    t0 = time.monotonic()
    token.cancel("test")
    th.join(QUICK)
    assert isinstance(box.get("error"), Cancelled) and box["done"] - t0 < QUICK
    assert _no_dump_finished(slow_phone)
    assert t.shell("echo fine").stdout == b"fine\n"


# -- sync: the timeout bounds the whole transfer (item 3) ------------------------------------


@pytest.mark.parametrize("verb", ["pull", "push"])
def test_sync_timeout_bounds_the_whole_transfer_on_a_slow_link(adb_key, verb):
    # Android 6: 4 KiB messages, so 64 KiB is ~20 messages; each held back 0.25 s
    with VirtualPhone(port=free_port(), api_level=23) as ph:
        data = bytes(range(256)) * 256
        ph.fs.write("/data/local/tmp/blob", data)
        t = DirectTransport(ph.host, ph.port, keys=[adb_key])
        t.connect()
        ph.faults.add("slow", service="sync:", delay_s=0.25, count=-1)
        t0 = time.monotonic()
        with pytest.raises(CommandTimeout, match="within 1 s"):
            if verb == "pull":
                t.pull("/data/local/tmp/blob", timeout=1)
            else:
                t.push(data, "/data/local/tmp/copy", timeout=1)
        took = time.monotonic() - t0
        assert took < 1 + QUICK, f"{verb} took {took:.1f} s with timeout=1"
        ph.faults.clear()
        assert t.pull("/data/local/tmp/blob", timeout=10) == data  # reconnects, works
        t.close()


def test_sync_on_a_slow_link_within_its_timeout_still_works(adb_key):
    with VirtualPhone(port=free_port()) as ph:
        ph.fs.write("/data/local/tmp/small", b"x" * 1000)
        t = DirectTransport(ph.host, ph.port, keys=[adb_key])
        ph.faults.add("slow", service="sync:", delay_s=0.05, count=-1)
        assert t.pull("/data/local/tmp/small", timeout=10) == b"x" * 1000
        t.close()


# -- command sizes from the negotiated max payload (item 5) ---------------------------------


def test_old_adbd_negotiates_4_kib_and_checksums(adb_key):
    with VirtualPhone(port=free_port(), api_level=23) as ph:
        t = DirectTransport(ph.host, ph.port, keys=[adb_key])
        assert t.max_payload == 4096 and t.protocol_version == 0x01000000
        assert 4000 < t.max_command < 4096
        with pytest.raises(InvalidArgument, match="at most 4096"):
            t.shell("echo " + "x" * 5000)
        assert ph.server.connections == 1  # refused here; nothing was sent
        assert t.shell("echo ok").stdout == b"ok\n"
        t.close()
    with VirtualPhone(port=free_port(), api_level=26) as ph:
        t = DirectTransport(ph.host, ph.port, keys=[adb_key])
        assert t.max_payload == 256 * 1024 and t.protocol_version == 0x01000000
        t.close()
    with VirtualPhone(port=free_port()) as ph:
        t = DirectTransport(ph.host, ph.port, keys=[adb_key])
        assert t.max_payload == 1024 * 1024 and t.protocol_version == 0x01000001
        t.close()


def test_clearing_a_long_field_on_android_6_fits_its_4_kib_messages(adb_key):
    with VirtualPhone(port=free_port(), api_level=23) as ph, connect(
        ph.address, keys=[adb_key]
    ) as page:
        open_conversation(page)
        field = page.find({"role": "TextInput"})[0]
        page.type(field.ref, "a" * 2000)
        page.snapshot()
        page.type(field.ref, "wifi", clear=True)
        snap = page.snapshot()
        assert snap.refs[field.ref].text == "wifi"
        assert len(ph.events.list("connect")) == 1  # never dropped for an oversized message


@given(
    keys=st.lists(st.sampled_from(["67", "123", "KEYCODE_DEL", "62"]), min_size=1, max_size=3000),
    text=st.text(st.sampled_from("ab%s "), max_size=40),
    limit=st.integers(min_value=120, max_value=5000),
)
@settings(max_examples=80, deadline=None)
def test_batches_fit_the_limit_and_keep_every_key_in_order(keys, text, limit):
    plan = [*typing_plan(text), ["input", "keyevent", *keys], ["input", "tap", "1", "2"]]
    lines = batches(plan, limit)
    assert all(len(line.encode()) <= limit for line in lines)
    commands = [c.split(" ") for line in lines for c in line.split(" && ")]
    sent_keys = [k for c in commands if c[:2] == ["input", "keyevent"] for k in c[2:]]
    planned_keys = [k for c in plan if c[:2] == ["input", "keyevent"] for k in c[2:]]
    assert sent_keys == planned_keys
    assert commands[-1] == ["input", "tap", "1", "2"]


def test_a_command_that_cannot_be_split_is_refused_before_anything_is_sent():
    with pytest.raises(InvalidArgument, match="does not fit"):
        batches([["input", "tap", "1", "2"], ["input", "text", "x" * 5000]], 4000)
