"""Actions that changed what the agent saw, without this page acting (issue 28, item 6).

Another actor changes the screen between the agent's snapshot and its action — the app
itself (a row removed, a dialog opened: the virtual phone's apps react to a broadcast that
a second ADB client sends, as an activity's receiver does), or a second client driving the
same phone (a list scrolled). Over the real ADB protocol on the virtual phone, the phone's
event log as referee: no verb reports success with its input landing on another element.
The page asks the device, before acting, whether it drew anything since the snapshot
(``page.freshness``, default ``"frames"``), and otherwise reads the screen again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from baremobile import connect
from baremobile.errors import RefChanged, RefCovered, RefNotFound
from baremobile.page import Page
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.scenario_helpers import APP, bare_app, node
from tests.truth_helpers import dumps, element_of, landed_on, opens, stamp_elements, touches
from tests.verified_flows import SETTINGS, ref_of

PAID = f"{APP}.PAID"  # the app's receiver: a bill was paid elsewhere (its row goes)
ASK = f"{APP}.CONFIRM"  # the app's receiver: it asks to confirm a payment (a dialog)


def _bill(y: int) -> str:
    """One row of the bills list: a label and its "Pay 100" button (every row alike)."""
    return node("android.widget.LinearLayout", f"[0,{y}][1080,{y + 300}]", rid=f"{APP}:id/bill",
                children=node("android.widget.TextView", f"[60,{y + 100}][500,{y + 200}]",
                              text="Water", rid=f"{APP}:id/name")
                + node("android.widget.Button", f"[600,{y + 50}][1000,{y + 250}]",
                       text="Pay 100", rid=f"{APP}:id/pay", clickable=True))


def _bills(rows: int) -> str:
    return node("android.widget.FrameLayout", "[0,0][1080,2400]", children=(
        node("android.widget.TextView", "[60,100][1020,200]", text="Bills")
        + node("android.widget.LinearLayout", "[0,250][1080,1450]", rid=f"{APP}:id/bills",
               children="".join(_bill(250 + 300 * i) for i in range(rows)))
        + node("android.widget.Button", "[100,2000][980,2200]", text="History",
               rid=f"{APP}:id/history", clickable=True)))


#: the dialog the app opens by itself: its "Confirm" lies where "Pay 100" was
_CONFIRM = node("android.widget.FrameLayout", "[40,200][1040,900]", children=(
    node("android.widget.TextView", "[80,220][1000,290]", text="Pay 100 for Water?")
    + node("android.widget.Button", "[80,700][500,860]", text="Cancel",
           rid="android:id/button2", clickable=True)
    + node("android.widget.Button", "[560,300][1020,560]", text="Confirm",
           rid="android:id/button1", clickable=True)))


@pytest.fixture
def bills_phone(tmp_path: Path) -> Iterator[VirtualPhone]:
    """An app listing two identical bills; on the broadcast ``PAID`` it removes the first
    (the rows after it move up), on ``CONFIRM`` it opens a dialog."""
    scenario = bare_app(tmp_path, {"bills": _bills(2), "confirm": _CONFIRM}, on={
        "bills": f"- broadcast: {PAID}\n  remove: {{id: bill}}\n"
                 f"- broadcast: {ASK}\n  dialog: confirm\n",
        "confirm": "- tap: {id: 'android:id/button1'}\n  dismiss:\n",
    })
    with VirtualPhone(scenario, port=free_port()) as phone:
        yield phone


@pytest.fixture
def agent(bills_phone: VirtualPhone, adb_key, monkeypatch) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    stamp_elements(monkeypatch)
    with connect(bills_phone.address, keys=[adb_key]) as page:
        yield page


@pytest.fixture
def other(bills_phone: VirtualPhone, adb_key) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    """A second ADB client of the same phone (another agent, a test harness, a server)."""
    with connect(bills_phone.address, keys=[adb_key]) as page:
        yield page


def _act(fn, phone: VirtualPhone, named: str):  # type: ignore[no-untyped-def]
    """Run ``fn``; returns (its refusal or None, the touches the phone saw). Whatever it
    did, no touch may have landed on another element than ``named``."""
    since = phone.events.last_seq
    refusal = None
    try:
        fn()
    except RefNotFound as exc:  # RefChanged too
        refusal = exc
    except RefCovered as exc:
        refusal = exc
    sent = touches(phone.events.list(since=since))
    wrong = [t for t in sent if not landed_on(t, named)]
    assert not wrong, f"reported {'success' if refusal is None else refusal!r}, but a " \
                      f"touch landed on another element: {wrong}"
    return refusal, sent


def test_the_first_of_two_identical_rows_removed_by_the_app_is_refused(
        agent, other, bills_phone):
    """The app removes the first bill by itself (a broadcast from another client reaches
    its receiver): the second bill moves up into its place. The stale ref of the first must
    not tap the second — which one it is cannot be told from the screens: RefChanged."""
    snap = agent.snapshot()
    first, second = sorted(r for r in snap.refs if snap.refs[r].text == "Pay 100")
    named = element_of(snap, first)
    other.shell(f"am broadcast -a {PAID}")  # the app takes the first row off its screen
    assert [e["received"] for e in bills_phone.events.list("broadcast")] == [True]
    refusal, sent = _act(lambda: agent.tap(first), bills_phone, named)
    assert isinstance(refusal, RefChanged) and sent == []
    assert "identical" in refusal.message and "nothing was sent" in refusal.message
    after = agent.snapshot()  # a new snapshot: its ref is the element it shows
    (pay,) = [r for r in after.refs if after.refs[r].text == "Pay 100"]
    assert element_of(after, pay) == element_of(snap, second)  # the second bill, moved up


def test_a_dialog_the_app_opened_takes_no_tap_meant_for_the_screen_behind(
        agent, other, bills_phone):
    """The app opens a dialog by itself; its "Confirm" lies where "Pay 100" was. The tap on
    "Pay 100" (a ref from before) must not confirm: RefCovered, nothing sent."""
    snap = agent.snapshot()
    pay = min(r for r in snap.refs if snap.refs[r].text == "Pay 100")
    named = element_of(snap, pay)
    other.shell(f"am broadcast -a {ASK}")
    refusal, sent = _act(lambda: agent.tap(pay), bills_phone, named)
    assert isinstance(refusal, RefCovered) and sent == []
    assert "dialog" in refusal.message
    after = agent.snapshot()
    assert "Confirm" in after.text and "- dialog" in after.text  # nothing confirmed


@pytest.fixture
def settings(phone: VirtualPhone, adb_key, monkeypatch) -> Iterator[tuple[Page, Page]]:  # type: ignore[no-untyped-def]
    """The agent's page and a second client's, both on the demo phone's Settings."""
    stamp_elements(monkeypatch)
    with connect(phone.address, keys=[adb_key]) as agent, \
            connect(phone.address, keys=[adb_key]) as other:
        agent.launch(SETTINGS)
        yield agent, other


def test_a_list_another_client_scrolled_does_not_open_what_scrolled_in(settings, phone):
    """A second client scrolls Settings until "Wallpaper & style" sits where "Network &
    internet" was: the agent's ref must not open Wallpaper (refused: off screen)."""
    agent, other = settings
    snap = agent.snapshot()
    network = ref_of(snap, text="Network & internet")
    named = element_of(snap, network)
    where = snap.refs[network].center
    other.snapshot()
    for _ in range(2):
        other.scroll({"role": "List"}, "down", amount=0.5)
    seen = other.snapshot()
    x1, y1, x2, y2 = seen.refs[ref_of(seen, text="Wallpaper & style")].bounds
    assert x1 <= where[0] < x2 and y1 <= where[1] < y2  # what a tap there would open now
    refusal, sent = _act(lambda: agent.tap(network), phone, named)
    assert isinstance(refusal, RefNotFound) and "off screen" in refusal.message and sent == []
    assert phone.screens.screen_name() == "settings_home"  # nothing opened


def test_a_row_another_client_scrolled_a_little_is_tapped_where_it_is_now(settings, phone):
    agent, other = settings
    snap = agent.snapshot()
    battery = ref_of(snap, text="Battery")
    named, was = element_of(snap, battery), snap.refs[battery].center
    other.snapshot()
    other.scroll({"role": "List"}, "down", amount=0.25)
    refusal, sent = _act(lambda: agent.tap(battery), phone, named)
    assert refusal is None and len(sent) == 1 and (sent[0]["x"], sent[0]["y"]) != was
    assert 'Text "Battery"' in agent.snapshot().text  # the Battery page opened


# -- the policy's modes and what each costs -------------------------------------------------

def test_strict_reads_the_screen_before_every_action(settings, phone):
    agent, _ = settings
    agent.freshness = "strict"
    battery = ref_of(agent.snapshot(), text="Battery")
    since = phone.events.last_seq
    agent.tap(battery)  # nothing else drew: a dump all the same, then the tap
    news = phone.events.list(since=since)
    assert opens(news) == 2 and dumps(news) == 1


def test_frames_costs_one_round_trip_and_no_dump_while_nothing_drew(settings, phone):
    agent, _ = settings
    battery = ref_of(agent.snapshot(), text="Battery")
    since = phone.events.last_seq
    agent.tap(battery)
    news = phone.events.list(since=since)
    assert opens(news) == 2 and dumps(news) == 0  # the check (no dump), the tap


def test_frames_brings_the_dump_along_when_the_screen_drew(settings, phone):
    agent, other = settings
    snap = agent.snapshot()
    battery = ref_of(snap, text="Battery")
    other.snapshot()
    other.scroll({"role": "List"}, "down", amount=0.2)
    since = phone.events.last_seq
    agent.tap(battery)
    news = phone.events.list(since=since)
    assert opens(news) == 2 and dumps(news) == 1  # the check with its dump, the tap


def test_own_acts_on_what_the_snapshot_showed(settings, phone):
    """``freshness="own"``, the opt-out for scripts that own the phone: another actor's
    change is not looked for (the tap goes where the snapshot showed the row)."""
    agent, other = settings
    agent.freshness = "own"
    snap = agent.snapshot()
    battery = ref_of(snap, text="Battery")
    other.snapshot()
    other.scroll({"role": "List"}, "down", amount=0.25)
    since = phone.events.last_seq
    agent.tap(battery)
    (tap,) = touches(phone.events.list(since=since))
    assert (tap["x"], tap["y"]) == snap.refs[battery].center
    assert opens(phone.events.list(since=since)) == 1


def test_a_device_without_a_frame_count_is_checked_as_strict(settings, phone):
    """A device that answers no frame count (the code removed by a vendor, or refused)
    has the screen read before every action: the other actor's scroll is still caught."""
    agent, other = settings
    phone.answer(["service", "call", "SurfaceFlinger"],
                 b'Result: Parcel(Error: 0xffffffffffffffff "Operation not permitted")\n')
    snap = agent.snapshot()
    network = ref_of(snap, text="Network & internet")
    other.snapshot()
    other.scroll({"role": "List"}, "down", amount=0.85)
    since = phone.events.last_seq
    with pytest.raises(RefNotFound, match="off screen"):
        agent.tap(network)
    news = phone.events.list(since=since)
    assert touches(news) == [] and dumps(news) == 1


def test_freshness_takes_only_its_modes(settings):
    from baremobile.errors import InvalidArgument

    agent, _ = settings
    with pytest.raises(InvalidArgument, match="frames"):
        agent.freshness = "sometimes"
    assert agent.freshness == "frames"


# -- the frame count off the front of a dump's output (no I/O) ------------------------------

@hsettings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(1, 120), max_size=12), same=st.booleans(),
       junk=st.booleans())
def test_the_frame_count_is_taken_off_the_dump_however_it_is_chunked(cuts, same, junk):
    from baremobile.page.freshness import FrameTap, Unchanged, valid_count

    count = "Result: Parcel(0000002a    '*...')"
    dump = b"UI hierchary dumped to: /x.xml\n<?xml version='1.0'?><hierarchy/>"
    if same:
        out = b"--baremobile-unchanged--\n"
    elif junk:  # a shell that printed something of its own first: passed on whole
        out = b"WARNING: linker: something\n" + dump
    else:
        out = b"--baremobile-frames--\n" + count.encode() + b"\n--baremobile-frames--\n" + dump
    chunks, at = [], 0
    for c in cuts:
        chunks.append(out[at:at + c])
        at += c
    chunks.append(out[at:])
    tap = FrameTap(c for c in chunks if c)
    if same:
        with pytest.raises(Unchanged):
            b"".join(tap)
        return
    got = b"".join(tap)
    assert got == (out if junk else dump)
    assert tap.token == (None if junk else count) and valid_count(tap.token) is not junk
