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
object for programs. The tools not spelled out here (``list-apps``, ``logcat``,
``configure`` …) are commands too, their options made from the tool's schema; ``call TOOL
JSON`` calls any tool with raw arguments.

This module is on the fast path of every command: it imports the daemon's client and the
standard library, never the device stack (the tool table is imported only for the
schema-made commands and for ``--no-daemon``).
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

__all__ = ["CALL_ONLY", "ENV_SESSION", "SCHEMA_COMMANDS", "VERBS", "add_commands",
           "add_common"]

ENV_SESSION = "BAREMOBILE_SESSION"

#: The tools that have no hand-made command below; each is a command whose options come
#: from its schema (a test checks this list against the table).
SCHEMA_COMMANDS = (
    "configure", "list_apps", "stop_app", "clear_app_data", "grant_permission",
    "revoke_permission", "list_files", "read_file", "write_file", "logcat", "recents",
    "open_notifications", "open_quick_settings", "close_panels", "device_info",
    "grid_screenshot", "tap_grid", "annotated_screenshot",
    # issue 12 (wait_for is `call wait_for`: `wait-for` is the text wait above)
    "scroll_until", "read", "ui_xml", "double_tap", "drag", "pinch", "gesture", "rotate",
    "get_clipboard", "set_clipboard", "uninstall_app", "delete_file", "append_file",
    "execute",
    "eval",  # runs only where the daemon allows it (--allow-eval)
    # issue 22
    "wait", "insert_text", "replace_text", "replace_in_file", "storage_locations",
)
#: tools whose dashed name a hand-made command already has: reached with ``call``
CALL_ONLY = ("wait_for",)
#: hand-made command → the tool it calls (None: a daemon method, not a tool)
VERBS: dict[str, str | None] = {
    "open": None, "close": None, "session": None, "devices": "devices", "tools": None,
    "call": None, "snapshot": "snapshot", "tap": "tap", "type": "type", "press": "press",
    "scroll": "scroll", "swipe": "swipe", "long-press": "long_press", "launch": "launch",
    "open-url": "open_url", "back": "back", "home": "home", "screenshot": "screenshot",
    "find": "find", "wait-for": "wait_for_text", "wait-stable": "wait_stable",
    "push": "push_file", "pull": "pull_file", "install": "install_app",
}
_SELECTOR_FIELDS = ("text", "text_contains", "desc", "desc_contains", "id", "role")


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
                   help=f"the session (default: ${ENV_SESSION}, else 'default')")
    p.add_argument("--json", action="store_true", default=dflt(False),
                   help="print the result as one JSON object (errors too, on stdout)")
    p.add_argument("--no-daemon", action="store_true", default=dflt(False),
                   help="run in this process, without the daemon (no session: refs do not "
                        "outlive the command)")
    p.add_argument("--timeout-ms", type=float, default=dflt(None), metavar="MS",
                   help="give up on the request after this long (the daemon raises it to "
                        "the tool's floor; default 30000)")


def _selector_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("or pick the element by what it shows")
    g.add_argument("--text", help="exact visible text")
    g.add_argument("--text-contains", metavar="TEXT", help="part of the text (any case)")
    g.add_argument("--desc", help="exact content description")
    g.add_argument("--desc-contains", metavar="TEXT", help="part of the description")
    g.add_argument("--id", help="resource id, e.g. search_src_text")
    g.add_argument("--role", help="snapshot role, e.g. Button, TextInput")
    g.add_argument("--index", type=int, help="which match when several do (0 = first)")


def _device_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("-d", "--device", default=None,
                   help="the device (serial, host:port, virtual); default: the session's")


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add the session verbs and the schema-made tool commands to ``sub``."""
    def verb(name: str, help: str, device: bool = True) -> argparse.ArgumentParser:
        s = sub.add_parser(name, help=help, parents=[common])
        if device:
            _device_flag(s)
        s.set_defaults(func=run, verb=name)
        return s

    s = verb("open", "give this session a device (a free one of the pool, or -d)")
    s = verb("close", "end this session: its device goes back to the pool", device=False)
    s = verb("session", "show this session: device, refs, settings", device=False)
    s = verb("devices", "the daemon's device pool, re-discovered (--no-daemon: discovery)",
             device=False)
    s.add_argument("--cached", action="store_true",
                   help="the pool as it stands, without re-discovering and re-checking")
    s = verb("tools", "list every tool (each is a command: dashes for underscores)",
             device=False)
    s = verb("call", "call any tool with JSON arguments: call logcat '{\"lines\": 50}'")
    s.add_argument("tool")
    s.add_argument("arguments", nargs="?", default="{}", help="a JSON object")
    s = verb("snapshot", "the screen as text with [ref=N] (saved to .baremobile/page-N.yml)")
    s.add_argument("--max-chars", type=positive_int, default=None,
                   help="cut the text at about this many characters")
    s = verb("tap", "tap an element: REF, a selector (--text OK), or --at X Y")
    s.add_argument("ref", nargs="?", type=int)
    s.add_argument("--at", nargs=2, type=float, metavar=("X", "Y"), help="screen point")
    _selector_flags(s)
    s = verb("type", "type into a field: type REF TEXT (or TEXT alone: the focused field)")
    s.add_argument("words", nargs="+", metavar="[REF] TEXT")
    s.add_argument("--clear", action="store_true", help="empty the field first")
    s.add_argument("--submit", action="store_true", help="press Enter after")
    _selector_flags(s)
    s = verb("press", "press a key: back, home, enter, tab, del, … or a keycode")
    s.add_argument("key")
    s = verb("scroll", "scroll: scroll [REF] up|down|left|right ('down' shows what is below)")
    s.add_argument("words", nargs="+", metavar="[REF] DIRECTION")
    s.add_argument("--amount", type=float, help="fraction of the element (default 0.6)")
    _selector_flags(s)
    s = verb("swipe", "swipe between two screen points: swipe X1 Y1 X2 Y2")
    for n in ("x1", "y1", "x2", "y2"):
        s.add_argument(n, type=float)
    s.add_argument("--ms", type=int, help="duration (default 300)")
    s = verb("long-press", "press and hold: REF, a selector, or --at X Y")
    s.add_argument("ref", nargs="?", type=int)
    s.add_argument("--at", nargs=2, type=float, metavar=("X", "Y"))
    s.add_argument("--ms", type=int, help="how long (default 1000)")
    _selector_flags(s)
    s = verb("launch", "open an app by package name")
    s.add_argument("package")
    s = verb("open-url", "open a URI (https:, tel:, geo:, a deep link)")
    s.add_argument("uri")
    verb("back", "press Back")
    verb("home", "press Home")
    s = verb("screenshot", "a PNG of the screen (saved to .baremobile/screenshot-N.png)")
    s.add_argument("-o", "--output", default=None, help="save it here instead (.jpg / .webp: "
                   "that format)")
    s.add_argument("--format", choices=["png", "jpeg", "webp"], default=None,
                   help="image format (default png, or -o's extension)")
    s.add_argument("--quality", type=int, default=None, help="JPEG/WebP quality 1-100")
    s.add_argument("--max-side", type=int, default=None,
                   help="scale down so the longest side is at most this (default: full size)")
    s = verb("find", "find elements: find TEXT (part of the text) or selector flags")
    s.add_argument("contains", nargs="?", metavar="TEXT")
    _selector_flags(s)
    s = verb("wait-for", "wait until TEXT is on screen")
    s.add_argument("text")
    s.add_argument("--timeout", type=float, help="seconds (default 10)")
    s = verb("wait-stable", "wait until the screen stops changing")
    s.add_argument("--timeout", type=float, help="seconds (default 10)")
    s = verb("push", "copy a file of this computer to the device (progress on a terminal)")
    s.add_argument("local")
    s.add_argument("remote", metavar="DEVICE_PATH")
    s = verb("pull", "copy a device file here (progress on a terminal)")
    s.add_argument("remote", metavar="DEVICE_PATH")
    s.add_argument("local", nargs="?", default=None, help="default: its name, here")
    s.add_argument("--overwrite", action="store_true", help="replace an existing local file")
    s = verb("install", "install an APK of this computer (progress on a terminal)")
    s.add_argument("apk")
    s.add_argument("--no-replace", action="store_true", help="fail if already installed")
    for tool in SCHEMA_COMMANDS:
        # its options are made from the schema when it runs (the table is not imported
        # for the other commands); main() hands over what argparse did not know
        s = sub.add_parser(tool.replace("_", "-"), help=f"the {tool} tool (see --help)",
                           add_help=False, parents=[common])
        s.set_defaults(func=run, verb=tool.replace("_", "-"), schema_tool=tool, rest=[])


# ---------------------------------------------------------------------------------------
# turning arguments into a request
# ---------------------------------------------------------------------------------------


def _target(args: argparse.Namespace, out: dict[str, Any], *, ref: int | None) -> None:
    selector = {k: getattr(args, k) for k in _SELECTOR_FIELDS if getattr(args, k, None)}
    if getattr(args, "index", None) is not None:
        selector["index"] = args.index
    if ref is not None:
        out["ref"] = ref
    if selector:
        out["selector"] = selector
    at = getattr(args, "at", None)
    if at:
        out["x"], out["y"] = at


def _ref_word(words: list[str], what: str) -> tuple[int | None, list[str]]:
    """A leading ref among positional words (``type 3 hello`` / ``scroll 5 down``)."""
    if len(words) >= 2 and words[0].isdigit():
        return int(words[0]), words[1:]
    if len(words) >= 2:
        raise InvalidArgument(f"{what}: {words[0]!r} is not a ref (a number from the snapshot)",
                              hint=f"e.g. baremobile {what} 3 …, or pick the element with "
                                   "--text / --desc / --id")
    return None, words


def _after_ref(args: argparse.Namespace, out: dict[str, Any], what: str, hint: str) -> str:
    """The one word after an optional leading ref (``type 3 hello``, ``scroll 5 down``);
    the ref (or the selector flags) go into ``out``."""
    ref, rest = _ref_word(args.words, args.verb)
    if len(rest) != 1:
        raise InvalidArgument(f"{args.verb} takes [REF] {what}", hint=hint)
    _target(args, out, ref=ref)
    return rest[0]


def _host_file(path: str) -> tuple[str, str]:
    """(directory, name) of a file of this computer: the one directory the daemon's host-file
    tools may use for this call is the file's own."""
    full = os.path.abspath(os.path.expanduser(path))
    return os.path.dirname(full), os.path.basename(full)


def tool_request(args: argparse.Namespace) -> tuple[str, dict[str, Any], str | None]:
    """(tool, arguments, files directory) for a verb that calls a tool."""
    verb = args.verb
    tool = VERBS.get(verb)
    a: dict[str, Any] = {}
    files_dir = None
    if verb == "snapshot":
        if args.max_chars is not None:
            a["max_chars"] = args.max_chars
    elif verb in ("tap", "long-press"):
        _target(args, a, ref=args.ref)
        if verb == "long-press" and args.ms is not None:
            a["ms"] = args.ms
    elif verb == "type":
        a["text"] = _after_ref(args, a, "TEXT", 'e.g. baremobile type 3 "hello world" '
                               "(quote text with spaces)")
        a.update({k: True for k in ("clear", "submit") if getattr(args, k)})
    elif verb == "press":
        a["key"] = int(args.key) if args.key.isdigit() else args.key
    elif verb == "scroll":
        a["direction"] = _after_ref(args, a, "DIRECTION",
                                    "e.g. baremobile scroll down, or baremobile scroll 5 down")
        if args.amount is not None:
            a["amount"] = args.amount
    elif verb == "swipe":
        a.update(x1=args.x1, y1=args.y1, x2=args.x2, y2=args.y2)
        if args.ms is not None:
            a["ms"] = args.ms
    elif verb == "launch":
        a["package"] = args.package
    elif verb == "open-url":
        a["uri"] = args.uri
    elif verb == "screenshot":
        out = (getattr(args, "output", None) or "").lower()
        by_name = next((f for ext, f in ((".jpg", "jpeg"), (".jpeg", "jpeg"),
                                         (".webp", "webp"), (".png", "png"))
                        if out.endswith(ext)), None)
        a["format"] = getattr(args, "format", None) or by_name or "png"
        a["max_side"] = getattr(args, "max_side", None) or 10_000  # the CLI: full size
        if getattr(args, "quality", None) is not None:
            a["quality"] = args.quality
    elif verb == "find":
        _target(args, a, ref=None)
        if args.contains:
            a.setdefault("selector", {})["text_contains"] = args.contains
    elif verb in ("wait-for", "wait-stable"):
        if verb == "wait-for":
            a["text"] = args.text
        if args.timeout is not None:
            a["timeout"] = args.timeout
    elif verb == "push":
        files_dir, name = _host_file(args.local)
        a.update(local_path=name, path=args.remote)
    elif verb == "pull":
        local = args.local or os.path.basename(args.remote.rstrip("/")) or "pulled"
        if os.path.isdir(local):
            local = os.path.join(local, os.path.basename(args.remote.rstrip("/")))
        files_dir, name = _host_file(local)
        a.update(path=args.remote, local_path=name)
        if args.overwrite:
            a["overwrite"] = True
    elif verb == "install":
        files_dir, name = _host_file(args.apk)
        a["apk"] = name
        if args.no_replace:
            a["replace"] = False
    elif verb == "call":
        tool = args.tool.replace("-", "_")
        try:
            a = json.loads(args.arguments)
        except ValueError as exc:
            raise InvalidArgument(f"call {args.tool}: the arguments are not JSON ({exc})",
                                  hint="""e.g. baremobile call logcat '{"lines": 50}'""") \
                from None
        if not isinstance(a, dict):
            raise InvalidArgument("call: the arguments are a JSON object")
    elif getattr(args, "schema_tool", None):
        from baremobile.cli.schema_args import parse_tool_args

        tool = args.schema_tool
        a = parse_tool_args(tool, args.rest)
    assert tool is not None
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

    host, port = parse_server_socket(server)
    shown = f"[{host}]" if ":" in host else host
    return f"adb:{device}@{shown}:{port}"


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
    data = dict(exc.to_dict(output.CLI_VERBS))
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
                                  "verbs": output.CLI_VERBS}
        if session != "default":  # a named session must be open: a typo claims no device
            params["createSession"] = False
        if files_dir is not None:
            params["filesDir"] = files_dir
        progress = _progress(args, arguments)
        if progress is not None:
            params["progress"] = True
        try:
            result = client.request("tools/call", params, timeout_ms=args.timeout_ms,
                                    on_progress=progress)
        finally:
            if progress is not None:
                progress.finish()
    output.print_result(result, as_json=bool(args.json),
                        output=getattr(args, "output", None))
    return 0


def _progress(args: argparse.Namespace, arguments: dict[str, Any]) -> output.Progress | None:
    if args.verb not in ("push", "pull", "install"):
        return None
    what = {"push": f"push {args.local if args.verb == 'push' else ''}",
            "pull": f"pull {getattr(args, 'remote', '')}",
            "install": f"install {getattr(args, 'apk', '')}"}[args.verb]
    return output.Progress(what.strip())


def _daemon_method(client: Any, args: argparse.Namespace, session: str) -> int:
    verb = args.verb
    as_json = bool(args.json)
    if verb == "open":
        params: dict[str, Any] = {"sessionId": session}
        if args.device:
            params["device"] = _device_spec(args.device, args)
        elif getattr(args, "adb_server", None):
            params["adbServer"] = args.adb_server
        info = client.request("daemon/openSession", params, timeout_ms=args.timeout_ms)
        _show(info, as_json, f"session {session}: {info.get('assignedDevice')}"
              + (f" (serial {info['serial']})" if info.get("serial") else ""))
    elif verb == "close":
        info = client.request("daemon/releaseSession", {"sessionId": session})
        _show(info, as_json, str(info.get("message", "")))
    elif verb == "session":
        info = client.request("daemon/sessionInfo", {"sessionId": session})
        _show(info, as_json, "\n".join(f"{k}: {v}" for k, v in info.items()))
    else:  # devices
        method = "daemon/availableDevices" if args.cached else "daemon/refreshDevices"
        info = client.request(method, {}, timeout_ms=args.timeout_ms)
        lines = [f"{d['device']:32} {d['state']:9} {d.get('kind', ''):9}"
                 + (f" via {d['via']}" if d.get("via") else "")
                 + (f"  model:{d['model']}" if d.get("model") else "")
                 + (f"  session:{d['session']}" if d.get("session") else "")
                 + (f"  {d['error']['code']}: {d['error'].get('message', '')}"
                    if d.get("error") else "") for d in info.get("devices", [])]
        lines.append(f"{info.get('availableDevices', 0)} idle, "
                     f"{info.get('assignedDevices', 0)} assigned, "
                     f"{info.get('errorDevices', 0)} in error")
        _show(info, as_json, "\n".join(lines))
    return 0


def _show(info: Any, as_json: bool, text: str) -> None:
    print(json.dumps(info, ensure_ascii=False) if as_json else text)


def _show_tools(args: argparse.Namespace) -> int:
    from baremobile.tools.spec import TOOLS

    if args.json:
        print(json.dumps([{"name": t.name, "command": _command_of(t.name), "group": t.group,
                           "description": t.description} for t in TOOLS]))
        return 0
    for t in TOOLS:
        print(f"{_command_of(t.name):22} {t.group:8} {t.description.split('. ')[0]}")
    return 0


def _command_of(tool: str) -> str:
    for verb, name in VERBS.items():
        if name == tool:
            return verb
    return tool.replace("_", "-")


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
        result = call(session, tool, arguments, groups="all", files_dir=files_dir)
    if not result.get("ok"):
        return output.print_error(result.get("error", {}), as_json=bool(args.json))
    output.print_result(result, as_json=bool(args.json), output=getattr(args, "output", None))
    return 0


def _local_devices(args: argparse.Namespace) -> int:
    from baremobile.transport import devices

    found = devices()
    if args.json:
        print(json.dumps([{"serial": d.serial, "state": d.state, "kind": d.kind,
                           "via": d.via, "model": d.model} for d in found]))
        return 0 if found else output.EXIT_CODES["DEVICE_UNAVAILABLE"]
    if not found:
        print("no devices found (try: baremobile virtual, then connect to it)")
        return output.EXIT_CODES["DEVICE_UNAVAILABLE"]
    for d in found:
        extra = f"  model:{d.model}" if d.model else ""
        print(f"{d.serial:32} {d.state:14} {d.kind:9} via {d.via}{extra}")
    return 0

