"""``baremobile mcp --daemon``: an MCP server whose tools run in the session daemon.

Like AutoMobile's stdio proxy: the MCP client talks to this process (stdio, or streamable
HTTP with ``--http``), which forwards every ``tools/call`` to the daemon's ``tools/call``.
So several MCP clients and the CLI share one daemon — one device pool, one connection per
device, the per-device ``BUSY`` rule between all of them.

* Each server is one daemon session: ``--session NAME`` (share it with the CLI or another
  server), else a private ``mcp-<pid>`` that is released when the server exits.
* The session gets its device on the first call: ``--device`` when given, else a free
  device of the pool (``daemon/openSession``), so a rack of phones serves a rack of agents.
* The operator's limits travel with every call (``--groups``, ``--files-dir``,
  ``--allow-device``, ``--allow-scenarios``, ``--observe``…): the daemon enforces them for
  this server's calls only.
* A call the MCP client cancels is cancelled in the daemon too (its connection is cut,
  and the daemon stops the device work of a client that hung up).
* One connection stays open for the server's life, so the daemon does not stop for
  idleness while an agent is attached.

The tool list is the standalone server's (:func:`baremobile.tools.mcp_server.mcp_tools`);
results are rendered by the same :func:`~baremobile.tools.mcp_server.mcp_result`. Resources
are the daemon's (``resources/list``, ``resources/list-templates``, ``resources/read``:
each device's snapshot, screenshot and info, and the pool), passed through as they are.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
from typing import Any

from mcp.server.lowlevel import Server

from baremobile.calls import start
from baremobile.daemon.client import Client, RemoteError
from baremobile.tools.mcp_server import (
    INSTRUCTIONS,
    _setup_logging,
    command_prefix,
    mcp_result,
    mcp_tools,
    operator_groups,
    refused_call,
    serve,
    types,
)
from baremobile.tools.mcp_stdin import REFUSED
from baremobile.tools.spec import get
from baremobile.transport import cancel

__all__ = ["build_proxy", "run"]

log = logging.getLogger("baremobile.mcp")


class _Forwarder:
    """Calls one tool in the daemon (blocking; run it in a worker thread)."""

    def __init__(self, session: str, params: dict[str, Any], device: str | None,
                 prefix: str) -> None:
        self.session = session
        self.params = params  # the operator's limits, sent with every call
        self.device = device
        self.prefix = prefix

    def __call__(self, name: str, arguments: Any, client: Client) -> dict[str, Any]:
        args = dict(arguments) if isinstance(arguments, dict) else arguments
        bare = name[len(self.prefix):] if name.startswith(self.prefix) else name
        tool = get(bare)
        if self.device and isinstance(args, dict) and tool is not None and \
                tool.needs_device and "device" not in args:
            args["device"] = self.device
        params = {**self.params, "name": name, "arguments": args, "session": self.session}
        try:
            return client.request("tools/call", params)
        except RemoteError as exc:
            if exc.code != "SESSION_NOT_OPEN":
                return _failed(name, exc)
        try:  # the session's first call: take a free device of the pool, then retry
            client.request("daemon/openSession", {"sessionId": self.session})
            return client.request("tools/call", params)
        except RemoteError as exc:
            return _failed(name, exc)


def _failed(name: str, exc: RemoteError) -> dict[str, Any]:
    return {"ok": False, "tool": name,
            "error": {"code": exc.code, "message": exc.message, "hint": exc.hint,
                      "category": exc.category}}


def build_proxy(forward: _Forwarder, *, groups: Any = (), prefix: str = "") -> Server[Any]:
    """The MCP server that forwards to the daemon."""
    from baremobile import __version__

    group_names, tools = mcp_tools(groups, prefix)
    forward.params["groups"] = group_names

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def daemon(method: str, request: dict[str, Any]) -> Any:
        client = Client()

        def work() -> Any:
            token = cancel.current()
            assert token is not None  # a Call runs under a token of its own
            with client, token.abortable(lambda reason: client.abort(), method):
                return client.request(method, request)

        try:
            return await start(work, f"{method} (MCP)", name="baremobile-mcp-call").wait(
                "the client cancelled the request")
        except RemoteError as exc:
            from mcp.shared.exceptions import MCPError

            code = types.INVALID_PARAMS if exc.category == "INVALID_ARGUMENT" else \
                types.INTERNAL_ERROR
            raise MCPError(code, f"{exc.code}: {exc.message}",
                           data={"code": exc.code, "hint": exc.hint}) from None

    #: the operator's limits go with every request that names a device (the daemon's gate)
    limits = {k: v for k, v in forward.params.items() if k in ("allowDevices",
                                                                "allowScenarios")}

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult.model_validate(
            await daemon("resources/list", dict(limits)))

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult.model_validate(
            await daemon("resources/list-templates", {}))

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        return types.ReadResourceResult.model_validate(
            await daemon("resources/read", {"uri": str(params.uri), **limits}))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == REFUSED:  # a line holding a lone surrogate (mcp_stdin)
            return mcp_result(refused_call(params.arguments))
        client = Client()

        def work() -> dict[str, Any]:
            # cancelling the call hangs up on the daemon, which stops the device work
            token = cancel.current()
            assert token is not None  # a Call runs under a token of its own
            with client, token.abortable(lambda reason: client.abort(),
                                         f"{params.name} through the daemon"):
                return forward(params.name, params.arguments, client)

        result = await start(work, f"{params.name} (MCP)", name="baremobile-mcp-call").wait(
            "the client cancelled the request")
        return mcp_result(result)

    return Server("baremobile", version=__version__, title="baremobile — Android for agents",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_list_resource_templates=list_templates,
                  on_read_resource=read_resource)


def run(args: argparse.Namespace) -> int:
    """``baremobile mcp --daemon``."""
    _setup_logging(getattr(args, "log_file", None), getattr(args, "verbose", False))
    prefix = command_prefix(args)
    groups = operator_groups(args)  # eval: the daemon must allow it too (--allow-eval)
    given = getattr(args, "session", None) or os.environ.get("BAREMOBILE_SESSION", "").strip()
    session = given or f"mcp-{os.getpid()}"
    limits: dict[str, Any] = {"prefix": prefix, "door": "tools",
                              "allowScenarios": bool(getattr(args, "allow_scenarios", False))}
    if getattr(args, "files_dir", None):
        limits["filesDir"] = os.path.abspath(args.files_dir)
    allow = getattr(args, "allow_device", None)
    if allow:
        limits["allowDevices"] = [*allow, *([args.device] if args.device else [])]
    keepalive = Client()
    keepalive.connect()  # start the daemon now, and keep it from idling out while we serve
    settings = {k: v for k, v in (("observe", True if args.observe else None),
                                  ("settle", args.settle), ("max_chars", args.max_chars))
                if v is not None}
    if settings:
        keepalive.request("tools/call", {"name": "configure", "arguments": settings,
                                         "session": session, "groups": ["session"]})
    forward = _Forwarder(session, limits, args.device, prefix)
    server = build_proxy(forward, groups=groups, prefix=prefix)
    log.info("serving MCP through the daemon at %s as session %s", keepalive.path, session)
    try:
        serve(server, args)
    finally:
        if not given:
            with contextlib.suppress(Exception):
                keepalive.request("daemon/releaseSession", {"sessionId": session})
        keepalive.close()
    return 0
