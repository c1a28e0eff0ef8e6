"""Truthful actions (issue 20): no verb reports success when it did nothing or hit another
element — on the virtual phone, over the real ADB protocol, the phone's event log as referee.

* a ref from a snapshot older than the last acting verb is read again from the screen: the
  same element is acted on where it is now; one that is gone, changed, off screen or under
  another window is refused with nothing sent;
* actionability: a disabled element is refused; ``type`` into something that takes no text
  types nothing (a search bar that opens an editor on tap still works);
* round trips: while the snapshot is fresh, one extra — the device's frame check, no dump
  (``freshness="own"``: none; other actors are ``tests/phone/test_truthful_other_actors.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from baremobile import connect
from baremobile.errors import (
    ElementDisabled,
    NotEditable,
    RefChanged,
    RefCovered,
    RefNotFound,
    TextMismatch,
)
from baremobile.page import Page
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.scenario_helpers import bare_app, node
from tests.truth_helpers import (
    dumps,
    element_of,
    landed_on,
    only_frame_checks,
    opens,
    stamp_elements,
    touches,
)
from tests.verified_flows import SETTINGS, ref_of

NOTES = "org.baremobile.notes"


@pytest.fixture
def page(phone: VirtualPhone, adb_key, monkeypatch) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    stamp_elements(monkeypatch)
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def test_the_issue_sequence_refuses_the_stale_ref_and_types_nothing(page, phone):
    snap = page.snapshot()  # the home screen
    files, google = ref_of(snap, text="Files"), ref_of(snap, desc="Google app")
    page.tap(files)  # Files opens
    since = phone.events.last_seq
    with pytest.raises(RefNotFound) as exc:
        page.type(google, "wifi")
    err = exc.value
    assert err.code == "REF_NOT_FOUND" and f"ref {google}" in err.message
    assert 'Image "Google app"' in err.message and "nothing was sent" in err.message
    assert "snapshot" in err.hint
    news = phone.events.list(since=since)
    assert touches(news) == [] and [e for e in news if e.kind == "text"] == []
    assert phone.screens.current()[0] == "com.android.documentsui"  # Files, untouched


def test_a_ref_that_only_moved_is_acted_on_where_it_is_now(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    battery, lst = ref_of(snap, text="Battery"), ref_of(snap, role="List")
    element, was = element_of(snap, battery), snap.refs[battery].center
    page.scroll(lst, "down", amount=0.3)  # the row moves up
    since = phone.events.last_seq
    page.tap(battery)
    (tap,) = touches(phone.events.list(since=since))
    assert landed_on(tap, element) and (tap["x"], tap["y"]) != was
    assert page.last_snapshot.number is None  # read again, but not an observation
    assert phone.screens.screen_name() == "settings_page"  # the Battery page opened
    assert 'Text "Battery"' in page.snapshot().text


def test_a_ref_scrolled_out_of_view_is_refused_as_off_screen(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    network, lst = ref_of(snap, text="Network & internet"), ref_of(snap, role="List")
    page.scroll(lst, "down")
    page.scroll(lst, "down")
    since = phone.events.last_seq
    with pytest.raises(RefNotFound, match="off screen") as exc:
        page.tap(network)
    assert f"scroll ref {lst}" in exc.value.hint
    assert touches(phone.events.list(since=since)) == []


def test_a_ref_under_a_dialog_that_opened_since_is_refused(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    page.tap(ref_of(snap, text="Display"))
    snap = page.snapshot()
    back = ref_of(snap, desc="Navigate up")
    lst = ref_of(snap, role="List")
    page.scroll(lst, "down")
    page.tap({"text": "Screen timeout"})  # a dialog opens over the page
    since = phone.events.last_seq
    with pytest.raises(RefCovered):
        page.tap(back)  # still on the screen, under the dialog now
    assert touches(phone.events.list(since=since)) == []


@pytest.fixture
def follow_phone(tmp_path) -> Iterator[VirtualPhone]:
    """A screen whose "Follow" button becomes "Following" (a new element at its place)."""

    def screen(label: str) -> str:
        return node("android.widget.FrameLayout", "[0,0][1080,2400]", children=(
            node("android.widget.Button", "[100,300][980,500]", text=label,
                 rid="com.example.app:id/follow", clickable=True)
            + node("android.widget.Button", "[100,800][980,1000]", text="Refresh",
                   rid="com.example.app:id/refresh", clickable=True)))

    scenario = bare_app(tmp_path, {"a": screen("Follow"), "b": screen("Following")},
                        on={"a": "- tap: {text: Refresh}\n  replace: b"})
    with VirtualPhone(scenario, port=free_port()) as p:
        yield p


def test_a_ref_whose_element_changed_beyond_recognition_is_refused(follow_phone, adb_key):
    with connect(follow_phone.address, keys=[adb_key]) as page:
        snap = page.snapshot()
        follow = ref_of(snap, text="Follow")
        page.tap(ref_of(snap, text="Refresh"))
        since = follow_phone.events.last_seq
        with pytest.raises(RefChanged) as exc:
            page.tap(follow)
        assert exc.value.code == "REF_CHANGED" and 'Button "Following"' in exc.value.message
        assert isinstance(exc.value, RefNotFound)  # the same family: take a new snapshot
        assert touches(follow_phone.events.list(since=since)) == []


def test_a_fresh_snapshot_costs_a_frame_check_and_no_dump(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    row = ref_of(snap, text="Battery")
    since = phone.events.last_seq
    page.tap(row)  # fresh: the device says it drew nothing since (no dump), then the tap
    news = phone.events.list(since=since)
    assert opens(news) == 2 and dumps(news) == 0
    back = ref_of(page.last_snapshot, desc="Back")  # the nav bar, from the stale snapshot
    since = phone.events.last_seq
    page.tap(back)  # stale: the screen is read again (one dump), then the tap
    news = phone.events.list(since=since)
    assert opens(news) == 2 and dumps(news) == 1


def test_freshness_own_costs_no_extra_round_trip_while_fresh(page, phone):
    page.freshness = "own"  # only this page's own actions make refs stale (scripts)
    page.launch(SETTINGS)
    row = ref_of(page.snapshot(), text="Battery")
    since = phone.events.last_seq
    page.tap(row)  # the tap alone
    assert opens(phone.events.list(since=since)) == 1


def test_trust_refs_acts_on_the_snapshot_as_it_is(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    lst = ref_of(snap, role="List")
    page.scroll(lst, "down", amount=0.2)
    page.trust_refs = True
    since = phone.events.last_seq
    page.scroll(lst, "down", amount=0.2)  # no dump: the list's old bounds are still right
    news = phone.events.list(since=since)
    assert opens(news) == 1 and not [e for e in news if e.kind == "dump"]


def test_a_disabled_button_is_refused_with_nothing_sent(page, phone):
    page.launch(NOTES)
    snap = page.snapshot()
    create = ref_of(snap, text="Create account")
    assert "[disabled]" in snap.text
    since = phone.events.last_seq
    for act in (page.tap, page.long_press, page.double_tap, lambda r: page.type(r, "x")):
        with pytest.raises(ElementDisabled) as exc:
            act(create)
        assert exc.value.code == "ELEMENT_DISABLED" and "Create account" in exc.value.message
    # not even a dump: each verb only asked whether the screen drew since the snapshot
    assert only_frame_checks(phone.events.commands(since=since))
    assert dumps(phone.events.list(since=since)) == 0


def test_type_into_what_focuses_no_field_is_refused_with_nothing_typed(page, phone):
    snap = page.snapshot()
    weather = ref_of(snap, text="Weather")
    since = phone.events.last_seq
    with pytest.raises(NotEditable, match="no text field has focus") as exc:
        page.type(weather, "wifi")
    assert "tapped ref" in exc.value.message  # it says the tap happened
    news = phone.events.list(since=since)
    assert [e.kind for e in touches(news)] == ["tap"]
    assert [e for e in news if e.kind == "text"] == []


def test_type_into_what_no_tap_can_open_sends_nothing(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    lst = ref_of(snap, role="List")  # scrollable, not clickable
    since = phone.events.last_seq
    with pytest.raises(NotEditable, match="nothing was sent"):
        page.type(lst, "wifi")
    assert only_frame_checks(phone.events.commands(since=since))


def test_type_into_a_search_bar_that_opens_an_editor_works(page, phone):
    snap = page.snapshot()
    bar = ref_of(snap, desc="Google search")
    since = phone.events.last_seq
    page.type(bar, "wifi")
    news = phone.events.list(since=since)
    (text,) = [e for e in news if e.kind == "text"]
    after = page.snapshot()
    field = ref_of(after, role="TextInput")
    assert text["on"] == element_of(after, field) and after.refs[field].text == "wifi"
    assert page.verify_typed(after) == "wifi"


def test_type_none_refuses_when_no_field_has_focus(page, phone):
    page.launch(SETTINGS)
    page.snapshot()
    since = phone.events.last_seq
    with pytest.raises(NotEditable):
        page.type(None, "wifi")
    assert [e for e in phone.events.list(since=since) if e.kind == "text"] == []


def test_verify_typed_names_what_the_field_shows_instead(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    page.tap(ref_of(snap, text="Search Settings"))
    snap = page.snapshot()
    field = ref_of(snap, role="TextInput")
    page.type(field, "wifi")
    assert page.verify_typed() == "wifi"  # a fresh read: the field holds it
    page.type(field, "x")  # then something else empties the field behind our back
    phone.screens.key(123)  # MOVE_END
    for _ in range(5):
        phone.screens.key(67)  # DEL
    with pytest.raises(TextMismatch) as exc:
        page.verify_typed()
    assert exc.value.code == "TEXT_MISMATCH" and "is empty" in exc.value.message


def test_a_look_alike_on_the_next_screen_is_not_taken_for_the_element(page, phone):
    """The next page of an app has a "Navigate up" where the last one had its own: it looks
    the same (the tracker gives it the same ref), but what is around it changed."""
    page.launch(SETTINGS)
    snap = page.snapshot()
    page.tap(ref_of(snap, text="Network & internet"))
    snap = page.snapshot()
    up = ref_of(snap, desc="Navigate up")
    page.tap(ref_of(snap, text="Internet"))  # the Internet page: its own "Navigate up"
    since = phone.events.last_seq
    with pytest.raises(RefChanged, match="may be another element") as exc:
        page.tap(up)
    assert "'Network & internet' then" in exc.value.message
    assert touches(phone.events.list(since=since)) == []
    after = page.snapshot()
    assert up in after.refs  # the look-alike has the number; a fresh snapshot makes it its
    page.tap(up)  # own, and it is tapped
    assert phone.screens.screen_name() == "settings_network"


@pytest.mark.parametrize("verb", ["tap", "long_press", "scroll", "type", "double_tap"])
def test_fresh_refs_cost_a_frame_check_more_and_stale_ones_a_dump_more(page, phone, verb):
    """Round trips (services the phone opened) per verb: on a fresh snapshot what the verb
    itself needs and the frame check (no dump: nothing else drew); on a stale one a dump
    more."""
    act = {"tap": lambda r: page.tap(r), "long_press": lambda r: page.long_press(r),
           "scroll": lambda r: page.scroll(r, "down"), "type": lambda r: page.type(r, "wifi"),
           "double_tap": lambda r: page.double_tap(r)}[verb]
    own = {"double_tap": 2}.get(verb, 1)  # the double tap: its plan's probe, then the taps
    page.launch(SETTINGS)
    snap = page.snapshot()
    if verb == "type":
        page.tap(ref_of(snap, text="Search Settings"))
        snap = page.snapshot()
    target = ref_of(snap, **{"scroll": {"role": "List"},
                             "type": {"role": "TextInput"}}.get(verb, {"text": "Battery"}))
    since = phone.events.last_seq
    act(target)
    news = phone.events.list(since=since)
    assert opens(news) == own + 1 and dumps(news) == 0
    if verb == "scroll":
        page.scroll(target, "up")
    else:
        page.press("back")
    since = phone.events.last_seq
    with contextlib.suppress(RefNotFound):  # the element left with the first act: refused
        act(target)
    news = phone.events.list(since=since)
    assert [e.kind for e in news if e.kind == "dump"] == ["dump"]


def test_an_error_after_a_tap_was_sent_leaves_the_snapshot_stale(page, phone):
    """``edit_text`` on an element that is no field taps it, then finds no field with focus
    and raises ``InvalidArgument``: the tap went out and changed the screen, so the last
    snapshot is stale — a later verb on its refs reads the screen again."""
    from baremobile.errors import InvalidArgument

    snap = page.snapshot()  # the home screen
    files = ref_of(snap, text="Files")
    before = page.actions
    since = phone.events.last_seq
    with pytest.raises(InvalidArgument, match="no text field has focus"):
        page.edit_text(files, "x")
    assert touches(phone.events.list(since=since))  # the tap was sent
    assert phone.screens.current()[0] == "com.android.documentsui"  # and opened Files
    assert page.actions == before + 1  # counted: the snapshot no longer shows the screen
    with pytest.raises(RefNotFound):  # Files' home-screen icon is read again: it is gone
        page.tap(files)
