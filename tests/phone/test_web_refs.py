"""Stable refs and diffs for web content: a page's elements keep their refs from snapshot to
snapshot like native ones (the merged pass, not the native one it starts from, moves the
Page's tracker), numbers are never given twice across web and native screens, and diffs
of merged snapshots show what changed in the page.

Real headless Chromium behind the virtual phone; what is on screen is asked of the page
itself. Skipped only where Chromium is not installed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import connect
from baremobile.errors import RefNotFound
from tests.conftest import page_js

pytestmark = pytest.mark.usefixtures("chromium_path")

phone = pytest.fixture(scope="module", name="phone")(lambda web_phone: web_phone)
page = pytest.fixture(name="page")(lambda web_page: web_page)
js = page_js


def labels(snap: Any) -> dict[str, int]:
    """label → ref of the snapshot's refs with a label of their own (unique ones)."""
    seen: dict[str, list[int]] = {}
    for ref, node in snap.refs.items():
        if node.label:
            seen.setdefault(f"{node.role} {node.label}", []).append(ref)
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def test_scrolling_a_web_list_keeps_the_refs_of_what_stays_visible(phone, page, web_pages):
    page.open_url(web_pages + "list.html")
    before = page.snapshot()
    assert "# web:" not in before.text and '"Item 1"' in before.text
    page.scroll(None, "down", 0.4)
    after = page.snapshot()
    assert js(phone, "scrollY") > 100  # the page itself moved
    old, new = labels(before), labels(after)
    kept = old.keys() & new.keys()
    assert {"Link Item 5", "Link Item 10", "Button Menu"} <= kept  # web, fixed header
    assert any("Open the home page" in k for k in kept)  # and Chrome's own toolbar
    assert {k: new[k] for k in kept} == {k: old[k] for k in kept}, after.text
    # what scrolled into view is new: numbers never given before
    fresh = [new[k] for k in new.keys() - old.keys()]
    assert fresh and min(fresh) > max(before.refs), after.text
    # the refs still act: the kept ref of "Item 10" taps that link where it is now
    page.tap(new["Link Item 10"])
    assert js(phone, "window.last") == 10


def test_a_web_element_that_scrolled_away_is_gone(phone, page, web_pages):
    page.open_url(web_pages + "list.html")
    first = labels(page.snapshot())["Link Item 1"]
    page.scroll(None, "down", 0.9)
    after = page.snapshot()
    assert '"Item 1"' not in after.text
    with pytest.raises(RefNotFound, match=rf'ref {first} \(Link "Item 1"\) is gone'):
        page.tap(first)
    assert js(phone, "window.last") is None  # nothing was tapped


def test_navigating_gives_new_numbers(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    form = page.snapshot()
    page.tap(labels(form)["Link other page"])
    links = page.wait_for({"text": "Back to the form"}, timeout=10, interval=0.1)
    assert links.ref is not None and links.ref > max(form.refs)
    snap = page.last_snapshot
    web = [r for r, n in snap.refs.items() if n.package == "com.android.chrome"
           and n.role in ("Link", "Button")]
    assert web and min(web) > max(form.refs), snap.text  # the new page's refs are all new
    assert labels(snap)["ImageButton Open the home page"] == \
        labels(form)["ImageButton Open the home page"]  # the toolbar stayed


def test_navigating_back_gives_the_page_its_numbers_back(phone, page, web_pages):
    """The tracker remembers the screens before: back on the form, its elements are the ones
    seen a few snapshots ago, with their numbers."""
    page.open_url(web_pages + "form.html")
    form = page.snapshot()
    page.tap(labels(form)["Link other page"])
    page.wait_for({"text": "Back to the form"}, timeout=10, interval=0.1)
    other = page.snapshot()
    page.back()
    page.wait_for({"text": "Press me"}, timeout=10, interval=0.1)
    back = page.snapshot()
    mine = {k: v for k, v in labels(form).items() if not k.startswith("ImageButton")}
    assert mine and {k: labels(back).get(k) for k in mine} == mine, back.text
    assert not set(back.refs) & (set(other.refs) - set(form.refs))  # none of the other page's


def test_a_diff_after_typing_into_a_web_input_shows_only_that_change(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    page.snapshot()
    page.type({"desc": "Full name"}, "Ann")  # focuses it: the keyboard comes up
    focused = page.snapshot()
    ref = next(r for r, n in focused.refs.items() if n.desc == "Full name")
    page.type(ref, "e", clear=False)  # focused already, kept: only the text changes
    diff = page.snapshot(diff=True)
    assert diff.is_diff and js(phone, "document.getElementById('name').value") == "Anne"
    lines = diff.text.splitlines()
    assert lines[0] == "# diff 1", diff.text  # the first diff observation
    changed = [x for x in lines[1:] if not x.startswith("# ")]
    assert len(changed) == 1 and changed[0].endswith(
        f' ~{ref} "Anne" (Full name) [focused]'), diff.text  # "@N ~ref rest"
    assert diff.refs.keys() == focused.refs.keys()
    # nothing changed: the diff says so
    assert page.snapshot(diff=True).text == "# diff 2: no change"


def test_a_failed_read_between_merged_snapshots_keeps_the_numbers(phone, page, web_pages,
                                                                   monkeypatch):
    """A snapshot whose page cannot be read is the native one (with a note): it is what was
    shown, so it moves the tracker; the native refs stay, and the page's refs come back with
    their numbers (the tracker remembers the merged screen before it)."""
    import baremobile.web

    page.open_url(web_pages + "form.html")
    merged = labels(page.snapshot())
    monkeypatch.setattr(baremobile.web, "available", lambda: False)
    native = page.snapshot()
    assert native.notes == ("web: reading web content needs the [web] extra (websockets, "
                            "h11)",)
    assert labels(native)["ImageButton Open the home page"] == \
        merged["ImageButton Open the home page"]
    with pytest.raises(RefNotFound, match="is gone"):
        page.tap(merged["Button Press me"])
    monkeypatch.undo()
    again = labels(page.snapshot())
    assert again["Button Press me"] == merged["Button Press me"]
    assert again["ImageButton Open the home page"] == merged["ImageButton Open the home page"]


# -- the property: a number names one element, whatever the screens --------------------------

_STEPS = st.lists(st.sampled_from([
    ("open", "list.html"), ("open", "form.html"), ("open", "links.html"),
    ("scroll", "down"), ("scroll", "up"), ("back", ""), ("home", ""),
    ("launch", "org.baremobile.weather"), ("tap_link", ""), ("web_false", ""),
]), min_size=3, max_size=7)


def _element(node: Any) -> tuple[str, ...]:
    """Who an element is, as a referee sees it: its app, role, id and what it says (a text
    field by its hint and description, not by what was typed into it)."""
    said = (node.hint, node.desc) if node.role == "TextInput" else (node.text, node.desc)
    return (node.package, node.role, node.resource_id, *said)


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_STEPS)
def test_no_number_is_ever_given_to_two_elements(phone, adb_key, web_pages, steps):
    phone.screens.reset()
    owner: dict[int, tuple[str, ...]] = {}  # ref → the element it named
    issued = 0  # the highest number seen so far
    with connect(phone.address, keys=[adb_key]) as page:
        for what, arg in [("open", "list.html"), *steps]:
            if what == "open":
                page.open_url(web_pages + arg)
            elif what == "scroll":
                page.scroll(None, arg, 0.5)
            elif what in ("back", "home"):
                getattr(page, what)()
            elif what == "launch":
                page.launch(arg)
            elif what == "tap_link":
                refs = page.last_snapshot.refs
                found = [n for n in page.find(role="Link") if not refs[n.ref].covered]
                if found:
                    page.tap(found[-1].ref)
            snap = page.snapshot(web=what != "web_false")
            assert "# web: the page" not in snap.text, snap.text
            new = [r for r in snap.refs if r not in owner]
            assert all(r > issued for r in new), (what, arg, snap.text)  # fresh numbers
            for ref, node in snap.refs.items():
                assert owner.setdefault(ref, _element(node)) == _element(node), \
                    (what, arg, ref, snap.text)
            issued = max([issued, *snap.refs])
