"""Hardening, round four (issue 28), items 8 and 12 (the log's times): one cap for every
read of a device file, and a time no calendar holds is a typed refusal.

Each test here failed on ``main`` before the fix: ``read_file`` by lines returned a
multi-megabyte single line whole (a 64 MiB one in the attack) while a byte read stopped at
1 MB — and ``Page.read_file`` allowed 64 MiB —, and ``logcat until=1e308`` answered
``INTERNAL_ERROR``.
"""

from __future__ import annotations

import contextlib
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile import tools
from baremobile.android import logtime
from baremobile.device.files import MAX_READ, lines_of
from baremobile.errors import InvalidArgument
from baremobile.page import connect
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

SD = "/storage/emulated/0"


@pytest.fixture(params=[34, 27], ids=["head-c-on-the-device", "cut-by-the-reader"])
def phone_api(request):
    """Android 9+ cuts a read on the device (``head -c``); before, the reader stops."""
    with VirtualPhone(port=free_port(), api_level=request.param) as p:
        yield p


# -- item 8: one cap -----------------------------------------------------------------------


def test_a_line_longer_than_the_cap_comes_cut_and_the_rest_is_read_by_bytes(phone_api):
    head = "é" * 10  # two bytes each: the cut may fall inside a character
    line = (head + "x" * (MAX_READ + 300_000)).encode()
    phone_api.model.fs.write(f"{SD}/long.txt", b"first\n" + line + b"\nlast\n")
    with connect(phone_api.address) as page:
        got = page.read_lines("/sdcard/long.txt", start=2, count=3)
        shown = got["lines"][0].encode()
        assert len(shown) <= MAX_READ and got["cut"] is True and got["has_more"]
        assert line.startswith(shown) and got["next_line"] == 3
        assert got["next_offset"] == len(b"first\n") + len(shown)
        rest = b""
        offset = got["next_offset"]
        while True:
            part = page.read_file("/sdcard/long.txt", offset=offset, max_bytes=MAX_READ)
            rest += part.data
            offset += len(part.data)
            if not part.more:
                break
        assert shown + rest == line + b"\nlast\n"
        after = page.read_lines("/sdcard/long.txt", start=got["next_line"])
        assert after["lines"] == ["last"] and after["has_more"] is False


def test_many_lines_stop_at_the_cap_and_paging_reads_them_all(phone_api):
    lines = [f"{i:05d} " + "y" * 994 for i in range(1500)]  # 1.5 MB of 1000-byte lines
    phone_api.model.fs.write(f"{SD}/many.txt", "\n".join(lines).encode() + b"\n")
    with connect(phone_api.address) as page:
        got = page.read_lines("/sdcard/many.txt", start=1, count=10_000)
        assert sum(len(x) + 1 for x in got["lines"]) <= MAX_READ
        assert got["has_more"] and got["next_line"] == len(got["lines"]) + 1
        seen = list(got["lines"])
        while got["has_more"]:
            got = page.read_lines("/sdcard/many.txt", start=got["next_line"], count=10_000)
            seen += got["lines"]
        assert seen == lines


def test_the_tool_says_a_line_was_cut(phone: VirtualPhone):
    phone.model.fs.write(f"{SD}/one.txt", b"z" * (MAX_READ + 10))
    with connect(phone.address) as page:
        r = tools.call(page, "read_file", {"path": "/sdcard/one.txt", "start_line": 1},
                       groups="all")
        assert r["ok"] and r["cut"] is True and r["next_offset"] == MAX_READ, \
            {k: v for k, v in r.items() if k != "text"}
        assert len(r["text"]) <= MAX_READ + 10 and "next_offset" in r["note"]


def test_a_byte_read_has_the_same_cap_in_python(phone: VirtualPhone):
    phone.model.fs.write(f"{SD}/b.bin", b"b" * 10)
    with connect(phone.address) as page:
        assert page.read_file("/sdcard/b.bin", max_bytes=MAX_READ).data == b"b" * 10
        with pytest.raises(InvalidArgument):
            page.read_file("/sdcard/b.bin", max_bytes=MAX_READ + 1)
        with pytest.raises(InvalidArgument):
            page.read_file("/sdcard/b.bin", max_bytes=64 * 1024 * 1024)


def test_the_tool_schema_states_the_same_cap():
    from baremobile.tools.spec import TOOLS

    row = next(t for t in TOOLS if t.name == "read_file")
    assert row.properties["max_bytes"]["maximum"] == MAX_READ


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=20).filter(lambda t: "\n" not in t), max_size=12),
       st.booleans(), st.integers(1, 5), st.integers(8, 60))
def test_paging_by_lines_under_any_cap_returns_every_line_once(lines, last_newline, count,
                                                               cap):
    """``lines_of`` over what the device sends for each page (the file from line START on,
    cut after cap + 1 bytes): paging on ``next_line`` gives back every line once, within
    the cap; a line longer than the cap comes as a prefix (its rest: a byte read, tested
    on the phone above)."""
    raw = [x.encode() for x in lines]
    text = b"\n".join(raw) + (b"\n" if raw and last_newline else b"")
    start, seen = 1, []
    for _ in range(len(raw) + 2):
        tail = b"".join(x + b"\n" for x in raw[start - 1:start + count])
        if start + count >= len(raw) and not text.endswith(b"\n"):
            tail = tail[:-1]  # the file's last line has no newline (or there is none)
        got = lines_of(tail[:cap + 1], start, count, cap)
        shown = [x.encode() for x in got["lines"]]
        assert sum(len(x) for x in shown) <= cap
        if got.get("cut"):
            assert raw[start - 1].startswith(shown[0]) and got["cut_bytes"] == len(shown[0])
            assert len(raw[start - 1]) > cap - 4
            seen.append(raw[start - 1])
        else:
            seen += shown
        if not got["has_more"]:
            break
        assert got["next_line"] > start
        start = got["next_line"]
    assert seen == (raw if text else [])


# -- item 12: a time no calendar holds ----------------------------------------------------


@pytest.mark.parametrize("until", [1e308, 1e20, 253402300800, 1.7976931348623157e308,
                                   "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
def test_log_times_beyond_the_calendar_are_invalid_arguments(phone: VirtualPhone, until):
    with connect(phone.address) as page:
        with pytest.raises(InvalidArgument):
            page.read_log(until=until)
        r = tools.call(page, "logcat", {"until": until}, groups="all")
        assert not r["ok"] and r["error"]["code"] == "INVALID_ARGUMENT", r
        r = tools.call(page, "logcat", {"since": until}, groups="all")
        assert not r["ok"] and r["error"]["code"] == "INVALID_ARGUMENT", r


@pytest.mark.parametrize("timeout", [1e308, float("inf"), float("nan"), -1.0])
def test_a_deadline_beyond_any_clock_is_an_invalid_argument(phone: VirtualPhone, timeout):
    """The same class as ``until=1e308``: a caller's number overflowed the socket's clock
    (``wait_stable(timeout=1e308)`` answered DEVICE_DISCONNECTED). Refused before anything
    is sent, once for every verb (the transport's deadline)."""
    with connect(phone.address) as page:
        before = len(phone.events.commands())
        with pytest.raises(InvalidArgument):
            page.snapshot(timeout=timeout)
        with pytest.raises(InvalidArgument):
            page.wait_stable(timeout=timeout)
        assert len(phone.events.commands()) == before
        assert "[ref=" in page.snapshot().text  # the connection is as good as before


@settings(max_examples=300, deadline=None)
@given(when=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(),
                      st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
                      st.text(max_size=40)),
       minutes=st.integers(-14 * 60, 14 * 60))
def test_any_time_is_read_or_refused(when, minutes):
    offset = dt.timedelta(minutes=minutes)
    try:
        cut = logtime.local_time(when, offset)
    except InvalidArgument:
        pass
    else:
        assert isinstance(cut, dt.datetime)
    with contextlib.suppress(InvalidArgument):
        assert isinstance(logtime.log_time(when), str)
