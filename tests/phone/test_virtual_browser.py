"""The virtual phone's browser is a real one: headless Chromium behind Chrome's tabs and an
app's WebView, its DevTools sockets in ``/proc/net/unix`` and behind ``localabstract:``,
the WebView drawn shallow in the dump, and touches and text in its region turned into
Chromium's own input.

Everything goes through the real ADB protocol (our client, and Debian's ``adb`` as the
referee for ``forward``); what the page saw is read back from Chromium. One phone (one
Chromium) serves the whole module; tests skip only where Chromium is not installed.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

import pytest

from baremobile import connect
from baremobile.virtual import VirtualPhone
from tests.conftest import assert_no_browser_left, free_port, page_js

pytestmark = pytest.mark.usefixtures("chromium_path")

WEATHER = "org.baremobile.weather"
CHROME = "com.android.chrome"


# the module's phone (one Chromium for all its tests), a page on it, and asking the page
phone = pytest.fixture(scope="module", name="phone")(lambda web_phone: web_phone)
page = pytest.fixture(name="page")(lambda web_page: web_page)
js = page_js


def device_point(phone: VirtualPhone, selector: str) -> tuple[int, int]:
    """Where on the phone's screen the middle of the element ``selector`` is."""
    phone.screens.web_sync()
    web = phone.screens.web
    s = web.visible
    assert s is not None and s.region is not None
    x, y = json.loads(js(phone, (
        f"(() => {{ const b = document.querySelector({selector!r}).getBoundingClientRect();"
        " return JSON.stringify([b.x + b.width / 2 + scrollX, b.y + b.height / 2 + scrollY])"
        " })()")))
    vv = phone.browser.call("Page.getLayoutMetrics", session=s.session)["cssVisualViewport"]
    left, top, right, bottom = s.region
    return (round(left + (x - vv["pageX"]) * (right - left) / vv["clientWidth"]),
            round(top + (y - vv["pageY"]) * (bottom - top) / vv["clientHeight"]))


def devtools_rows(text: str) -> dict[str, str]:
    """Listening ``*_devtools_remote`` sockets of ``/proc/net/unix``: name → inode."""
    rows = {}
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) >= 8 and f[3] == "00010000" and f[5] == "01" and "_devtools_remote" in f[7]:
            rows[f[7].lstrip("@")] = f[6]
    return rows


# -- discovery ----------------------------------------------------------------------------


def test_sockets_appear_in_proc_net_unix_with_the_pid_ps_shows(phone, page, web_pages):
    text = page.shell("cat /proc/net/unix")
    assert text.splitlines()[0].split() == ["Num", "RefCount", "Protocol", "Flags", "Type",
                                            "St", "Inode", "Path"]
    page.open_url(web_pages + "form.html")
    page.launch(WEATHER)
    page.tap({"text": "Live radar"})
    rows = devtools_rows(page.shell("cat /proc/net/unix"))
    ps = {line.split()[-1]: line.split()[1] for line in page.shell("ps -A").splitlines()[1:]}
    assert "chrome_devtools_remote" in rows
    assert f"webview_devtools_remote_{ps[WEATHER]}" in rows
    assert CHROME in ps
    # procfs files stat with size 0; the shell cannot write there
    assert page.shell("stat -c %s /proc/net/unix").strip() == "0"


def test_the_dump_shows_the_webview_shallow_with_the_page_title(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    xml = phone.screens.dump_xml().decode()
    webviews = re.findall(r'<node [^>]*class="android.webkit.WebView"[^>]*>', xml)
    assert len(webviews) == 2 and 'text="Sign up"' in webviews[1]
    assert "Create an account" not in xml and "Press me" not in xml  # the page is not in it
    snap = page.snapshot()
    assert '- WebView "Sign up"' in snap.text
    assert f"{web_pages}form.html" in snap.text  # the omnibox


# -- the DevTools sockets through adb -----------------------------------------------------


def test_adb_forward_reaches_chrome_and_the_webview_sockets(phone, page, web_pages, real_adb):
    page.open_url(web_pages + "form.html")
    page.launch(WEATHER)
    page.tap({"text": "Live radar"})
    pid = page.shell("pidof org.baremobile.weather").strip()
    serial = real_adb.connect(phone)
    chrome_port, webview_port = free_port(), free_port()
    real_adb.ok("-s", serial, "forward", f"tcp:{chrome_port}",
                "localabstract:chrome_devtools_remote")
    real_adb.ok("-s", serial, "forward", f"tcp:{webview_port}",
                f"localabstract:webview_devtools_remote_{pid}")

    def get(port: int, path: str, host: str | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
        if host is not None:
            req.add_header("Host", host)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    status, body = get(chrome_port, "/json/list")
    tabs = json.loads(body)
    assert status == 200 and [t["url"] for t in tabs] == [web_pages + "form.html"]
    assert tabs[0]["description"] == "" and tabs[0]["title"] == "Sign up"
    assert tabs[0]["webSocketDebuggerUrl"] == (
        f"ws://127.0.0.1:{chrome_port}/devtools/page/{tabs[0]['id']}")
    status, body = get(webview_port, "/json/list")
    views = json.loads(body)
    assert [v["title"] for v in views] == ["Radar"]
    desc = json.loads(views[0]["description"])
    assert desc == {"attached": True, "empty": False, "height": 1991, "screenX": 0,
                    "screenY": 283, "visible": True, "width": 1080}
    version = json.loads(get(webview_port, "/json/version")[1])
    assert version["Android-Package"] == WEATHER and "webSocketDebuggerUrl" not in version
    status, body = get(chrome_port, "/json/list", host="phone.example:9222")
    assert status == 500 and b"not an IP address or localhost" in body

    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect as ws_connect

    url = tabs[0]["webSocketDebuggerUrl"]
    with ws_connect(url, max_size=None) as ws:
        ws.send(json.dumps({"id": 1, "method": "Runtime.evaluate",
                            "params": {"expression": "document.title"}}))
        reply = json.loads(ws.recv(timeout=20))
    assert reply["result"]["result"]["value"] == "Sign up"
    with pytest.raises(InvalidStatus) as refused:
        ws_connect(url, origin="http://evil.example")  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    # a page of the other socket is not reachable through this one
    other = f"ws://127.0.0.1:{chrome_port}/devtools/page/{views[0]['id']}"
    with pytest.raises(InvalidStatus):
        ws_connect(other)


def test_localabstract_to_a_socket_nobody_listens_on_is_refused(phone, page, real_adb):
    serial = real_adb.connect(phone)
    port = free_port()
    real_adb.ok("-s", serial, "forward", f"tcp:{port}", "localabstract:nothing_here")
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read()
    assert [e["service"] for e in phone.events.list("open")
            if "nothing_here" in e["service"]] == []


# -- input --------------------------------------------------------------------------------


def test_tap_in_the_webview_fires_the_pages_click_handler(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    x, y = device_point(phone, "#go")
    page.tap_xy(x, y)
    assert js(phone, "window.clicks") == 1
    assert js(phone, "document.getElementById('go').textContent") == "Pressed 1"
    tap = phone.events.list("tap")[-1]
    assert (tap["x"], tap["y"]) == (x, y)


def test_typed_text_lands_exactly_in_the_focused_input(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    x, y = device_point(phone, "#name")
    page.tap_xy(x, y)
    assert js(phone, "document.activeElement.id") == "name"
    assert phone.screens.ime_visible  # an editable element has focus: the keyboard shows
    text = "Jane O'Hara 100% sure & \"quoted\""
    page.shell(f"input text {_quote(text.replace(' ', '%s'))}")
    assert js(phone, "document.getElementById('name').value") == text
    page.press("del")
    assert js(phone, "document.getElementById('name').value") == text[:-1]
    page.press("enter")
    assert js(phone, "window.enters") == 1


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def test_a_swipe_in_the_webview_scrolls_the_page(phone, page, web_pages):
    page.open_url(web_pages + "list.html")
    assert js(phone, "scrollY") == 0
    r = phone.screens.web.visible.region
    cx = (r[0] + r[2]) // 2
    page.swipe(cx, r[3] - 200, cx, r[1] + 200, 400)
    scrolled = js(phone, "scrollY")
    assert scrolled > 300  # a finger drag, minus the touch slop
    kx = (r[2] - r[0]) / js(phone, "innerWidth")
    assert abs(scrolled * kx - (r[3] - r[1] - 400)) < 80


def test_back_in_chrome_goes_back_in_the_tabs_history(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    page.tap_xy(*device_point(phone, "a[href='links.html']"))
    _wait(lambda: js(phone, "document.title") == "Links")
    assert '- WebView "Links"' in page.snapshot().text
    assert f"{web_pages}links.html" in page.snapshot().text  # the omnibox followed
    page.back()
    _wait(lambda: js(phone, "document.title") == "Sign up")
    assert phone.screens.current()[0] == CHROME


def _wait(ok: Any, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, "the page never got there"
        time.sleep(0.02)


def test_only_the_front_tab_is_visible(phone, page, web_pages):
    page.open_url(web_pages + "form.html")
    phone.screens.web_sync()
    first = phone.screens.web.visible
    page.open_url(web_pages + "links.html")
    phone.screens.web_sync()
    second = phone.screens.web.visible
    assert first is not second and first.target is not None
    web = phone.screens.web
    assert web.evaluate(second, "document.visibilityState") == "visible"
    assert web.evaluate(first, "document.visibilityState") == "hidden"
    assert [t for t, _ in phone.screens.web_targets(CHROME)] == [second.target, first.target]


def test_no_browser_means_placeholders_and_no_sockets(adb_key):
    with VirtualPhone(port=free_port(), browser=False) as phone, connect(
            phone.address, keys=[adb_key]) as page:
        page.open_url("http://127.0.0.1:9/x.html")
        assert "Pages are not fetched" in page.snapshot().text
        assert devtools_rows(page.shell("cat /proc/net/unix")) == {}
        assert phone.browser is None


def test_the_phone_stops_its_chromium(adb_key, web_pages, chromium_path):
    with VirtualPhone(port=free_port()) as phone, connect(phone.address, keys=[adb_key]) as page:
        page.open_url(web_pages + "form.html")
        assert phone.browser.pid is None  # pages are realised when first looked at
        assert '- WebView "Sign up"' in page.snapshot().text
        pid = phone.browser.pid
        assert pid is not None
    assert_no_browser_left(pid)
