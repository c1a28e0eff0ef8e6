"""First-hour frictions (issue 31) and two small truths (issue 29), through the public API:
a mistyped device spec or key name gets "did you mean"; the CLI's usage errors come out as
JSON with ``--json``, and a missing extra exits 8 as docs/cli.md says; transfers and long
waits report progress to a callback (or a bar); ``Page.find`` honours a selector's index."""

from __future__ import annotations

import io
import json
import sys

import pytest

from baremobile import connect
from baremobile.errors import InvalidArgument
from baremobile.transport.specs import parse_spec
from baremobile.virtual import VirtualPhone
from baremobile.virtual.apk import build_apk
from tests.conftest import free_port, run_cli

# -- did you mean -----------------------------------------------------------------------------


@pytest.mark.fast
@pytest.mark.parametrize(("spec", "meant"), [
    ("virtaul", "virtual"), ("Virtual", "virtual"), ("vritual:new", "virtual:new"),
    ("virtual-new", "virtual:new"), ("abd:emulator-5554", "adb:emulator-5554"),
    ("usbb", "usb"), ("auot", "auto")])
def test_a_mistyped_device_spec_gets_did_you_mean(spec: str, meant: str) -> None:
    with pytest.raises(InvalidArgument) as e:
        connect(spec)  # never reaches an adb server: "no adb server answers …" before
    assert f"did you mean {meant!r}" in e.value.message
    assert f"'adb:{spec}'" in (e.value.hint or "")  # a device really named so: adb:SERIAL


@pytest.mark.parametrize("serial", ["emulator-5554", "6563c026", "R58M1234ABC", "pixel",
                                    "10.0.0.5:5555", "adb:virtaul"])
def test_serials_and_the_other_specs_are_not_taken_for_typos(serial: str) -> None:
    assert parse_spec(serial).kind in ("adb", "tcp")


@pytest.mark.fast
def test_a_mistyped_key_gets_did_you_mean() -> None:
    with VirtualPhone(port=free_port(), browser=False) as phone, \
            connect(phone.address) as page:
        with pytest.raises(InvalidArgument) as e:
            page.press("bakc")
        assert "did you mean 'back'" in e.value.message
        with pytest.raises(InvalidArgument) as e:
            page.press("KEYCODE_VOLUME_UPP")
        assert "did you mean 'KEYCODE_VOLUME_UP'" in e.value.message
        with pytest.raises(InvalidArgument) as e:
            page.press("xyzzy")  # nothing close: no guess
        assert "did you mean" not in e.value.message
        assert not [c for c in phone.events.commands() if c[:2] == ["input", "keyevent"]]


@pytest.mark.fast
def test_the_cli_says_did_you_mean_for_a_device_spec(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    code, out, _ = run_cli(capsys, "--json", "--no-daemon", "-d", "virtaul", "snapshot")
    error = json.loads(out)["error"]
    assert code == 2 and error["code"] == "INVALID_ARGUMENT"
    assert "did you mean 'virtual'" in error["message"]


# -- the CLI: usage errors and a missing extra ----------------------------------------------


@pytest.mark.parametrize("argv", [["type", "--json"], ["--json", "snapshot", "--nosuch"],
                                  ["snapshot", "--max-chars", "x", "--json"],
                                  ["tap", "abc", "--json"]])
def test_usage_errors_come_out_as_json_with_json(argv: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and err == ""
    body = json.loads(out)
    assert body["ok"] is False and body["error"]["category"] == "INVALID_ARGUMENT"
    assert body["error"]["code"] == "USAGE"
    command = next(a for a in argv if not a.startswith("-"))
    assert body["error"]["message"].startswith(f"baremobile {command}:")
    assert "usage: baremobile" in body["error"]["hint"]


def test_usage_errors_without_json_stay_argparse_s(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "type")
    assert code == 2 and out == ""
    assert err.startswith("usage: baremobile type [options]")
    assert "baremobile type: error: the following arguments are required: TEXT" in err


def test_a_missing_extra_exits_8(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "baremobile.tools.mcp_server", None)  # [mcp] absent
    code, out, err = run_cli(capsys, "mcp")
    assert code == 8 and out == ""
    assert err.startswith("error [MISSING_DEPENDENCY]: the MCP server needs the [mcp] extra")
    assert "pip install 'baremobile[mcp]'" in err
    code, out, _ = run_cli(capsys, "--json", "mcp")
    assert code == 8 and json.loads(out)["error"]["code"] == "MISSING_DEPENDENCY"


# -- progress ---------------------------------------------------------------------------------


def test_transfers_report_progress_to_a_callback_or_a_bar(
        capsys: pytest.CaptureFixture[str]) -> None:
    data = bytes(range(256)) * 4096  # 1 MiB: several sync chunks
    with VirtualPhone(port=free_port(), browser=False) as phone, \
            connect(phone.address) as page:
        seen: list[tuple[float, float | None]] = []
        page.push(data, "/sdcard/big.bin", progress=lambda d, t: seen.append((d, t)))
        assert len(seen) > 2 and seen[-1] == (len(data), len(data))
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)
        seen.clear()
        assert page.pull("/sdcard/big.bin", progress=lambda d, t: seen.append((d, t))) == data
        assert seen and seen[-1][0] == len(data)
        seen.clear()
        sink = io.BytesIO()
        page.pull_into("/sdcard/big.bin", sink, progress=lambda d, t: seen.append((d, t)))
        assert sink.getvalue() == data and seen[-1][0] == len(data)
        seen.clear()
        apk = build_apk("com.example.big", "Big", 1, "1.0", ".Main")
        page.install(apk, progress=lambda d, t: seen.append((d, t)))
        assert seen[-1] == (len(apk), len(apk))
        # True: a bar (tqdm's where it is installed, else one line on stderr)
        page.push(data, "/sdcard/big2.bin", progress=True)
        err = capsys.readouterr().err
        assert "push /sdcard/big2.bin" in err and ("1.0 MB" in err or "1.00M" in err)
        with pytest.raises(InvalidArgument, match="progress must be"):
            page.push(b"x", "/sdcard/x", progress="yes")  # type: ignore[arg-type]
        with pytest.raises(InvalidArgument):  # and nothing was sent
            page.pull("/sdcard/big.bin", progress=3)  # type: ignore[arg-type]


def test_long_waits_report_how_long_they_have_waited() -> None:
    with VirtualPhone(port=free_port(), browser=False) as phone, \
            connect(phone.address) as page:
        seen: list[tuple[float, float | None]] = []
        assert page.wait_for_text("No such text", timeout=1.2, interval=0.3, fail=False,
                                  progress=lambda d, t: seen.append((d, t))) is None
        assert len(seen) >= 2 and all(t == 1.2 for _, t in seen)
        assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] <= 1.2
        seen.clear()
        page.wait(0.6, progress=lambda d, t: seen.append((d, t)))
        assert seen[-1] == (0.6, 0.6) and len(seen) >= 2
        seen.clear()
        page.wait_for({"text_contains": "Settings"}, timeout=5,
                      progress=lambda d, t: seen.append((d, t)))
        assert seen and seen[-1][1] == 5.0
        assert phone.address  # the phone served every snapshot of the waits


# -- Page.find honours index (issue 29) -------------------------------------------------------


def test_find_honours_the_selectors_index_as_tap_does() -> None:
    with VirtualPhone(port=free_port(), browser=False) as phone, \
            connect(phone.address) as page:
        page.home()
        page.swipe(540, 1800, 540, 500)  # all apps: several icons
        every = page.find({"id": "icon"})
        assert len(every) >= 3
        assert page.find({"id": "icon", "index": 1}) == [every[1]]
        assert page.find({"id": "icon", "index": 0}) == [every[0]]
        assert page.find({"id": "icon", "index": len(every)}) == []
        assert page.find(id="icon", index=2) == [every[2]]
        page.tap({"id": "icon", "index": 1})  # tap takes the same element
        assert page.foreground().package != "com.google.android.apps.nexuslauncher"


def test_a_bar_is_tqdms_where_tqdm_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """tqdm is no dependency: where it is importable, ``progress=True`` is its (notebook-aware)
    ``tqdm.auto`` bar — stood in for here by a module of the same shape."""
    import types

    bars: list[dict[str, object]] = []

    class FakeTqdm:
        def __init__(self, **kw: object) -> None:
            self.kw, self.total, self.n, self.closed = kw, kw.get("total"), 0, False
            bars.append({"bar": self})

        def refresh(self) -> None:
            pass

        def close(self) -> None:
            self.closed = True

    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = FakeTqdm  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    data = b"z" * 300_000
    with VirtualPhone(port=free_port(), browser=False) as phone, \
            connect(phone.address) as page:
        page.push(data, "/sdcard/z.bin", progress=True)
        assert phone.fs.read("/sdcard/z.bin") == data
    (entry,) = bars
    bar = entry["bar"]
    assert bar.kw["desc"] == "push /sdcard/z.bin" and bar.kw["unit"] == "B"  # type: ignore
    assert (bar.total, bar.n, bar.closed) == (len(data), len(data), True)  # type: ignore
