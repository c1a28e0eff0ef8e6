"""The daemon's methods: what each request's ``method`` does, with its parameters checked.

``METHODS`` maps a method name to its :class:`Method`. Those that may touch a device
(``device=True``: ``tools/call``, ``daemon/openSession``, ``daemon/refreshDevices``) run in a
worker thread under a deadline; the others are answered at once by the connection's
reader. Everything device-related goes through the :class:`~baremobile.daemon.hub.Hub`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baremobile.daemon import ide, resources
from baremobile.daemon.errors import ToolFailed
from baremobile.daemon.hub import tool_list
from baremobile.daemon.inflight import Pending, door_of, progress_sender
from baremobile.daemon.mcp_shapes import call_tool_result, list_tools_result, wants_mcp
from baremobile.daemon.navigation import navigation_graph
from baremobile.daemon.sessions import policy_of
from baremobile.errors import InvalidArgument
from baremobile.timeouts import DUMP_S
from baremobile.transport.progress import reporting

if TYPE_CHECKING:
    from baremobile.daemon.server import Connection, DaemonServer

__all__ = ["METHODS", "Method"]


class Method:
    """A daemon method: its handler, and whether it may touch a device (then it runs in a
    worker thread, under a deadline and the request's cancel token).

    The handler is called ``handler(server, params, ctx)``: ``ctx`` is the connection for
    methods answered at once, and the request in flight (:class:`~baremobile.daemon.
    inflight.Pending`: its ``conn``, ``req``, ``work``) for device methods."""

    def __init__(self, handler: Callable[..., Any], *, device: bool = False,
                 doc: str = "", floor: Callable[[Any, dict[str, Any]], int] | None = None
                 ) -> None:
        self.handler = handler
        self.device = device
        self.doc = doc
        #: ``floor(server, params)``: the least ``timeoutMs`` the request gets (ms)
        self.floor = floor


def _str(params: dict[str, Any], key: str, *, default: str | None = None,
         alt: str | None = None) -> str | None:
    value = params.get(key, params.get(alt) if alt else None)
    if value is None:
        return default
    if not isinstance(value, str):
        raise InvalidArgument(f"params.{key} must be a string, not {type(value).__name__}")
    return value


def _session_param(params: dict[str, Any]) -> str:
    return _str(params, "sessionId", alt="session", default="default") or "default"


def _server_param(params: dict[str, Any]) -> tuple[str, int] | None:
    value = _str(params, "adbServer")
    if value is None:
        return None
    from baremobile.transport.server import parse_server_socket

    return parse_server_socket(value)


def _m_ping(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return {"ok": True, "timestamp": int(time.time() * 1000), "version": server.version}


def _m_status(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.status()


def _m_methods(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return {"methods": [{"name": n, "doc": m.doc} for n, m in METHODS.items()]}


def _m_available(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.available_devices()


def _m_refresh(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.refresh_devices()


def _m_session_info(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.session_info(_session_param(params))


def _m_open(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.open_session(_session_param(params), _str(params, "device"),
                                   _server_param(params), policy_of(params))


def _m_release(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return server.hub.release_session(_session_param(params))


def _m_tools_list(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    """MCP's ``ListToolsResult`` (``format: "baremobile"``: our rows, ``group`` beside)."""
    policy = policy_of(params)
    tools = tool_list(policy.groups, policy.prefix, allow_eval=server.hub.allow_eval)
    return list_tools_result(tools) if wants_mcp(params) else {"tools": tools}


def _m_tools_call(server: DaemonServer, params: dict[str, Any], pending: Pending) -> Any:
    """Run a tool in a session. MCP's ``CallToolResult`` by default (a tool's failure is a
    result with ``isError``); with ``format: "baremobile"`` the result dict itself, and a
    tool's failure as the response's error (its hint in the words of the client's door,
    ``params.door``). ``params.create`` false: the session must exist already (the CLI's
    named sessions begin with ``open``)."""
    mcp = wants_mcp(params)
    name = params.get("name")
    if not isinstance(name, str):
        raise InvalidArgument("tools/call needs params.name (a tool name)",
                              hint="{list_tools} lists them")
    arguments = params.get("arguments", {})
    session = _session_param(params)
    policy = policy_of(params)
    create = params.get("create", True) is not False
    with reporting(progress_sender(pending) if params.get("progress") is True else None):
        result = server.hub.call_tool(session, name, arguments, policy, create=create,
                                      door=door_of(params))
    if mcp:
        return call_tool_result(result)
    if result.get("ok"):
        return result
    raise ToolFailed(dict(result.get("error", {})), result.get("tool", name))


def _tools_call_floor(server: DaemonServer, params: dict[str, Any]) -> int:
    """The tool's floor, in the session the call runs in (named as ``session`` or
    ``sessionId``, like the call itself)."""
    return server.hub.floor_ms(params.get("name"), params.get("arguments"),
                               _session_param(params), policy_of(params))


def _m_cancel(server: DaemonServer, params: dict[str, Any], conn: Connection) -> Any:
    target = params.get("requestId")
    if target is None or isinstance(target, bool):  # None would hit every id-less request
        raise InvalidArgument("daemon/cancel needs params.requestId: the id of a request of "
                              "this connection", hint="e.g. {\"requestId\": \"r1\"}")
    with conn.lock:
        hits = [p for p in conn.pending if p.req.id == target and not p.answered]
    for p in hits:
        p.cancel("cancelled by the client")
    return {"cancelled": len(hits)}


def _m_resources_list(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return resources.list_resources(server.hub, policy_of(params))


def _m_resource_templates(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    return resources.list_templates()


def _m_resources_read(server: DaemonServer, params: dict[str, Any], pending: Any) -> Any:
    return resources.read_resource(server.hub, params.get("uri"), policy_of(params))


def _m_shutdown(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    server.stop_soon("a client asked (daemon/shutdown)")
    return {"ok": True, "pid": os.getpid()}


METHODS: dict[str, Method] = {
    "daemon/ping": Method(_m_ping, doc="liveness and version"),
    "daemon/status": Method(_m_status, doc="version, uptime, sessions, devices"),
    "daemon/methods": Method(_m_methods, doc="this list"),
    "daemon/availableDevices": Method(_m_available, doc="the pool: devices, states, counts"),
    "daemon/refreshDevices": Method(_m_refresh, device=True,
                                    doc="re-discover devices, re-check those in error"),
    "daemon/openSession": Method(_m_open, device=True,
                                 doc="{sessionId, device?, adbServer?}: give a session a device"),
    "daemon/sessionInfo": Method(_m_session_info, doc="{sessionId}: a session's state"),
    "daemon/releaseSession": Method(_m_release, doc="{sessionId}: free its devices (idempotent)"),
    "daemon/cancel": Method(_m_cancel, doc="{requestId}: cancel a request of this connection"),
    "daemon/shutdown": Method(_m_shutdown, doc="stop the daemon"),
    "tools/list": Method(_m_tools_list, doc="{groups?, prefix?}: the tool table"),
    "tools/call": Method(_m_tools_call, device=True, floor=_tools_call_floor,
                         doc="{name, arguments, session?, groups?, filesDir?, …}: run a tool"),
    "ide/getNavigationGraph": Method(navigation_graph, device=True, doc="{sessionId?}: the "
                                     "session's screens and actions, from its live trace"),
    "resources/list": Method(_m_resources_list, doc="MCP ListResourcesResult: each device's "
                                                    "snapshot, screenshot, info"),
    "resources/list-templates": Method(_m_resource_templates,
                                       doc="MCP ListResourceTemplatesResult"),
    "resources/read": Method(_m_resources_read, device=True,
                             floor=lambda server, params: int(DUMP_S * 1000),
                             doc="{uri}: MCP ReadResourceResult, read from the device now"),
    **{name: Method(handler, device=device, doc=doc)
       for name, (handler, device, doc) in ide.HANDLERS.items()},
}
