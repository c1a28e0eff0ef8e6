"""Hostile input against the parsers' work bounds (issue 21), vs honest input of the kind.

    python benchmarks/hostile.py [--rounds 5]

Measured in the same run (best of --rounds):

  APK labels    each hostile APK of ``tests/hostile_apks.py`` (15-160 KB files whose
                manifest claims 200,000 elements of 65,535 attributes, or whose resource
                table holds 60,000 sparse type chunks claiming entries to its end — hours
                of CPU each before the work bound) vs reading a real app's APK
                (the baseline)
  dump          a 54 MB dump of 15 elements with 340,000 attributes each (9 s before the
                attribute bound) vs a real-sized dump of 500 ordinary nodes (the baseline)
  JSON          safetext.loads of a 4 MB DevTools-like answer with and without escaped
                surrogates (the walk runs only then) vs json.loads (the baseline)

Machines here are shared and noisy: read the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baremobile.android.apk import ApkError, read_apk  # noqa: E402
from baremobile.errors import BaremobileError  # noqa: E402
from baremobile.safetext import loads  # noqa: E402
from baremobile.snapshot import from_xml  # noqa: E402
from baremobile.virtual.apk import build_apk  # noqa: E402
from tests.hostile_apks import HOSTILE_APKS  # noqa: E402


def best(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        with contextlib.suppress(ApkError, BaremobileError, ValueError):
            fn()  # a refusal is an answer too
        times.append(time.perf_counter() - t0)
    return min(times)


def _node(i: int, extra: str = "") -> str:
    return (f'<node index="{i}" text="item {i}" resource-id="" class="android.widget.TextView" '
            f'package="com.example" content-desc="" checkable="false" checked="false" '
            f'clickable="true" enabled="true" focusable="false" focused="false" '
            f'scrollable="false" long-clickable="false" password="false" selected="false" '
            f'bounds="[0,{i}][100,{i + 1}]" {extra}/>')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    rounds = ap.parse_args().rounds

    rows: list[tuple[str, str, float, float]] = []
    real = build_apk("org.example.app", "Example", 1, "1.0", "org.example.app.Main")
    base = best(lambda: read_apk(io.BytesIO(real)), rounds)
    for name, apk in HOSTILE_APKS.items():
        rows.append(("APK label", f"{name} ({len(apk) // 1024} KB)",
                     best(lambda a=apk: read_apk(io.BytesIO(a)), rounds), base))

    honest = ('<?xml version="1.0"?><hierarchy rotation="0">'
              + "".join(_node(i) for i in range(500)) + "</hierarchy>").encode()
    attrs = " ".join(f'a{i}=""' for i in range(340_000))
    bomb = ('<?xml version="1.0"?><hierarchy rotation="0">'
            + _node(0, attrs) * 15 + "</hierarchy>").encode()
    rows.append(("dump", f"15 elements of 340,000 attributes ({len(bomb) >> 20} MB)",
                 best(lambda: from_xml(bomb), rounds), best(lambda: from_xml(honest), rounds)))

    strings = [f"text {i} é" for i in range(100_000)]
    plain = json.dumps({"strings": strings, "nodes": list(range(200_000))})
    escaped = json.dumps({"strings": strings + ["\ud800"], "nodes": list(range(200_000))})
    json_base = best(lambda: json.loads(plain), rounds)
    rows.append(("JSON", f"{len(plain) >> 20} MB, no surrogate", best(lambda: loads(plain),
                                                                      rounds), json_base))
    rows.append(("JSON", f"{len(escaped) >> 20} MB, one escaped surrogate",
                 best(lambda: loads(escaped), rounds), json_base))

    print(f"{'input':10} {'case':58} {'ms':>9} {'baseline ms':>12} {'ratio':>8}")
    for kind, case, t, b in rows:
        print(f"{kind:10} {case:58} {t * 1e3:9.1f} {b * 1e3:12.2f} {t / b:8.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
