"""Web content through the front doors: the tool layer, the MCP server over stdio (the SDK's
own client) and the CLI through its daemon see web refs like native ones, and the gated
``eval`` tool runs JavaScript in the page only where the operator allowed it.

Real headless Chromium behind the virtual phone; what the page did is asked of the page
itself. Skipped only where Chromium is not installed (or the [mcp] extra, for MCP).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from baremobile import tools
from baremobile.errors import WebUnavailable
from tests.conftest import page_js
from tests.daemon_helpers import RawClient, cli, cli_env, running_daemon
from tests.daemon_helpers import ok as cli_ok

pytestmark = pytest.mark.usefixtures("chromium_path")

phone = pytest.fixture(scope="module", name="phone")(lambda web_phone: web_phone)
page = pytest.fixture(name="page")(lambda web_page: web_page)
js = page_js


def ref_on(text: str, needle: str) -> int:
    line = next(line for line in text.splitlines() if needle in line and "[ref=" in line)
    return int(re.search(r"\[ref=(\d+)\]", line).group(1))


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["ok"], result
    return result


def err(result: dict[str, Any], code: str) -> dict[str, Any]:
    assert not result["ok"] and result["error"]["code"] == code, result
    return result["error"]


# -- the tool layer (Python) -----------------------------------------------------------------


def test_tools_snapshot_and_tap_a_web_ref(phone, page, web_pages):
    ok(tools.call(page, "open_url", {"uri": web_pages + "form.html"}))
    snap = ok(tools.call(page, "snapshot", {}))["snapshot"]
    assert '- WebView "Sign up"' in snap and "# web:" not in snap
    ok(tools.call(page, "tap", {"ref": ref_on(snap, '"Press me"')}))
    assert js(phone, "window.clicks") == 1
    diff = ok(tools.call(page, "snapshot", {"diff": True}))["snapshot"]
    assert diff.startswith("# diff 1") and '"Pressed 1"' in diff  # only what changed


def test_type_tool_puts_unicode_into_a_web_field_and_refuses_a_native_one(phone, page,
                                                                          web_pages):
    ok(tools.call(page, "open_url", {"uri": web_pages + "form.html"}))
    snap = ok(tools.call(page, "snapshot", {}))["snapshot"]
    field = ref_on(snap, "(Full name)")
    ok(tools.call(page, "type", {"ref": field, "text": "Crème brûlée 🍮", "clear": True}))
    assert js(phone, "document.getElementById('name').value") == "Crème brûlée 🍮"
    ok(tools.call(page, "launch", {"package": "com.android.settings"}))
    snap = ok(tools.call(page, "snapshot", {}))["snapshot"]
    e = err(tools.call(page, "type", {"ref": ref_on(snap, '"Search Settings"'),
                                      "text": "brûlée"}), "UNSUPPORTED_TEXT")
    assert "'û'" in e["message"] and "nothing was typed" in e["message"]


def test_eval_is_gated(phone, page, web_pages):
    ok(tools.call(page, "open_url", {"uri": web_pages + "form.html"}))
    e = err(tools.call(page, "eval", {"expression": "document.title"}, groups="all"),
            "UNKNOWN_TOOL")  # "all" leaves it out: it must be named ...
    assert "allow_eval=True" in e["hint"] and "--allow-eval" in e["hint"]
    assert "eval" not in {s["name"] for s in tools.schemas("anthropic", groups="all")}
    assert "eval" in {s["name"] for s in tools.schemas("anthropic", groups=["eval"])}
    e = err(tools.call(page, "eval", {"expression": "document.title"}, groups=["eval"]),
            "NOT_ALLOWED")  # ... and the operator must allow it
    assert "--allow-eval" in e["hint"]
    with tools.Session(device=page.serial, allow_eval=True) as session:
        r = ok(tools.call(session, "eval", {"expression": "document.title"},
                          groups=["eval"]))
        assert r["value"] == "Sign up"
        big = ok(tools.call(session, "eval", {"expression": "'x'.repeat(50000)"},
                            groups=["eval"], max_chars=1000))
        assert big["truncated"] and big["chars"] == 50002 and len(big["text"]) == 1000
        thrown = err(tools.call(session, "eval", {"expression": "nope.nope"},
                                groups=["eval"]), "WEB_ERROR")
        assert "ReferenceError" in thrown["message"]
        # the operator allowed eval through this session's tool: each call, not the page
        (session_page,) = session.pages().values()
        assert session_page.allow_eval is False
        with pytest.raises(WebUnavailable, match="off"):
            session_page.eval_js("1 + 1")
    page.allow_eval = True  # a Page's own switch is its owner's choice
    assert ok(tools.call(page, "eval", {"expression": "1 + 1"}, groups=["eval"]))["value"] == 2


# -- MCP over stdio --------------------------------------------------------------------------


def test_mcp_stdio_sees_web_refs_and_serves_eval_when_allowed(phone, web_pages, tmp_path):
    pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    from tests.doors.test_mcp_stdio import ok as mcp_ok
    from tests.doors.test_mcp_stdio import run_stdio, text_of

    phone.screens.reset()

    async def body(s: Any) -> None:
        listed = {t.name: t for t in (await s.list_tools()).tools}
        assert "eval" in listed and listed["eval"].annotations.destructive_hint
        mcp_ok(await s.call_tool("open_url", {"uri": web_pages + "form.html"}))
        snap = text_of(mcp_ok(await s.call_tool("snapshot", {})))
        assert "(Full name)" in snap and "# web:" not in snap
        mcp_ok(await s.call_tool("tap", {"ref": ref_on(snap, '"Press me"')}))
        assert js(phone, "window.clicks") == 1
        r = mcp_ok(await s.call_tool("eval", {"expression": "window.clicks"}))
        assert r.structured_content["value"] == 1

    run_stdio(["--device", phone.address, "--allow-eval"], body, tmp_path / "err.log")


def test_mcp_lists_no_eval_unless_allowed(phone, tmp_path):
    pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    from tests.doors.test_mcp_stdio import run_stdio, server_env

    async def body(s: Any) -> None:
        assert "eval" not in {t.name for t in (await s.list_tools()).tools}

    run_stdio(["--device", phone.address, "--groups", "all"], body, tmp_path / "err.log")
    refused = subprocess.run([sys.executable, "-m", "baremobile", "mcp", "--groups", "eval"],
                             env=server_env(), capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    assert refused.returncode != 0 and "--allow-eval" in refused.stderr, refused.stderr


# -- the CLI through its daemon --------------------------------------------------------------


def test_cli_daemon_sees_web_refs_and_taps_one(phone, web_pages, tmp_path: Path):
    phone.screens.reset()
    env = cli_env(BAREMOBILE_DAEMON_ALLOW_EVAL="1")  # the daemon the CLI starts allows eval
    cli_ok("open", "-d", phone.address, cwd=tmp_path, env=env)
    cli_ok("open-url", web_pages + "form.html", cwd=tmp_path, env=env)
    snap = cli_ok("snapshot", cwd=tmp_path, env=env)
    assert '- WebView "Sign up"' in snap and "# web:" not in snap
    ref = ref_on(snap, '"Press me"')
    assert cli_ok("tap", str(ref), cwd=tmp_path, env=env).strip() == f"tapped ref {ref}"
    assert js(phone, "window.clicks") == 1
    again = cli_ok("snapshot", cwd=tmp_path, env=env)
    assert ref_on(again, '"Pressed 1"') != ref  # the button says something else now
    assert ref_on(again, "(Full name)") == ref_on(snap, "(Full name)")  # the rest kept refs
    out = json.loads(cli_ok("eval", "--expression", "window.clicks", "--json", cwd=tmp_path,
                            env=env))
    assert out["value"] == 1
    thrown = cli("eval", "--expression", "nope.nope", cwd=tmp_path, env=env)
    assert thrown.returncode == 7 and "error [WEB_ERROR]: the script threw" in thrown.stderr


def test_cli_eval_needs_a_daemon_that_allows_it(phone, web_pages, tmp_path: Path):
    phone.screens.reset()
    cli_ok("open", "-d", phone.address, cwd=tmp_path)
    cli_ok("open-url", web_pages + "form.html", cwd=tmp_path)
    r = cli("eval", "--expression", "document.title", cwd=tmp_path)
    assert r.returncode == 2 and "NOT_ALLOWED" in r.stderr and "--allow-eval" in r.stderr
    local = cli("eval", "--expression", "1", "--no-daemon", "-d", phone.address, cwd=tmp_path)
    assert local.returncode == 2 and "UNKNOWN_TOOL" in local.stderr, local.stderr


def test_daemon_lists_eval_only_when_it_allows_it(daemon_socket):
    for allowed in (False, True):
        with running_daemon(daemon_socket, allow_eval=allowed):
            client = RawClient(daemon_socket)
            try:
                listed = client.call("tools/list", {})["result"]["tools"]
            finally:
                client.close()
            assert ("eval" in {t["name"] for t in listed}) is allowed
