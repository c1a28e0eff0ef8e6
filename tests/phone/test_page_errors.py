"""Snapshots that fail the ways real devices fail: typed errors, the device's own words,
nothing lost, and the page still usable afterwards."""

from __future__ import annotations

import time

import pytest

from baremobile import connect
from baremobile.errors import (
    AutomationBusy,
    CommandTimeout,
    DeviceDisconnected,
    DeviceNotIdle,
    DumpFailed,
    NullRootNode,
)


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key], timeout=5) as p:
        yield p


@pytest.mark.parametrize(
    ("fault", "error", "words"),
    [
        ("idle", DeviceNotIdle, "could not get idle state"),
        ("null_root", NullRootNode, "null root node"),
        ("busy", AutomationBusy, "already registered"),
    ],
)
def test_uiautomator_failures_are_distinct_typed_errors(page, phone, fault, error, words):
    good = page.snapshot()
    phone.model.faults.set(fault, times=1)
    with pytest.raises(error) as exc:
        page.snapshot()
    assert words in exc.value.device_output
    assert exc.value.hint  # says what to do
    assert page.last_snapshot is good  # the failed dump did not replace the refs
    assert page.snapshot().text == good.text  # and the next one works


def test_every_dump_uses_a_fresh_file_and_leaves_none_behind(page, phone):
    page.snapshot()
    phone.model.faults.set("idle", times=1)
    with pytest.raises(DeviceNotIdle):
        page.snapshot()
    page.snapshot()
    paths = [e["path"] for e in phone.events.list("dump")]
    assert len(paths) == 3 and len(set(paths)) == 3  # no dump can read another's file
    leftovers = [n for n, _ in phone.fs.listdir("/data/local/tmp") if n.startswith("baremobile")]
    assert leftovers == []


def test_slow_dump_times_out_within_the_timeout(page, phone, no_thread_leaks):
    phone.model.faults.set(None, delay_s=30)
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout):
        page.snapshot(timeout=0.5)
    assert time.monotonic() - t0 < 3
    phone.model.faults.set(None, delay_s=0)
    assert page.snapshot().refs  # reconnected and fine


def test_connection_lost_mid_dump(page, phone, no_thread_leaks):
    page.snapshot()
    phone.faults.add("drop", service="uiautomator dump", after_bytes=2000)
    with pytest.raises(DeviceDisconnected):
        page.snapshot()
    assert page.snapshot().refs


def test_no_hierarchy_at_all(page, phone):
    phone.faults.add("refuse", service="uiautomator dump")
    with pytest.raises(DumpFailed):
        page.snapshot()
