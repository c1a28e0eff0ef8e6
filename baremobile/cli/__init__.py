"""The ``baremobile`` command.

    baremobile open [-d DEVICE]          session mode: a device for this session (via the daemon)
    baremobile snapshot | tap REF | type REF TEXT | press KEY | … | close
                                         every tool, one command each (see baremobile tools)
    baremobile devices                   the device pool (--no-daemon: discovery)
    baremobile daemon start|stop|status  the session daemon (started on demand)
    baremobile skill                     the skill file for coding agents
    baremobile demo                      a short scripted agent flow on the virtual phone
    baremobile virtual [--port 5555]     run a virtual phone any adb client can connect to
    baremobile mcp [--http HOST:PORT]    the MCP server (needs the [mcp] extra; --daemon: share
                                         the daemon's devices and sessions)
    baremobile trace show|summary|to-scenario|graph TRACE   a recorded session (docs/traces.md)

The session verbs live in :mod:`baremobile.cli.session`, their output in
:mod:`baremobile.cli.output`, the daemon commands in :mod:`baremobile.cli.daemon_cmd`. Only
what a command needs is imported, so a session verb starts about as fast as Python does.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import signal
import sys
from collections.abc import Sequence

from baremobile.errors import BaremobileError, InvalidArgument, InvalidScenario

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any, NoReturn

__all__ = ["OTHER_COMMANDS", "build_parser", "command_names", "main"]



def _cmd_virtual(args: argparse.Namespace) -> int:
    import threading

    from baremobile.virtual import VirtualPhone
    from baremobile.virtual.scenario import ScenarioError

    try:
        phone = VirtualPhone(args.scenario, host=args.host, port=args.port, auth=args.auth,
                             api_level=args.api_level, profile=args.profile)
    except ScenarioError as exc:
        raise InvalidScenario(str(exc)) from None
    except ValueError as exc:  # an unknown profile: the message lists them
        raise InvalidArgument(str(exc)) from None

    def prompt(key: object) -> None:
        fp = getattr(key, "fingerprint", "?")
        print(f"host asks to connect; key fingerprint {fp} — allowing"
              if args.auth == "accept-all" else
              f"host asks to connect; key fingerprint {fp} — run with --auth accept-all "
              "to allow", flush=True)

    phone.server.on_auth_prompt = prompt
    from baremobile.transport.registry import announce

    with phone, announce(phone.host, phone.port, model=phone.model.props.get(
            "ro.product.model", ""), api_level=phone.model.api_level,
            scenario=args.scenario or ""):
        print(f"virtual phone listening on {phone.address} (auth: {args.auth})")
        print("  listed by 'baremobile devices'; commands without -d use it")
        print(f"  adb connect {phone.address}")
        print(f"  python -c \"import baremobile; print(baremobile.connect('{phone.address}')"
              ".snapshot())\"")
        print("Ctrl-C to stop", flush=True)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as Ctrl-C does
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopping")
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _cmd_demo(args: argparse.Namespace) -> int:
    from baremobile.cli.demo import run_demo

    return run_demo(args.device or "virtual")


def _cmd_mcp(args: argparse.Namespace) -> int:
    if args.trace:
        from baremobile.cli.trace_cmd import record_into

        record_into(args.trace, "mcp")
    if args.daemon and getattr(args, "vocabulary", None):
        raise InvalidArgument("--vocabulary is spoken by the server itself, not through the "
                              "daemon", hint="leave out --daemon (or --vocabulary)")
    try:
        if args.daemon:
            from baremobile.daemon.mcp_proxy import run
        else:
            from baremobile.tools.mcp_server import run
    except ImportError as exc:  # a missing extra is MISSING_DEPENDENCY (exit status 8)
        from baremobile.cli.output import print_error

        return print_error({"code": "MISSING_DEPENDENCY", "category": "MISSING_DEPENDENCY",
                            "message": f"the MCP server needs the [mcp] extra ({exc})",
                            "hint": "pip install 'baremobile[mcp]'"},
                           as_json=bool(getattr(args, "json", False)))
    return run(args)


class UsageError(Exception):
    """An argparse usage error, raised instead of exiting so that ``--json`` can answer it
    as JSON (``main`` shows it: argparse's usage and message, or the error object)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


#: whether usage errors are raised (inside :func:`main`, which shows them) or printed with
#: argparse's exit (a parser from :func:`build_parser` used elsewhere)
_RAISING = contextvars.ContextVar("baremobile_cli_raising", default=False)


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors :func:`main` raises (:class:`UsageError`) rather than
    prints; every sub-parser is one too (``add_subparsers`` makes its parsers of the
    parent's class)."""

    def error(self, message: str) -> NoReturn:
        if _RAISING.get():
            raise UsageError(self, message)
        super().error(message)


def _usage_error(exc: UsageError, as_json: bool) -> int:
    """A usage error shown as argparse shows it (usage, then ``prog: error: …``, exit 2) or,
    with ``--json``, as the error object on stdout (``INVALID_ARGUMENT``, exit 2)."""
    if not as_json:
        exc.parser.print_usage(sys.stderr)
        sys.stderr.write(f"{exc.parser.prog}: error: {exc.message}\n")
        return 2
    from baremobile.cli.output import print_error

    usage = exc.parser.format_usage().strip().replace("\n", " ")
    return print_error({"code": "USAGE", "category": "INVALID_ARGUMENT",
                        "message": f"{exc.parser.prog}: {exc.message}",
                        "hint": f"{' '.join(usage.split())} ({exc.parser.prog} --help says more)"},
                       as_json=True)


class _Skipped:
    """Stands for a parser that is not built: every call is a no-op returning itself."""

    def __getattr__(self, name: str) -> object:
        return lambda *args, **kwargs: self


class _OnlyOne:
    """Sub-parsers that build only ``only`` (argparse takes about a millisecond per parser,
    and a session verb must start about as fast as Python: see benchmarks/cli.py)."""

    def __init__(self, sub: argparse._SubParsersAction[Any], only: str | None,
                 built: dict[str, Any]) -> None:
        self.sub = sub
        self.only = only
        self.built = built

    def add_parser(self, name: str, **kwargs: Any) -> object:
        if self.only is None or name == self.only:
            self.built[name] = self.sub.add_parser(name, **kwargs)
            return self.built[name]
        return _Skipped()


#: options before the command that take a value (to find the command in argv)
_VALUED = frozenset({"-H", "-P", "-L", "--session", "--timeout-ms", "-d", "--device"})

#: the commands that are not session commands, with their help
OTHER_COMMANDS = ("demo", "virtual", "mcp", "daemon", "skill", "trace")


def command_names() -> list[str]:
    """Every command word ``baremobile`` knows."""
    from baremobile.cli.commands import tools
    from baremobile.cli.session import DAEMON_COMMANDS

    return [*DAEMON_COMMANDS, *(t["command"] for t in tools()), *OTHER_COMMANDS]


def _command_in(argv: list[str]) -> tuple[int, str] | None:
    """(index, word) of the command word of ``argv`` (None for help, version, or none)."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("-h", "--help", "--version"):
            return None
        if word in _VALUED:
            i += 2
        elif word.startswith("-"):
            i += 1
        else:
            return i, word
    return None


def _unknown_command(word: str, known: list[str], as_json: bool) -> int:
    """One line for a mistyped command, with the closest one (exit status: usage error)."""
    from baremobile.cli.commands import suggest
    from baremobile.cli.output import print_error

    close = suggest(word, known)
    return print_error({
        "code": "UNKNOWN_COMMAND", "category": "INVALID_ARGUMENT",
        "message": f"there is no command {word!r}"
                   + (f"; did you mean 'baremobile {close}'?" if close else ""),
        "hint": "baremobile --help lists the commands, baremobile tools the tools"},
        as_json=as_json)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line parser (with ``only``: just that command's sub-parser)."""
    parser, _ = _build(only)
    return parser


def _build(only: str | None) -> tuple[argparse.ArgumentParser, dict[str, Any]]:
    """The parser and the sub-parsers it built, by command."""
    from baremobile import __version__
    from baremobile.cli import daemon_cmd, session, trace_cmd

    p = _Parser(
        prog="baremobile", description="Drive Android devices from agents. Every tool is a "
        "command (baremobile COMMAND --help says more); errors say what to do.",
        formatter_class=lambda prog: argparse.HelpFormatter(prog, max_help_position=32))
    p.add_argument("--version", action="version", version=f"baremobile {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    p.add_argument("-H", dest="adb_host", metavar="HOST",
                   help="as adb's -H: the adb server on HOST (with -P; default localhost)")
    p.add_argument("-P", dest="adb_port", type=int, metavar="PORT",
                   help="as adb's -P: the adb server's port (default 5037)")
    p.add_argument("-L", dest="adb_socket", metavar="tcp:HOST:PORT",
                   help="as adb's -L: the adb server socket (overrides $ADB_SERVER_SOCKET)")
    session.add_common(p, top=True)
    common = _Parser(add_help=False)
    session.add_common(common, top=False)
    subs: dict[str, Any] = {}
    sub: Any = _OnlyOne(p.add_subparsers(dest="command", required=True, metavar="COMMAND"),
                        only, subs)

    s = sub.add_parser("demo", help="run a short scripted agent flow on the virtual phone")
    s.add_argument("-d", "--device", default=argparse.SUPPRESS,
                   help="device spec (default: virtual)")
    s.set_defaults(func=_cmd_demo)

    s = sub.add_parser("virtual", help="run a virtual phone that any adb client can connect to")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=0, help="0 picks a free port; avoid 5555-5585 "
                   "when a real adb server runs (it adopts them as emulators)")
    s.add_argument("--scenario", default=None, help="scenario YAML (default: the built-in demo)")
    s.add_argument("--auth", default="accept-all", choices=("accept-all", "known-keys", "none"))
    s.add_argument("--api-level", type=int, default=None,
                   help="default: the profile's (35 for the default phone)")
    s.add_argument("--profile", default=None, help="a kind of device: android6, tablet, "
                   "protocol-a (docs/virtual-phone.md)")
    s.set_defaults(func=_cmd_virtual)

    s = sub.add_parser("mcp", help="serve the MCP tools (stdio, or streamable HTTP)")
    s.add_argument("--daemon", action="store_true",
                   help="be a client of the session daemon: share its devices and sessions "
                        "with the CLI and other MCP servers (one session per server)")
    s.add_argument("--session", default=argparse.SUPPRESS, metavar="NAME",
                   help="with --daemon: the daemon session to use (default: a private one, "
                        "released at exit)")
    s.add_argument("--http", metavar="HOST:PORT", default=None,
                   help="serve streamable HTTP instead of stdio (bound to 127.0.0.1 by default)")
    s.add_argument("-d", "--device", default=argparse.SUPPRESS,
                   help="default device for every tool")
    s.add_argument("--json-response", action="store_true",
                   help="with --http: answer every request with one JSON body, never an SSE "
                        "stream (for clients that do not read SSE)")
    s.add_argument("--stateless", action="store_true",
                   help="with --http: no sessions; every POST stands alone (no initialize "
                        "first) and is answered with one JSON body — for clients that send "
                        "single requests, e.g. Android Remote Control's")
    s.add_argument("--allow-host", metavar="NAME", action="append", default=None,
                   help="with --http: another name clients reach the server by (a tunnel, a "
                        "reverse proxy); requests naming any other Host are refused (repeat "
                        "it)")
    s.add_argument("--vocabulary", choices=("clawperator",), default=None,
                   help="speak another system's MCP words: list its tools and answer in its "
                        "shapes, for its clients (clawperator: docs/mcp.md)")
    s.add_argument("--token-env", default="BAREMOBILE_MCP_TOKEN",
                   help="env var holding the HTTP bearer token (generated when unset)")
    s.add_argument("--prefix", default="", help="tool-name prefix, e.g. android_pixel_")
    s.add_argument("--slug", default=None,
                   help="shorthand for --prefix android_SLUG_ (letters, digits, _)")
    s.add_argument("--groups", default="",
                   help="optional tool groups: apps,files,logs,system,vision,gestures,"
                        "inspect,batch (or all; eval comes with --allow-eval)")
    s.add_argument("--files-dir", metavar="DIR", default=None,
                   help="the one directory of this computer push_file, pull_file and "
                   "install_app may read and write (without it they are refused)")
    s.add_argument("--allow-device", metavar="SPEC", action="append", default=None,
                   help="a device spec calls may name (repeat it); without any, every spec "
                   "but virtual:FILE is allowed ('virtual' and --device always are)")
    s.add_argument("--allow-scenarios", action="store_true",
                   help="let calls name 'virtual:FILE.yaml' (reads that file of this computer)")
    s.add_argument("--allow-eval", action="store_true",
                   help="serve the eval tool: JavaScript in the app's web page, with its "
                   "cookies and origin (not part of --groups all; with --daemon, the daemon "
                   "needs --allow-eval too)")
    s.add_argument("--observe", action="store_true",
                   help="action tools answer with the fresh snapshot (after --settle)")
    s.add_argument("--settle", type=float, default=None,
                   help="seconds to let the screen settle before observing (default 0.5)")
    s.add_argument("--max-chars", type=session.positive_int, default=None,
                   help="default snapshot text budget (default 20000)")
    s.add_argument("--log-file", default=None, help="log here (and warnings to stderr), in a "
                   "file only you can read (0600); stdout only ever carries the protocol")
    s.add_argument("--log-typed-text", action="store_true",
                   help="log the text of type calls (passwords!) instead of its length")
    s.add_argument("--trace", metavar="DIR", default=None,
                   help="record a trace of each device's session into DIR (docs/traces.md)")
    s.set_defaults(func=_cmd_mcp)

    session.add_commands(sub, common)
    daemon_cmd.add_commands(sub)
    trace_cmd.add_commands(sub)
    return p, subs


def _adb_server(args: argparse.Namespace) -> str | None:
    """``tcp:HOST:PORT`` from adb's -H/-P/-L (None: none given), checked as adb does."""
    if not (args.adb_socket or args.adb_host or args.adb_port):
        return None
    if args.adb_socket and (args.adb_host or args.adb_port):
        raise InvalidArgument("-L cannot be combined with -H or -P (as in adb)")
    from baremobile.transport.server import parse_server_socket, server_socket_spec

    if args.adb_socket:
        parse_server_socket(args.adb_socket)
        return args.adb_socket
    if args.adb_port is not None and not 0 < args.adb_port < 65536:
        raise InvalidArgument(f"-P {args.adb_port} is not a port (1-65535)")
    return server_socket_spec(args.adb_host, args.adb_port)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``baremobile`` console script."""
    # a terminal that cannot show a character gets its escape, not a crash (reconfigure is
    # a TextIOWrapper's: a stream something replaced may lack it)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        with contextlib.suppress(AttributeError, ValueError, OSError):
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
    argv = list(sys.argv[1:] if argv is None else argv)
    token = _RAISING.set(True)
    try:
        return _main(argv)
    finally:
        _RAISING.reset(token)


def _main(argv: list[str]) -> int:
    from baremobile.cli.output import print_error

    found = _command_in(argv)
    only = None
    if found is not None:
        index, word = found
        known = command_names()
        if word not in known and word.replace("_", "-") in known:
            argv[index] = word = word.replace("_", "-")  # a tool's name works too
        if word not in known:
            return _unknown_command(word, known, "--json" in argv)
        only = word
    parser, subs = _build(only)
    try:
        args, extra = parser.parse_known_args(argv)
        if args.command is None:  # pragma: no cover - the command is required
            parser.error("a command is required")
        if extra:  # the command's own usage, not the whole program's
            subs.get(args.command, parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except UsageError as exc:
        return _usage_error(exc, "--json" in argv)
    if args.verbose:
        import logging

        logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    try:
        args.adb_server = _adb_server(args)
        if args.adb_server and not hasattr(args, "verb") and args.command != "daemon":
            import os

            os.environ["ADB_SERVER_SOCKET"] = args.adb_server  # adb: the flags win
        return int(args.func(args) or 0)
    except UsageError as exc:  # a command's own words checked after parsing (cli.commands)
        return _usage_error(exc, bool(getattr(args, "json", False)) or "--json" in argv)
    except BaremobileError as exc:
        from baremobile.cli.session import error_fields

        return print_error(error_fields(exc), as_json=bool(getattr(args, "json", False)))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
