"""What the pytest plugin's traces cost a test: none, a trace, a trace with a screenshot per
step (the default since issue 30).

    python benchmarks/pytest_trace.py [--rounds 3] [--tests 20]

Runs a file of N small tests (launch Settings, snapshot, tap a row, snapshot, back,
snapshot: six steps each, all passing — the trace is recorded and dropped, as
``retain-on-failure`` does for a passing test) with pytest in a subprocess, three ways
interleaved in the same run: ``--baremobile-trace off`` (the baseline),
``--baremobile-trace-screenshots off`` and the default (screenshots on). Prints the median
time per test and its ratio to the baseline; a failing test costs the same recording plus
writing the zip and reading the device log once.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent
TEST = '''
import pytest

@pytest.mark.parametrize("i", range({n}))
def test_flow(page, i):
    page.launch("com.android.settings")
    page.snapshot()
    page.tap({{"text": "Network & internet"}})
    page.snapshot()
    page.back()
    page.snapshot()
'''
WAYS = {"no trace": ["--baremobile-trace", "off"],
        "trace": ["--baremobile-trace-screenshots", "off"],
        "trace + screenshots (default)": []}


def run(folder: Path, extra: list[str]) -> float:
    """Seconds the tests took (setup, call and teardown: the page fixture starts and stops
    the trace), pytest's own start left out (from its JUnit report)."""
    report = folder / "report.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "-p", "no:langsmith_plugin", "-p", "no:randomly", "test_flows.py",
                    f"--junitxml={report}", "-o", "junit_duration_report=total", *extra],
                   cwd=folder, check=True, capture_output=True)
    root = ElementTree.parse(report).getroot()
    return sum(float(case.get("time", 0)) for case in root.iter("testcase"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tests", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "test_flows.py").write_text(TEST.format(n=args.tests))
        runs: dict[str, list[float]] = {w: [] for w in WAYS}
        for _ in range(args.rounds):
            for way, extra in WAYS.items():
                runs[way].append(run(folder, extra) / args.tests)
    base = statistics.median(runs["no trace"])
    print(f"{'way':<30} {'per test':>9} {'ratio':>6}")
    for way, times in runs.items():
        t = statistics.median(times)
        print(f"{way:<30} {t * 1000:>6.0f} ms {t / base:>5.2f}x")


if __name__ == "__main__":
    main()
