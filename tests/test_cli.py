"""The `baremobile` command: the README's main job and the small subcommands."""

from __future__ import annotations

import os
import subprocess
import sys


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "baremobile", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def test_demo_runs_the_scripted_flow_and_prints_each_snapshot():
    r = run("demo")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n=== ") == 5  # one block per step
    assert '"wifi"' in r.stdout and "Wi-Fi hotspot" in r.stdout
    assert "You said Hello from baremobile!" in r.stdout
    assert "the virtual phone received:" in r.stdout


def test_snapshot_and_screenshot_commands(tmp_path):
    r = run("snapshot", "-d", "virtual", "--max-chars", "2000")
    assert r.returncode == 0 and "[ref=1]" in r.stdout
    out = tmp_path / "s.png"
    r = run("screenshot", "-d", "virtual", "-o", str(out))
    assert r.returncode == 0 and out.read_bytes()[:4] == b"\x89PNG"


def test_errors_are_one_line_with_code_and_hint():
    r = run("snapshot", "-d", "emulator-5554")  # no adb server answers in the tests
    assert r.returncode == 1
    assert r.stderr.startswith("error [NO_DEVICES]:") and "adb start-server" in r.stderr
    assert "Traceback" not in r.stderr
