"""What issue 12's verbs cost, against a one-command baseline measured in the same run.

    python benchmarks/gestures.py [--rounds 20]

Starts virtual phones (API 35: `input`/`uinput` routes; API 28: `sendevent`) on a real
clock without modelled latency, so what is measured is baremobile's own work and its
round trips (probing, pushing the plan, running it, the phone decoding it), not a device's
process starts. Baseline: `tap_xy` (one `input tap`, one round trip).

Also: the plan's own timing model for the double tap per route, a label lookup (first,
then cached) with the number of ranged reads, and how many tools each group holds.
Machines here are shared and noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baremobile import connect  # noqa: E402
from baremobile.android.gestures import double_tap_plan  # noqa: E402
from baremobile.android.touch_events import (  # noqa: E402
    double_tap_timing,
    parse_getevent,
    pick_touchscreen,
    sendevent_script,
)
from baremobile.device.apps import RemoteFile  # noqa: E402
from baremobile.tools.spec import GROUPS, TOOLS  # noqa: E402
from baremobile.virtual import VirtualPhone  # noqa: E402


def timed(fn: Callable[[], object], rounds: int) -> float:
    fn()  # warm: connections, probes, caches
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    n = ap.parse_args().rounds
    rows: list[tuple[str, float]] = []
    with VirtualPhone(port=0) as phone, connect(phone.address) as page:
        page.launch("org.baremobile.weather")
        rows.append(("tap_xy (baseline: 1 round trip)", timed(lambda: page.tap_xy(540, 300), n)))
        rows.append(("double_tap API 35 (input)", timed(lambda: page.double_tap((540, 300)), n)))
        rows.append(("drag API 35 (input draganddrop)",
                     timed(lambda: page.drag((540, 300), (540, 900), 50), n)))
        rows.append(("pinch API 35 (uinput)", timed(lambda: page.pinch((540, 1200), 1.5, 100), n)))
        rows.append(("3-finger gesture API 35 (uinput)", timed(lambda: page.gesture(
            [[{"x": 200 + 300 * i, "y": 800, "time": 0}, {"x": 200 + 300 * i, "y": 1000,
                                                         "time": 100},
              {"x": 200 + 300 * i, "y": 1200, "time": 200}] for i in range(3)]), n)))
        page._apps_cache = None  # noqa: SLF001 - a first lookup, then cached ones
        t0 = time.perf_counter()
        page.app_label("org.baremobile.weather")
        first = (time.perf_counter() - t0) * 1000
        rows.append(("app_label first (ranged APK reads)", first))
        rows.append(("app_label cached", timed(lambda: page.app_label("org.baremobile.weather"),
                                               n)))
        apk = page._apps.path("org.baremobile.weather")  # noqa: SLF001
        size, _ = page.device.file_info(apk)
        rf = RemoteFile(page.device, apk, size)
        from baremobile.android.apk import read_apk

        read_apk(rf)
        reads = rf.reads
        rows.append(("list_apps labels=True (all apps)", timed(
            lambda: page.list_apps(labels=True), max(3, n // 4))))
        rows.append(("execute 3 steps (one request)", timed(lambda: __import__(
            "baremobile").tools.call(page, "execute", {"steps": [
                {"tool": "tap", "args": {"x": 540, "y": 300}}] * 3}, groups="all"), n)))
        screen_text = page.device.transport.shell("getevent -lp").text
    with VirtualPhone(port=0, api_level=28) as phone, connect(phone.address) as page:
        page.launch("org.baremobile.weather")
        rows.append(("double_tap API 28 (sendevent script)",
                     timed(lambda: page.double_tap((540, 300)), n)))
        rows.append(("pinch API 28 (sendevent script)",
                     timed(lambda: page.pinch((540, 1200), 1.5, 100), n)))
    base = rows[0][1]
    print(f"{'operation':42} {'median ms':>10} {'× baseline':>11}")
    for name, ms in rows:
        print(f"{name:42} {ms:10.1f} {ms / base:11.1f}")
    print(f"\nAPK label lookup: {reads} ranged read(s) of 1 MiB for a {size}-byte APK")
    ts = pick_touchscreen(parse_getevent(screen_text))
    assert ts is not None
    script = sendevent_script(double_tap_plan(540, 300, 1080, 2400), ts, rotation=0,
                              natural_w=1080, natural_h=2400)
    print("\ndouble tap, interval the app measures (the plan's timing model, 40–300 ms wanted):")
    for t in (double_tap_timing("input"), double_tap_timing("uinput"),
              double_tap_timing("sendevent", script), double_tap_timing("input-vm")):
        print(f"  {t.route:10} {t.low_ms:6.0f}–{t.high_ms:<6.0f} ms  {'ok' if t.ok else 'NO'}  "
              f"{t.why}")
    print("\ntools per group:", ", ".join(
        f"{g} {sum(1 for t in TOOLS if t.group == g)}" for g in GROUPS), f"(all {len(TOOLS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
