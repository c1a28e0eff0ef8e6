"""Device files: reading a part, and pulling to disk, vs holding the whole file.

    python benchmarks/files.py [--mib 64]

Starts `baremobile virtual` in its own process (so this process's memory is the host's
alone), puts a file of --mib MiB on it, then measures in the same run:

  read_file 100 B   the tool reads 100 bytes at the middle of the file
                    (`tail -c +N | head -c 100` over exec:)
  whole pull        page.pull(path)[offset:offset + 100] — what read_file did before
                    (the baseline)
  pull_file         the tool streams the file into a file of the files directory
  pull + write      page.pull(path), then write the bytes — what pull_file did before

Peak memory is this process's traced Python allocations (tracemalloc) during the call.
Machines here are shared and noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baremobile import connect, tools  # noqa: E402

MiB = 1 << 20


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5586:
            return port


def measured(fn: Callable[[], object]) -> tuple[float, int]:
    """(seconds, peak traced bytes) of one call."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        fn()
        return time.perf_counter() - t0, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64)
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="bm-bench-")
    env = {**os.environ, "ANDROID_USER_HOME": home}
    os.environ["ANDROID_USER_HOME"] = home  # a throwaway key, never the user's
    port = free_port()
    phone = subprocess.Popen([sys.executable, "-m", "baremobile", "virtual", "--port", str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert phone.stdout is not None
        for line in phone.stdout:
            if "Ctrl-C" in line:
                break
        with connect(f"127.0.0.1:{port}") as page, tempfile.TemporaryDirectory() as files:
            size = args.mib * MiB
            page.push(os.urandom(size), "/sdcard/big.bin")
            page.device.props()
            middle = size // 2
            rows = [
                ("read_file 100 B", lambda: tools.call(
                    page, "read_file", {"path": "/sdcard/big.bin", "max_bytes": 100,
                                        "offset": middle}, groups="files")),
                ("whole pull", lambda: page.pull("/sdcard/big.bin")[middle:middle + 100]),
                ("pull_file", lambda: tools.call(
                    page, "pull_file", {"path": "/sdcard/big.bin", "local_path": "a.bin",
                                        "overwrite": True}, groups="files", files_dir=files)),
                ("pull + write", lambda: Path(files, "b.bin").write_bytes(
                    page.pull("/sdcard/big.bin"))),
            ]
            results = {name: measured(fn) for name, fn in rows}
    finally:
        phone.terminate()
        phone.wait(10)
    print(f"{args.mib} MiB device file (virtual phone in its own process)\n")
    print(f"{'':18}{'time':>10}{'peak memory':>14}")
    for name, (secs, peak) in results.items():
        print(f"{name:18}{secs * 1000:>8.0f} ms{peak / MiB:>11.1f} MiB")
    read, whole = results["read_file 100 B"], results["whole pull"]
    pull, held = results["pull_file"], results["pull + write"]
    print(f"\nread_file vs whole pull: {whole[0] / read[0]:.0f}x faster, "
          f"{whole[1] / max(read[1], 1):.0f}x less memory")
    print(f"pull_file vs pull + write: {held[1] / max(pull[1], 1):.1f}x less memory, "
          f"time x{pull[0] / held[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
