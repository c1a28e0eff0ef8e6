"""The trace's HTML view, opened as a user opens it: from ``file://`` in headless Chromium,
checked for what it shows (the action list, the filmstrip, before and after with the element
outlined and the point marked, the failing step with its assertion and source line, search),
for console errors and for network requests (none but ``file:`` and ``data:``), at 500 steps
too, and against a crafted trace (no script of its own runs, nothing is fetched)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from baremobile import connect
from baremobile.cli import main
from baremobile.errors import RefNotFound
from baremobile.trace import open_trace
from baremobile.trace.format import TraceWriter, call_text
from baremobile.trace.view import render_html
from baremobile.virtual.chromium import Chromium, find_chromium
from tests.trace_view_helpers import View
from tests.verified_flows import SETTINGS, ref_of

pytest_plugins = ["pytester"]
#: Where screenshots of the rendered views go when set (docs/images/ is made this way).
SHOT_ENV = "BAREMOBILE_TRACE_VIEW_PNG"
QUIET = ("-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "no:hypothesispytest",
         "-p", "no:anyio", "-p", "no:randomly")


@pytest.fixture(scope="module")
def browser():
    exe = find_chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (Debian's chromium; .ci/run installs it)")
    engine = Chromium(exe).start()
    try:
        yield engine
    finally:
        engine.stop()


def _shot(view: View, name: str) -> None:
    folder = os.environ.get(SHOT_ENV)
    if folder:
        view.screenshot(Path(folder) / name)


def _clean(view: View) -> None:
    assert view.errors() == []
    requests = view.requests()
    assert requests and [u for u in requests if not u.startswith(("file:", "data:"))] == []


def _html(trace_file: Path, out: Path) -> Path:
    with open_trace(trace_file) as trace:
        out.write_text(render_html(trace), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("view")
    with connect("virtual") as page, page.tracing.start(folder / "t.zip", screenshots=True):
        page.launch(SETTINGS)
        snap = page.snapshot()
        page.tap(ref_of(snap, text="Network & internet"))
        page.snapshot(diff=True)
        with pytest.raises(RefNotFound):
            page.tap(999)
    return folder / "t.zip"


def test_trace_show_writes_one_page_without_opening_a_browser(trace_file, capsys):
    assert main(["trace", "show", str(trace_file), "--no-open"]) == 0
    out = trace_file.with_name("t.zip.html")
    assert f"wrote {out}" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    # nothing to fetch: the only URL is the SVG namespace the script creates elements in
    assert set(re.findall(r"https?://[^'\" ]+", page)) == {"http://www.w3.org/2000/svg"}
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)[1]
    assert "unsafe-inline" not in policy and "default-src 'none'" in policy
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+'", policy)
    assert page.count("<script") == 2  # the data block and the viewer's own script


def test_the_view_shows_each_step_before_and_after_with_no_error_and_no_request(
        browser, trace_file, tmp_path):
    with open_trace(trace_file) as trace:
        steps = trace.steps
        html = _html(trace_file, tmp_path / "view.html")
    view = View(browser, html)
    try:
        rows = view.js("[...document.querySelectorAll('#actions .row')].map(r => "
                       "r.querySelector('.call').textContent)")
        assert rows == [call_text(s, 120) for s in steps]
        assert view.js("document.querySelectorAll('#actions .row .ms').length") == 5
        # the failing step (#5, tap(999)) is marked and shown first, with its error
        assert view.js("document.querySelector('#actions .row.on').dataset.index") == "4"
        assert view.js("document.querySelector('#actions .row.failing .n').textContent") == "5"
        assert "REF_NOT_FOUND" in view.js("document.querySelector('#failure .message')"
                                          ".textContent")
        _shot(view, "trace-view-failing-step.png")
        # the tap: before with the element outlined and the point marked, after, the ref
        view.js("document.querySelector('#actions .row[data-index=\"2\"]').click()")
        assert view.js("document.querySelector('#detail h2').textContent").startswith("3. tap(")
        assert view.js("document.querySelector('.pane .shot img').naturalWidth") == 540
        assert view.js("document.querySelector('.pane .shot .box') !== null")
        point = view.js("[...document.querySelectorAll('.pane .shot .point')].map(c => "
                        "[+c.getAttribute('cx'), +c.getAttribute('cy')])")
        assert point == steps[2]["sent"][0]["points"]
        marked = view.js("document.querySelector('.pane mark.hl').textContent")
        assert f"[ref={steps[2]['target']['ref']}]" in marked
        assert view.js("document.querySelectorAll('.pane')[1].querySelector('img') !== null")
        _shot(view, "trace-view-before-after.png")
        # the device log lines of the step (the phone logs the tap it received)
        view.js("[...document.querySelectorAll('.tabs nav button')].find(b => "
                "b.textContent === 'Log').click()")
        x, y = steps[2]["sent"][0]["points"][0]
        assert f"tap x={x} y={y}" in view.js("document.querySelector('.tabs .log').textContent")
        # the filmstrip, and clicking it
        thumbs = view.js("document.querySelectorAll('#filmstrip .thumb').length")
        assert thumbs == len({s["screenshot"]["file"] for s in steps
                              if s["screenshot"] and s["screenshot"]["file"]})
        view.js("document.querySelector('#filmstrip .thumb').click()")
        assert view.js("document.querySelector('#detail h2').textContent").startswith("1. ")
        _shot(view, "trace-view-filmstrip.png")
        # search across steps: a snapshot's text finds its step
        view.js("const s = document.getElementById('search'); s.value = 'airplane'; "
                "s.dispatchEvent(new Event('input'))")
        shown = view.js("[...document.querySelectorAll('#actions .row:not(.hidden) .n')]"
                        ".map(n => n.textContent)")
        assert "4" in shown and "1" not in shown and "2" not in shown
        # the tabs: the call, the graph
        view.js("[...document.querySelectorAll('.tabs nav button')].find(b => "
                "b.textContent === 'Graph').click()")
        assert view.js("document.querySelector('svg[aria-label=\"navigation graph\"] rect')"
                       " !== null")
        _clean(view)
    finally:
        view.close()


def test_a_500_step_trace_opens_and_stays_usable(browser, tmp_path):
    """500 steps recorded with screenshots (the trace's limit keeps 200): the page is built
    in one go, every row is there, the last step opens, search answers. The time it took is
    printed (benchmarks/trace_view.py measures it against a 50-step trace)."""
    with connect("virtual") as page, page.tracing.start(tmp_path / "t.zip", screenshots=True):
        page.launch(SETTINGS)
        lst = ref_of(page.snapshot(), role="List")
        for i in range(249):
            page.scroll(lst, "down" if i % 4 < 2 else "up")
            page.snapshot(diff=True)
    html = _html(tmp_path / "t.zip", tmp_path / "view.html")
    size = html.stat().st_size
    view = View(browser, html, timeout=120)
    try:
        assert view.js("document.querySelectorAll('#actions .row').length") == 500
        view.js("document.querySelector('#actions .row:last-child').click()")
        assert view.js("document.querySelector('#detail h2').textContent").startswith("500. ")
        started = time.monotonic()
        view.js("const s = document.getElementById('search'); s.value = 'scroll'; "
                "s.dispatchEvent(new Event('input'))")
        searched = time.monotonic() - started
        assert view.js("document.querySelector('#search + .count').textContent") == \
            "249 of 500"
        print(f"\n500 steps: {size / 1e6:.1f} MB, built in {view.ready_ms} ms "
              f"({view.seconds:.2f} s from navigating), search {searched * 1000:.0f} ms")
        _clean(view)
    finally:
        view.close()


def test_a_failing_test_trace_shows_its_assertion_and_source_line(pytester, browser):
    pytester.makepyfile(f"""
        def test_fails(page):
            page.launch("{SETTINGS}")
            text = page.snapshot().text
            assert "Quantum settings" in text, "no quantum settings on screen"
    """)
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*trace: *trace.zip*",
                                 "*failing step: the test's own check*no quantum settings*"])
    (trace_file,) = (pytester.path / "test-results").rglob("trace.zip")
    with open_trace(trace_file) as trace:
        outcome = trace.meta["outcome"]
        assert outcome["failed"] and "no quantum settings on screen" in outcome["error"]
        assert outcome["line"] == 4 and outcome["file"].endswith(".py")
        assert any("assert \"Quantum settings\" in text" in t for _, t in outcome["source"])
        assert [s["verb"] for s in trace.steps] == ["launch", "snapshot"]
        assert all(s["screenshot"]["file"] for s in trace.steps)  # screenshots by default
    html = _html(trace_file, pytester.path / "view.html")
    view = View(browser, html)
    try:
        message = view.js("document.querySelector('#failure .message').textContent")
        assert "no quantum settings on screen" in message
        line = view.js("document.querySelector('#failure .source .line.failing')"
                       ".textContent")
        assert 'assert "Quantum settings" in text' in line and line.lstrip().startswith("4")
        assert view.js("document.querySelector('#actions .row.failing .call').textContent"
                       ).startswith("test failed: ")
        _shot(view, "trace-view-assertion.png")
        _clean(view)
    finally:
        view.close()


def test_a_failed_steps_trace_names_it_in_the_report(pytester):
    pytester.makepyfile(f"""
        def test_fails(page):
            page.launch("{SETTINGS}")
            page.snapshot()
            page.tap(999)
    """)
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*failing step: #3 tap(999): REF_NOT_FOUND*"])


_CRAFTED = "</script><script>window.pwned=1;fetch('http://127.0.0.1:9/x')</script>" \
    "<img src=x onerror=\"window.pwned=2\"><!--"


def test_a_crafted_trace_runs_no_script_and_makes_no_request(browser, tmp_path):
    """Every field of a step holds markup, script, or a value of another type than a
    recording writes: the page shows it as text, runs none of it and fetches nothing."""
    w = TraceWriter(tmp_path / "evil.zip")
    w.meta({"format": 2, "title": _CRAFTED, "serial": _CRAFTED, "door": {"x": _CRAFTED},
            "started": 0, "ended": 1, "api_level": _CRAFTED,
            "outcome": {"test": _CRAFTED, "failed": True, "error": _CRAFTED, "line": 2,
                        "file": _CRAFTED, "source": [[1, _CRAFTED], [2, _CRAFTED]]}})
    for n, step in enumerate([
        {"n": _CRAFTED, "verb": _CRAFTED, "args": {_CRAFTED: _CRAFTED}, "acts": True},
        {"n": 2, "verb": "tap", "args": [_CRAFTED], "target": {"label": _CRAFTED,
         "bounds": [0, 0, "1", None]}, "error": {"message": _CRAFTED, "code": [_CRAFTED]},
         "sent": [{"kind": "tap", "points": [[_CRAFTED, 1]]}], "seconds": _CRAFTED},
        {"n": 3.5, "verb": 7, "result": {"kind": "snapshot", "text": _CRAFTED},
         "screenshot": {"file": "../../etc/passwd", "size": [1, 2]}, "dumps": ["/etc/passwd"]},
    ], 1):
        data = json.dumps(step).encode()
        (w.folder / "steps" / f"{n:06d}.json").write_bytes(data)
    w.pack()
    html = _html(tmp_path / "evil.zip", tmp_path / "evil.html")
    assert "<img src=x" not in html.read_text(encoding="utf-8")
    view = View(browser, html)
    try:
        assert view.js("window.pwned === undefined")
        assert view.js("document.querySelectorAll('#actions .row').length") == 3
        assert _CRAFTED in view.js("document.body.textContent")  # shown as text
        assert view.js("document.querySelectorAll('img[src=\"x\"], script:not([id])')"
                       ".length") == 1  # only the viewer's own script
        assert view.requests() == [html.resolve().as_uri()]  # nothing else, not even data:
        assert view.errors() == []
    finally:
        view.close()
