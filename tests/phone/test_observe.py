"""Stable refs and diffs on the blueprint's Verified Flows, on the virtual phone over TCP.

The referee for "the same element" is the phone's own screen model: every node it dumps is
drawn from a model node that lives as long as the element does (a row that scrolls, a field
being typed into, the app under a dialog). A test-only wrapper around the phone's
serializer writes that identity into each node's ``drawing-order`` attribute, which the
pruner keeps in ``attrs`` and the ref matching never reads. System bars and the keyboard
are redrawn on every dump; their elements are identified by window and position in it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from baremobile import connect
from baremobile.page import Page
from baremobile.snapshot import Snapshot
from baremobile.snapshot.diff import apply, full_note
from baremobile.snapshot.identity import HISTORY
from baremobile.virtual.screens import screen_model as screens_mod
from baremobile.virtual.uixml import Node as XNode
from tests.verified_flows import FLOWS

_serialize = screens_mod.serialize


# Every model node ever stamped stays alive for the test: an id() is unique only among
# live objects, and a freed node's address given to a new one would make two elements one.
_alive: list[object] = []


def _stamp(windows: list[XNode]) -> None:
    for w in windows:
        kind = w.meta.get("kind", "")
        stack: list[tuple[XNode, str]] = [(w, kind)]
        while stack:
            n, path = stack.pop()
            src = n.src
            system = kind in ("status", "nav", "ime") or src is None or src is n
            if not system:
                _alive.append(src)
            n.attrs["drawing-order"] = path if system else f"m{id(src)}"
            stack.extend((c, f"{path}/{i}") for i, c in enumerate(n.children))


def _stamping_serialize(windows, rotation=0, *, extras=True):  # type: ignore[no-untyped-def]
    windows = list(windows)
    _stamp(windows)
    return _serialize(windows, rotation, extras=True)


@pytest.fixture
def page(phone, adb_key, monkeypatch) -> Iterator[Page]:
    monkeypatch.setattr(screens_mod, "serialize", _stamping_serialize)
    try:
        with connect(phone.address, keys=[adb_key]) as p:
            yield p
    finally:
        _alive.clear()


def _uids(snap: Snapshot) -> dict[int, str]:
    """ref → the model's identity of its element."""
    return {r: (snap.refs.node(r).attrs or {})["drawing-order"] for r in snap.refs}


def _looks(snap: Snapshot) -> dict[int, tuple[str, ...]]:
    """ref → what the dump shows of its element (an editable field's text is what was
    typed, not what the field is)."""
    out = {}
    for r in snap.refs:
        ref = snap.refs[r]
        out[r] = (ref.cls, ref.resource_id, ref.desc, ref.hint if ref.editable else ref.label)
    return out


@pytest.mark.parametrize("name", list(FLOWS))
def test_refs_are_stable_and_diffs_apply_on_every_step(page, name):
    seen: list[Snapshot] = []
    owner: dict[int, str] = {}  # every number ever given → the element it denotes now
    looks: dict[int, tuple[str, ...]] = {}  # … and what that element looks like
    last: dict[str, tuple[int, int]] = {}  # element → (its ref, the step it was last seen)
    kept_pairs = returned = 0

    def look() -> Snapshot:
        nonlocal kept_pairs, returned
        snap = page.snapshot(diff=True)
        step = len(seen)
        # the diff gives the whole new text back from the texts seen before
        if not seen:
            assert snap.text == snap.full_text and full_note(1) == ""
        assert apply(snap.text, history) == snap.full_text
        history[snap.number] = snap.full_text
        uids = _uids(snap)
        shown = _looks(snap)
        for ref, uid in uids.items():
            # one number, one element: a number passes to another element of the model
            # only when that one looks exactly the same and the first one is not on the
            # screen (the "Navigate up" button of the next screen, say): nothing in a dump
            # tells them apart
            if owner.setdefault(ref, uid) != uid:
                assert owner[ref] not in uids.values(), (ref, snap.text)
                assert looks[ref] == shown[ref], (ref, looks[ref], shown[ref], snap.text)
                owner[ref] = uid
            looks[ref] = shown[ref]
            # an element seen in the last HISTORY snapshots keeps its number, whether it
            # stayed on the screen or left and came back (navigating back, a dialog gone)
            if uid in last and step - last[uid][1] <= HISTORY:
                assert last[uid][0] == ref, (uid, last[uid], ref, snap.text)
                if last[uid][1] == step - 1:
                    kept_pairs += 1
                else:
                    returned += 1
        last.update((uid, (ref, step)) for ref, uid in uids.items())
        seen.append(snap)
        return snap

    history: dict[int, str] = {}
    FLOWS[name](page, look)
    assert len(seen) >= 1
    if len(seen) > 2:
        assert kept_pairs, "some element stays on screen across the flow's steps"
    if name in ("navigate back", "scroll a long list", "attach a file, dismiss the dialog"):
        assert returned, "elements that come back get their numbers back"


def test_a_gone_ref_is_refused_by_name_until_its_element_comes_back(page):
    page.launch("com.android.settings")
    first = page.snapshot()
    network = page.find(text="Network & internet")[0]
    row = next(r for r in first.refs if network in first.refs.node(r).children)
    lst = page.find(role="List")[0].ref
    page.scroll(lst, "down")
    after = page.snapshot()
    assert row not in after.refs and lst in after.refs  # the list is the same element
    with pytest.raises(Exception) as exc:
        page.tap(row)
    assert exc.value.code == "REF_NOT_FOUND"
    # named, and said where it went: out of view in its list, which is still on screen
    assert f"ref {row} (Group \"Network & internet\") is off screen" in exc.value.message
    assert f"in ref {lst} (List #recycler_view)" in exc.value.message
    page.scroll(lst, "up")
    back = page.snapshot()
    again = next(r for r in back.refs
                 if any(n.text == "Network & internet" for n in back.refs.node(r).children))
    assert again == row  # back on screen: the same element, its number back
    page.tap(row)
    assert page.snapshot().find(text="Internet")  # the tap opened "Network & internet"
    with pytest.raises(Exception, match="was never given"):
        page.tap(10_000)


def test_diff_observations_cost_less_than_full_snapshots_over_the_flows():
    """Summed o200k tokens of diff=True observations against full snapshots of the same
    steps (``benchmarks/observe.py`` prints the table, and the floor: the lines never shown
    before in the flow)."""
    bpe = pytest.importorskip("bpe_openai", reason="token counts need the bench extra")
    count = bpe.get_encoding("o200k_base").encode
    full = diff = later_full = later_diff = 0
    for flow in FLOWS.values():
        with connect("virtual") as page:
            def look() -> Snapshot:
                nonlocal full, diff, later_full, later_diff
                snap = page.snapshot(diff=True)  # noqa: B023
                f, d = len(count(snap.full_text)), len(count(snap.text))
                full, diff = full + f, diff + d
                if snap.number != 1:
                    later_full, later_diff = later_full + f, later_diff + d
                return snap

            flow(page, look)
    assert diff <= 0.63 * full  # measured 0.625x (0.76x before the history and window diffs)
    # after each flow's first look (10 of the 40 observations, 25% of the full tokens)
    assert later_diff <= 0.5 * later_full  # measured 0.49x


def test_rotating_the_phone_keeps_every_ref(page):
    """Rotation moves every element (new bounds, new screen size): each keeps its ref, and
    the diff says only that the screen turned (the screen line) — the same screen in the
    other orientation is not a new screen to the agent."""
    page.launch("com.android.settings")
    before = page.snapshot(diff=True)
    page.rotate("landscape")
    try:
        after = page.snapshot(diff=True)
    finally:
        page.rotate("portrait")
    assert after.full_text.splitlines()[0].endswith("landscape")
    assert set(after.refs) == set(before.refs)
    for r in before.refs:
        assert after.refs[r].label == before.refs[r].label
        assert after.refs[r].bounds != before.refs[r].bounds
    assert after.text.split("\n")[1:] == ["@1 ~# 2400x1080 landscape"]  # the screen line only
    assert apply(after.text, {before.number: before.full_text}) == after.full_text
