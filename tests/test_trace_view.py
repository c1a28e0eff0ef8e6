"""The trace's HTML view, opened as a user opens it: from ``file://`` in headless Chromium
(Debian's, driven over the DevTools pipe as the virtual phone drives it), checked for what
it shows, for console errors and for network requests (there must be none)."""

from __future__ import annotations

import base64
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from baremobile import connect
from baremobile.cli import main
from baremobile.errors import RefNotFound
from baremobile.trace import open_trace
from baremobile.trace.view import render_html
from baremobile.virtual.chromium import Chromium, find_chromium
from tests.verified_flows import SETTINGS, ref_of

#: Where the screenshot of the rendered view goes when set (the lead's note).
SHOT_ENV = "BAREMOBILE_TRACE_VIEW_PNG"


@pytest.fixture
def browser():
    exe = find_chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (Debian's chromium; .ci/run installs it)")
    engine = Chromium(exe).start()
    try:
        yield engine
    finally:
        engine.stop()


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip", screenshots=True):
        page.launch(SETTINGS)
        snap = page.snapshot()
        page.tap(ref_of(snap, text="Network & internet"))
        page.snapshot(diff=True)
        with pytest.raises(RefNotFound):
            page.tap(999)
    return tmp_path / "t.zip"


def test_trace_show_writes_one_page_without_opening_a_browser(trace_file, capsys):
    assert main(["trace", "show", str(trace_file), "--no-open"]) == 0
    out = trace_file.with_name("t.zip.html")
    assert f"wrote {out}" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page  # nothing to fetch
    assert page.count('<section') == 6  # five steps and the graph


def test_the_view_in_chromium_shows_every_step_with_no_error_and_no_request(
        browser, trace_file, tmp_path):
    trace = open_trace(trace_file)
    html_file = tmp_path / "view.html"
    html_file.write_text(render_html(trace), encoding="utf-8")
    events: list[dict[str, Any]] = []
    loaded = threading.Event()

    def listen(msg: dict[str, Any]) -> None:
        events.append(msg)
        if msg.get("method") == "Page.loadEventFired":
            loaded.set()

    browser.subscribe(listen)
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    sid = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        browser.call(f"{domain}.enable", session=sid)
    browser.call("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 1000,
                                                         "deviceScaleFactor": 1,
                                                         "mobile": False}, session=sid)
    events.clear()
    browser.call("Page.navigate", {"url": html_file.as_uri()}, session=sid)
    assert loaded.wait(30), "the page did not load"

    def js(expression: str) -> Any:
        r = browser.call("Runtime.evaluate", {"expression": expression,
                                              "returnByValue": True}, session=sid)
        assert "exceptionDetails" not in r, r
        return r["result"]["value"]

    assert js("document.querySelectorAll('main section h2[id^=step-]').length") == 5
    assert js("[...document.querySelectorAll('nav a')].map(a => a.textContent)")[:5] == [
        f"{s['n']}. " + __import__("baremobile.trace.format", fromlist=["call_text"]).call_text(s)
        for s in trace.steps]
    tap = "document.getElementById('step-3').parentElement"
    assert js(f"{tap}.querySelector('.shot img').naturalWidth") == 540  # decoded, downscaled
    assert js(f"{tap}.querySelector('.shot .box') !== null")  # the element outlined
    marked = js(f"{tap}.querySelector('mark#hl').textContent")
    assert f"[ref={trace.steps[2]['target']['ref']}]" in marked  # the ref highlighted
    assert js("document.getElementById('step-5').parentElement.className") == "err"
    assert js("document.querySelector('svg[aria-label=\"navigation graph\"] rect') !== null")
    assert js("document.querySelector('nav a').click() || true")  # the script runs
    assert js("(document.getElementById('step-3').scrollIntoView(), 1)") == 1
    png = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"},
                                        session=sid)["data"])
    assert png.startswith(b"\x89PNG")
    if os.environ.get(SHOT_ENV):
        Path(os.environ[SHOT_ENV]).write_bytes(png)
    browser.unsubscribe(listen)
    mine = [e for e in events if e.get("sessionId") == sid]
    errors = [e for e in mine if e["method"] == "Runtime.exceptionThrown"
              or (e["method"] == "Runtime.consoleAPICalled"
                  and e["params"]["type"] in ("error", "warning", "assert"))
              or (e["method"] == "Log.entryAdded"
                  and e["params"]["entry"]["level"] in ("error", "warning"))]
    assert errors == []
    requests = [e["params"]["request"]["url"] for e in mine
                if e["method"] == "Network.requestWillBeSent"]
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    assert requests and all(u.startswith(("file:", "data:")) for u in requests)
