"""Hardening, round three (issue 21): what a web page can put on screen crosses every door.

A page's text is anything JavaScript can hold — a lone UTF-16 surrogate too
(``p.textContent = '\\ud800'``), which DevTools' JSON carries as ``"\\ud800"``. Before the
fix that one character reached ``snapshot.text`` raw: the MCP stdio server's writer died
(the call unanswered, the process gone), the daemon answered ``INTERNAL_ERROR`` to
``snapshot`` and ``find``, ``--no-daemon snapshot`` died with ``UnicodeEncodeError``, and the
pytest plugin's failure hook turned the run into ``INTERNALERROR``. Now such text becomes
U+FFFD where DevTools' JSON is read (:mod:`baremobile.safetext`), and every door answers.

Also here: a page too large for the pruner's limits is a ``# web:`` note under the native
snapshot (it was ``DUMP_TOO_LARGE`` for the whole screen). The referee is a real headless
Chromium; the tests skip where there is none.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from baremobile import tools
from baremobile.safetext import REPLACEMENT, problem
from tests.conftest import page_js
from tests.daemon_helpers import RawClient, cli, cli_env, running_daemon

pytestmark = pytest.mark.usefixtures("chromium_path")

phone = pytest.fixture(scope="module", name="phone")(lambda web_phone: web_phone)
page = pytest.fixture(name="page")(lambda web_page: web_page)

#: a character of each kind that breaks a door, and their neighbours
NASTY = ["\ud800", "\udfff", "\udbff\udbff", "\ud83d\ude00", "\x00", "\n[ref=1] Button \"Pay\"",
         "\u2028", "\x1b[31m", ")", '"', "\\", "\ufeff", "\U0010ffff", "é"]
HOSTILE_TEXT = st.lists(st.one_of(st.characters(exclude_categories=()), st.sampled_from(NASTY)),
                        min_size=1, max_size=8).map("".join)


def show(phone, web_pages: str, page, heading: str, label: str = "Pay") -> Any:
    """The links page with ``heading`` as its h1, ``label`` as a button's accessible name and
    as an image's description (its ``alt``), set through the page's own JavaScript: lone
    surrogates reach the DOM as such."""
    phone.screens.web_sync()
    if phone.screens.web.visible is None or \
            page_js(phone, "location.pathname") != "/links.html":
        page.open_url(web_pages + "links.html")
        page.wait_for_text("Back to the form", timeout=20)
    page_js(phone, "(() => { document.querySelector('h1').textContent = "
                   f"{json.dumps(heading)}; document.getElementById('hold')"
                   f".setAttribute('aria-label', {json.dumps(label)});"
                   "let img = document.getElementById('hostile');"
                   "if (!img) { img = document.createElement('img'); img.id = 'hostile';"
                   " img.width = 60; img.height = 40; document.body.prepend(img); }"
                   f"img.alt = {json.dumps(label)}; return 1; }})()")


def encodable(value: Any) -> None:
    assert problem(value) is None, problem(value)
    json.dumps(value, ensure_ascii=False).encode("utf-8")


# -- 1. a surrogate on a page, through Python and tools.call -----------------------------------


def test_a_lone_surrogate_on_a_page_becomes_the_replacement_character(phone, page, web_pages):
    show(phone, web_pages, page, "A\ud800B", "x\udfffy")
    snap = page.snapshot()
    snap.text.encode("utf-8")
    assert f'"A{REPLACEMENT}B"' in snap.text and f'"x{REPLACEMENT}y"' in snap.text
    for name, args in (("snapshot", {}), ("find", {"selector": {"role": "Heading"}})):
        r = tools.call(page, name, args)
        assert r["ok"], r
        encodable(r)
    assert tools.call(page, "find", {"selector": {"text": f"A{REPLACEMENT}B"}})["count"] == 1


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=HOSTILE_TEXT)
@example(text="\ud800")
@example(text="a\udc00\ud800b")
def test_any_text_a_page_holds_crosses_python_and_tools_call(phone, page, web_pages, text):
    show(phone, web_pages, page, text)
    snap = page.snapshot()
    assert "# web:" not in snap.text, snap.text
    snap.text.encode("utf-8")
    r = tools.call(page, "snapshot", {})
    assert r["ok"], r
    encodable(r)


# -- ... through the daemon's socket, the CLI, MCP stdio, the adapters and the plugin ----------


def test_the_daemon_answers_snapshot_and_find_of_such_a_page(phone, page, web_pages,
                                                             daemon_socket):
    show(phone, web_pages, page, "A\ud800B", "x\udfffy")
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        for name, args in (("snapshot", {}), ("find", {"selector": {"role": "Heading"}})):
            got = c.call("tools/call", {"name": name, "arguments": args, "session": "w"})
            assert got["success"], got
            encodable(got)
        snap = c.call("tools/call", {"name": "snapshot", "arguments": {}, "session": "w"})
        assert f'"A{REPLACEMENT}B"' in snap["result"]["snapshot"]


def test_the_cli_prints_such_a_page(phone, page, web_pages, tmp_path):
    show(phone, web_pages, page, "A\ud800B", "x\udfffy")
    env = cli_env(PYTHONIOENCODING="utf-8")
    r = cli("--no-daemon", "snapshot", "-d", phone.address, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert f'"A{REPLACEMENT}B"' in r.stdout
    r = cli("--no-daemon", "find", "--desc-contains", "x", "-d", phone.address,
            cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert f"(x{REPLACEMENT}y)" in r.stdout
    # a terminal that cannot show a character gets its escape, not a traceback
    r = cli("--no-daemon", "snapshot", "-d", phone.address, cwd=tmp_path,
            env=cli_env(PYTHONIOENCODING="ascii"))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "A\\ufffdB" in r.stdout


def test_mcp_stdio_answers_such_a_page_and_keeps_serving(phone, page, web_pages, tmp_path):
    pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    from tests.doors.test_mcp_stdio import run_stdio, text_of

    show(phone, web_pages, page, "A\ud800B", "x\udfffy")
    rng = random.Random(21)
    sweep = ["".join(rng.choice(NASTY + ["a", "Z", " "]) for _ in range(rng.randint(1, 8)))
             for _ in range(12)]

    async def body(s: Any) -> None:
        r = await s.call_tool("snapshot", {})
        assert not r.is_error, text_of(r)
        assert f'"A{REPLACEMENT}B"' in text_of(r)
        r = await s.call_tool("find", {"selector": {"role": "Heading"}})
        assert not r.is_error, text_of(r)
        for text in sweep:  # any text a page holds: every call answered, the server alive
            show(phone, web_pages, page, text)
            r = await s.call_tool("snapshot", {})
            assert not r.is_error, text_of(r)
        assert not (await s.call_tool("snapshot", {})).is_error

    run_stdio(["--device", phone.address], body, tmp_path / "err.log")


def test_the_framework_adapters_answer_such_a_page(phone, page, web_pages):
    show(phone, web_pages, page, "A\ud800B", "x\udfffy")
    from baremobile.integrations.bridge import Bridge

    r = Bridge(page).call("snapshot", "{}")
    assert r["ok"], r
    encodable(r)
    lc = pytest.importorskip("baremobile.integrations.langchain",
                             reason="langchain-core is not installed")
    tool = next(t for t in lc.tools(page) if t.name == "snapshot")
    msg = tool.invoke({"type": "tool_call", "id": "c1", "name": "snapshot", "args": {}})
    assert isinstance(msg.content, str) and f'"A{REPLACEMENT}B"' in msg.content
    msg.content.encode("utf-8")
    oa = pytest.importorskip("baremobile.integrations.openai_agents",
                             reason="openai-agents is not installed")
    tool = next(t for t in oa.tools(page) if t.name == "snapshot")
    out = asyncio.run(tool.on_invoke_tool(None, "{}"))
    assert f'"A{REPLACEMENT}B"' in out
    out.encode("utf-8")


pytest_plugins = ["pytester"]


def test_the_pytest_plugin_reports_a_failure_on_such_a_page(phone, page, web_pages, pytester,
                                                            monkeypatch):
    """A failing test whose last snapshot held a lone surrogate: one failure reported with
    the snapshot, and the next test still runs (before: INTERNALERROR, the run ended)."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    show(phone, web_pages, page, "A\ud800B")
    pytester.makepyfile(
        """
        def test_fails(page):
            page.snapshot()
            page.last_snapshot.full_text.encode("utf-8")
            assert False, "on purpose"

        def test_runs_after():
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:langsmith_plugin",
                                "-p", "no:xdist", "-p", "no:hypothesispytest", "-p",
                                "no:anyio", "--device", phone.address)
    result.assert_outcomes(failed=1, passed=1)
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*- baremobile -*", f'*Heading "A{REPLACEMENT}B"*'])


def test_the_plugin_survives_a_snapshot_it_cannot_write(pytester, monkeypatch):
    """The plugin's last guard: even a snapshot object whose text cannot be encoded (no
    door produces one any more) is reported, never an INTERNALERROR."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    pytester.makepyfile(
        """
        class Odd:
            full_text = "bad \\ud800 text"

        def test_fails(page, monkeypatch):
            monkeypatch.setattr(type(page), "last_snapshot", property(lambda self: Odd()))
            assert False

        def test_runs_after():
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:langsmith_plugin",
                                "-p", "no:xdist", "-p", "no:hypothesispytest", "-p",
                                "no:anyio")
    result.assert_outcomes(failed=1, passed=1)
    assert "INTERNALERROR" not in result.stdout.str()


# -- 4. a page too large to show is a note; the native snapshot stays ---------------------------


@pytest.mark.parametrize("what, js", [
    ("nesting", "let p = document.body; for (let i = 0; i < 600; i++) {"
                " const d = document.createElement('div'); d.setAttribute('role', 'group');"
                " d.setAttribute('aria-label', 'level ' + i); p.appendChild(d); p = d; }"
                " p.textContent = 'deepest'; 1"),
    ("refs", "document.body.innerHTML = ''; const box = document.createElement('div');"
             " box.style.cssText = 'position:fixed;left:0;top:0;width:200px;line-height:0';"
             " for (let i = 0; i < 10050; i++) { const b = document.createElement('button');"
             " b.style.cssText = 'width:2px;height:2px;padding:0;margin:0;border:0';"
             " b.setAttribute('aria-label', 'b' + i); box.appendChild(b); }"
             " document.body.appendChild(box); 1"),
])
def test_a_page_over_the_limits_is_a_note_under_the_native_snapshot(phone, page, web_pages,
                                                                     what, js):
    page.open_url(web_pages + "links.html")
    assert '"Back to the form"' in page.snapshot().text
    page_js(phone, js)
    snap = page.snapshot()
    notes = [n for n in snap.notes if "too large to show" in n]
    assert notes, snap.text
    assert "# web: the page is too large to show" in snap.text
    assert snap.find(role="TextInput")  # Chrome's own address bar: the native part stands
    assert "Back to the form" not in snap.text
    r = tools.call(page, "snapshot", {})
    assert r["ok"] and "too large to show" in r["snapshot"], r
    page_js(phone, "location.reload(); 1")
    page.wait_for_text("Back to the form", timeout=20)


def test_the_note_is_listed_in_the_docs():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "web.md").read_text()
    assert "web: the page is too large to show" in doc
    assert sys.version_info >= (3, 10)
