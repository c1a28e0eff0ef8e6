"""The ``baremobile`` command.

    baremobile demo                      a short scripted agent flow on the virtual phone
    baremobile snapshot [-d DEVICE]      print the current screen's snapshot
    baremobile screenshot -o shot.png    save a screenshot
    baremobile devices                   list reachable devices
    baremobile virtual [--port 5555]     run a virtual phone any adb client can connect to
    baremobile mcp [--http HOST:PORT]    the MCP server (needs the [mcp] extra)
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Sequence

from baremobile.errors import BaremobileError, InvalidScenario

__all__ = ["CLI_VERBS", "main"]

#: How error hints name other verbs when the CLI shows them (the keys of
#: :data:`baremobile.errors.PYTHON_VERBS`); a CLI mode with more commands extends it.
CLI_VERBS: dict[str, str] = {
    "snapshot": "baremobile snapshot",
    "last_snapshot": "the last snapshot printed",
    "back": "the phone's Back button",
    "wakeup": "the phone's power button",
    "screenshot": "baremobile screenshot",
    "apps": "the phone's app list",
    "devices": "baremobile devices",
    "pick_device": "-d <serial>",
    "list_files": "'adb shell ls -l <folder>'",
    "reconnect": "run the command again",
}


def _positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _cmd_devices(args: argparse.Namespace) -> int:
    from baremobile.transport import devices

    found = devices()
    if not found:
        print("no devices found (try: baremobile virtual — while it runs, it is listed here "
              "and used by every command that names no device)")
        return 1
    for d in found:
        extra = f"  model:{d.model}" if d.model else ""
        print(f"{d.serial:32} {d.state:14} {d.kind:9} via {d.via}{extra}")
    return 0


def _cmd_snapshot(args: argparse.Namespace) -> int:
    from baremobile.page import connect

    with connect(args.device) as page:
        snap = page.snapshot(max_chars=args.max_chars)
        print(snap.text)
    return 0


def _cmd_screenshot(args: argparse.Namespace) -> int:
    from baremobile.page import connect

    with connect(args.device) as page:
        shot = page.screenshot()
        shot.save(args.output)
        print(f"saved {shot.width}x{shot.height} PNG to {args.output}")
    return 0


def _cmd_virtual(args: argparse.Namespace) -> int:
    import threading

    from baremobile.virtual import VirtualPhone
    from baremobile.virtual.scenario import ScenarioError

    try:
        phone = VirtualPhone(args.scenario, host=args.host, port=args.port, auth=args.auth,
                             api_level=args.api_level)
    except ScenarioError as exc:
        raise InvalidScenario(str(exc)) from None

    def prompt(key: object) -> None:
        fp = getattr(key, "fingerprint", "?")
        print(f"host asks to connect; key fingerprint {fp} — allowing"
              if args.auth == "accept-all" else
              f"host asks to connect; key fingerprint {fp} — run with --auth accept-all "
              "to allow", flush=True)

    phone.server.on_auth_prompt = prompt
    from baremobile.transport.registry import announce

    with phone, announce(phone.host, phone.port, model=phone.model.props.get(
            "ro.product.model", ""), api_level=args.api_level, scenario=args.scenario or ""):
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

    return run_demo(args.device)


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from baremobile.tools.mcp_server import run
    except ImportError as exc:
        print(f"the MCP server needs the [mcp] extra: pip install 'baremobile[mcp]' ({exc})",
              file=sys.stderr)
        return 2
    return run(args)


def build_parser() -> argparse.ArgumentParser:
    from baremobile import __version__

    p = argparse.ArgumentParser(prog="baremobile", description="Drive Android devices from agents.")
    p.add_argument("--version", action="version", version=f"baremobile {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("demo", help="run a short scripted agent flow on the virtual phone")
    s.add_argument("-d", "--device", default="virtual", help="device spec (default: virtual)")
    s.set_defaults(func=_cmd_demo)

    s = sub.add_parser("snapshot", help="print the current screen's snapshot")
    s.add_argument("-d", "--device", default=None, help="device spec (default: auto)")
    s.add_argument("--max-chars", type=_positive_int, default=None,
                   help="cut the snapshot text at about this many characters")
    s.set_defaults(func=_cmd_snapshot)

    s = sub.add_parser("screenshot", help="save a PNG screenshot")
    s.add_argument("-d", "--device", default=None)
    s.add_argument("-o", "--output", default="screenshot.png")
    s.set_defaults(func=_cmd_screenshot)

    s = sub.add_parser("devices", help="list reachable devices")
    s.set_defaults(func=_cmd_devices)

    s = sub.add_parser("virtual", help="run a virtual phone that any adb client can connect to")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=0, help="0 picks a free port; avoid 5555-5585 "
                   "when a real adb server runs (it adopts them as emulators)")
    s.add_argument("--scenario", default=None, help="scenario YAML (default: the built-in demo)")
    s.add_argument("--auth", default="accept-all", choices=("accept-all", "known-keys", "none"))
    s.add_argument("--api-level", type=int, default=35)
    s.set_defaults(func=_cmd_virtual)

    s = sub.add_parser("mcp", help="serve the MCP tools (stdio, or streamable HTTP)")
    s.add_argument("--http", metavar="HOST:PORT", default=None,
                   help="serve streamable HTTP instead of stdio (bound to 127.0.0.1 by default)")
    s.add_argument("--device", default=None, help="default device for every tool")
    s.add_argument("--token-env", default="BAREMOBILE_MCP_TOKEN",
                   help="env var holding the HTTP bearer token (generated when unset)")
    s.add_argument("--prefix", default="", help="tool-name prefix, e.g. android_pixel_")
    s.add_argument("--slug", default=None,
                   help="shorthand for --prefix android_SLUG_ (letters, digits, _)")
    s.add_argument("--groups", default="",
                   help="optional tool groups: apps,files,logs,system,vision (or all)")
    s.add_argument("--files-dir", metavar="DIR", default=None,
                   help="the one directory of this computer push_file, pull_file and "
                   "install_app may read and write (without it they are refused)")
    s.add_argument("--allow-device", metavar="SPEC", action="append", default=None,
                   help="a device spec calls may name (repeat it); without any, every spec "
                   "but virtual:FILE is allowed ('virtual' and --device always are)")
    s.add_argument("--allow-scenarios", action="store_true",
                   help="let calls name 'virtual:FILE.yaml' (reads that file of this computer)")
    s.add_argument("--observe", action="store_true",
                   help="action tools answer with the fresh snapshot (after --settle)")
    s.add_argument("--settle", type=float, default=None,
                   help="seconds to let the screen settle before observing (default 0.5)")
    s.add_argument("--max-chars", type=_positive_int, default=None,
                   help="default snapshot text budget (default 20000)")
    s.add_argument("--log-file", default=None, help="log here (and warnings to stderr), in a "
                   "file only you can read (0600); stdout only ever carries the protocol")
    s.add_argument("--log-typed-text", action="store_true",
                   help="log the text of type calls (passwords!) instead of its length")
    s.set_defaults(func=_cmd_mcp)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``baremobile`` console script."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)
    try:
        return int(args.func(args) or 0)
    except BaremobileError as exc:
        hint = exc.hint_in(CLI_VERBS)
        print(f"error [{exc.code}]: {exc.message}" + (f" — {hint}" if hint else ""),
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
