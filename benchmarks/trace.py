"""What recording a trace costs: time per step and bytes per step (issue 23).

    python benchmarks/trace.py [--rounds 6]

Runs the Verified Flows (``tests/verified_flows.py``: launch, snapshots, taps, typing,
scrolls, keys) on a fresh virtual phone over TCP, round after round, three ways
interleaved in the same run:

  untraced            the flow as an agent runs it (the baseline every ratio is against)
  traced              inside ``page.tracing.start(...)``: per step a JSON record, each
                      distinct dump stored once, the zip packed at the end
  traced+screenshots  the same with ``screenshots=True`` (a screencap per acting step and
                      per snapshot, downscaled to 540 px when Pillow is installed)

Per way: the median time per step of the flows' bodies (what each step costs while
recording) and its ratio to untraced, the fixed cost per trace (``start`` — the API level
and a dump of the screen before the first step — and ``stop`` — one more dump when the
last step acted, packing the zip), and the zip's size per step. Machines here are shared
and noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baremobile import connect  # noqa: E402
from baremobile.virtual import VirtualPhone  # noqa: E402
from tests.verified_flows import FLOWS  # noqa: E402

WAYS = ("untraced", "traced", "traced+screenshots")


def run_flows(way: str, folder: Path, n: int) -> tuple[float, float, int, int]:
    """(seconds in the flows, seconds starting and stopping, steps, trace bytes) of every
    flow once, each on a fresh phone."""
    body, fixed, steps, size = 0.0, 0.0, 0, 0
    for i, flow in enumerate(FLOWS.values()):
        with VirtualPhone() as phone, connect(phone.address) as page:
            path = folder / f"{way}-{n}-{i}.zip"
            counted: list[int] = []
            page.observe(_Counter(counted))
            page.device.api_level  # noqa: B018 - asked once on every way (cached)
            traced = way != "untraced"
            t0 = time.perf_counter()
            if traced:
                page.tracing.start(path, screenshots=way.endswith("screenshots"))
            t1 = time.perf_counter()
            flow(page, page.snapshot)
            t2 = time.perf_counter()
            if traced:
                page.tracing.stop()
                size += path.stat().st_size
            t3 = time.perf_counter()
            body += t2 - t1
            fixed += (t1 - t0) + (t3 - t2)
            steps += len(counted)
    return body, fixed, steps, size


class _Counter:
    """Counts steps for the untraced way (an observer costs nothing measurable)."""

    def __init__(self, into: list[int]) -> None:
        self.into = into

    def step_started(self, page: object, step: object) -> None:
        pass

    def step_ended(self, page: object, step: object) -> None:
        self.into.append(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run_flows("traced", folder, -1)  # warm up imports and caches
        per_step: dict[str, list[float]] = {w: [] for w in WAYS}
        fixed: dict[str, list[float]] = {w: [] for w in WAYS}
        sizes: dict[str, list[float]] = {w: [] for w in WAYS}
        for r in range(args.rounds):
            order = WAYS if r % 2 == 0 else tuple(reversed(WAYS))  # interleaved
            for way in order:
                body, fix, steps, size = run_flows(way, folder, r)
                per_step[way].append(body / steps)
                fixed[way].append(fix / len(FLOWS))
                sizes[way].append(size / steps)
    base = statistics.median(per_step["untraced"])
    print(f"{len(FLOWS)} Verified Flows per round, {args.rounds} rounds, medians")
    print(f"{'way':<20} {'per step (ms)':>14} {'ratio':>7} {'per trace (ms)':>15} "
          f"{'bytes/step':>11}")
    for way in WAYS:
        ps = statistics.median(per_step[way])
        size = statistics.median(sizes[way])
        print(f"{way:<20} {ps * 1000:>14.2f} {ps / base:>6.2f}x "
              f"{statistics.median(fixed[way]) * 1000:>15.1f} "
              f"{f'{size:.0f}' if size else '—':>11}")


if __name__ == "__main__":
    main()
