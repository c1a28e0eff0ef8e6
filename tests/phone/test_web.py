"""Web content in the snapshot: pages of real headless Chromium behind the virtual phone's
Chrome and an app's WebView, read through the DevTools protocol over the ADB connection,
merged into the native snapshot, and acted on through the device's own input.

The referee is Chromium itself: which elements a user can act on, and where they are, is
asked of the page (``getBoundingClientRect`` of every link, button, input, select and
element with a click handler, frames included), and what a tap or typed text did is read
back from the page. One phone (one Chromium) serves the module; the tests skip only where
Chromium is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest

from baremobile import connect
from baremobile.errors import UnsupportedText
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port, page_js

pytestmark = pytest.mark.usefixtures("chromium_path")

WEATHER = "org.baremobile.weather"
RADAR = f"{WEATHER}/.RadarActivity"


# the module's phone (one Chromium for all its tests), a page on it, and asking the page
phone = pytest.fixture(scope="module", name="phone")(lambda web_phone: web_phone)
page = pytest.fixture(name="page")(lambda web_page: web_page)
js = page_js


_ACTIONABLE = """(() => {
  const sel = 'a[href], button, input, select, textarea, [onclick], [role=button]';
  const vv = window.visualViewport, out = [];
  function collect(doc, ox, oy) {
    for (const el of doc.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height || el.type === 'hidden') continue;
      out.push({what: el.tagName + '#' + el.id + ' ' + (el.innerText || '').trim(),
                x1: ox + r.left, y1: oy + r.top, x2: ox + r.right, y2: oy + r.bottom});
    }
    for (const f of doc.querySelectorAll('iframe')) {
      const fr = f.getBoundingClientRect();
      collect(f.contentDocument, ox + fr.left + f.clientLeft, oy + fr.top + f.clientTop);
    }
  }
  collect(document, 0, 0);
  return JSON.stringify({vv: [vv.offsetLeft, vv.offsetTop, vv.width, vv.height], els: out});
})()"""


def actionable_on_screen(phone: VirtualPhone) -> list[tuple[str, tuple[float, ...]]]:
    """(what, device rect clipped to the WebView) of every element a user can act on that
    is on screen, as Chromium reports it."""
    data = json.loads(js(phone, _ACTIONABLE))
    left, top, right, bottom = phone.screens.web.visible.region
    ox, oy, w, h = data["vv"]
    kx, ky = (right - left) / w, (bottom - top) / h
    out = []
    for e in data["els"]:
        r = (left + (e["x1"] - ox) * kx, top + (e["y1"] - oy) * ky,
             left + (e["x2"] - ox) * kx, top + (e["y2"] - oy) * ky)
        vis = (max(r[0], left), max(r[1], top), min(r[2], right), min(r[3], bottom))
        if vis[2] - vis[0] >= 1 and vis[3] - vis[1] >= 1:
            out.append((e["what"], vis))
    return out


def assert_recall(phone: VirtualPhone, snap: Any) -> int:
    """Every actionable element on screen has a ref with a label whose tap point lies in
    the element's box (the judge the native recall tests use). Returns how many."""
    elements = actionable_on_screen(phone)
    assert elements, "the page shows nothing to act on"
    missing = []
    for what, (x1, y1, x2, y2) in elements:
        hits = [r for r in snap.refs.values()
                if r.label and x1 - 1 <= r.center[0] <= x2 + 1 and y1 - 1 <= r.center[1] <= y2 + 1]
        if not hits:
            missing.append(what)
    assert not missing, f"no labelled ref taps {missing}\n{snap.text}"
    return len(elements)


def open_page(page: Any, phone: VirtualPhone, url: str) -> Any:
    page.open_url(url)
    snap = page.snapshot()
    assert "# web:" not in snap.text, snap.text
    return snap


# -- the must-show list -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["form.html", "links.html", "list.html", "frame.html",
                                  "zoom.html"])
def test_every_actionable_element_on_screen_has_a_ref(phone, page, web_pages, name):
    snap = open_page(page, phone, web_pages + name)
    assert assert_recall(phone, snap) >= 1
    # nothing off screen got a ref: every ref's tap point is inside the screen
    for r in snap.refs.values():
        assert 0 <= r.center[0] < snap.width and 0 <= r.center[1] < snap.height


def test_a_page_scrolled_down_and_a_pinch_zoomed_page(phone, page, web_pages):
    page.open_url(web_pages + "list.html")
    js(phone, "scrollTo(0, 900)")
    snap = page.snapshot()
    assert assert_recall(phone, snap) >= 5
    assert '"Item 1"' not in snap.text and '"Item 25"' in snap.text
    page.open_url(web_pages + "form.html")
    assert phone.screens.pinch(300, 900, 2.5)
    assert js(phone, "visualViewport.scale") > 1.5
    snap = page.snapshot()
    assert assert_recall(phone, snap) >= 1


def test_page_pinch_over_a_page_is_chromiums_own_zoom(phone, page, web_pages):
    """page.pinch's real two-finger touches (uinput on this API level) reach the page as
    touch points: Chromium zooms it, as on a phone (the one pinch path of the phone)."""
    open_page(page, phone, web_pages + "form.html")
    page.pinch(None, 2.0)
    assert js(phone, "visualViewport.scale") > 1.3
    assert phone.events.list("pinch")[-1].detail["zoomed"] is True
    snap = page.snapshot()
    assert assert_recall(phone, snap) >= 1  # the refs follow the zoom


def test_refs_continue_the_native_sequence(phone, page, web_pages):
    snap = open_page(page, phone, web_pages + "form.html")
    lines = [line.strip() for line in snap.text.splitlines()]
    refs = [int(x.split("[ref=")[1].split("]")[0]) for x in lines if "[ref=" in x]
    assert refs == list(range(1, len(refs) + 1))
    web_start = lines.index('- WebView "Sign up"')
    assert any("[ref=" in x for x in lines[:web_start])  # Chrome's toolbar comes first
    assert any("(Back)" in x and "[ref=" in x for x in lines[web_start:])  # the nav bar after


@pytest.mark.fast
def test_tap_on_a_web_ref_fires_the_click_handler(phone, page, web_pages):
    snap = open_page(page, phone, web_pages + "form.html")
    button = page.find(role="Button", text="Press me")[0]
    page.tap(button.ref)
    assert js(phone, "window.clicks") == 1
    tap = phone.events.list("tap")[-1]
    assert (tap["x"], tap["y"]) == snap.refs[button.ref].center
    assert '"Pressed 1"' in page.snapshot().text


def test_tap_inside_an_iframe_reaches_the_frame(phone, page, web_pages):
    open_page(page, phone, web_pages + "frame.html")
    page.tap({"text": "Inner button"})
    assert js(phone, "window.innerClicks") == 1
    page.tap({"text": "Outer button"})
    assert js(phone, "window.outerClicks") == 1


def test_type_lands_exact_text_in_the_web_input(phone, page, web_pages):
    open_page(page, phone, web_pages + "form.html")
    text = "Jane O'Hara, 100% sure & \"quoted\" $HOME `x`"
    page.type({"desc": "Full name"}, text)
    assert js(phone, "document.getElementById('name').value") == text
    snap = page.snapshot()
    field = [n for n in snap.nodes() if n.desc == "Full name"][0]
    assert field.text == text and "focused" in field.states
    page.type(field.ref, "Ann", clear=True)
    assert js(phone, "document.getElementById('name').value") == "Ann"


def test_text_beyond_ascii_reaches_a_web_field_exactly(phone, page, web_pages):
    """``input text`` types printable ASCII only; a page's field takes any Unicode through
    DevTools' Input.insertText after the device's own tap focused it."""
    snap = open_page(page, phone, web_pages + "form.html")
    field = [n for n in snap.nodes() if n.desc == "Full name"][0]
    since = phone.events.last_seq
    text = "Zoë Ångström 你好 👋 — «ok» $HOME `x`"
    page.type(field.ref, text)
    assert js(phone, "document.getElementById('name').value") == text
    kinds = [e.kind for e in phone.events.list(since=since)]
    assert "tap" in kinds and "text" not in kinds  # the device's tap focused the field
    page.type(field.ref, "Ünïcödé", clear=True)  # replaces the whole content
    assert js(phone, "document.getElementById('name').value") == "Ünïcödé"
    # not a text field (the checkbox): refused, nothing typed, the box as it was
    box = [n for n in page.snapshot().nodes() if "accept the terms" in (n.text + n.desc)][0]
    checked = js(phone, "document.getElementById('terms').checked")
    with pytest.raises(UnsupportedText, match="no text field of the page has focus"):
        page.type(box.ref, "é")
    assert js(phone, "document.getElementById('name').value") == "Ünïcödé"
    assert js(phone, "document.getElementById('terms').checked") != checked  # the tap did


def test_scrolling_reveals_new_refs(phone, page, web_pages):
    before = open_page(page, phone, web_pages + "list.html")
    assert '"Item 30"' not in before.text
    page.scroll(None, "down", 0.9)
    after = page.snapshot()
    assert js(phone, "scrollY") > 300
    assert '"Item 30"' in after.text or '"Item 20"' in after.text
    new = {r.label for r in after.refs.values()} - {r.label for r in before.refs.values()}
    assert new, after.text
    assert_recall(phone, after)


def test_find_and_wait_for_see_web_nodes(phone, page, web_pages):
    open_page(page, phone, web_pages + "form.html")
    assert page.find(role="Link", text="other page")
    js(phone, "setTimeout(() => { const b = document.createElement('button');"
              " b.textContent = 'Late button'; document.body.appendChild(b) }, 300)")
    found = page.wait_for({"text": "Late button"}, timeout=10, interval=0.1)
    assert found.ref is not None and found.role == "Button"


def test_a_page_that_navigates_mid_snapshot_degrades_to_native(phone, page, web_pages,
                                                               monkeypatch):
    open_page(page, phone, web_pages + "form.html")
    from baremobile.web import cdp as cdp_module

    real = cdp_module.Cdp.call
    done = []

    def navigating_call(self, method, params=None, **kw):
        if method == "Accessibility.getFullAXTree" and not done:
            done.append(1)  # the page moves on between the layout and the tree
            web = phone.screens.web
            web.navigate(web.visible, web_pages + "links.html")
        return real(self, method, params, **kw)

    monkeypatch.setattr(cdp_module.Cdp, "call", navigating_call)
    snap = page.snapshot()
    assert done
    assert "# web: the page navigated while it was read" in snap.text
    assert "Create an account" not in snap.text and "Back to the form" not in snap.text
    assert snap.find(role="TextInput") and "WebView" in snap.text  # the native part is whole
    monkeypatch.setattr(cdp_module.Cdp, "call", real)
    assert '"Back to the form"' in page.snapshot().text


def test_app_webview_through_its_own_socket(phone, page, web_pages):
    page.intent(component=RADAR, data=web_pages + "form.html")
    snap = page.snapshot()
    assert snap.package == WEATHER and "# web:" not in snap.text
    assert '- WebView "Sign up"' in snap.text and "(Full name)" in snap.text
    assert_recall(phone, snap)
    page.tap({"text": "Press me"})
    assert js(phone, "window.clicks") == 1


def test_several_tabs_only_the_visible_one_is_shown(phone, page, web_pages):
    page.open_url(web_pages + "links.html")
    page.snapshot()
    page.open_url(web_pages + "form.html")
    snap = page.snapshot()
    assert "Create an account" in snap.text and "Back to the form" not in snap.text
    page.back()  # Chrome: back to the first tab
    snap = page.snapshot()
    assert "Back to the form" in snap.text and "Create an account" not in snap.text


def test_web_false_is_the_native_snapshot_only(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    since = phone.events.last_seq
    snap = page.snapshot(web=False)
    assert '- WebView "Sign up"' in snap.text and "Full name" not in snap.text
    assert [e["service"] for e in phone.events.list("open", since=since)
            if "localabstract" in e["service"]] == []


def test_missing_web_extra_is_a_note(phone, page, web_pages, monkeypatch):
    import baremobile.web

    page.open_url(web_pages + "form.html")
    monkeypatch.setattr(baremobile.web, "available", lambda: False)
    snap = page.snapshot()
    assert "# web: reading web content needs the [web] extra" in snap.text
    assert '- WebView "Sign up"' in snap.text
    cut = page.snapshot(max_chars=len(snap.text) - 10)
    assert len(cut.text) <= len(snap.text) - 10 and cut.text.endswith("…")


def test_a_webview_without_a_socket_is_a_note(adb_key, web_pages):
    with VirtualPhone(port=free_port(), browser=False) as phone, connect(
            phone.address, keys=[adb_key]) as page:
        page.open_url(web_pages + "form.html")
        snap = page.snapshot()
        assert "# web: the WebView in com.android.chrome is not debuggable" in snap.text
        assert "Pages are not fetched" in snap.text


def test_through_the_adb_server(phone, page, web_pages, real_adb, monkeypatch):
    page.open_url(web_pages + "form.html")
    serial = real_adb.connect(phone)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(real_adb.port))
    with connect(f"adb:{serial}") as via_server:
        assert via_server.transport.kind == "server"
        snap = via_server.snapshot()
        assert "(Full name)" in snap.text and "# web:" not in snap.text
        via_server.tap(via_server.find(text="Press me")[0].ref)
    assert js(phone, "window.clicks") == 1


def test_importing_baremobile_loads_no_web_code():
    code = ("import sys, baremobile; baremobile.connect; "
            "print(sorted(m for m in sys.modules if m.startswith(('baremobile.web', "
            "'websockets', 'h11'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out == "[]"


def test_timing_stays_reasonable(phone, page, web_pages):
    """A merged snapshot costs a few round trips more than a native one (ratios only)."""
    open_page(page, phone, web_pages + "form.html")
    t0 = time.perf_counter()
    for _ in range(3):
        page.snapshot(web=False)
    native = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(3):
        page.snapshot()
    merged = time.perf_counter() - t0
    assert merged < native * 100 + 3  # generous: a shared, noisy machine


def test_eval_js_only_behind_its_flag(phone, page, web_pages):
    from baremobile.errors import WebError, WebUnavailable

    open_page(page, phone, web_pages + "form.html")
    with pytest.raises(WebUnavailable, match="off"):
        page.eval_js("document.title")
    page.allow_eval = True
    assert page.eval_js("document.title") == "Sign up"
    assert page.eval_js("Promise.resolve([1, 'two'])") == [1, "two"]
    with pytest.raises(WebError, match="the script threw: Error: boom"):
        page.eval_js("(() => { throw new Error('boom') })()")
    page.home()
    with pytest.raises(WebUnavailable, match="no WebView"):
        page.eval_js("1")


def test_long_press_on_a_web_ref_is_a_held_touch(phone, page, web_pages):
    open_page(page, phone, web_pages + "links.html")
    page.long_press({"text": "Hold me"}, ms=800)
    assert js(phone, "window.held") == 1  # the page felt the finger ...
    assert js(phone, "window.holdClicks") is None  # ... held: a long press is no click
    page.tap({"text": "Clickable span"})
    assert js(phone, "window.spanClicks") == 1
