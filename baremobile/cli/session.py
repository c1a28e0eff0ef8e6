"""Session mode: every tool of the table as a shell command, each a thin client of the daemon.

    baremobile open [-d DEVICE]          a device for this session (a free one of the pool)
    baremobile snapshot                  the screen; also saved to .baremobile/page-<n>.yml
    baremobile tap 5                     act with a ref from that snapshot …
    baremobile type 3 "hello" --submit   … or a selector: tap --text OK
    baremobile press back
    baremobile close                     give the device back

The session (``--session NAME``, else ``$BAREMOBILE_SESSION``, else ``default``) lives in
the daemon, so the refs of one command's snapshot are there for the next command. The
daemon starts on the first command and stops when idle. ``--no-daemon`` runs one command in
this process instead (no session: refs do not outlive it). ``--json`` prints the result
object for programs. Every tool of the table is a command (:mod:`baremobile.cli.commands`
makes them from the table's compact copy); ``call TOOL JSON`` calls any tool with raw
arguments.

This module is on the fast path of every command: it imports the daemon's client and the
standard library, never the device stack (the tool table itself is imported only for
``--no-daemon``).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable

from baremobile.cli import output
from baremobile.errors import BaremobileError, InvalidArgument

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DAEMON_COMMANDS", "ENV_SESSION", "add_commands", "add_common", "tool_request"]

ENV_SESSION = "BAREMOBILE_SESSION"

#: The commands that are not a tool of the table (or that the daemon answers from its pool:
#: ``devices``), with their help; every other session command is a tool's
#: (:mod:`baremobile.cli.commands`).
DAEMON_COMMANDS: dict[str, str] = {
    "open": "give this session a device: -d DEVICE (virtual:new: a fresh virtual phone of "
            "its own), else a free one of the pool",
    "close": "end this session: its device goes back to the pool",
    "session": "show this session: device, refs, settings",
    "devices": "the daemon's device pool, re-discovered (--no-daemon: discovery)",
    "tools": "list every tool and its command",
    "call": "call any tool with JSON arguments: call logcat '{\"lines\": 50}'",
}


# ---------------------------------------------------------------------------------------
# parsers
# ---------------------------------------------------------------------------------------


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_common(p: argparse.ArgumentParser, *, top: bool) -> None:
    """``--session``, ``--json``, ``--no-daemon``, ``--timeout-ms``: accepted before the
    command (``top``) and after it (then only when given, so they never undo the first)."""
    dflt: Callable[[Any], Any] = (lambda v: v) if top else (lambda v: argparse.SUPPRESS)
    p.add_argument("--session", default=dflt(None), metavar="NAME",
                   help=f"the session (default: ${ENV_SESSION}, else 'default'); a named "
                        "session begins with 'open'")
    p.add_argument("--json", action="store_true", default=dflt(False),
                   help="print the result as one JSON object (errors too, on stdout)")
    p.add_argument("--no-daemon", action="store_true", default=dflt(False),
                   help="run in this process, without the daemon (no session: refs do not "
                        "outlive the command)")
    p.add_argument("--timeout-ms", type=float, default=dflt(None), metavar="MS",
                   help="give up on the request after this long (the daemon raises it to "
                        "the tool's floor; default 30000)")
    if top:
        p.add_argument("-d", "--device", default=None, metavar="DEVICE",
                       help="the device of a session command (serial, host:port, virtual, "
                            "virtual:new, adb:SERIAL@HOST:PORT …; docs/transport.md)")


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add the session commands: the daemon's own, then one per tool of the table."""
    from baremobile.cli.commands import add_tool_command, device_flag, tools

    def verb(name: str, device: bool = True, words: str = "") -> argparse.ArgumentParser:
        s = sub.add_parser(name, help=DAEMON_COMMANDS[name], description=DAEMON_COMMANDS[name],
                           parents=[common], usage=f"baremobile {name} [options]{words}")
        if device:
            device_flag(s)
        s.set_defaults(func=run, verb=name)
        return s

    verb("open")
    verb("close", device=False)
    verb("session", device=False)
    s = verb("devices", device=False)
    s.add_argument("--cached", action="store_true",
                   help="the pool as it stands, without re-discovering and re-checking")
    verb("tools", device=False)
    s = verb("call", words=" TOOL [JSON]")
    s.add_argument("tool_name", metavar="TOOL", help="a tool's name (baremobile tools)")
    s.add_argument("arguments", nargs="?", default="{}", help="a JSON object")
    only = getattr(sub, "only", None)  # the one command being run (the fast path)
    for tool in tools():
        if tool["command"] not in DAEMON_COMMANDS and only in (None, tool["command"]):
            add_tool_command(sub, common, tool, func=run, verb=tool["command"])


# ---------------------------------------------------------------------------------------
# turning arguments into a request
# ---------------------------------------------------------------------------------------


def tool_request(args: argparse.Namespace) -> tuple[str, dict[str, Any], str | None]:
    """(tool, arguments, files directory) for a command that calls a tool."""
    from baremobile.cli import commands

    files_dir = None
    if args.verb == "call":
        tool, a = commands.call_request(args)
    elif args.verb == "devices":
        tool, a = "devices", {}
    else:
        tool, a, files_dir = commands.tool_request(args)
    device = getattr(args, "device", None) or a.get("device")
    if device and tool != "devices":
        a["device"] = _device_spec(device, args)
    return tool, a, files_dir


def _device_spec(device: str, args: argparse.Namespace) -> str:
    """With -H/-P/-L (another adb server), a bare serial means that server's device."""
    server = getattr(args, "adb_server", None)
    if not server or getattr(args, "no_daemon", False):
        return device
    if device.startswith(("virtual", "usb", "adb:")):
        return device  # not a serial of that server
    from baremobile.transport.server import parse_server_socket
    from baremobile.transport.specs import server_spec

    return server_spec(device, *parse_server_socket(server))


# ---------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------


def _session(args: argparse.Namespace) -> str:
    return args.session or os.environ.get(ENV_SESSION, "").strip() or "default"


def run(args: argparse.Namespace) -> int:
    """Run a session verb; returns the exit status."""
    as_json = bool(args.json)
    try:
        if args.verb == "tools":
            return _show_tools(args)
        if args.no_daemon:
            return _run_local(args)
        return _run_daemon(args)
    except BaremobileError as exc:
        return output.print_error(error_fields(exc), as_json=as_json)


def error_fields(exc: BaremobileError) -> dict[str, Any]:
    """``{code, message, hint, category}`` of an error raised in this process (the hint in
    the CLI's words); an error the daemon answered keeps its own fields."""
    data = dict(exc.to_dict(output.cli_words()))
    category = getattr(exc, "category", None)
    if category is None:
        if isinstance(exc, InvalidArgument):
            category = "INVALID_ARGUMENT"
        else:
            from baremobile.tools.dispatch import error_data

            category = error_data(exc)["category"]
    data["category"] = category
    return data


def _client(args: argparse.Namespace) -> Any:
    from baremobile.daemon.client import Client

    return Client()


def _run_daemon(args: argparse.Namespace) -> int:
    session = _session(args)
    verb = args.verb
    with _client(args) as client:
        if verb in ("open", "close", "session") or (verb == "devices"):
            return _daemon_method(client, args, session)
        tool, arguments, files_dir = tool_request(args)
        params: dict[str, Any] = {"name": tool, "arguments": arguments, "session": session,
                                  "door": "cli",  # hints in CLI words
                                  # a named session begins with `open`: a mistyped name
                                  # claims no device
                                  "create": session == "default"}
        if files_dir is not None:
            params["filesDir"] = files_dir
        progress = _progress(args, tool, arguments)
        if progress is not None:
            params["progress"] = True
        try:
            result = client.request("tools/call", params, timeout_ms=args.timeout_ms,
                                    on_progress=progress)
        finally:
            if progress is not None:
                progress.finish()
    return output.print_result(result, as_json=bool(args.json),
                               output=getattr(args, "output", None))


def _progress(args: argparse.Namespace, tool: str,
              arguments: dict[str, Any]) -> output.Progress | None:
    """A progress line for a transfer: a tool that names a file of this computer."""
    from baremobile.cli.commands import by_name

    paths = (by_name().get(tool) or {}).get("host_paths") or ()
    if not paths:
        return None
    shown = arguments.get("path") if "path" in arguments and args.verb == "pull" else \
        arguments.get(paths[0])
    return output.Progress(f"{args.verb} {shown or ''}".strip())


def _daemon_method(client: Any, args: argparse.Namespace, session: str) -> int:
    verb = args.verb
    as_json = bool(args.json)
    if verb == "open":
        params: dict[str, Any] = {"sessionId": session, "door": "cli"}
        if args.device:
            params["device"] = _device_spec(args.device, args)
        elif getattr(args, "adb_server", None):
            params["adbServer"] = args.adb_server
        info = client.request("daemon/openSession", params, timeout_ms=args.timeout_ms)
        device = info.get("assignedDevice")
        _show(info, as_json, f"session {session}: {device}"
              + (f" (serial {info['serial']})" if info.get("serial") not in (None, device)
                 else ""))
    elif verb == "close":
        info = client.request("daemon/releaseSession", {"sessionId": session, "door": "cli"})
        _show(info, as_json, str(info.get("message", "")))
    elif verb == "session":
        info = client.request("daemon/sessionInfo", {"sessionId": session, "door": "cli"})
        _show(info, as_json, output.session_text(info))
    else:  # devices
        method = "daemon/availableDevices" if args.cached else "daemon/refreshDevices"
        info = client.request(method, {"door": "cli"}, timeout_ms=args.timeout_ms)
        _show(info, as_json, output.devices_text(info))
        if not info.get("devices"):
            return output.EXIT_CODES["DEVICE_UNAVAILABLE"]
    return 0


def _show(info: Any, as_json: bool, text: str) -> None:
    print(json.dumps(info, ensure_ascii=False) if as_json else text)


def _show_tools(args: argparse.Namespace) -> int:
    from baremobile.cli.commands import tools

    if args.json:
        print(json.dumps([{"name": t["name"], "command": t["command"], "group": t["group"],
                           "description": t["description"]} for t in tools()]))
        return 0
    for t in tools():
        print(f"{t['command']:22} {t['group']:8} {t['summary']}")
    return 0


def _run_local(args: argparse.Namespace) -> int:
    """One command in this process: connect, run the tool, disconnect."""
    if args.verb in ("open", "close", "session"):
        raise InvalidArgument(f"{args.verb} needs the daemon: --no-daemon has no sessions",
                              hint="pass -d DEVICE to each command instead")
    if args.adb_server:
        os.environ["ADB_SERVER_SOCKET"] = args.adb_server
    if args.verb == "devices":
        return _local_devices(args)
    from baremobile.tools import Session, call

    tool, arguments, files_dir = tool_request(args)
    with Session() as session:
        result = call(session, tool, arguments, groups="all", files_dir=files_dir,
                      door="cli")
    if not result.get("ok"):
        return output.print_error(result.get("error", {}), as_json=bool(args.json))
    return output.print_result(result, as_json=bool(args.json),
                               output=getattr(args, "output", None))


def _local_devices(args: argparse.Namespace) -> int:
    from baremobile.transport import devices

    found = devices()
    if args.json:
        print(json.dumps([{"serial": d.serial, "state": d.state, "kind": d.kind,
                           "via": d.via, "model": d.model} for d in found]))
        return 0 if found else output.EXIT_CODES["DEVICE_UNAVAILABLE"]
    if not found:
        print(f"no devices found — {output.NO_DEVICES_HINT}")
        return output.EXIT_CODES["DEVICE_UNAVAILABLE"]
    for d in found:
        extra = f"  model:{d.model}" if d.model else ""
        print(f"{d.serial:32} {d.state:14} {d.kind:9} via {d.via}{extra}")
    return 0

