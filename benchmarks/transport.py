"""Per-command latency: a persistent direct ADB connection vs spawning `adb` per command.

    python benchmarks/transport.py [--calls 200]

Starts the virtual phone and a private Debian `adb` server (port chosen here), then runs
`input tap X Y` N times four ways, in the same run, against the same phone:

  baremobile direct   DirectTransport: one persistent connection, one write per message,
                      TCP_NODELAY, shell v2 (exit status included)
  adb-shell vanilla   adb-shell's AdbDeviceTcp.shell on its stock TCP transport (header and
                      payload in two writes, Nagle on) — what the fix is about
  adb server socket   ServerTransport: smart-socket request to the adb server per command
  adb subprocess      `adb -s SERIAL shell input tap X Y` per command — what the JS
                      baremobile does (the baseline every ratio is against)

Machines here are shared and noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baremobile.transport import DirectTransport, ServerTransport  # noqa: E402
from baremobile.transport.keys import ensure_key  # noqa: E402
from baremobile.transport.server import AdbServerClient  # noqa: E402
from baremobile.virtual import VirtualPhone  # noqa: E402


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5586:
            return port


def timed(fn, calls: int) -> list[float]:
    out = []
    for i in range(calls):
        t0 = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    adb = shutil.which("adb")
    home = Path(tempfile.mkdtemp(prefix="bm-bench-"))
    key = ensure_key(home / ".android" / "adbkey")
    rows: list[tuple[str, list[float]]] = []
    with VirtualPhone(
        port=free_port(), auth="known-keys", trusted_keys=[key.GetPublicKey()]
    ) as phone:
        cmd = lambda i: f"input tap {100 + i % 800} {300 + i % 1500}"  # noqa: E731

        direct = DirectTransport(phone.host, phone.port, keys=[key])
        direct.connect()
        rows.append(
            ("baremobile direct", timed(lambda i: direct.shell(cmd(i)).check(), args.calls))
        )
        direct.close()

        from adb_shell.adb_device import AdbDeviceTcp

        vanilla = AdbDeviceTcp(phone.host, phone.port, default_transport_timeout_s=10)
        vanilla.connect(rsa_keys=[key])
        n_vanilla = min(args.calls, 100)  # ~45 ms each; 100 calls make the point
        rows.append(("adb-shell vanilla", timed(lambda i: vanilla.shell(cmd(i)), n_vanilla)))
        vanilla.close()

        if adb is None:
            print("Debian adb not installed: skipping the adb server and subprocess rows")
        else:
            port = free_port()
            env = {**os.environ, "HOME": str(home), "ANDROID_ADB_SERVER_PORT": str(port)}
            def run(*a):
                return subprocess.run(
                            [adb, "-P", str(port), *a],
                            env=env,  # noqa: E731
                            capture_output=True,
                            check=True,
                        )
            run("start-server")
            try:
                run("connect", phone.address)
                for _ in range(100):
                    if f"{phone.address}\tdevice" in run("devices").stdout.decode():
                        break
                    time.sleep(0.05)
                server = ServerTransport(phone.address, client=AdbServerClient(port=port))
                rows.append(
                    ("adb server socket", timed(lambda i: server.shell(cmd(i)).check(), args.calls))
                )
                rows.append(
                    (
                        "adb subprocess",
                        timed(
                            lambda i: run("-s", phone.address, "shell", *cmd(i).split()), args.calls
                        ),
                    )
                )
            finally:
                run("kill-server")
        taps = len(phone.events.list("tap"))
    shutil.rmtree(home, ignore_errors=True)

    base = dict(rows).get("adb subprocess")
    base_med = statistics.median(base) if base else None
    print(
        f"\n{'':20}{'calls':>7}{'median ms':>11}{'p95 ms':>9}{'total s':>9}"
        f"{'speedup vs adb subprocess':>28}"
    )
    for name, samples in rows:
        med = statistics.median(samples)
        p95 = sorted(samples)[int(0.95 * (len(samples) - 1))]
        ratio = f"{base_med / med:.1f}x" if base_med else "n/a"
        print(
            f"{name:20}{len(samples):>7}{med * 1000:>11.2f}{p95 * 1000:>9.2f}"
            f"{sum(samples):>9.2f}{ratio:>28}"
        )
    print(f"\nthe phone logged {taps} taps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
