"""The trace viewer at 500 steps: the page's size and how long Chromium takes to build it,
against a 50-step trace of the same session kind (issue 30).

    python benchmarks/trace_view.py [--rounds 3]

Records, on a fresh virtual phone, a session of N steps with screenshots (a scroll and a
``snapshot(diff=True)``, again and again; the trace keeps at most 200 screenshots), renders
``trace show``'s page, and opens it from ``file://`` in headless Chromium (Debian's), as a
user does: the time from navigating to the page's own script having built the action list,
the filmstrip and the selected step (``document.body.dataset.ready``), and the time the
page itself reports (``performance.now()`` at the end of its script). Printed for 50 and 500
steps, with the 500-step numbers as a ratio to the 50-step ones of the same run. Machines
here are shared and noisy: read the ratios, not the absolute numbers.
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
from baremobile.trace import open_trace  # noqa: E402
from baremobile.trace.view import render_html  # noqa: E402
from baremobile.virtual.chromium import Chromium, find_chromium  # noqa: E402
from tests.trace_view_helpers import View  # noqa: E402
from tests.verified_flows import SETTINGS, ref_of  # noqa: E402


def record(steps: int, folder: Path) -> Path:
    """A trace of ``steps`` steps (launch, snapshot, then scrolls and diff snapshots)."""
    path = folder / f"t{steps}.zip"
    with connect("virtual") as page, page.tracing.start(path, screenshots=True):
        page.launch(SETTINGS)
        lst = ref_of(page.snapshot(), role="List")
        for i in range((steps - 2) // 2):
            page.scroll(lst, "down" if i % 4 < 2 else "up")
            page.snapshot(diff=True)
    html = folder / f"t{steps}.html"
    with open_trace(path) as trace:
        html.write_text(render_html(trace), encoding="utf-8")
    return html


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    exe = find_chromium()
    if exe is None:
        raise SystemExit("needs Chromium (Debian's chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        pages = {n: record(n, Path(tmp)) for n in (50, 500)}
        browser = Chromium(exe).start()
        try:
            seen: dict[int, list[tuple[float, float]]] = {50: [], 500: []}
            for _ in range(args.rounds):
                for n, html in pages.items():  # interleaved
                    view = View(browser, html, timeout=300)
                    seen[n].append((view.seconds * 1000, float(view.ready_ms)))
                    view.close()
                    time.sleep(0.2)
        finally:
            browser.stop()
        base = {k: statistics.median(v[i] for v in seen[50]) for k, i in (("nav", 0),
                                                                           ("ready", 1))}
        print(f"{'steps':>6} {'page size':>10} {'navigate→built':>16} {'ratio':>6} "
              f"{'script end':>11} {'ratio':>6}")
        for n, html in pages.items():
            nav = statistics.median(v[0] for v in seen[n])
            ready = statistics.median(v[1] for v in seen[n])
            print(f"{n:>6} {html.stat().st_size / 1e6:>8.2f} MB {nav:>13.0f} ms "
                  f"{nav / base['nav']:>5.2f}x {ready:>8.0f} ms {ready / base['ready']:>5.2f}x")


if __name__ == "__main__":
    main()
