"""Running the daemon process: its options (each with an environment variable, so a daemon
the CLI starts on demand is configured the same way), logging, and the serve loop.

    python -m baremobile.daemon [--idle-timeout S] [--device SPEC]… [--no-discover]
                                [--adb-server tcp:HOST:PORT]… [--timeout-floor TOOL=MS]…
                                [--allow-eval] [--automobile]

``baremobile daemon start`` takes the same options.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["add_options", "main", "option_args"]

ENV_IDLE = "BAREMOBILE_DAEMON_IDLE_TIMEOUT"
ENV_DEVICES = "BAREMOBILE_DAEMON_DEVICES"
ENV_DISCOVER = "BAREMOBILE_DAEMON_DISCOVER"
ENV_SERVERS = "BAREMOBILE_ADB_SERVERS"
ENV_FLOORS = "BAREMOBILE_DAEMON_TIMEOUT_FLOORS"
ENV_EVAL = "BAREMOBILE_DAEMON_ALLOW_EVAL"
ENV_AUTOMOBILE = "BAREMOBILE_DAEMON_AUTOMOBILE"
DEFAULT_IDLE = 900.0


def _list(env: str) -> list[str]:
    return [x.strip() for x in os.environ.get(env, "").split(",") if x.strip()]


def add_options(p: argparse.ArgumentParser) -> None:
    """The daemon's options (defaults from the environment)."""
    p.add_argument("--idle-timeout", type=float, default=None, metavar="SECONDS",
                   help=f"stop after this long with no client and no request (0: never; "
                        f"default ${ENV_IDLE} or {DEFAULT_IDLE:g})")
    p.add_argument("--device", action="append", default=None, metavar="SPEC",
                   help=f"a device the pool starts with (repeat it; also ${ENV_DEVICES}, "
                        "comma-separated)")
    p.add_argument("--no-discover", action="store_true", default=None,
                   help=f"do not discover devices (adb server, emulator ports, USB); only "
                        f"--device, --adb-server and named ones (${ENV_DISCOVER}=0)")
    p.add_argument("--adb-server", dest="adb_servers", action="append", default=None,
                   metavar="tcp:HOST:PORT",
                   help="another adb server whose devices join the pool, e.g. a farm host "
                        f"(repeat it; also ${ENV_SERVERS}, comma-separated)")
    p.add_argument("--timeout-floor", action="append", default=None, metavar="TOOL=MS",
                   help="the least time a tool call gets, e.g. snapshot=20000 (repeat it; "
                        f"also ${ENV_FLOORS})")
    p.add_argument("--allow-eval", action="store_true", default=None,
                   help="let the eval tool run JavaScript in the app's page (with the "
                        f"page's cookies and origin) for every client (${ENV_EVAL}=1)")
    p.add_argument("--automobile", action="store_true", default=None,
                   help="also listen where AutoMobile's clients connect "
                        "($AUTOMOBILE_DAEMON_SOCKET_PATH, else "
                        "/tmp/auto-mobile-daemon-<uid>.sock), speaking AutoMobile's tools; "
                        f"never over a live AutoMobile daemon (${ENV_AUTOMOBILE}=1)")


def option_args(args: argparse.Namespace) -> list[str]:
    """The options given on a command line, as arguments for ``python -m baremobile.daemon``."""
    out: list[str] = []
    if args.idle_timeout is not None:
        out += ["--idle-timeout", str(args.idle_timeout)]
    for d in args.device or ():
        out += ["--device", d]
    if args.no_discover:
        out.append("--no-discover")
    for s in args.adb_servers or ():
        out += ["--adb-server", s]
    for f in args.timeout_floor or ():
        out += ["--timeout-floor", f]
    if args.allow_eval:
        out.append("--allow-eval")
    if getattr(args, "automobile", None):
        out.append("--automobile")
    return out


def _config(args: argparse.Namespace) -> dict[str, Any]:
    from baremobile.errors import InvalidArgument
    from baremobile.transport.server import parse_server_socket

    idle = args.idle_timeout
    if idle is None:
        raw = os.environ.get(ENV_IDLE, "")
        try:
            idle = float(raw) if raw else DEFAULT_IDLE
        except ValueError:
            raise InvalidArgument(f"${ENV_IDLE}={raw!r} is not a number of seconds") from None
    discover = not args.no_discover and os.environ.get(ENV_DISCOVER, "1").strip().lower() \
        not in ("0", "false", "no", "off")
    floors: dict[str, int] = {}
    for item in (args.timeout_floor or []) + _list(ENV_FLOORS):
        tool, _, ms = item.partition("=")
        if not tool.strip() or not ms.strip().isdigit():
            raise InvalidArgument(f"timeout floor {item!r} is not TOOL=MS",
                                  hint="e.g. --timeout-floor snapshot=20000")
        floors.setdefault(tool.strip(), int(ms))
    return {
        "idle_timeout": idle,
        "devices": (args.device or []) + _list(ENV_DEVICES),
        "discover": discover,
        "servers": [parse_server_socket(s) for s in
                    (args.adb_servers or []) + _list(ENV_SERVERS)],
        "floors_ms": floors,
        "allow_eval": bool(args.allow_eval) or os.environ.get(ENV_EVAL, "").strip().lower()
        in ("1", "true", "yes", "on"),
        "automobile": bool(getattr(args, "automobile", None)) or
        os.environ.get(ENV_AUTOMOBILE, "").strip().lower() in ("1", "true", "yes", "on"),
    }


def serve(args: argparse.Namespace, *, log_to_stderr: bool = True) -> int:
    """Run the daemon in this process until it stops; returns the exit status."""
    import logging

    from baremobile.daemon import paths
    from baremobile.daemon.errors import DaemonError
    from baremobile.daemon.hub import Hub
    from baremobile.daemon.server import run

    config = _config(args)
    level = logging.DEBUG if getattr(args, "verbose", False) else logging.INFO
    handler = logging.StreamHandler(sys.stderr) if log_to_stderr else None
    if handler is not None:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: "
                                               "%(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(level)
    hub = Hub(devices=config["devices"], discover=config["discover"],
              servers=config["servers"], floors_ms=config["floors_ms"],
              allow_eval=config["allow_eval"])
    try:
        endpoint = None
        if config["automobile"]:
            from baremobile.daemon.automobile import Endpoint

            endpoint = Endpoint()
        reason = run(hub, paths.socket_path(), idle_timeout=config["idle_timeout"],
                     automobile=endpoint)
    except DaemonError as exc:
        hub.close()
        if "another daemon is running" in exc.message:
            logging.getLogger("baremobile.daemon").info("%s; leaving it be", exc.message)
            return 0
        print(f"error [{exc.code}]: {exc}", file=sys.stderr)
        return 1
    logging.getLogger("baremobile.daemon").info("exit: %s", reason)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m baremobile.daemon``: the daemon in the foreground (logs on stderr)."""
    p = argparse.ArgumentParser(prog="python -m baremobile.daemon",
                                description="The baremobile session daemon.")
    add_options(p)
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    from baremobile.errors import BaremobileError

    try:
        return serve(args)
    except BaremobileError as exc:
        print(f"error [{exc.code}]: {exc}", file=sys.stderr)
        return 2
