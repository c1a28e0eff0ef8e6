"""What the dump command prints before the XML, and the limits on what a dump may cost.

* one path: a dump read from the device (status text, then the XML, in any chunking) and
  the same bytes given to ``from_xml`` give the same snapshot or the same typed error; a
  UTF-16 dump with a BOM parses through ``Page.snapshot()`` as it does through ``from_xml``;
* the status-text scan is linear in the number of chunks;
* hostile but valid dumps under the size limit are refused by element and ref counts, with a
  :class:`DumpTooLarge` that names the limit, and peak memory stays a small multiple of the
  dump's size.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile import connect
from baremobile.errors import DeviceNotIdle, DumpFailed, DumpTooLarge, InvalidDump
from baremobile.page import Page
from baremobile.snapshot import DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_REFS, StreamPruner, from_xml
from tests.snapshot_helpers import dump, node

TV = "android.widget.TextView"
BTN = "android.widget.Button"
SAMPLE = dump(
    node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 2400),
        node(TV, (0, 0, 1080, 100), text="Привет & 👋"),
        node(BTN, (0, 100, 540, 200), text="OK", clickable=True),
    )
)
STATUS = b"UI hierchary dumped to: /data/local/tmp/baremobile_dump-1a2b3c4d.xml\n"


def utf16(xml: bytes) -> bytes:
    text = xml.decode().replace("encoding='UTF-8'", "encoding='UTF-16'")
    return text.encode("utf-16")  # with its BOM


def chunked(data: bytes, size: int, **limits: int) -> object:
    pruner = StreamPruner(**limits)
    for i in range(0, len(data), size):
        pruner.feed(data[i : i + size])
    return pruner.close()


# --- one path for the device's output and for from_xml ----------------------------------------


@pytest.mark.fast
@pytest.mark.parametrize("encode", [lambda x: x, utf16], ids=["utf8", "utf16-bom"])
def test_status_text_before_the_xml_is_read_past(encode):
    expected = from_xml(SAMPLE).text
    data = STATUS + encode(SAMPLE)
    assert from_xml(data).text == expected
    for size in (1, 3, 7, 64):
        assert chunked(data, size).text == expected


def test_a_failure_in_the_status_text_is_typed_even_with_xml_after_it():
    with pytest.raises(DeviceNotIdle) as info:
        from_xml(b"ERROR: could not get idle state.\n" + SAMPLE)
    assert "could not get idle state" in info.value.device_output


def test_status_text_without_any_xml_says_there_is_no_hierarchy():
    out = STATUS + b"cat: /data/local/tmp/x.xml: No such file or directory\n"
    with pytest.raises(InvalidDump) as info:
        from_xml(out)
    assert "no hierarchy" in info.value.message
    assert "No such file" in info.value.device_output


def test_endless_status_text_is_refused_after_a_mebibyte():
    pruner = StreamPruner()
    with pytest.raises(InvalidDump) as info:
        for _ in range(3 * 1024):
            pruner.feed(b"x" * 1023 + b"\n")
    assert "no hierarchy" in info.value.message
    assert len(info.value.device_output) <= 64 * 1024


_OUTPUT_LIST = [
    STATUS + SAMPLE,
    STATUS + utf16(SAMPLE),
    b"\xef\xbb\xbf" + SAMPLE + b"\n" + STATUS,
    b"ERROR: could not get idle state.\n",
    b"ERROR: null root node returned by UiTestAutomationBridge.\n" + STATUS,
    STATUS + b"cat: x: No such file or directory\n",
    STATUS + b"<hierarchy><node bounds=",
    STATUS + b"\xff\xfe<\x00",
    b"Killed\n" + SAMPLE,
]
_OUTPUTS = st.sampled_from(_OUTPUT_LIST)


def _outcome(run: object) -> tuple[str, str]:
    try:
        return ("ok", run().text)  # type: ignore[operator]
    except DumpFailed as exc:
        return (exc.code, exc.message)


@settings(max_examples=80, deadline=None)
@given(_OUTPUTS, st.lists(st.integers(0, 1 << 12), max_size=8))
def test_any_chunking_gives_what_from_xml_gives(data, cuts):
    """The Page feeds the device's chunks; from_xml the whole output: the same answer."""
    cuts = sorted({c % (len(data) + 1) for c in cuts})
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]

    def fed() -> object:
        pruner = StreamPruner()
        for i, piece in enumerate(pieces):
            pruner.feed(piece, last=i == len(pieces) - 1)
        return pruner.close()

    assert _outcome(fed) == _outcome(lambda: from_xml(data))


def test_every_split_point_of_device_output_gives_what_from_xml_gives():
    """Deterministic twin of the property above: every single cut (inside a status line,
    a marker such as ``<hierarchy``, a BOM, a UTF-8 sequence)."""
    for data in _OUTPUT_LIST:
        expected = _outcome(lambda d=data: from_xml(d))
        for cut in range(len(data) + 1):

            def fed(d: bytes = data, c: int = cut) -> object:
                pruner = StreamPruner()
                pruner.feed(d[:c])
                pruner.feed(d[c:], last=True)
                return pruner.close()

            assert _outcome(fed) == expected, (data[:80], cut)


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key], timeout=5) as p:
        yield p


@pytest.mark.fast
def test_utf16_dump_with_bom_through_page_snapshot(page, phone, monkeypatch):
    """A dumper that writes UTF-16 with a BOM: the file travels through the phone's shell
    (``cat``) and the real ADB protocol, after uiautomator's status line."""
    plain = phone.model.screens.dump_xml()
    expected = page.snapshot().text
    assert expected == from_xml(plain).text
    monkeypatch.setattr(phone.model.screens, "dump_xml", lambda: utf16(plain))
    snap = page.snapshot()
    assert snap.text == expected
    assert [snap.refs[r].center for r in snap.refs] == [
        from_xml(plain).refs[r].center for r in snap.refs
    ]
    path = phone.events.list("dump")[-1]["path"]
    assert path.startswith("/data/local/tmp/baremobile")  # it came from the device's file


# --- the status scan is linear --------------------------------------------------------------


class _TinyChunks:
    """A transport whose dump output arrives in many tiny chunks (what ``Page.snapshot()``
    reads): ``chunks`` pieces of status text, then the XML."""

    serial = "tiny-chunks"
    kind = "test"

    def __init__(self, chunks: int, size: int = 256) -> None:
        self._out = [b"." * (size - 1) + b"\n"] * chunks + [SAMPLE]

    def stream(self, cmd: str, timeout: float | None = None) -> Iterator[bytes]:
        assert "uiautomator dump" in cmd
        yield from self._out


def _snapshot_time(chunks: int) -> float:
    page = Page(_TinyChunks(chunks))  # type: ignore[arg-type]
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        snap = page.snapshot()
        best = min(best, time.perf_counter() - t0)
        assert snap.text == from_xml(SAMPLE).text
    return best


def test_status_scan_is_linear_in_the_number_of_chunks():
    """Status text in 256-byte chunks was re-scanned from its start on every chunk (1 MiB took
    ~60 s). Four times the chunks must cost about four times the time, not sixteen."""
    n = 512  # 128 KiB of text, then 512 KiB
    small, large = _snapshot_time(n), _snapshot_time(4 * n)
    assert large / small < 8, (small, large)


# --- limits on elements, refs, nesting and bytes ----------------------------------------------


def _flat(count: int, one: bytes) -> bytes:
    return b'<?xml version="1.0"?><hierarchy rotation="0">' + one * count + b"</hierarchy>"


CLICKABLE = b'<node clickable="true" bounds="[0,0][9,9]"/>'
LABEL = b'<node text="x" bounds="[0,0][9,9]"/>'


@pytest.mark.parametrize(
    ("data", "limits", "limit"),
    [
        (_flat(11, CLICKABLE), {"max_refs": 10}, "max_refs"),
        (_flat(11, LABEL), {"max_elements": 11}, "max_elements"),  # <hierarchy> counts too
        (_flat(1, b"<node>" * 9 + b"</node>" * 9), {"max_nesting": 8}, "max_nesting"),
        (_flat(100, LABEL), {"max_bytes": 1000}, "max_bytes"),
        (
            _flat(1, b'<node text="' + b"x" * 2000 + b'"/>'),
            {"max_token_bytes": 1000},
            "max_token_bytes",
        ),
    ],
)
@pytest.mark.fast
def test_each_limit_raises_dump_too_large_naming_it(data, limits, limit):
    with pytest.raises(DumpTooLarge) as info:
        from_xml(data, **limits)
    err = info.value
    assert (err.code, err.limit, err.value) == ("DUMP_TOO_LARGE", limit, limits[limit])
    assert limit in err.message and err.hint
    assert isinstance(err, InvalidDump)  # callers catching InvalidDump still do
    # the same in 5-byte chunks; with room, the same dump is fine
    with pytest.raises(DumpTooLarge):
        chunked(data, 5, **limits)
    assert from_xml(data, **{limit: limits[limit] + 1_000_000})


def test_default_limits_leave_real_screens_far_inside():
    assert DEFAULT_MAX_ELEMENTS >= 50 * 504  # the largest corpus dump has 504 nodes
    assert DEFAULT_MAX_REFS >= 50 * 74  # and the most refs on one screen are 74
    # one window holding them all, as on a screen (10,000 top-level nodes would be 10,000
    # windows: a cost of its own, measured apart)
    ok = _flat(1, b'<node bounds="[0,0][1080,2400]">' + CLICKABLE * DEFAULT_MAX_REFS
               + b"</node>")
    assert len(from_xml(ok).refs) == DEFAULT_MAX_REFS


@pytest.mark.parametrize(("one", "limit"), [(CLICKABLE, "max_refs"), (LABEL, "max_elements")])
def test_hostile_dump_under_the_size_limit_costs_a_small_multiple_of_its_size(one, limit):
    """1.5 M nodes in under 64 MiB once cost 1.7 GB and 20 s: now refused at the count limit,
    with peak memory (every allocation Python and expat make) well under the dump's size."""
    data = _flat(1_500_000, one)
    assert len(data) < 64 * 1024 * 1024
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        with pytest.raises(DumpTooLarge) as info:
            from_xml(data)
        took = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.limit == limit
    assert peak < len(data), (peak, len(data))
    assert took < 20  # generous: a few seconds on a loaded machine with tracemalloc on
