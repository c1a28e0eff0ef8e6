"""AutoMobile's endpoint: a socket at AutoMobile's path, beside our own, speaking its
vocabulary — so a client written from AutoMobile's socket document
(``shared/reference/automobile-daemon-socket-api.md``) works against ours unchanged.

``baremobile daemon start --automobile`` (or ``$BAREMOBILE_DAEMON_AUTOMOBILE=1`` in the
daemon's environment) opens it at ``$AUTOMOBILE_DAEMON_SOCKET_PATH``, else
``$AUTO_MOBILE_DAEMON_SOCKET_PATH``, else ``/tmp/auto-mobile-daemon-<uid>.sock`` — and
writes AutoMobile's pid file beside it (``$AUTOMOBILE_DAEMON_PID_FILE_PATH`` /
``$AUTO_MOBILE_DAEMON_PID_FILE_PATH`` / ``/tmp/auto-mobile-daemon-<uid>.pid``:
``{pid, socketPath, port, startedAt, version}``). A socket some process answers on (a real
AutoMobile daemon) is never replaced: the daemon refuses to start, saying so; a dead one's
file is. The socket is created 0600 and its peers are checked as on ours.

On that endpoint (the envelope, every method and our own names stay as on our socket):

* ``tools/list`` lists AutoMobile's tools with its schemas (the aliases of
  :mod:`baremobile.tools.table.automobile`; ``getNavigationGraph`` too while the ``debug``
  flag is on, as AutoMobile lists its debug-only tools);
* ``tools/call`` takes AutoMobile's names and arguments: the session is
  ``arguments.sessionUuid`` (``default`` without one); a new session is handed a free
  device by the pool (with several, the one given back last, else the least recently used:
  never ``MULTIPLE_DEVICES_DEVICE_ID_REQUIRED``) and exists from then on, whatever its first
  tool does; the answer is AutoMobile's ``CallToolResult`` (its payload as JSON in
  ``content[0].text``, and as ``structuredContent`` where AutoMobile gives an output
  schema); a tool that fails answers as AutoMobile's thrown errors do, ``success: false``
  with ``error: "MCP error -32603: <message>"`` (our ``code`` and ``hint`` beside); a host
  file a tool names by absolute path (``installApp``'s ``apkPath``) is the client's to name
  (peers are this user's processes);
* ``daemon/sessionInfo`` / ``daemon/releaseSession`` need ``sessionId`` and word their
  answers as AutoMobile's (``Session not found: <id>``, ``alreadyReleased``);
  ``daemon/heartbeat {sessionId}`` counts as a use of the session;
* ``ide/status`` gives AutoMobile's service objects (their fields null: there is no
  on-device service); ``ide/listFeatureFlags`` / ``ide/setFeatureFlag`` have AutoMobile's
  ``debug`` flag beside ours;
* an unknown method answers ``Unsupported daemon method: <method>``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import time
from typing import TYPE_CHECKING, Any

from baremobile.daemon import ide, paths
from baremobile.daemon.errors import DaemonError, SessionNotFound, ToolFailed
from baremobile.daemon.mcp_shapes import call_tool_result
from baremobile.daemon.methods import METHODS as OURS
from baremobile.daemon.methods import Method
from baremobile.daemon.navigation import graph_result
from baremobile.daemon.sessions import Policy
from baremobile.errors import BaremobileError, InvalidArgument
from baremobile.tools.aliases import alias_for, listed, resolve
from baremobile.tools.spec import TOOLS
from baremobile.tools.table import ALIASES

if TYPE_CHECKING:
    from baremobile.daemon.server import DaemonServer

__all__ = ["ENV_ENABLE", "ENV_PID", "ENV_SOCKET", "METHODS", "VOCABULARY", "Endpoint",
           "pid_path", "socket_path"]

VOCABULARY = "automobile"
ENV_ENABLE = "BAREMOBILE_DAEMON_AUTOMOBILE"
#: AutoMobile's variables, the first set wins (``src/daemon/constants.ts``)
ENV_SOCKET = ("AUTOMOBILE_DAEMON_SOCKET_PATH", "AUTO_MOBILE_DAEMON_SOCKET_PATH")
ENV_PID = ("AUTOMOBILE_DAEMON_PID_FILE_PATH", "AUTO_MOBILE_DAEMON_PID_FILE_PATH")
#: AutoMobile's debug-only tool, served by the daemon (its graph is the daemon's)
GRAPH_TOOL = "getNavigationGraph"

_ROWS = {t.name: t for t in TOOLS}


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def _from_env(names: tuple[str, ...], default: str) -> str:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return os.path.abspath(os.path.expanduser(value))
    return default


def socket_path() -> str:
    """AutoMobile's socket path: its variables, else ``/tmp/auto-mobile-daemon-<uid>.sock``
    (``/tmp`` itself, as AutoMobile hard-codes it)."""
    path = _from_env(ENV_SOCKET, f"/tmp/auto-mobile-daemon-{_uid()}.sock")
    if len(os.fsencode(path)) > paths.MAX_SOCKET_PATH:
        raise DaemonError(f"the AutoMobile socket path is {len(os.fsencode(path))} bytes "
                          f"long; Unix sockets allow {paths.MAX_SOCKET_PATH}: {path}",
                          hint=f"set ${ENV_SOCKET[0]} to a shorter path")
    return path


def pid_path() -> str:
    """AutoMobile's pid file: its variables, else ``/tmp/auto-mobile-daemon-<uid>.pid``."""
    return _from_env(ENV_PID, f"/tmp/auto-mobile-daemon-{_uid()}.pid")


def _answers(path: str) -> bool:
    """Whether some process accepts connections on the socket ``path`` (1 s probe, as
    AutoMobile's clients probe)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


class Endpoint:
    """The listening socket at AutoMobile's path, and AutoMobile's pid file."""

    def __init__(self, path: str | None = None, pid_file: str | None = None) -> None:
        self.path = path or socket_path()
        self.pid_file = pid_file or pid_path()
        self.listener: socket.socket | None = None
        self._inode: int | None = None

    def open(self, version: str) -> socket.socket:
        """Listen at the path (never over a live socket: :class:`DaemonError`) and write
        the pid file."""
        path = self.path
        if _answers(path):
            raise DaemonError(f"a daemon already answers on {path} (AutoMobile's socket): "
                              "baremobile leaves it be",
                              hint=f"stop that daemon, or point ${ENV_SOCKET[0]} at another "
                                   "path for this one")
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None:  # a dead daemon's socket: replace it, if it is ours
            if not stat.S_ISSOCK(st.st_mode) or st.st_uid != _uid():
                what = "is not a socket" if not stat.S_ISSOCK(st.st_mode) else \
                    f"belongs to uid {st.st_uid}"
                raise DaemonError(f"refusing to replace {path}: it {what}",
                                  hint=f"remove it, or set ${ENV_SOCKET[0]} to another path")
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, mode=0o700, exist_ok=True)
        listener, self._inode = paths.bind_private(path)  # born 0600, as ours
        try:
            paths.write_json(self.pid_file, {
                "pid": os.getpid(), "socketPath": path, "port": None,
                "startedAt": int(time.time() * 1000), "version": version,
                "server": "baremobile"})
        except BaremobileError:
            listener.close()
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        listener.listen(64)
        self.listener = listener
        return listener

    def close(self) -> None:
        """Stop listening; remove the socket and the pid file if they are still ours."""
        if self.listener is not None:
            with contextlib.suppress(OSError):
                self.listener.close()
            self.listener = None
        paths.unlink_if_ours(self.path, self._inode)
        with contextlib.suppress(OSError, ValueError):
            with open(self.pid_file, encoding="utf-8") as fh:
                mine = json.load(fh).get("pid") == os.getpid()
            if mine:
                os.unlink(self.pid_file)

    def describe(self) -> dict[str, Any]:
        return {"socket": self.path, "pidFile": self.pid_file}


# -- the methods, as AutoMobile answers them -----------------------------------------------


def _session_of(arguments: dict[str, Any]) -> str:
    value = arguments.get("sessionUuid")
    if value is None:
        return "default"
    if not isinstance(value, str) or not value:
        raise InvalidArgument("sessionUuid must be a non-empty string")
    return value


def _call_params(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name = params.get("name")
    arguments = params.get("arguments", {})
    if not isinstance(name, str) or not name:
        raise InvalidArgument("tools/call requires params.name (a tool name)",
                              hint="tools/list lists them")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidArgument("tools/call: params.arguments must be an object")
    return name, arguments


def _policy(name: str, arguments: dict[str, Any]) -> Policy:
    """The limits of an AutoMobile client's call: the pool picks its device; a host file it
    names by absolute path is its to name (the directory is the call's files directory)."""
    files_dir = None
    try:
        found = resolve(name, dict(arguments), _ROWS, ALIASES, prefer=VOCABULARY)
    except BaremobileError:
        found = None  # the call says what is wrong
    if found is not None:
        for key in _ROWS[found.name].host_paths:
            value = found.args.get(key)
            if isinstance(value, str) and os.path.isabs(value):
                files_dir = os.path.dirname(value)
    return Policy(choose_device=True, files_dir=files_dir)


def _answer(name: str, arguments: dict[str, Any], result: dict[str, Any],
            session: str = "default", pool: dict[str, int] | None = None) -> dict[str, Any]:
    """AutoMobile's ``CallToolResult`` for one call's result (``pool``: the pool's counts,
    for AutoMobile's words when it had no device for the session)."""
    if result.get("ok") is False:  # a failure: AutoMobile's tools throw, its server words it
        error = dict(result.get("error") or {})
        message = error.get("message", "")
        if error.get("code") == "UNKNOWN_TOOL":
            message = f"Unknown tool: {name}"
        elif error.get("code") in ("SESSION_NOT_OPEN", "NO_FREE_DEVICE") and pool:
            message = (f"No devices in pool to assign to session {session}.\nDevice pool "
                       f"status:\n  Total devices: {pool['total']}\n  Idle: {pool['idle']}"
                       f"\n  Assigned: {pool['assigned']}\n  Error: {pool['error']}")
        raise ToolFailed({**error, "message": f"MCP error -32603: {message}"}, name)
    alias = alias_for(name, arguments, _ROWS, ALIASES, VOCABULARY)
    if alias is None or alias.system != VOCABULARY:
        return call_tool_result(result)  # one of our own tools: our MCP shape
    out: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(
        result, indent=2, ensure_ascii=False)}]}
    if alias.output is not None:
        out["structuredContent"] = result
    if result.get("success") is False:
        out["isError"] = True
    return out


def _m_tools_call(server: DaemonServer, params: dict[str, Any], pending: Any) -> Any:
    name, arguments = _call_params(params)
    session = _session_of(arguments)
    hub = server.hub
    if name == GRAPH_TOOL:
        with contextlib.suppress(InvalidArgument):
            return graph_result(hub.session(session).graph)
        return graph_result(hub.graph)
    result = hub.call_tool(session, name, arguments, _policy(name, arguments), door="tools",
                           vocabulary=VOCABULARY, keep=True)
    return _answer(name, arguments, result, session, hub.pool.stats())


def _tools_call_floor(server: DaemonServer, params: dict[str, Any]) -> int:
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(arguments, dict):
        arguments = {}
    session = arguments.get("sessionUuid") if isinstance(arguments.get("sessionUuid"),
                                                          str) else "default"
    return server.hub.floor_ms(name, arguments, session, Policy(choose_device=True),
                               vocabulary=VOCABULARY)


_GRAPH_SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                 "properties": {"platform": {"type": "string", "enum": ["android", "ios"]},
                                "sessionUuid": {"type": "string"},
                                "keepScreenAwake": {"type": "boolean"},
                                "device": {"type": "string"}, "deviceId": {"type": "string"}},
                 "additionalProperties": False}


def _m_tools_list(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    tools = listed(ALIASES, VOCABULARY)
    if server.automobile_debug:
        tools.append({"name": GRAPH_TOOL, "description": "Get the navigation graph "
                      "(screens and transitions seen)", "inputSchema": _GRAPH_SCHEMA,
                      "_meta": {"automobile/debugOnly": True}})
    return {"tools": tools}


def _session_id(params: dict[str, Any]) -> str:
    value = params.get("sessionId")
    if not isinstance(value, str) or not value:
        raise InvalidArgument("sessionId parameter required")
    return value


def _m_session_info(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    name = _session_id(params)
    try:
        return server.hub.session_info(name)
    except InvalidArgument:  # none of that name (or a name no session could have)
        raise SessionNotFound(f"Session not found: {name}") from None


def _m_release(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    name = _session_id(params)
    try:
        return server.hub.release_session(name)
    except InvalidArgument:
        return {"message": f"Session {name} already released or never existed",
                "alreadyReleased": True}


def _m_heartbeat(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    name = _session_id(params)
    with contextlib.suppress(InvalidArgument):
        server.hub.heartbeat(name)
    return {"sessionId": name}


_NO_SERVICE = {"expectedSha256": None, "url": None}


def _m_status(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    out = ide.HANDLERS["ide/status"][0](server, params, conn)
    return {**out, "android": {"accessibilityService": dict(_NO_SERVICE),
                               "ctrlProxy": dict(_NO_SERVICE)},
            "ios": {"xcTestService": {**_NO_SERVICE, "expectedAppHash": None}}}


def _debug_flag(server: DaemonServer) -> dict[str, Any]:
    return {"key": "debug", "label": "Debug mode", "enabled": server.automobile_debug,
            "config": None, "description": "AutoMobile's debug mode: tools/list also lists "
                                           "getNavigationGraph"}


def _m_list_flags(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    out = ide.HANDLERS["ide/listFeatureFlags"][0](server, params, conn)
    return {**out, "flags": [*out["flags"], _debug_flag(server)]}


def _m_set_flag(server: DaemonServer, params: dict[str, Any], conn: Any) -> Any:
    if params.get("key") != "debug":
        return ide.HANDLERS["ide/setFeatureFlag"][0](server, params, conn)
    if not isinstance(params.get("enabled"), bool):
        raise InvalidArgument("setFeatureFlag requires 'key' (string) and 'enabled' "
                              "(boolean) params")
    server.automobile_debug = params["enabled"]
    return _debug_flag(server)


#: the methods on the AutoMobile endpoint: ours, with AutoMobile's meaning where it differs
METHODS: dict[str, Method] = {
    **OURS,
    "tools/list": Method(_m_tools_list, doc="AutoMobile's tools, with its schemas"),
    "tools/call": Method(_m_tools_call, device=True, floor=_tools_call_floor,
                         doc="{name, arguments}: an AutoMobile tool (arguments.sessionUuid: "
                             "the session)"),
    "daemon/sessionInfo": Method(_m_session_info, doc="{sessionId}: a session's state"),
    "daemon/releaseSession": Method(_m_release, doc="{sessionId}: free its device"),
    "daemon/heartbeat": Method(_m_heartbeat, doc="{sessionId}: the client is alive"),
    "ide/status": Method(_m_status, doc="version; AutoMobile's service objects (null)"),
    "ide/listFeatureFlags": Method(_m_list_flags, doc="the flags, AutoMobile's debug too"),
    "ide/setFeatureFlag": Method(_m_set_flag, doc="{key, enabled, config?}"),
}
