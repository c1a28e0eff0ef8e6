"""Typing that cannot break and cannot lie, and verbs that run nothing but themselves.

Property tests drive the public API over TCP into the virtual phone, whose mksh-compatible
shell really executes whatever a quoting bug would let through — and logs every command.
"""

from __future__ import annotations

import contextlib
import string

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from baremobile import connect
from baremobile.android.text_input import typing_plan
from baremobile.errors import InvalidArgument, NotEditable, RefNotFound, UnsupportedText
from tests.truth_helpers import checks, without_frame_reads

COMPOSE_ID = "com.google.android.apps.messaging:id/compose_message_text"
PRINTABLE = string.printable[:95]  # printable ASCII incl. space, no \t\n\r\x0b\x0c
FAST = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def conversation(phone, adb_key):
    """A Page on an open Messages conversation; yields (page, phone)."""
    with connect(phone.address, keys=[adb_key]) as page:
        page.launch("com.google.android.apps.messaging")
        page.snapshot()
        page.tap({"text": "Alex Kim"})
        page.snapshot()
        page.device.props()  # the API level (it decides how clear=True works) is read once
        yield page, phone


def compose(page):
    (node,) = [n for n in page.find({"id": COMPOSE_ID}) if n.ref is not None]
    return page.last_snapshot.refs[node.ref]


def typed_back(events) -> str:
    """What the phone was asked to type, rebuilt from its event log."""
    keys = {62: " ", 66: "\n", 61: "\t"}
    out = []
    for e in events:
        if e.kind == "text":
            out.append(e["text"])
        elif e.kind == "key" and e["keycode"] in keys:
            out.append(keys[e["keycode"]])
    return "".join(out)


@FAST
@given(text=st.text(alphabet=PRINTABLE, min_size=1, max_size=40))
@example(text="%s")
@example(text="a%sb%%s%")
@example(text="50% sure")
@example(text="'; reboot; echo '")
@example(text="$(reboot)`id`$HOME")
@example(text="-n")
@example(text="--help")
@example(text="\\\\n\\")
@example(text="  two  spaces  ")
@example(text='"quoted" & piped | > /sdcard/x')
@example(text="*")
@example(text="~ # not a comment")
def test_field_holds_exactly_the_text_and_only_input_ran(conversation, text):
    page, phone = conversation
    field = compose(page)
    since = phone.events.last_seq
    page.type(field.ref, text, clear=True)
    ran = without_frame_reads(phone.events.commands(since=since))  # less the freshness check
    held = field.text and field.text != field.hint  # an empty field is not emptied again
    expected = [["input", "keycombination", "113", "29"], ["input", "keyevent", "67"]] \
        if held else []
    expected += typing_plan(text)
    if not field.focused:
        expected.insert(0, ["input", "tap", *map(str, field.center)])
    assert ran == expected
    assert typed_back(phone.events.list(since=since)) == text
    page.snapshot()
    assert compose(page).text == text


def test_untypable_text_is_refused_before_anything_is_typed(conversation):
    page, phone = conversation
    field = compose(page)
    since = phone.events.last_seq
    with pytest.raises(UnsupportedText) as exc:
        page.type(field.ref, "naïve café 😀 ok")
    assert exc.value.characters == ["ï", "é", "😀"]
    assert "U+1F600" in str(exc.value)
    assert phone.events.list(since=since) == []


@pytest.mark.fast
def test_clear_removes_any_length(conversation):
    page, _ = conversation
    field = compose(page)
    page.type(field.ref, "x" * 300)
    page.snapshot()
    assert compose(page).text == "x" * 300
    page.type(compose(page).ref, "short", clear=True)
    page.snapshot()
    assert compose(page).text == "short"


def test_submit_presses_enter_and_newlines_are_enter(conversation):
    page, phone = conversation
    since = phone.events.last_seq
    page.type(compose(page).ref, "line", submit=True)
    keys = [e["keycode"] for e in phone.events.list("key", since=since)]
    assert keys[-1] == 66


@pytest.mark.fast
def test_typing_is_batched_into_one_round_trip(conversation):
    page, phone = conversation
    since = phone.events.last_seq
    page.type(compose(page).ref, "one two three four five")
    news = phone.events.list(since=since)
    opens = [e for e in news if e.kind == "open"]
    # one shell stream for tap + 5 words + 4 spaces (and the page's freshness check)
    assert len(opens) - checks(news) == 1


def test_numbers_are_validated_before_any_command(conversation):
    page, phone = conversation
    since = phone.events.last_seq
    for bad in ("1; reboot", float("nan"), float("inf"), True, None, -5):
        with pytest.raises(InvalidArgument):
            page.tap_xy(bad, 10)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgument):
            page.swipe(0, 0, 10, 10, bad)  # type: ignore[arg-type]
        with pytest.raises((InvalidArgument, RefNotFound)):
            page.long_press(1, ms=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        page.scroll(None, "sideways")
    assert phone.events.commands(since=since) == []


# ---------------------------------------------------------------------------------------
# any string into any verb: only the intended command runs, with that string intact
# ---------------------------------------------------------------------------------------

anything = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30) | st.sampled_from(
    [
        "com.android.settings",
        "a.b",
        "https://x.y/?a=1&b=$(id)",
        "tel:555",
        "back",
        "KEYCODE_A",
        "'$(reboot)'",
        "-p",
        "com.example;reboot",
        "VirtualPhone",
    ]
)


@pytest.fixture
def page_and_phone(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as page:
        yield page, phone


def _only(phone, since, allowed):
    ran = phone.events.commands(since=since)
    assert ran in allowed, ran


@pytest.mark.fast
@FAST
@given(s=anything)
@example(s="com.android.settings\n")  # Python's $ matches before a final newline
def test_launch_runs_only_monkey(page_and_phone, s):
    page, phone = page_and_phone
    since = phone.events.last_seq
    with contextlib.suppress(InvalidArgument):
        page.launch(s)
    _only(phone, since, [[], [["monkey", "-p", s, "-c", "android.intent.category.LAUNCHER", "1"]]])


@FAST
@given(s=anything)
def test_open_url_runs_only_am_start(page_and_phone, s):
    page, phone = page_and_phone
    since = phone.events.last_seq
    try:
        page.open_url(s)
    except InvalidArgument:
        pass
    except Exception as exc:  # the intent may not resolve; that is the device's answer
        assert getattr(exc, "code", "") == "COMMAND_FAILED"
    _only(phone, since, [[], [["am", "start", "-a", "android.intent.action.VIEW", "-d", s]]])


@FAST
@given(s=anything)
@example(s="²")  # str.isdigit() says yes; it is no key
def test_press_runs_only_one_keyevent(page_and_phone, s):
    page, phone = page_and_phone
    since = phone.events.last_seq
    try:
        page.press(s)
    except InvalidArgument:
        _only(phone, since, [[]])
        return
    (argv,) = phone.events.commands(since=since)
    assert argv[:2] == ["input", "keyevent"] and len(argv) == 3 and argv[2].isdigit()


@FAST
@given(key=st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True), s=anything)
@example(key="a", s="0\n")  # once passed unquoted: the newline ended the command
def test_intent_extras_arrive_verbatim(page_and_phone, key, s):
    page, phone = page_and_phone
    since = phone.events.last_seq
    try:
        page.intent(
            action="android.intent.action.VIEW", data="https://example.com", extras={key: s}
        )
    except InvalidArgument:
        assert "\0" in s
        _only(phone, since, [[]])
        return
    _only(
        phone,
        since,
        [
            [
                [
                    "am",
                    "start",
                    "-a",
                    "android.intent.action.VIEW",
                    "-d",
                    "https://example.com",
                    "--es",
                    key,
                    s,
                ]
            ]
        ],
    )


@FAST
@given(s=anything)
def test_logcat_tag_and_selectors_run_nothing_unexpected(page_and_phone, s):
    page, phone = page_and_phone
    since = phone.events.last_seq
    with contextlib.suppress(InvalidArgument):
        page.read_log(tag=s, lines=5)
    _only(phone, since, [[], [["logcat", "-d", "-t", "5", "-s", s if ":" in s else f"{s}:V"]]])
    since = phone.events.last_seq
    page.find({"text": s, "desc_contains": s})  # selectors never reach a command line
    dumps = [c[0] for c in without_frame_reads(phone.events.commands(since=since))]
    assert set(dumps) <= {"rm", "uiautomator", "cat"}


# -- clear=True below Android 13: the length comes from the device, never a stale snapshot --


@pytest.fixture
def android_11(adb_key):
    """A Page on an Android 11 (API 30) phone's Messages conversation: no keycombination."""
    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port

    with VirtualPhone(port=free_port(), api_level=30) as phone, \
            connect(phone.address, keys=[adb_key]) as page:
        page.launch("com.google.android.apps.messaging")
        page.snapshot()
        page.tap({"text": "Alex Kim"})
        page.snapshot()
        yield page, phone


def test_clear_on_old_android_reads_the_length_now_not_from_the_stale_snapshot(android_11):
    page, phone = android_11
    ref = compose(page).ref
    page.type(ref, "a" * 30)  # no snapshot after this: the last one shows the empty field
    assert page.last_snapshot.refs[ref].text == "Text message"  # (its hint)
    before = page.last_snapshot
    # the ref as the stale snapshot shows it (no re-reading the screen for the ref): only
    # reading the focused field can see the 30 characters
    page.trust_refs = True
    page.type(ref, "wifi", clear=True)
    assert page.last_snapshot is before  # reading the field did not renumber the refs
    page.trust_refs = False
    page.snapshot()
    assert compose(page).text == "wifi"
    assert "keycombination" not in {c[1] for c in phone.events.commands() if c[0] == "input"}


def test_clear_on_old_android_deletes_what_the_field_holds_and_no_more_than_a_margin(android_11):
    from baremobile.android.text_input import CLEAR_MARGIN

    page, phone = android_11
    ref = compose(page).ref
    page.type(ref, "hello there")
    since = phone.events.last_seq
    page.type(ref, "x", clear=True)
    dels = [e for e in phone.events.list("key", since=since) if e["keycode"] == 67]
    assert len(dels) == len("hello there") + CLEAR_MARGIN


def test_clear_on_old_android_empties_a_password_field(adb_key):
    """A password's dump shows one bullet per character: the length is still right."""
    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port

    with VirtualPhone(port=free_port(), api_level=30) as phone, \
            connect(phone.address, keys=[adb_key]) as page:
        page.launch("org.baremobile.notes")
        snap = page.snapshot()
        (pw,) = [r for r in snap.refs.values() if r.password]
        page.type(pw.ref, "hunter2" * 4)  # the last snapshot still shows the hint
        page.type(pw.ref, "s3cret", clear=True)
        field = next(r for r in page.snapshot().refs.values() if r.password)
        assert field.text == "\u2022" * len("s3cret")


def test_clear_on_old_android_refuses_a_target_that_is_not_a_field(adb_key):
    """No text field has focus after the tap: an honest error, never a false "emptied"."""
    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port

    with VirtualPhone(port=free_port(), api_level=30) as phone, \
            connect(phone.address, keys=[adb_key]) as page:
        page.launch("org.baremobile.notes")
        page.snapshot()
        since = phone.events.last_seq
        with pytest.raises(NotEditable, match="no text field has focus") as exc:
            page.type({"text": "Sign in to Notes"}, "x", clear=True)
        assert "TextInput" in exc.value.hint
        assert phone.events.list("text", since=since) == []  # nothing typed anywhere
        assert phone.events.list("key", since=since) == []


# -- the field holds exactly the text (issue 29: the description and the behaviour agree) ----


def test_typing_twice_leaves_only_the_second_text(conversation):
    """``type`` replaces what the field holds: ``abc`` then ``xyz`` leaves ``xyz`` (it left
    ``abcxyz``, while the tool's description promised exactly the text)."""
    page, phone = conversation
    page.type(compose(page).ref, "abc")
    page.snapshot()
    page.type(compose(page).ref, "xyz")
    page.snapshot()
    assert compose(page).text == "xyz"
    assert page.verify_typed() == "xyz"


def test_an_empty_field_is_not_emptied_again(conversation):
    """Replacing costs nothing when the fresh screen shows the field empty: only the text."""
    page, phone = conversation
    field = compose(page)
    assert not field.text or field.text == field.hint
    since = phone.events.last_seq
    page.type(field.ref, "hi")
    assert not [c for c in phone.events.commands(since=since)
                if c[:2] in (["input", "keycombination"], ["input", "keyevent"])]


def test_clear_false_keeps_what_the_field_held_and_the_check_expects_it(conversation):
    page, _ = conversation
    page.type(compose(page).ref, "abc")
    page.snapshot()
    page.type(compose(page).ref, "xyz", clear=False)
    page.snapshot()
    assert compose(page).text == "abcxyz"
    assert page.verify_typed() == "abcxyz"


def test_the_check_compares_with_what_the_field_should_hold():
    from baremobile.page.actions import _holds

    assert _holds("xyz", "xyz", True, False)
    assert not _holds("abcxyz", "xyz", True, False)  # replaced: only the text
    assert _holds("abcxyz", "xyz", False, False, before="abc")
    assert not _holds("xyz", "xyz", False, False, before="abc")  # it should have kept abc
    assert not _holds("abcxyzxyz", "xyz", False, False, before="abc")  # typed twice
    assert _holds("(555) 123-4567", "5551234567", True, False)  # formatting the field adds
    assert _holds("\u2022" * 6, "secret", True, True)
    assert not _holds("\u2022" * 9, "secret", False, True, before="abcd")
