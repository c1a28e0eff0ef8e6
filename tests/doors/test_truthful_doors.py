"""Truthful actions through every door (issue 20): the tool table (Python), AsyncPage, the
MCP server driven by the MCP SDK's own client, and the CLI's session mode (exit status of
the error's family) — on the virtual phone, its event log as referee."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from baremobile import connect, connect_async, tools
from baremobile.errors import RefNotFound
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.daemon_helpers import cli, ok
from tests.scenario_helpers import bare_app, node
from tests.truth_helpers import without_frame_reads
from tests.verified_flows import SETTINGS, ref_of

NOTES = "org.baremobile.notes"


def _ref(text: str, needle: str) -> int:
    line = next(line for line in text.splitlines() if needle in line and "[ref=" in line)
    m = re.search(r"\[ref=(\d+)\]", line)
    assert m is not None
    return int(m.group(1))


def _typed(phone: VirtualPhone, since: int) -> list[str]:
    return [e["text"] for e in phone.events.list("text", since=since)]


@pytest.fixture
def code_phone(tmp_path: Path) -> Iterator[VirtualPhone]:
    """A screen with a field that keeps at most 4 characters (an InputFilter)."""
    field = node("android.widget.EditText", "[100,300][980,450]", text="Code",
                 rid="com.example.app:id/code", clickable=True,
                 extra=' hint="Code" maxlength="4"')
    root = node("android.widget.FrameLayout", "[0,0][1080,2400]",
                rid="com.example.app:id/root", children=field)
    with VirtualPhone(bare_app(tmp_path, {"a": root}), port=free_port()) as p:
        yield p


# -- the tool table, from Python ---------------------------------------------------------------


def test_tools_refuse_the_issue_sequence_and_check_what_type_left(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as page:
        r = tools.call(page, "snapshot", {})
        files, google = _ref(r["snapshot"], '"Files"'), _ref(r["snapshot"], "(Google app)")
        assert tools.call(page, "tap", {"ref": files})["ok"]
        since = phone.events.last_seq
        r = tools.call(page, "type", {"ref": google, "text": "wifi"})
        assert not r["ok"] and r["error"]["code"] == "REF_NOT_FOUND"
        assert "Google app" in r["error"]["message"] and _typed(phone, since) == []
        assert "the snapshot tool" in r["error"]["hint"]  # the hint in the tools' words
        # observed after acting: the search bar opens a field, and the field holds the text
        r = tools.call(page, "home", {})
        r = tools.call(page, "snapshot", {})
        bar = _ref(r["snapshot"], "(Google search)")
        r = tools.call(page, "type", {"ref": bar, "text": "wifi"}, observe="diff")
        assert r["ok"] and '"wifi"' in r["snapshot"], r


def test_tools_type_answers_what_the_field_shows_instead(code_phone, adb_key):
    with connect(code_phone.address, keys=[adb_key]) as page:
        snap = page.snapshot()
        field = ref_of(snap, role="TextInput")
        r = tools.call(page, "type", {"ref": field, "text": "123456"}, observe="diff")
        assert not r["ok"] and r["error"]["code"] == "TEXT_MISMATCH", r
        assert r["error"]["category"] == "NOT_ACTIONABLE"
        assert "'1234'" in r["error"]["message"]  # what the field shows instead
        assert '"1234"' in r["snapshot"]  # the observation comes with the error …
        text = tools.to_text(r)
        assert text.startswith("error TEXT_MISMATCH: ") and '"1234"' in text  # … and is shown
        assert _typed(code_phone, 0) == ["123456"]  # typed once, as asked
        r = tools.call(page, "type", {"ref": field, "text": "9876", "clear": True},
                       observe=True)
        assert r["ok"], r  # a text that fits: checked, and held
        # without an observation nothing is read after typing (no dump is paid for)
        since = code_phone.events.last_seq
        assert tools.call(page, "type", {"ref": field, "text": "55555", "clear": True})["ok"]
        assert code_phone.events.list("dump", since=since) == []


def test_async_page_refuses_the_issue_sequence(phone, adb_key):
    async def main() -> None:
        async with await connect_async(phone.address, keys=[adb_key]) as page:
            snap = await page.snapshot()
            google = ref_of(snap, desc="Google app")
            await page.tap(ref_of(snap, text="Files"))
            with pytest.raises(RefNotFound, match="Google app"):
                await page.type(google, "wifi")
            page.trust_refs = True
            assert page.page.trust_refs is True
            assert page.freshness == "frames"
            page.freshness = "strict"
            assert page.page.freshness == "strict"

    asyncio.run(main())
    assert phone.events.list("text") == []


def test_tools_catch_a_screen_another_client_changed(phone, adb_key):
    """Through the tool table (what MCP, the daemon and the adapters run): the model's ref
    from its last observation, a list another client scrolled since — refused, not tapped
    where the row was."""
    with connect(phone.address, keys=[adb_key]) as page, \
            connect(phone.address, keys=[adb_key]) as other:
        assert tools.call(page, "launch", {"package": SETTINGS})["ok"]
        seen = tools.call(page, "snapshot", {})
        network = int(re.search(r'\[ref=(\d+)\]\n\s+- Text "Network & internet"',
                                seen["snapshot"]).group(1))
        other.snapshot()
        other.scroll({"role": "List"}, "down", amount=0.9)
        since = phone.events.last_seq
        r = tools.call(page, "tap", {"ref": network})
        assert not r["ok"] and r["error"]["code"] == "REF_NOT_FOUND"
        assert "off screen" in r["error"]["message"]
        assert phone.events.list("tap", since=since) == []


# -- MCP: the server as a subprocess, the SDK's client -------------------------------------------


def test_mcp_refuses_stale_disabled_and_not_editable_targets(phone, tmp_path):
    pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    from tests.doors.test_mcp_stdio import error_code, run_stdio, text_of
    from tests.doors.test_mcp_stdio import ok as mcp_ok

    async def body(s) -> None:  # type: ignore[no-untyped-def]
        snap = text_of(mcp_ok(await s.call_tool("snapshot", {})))
        files, google = _ref(snap, '"Files"'), _ref(snap, "(Google app)")
        mcp_ok(await s.call_tool("tap", {"ref": files}))
        since = phone.events.last_seq
        r = await s.call_tool("type", {"ref": google, "text": "wifi"})
        assert error_code(r) == "REF_NOT_FOUND" and "Google app" in text_of(r)
        assert r.structured_content["error"]["category"] == "REF_NOT_FOUND"
        assert _typed(phone, since) == []
        # a search bar that opens an editor: typed, and the observation shows it held
        mcp_ok(await s.call_tool("home", {}))
        snap = text_of(mcp_ok(await s.call_tool("snapshot", {})))
        r = mcp_ok(await s.call_tool("type", {"ref": _ref(snap, "(Google search)"),
                                              "text": "wifi"}))
        assert '"wifi"' in text_of(r)
        # a list takes no text: nothing is sent
        mcp_ok(await s.call_tool("launch", {"package": SETTINGS}))
        snap = text_of(mcp_ok(await s.call_tool("snapshot", {})))
        since = phone.events.last_seq
        r = await s.call_tool("type", {"ref": _ref(snap, "- List"), "text": "x"})
        assert error_code(r) == "NOT_EDITABLE"
        assert r.structured_content["error"]["category"] == "NOT_ACTIONABLE"
        assert without_frame_reads(phone.events.commands(since=since)) == []
        # a disabled button: refused, nothing sent
        mcp_ok(await s.call_tool("launch", {"package": NOTES}))
        snap = text_of(mcp_ok(await s.call_tool("snapshot", {})))
        since = phone.events.last_seq
        r = await s.call_tool("tap", {"ref": _ref(snap, '"Create account"')})
        assert error_code(r) == "ELEMENT_DISABLED"
        assert without_frame_reads(phone.events.commands(since=since)) == []

    run_stdio(["--device", phone.address, "--observe", "--settle", "0"], body,
              tmp_path / "stderr.txt")


# -- the CLI: one process per command, the exit status says the family -------------------------


def test_cli_refuses_with_the_exit_status_of_the_error_family(phone, tmp_path):
    ok("open", "-d", phone.address, cwd=tmp_path)
    home = ok("snapshot", cwd=tmp_path)
    files, google = _ref(home, '"Files"'), _ref(home, "(Google app)")
    ok("tap", str(files), cwd=tmp_path)
    since = phone.events.last_seq
    r = cli("type", str(google), "wifi", cwd=tmp_path)  # the issue's sequence
    assert r.returncode == 3, r.stderr
    assert r.stderr.startswith("error [REF_NOT_FOUND]:") and "Google app" in r.stderr
    assert "baremobile snapshot" in r.stderr and "typed" not in r.stdout
    assert _typed(phone, since) == []
    ok("launch", NOTES, cwd=tmp_path)
    notes = ok("snapshot", cwd=tmp_path)
    since = phone.events.last_seq
    r = cli("tap", str(_ref(notes, '"Create account"')), cwd=tmp_path)
    assert r.returncode == 10 and r.stderr.startswith("error [ELEMENT_DISABLED]:"), r.stderr
    assert without_frame_reads(phone.events.commands(since=since)) == []
    ok("launch", SETTINGS, cwd=tmp_path)
    settings = ok("snapshot", cwd=tmp_path)
    since = phone.events.last_seq
    r = cli("type", str(_ref(settings, "- List")), "wifi", cwd=tmp_path)
    assert r.returncode == 10 and r.stderr.startswith("error [NOT_EDITABLE]:"), r.stderr
    assert without_frame_reads(phone.events.commands(since=since)) == []
    ok("close", cwd=tmp_path)


# -- the framework adapters: the same errors, each framework's way ----------------------------


def test_langchain_tools_refuse_the_issue_sequence(phone, adb_key):
    pytest.importorskip("langchain_core", reason="langchain-core is in the [test] extra")
    from baremobile.integrations import langchain as bm

    with connect(phone.address, keys=[adb_key]) as page:
        by_name = {t.name: t for t in bm.tools(page)}

        def call(name: str, args: dict, n: int):  # type: ignore[no-untyped-def, type-arg]
            return by_name[name].invoke({"type": "tool_call", "id": f"c{n}", "name": name,
                                         "args": args})

        snap = call("snapshot", {}, 1).content
        snap = snap if isinstance(snap, str) else snap[0]["text"]
        files, google = _ref(snap, '"Files"'), _ref(snap, "(Google app)")
        assert call("tap", {"ref": files}, 2).status == "success"
        since = phone.events.last_seq
        msg = call("type", {"ref": google, "text": "wifi"}, 3)
        text = msg.content if isinstance(msg.content, str) else msg.content[0]["text"]
        assert msg.status == "error" and text.startswith("error REF_NOT_FOUND: ")
        assert "Google app" in text and _typed(phone, since) == []
