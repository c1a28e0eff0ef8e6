"""The tool menu (issue 27): written once from the rows, the same at every door, in its token
budget, with nothing dropped — what is not shown is still accepted."""

from __future__ import annotations

import json
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest

from baremobile import tools
from baremobile.page.selector import ALIASES, CRITERIA
from baremobile.tools import render
from baremobile.tools.spec import TOOLS, select
from baremobile.tools.validate import validate

pytestmark = pytest.mark.usefixtures("mcp_sdk")  # the MCP SDK, imported when a test runs

#: issue 27's budgets: the default menu and ``--groups all``, o200k tokens
BUDGET = {"default": 2500, "all": 6500}


def _count() -> Any:
    bpe = pytest.importorskip("bpe_openai", reason="token counts need bpe-openai")
    enc = bpe.get_encoding("o200k_base")
    return lambda text: len(enc.encode(text))


def _tokens(count: Any, listed: list[dict[str, Any]]) -> int:
    return sum(count(json.dumps({"name": t["name"], "description": t["description"],
                                 "inputSchema": t["inputSchema"]},
                                separators=(",", ":"), ensure_ascii=False)) for t in listed)


def _as_listed(tool_list: Any) -> list[dict[str, Any]]:
    """An MCP client's ``tools/list`` as plain JSON (what it hands a model, and the hints)."""
    return [{k: v for k, v in t.model_dump(by_alias=True, exclude_none=True).items()
             if k in ("name", "description", "inputSchema", "annotations")}
            for t in tool_list.tools]


def test_the_menu_is_in_its_budget_through_the_sdk_client():
    from mcp import Client

    from baremobile.tools.mcp_server import build_server

    count = _count()
    for label, groups in (("default", []), ("all", ["all"])):
        server = build_server(tools.Session(), groups=groups)

        async def listed(server: Any = server) -> list[dict[str, Any]]:
            async with Client(server) as client:
                return _as_listed(await client.list_tools())

        got = anyio.run(listed)
        assert [t["name"] for t in got] == [t.name for t in select(["session", *groups])]
        total = _tokens(count, got)
        assert total <= BUDGET[label], f"{label} menu: {total} tokens > {BUDGET[label]}"


@pytest.mark.fast
def test_nothing_is_dropped_what_is_not_shown_is_accepted():
    """Every accepted parameter is shown or on the row's hidden list; every selector field
    and clawperator's aliases are accepted wherever a selector is; ``device`` everywhere."""
    for row in TOOLS:
        accepted = row.parameters()["properties"]
        shown = render.input_schema(row).get("properties", {})
        for name in accepted:
            assert name in shown or name in row.hidden or name == "device", (row.name, name)
        if row.needs_device:
            validate({"device": "virtual", **_minimal(row)}, row.parameters())
        for name, schema in accepted.items():
            if schema.get("anyOf") and "properties" in schema:  # a selector
                for field in (*CRITERIA, "textContains", "descContains", "resourceId"):
                    value: Any = 0 if field == "index" else "x"
                    args = {**_minimal(row), name: {field: value, **({} if field != "index"
                                                                     else {"text": "x"})}}
                    validate(args, row.parameters())
    assert {"textContains", "descContains", "resourceId"} <= set(ALIASES)


def _minimal(row: Any) -> dict[str, Any]:
    """The least arguments ``row`` accepts (its required ones, with plain values)."""
    samples = {"selector": {"text": "OK"}, "paths": [[{"x": 1, "y": 1, "time": 0},
                                                      {"x": 2, "y": 2, "time": 10}]],
               "steps": [{"tool": "back"}], "orientation": "auto", "direction": "down",
               "key": "back", "cell": "A1", "scale": 2, "seconds": 0, "uri": "https://a.b",
               "package": "com.a.b", "path": "/sdcard/a", "local_path": "a", "apk": "a.apk",
               "permission": "android.permission.CAMERA", "expression": "1"}
    out: dict[str, Any] = {}
    for name in row.required:
        out[name] = samples.get(name, "x")
        if row.properties[name].get("type") in ("number", "integer"):
            out[name] = samples.get(name, 1)
    return out


@pytest.mark.fast
def test_the_menu_says_each_fact_once():
    """The selector's fields are taught in one description (find's); no parameter
    description repeats what its tool's description says; no advertised schema names a
    bound (bounds are enforced, and said in the error)."""
    teaching = [t.name for t in TOOLS if "text_contains, desc_contains" in t.description]
    assert teaching == ["find"]
    def keys(schema: Any) -> set[str]:
        if not isinstance(schema, dict):
            return set()
        out = set(schema)
        for name in ("items",):
            out |= keys(schema.get(name))
        for sub in schema.get("properties", {}).values():
            out |= keys(sub)
        return out

    for row in TOOLS:
        found = keys(render.input_schema(row)) & {
            "minimum", "maximum", "minLength", "maxLength", "pattern", "additionalProperties",
            "anyOf", "$ref", "$defs", "exclusiveMinimum", "minItems", "maxItems"}
        assert not found, (row.name, found)


def _doors_lists(tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    """``tools/list`` (``--groups all``) at every door: the standalone server over stdio and
    HTTP, ``mcp --daemon``, and the daemon's socket."""
    from mcp import Client, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from tests.daemon_helpers import RawClient, cli_env, ok
    from tests.doors.test_daemon_mcp import proxy
    from tests.doors.test_mcp_http import _start
    from tests.doors.test_mcp_stdio import server_env

    out: dict[str, list[dict[str, Any]]] = {}
    ok("daemon", "start")

    async def main() -> None:
        with anyio.fail_after(120):
            params = StdioServerParameters(command=sys.executable, env=server_env(),
                                           args=["-m", "baremobile", "mcp", "--groups", "all"])
            async with Client(params) as client:
                out["stdio"] = _as_listed(await client.list_tools())
            async with AsyncExitStack() as stack:
                session = await proxy(stack, tmp_path / "proxy.log", "--groups", "all")
                out["mcp --daemon"] = _as_listed(await session.list_tools())
            started = _start(["--http", "0", "--groups", "all"],
                             server_env(BAREMOBILE_MCP_TOKEN="t0ken"))
            server = next(started)
            try:
                http = create_mcp_http_client(headers={"Authorization": "Bearer t0ken"})
                async with http, Client(streamable_http_client(server.url,
                                                               http_client=http)) as client:
                    out["http"] = _as_listed(await client.list_tools())
            finally:
                started.close()

    anyio.run(main)
    import os

    raw = RawClient(os.environ["BAREMOBILE_DAEMON_SOCKET"], shape=None)
    out["daemon"] = raw.call("tools/list", {"groups": ["all"]})["result"]["tools"]
    assert cli_env()  # the helpers' environment is this test's
    return out


def test_every_door_lists_the_same_tools(tmp_path: Path, daemon_socket: str):
    want = render.menu(select(["session", "all"]))
    for door, listed in _doors_lists(tmp_path).items():
        assert listed == want, door
