"""The `baremobile` command: the README's main job and the small subcommands."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.conftest import run_cli


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
    assert r.returncode == 4  # the DEVICE_UNAVAILABLE family
    assert r.stderr.startswith("error [NO_DEVICES]:") and "adb start-server" in r.stderr
    assert "Traceback" not in r.stderr


# -- errors are one line, never a traceback; bad numbers are refused -------------------------


def cli(capsys, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, *args)


def test_a_screenshot_into_a_missing_folder_is_an_error_line(capsys, tmp_path):
    code, _, err = cli(capsys, "screenshot", "-d", "virtual", "-o",
                       str(tmp_path / "nonexistent" / "x.png"))
    assert code == 2 and err.startswith("error [INVALID_ARGUMENT]:"), err  # its family's status
    assert "does not exist" in err and "Traceback" not in err


def test_a_missing_or_invalid_scenario_is_an_error_line(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("apps: [unclosed\n")
    for args in (("snapshot", "-d", f"virtual:{tmp_path / 'missing.yaml'}"),
                 ("snapshot", "-d", f"virtual:{bad}"),
                 ("virtual", "--scenario", str(tmp_path / "missing.yaml")),
                 ("virtual", "--scenario", str(bad))):
        code, _, err = cli(capsys, *args)
        assert code == 2 and err.startswith("error [INVALID_ARGUMENT]:"), (args, err)
        assert "scenario" in err and "Traceback" not in err


@pytest.mark.fast
@pytest.mark.parametrize("value", ["0", "-5", "x"])
def test_max_chars_must_be_a_positive_number(capsys, value):
    code, out, err = cli(capsys, "snapshot", "-d", "virtual", "--max-chars", value)
    assert code == 2 and out == "" and "--max-chars" in err


@pytest.mark.fast
def test_page_snapshot_refuses_a_max_chars_below_one():
    from baremobile import connect
    from baremobile.errors import InvalidArgument

    with connect("virtual") as page:
        for bad in (0, -1, True, 2.5):
            with pytest.raises(InvalidArgument, match="max_chars"):
                page.snapshot(max_chars=bad)


# -- `baremobile virtual` and `baremobile devices` meet ---------------------------------------


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_devices_lists_the_running_virtual_phone_and_commands_use_it(capsys, virtual_command,
                                                                     stop):
    address, proc = virtual_command
    code, out, _ = cli(capsys, "devices")
    assert code == 0 and address in out and "virtual" in out
    code, out, err = cli(capsys, "snapshot")  # no -d: the one device there is
    assert code == 0 and "[ref=1]" in out, err
    from baremobile.transport.registry import registry_dir

    proc.send_signal(stop)  # Ctrl-C or kill: the phone withdraws its announcement
    proc.wait(10)
    assert not any(registry_dir().glob("*.json"))
    code, out, _ = cli(capsys, "devices")
    assert address not in out


def test_a_killed_virtual_phone_is_not_listed(capsys, virtual_command):
    from baremobile.transport.registry import registry_dir

    address, proc = virtual_command
    proc.kill()  # no chance to clean up
    proc.wait(10)
    assert any(registry_dir().glob("*.json"))
    code, out, _ = cli(capsys, "devices")
    assert address not in out and not any(registry_dir().glob("*.json"))


def test_cli_hints_name_cli_commands(capsys):
    from baremobile.transport.registry import announce
    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port

    with VirtualPhone(port=free_port()) as a, VirtualPhone(port=free_port()) as b, \
            announce(a.host, a.port), announce(b.host, b.port):
        code, _, err = cli(capsys, "snapshot")
    assert code == 4 and err.startswith("error [MULTIPLE_DEVICES_DEVICE_ID_REQUIRED]:"), err
    assert "pick one: -d <serial>" in err and "connect(" not in err
