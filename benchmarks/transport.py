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

Then a large dump (issue 10): `cat` of a 100 KB uiautomator dump on the phone (the bytes
`Page.snapshot()` streams), N times each way, against the adb server route as baseline:

  direct              DirectTransport as shipped: protocol 0x01000001, no checksums
  direct, checksums   DirectTransport announcing 0x01000000, as adb-shell does: every
                      payload byte-summed (by the phone, as an Android 8 or older adbd would)
  adb server socket   ServerTransport (Debian's adb negotiates 0x01000001 with the phone)

Then what a verb adds (issue 27: tap_xy ≤ 1.3x the wire floor): the same tap, interleaved
call by call, on a phone in its own process (``python -m baremobile virtual``: it does not
share this interpreter's GIL with the client), against the floor — a raw adb-shell
connection sending the same command:

  raw adb-shell       adb-shell's AdbDeviceTcp.shell, stock transport with TCP_NODELAY set:
                      the floor every row is divided by
  our exec            DirectTransport.shell('input tap X Y'): one shell-v2 round trip on our
                      wire (exit status included), nothing else
  Page.tap_xy         the verb: the page's guard, cancel token, argument checks, quoting
  Page.tap(ref)       the verb on a ref as the snapshot shows it (``trust_refs``): target
                      resolution as well — the verb's own cost
  tap(ref), stale     the same ref after an action: the screen is read again first (one
                      dump, issue 20's check that the ref still names its element)

Machines here are shared and noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _adb import PrivateAdb, free_port  # noqa: E402

from baremobile import connect  # noqa: E402
from baremobile.transport import DirectTransport  # noqa: E402
from baremobile.transport.keys import ensure_key  # noqa: E402
from baremobile.virtual import VirtualPhone  # noqa: E402


def timed(fn, calls: int) -> list[float]:
    out = []
    for i in range(calls):
        t0 = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t0)
    return out


def big_dump(size: int = 100_000) -> bytes:
    """A uiautomator dump of ``size`` bytes (a real one from the corpus when it is there)."""
    corpus = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "dumps"
    found = sorted(corpus.glob("*.xml"), key=lambda p: -p.stat().st_size) if corpus.is_dir() else []
    if found and found[0].stat().st_size >= size:
        return found[0].read_bytes()[:size]
    node = (
        b'<node index="0" text="Item" resource-id="com.example:id/title" '
        b'class="android.widget.TextView" package="com.example" content-desc="" '
        b'clickable="true" bounds="[0,100][1080,200]" />'
    )
    return (b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            + node * (size // len(node) + 1))[:size]


def table(rows: list[tuple[str, list[float]]], base_name: str) -> None:
    base = dict(rows).get(base_name)
    base_med = statistics.median(base) if base else None
    print(
        f"\n{'':20}{'calls':>7}{'median ms':>11}{'p95 ms':>9}{'total s':>9}"
        f"{'speedup vs ' + base_name:>32}"
    )
    for name, samples in rows:
        med = statistics.median(samples)
        p95 = sorted(samples)[int(0.95 * (len(samples) - 1))]
        ratio = f"{base_med / med:.2f}x" if base_med else "n/a"
        print(
            f"{name:20}{len(samples):>7}{med * 1000:>11.2f}{p95 * 1000:>9.2f}"
            f"{sum(samples):>9.2f}{ratio:>32}"
        )


def slowdown(rows: list[tuple[str, list[float]]], base_name: str) -> None:
    """Like :func:`table`, as how many times the baseline's time each row takes."""
    base_med = statistics.median(dict(rows)[base_name])
    print(f"\n{'':20}{'calls':>7}{'median ms':>11}{'p95 ms':>9}{'x ' + base_name:>20}")
    for name, samples in rows:
        med = statistics.median(samples)
        p95 = sorted(samples)[int(0.95 * (len(samples) - 1))]
        print(f"{name:20}{len(samples):>7}{med * 1000:>11.3f}{p95 * 1000:>9.3f}"
              f"{med / base_med:>19.2f}x")


def verb_overhead(key: object, key_path: str, calls: int) -> list[tuple[str, list[float]]]:
    """The tap through the Page against raw adb-shell, interleaved call by call, on a phone
    in a process of its own."""
    import socket
    import subprocess

    from adb_shell.adb_device import AdbDeviceTcp

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "baremobile", "virtual", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        address = f"127.0.0.1:{port}"
        page = connect(address, key_path=key_path)
        page.snapshot()
        ref = min(page.last_snapshot.refs)  # type: ignore[union-attr]
        trusting = connect(address, key_path=key_path)
        trusting.trust_refs = True
        trusting.snapshot()
        ours = page.transport
        raw = AdbDeviceTcp("127.0.0.1", port, default_transport_timeout_s=10)
        raw.connect(rsa_keys=[key])
        raw._io_manager._transport._connection.setsockopt(  # noqa: SLF001 - the floor's socket
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        ways = {
            "raw adb-shell": lambda: raw.shell("input tap 10 10"),
            "our exec": lambda: ours.shell("input tap 10 10").check(),
            "Page.tap_xy": lambda: page.tap_xy(10, 10),
            "Page.tap(ref)": lambda: trusting.tap(ref),
            "tap(ref), stale": lambda: page.tap(ref),
        }
        samples: dict[str, list[float]] = {name: [] for name in ways}
        for fn in ways.values():  # warm up
            fn()
        for _ in range(calls):
            for name, fn in ways.items():
                t0 = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t0)
        raw.close()
        page.close()
        trusting.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return list(samples.items())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--dumps", type=int, default=200, help="large-dump transfers per route")
    args = ap.parse_args()
    dump = big_dump()
    dump_rows: list[tuple[str, list[float]]] = []
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

        if not PrivateAdb.available():
            print("Debian adb not installed: skipping the adb server and subprocess rows")
        else:
            with PrivateAdb(home, phone.address) as private:
                server = private.transport()
                rows.append(
                    ("adb server socket", timed(lambda i: server.shell(cmd(i)).check(), args.calls))
                )
                rows.append(
                    (
                        "adb subprocess",
                        timed(
                            lambda i: private.run("-s", phone.address, "shell", *cmd(i).split()),
                            args.calls,
                        ),
                    )
                )
                # the large dump, each route in turn (interleaved rounds even out the noise)
                phone.fs.write("/sdcard/big_dump.xml", dump)
                routes = {
                    "direct": DirectTransport(phone.host, phone.port, keys=[key]),
                    "direct, checksums": DirectTransport(
                        phone.host, phone.port, keys=[key], version=0x01000000
                    ),
                    "adb server socket": server,
                }
                samples: dict[str, list[float]] = {name: [] for name in routes}
                for _ in range(args.dumps // 20):
                    for name, t in routes.items():
                        for _ in range(20):
                            t0 = time.perf_counter()
                            got = t.exec_out("cat /sdcard/big_dump.xml")
                            samples[name].append(time.perf_counter() - t0)
                            assert got == dump
                for name in routes:
                    dump_rows.append((name, samples[name]))
                for t in routes.values():
                    t.close()
        taps = len(phone.events.list("tap"))
    verb_rows = verb_overhead(key, str(home / ".android" / "adbkey"), args.calls)
    shutil.rmtree(home, ignore_errors=True)

    print("per-command latency: input tap X Y")
    table(rows, "adb subprocess")
    if dump_rows:
        kb = len(dump) // 1000
        print(f"\nlarge dump: {kb} KB through exec: cat, as Page.snapshot() reads it")
        table(dump_rows, "adb server socket")
    print("\na tap through the Page vs raw adb-shell (interleaved, the phone in its own "
          "process)")
    slowdown(verb_rows, "raw adb-shell")
    print(f"\nthe phone logged {taps} taps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
