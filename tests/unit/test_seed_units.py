"""Property tests of issue 22's parts without I/O: SharedPreferences files written and read
back, typed values checked, a log cut at a time, snapshot similarity, feature flags — any
input gives the right answer or a clear ``InvalidArgument``, never anything else."""

from __future__ import annotations

import datetime as dt
import json
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile.android import logtime, prefs
from baremobile.daemon import ide
from baremobile.daemon.versions import numeric_compare
from baremobile.errors import BaremobileError, InvalidArgument
from baremobile.page.waits import similarity
from baremobile.tools.session import Options
from tests import examples

FAST = settings(max_examples=examples(150), deadline=None)
#: text XML 1.0 can carry (no C0 controls but tab and newline, no surrogates)
XML_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=[
    chr(c) for c in range(32) if c not in (9, 10)] + ["\ufffe", "\uffff"]), max_size=20)


@FAST
@given(st.lists(st.tuples(XML_TEXT.filter(bool), st.sampled_from(sorted(prefs.TYPES)),
                          st.one_of(XML_TEXT, st.integers(-2**40, 2**40), st.booleans(),
                                    st.floats(allow_nan=False, width=32),
                                    st.lists(XML_TEXT, max_size=3))), max_size=6))
def test_preferences_written_are_read_back(edits):
    entries: list[prefs.Entry] = []
    for key, kind, value in edits:
        if kind == "STRING_SET" and isinstance(value, list):
            value = json.dumps(value)
        try:
            entries = prefs.set_value(entries, key, value, kind)
        except InvalidArgument:
            continue  # a value that type cannot hold: refused, nothing changed
    text = prefs.render(entries)
    assert text.startswith("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>")
    assert prefs.parse(text) == entries
    assert len({e.name for e in entries}) == len(entries)  # a key once


@FAST
@given(st.text(max_size=30), st.sampled_from(["INT", "LONG", "FLOAT", "BOOLEAN", "STRING_SET",
                                               "nope", "int"]))
def test_typed_values_are_checked_or_refused(value, kind):
    try:
        (entry,) = prefs.set_value([], "k", value, kind)
    except InvalidArgument as exc:
        assert exc.message
        return
    if entry.tag in ("int", "long"):
        assert int(entry.value) == int(value.strip())
    elif entry.tag == "boolean":
        assert entry.value in ("true", "false")


@FAST
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_any_file_is_a_map_or_a_clear_error(data):
    try:
        prefs.parse(data)
    except prefs.PrefsError as exc:
        assert exc.code == "INVALID_PREFERENCES"


def test_file_names_cannot_climb_out():
    for bad in ("../x", "a/b", "", ".", "..", "x" * 300, 3, None):
        with pytest.raises(InvalidArgument):
            prefs.check_file_name(bad)
    assert prefs.check_file_name("app_prefs.xml") == "app_prefs"


STAMPS = st.datetimes(min_value=dt.datetime(2025, 1, 1), max_value=dt.datetime(2025, 12, 31))


@FAST
@given(st.lists(STAMPS, max_size=8), STAMPS)
def test_a_log_is_cut_after_until(times, until):
    times.sort()
    text = "--------- beginning of main\n" + "".join(
        f"{t:%m-%d %H:%M:%S}.{t.microsecond // 1000:03d}  100  100 I Tag: line {i}\n"
        for i, t in enumerate(times))
    kept = logtime.cut_until(text, until).splitlines()
    want = [t for t in times if t.replace(microsecond=t.microsecond // 1000 * 1000) <= until]
    assert len(kept) == 1 + len(want) and kept[0].startswith("---------")


def test_until_in_device_time():
    plus_two = logtime.parse_offset("+0200\n")
    assert plus_two == dt.timedelta(hours=2) and logtime.parse_offset("-0530") == \
        -dt.timedelta(hours=5, minutes=30)
    assert logtime.local_time(0, plus_two) == dt.datetime(1970, 1, 1, 2)
    assert logtime.local_time("2025-03-01T10:00:00Z", plus_two) == dt.datetime(2025, 3, 1, 12)
    assert logtime.local_time("2025-03-01T10:00:00", plus_two) == dt.datetime(2025, 3, 1, 10)
    for bad in ("soon", True, -1, float("nan"), [1]):
        with pytest.raises(InvalidArgument):
            logtime.local_time(bad, plus_two)


@FAST
@given(st.lists(st.text(max_size=5), max_size=8), st.lists(st.text(max_size=5), max_size=8))
def test_similarity_is_a_percentage_and_full_only_when_equal(a, b):
    x, y = "\n".join(a), "\n".join(b)
    score = similarity(x, y)
    assert 0 <= score <= 100
    assert (score == 100) == (x.splitlines() == y.splitlines())


@FAST
@given(st.dictionaries(st.sampled_from(["key", "enabled", "config", "sessionId"]),
                       st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=8)
                       | st.sampled_from(sorted(ide.FLAGS))
                       | st.dictionaries(st.sampled_from(["seconds", "mode", "chars"]),
                                         st.none() | st.floats(-1, 2000) | st.text(max_size=4)
                                         | st.integers(-1, 2_000_000), max_size=2),
                       max_size=4))
def test_feature_flags_take_any_params_with_a_clear_answer(params):
    params.pop("sessionId", None)  # the daemon's defaults
    server = SimpleNamespace(hub=SimpleNamespace(defaults=Options()))
    try:
        flag = ide._m_set_flag(server, params, None)
    except BaremobileError as exc:
        assert exc.code == "INVALID_ARGUMENT" and exc.message
        return
    assert flag["key"] == params["key"] and flag["enabled"] in (True, False)
    listed = {f["key"]: f for f in ide._m_list_flags(server, {}, None)["flags"]}
    assert listed[flag["key"]] == flag


def test_only_plain_release_numbers_have_an_order():
    assert numeric_compare("1.2.3", "1.10") == -1 and numeric_compare("2", "2.0") == 0
    for tagged in ("1.2.0rc1", "0.1.0.dev0", "unknown", "1.2+local", ""):
        assert numeric_compare(tagged, "1.0") is None
