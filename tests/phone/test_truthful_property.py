"""The property behind truthful actions (issue 20), tested with hypothesis: over random
action sequences on the demo scenario, no verb ever reports success while the phone saw its
input land on an element other than the one it named.

An agent takes a snapshot now and then and acts on refs of the last snapshot it took —
often stale, since it acts several times between looks; and another client of the same
phone swipes and presses Back between its looks and its actions (issue 28: the page finds
out from the device, ``page.freshness``). The referee is the virtual phone's
event log: every touch says which element of the screen model it landed on, and typed text
which field took it (:mod:`baremobile.virtual.events`); the snapshot the agent named a ref
from says which model element that ref showed (:mod:`tests.truth_helpers`).

For every verb that returns normally: each touch landed on the element the ref named (or
inside it), and typed text went into that field (or, for a search bar, into the field its
tap opened). For every verb that raises: an error that says nothing was sent sent nothing,
and a touch it did send landed where it was told to.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import connect
from baremobile.errors import BaremobileError
from baremobile.page import Page
from baremobile.page import actions as page_actions
from baremobile.snapshot import Snapshot
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.truth_helpers import element_of, landed_on, same_element, stamp_elements, touches

APPS = ("com.android.settings", "com.google.android.apps.messaging", "org.baremobile.notes",
        "com.android.documentsui", "com.google.android.apps.nexuslauncher")
TARGETED = ("tap", "long_press", "double_tap", "type", "scroll")
#: random sequences per run (``TRUTH_EXAMPLES=500`` for a longer hunt)
EXAMPLES = int(os.environ.get("TRUTH_EXAMPLES", "40"))

step = st.one_of(
    st.tuples(st.just("snapshot")),
    st.tuples(st.sampled_from(TARGETED), st.integers(0, 200)),
    st.tuples(st.just("type_text"), st.integers(0, 200), st.sampled_from(["wifi", "a b", "7"])),
    st.tuples(st.just("press"), st.sampled_from(["back", "home"])),
    st.tuples(st.just("launch"), st.sampled_from(APPS)),
    st.tuples(st.just("scroll_screen"), st.sampled_from(["up", "down"])),
    st.tuples(st.just("other"), st.sampled_from(["up", "down", "back"])),
)
#: what the other client does behind the agent's back (raw input, as any client may)
OTHER = {"up": "input swipe 540 900 540 1500 300", "down": "input swipe 540 1500 540 900 300",
         "back": "input keyevent 4"}


@pytest.fixture(scope="module")
def phone() -> Iterator[VirtualPhone]:
    with VirtualPhone(port=free_port()) as p:
        yield p


@pytest.fixture(scope="module")
def stamped() -> Iterator[None]:
    mp = pytest.MonkeyPatch()
    stamp_elements(mp)
    mp.setattr(page_actions, "EDITOR_WAIT", 0.3)  # a tap that opens no field: fail fast
    yield
    mp.undo()


def _check(page: Page, phone: VirtualPhone, agent: Snapshot, action: tuple[Any, ...]) -> None:
    name = action[0]
    ref = named = None
    if name in TARGETED or name == "type_text":
        refs = sorted(agent.refs)
        ref = refs[action[1] % len(refs)]
        named = element_of(agent, ref)
    since = phone.events.last_seq
    try:
        if name == "snapshot":
            return
        if name == "tap":
            page.tap(ref)
        elif name == "long_press":
            page.long_press(ref, 600)
        elif name == "double_tap":
            page.double_tap(ref)
        elif name == "type":
            page.type(ref, "x")
        elif name == "type_text":
            page.type(ref, action[2])
        elif name == "scroll":
            page.scroll(ref, "down", amount=0.4)
        elif name == "press":
            page.press(action[1])
        elif name == "launch":
            page.launch(action[1])
        elif name == "scroll_screen":
            page.scroll(None, action[1], amount=0.4)
    except BaremobileError as exc:
        news = phone.events.list(since=since)
        if getattr(exc, "nothing_sent", False) or "nothing was sent" in exc.message:
            assert touches(news) == [] and not [e for e in news if e.kind == "text"], \
                (action, exc, news)
        else:  # it may have tapped (a field that did not open): only where it was told to
            for t in touches(news):
                assert named is not None and landed_on(t, named), (action, exc, t)
        return
    if named is None:
        return
    news = phone.events.list(since=since)
    landed = touches(news)
    if name == "double_tap":
        # one gesture: its second touch follows the first within the double-tap timeout,
        # at the same point — before an app could react on a real phone (the virtual phone
        # reacts to the first at once: a launcher icon opens its app under the second)
        landed = landed[:1]
    for t in landed:  # success: every touch landed on the element named
        assert landed_on(t, named), (action, ref, named, t, agent.text)
    texts = [e for e in news if e.kind == "text"]
    if name in ("type", "type_text"):
        assert texts, (action, news)
        field = agent.refs[ref]
        for e in texts:
            # into the field named; a search bar's text goes into the field its tap opened
            assert e["on"] is not None and (not field.editable
                                            or same_element(e["on"], named)), \
                (action, e, agent.text)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(step, min_size=3, max_size=14))
def test_no_verb_reports_success_on_another_element(phone, adb_key, stamped, actions):
    phone.screens.reset()
    with connect(phone.address, keys=[adb_key]) as page, \
            connect(phone.address, keys=[adb_key]) as other:
        agent = page.snapshot()
        for action in actions:
            if action[0] == "snapshot":
                agent = page.snapshot()
                continue
            if action[0] == "other":  # not the agent's: its refs are not told
                other.shell(OTHER[action[1]])
                continue
            if not agent.refs and action[0] in (*TARGETED, "type_text"):
                continue
            _check(page, phone, agent, action)
