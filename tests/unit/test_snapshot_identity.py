"""Stable refs (``RefTracker``): the matching rule on hand-built screens, on consecutive real
dumps from the corpus, and as a property over random sequences of screens."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile.snapshot import StreamPruner, from_xml
from baremobile.snapshot.identity import RefTracker
from tests import examples
from tests.snapshot_helpers import corpus_dir, corpus_missing, dump, node

FL = "android.widget.FrameLayout"
LL = "android.widget.LinearLayout"
TV = "android.widget.TextView"
BTN = "android.widget.Button"
IMG = "android.widget.ImageView"
EDIT = "android.widget.EditText"
RV = "androidx.recyclerview.widget.RecyclerView"
SCREEN = (0, 0, 1080, 2400)


def snap_with(tracker: RefTracker, xml: bytes | str):
    pruner = StreamPruner(tracker=tracker)
    pruner.feed(xml)
    return pruner.close()


def refs_by_label(snap) -> dict[str, int]:
    """label → ref (the first with it): a ref's own label, else the first label inside it
    that no nested ref owns; refs with neither are left out."""
    out = {}
    for r in snap.refs:
        n = snap.refs.node(r)
        label = n.text or n.desc
        stack = list(reversed(n.children))
        while not label and stack:
            k = stack.pop()
            if k.ref is None:
                label = k.text or k.desc
                stack.extend(reversed(k.children))
        if label:
            out.setdefault(label, r)
    return out


def ref_of_role(snap, role: str) -> int:
    return next(r for r in snap.refs if snap.refs[r].role == role)


def settings_list(first: int, top: int = 200, rows: int = 8, height: int = 200) -> str:
    """A toolbar and a scrolled list of rows "Item {first}"…, each a title and a summary."""
    items = [
        node(
            LL,
            (0, top + i * height, 1080, top + (i + 1) * height),
            node(TV, (40, top + i * height, 800, top + i * height + 100), text=f"Item {k}"),
            node(TV, (40, top + i * height + 100, 800, top + (i + 1) * height), text=f"sum {k}"),
            clickable=True,
            rid="com.example:id/row",
        )
        for i, k in enumerate(range(first, first + rows))
    ]
    return dump(
        node(
            FL,
            SCREEN,
            node(IMG, (0, 0, 100, 100), desc="Navigate up", clickable=True,
                 rid="com.example:id/up"),
            node(RV, (0, 200, 1080, 1800), *items, scrollable=True, rid="com.example:id/list"),
        )
    )


def test_a_scrolled_list_keeps_the_refs_of_rows_still_visible():
    t = RefTracker()
    before = snap_with(t, settings_list(0))
    after = snap_with(t, settings_list(3, top=200 - 3 * 200 + 600))  # scrolled by 3 rows
    b, a = refs_by_label(before), refs_by_label(after)
    for k in range(3, 8):
        assert a[f"Item {k}"] == b[f"Item {k}"]
    assert a["Navigate up"] == b["Navigate up"]
    assert ref_of_role(after, "List") == ref_of_role(before, "List")  # the list itself
    new = [a[f"Item {k}"] for k in range(8, 11)]
    assert all(r > max(before.refs) for r in new)  # new rows: new numbers, in line order
    assert new == sorted(new)
    assert t.gone.keys() >= {b[f"Item {k}"] for k in range(3)}


def test_an_element_that_comes_back_gets_its_number_back():
    """Navigating away and back: the first screen's elements get their numbers back, while
    the tracker remembers it (HISTORY snapshots); after that, new numbers."""
    t = RefTracker(history=3)
    home = snap_with(t, settings_list(0))
    detail = snap_with(t, _rows(["A", "B"], 100))
    assert not set(home.refs) & set(detail.refs)
    back = snap_with(t, settings_list(0))
    assert refs_by_label(back) == refs_by_label(home) and set(back.refs) == set(home.refs)
    assert not set(back.refs) & t.gone.keys()  # back on screen: not gone any more
    # scrolled back part of the way: the rows seen before keep theirs, the list its own
    down = refs_by_label(snap_with(t, settings_list(4, top=200 - 4 * 200 + 800)))
    up = snap_with(t, settings_list(1, top=200 - 1 * 200 + 200))
    assert [refs_by_label(up)[f"Item {k}"] for k in range(1, 9)] == [
        refs_by_label(home)[f"Item {k}"] for k in range(1, 4)] + [
        down[f"Item {k}"] for k in range(4, 9)]
    for k in range(3):  # three other screens: the first one is forgotten
        snap_with(t, _rows([f"other {k}"], 100))
    again = snap_with(t, settings_list(0))
    assert min(again.refs) > max(up.refs)
    with pytest.raises(ValueError):
        RefTracker(history=0)


def _rows(labels: list[str], top: int) -> str:
    """Identical-looking rows (same id, same text), one per label slot."""
    return dump(
        node(
            FL,
            SCREEN,
            node(TV, (0, 0, 1080, 100), text="Header", rid="com.example:id/title", clickable=True),
            node(
                RV,
                (0, 100, 1080, 2400),
                *[
                    node(BTN, (0, top + i * 200, 1080, top + i * 200 + 200), text=lab,
                         clickable=True, rid="com.example:id/msg")
                    for i, lab in enumerate(labels)
                ],
                scrollable=True,
            ),
        )
    )


def test_identical_rows_follow_the_move_of_their_list():
    t = RefTracker()
    before = snap_with(t, _rows(["A", "same", "same", "same", "B"], 100))
    old = [r for r in before.refs if before.refs[r].label == "same"]
    # scrolled up by one row: "A" is gone, the three "same" moved 200 px up, "C" appeared
    after = snap_with(t, _rows(["same", "same", "same", "B", "C"], 100))
    new = [r for r in after.refs if after.refs[r].label == "same"]
    assert new == old  # paired at the offset the unique rows ("B") moved by
    by = refs_by_label(after)
    assert by["B"] == refs_by_label(before)["B"] and by["C"] > max(before.refs)


def test_identical_rows_whose_number_changed_in_place_are_a_guess_the_tracker_records():
    """The first of two identical rows removed: the second moves up into its place, and the
    screens cannot tell that from "the second removed". The pairing is a guess, recorded
    (the page refuses a ref from before it); nothing that scrolled as a whole is."""
    t = RefTracker()
    before = snap_with(t, _rows(["A", "same", "same", "B"], 100))
    first, second = [r for r in before.refs if before.refs[r].label == "same"]
    after = snap_with(t, _rows(["A", "same", "B"], 100))  # "B" moved up, "A" did not
    (kept,) = [r for r in after.refs if after.refs[r].label == "same"]
    assert kept == first  # numbered as rule 2 says (the row at the first one's place)...
    assert t.doubted_since(kept) == t.assigned == 2  # ...and known to be a guess
    assert t.doubted_since(refs_by_label(after)["B"]) == 0  # a unique row is no guess
    same = snap_with(t, _rows(["A", "same", "B"], 100))  # nothing changed since: no doubt
    assert t.doubted_since(kept) == 2 < t.assigned and kept in same.refs


def test_identical_rows_of_a_list_scrolled_as_a_whole_are_no_guess():
    t = RefTracker()
    before = snap_with(t, _rows(["A", "B", "same", "same"], 100))
    old = [r for r in before.refs if before.refs[r].label == "same"]
    after = snap_with(t, _rows(["B", "same", "same", "same"], 100))  # one row up: 2 → 3
    new = [r for r in after.refs if after.refs[r].label == "same"]
    assert new[:2] == old and new[2] > max(before.refs)
    assert all(t.doubted_since(r) == 0 for r in new)


def test_typing_into_a_field_keeps_its_ref_and_a_changed_label_gets_a_new_one():
    def screen(typed: str, button: str) -> str:
        return dump(
            node(
                FL,
                SCREEN,
                node(EDIT, (0, 0, 1080, 100), text=typed or "Search", extra={"hint": "Search"},
                     rid="com.example:id/q"),
                node(BTN, (0, 200, 300, 300), text=button, clickable=True, rid="com.example:id/b"),
            )
        )

    t = RefTracker()
    a = snap_with(t, screen("", "Follow"))
    b = snap_with(t, screen("cats", "Following"))
    assert b.refs[1].text == "cats" and a.refs[1].label == "Search"  # the same field, ref 1
    assert 2 not in b.refs and b.refs[3].label == "Following"  # another label: a new ref
    assert "Follow" in t.gone[2]


def test_a_dialog_over_the_app_keeps_the_apps_refs():
    app = node(
        FL,
        SCREEN,
        node(BTN, (0, 0, 500, 100), text="Settings", clickable=True),
        node(BTN, (0, 1000, 500, 1100), text="Timeout", clickable=True),
        package="com.example",
    )
    dialog = node(
        FL,
        (100, 800, 980, 1600),
        node(BTN, (200, 1400, 500, 1500), text="Cancel", clickable=True),
        node(BTN, (600, 1400, 900, 1500), text="OK", clickable=True),
        package="com.example",
    )
    t = RefTracker()
    plain = snap_with(t, dump(app))
    over = snap_with(t, dump(app, dialog))
    assert "- dialog com.example" in over.text
    assert {r: over.refs[r].label for r in (1, 2)} == {1: "Settings", 2: "Timeout"}
    assert {over.refs[r].label for r in (3, 4)} == {"Cancel", "OK"}
    closed = snap_with(t, dump(app))
    assert closed.text == plain.text  # the same refs again: the dialog's are gone
    assert t.next == 5


def test_rotation_keeps_every_ref():
    def screen(w: int, h: int) -> str:
        return dump(
            node(
                FL,
                (0, 0, w, h),
                node(IMG, (0, 0, 100, 100), desc="Back", clickable=True),
                node(BTN, (w - 300, 100, w, 200), text="Save", clickable=True),
                *[node(BTN, (0, 300 + i * 150, w, 450 + i * 150), text="Row", clickable=True)
                  for i in range(3)],
            ),
            rotation=0 if h > w else 1,
        )

    t = RefTracker()
    portrait = snap_with(t, screen(1080, 2400))
    landscape = snap_with(t, screen(2400, 1080))
    assert landscape.text.startswith("# 2400x1080 landscape")
    assert list(landscape.refs) == list(portrait.refs)  # identical rows: paired in order
    assert landscape.text.split("\n")[1:] == portrait.text.split("\n")[1:]


def test_one_shot_snapshots_number_from_one():
    xml = settings_list(5)
    assert list(from_xml(xml).refs) == list(range(1, 11))
    t = RefTracker()
    snap_with(t, settings_list(0))
    assert list(snap_with(t, xml).refs) != list(range(1, 11))


def test_limits_never_renumber_tracked_refs():
    t = RefTracker()
    before = snap_with(t, settings_list(0))
    pruner = StreamPruner(tracker=t, max_nodes=4)
    pruner.feed(settings_list(2, top=-200))
    cut = pruner.close()
    full = snap_with(RefTracker(), settings_list(2, top=-200))
    assert cut.truncated and len(cut.refs) == len(full.refs)
    # what it was before the scroll, though not shown
    assert refs_by_label(cut)["Item 3"] == refs_by_label(before)["Item 3"]
    assert "Item 3" not in cut.text


def test_thousands_of_identical_refs_stay_cheap():
    def screen(top: int) -> str:
        rows = [node(BTN, (0, top + i, 1080, top + i + 1), text="same", clickable=True)
                for i in range(3000)]
        return dump(node(FL, (0, 0, 1080, 4000), *rows))

    t = RefTracker()
    t0 = time.perf_counter()
    snap_with(t, screen(0))
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = snap_with(t, screen(1))
    assert time.perf_counter() - t0 < 10 * one + 1  # no quadratic pairing
    assert min(again.refs) > 3000  # too many to pair: new numbers, never wrong ones


# --- consecutive real screens --------------------------------------------------------------

CORPUS = corpus_dir() / "dumps"


@pytest.mark.skipif(not CORPUS.is_dir(), reason=corpus_missing())
def test_consecutive_corpus_screens_of_one_app():
    """109 and 141 are two versions of the same trading screen (another tab chosen): its
    frame keeps its refs, the rows (other stocks) get new ones."""
    t = RefTracker()
    a = snap_with(t, (CORPUS / "109_hexin-plat.xml").read_bytes())
    b = snap_with(t, (CORPUS / "141_hexin-plat.xml").read_bytes())
    la, lb = refs_by_label(a), refs_by_label(b)
    for tab in ("买入", "卖出", "撤单", "持仓", "查询", "市值", "盈亏", "持仓/可用", "成本/现价"):
        assert la[tab] == lb[tab], tab
    kept = set(a.refs) & set(b.refs)
    for r in kept:  # whatever kept its number shows the same class and id
        assert a.refs[r].cls == b.refs[r].cls and a.refs[r].resource_id == b.refs[r].resource_id
    assert lb["东阳光"] > max(a.refs)  # a stock only the second screen lists


# --- property: any sequence of screens ----------------------------------------------------

_CLASSES = [BTN, IMG, TV, EDIT]


@st.composite
def _screens(draw):
    """A pool of elements and a sequence of screens showing some of them somewhere."""
    pool = draw(
        st.lists(
            st.tuples(st.sampled_from(_CLASSES), st.sampled_from(["", "a", "b"]),
                      st.sampled_from(["", "x", "y"])),
            min_size=1,
            max_size=7,
        )
    )
    steps = draw(
        st.lists(
            st.lists(
                st.tuples(st.integers(0, len(pool) - 1), st.integers(0, 9),
                          st.sampled_from(["", "q", "qq"])),
                max_size=7,
                unique_by=lambda e: e[0],
            ),
            min_size=1,
            max_size=6,
        )
    )
    shifts = draw(st.lists(st.sampled_from([0, 0, 50, -100, 200]), min_size=len(steps),
                           max_size=len(steps)))
    return pool, steps, shifts


def _build(pool, step, shift) -> tuple[bytes, dict[str, tuple[str, ...]]]:
    kids = []
    looks = {}
    used: set[int] = set()
    for idx, slot, typed in step:
        while slot in used:
            slot = (slot + 1) % 10
        used.add(slot)
        cls, rid, text = pool[idx]
        y = 100 + slot * 200 + shift
        attrs = {"uid": f"e{idx}"}
        if cls == EDIT:
            attrs["hint"] = text or "h"
            shown = typed
            looks[f"e{idx}"] = (cls, rid, attrs["hint"])
        else:
            shown = text
            looks[f"e{idx}"] = (cls, rid, text)
        kids.append(node(cls, (0, y, 1080, y + 150), text=shown, rid=rid and f"p:id/{rid}",
                         clickable=True, extra=attrs))
    xml = dump(node(FL, SCREEN, node(RV, (0, 0, 1080, 2400), *kids, scrollable=True),
                    package="p"))
    return xml, looks


@settings(max_examples=examples(200), deadline=None)
@given(_screens(), st.integers(1, 4))
def test_one_number_never_names_two_different_elements(case, history):
    pool, steps, shifts = case
    t = RefTracker(history=history)
    owner: dict[int, str] = {}
    owner_look: dict[int, tuple[str, ...]] = {}
    last: dict[str, tuple[int, int]] = {}  # element → (its ref, the step it was last seen)
    prev: dict[str, int] = {}
    prev_looks: dict[str, tuple[str, ...]] = {}
    every_look: dict[str, set[tuple[str, ...]]] = {}
    for step, (screen, shift) in enumerate(zip(steps, shifts, strict=True)):
        xml, looks = _build(pool, screen, shift)
        for uid, lk in looks.items():
            every_look.setdefault(uid, set()).add(lk)
        snap = snap_with(t, xml)
        now = {}
        for r in snap.refs:
            a = snap.refs.node(r).attrs
            if a is None or "uid" not in a:
                continue  # the list itself
            now[a["uid"]] = r
        assert len(set(now.values())) == len(now)  # one number per element on a screen
        for uid, r in now.items():
            if owner.get(r, uid) != uid:
                # a number passes on only to an element that looks the same (where the first
                # one was, or coming back): nothing in a dump tells such two apart
                assert owner_look[r] == looks[uid]
            owner[r], owner_look[r] = uid, looks[uid]
        for uid, r in now.items():
            # an element alone of its look, in every screen so far, that looked the same
            # when last seen: the same number, whether it stayed or came back within the
            # tracker's history
            twins = [u for u, lks in every_look.items() if u != uid and looks[uid] in lks]
            if uid in last and not twins and every_look[uid] == {looks[uid]}:
                ref, seen_at = last[uid]
                if step - seen_at <= history:
                    assert ref == r, "an element alone of its look kept its number"
        if prev:
            assert set(prev_looks) <= set(every_look)
        last.update((uid, (r, step)) for uid, r in now.items())
        prev, prev_looks = now, looks
