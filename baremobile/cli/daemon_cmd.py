"""``baremobile daemon start|stop|status`` and ``baremobile skill``."""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from pathlib import Path

from baremobile.cli import output
from baremobile.errors import BaremobileError

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["add_commands", "skill_text"]

SKILL = Path(__file__).with_name("SKILL.md")


def add_commands(sub: Any) -> None:
    from baremobile.daemon.service import add_options

    d = sub.add_parser("daemon", help="the session daemon: start, stop, status",
                       description="The session daemon holds the devices and sessions between "
                                   "commands (docs/daemon.md). The session commands start it "
                                   "on demand; it stops after 15 idle minutes.")
    dsub = d.add_subparsers(dest="action", required=True)
    s = dsub.add_parser("start", help="start it (the session commands also start it on demand)",
                        description="Start the session daemon in the background (or in this "
                                    "terminal with --foreground). Options here are its "
                                    "settings until it stops.")
    add_options(s)
    s.add_argument("--foreground", action="store_true",
                   help="run in this terminal, logging to stderr (Ctrl-C stops it)")
    s.add_argument("--trace", metavar="DIR", default=None,
                   help="record a trace of each device's session into DIR (docs/traces.md)")
    s.set_defaults(func=_start)
    s = dsub.add_parser("stop", help="stop it (its sessions end)",
                        description="Stop the session daemon: its sessions end and their "
                                    "devices are let go (a daemon that does not answer is "
                                    "sent SIGTERM, then SIGKILL). Exits 0 when none runs.")
    s.set_defaults(func=_stop)
    s = dsub.add_parser("status", help="version, uptime, sessions and devices",
                        description="Show the running daemon: version, pid, socket, uptime, "
                                    "sessions and devices. Exits 9 (the DAEMON family) when "
                                    "no daemon runs.")
    s.add_argument("--json", action="store_true", help="print it as one JSON object")
    s.set_defaults(func=_status)

    s = sub.add_parser("skill", help="print the skill file that teaches coding agents the CLI",
                       description="Print SKILL.md: a skill file that teaches coding agents "
                                   "(Claude Code and others) the session commands, or "
                                   "--install it where the agent reads skills.")
    s.add_argument("--install", metavar="DIR", nargs="?", const=".claude/skills",
                   help="write it to DIR/baremobile/SKILL.md instead (default .claude/skills; "
                        "~/.claude/skills for every project)")
    s.set_defaults(func=_skill)


def skill_text() -> str:
    return SKILL.read_text(encoding="utf-8")


def _skill(args: argparse.Namespace) -> int:
    if args.install is None:
        print(skill_text(), end="")
        return 0
    target = Path(os.path.expanduser(args.install)) / "baremobile" / "SKILL.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(skill_text(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


def _client(**kw: Any) -> Any:
    from baremobile.daemon.client import Client

    return Client(**kw)


def _fail(exc: BaremobileError, as_json: bool = False) -> int:
    data = exc.to_dict(output.cli_words())
    data["category"] = getattr(exc, "category", None) or "DAEMON"
    return output.print_error(data, as_json=as_json)


def _start(args: argparse.Namespace) -> int:
    from baremobile.daemon import service

    if getattr(args, "trace", None):
        from baremobile.cli.trace_cmd import record_into

        record_into(args.trace, "daemon")  # the daemon inherits this environment
    try:
        if args.foreground:
            return service.serve(args)
        with _client(autostart=False, handshake=False) as probe:
            try:
                info = probe.request("daemon/ping")
                print(f"the daemon is already running (version {info.get('version')}) on "
                      f"{probe.path}")
                return 0
            except BaremobileError:
                pass
        with _client(start_args=service.option_args(args)) as client:
            info = client.request("daemon/status", {"door": "cli"})
    except BaremobileError as exc:
        return _fail(exc)
    print(f"daemon {info['version']} started (pid {info['pid']}) on {info['socket']}; "
          f"log: {info['log']}")
    return 0


def _stop(args: argparse.Namespace) -> int:
    from baremobile.daemon import paths

    try:
        client = _client(autostart=False, handshake=False)
        meta = paths.read_metadata(client.path) or {}
        try:
            client.request("daemon/shutdown", timeout_ms=5000)
        except BaremobileError as exc:
            if exc.code == "DAEMON_UNAVAILABLE" and not meta:
                print("no daemon is running")
                return 0
        finally:
            client.close()
        pid = meta.get("pid") if isinstance(meta.get("pid"), int) else None
        if not _wait_gone(client.path, pid, 10.0) and pid:
            os.kill(pid, signal.SIGTERM)
            if not _wait_gone(client.path, pid, 5.0):
                os.kill(pid, signal.SIGKILL)
    except BaremobileError as exc:
        return _fail(exc)
    print("daemon stopped")
    return 0


def _wait_gone(path: str, pid: int | None, seconds: float) -> bool:
    """True once no daemon listens on ``path`` and process ``pid`` is gone."""
    from baremobile.daemon.client import _alive

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not os.path.exists(path) and not (pid and _alive(pid)):
            return True
        time.sleep(0.05)
    return False


def _status(args: argparse.Namespace) -> int:
    try:
        with _client(autostart=False, handshake=False) as client:
            info = client.request("daemon/status", {"door": "cli"})
    except BaremobileError as exc:
        if exc.code == "DAEMON_UNAVAILABLE":
            if args.json:
                print(json.dumps({"running": False}))
            else:
                print("no daemon is running (the session commands start one; so does "
                      "'baremobile daemon start')")
            return output.EXIT_CODES["DAEMON"]  # not running: the daemon family, not a bug
        return _fail(exc, args.json)
    if args.json:
        print(json.dumps({"running": True, **info}))
        return 0
    up = info["uptimeMs"] / 1000
    print(f"daemon {info['version']} (pid {info['pid']}) on {info['socket']}, up {up:.0f} s, "
          f"{info['connections']} connection(s), {info['requestsInFlight']} request(s) "
          f"running; log: {info['log']}")
    idle = info.get("idleTimeoutS")
    print(f"stops after {idle:g} s idle" if idle else "never stops by itself")
    for s in info.get("sessions", []):
        print(f"session {s['sessionId']}: {s['assignedDevice'] or 'no device'}, last used "
              f"{output.iso_time(s.get('lastUsedAt'))}")
    for d in info.get("devices", []):
        print(f"device {d['device']}: {d['state']}" +
              (f" ({d['session']})" if d.get("session") else ""))
    return 0
