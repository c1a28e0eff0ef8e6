"""``baremobile mcp``: the tool table served over MCP with the official Python SDK (``[mcp]``).

* stdio by default (stdout carries only the protocol; logs go to stderr or ``--log-file``);
* streamable HTTP with ``--http HOST:PORT`` (``--http PORT`` binds 127.0.0.1), every request
  needing ``Authorization: Bearer <token>`` — the token comes from ``$BAREMOBILE_MCP_TOKEN``
  (or the variable ``--token-env`` names) or is generated and printed to stderr;
* it starts with no device: ``devices`` and ``configure`` always work, device tools answer
  ``NO_DEVICES`` / ``MULTIPLE_DEVICES_DEVICE_ID_REQUIRED`` / ``DEVICE_UNAUTHORIZED`` as data
  until a device is reachable (or named by ``device`` / ``configure``);
* two calls on one device never interleave: the second answers ``BUSY``;
* tool failures are ``isError`` results whose text says code, message and hint, with the
  same data in ``structuredContent``; ``screenshot`` answers MCP image content;
* a call the client cancels (``notifications/cancelled``, or one still running at
  shutdown) is cancelled at once: its device I/O is aborted (no lock is waited for, so no
  other request stalls), the device is free again and the next call reconnects;
* host files only inside ``--files-dir``; scenario files and device specs only as the
  operator allows (``--allow-scenarios``, ``--allow-device``); the ``eval`` tool (JavaScript
  in the app's page) only with ``--allow-eval``, which lists it (``--groups all`` does not);
* logs never hold typed text (``type`` calls are logged with its length only, unless
  ``--log-typed-text``), and ``--log-file`` is created readable by its owner only (0600).

Built on the SDK's low-level ``Server`` (not FastMCP): the tool table already has
JSON schemas, so tools/list serves them as they are and tools/call goes to
:func:`baremobile.tools.call` — one dispatcher for every adapter.
"""

from __future__ import annotations

import argparse
import functools
import hmac
import ipaddress
import json
import logging
import os
import re
import secrets
import socket
import stat
import sys
from typing import Any

import anyio

try:
    import mcp_types as types
    from mcp.server.lowlevel import Server
except ImportError as _exc:  # mcp 1.x has no mcp_types and a decorator-based Server
    import importlib.metadata as _md

    try:
        _found = f"mcp {_md.version('mcp')} is installed"
    except _md.PackageNotFoundError:
        _found = "mcp is not installed"
    raise ImportError(f"the MCP server needs mcp>=2.3 ({_found}): "
                      "pip install 'baremobile[mcp]'") from _exc

from baremobile.calls import start
from baremobile.errors import InvalidArgument
from baremobile.tools import aliases, render, resources
from baremobile.tools.dispatch import answerable, call
from baremobile.tools.mcp_stdin import REFUSED, ClientLines, claimed_stdin
from baremobile.tools.redact import redacted
from baremobile.tools.schemas import check_prefix
from baremobile.tools.session import Session
from baremobile.tools.spec import select
from baremobile.tools.table import ALIASES, clawperator

__all__ = ["VOCABULARIES", "BearerAuth", "build_server", "device_resources", "mcp_result",
           "mcp_tools", "parse_http", "read_device_resource", "resource_templates", "run",
           "transport_security", "vocabulary_result"]

log = logging.getLogger("baremobile.mcp")

INSTRUCTIONS = (
    "Drive an Android device. Start with the snapshot tool: it lists the screen, one element "
    "per line, and what you can act on carries [ref=N]. Act with tap / type / scroll / press "
    "using those refs (or a selector such as {\"text\": \"OK\"}); an element keeps its ref "
    "while it stays on screen, so take a new snapshot (diff=true: only what changed) after "
    "the screen changes. Errors come back with a code and "
    "a hint saying what to do next. With several devices, pass device (see the devices tool) "
    "or set it once with configure."
)


def mcp_result(result: dict[str, Any]) -> types.CallToolResult:
    """A :func:`~baremobile.tools.call` result as an MCP ``CallToolResult``
    (:func:`baremobile.tools.render.call_result`, the same at every door). A result the
    protocol could not carry (:func:`~baremobile.tools.dispatch.answerable`) becomes an
    ``INTERNAL_ERROR`` result: the server's writer never meets text it cannot encode."""
    return types.CallToolResult.model_validate(render.call_result(answerable(result)))


def refused_call(arguments: Any) -> dict[str, Any]:
    """The answer to a call :mod:`~baremobile.tools.mcp_stdin` refused (its arguments say
    what held a lone surrogate)."""
    args = arguments if isinstance(arguments, dict) else {}
    return {"ok": False, "tool": str(args.get("tool") or "?"), "error": {
        "code": "INVALID_ARGUMENT", "category": "INVALID_ARGUMENT",
        "message": f"the call cannot be used: {args.get('why', 'it holds a lone surrogate')}"
                   "; nothing was sent",
        "hint": "send well-formed text: a character outside the BMP whole, not one half of "
                "a UTF-16 surrogate pair"}}


def mcp_tools(groups: Any = (), prefix: str = "") -> tuple[list[str], list[types.Tool]]:
    """(the group names, the MCP tool definitions) of core + ``configure`` + ``groups``,
    names prefixed — the one renderer's menu (:func:`baremobile.tools.render.menu`), the
    same this server, ``baremobile mcp --daemon`` and the daemon list."""
    check_prefix(prefix)
    group_names = ["session", *_group_list(groups)]
    return group_names, [types.Tool.model_validate(t)
                         for t in render.menu(select(group_names), prefix)]


#: the systems whose clients a door can speak to in their own words (``--vocabulary``):
#: the module holding their aliases, their answers (``render``) and the groups they need
VOCABULARIES = {"clawperator": clawperator}


def vocabulary_result(result: dict[str, Any], vocabulary: str) -> types.CallToolResult:
    """A :func:`~baremobile.tools.call` result as ``vocabulary``'s server answers it
    (raises the JSON-RPC error it answers instead, where it does)."""
    from mcp.shared.exceptions import MCPError

    out = VOCABULARIES[vocabulary].render(answerable(result))
    if "jsonrpc_error" in out:
        err = out["jsonrpc_error"]
        raise MCPError(err["code"], err["message"], data=err.get("data"))
    return types.CallToolResult.model_validate(out)


def build_server(session: Session, *, groups: Any = (), prefix: str = "",
                 log_typed_text: bool = False, vocabulary: str | None = None
                 ) -> Server[Any]:
    """The MCP server for ``session``: core + ``configure`` + ``groups``, names prefixed.
    Calls are logged with typed text as its length, unless ``log_typed_text``. With a
    ``vocabulary`` (:data:`VOCABULARIES`) it speaks that system: lists its tools and
    answers in its shapes (our tools are still called by their names)."""
    from baremobile import __version__

    group_names, tools = mcp_tools(groups, prefix)
    if vocabulary is not None:
        tools = [types.Tool.model_validate(t) for t in aliases.listed(ALIASES, vocabulary)]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments
        if name == REFUSED:  # a line holding a lone surrogate (mcp_stdin): refused as data
            return mcp_result(refused_call(arguments))
        log.info("call %s %s", name,
                 _short(arguments if log_typed_text else redacted(name, arguments, prefix)))
        # on a thread of its own (baremobile.calls): a cancelled request (or shutdown) cancels
        # its token, which aborts the device I/O it is blocked in at once and frees the device
        work = start(lambda: call(session, name, arguments, groups=group_names, prefix=prefix,
                                  vocabulary=vocabulary),
                     f"{name} (MCP)", name="baremobile-mcp-call")
        try:
            result = await work.wait("the client cancelled the request")
        except anyio.get_cancelled_exc_class():
            if work.cancelled:
                log.info("%s cancelled: aborted its device I/O", name)
            raise
        if not result["ok"]:
            log.info("%s -> %s", name, result["error"]["code"])
        if vocabulary is not None:
            return vocabulary_result(result, vocabulary)
        return mcp_result(result)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=device_resources(session))

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=resource_templates())

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        return await start(
            lambda: read_device_resource(session, str(params.uri), group_names, prefix),
            "a resource (MCP)", name="baremobile-mcp-resource").wait(
            "the client cancelled the request")

    return Server(
        "baremobile",
        version=__version__,
        title="baremobile — Android for agents",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def device_resources(session: Session) -> list[types.Resource]:
    """The resources every door serves (:mod:`baremobile.tools.resources`): the devices,
    and each connected device's snapshot, screenshot and info, read fresh on every
    ``resources/read``."""
    serials = {p.serial for p in session.pages().values()}
    return [types.Resource.model_validate(r) for r in resources.listed(
        serials, "the devices within reach and this session's (the devices tool)")]


def resource_templates() -> list[types.ResourceTemplate]:
    """How to name any device's resources."""
    return [types.ResourceTemplate.model_validate(t) for t in resources.templates()]


def read_device_resource(session: Session, uri: str, groups: Any, prefix: str
                         ) -> types.ReadResourceResult:
    """Read one resource through the tools: the device lock, the errors and the session's
    limits (the one gate, :meth:`Session.check_allowed`) are a tool call's."""
    from mcp.shared.exceptions import MCPError

    def run(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return call(session, prefix + tool, args, groups="all", prefix=prefix)

    def devices() -> Any:
        found = call(session, prefix + "devices", {}, prefix=prefix)
        return {k: v for k, v in found.items() if k not in ("ok", "tool")}

    try:
        contents = resources.read(uri, run, devices)
    except InvalidArgument as exc:  # no such resource
        raise MCPError(types.INVALID_PARAMS, f"{exc.code}: {exc.message}",
                       data={"code": exc.code, "hint": exc.hint}) from None
    except resources.ToolError as exc:
        code = types.INVALID_PARAMS if exc.error.get("category") == "INVALID_ARGUMENT" else \
            types.INTERNAL_ERROR
        raise MCPError(code, f"{exc.error.get('code')}: {exc.error.get('message')}",
                       data=exc.error) from None
    return types.ReadResourceResult.model_validate({"contents": contents})


def _group_list(groups: Any) -> list[str]:
    if isinstance(groups, str):
        return [g.strip() for g in groups.split(",") if g.strip()]
    return list(groups or ())


def operator_groups(args: argparse.Namespace) -> list[str]:
    """The groups ``--groups`` names, with ``eval`` when ``--allow-eval`` allows it (and
    only then: naming it without the switch is refused)."""
    groups = _group_list(args.groups)
    allow = bool(getattr(args, "allow_eval", False))
    if "eval" in groups and not allow:
        raise InvalidArgument(
            "--groups eval runs JavaScript in the app's page: it needs --allow-eval",
            hint="add --allow-eval (it lists the eval tool by itself), or leave eval out")
    return [*groups, "eval"] if allow and "eval" not in groups else groups


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, default=str)  # ASCII: a log line never fails to encode
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__} that is not JSON>"
    return text if len(text) <= 200 else text[:197] + "..."


# ---------------------------------------------------------------------------------------
# HTTP: bearer token, binding
# ---------------------------------------------------------------------------------------


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>`` (401 else).

    A request with no ``Accept`` header is passed on as accepting anything (``*/*``), as HTTP
    says it does (RFC 9110 §12.5.1): the SDK's transport would answer it 406, and clients
    that send single JSON requests (``curl``, Android Remote Control's) need not say."""

    def __init__(self, app: Any, token: str) -> None:
        if not token:
            raise ValueError("an empty token would let anyone in")
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = b""
            accept = False
            for key, value in scope.get("headers", ()):
                name = key.lower()
                if name == b"authorization" and not given:
                    given = value
                elif name == b"accept":
                    accept = True
            scheme, _, credential = given.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(credential.strip(),
                                                                      self._token):
                body = json.dumps({
                    "error": "unauthorized",
                    "message": "missing or wrong bearer token",
                    "hint": "send 'Authorization: Bearer <token>' (the token baremobile mcp "
                            "printed, or $BAREMOBILE_MCP_TOKEN)",
                }).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="baremobile-mcp"'),
                ]})
                await send({"type": "http.response.body", "body": body})
                return
            if not accept:
                scope = {**scope, "headers": [*scope.get("headers", ()), (b"accept", b"*/*")]}
        await self.app(scope, receive, send)


#: the names a loopback server is reached by
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _machine_names() -> list[str]:
    """The names and addresses this computer is reached by (best effort): its host name,
    fully qualified name and the addresses they resolve to."""
    names: list[str] = []
    for name in (socket.gethostname(), socket.getfqdn()):
        if name and name not in names:
            names.append(name)
        try:
            found = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
        except OSError:
            continue
        for *_, addr in found:
            if addr[0] not in names:
                names.append(str(addr[0]))
    return names


def _host_form(host: str) -> str:
    """``host`` as a ``Host`` header spells it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def transport_security(host: str, allow_hosts: Any = ()) -> Any:
    """The ``Host`` / ``Origin`` checks (DNS-rebinding protection) for a server bound to
    ``host`` — on every bind, not only loopback ones (where the SDK adds its own): requests
    must name this server as ``Host`` (421 else), and a browser's ``Origin`` must be one of
    those names (403 else). The names: loopback ones; the bound address; for a wildcard bind
    (``0.0.0.0``, ``::``) this computer's names and addresses; and each of ``allow_hosts``
    (``--allow-host``: a tunnel's or a reverse proxy's name), each with any port."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(_LOOPBACK)
    if host in ("0.0.0.0", "::", ""):
        names.extend(_machine_names())
    else:
        names.append(host)
    for extra in allow_hosts or ():
        extra = extra.strip()
        if not extra or any(c in extra for c in "/ \t*"):
            raise InvalidArgument(f"--allow-host {extra!r} is not a host name",
                                  hint="give the name clients use in their URL, e.g. "
                                       "--allow-host phone-bridge.example.org")
        names.append(extra)
    hosts: list[str] = []
    origins: list[str] = []
    for name in dict.fromkeys(_host_form(n) for n in names):
        hosts += [name, f"{name}:*"]
        origins += [f"{scheme}://{name}{port}" for scheme in ("http", "https")
                    for port in ("", ":*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=hosts, allowed_origins=origins)


_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\s\[\]]*))"
                        r":(?P<port>\d{1,5})\Z")


def parse_http(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[::1]:PORT``, ``:PORT`` or ``PORT`` → (host, port); host defaults to
    127.0.0.1. Port 0 picks a free one."""
    text = value.strip()
    if text.isdigit():
        text = ":" + text
    m = _HOST_PORT.match(text)
    if not m or int(m.group("port")) > 65535:
        raise InvalidArgument(f"--http {value!r} is not HOST:PORT",
                              hint="e.g. --http 127.0.0.1:8765 or --http 8765")
    return (m.group("v6") or m.group("host") or "127.0.0.1"), int(m.group("port"))


def _say(message: str) -> None:
    """A line for the person who started the server: stderr, never stdout."""
    print(message, file=sys.stderr, flush=True)


async def serve_http(server: Server[Any], host: str, port: int, token: str,
                     json_response: bool = False, *, stateless: bool = False,
                     allow_hosts: Any = ()) -> None:
    """Streamable HTTP on ``host:port`` behind the bearer ``token`` and the Host/Origin
    checks (:func:`transport_security`); ``json_response``: every reply is one JSON body
    (``application/json``), never an SSE stream — for clients that do not read SSE
    (``--json-response``). ``stateless`` (``--stateless``, JSON replies): no session — every
    POST stands alone and needs no ``initialize`` first (clients that send single
    requests, as Android Remote Control's do); the SDK's clients work as well."""
    import uvicorn

    security = transport_security(host, allow_hosts)
    app = BearerAuth(server.streamable_http_app(
        host=host, json_response=json_response or stateless, stateless_http=stateless,
        transport_security=security), token)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    _say(f"baremobile MCP server: http://{shown}:{bound}/mcp")
    if stateless:
        _say("stateless: every POST stands alone (no session, no initialize needed)")
    if not _is_loopback(host):
        names = sorted({h for h in security.allowed_hosts if not h.endswith(":*")})
        _say(f"accepting requests whose Host is one of: {', '.join(names)} "
             "(add others with --allow-host NAME)")
    config = uvicorn.Config(app, log_config=None, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=2)
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        sock.close()


async def serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    if _stdin_is_terminal():
        _say("baremobile MCP server: waiting for an MCP client on stdin/stdout "
             "(it is meant to be started by one; Ctrl-C stops it)")
    with claimed_stdin() as fd:  # our reader: no blocking thread, every request answerable
        stdin = ClientLines(fd) if fd is not None else None
        # mcp annotates stdin as anyio.AsyncFile[str]; it only iterates it (async for),
        # which ClientLines does
        async with stdio_server(stdin=stdin) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())


def _stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


# ---------------------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------------------


def _setup_logging(log_file: str | None, verbose: bool) -> None:
    root = logging.getLogger()
    # stdout is the protocol channel: no handler may write there
    for h in list(root.handlers):
        if getattr(h, "stream", None) is sys.stdout:
            root.removeHandler(h)
    if not any(isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) is sys.stderr
               for h in root.handlers) and not log_file:
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.INFO if verbose else logging.WARNING)
        root.addHandler(handler)
    if log_file:
        fh = logging.StreamHandler(_private_log(log_file))
        fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        fh.setLevel(logging.INFO)
        root.addHandler(fh)
        for h in root.handlers:
            if h is not fh and isinstance(h, logging.StreamHandler):
                h.setLevel(logging.INFO if verbose else logging.WARNING)
    root.setLevel(logging.INFO if (verbose or log_file) else logging.WARNING)


def _private_log(path: str) -> Any:
    """``path`` opened for appending, created 0600 (an existing file of ours is made
    0600 too: a log may hold device names, paths and screen text)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError as exc:
        raise InvalidArgument(f"--log-file {path!r} cannot be opened: "
                              f"{exc.strerror or exc}", hint="give a writable file path") \
            from None
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077 and \
            hasattr(os, "fchmod") and st.st_uid == os.getuid():
        os.fchmod(fd, 0o600)
    return os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace")  # any text logs


def run(args: argparse.Namespace) -> int:
    """``baremobile mcp`` (the parsed arguments of the ``mcp`` sub-command)."""
    _setup_logging(getattr(args, "log_file", None), getattr(args, "verbose", False))
    prefix = command_prefix(args)
    groups = operator_groups(args)
    vocabulary = getattr(args, "vocabulary", None)
    if vocabulary is not None:
        groups = [*groups, *VOCABULARIES[vocabulary].GROUPS]  # the rows its tools run
    session = Session(args.device, files_dir=getattr(args, "files_dir", None),
                      allow_devices=getattr(args, "allow_device", None) or None,
                      allow_scenarios=getattr(args, "allow_scenarios", False),
                      allow_eval=getattr(args, "allow_eval", False))
    changes: dict[str, Any] = {}
    if getattr(args, "observe", False):
        changes["observe"] = True
    if getattr(args, "settle", None) is not None:
        changes["settle"] = args.settle
    if getattr(args, "max_chars", None) is not None:
        changes["max_chars"] = args.max_chars
    if changes:
        session.configure(**changes)
    server = build_server(session, groups=groups, prefix=prefix,
                          log_typed_text=getattr(args, "log_typed_text", False),
                          vocabulary=vocabulary)
    try:
        serve(server, args)
    finally:
        session.close()
    return 0


def command_prefix(args: argparse.Namespace) -> str:
    """The tool-name prefix ``--prefix`` / ``--slug`` ask for (checked)."""
    prefix = args.prefix or ""
    slug = getattr(args, "slug", None)
    if slug:
        prefix = f"android_{slug}_"
    check_prefix(prefix)
    return prefix


def serve(server: Server[Any], args: argparse.Namespace) -> None:
    """Serve ``server`` over stdio, or streamable HTTP with ``--http`` (until stopped)."""
    try:
        if args.http:
            host, port = parse_http(args.http)
            env = args.token_env or "BAREMOBILE_MCP_TOKEN"
            token = os.environ.get(env, "").strip()
            if not token:
                token = secrets.token_urlsafe(32)
                _say(f"baremobile MCP bearer token (set ${env} to choose your own): {token}")
            if host not in ("127.0.0.1", "localhost", "::1"):
                _say(f"warning: serving on {host}: anyone who can reach it and has the token "
                     "controls the device")
            anyio.run(functools.partial(
                serve_http, server, host, port, token,
                bool(getattr(args, "json_response", False)),
                stateless=bool(getattr(args, "stateless", False)),
                allow_hosts=getattr(args, "allow_host", None) or ()))
        else:
            for flag in ("stateless", "allow_host"):
                if getattr(args, flag, None):
                    raise InvalidArgument(
                        f"--{flag.replace('_', '-')} is for the HTTP server",
                        hint="add --http HOST:PORT (stdio has no sessions and no Host)")
            if _stdin_is_terminal():
                _stop_within(CTRL_C_GRACE)
            anyio.run(serve_stdio, server)
    except KeyboardInterrupt:
        pass


#: Seconds a Ctrl-C'd server on a terminal may take to wind down before it is ended.
CTRL_C_GRACE = 3.0


def _stop_within(seconds: float) -> None:
    """Ctrl-C on a terminal stops the server within ``seconds`` whatever it was doing: the
    interrupt unwinds as usual (tasks cancelled, the session closed), and a timer ends the
    process with status 0 should anything — a worker thread in a blocking call, a task that
    does not take cancellation — hold the exit up. A second Ctrl-C is the default one."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def on_interrupt(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        timer = threading.Timer(seconds, os._exit, args=(0,))
        timer.daemon = True
        timer.start()
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_interrupt)
