"""One CLI action through the running daemon vs a bare Python process start.

    python benchmarks/cli.py [--rounds 30]

A shell agent pays one process start per command, so a session verb must cost little more
than starting Python. This starts a virtual phone and a daemon (on a private socket), opens
a session, then alternates, in the same run:

  python -c "import socket, json"   the floor: an interpreter that imports what a client
                                    needs (the same interpreter as the CLI)
  baremobile press back             a real action: the CLI process starts, parses, connects
                                    to the daemon, the daemon presses Back on the phone
                                    (over ADB), the answer comes back and is printed

and prints both medians and their ratio (the goal is at most 2.5x). It also shows what the
CLI process imports, so a heavy import sneaking onto the fast path is easy to spot.

Both run with bytecode caching on (into a temporary ``PYTHONPYCACHEPREFIX``), as an
installed package has it: with ``PYTHONDONTWRITEBYTECODE`` every run would recompile
baremobile's modules from source, which measures the compiler, not the CLI.
Machines here are shared and noisy: read the ratio, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _adb import free_port  # noqa: E402

from baremobile.virtual import VirtualPhone  # noqa: E402

GOAL = 2.5


def cli_command() -> list[str]:
    script = Path(sys.executable).with_name("baremobile")
    if script.exists():
        return [str(script)]
    found = shutil.which("baremobile")
    return [found] if found else [sys.executable, "-m", "baremobile"]


def timed(argv: list[str], env: dict[str, str], cwd: str) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr.decode()}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    opts = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bm-bench-")
    env = {**os.environ, "BAREMOBILE_DAEMON_SOCKET": os.path.join(work, "d.sock"),
           "BAREMOBILE_DAEMON_DISCOVER": "0", "ANDROID_USER_HOME": os.path.join(work, "home"),
           "BAREMOBILE_SESSION": "bench", "PYTHONPYCACHEPREFIX": os.path.join(work, "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cli = cli_command()
    baseline = [sys.executable, "-c", "import socket, json"]
    with VirtualPhone(port=free_port()) as phone:
        try:
            subprocess.run([*cli, "open", "-d", phone.address], env=env, cwd=work, check=True,
                           stdout=subprocess.DEVNULL)
            for _ in range(3):  # warm the page cache and the daemon's connection
                timed([*cli, "press", "back"], env, work)
                timed(baseline, env, work)
            before = len(phone.events.list("key"))
            base_t, cli_t = [], []
            for _ in range(opts.rounds):
                base_t.append(timed(baseline, env, work))
                cli_t.append(timed([*cli, "press", "back"], env, work))
            pressed = len(phone.events.list("key")) - before
            imports = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", "import baremobile.cli.session, "
                 "baremobile.daemon.client"], env=env, capture_output=True, text=True).stderr
        finally:
            subprocess.run([*cli, "daemon", "stop"], env=env, cwd=work,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(work, ignore_errors=True)
    b, c = statistics.median(base_t), statistics.median(cli_t)
    ratio = c / b
    loaded = sorted({line.split("|")[-1].strip() for line in imports.splitlines()
                     if "baremobile" in line.split("|")[-1]})
    heavy = [m for m in ("adb_shell", "mcp", "baremobile.page", "baremobile.transport",
                         "baremobile.tools") if any(x.strip() == m for x in
                                                     (line.split("|")[-1] for line in
                                                      imports.splitlines()))]
    print(f"rounds: {opts.rounds} (the phone saw {pressed} Back presses)")
    print(f"python -c 'import socket, json'   median {b * 1000:7.1f} ms")
    print(f"baremobile press back             median {c * 1000:7.1f} ms")
    print(f"ratio: {ratio:.2f}x (goal <= {GOAL}x) -> {'ok' if ratio <= GOAL else 'OVER'}")
    print(f"the CLI path imports {len(loaded)} baremobile modules; device stack loaded: "
          f"{', '.join(heavy) or 'none'}")
    return 0 if ratio <= GOAL and not heavy else 1


if __name__ == "__main__":
    raise SystemExit(main())
