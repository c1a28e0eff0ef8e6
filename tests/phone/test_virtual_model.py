"""PhoneModel and ShellProcess: the contract the protocol layer codes against."""

from __future__ import annotations

import threading
import time

import pytest

from baremobile.virtual.model import (
    FakeClock,
    PhoneModel,
    RealClock,
    StdinPipe,
)
from tests.phone.test_virtual_model_fakes import FakeScreens, make_phone, sh

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)


def test_identity_and_props() -> None:
    phone = PhoneModel(screens=FakeScreens(), serial="abc123", api_level=34, clock=FakeClock())
    assert phone.banner_props() == {
        "ro.product.name": "vphone",
        "ro.product.model": "Virtual Phone",
        "ro.product.device": "vphone",
    }
    assert phone.props["ro.serialno"] == "abc123"
    assert phone.props["ro.build.version.sdk"] == "34"
    assert phone.props["ro.sf.lcd_density"] == "420"
    assert phone.props["ro.product.manufacturer"] == "baremobile"
    assert phone.api_level == 34 and phone.serial == "abc123"
    assert isinstance(PhoneModel(screens=FakeScreens()).clock, RealClock)


def test_output_streams_as_produced() -> None:
    phone = make_phone()
    proc = phone.spawn("echo a; sleep 1; echo b >&2; exit 3")
    gen = proc.output()
    assert next(gen) == (1, b"a\n")
    assert phone.clock.sleeps == [] and proc.exit_code is None  # nothing slept yet
    assert next(gen) == (2, b"b\n")
    assert phone.clock.sleeps == [1.0]
    with pytest.raises(StopIteration):
        next(gen)
    assert proc.exit_code == 3


def test_output_can_only_run_once() -> None:
    proc = make_phone().spawn("true")
    list(proc.output())
    with pytest.raises(RuntimeError):
        list(proc.output())


def test_stdin_pipe_feeds_commands() -> None:
    phone = make_phone()
    pipe = StdinPipe()
    proc = phone.spawn("cat > /sdcard/up; wc -c < /sdcard/up", stdin=pipe)
    chunks: list[tuple[int, bytes]] = []
    t = threading.Thread(target=lambda: chunks.extend(proc.output()))
    t.start()
    pipe.feed(b"hello ")
    pipe.feed(b"world")
    pipe.close()
    t.join(5)
    assert chunks == [(1, b"11\n")] and proc.exit_code == 0
    assert phone.fs.read("/sdcard/up") == b"hello world"


def test_stdin_pipe_semantics() -> None:
    pipe = StdinPipe()
    pipe.feed(b"abc")
    assert pipe.read(2) == b"ab"
    assert pipe.read() == b"c"
    pipe.close()
    assert pipe.read() == b"" and pipe.closed
    pipe.feed(b"late")
    assert pipe.read() == b""


def test_cancel_interrupts_a_real_sleep() -> None:
    phone = PhoneModel(screens=FakeScreens(), clock=RealClock())
    proc = phone.spawn("echo start; sleep 30; echo never")
    seen: list[tuple[int, bytes]] = []
    done = threading.Event()

    def consume() -> None:
        seen.extend(proc.output())
        done.set()

    threading.Thread(target=consume, daemon=True).start()
    time.sleep(0.05)
    t0 = time.monotonic()
    proc.cancel()
    assert done.wait(2), "cancel() did not end output()"
    assert time.monotonic() - t0 < 1.0
    assert seen == [(1, b"start\n")]
    assert proc.exit_code == 129


def test_cancel_unblocks_a_stdin_read() -> None:
    phone = make_phone()
    pipe = StdinPipe()
    proc = phone.spawn("cat; echo after", stdin=pipe)
    done = threading.Event()
    threading.Thread(target=lambda: (list(proc.output()), done.set()), daemon=True).start()
    time.sleep(0.05)
    assert not done.is_set()
    proc.cancel()
    assert done.wait(2)
    assert proc.exit_code == 129


def test_cancel_interrupts_a_dump_delay() -> None:
    phone = PhoneModel(screens=FakeScreens(), clock=RealClock())
    phone.faults.set(None, delay_s=30)
    proc = phone.spawn("uiautomator dump")
    done = threading.Event()
    threading.Thread(target=lambda: (list(proc.output()), done.set()), daemon=True).start()
    time.sleep(0.05)
    proc.cancel()
    assert done.wait(2)
    assert phone.events.list("dump") == []


def test_many_concurrent_processes() -> None:
    phone = make_phone()
    results: dict[int, tuple[str, str, int]] = {}

    def work(i: int) -> None:
        results[i] = sh(phone, f"x={i}; echo $((x*2)); input tap {i} {i}; sleep 0.1")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert all(results[i] == (f"{i * 2}\n", "", 0) for i in range(24))
    assert len(phone.events.list("tap")) == 24


def test_fake_clock() -> None:
    clock = FakeClock(start=100.0)
    clock.sleep(2.5)
    clock.advance(1)
    assert clock.time() == 103.5 and clock.sleeps == [2.5]
    cancel = threading.Event()
    cancel.set()
    clock.sleep(10, cancel)
    assert clock.time() == 103.5


def test_with_the_real_screen_model() -> None:
    phone = PhoneModel(clock=FakeClock())  # the built-in demo scenario
    out, err, status = sh(phone, "uiautomator dump /sdcard/w.xml")
    assert (out, err, status) == ("UI hierchary dumped to: /sdcard/w.xml\n", "", 0)
    assert phone.fs.read("/sdcard/w.xml").startswith(b"<?xml version='1.0' encoding='UTF-8'")
    launcher = next(a for a in phone.screens.apps() if a.launcher_activity and not a.system)
    out, _, status = sh(
        phone, f"monkey -p {launcher.package} -c android.intent.category.LAUNCHER 1"
    )
    assert status == 0 and "Events injected: 1" in out
    focus = sh(phone, "dumpsys window | grep mCurrentFocus")[0]
    assert f" u0 {launcher.package}/" in focus
    sh(phone, "input keyevent HOME")
    assert launcher.package not in sh(phone, "dumpsys window | grep mCurrentFocus")[0]
    png, _, _ = phone.spawn("screencap -p").run()
    assert png.startswith(b"\x89PNG")
    assert f"package:{launcher.package}" in sh(phone, "pm list packages -3")[0]
