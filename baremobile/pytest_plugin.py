"""pytest fixtures for testing Android apps and agents with baremobile (``[pytest]``).

Installed with baremobile, pytest loads it by itself (entry point ``pytest11``, name
``baremobile``; ``-p no:baremobile`` turns it off). In the manner of pytest-playwright::

    def test_search(page, virtual_phone):
        page.launch("com.android.settings")
        page.tap({"text": "Search Settings"})
        page.type({"role": "TextInput"}, "wifi")
        assert "Wi-Fi hotspot" in page.snapshot().text
        assert virtual_phone.events.list("text")

Fixtures:

``device_spec``    (session) the device the tests drive: ``--device SPEC`` (also spelled
                   ``--baremobile-device``), else ``$BAREMOBILE_DEVICE``, else ``virtual``;
``virtual_phone``  (function) a fresh in-process virtual phone: the demo, ``--scenario
                   FILE.yaml``, a spec ``virtual:FILE.yaml`` or ``@pytest.mark.scenario(FILE)``;
                   Android API level from ``--virtual-api-level`` (default 35);
``page``           (function) a connected :class:`~baremobile.page.Page` on ``device_spec``
                   (for ``virtual``: on the test's ``virtual_phone``), closed after the test.

Markers ``@pytest.mark.min_api(N)`` / ``@pytest.mark.max_api(N)`` skip a test using
``page`` when the device's API level is below / above N.

When a test using ``page`` fails, its report gets a ``baremobile`` section: the path of a
screenshot taken at the failure and the text of the test's last snapshot (one is taken if
the test took none), both written to ``test-results/<test>/`` (``--baremobile-results
DIR`` to choose another folder), and the test's **trace** (``trace.zip``: every step it
took, with a screenshot per step, the device log and — for a failed assertion — its
message and the test's source lines; ``baremobile trace show`` / ``summary``;
``docs/traces.md``); the section names the trace and the failing step. ``--baremobile-trace``
says when a trace is kept: ``retain-on-failure`` (the default), ``on`` (every test), ``off``
(nothing recorded); ``--baremobile-trace-screenshots off`` records without screenshots. A
baremobile error's traceback stops at the test's own line (``--fulltrace`` shows
baremobile's frames too), and a device that cannot be reached fails the test's setup with
one message saying so.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from baremobile.safetext import clean

if TYPE_CHECKING:
    from pluggy import Result

__all__ = ["device_spec", "page", "virtual_phone"]

_PAGE = pytest.StashKey[Any]()
_FAILED = pytest.StashKey[dict[str, Any]]()
_TRACE_MODES = ("retain-on-failure", "on", "off")
#: adb adopts listeners on these ports as emulators: a virtual phone never sits there
_EMULATOR_PORTS = range(5554, 5587)


def _taken(parser: pytest.Parser, name: str) -> bool:
    """Whether another plugin already registered option ``name`` (pytest-playwright has a
    ``--device`` of its own); best effort, through pytest's parser internals."""
    try:
        groups = [*parser._groups, parser._anonymous]
        return any(name in opt.names() for g in groups for opt in g.options)
    except AttributeError:  # pragma: no cover - another pytest's internals
        return False


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("baremobile", "baremobile (Android devices and the virtual phone)")
    names = ["--baremobile-device"] if _taken(parser, "--device") else ["--device",
                                                                         "--baremobile-device"]
    group.addoption(*names, dest="baremobile_device", metavar="SPEC", default=None,
                    help="device the page fixture drives: virtual (default), virtual:FILE.yaml, "
                         "host:port, usb, usb:SERIAL, a serial, auto "
                         "(default: $BAREMOBILE_DEVICE, else virtual)")
    group.addoption("--scenario", dest="baremobile_scenario", metavar="FILE", default=None,
                    help="scenario YAML of the virtual_phone fixture (default: the demo)")
    group.addoption("--virtual-api-level", dest="baremobile_api_level", metavar="N", type=int,
                    default=35, help="Android API level the virtual phone emulates (35)")
    group.addoption("--baremobile-results", dest="baremobile_results", metavar="DIR",
                    default="test-results",
                    help="where failing tests' screenshots and snapshots go (test-results)")
    group.addoption("--baremobile-trace", dest="baremobile_trace", default="retain-on-failure",
                    choices=_TRACE_MODES, help="keep a trace of each test using 'page': "
                    "retain-on-failure (default), on, off")
    group.addoption("--baremobile-trace-screenshots", dest="baremobile_trace_screenshots",
                    nargs="?", const="on", default="on", choices=("on", "off"),
                    help="a screenshot per step in the traces: on (default), off")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "min_api(level): skip unless the device's Android API "
                                       "level is at least this (tests using page)")
    config.addinivalue_line("markers", "max_api(level): skip unless the device's Android API "
                                       "level is at most this (tests using page)")
    config.addinivalue_line("markers", "scenario(path): the virtual_phone fixture's scenario "
                                       "YAML for this test")


def _is_virtual(spec: str) -> bool:
    from baremobile.transport.specs import parse_spec

    return parse_spec(spec).kind == "virtual"


@pytest.fixture(scope="session")
def device_spec(pytestconfig: pytest.Config) -> str:
    """The device spec the tests drive (``--device``, ``$BAREMOBILE_DEVICE``, ``virtual``)."""
    given = pytestconfig.getoption("baremobile_device") or os.environ.get("BAREMOBILE_DEVICE")
    return (given or "").strip() or "virtual"


@pytest.fixture
def virtual_phone(request: pytest.FixtureRequest, device_spec: str) -> Iterator[Any]:
    """A fresh virtual phone for this test (in this process, on a free port, no auth)."""
    from baremobile.virtual import VirtualPhone

    config = request.config
    marker = request.node.get_closest_marker("scenario")
    scenario = marker.args[0] if marker is not None else config.getoption("baremobile_scenario")
    if scenario is None and _is_virtual(device_spec):
        from baremobile.transport.specs import parse_spec

        scenario = parse_spec(device_spec).scenario or None  # (virtual:new: the demo)
    api_level = config.getoption("baremobile_api_level")
    while True:  # port 0 picks a free port; keep clear of the emulator ports
        phone = VirtualPhone(scenario, auth="none", api_level=api_level).start()
        if phone.port not in _EMULATOR_PORTS:
            break
        phone.stop()  # pragma: no cover - the OS rarely hands these out
    try:
        yield phone
    finally:
        phone.stop()


@pytest.fixture
def page(request: pytest.FixtureRequest, device_spec: str) -> Iterator[Any]:
    """A connected Page on ``device_spec`` (the test's ``virtual_phone`` for ``virtual``),
    closed after the test. ``min_api`` / ``max_api`` markers are checked here."""
    from baremobile.errors import BaremobileError
    from baremobile.page import connect

    failed = None
    try:
        if _is_virtual(device_spec):
            phone = request.getfixturevalue("virtual_phone")
            connected = connect(phone.address, keys=[])
        else:
            connected = connect(device_spec)
    except BaremobileError as exc:  # what to do, not the transport's traceback
        failed = exc
    if failed is not None:
        pytest.fail(f"baremobile could not connect to {device_spec!r}: {failed}\n"
                    "(pick the device with --device SPEC or $BAREMOBILE_DEVICE; 'virtual' "
                    "needs none)", pytrace=False)
    with connected:
        request.node.stash[_PAGE] = connected
        mode = request.config.getoption("baremobile_trace")
        recording = None if mode == "off" else _start_trace(request, connected)
        try:
            _check_api_level(request.node, connected.device.api_level)
            yield connected
        finally:
            del request.node.stash[_PAGE]
            if recording is not None:
                _end_trace(request.node, connected, recording, mode)


def _start_trace(request: pytest.FixtureRequest, page: Any) -> Path | None:
    """Record the test's steps into a temporary folder (moved to the results on keeping)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="baremobile-trace-"))
    try:
        page.tracing.start(folder / "trace.zip", door="pytest", title=request.node.nodeid,
                           screenshots=request.config.getoption(
                               "baremobile_trace_screenshots") != "off")
    except Exception:  # the device may already be gone: the test runs untraced
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return folder


def _end_trace(item: pytest.Item, page: Any, folder: Path, mode: str) -> None:
    """Keep the trace in ``<results>/<test>/trace.zip`` when the test failed (or always
    with ``on``); never raises."""
    failed = item.stash.get(_FAILED, None)
    keep = failed is not None or mode == "on"
    try:
        outcome = {"test": item.nodeid, "failed": failed is not None, **(failed or {})}
        written = page.tracing.stop(outcome=outcome, logcat=keep)
        if written is not None and keep:
            target = _folder(item)
            target.mkdir(parents=True, exist_ok=True)
            shutil.move(str(written), target / "trace.zip")
    except Exception:  # pragma: no cover - a full disk: the report already has the rest
        pass
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _check_api_level(item: pytest.Item, level: int) -> None:
    for marker in item.iter_markers("min_api"):
        if level < int(marker.args[0]):
            pytest.skip(f"needs Android API level >= {marker.args[0]}; the device has {level}")
    for marker in item.iter_markers("max_api"):
        if level > int(marker.args[0]):
            pytest.skip(f"needs Android API level <= {marker.args[0]}; the device has {level}")


#: baremobile's own source: its frames are left out of a baremobile error's traceback
_OWN = os.path.realpath(Path(__file__).parent) + os.sep


def _short_traceback(call: pytest.CallInfo[None]) -> None:
    """A baremobile error's traceback ends at the test's own line: the frames inside
    baremobile say nothing the error's message and hint do not (``--fulltrace`` and
    ``--pdb`` keep them). The exception itself keeps its whole traceback: the report gets a
    copy of the chain without baremobile's frames."""
    excinfo = call.excinfo
    if excinfo is None or not _is_ours(excinfo.value):
        return
    with contextlib.suppress(Exception):  # never fail the run here
        import types

        frames: list[types.TracebackType] = []
        tb: types.TracebackType | None = excinfo.tb
        while tb is not None:
            frames.append(tb)
            tb = tb.tb_next
        kept = [t for t in frames
                if not os.path.realpath(t.tb_frame.f_code.co_filename).startswith(_OWN)]
        if not kept or len(kept) == len(frames):
            return
        chain = None
        for t in reversed(kept):
            chain = types.TracebackType(chain, t.tb_frame, t.tb_lasti, t.tb_lineno)
        assert chain is not None  # kept is not empty
        value = excinfo.value
        call.excinfo = pytest.ExceptionInfo.from_exc_info((type(value), value, chain))


def _is_ours(exc: BaseException) -> bool:
    from baremobile.errors import BaremobileError

    return isinstance(exc, BaremobileError)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, Result[pytest.TestReport], None]:
    if not (item.config.getoption("fulltrace", False) or item.config.getoption("usepdb", False)):
        _short_traceback(call)
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    item.stash[_FAILED] = _failure(item, call, report)
    page = item.stash.get(_PAGE, None)
    if page is not None:  # the page fixture is still open: teardown comes after this
        try:
            _record_failure(item, report, page)
        except Exception as exc:  # noqa: BLE001 - an exception here would end the whole run
            report.sections.append(("baremobile", f"failure not recorded: {_why(exc)}"))


def _failure(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
             ) -> dict[str, Any]:
    """What a trace keeps of a failure: ``error`` (the exception as pytest shows it: an
    assertion's message), ``file`` and ``line`` (the test's own line that failed) and
    ``source`` (``[[number, text], …]``: the test function, at most 40 lines around it).
    Never raises."""
    out: dict[str, Any] = {}
    try:
        excinfo = call.excinfo
        out["error"] = clean(excinfo.exconly() if excinfo is not None else
                             (report.longreprtext.strip().splitlines() or ["failed"])[-1])[:4000]
        if excinfo is None:
            return out
        own = os.path.realpath(str(item.path))
        entry = next((e for e in reversed(excinfo.traceback)
                      if os.path.realpath(str(e.path)) == own), None)
        if entry is None:
            return out
        line = entry.lineno + 1
        out["file"] = os.path.relpath(own, item.config.invocation_params.dir)
        out["line"] = line
        import inspect

        obj = getattr(item, "obj", None)
        if obj is None:
            return out
        lines, first = inspect.getsourcelines(obj)
        numbered = list(enumerate((x.rstrip("\n") for x in lines), start=max(first, 1)))
        if not any(n == line for n, _ in numbered):  # a helper's line: read the file there
            import linecache

            numbered = [(n, linecache.getline(own, n).rstrip("\n"))
                        for n in range(max(1, line - 6), line + 3)]
        at = next((i for i, (n, _) in enumerate(numbered) if n == line), 0)
        out["source"] = [[n, clean(t)[:2000]] for n, t in numbered[max(0, at - 30):at + 10]]
    except Exception:  # noqa: BLE001 - never fail the run here
        pass
    return out


def _folder(item: pytest.Item) -> Path:
    """``<results>/<test>/``: the node id made a file name (hashed when very long)."""
    root = Path(item.config.getoption("baremobile_results"))
    if not root.is_absolute():
        root = item.config.invocation_params.dir / root
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", item.nodeid).strip("-.") or "test"
    if len(name) > 100:
        name = name[:80] + "-" + hashlib.sha1(item.nodeid.encode()).hexdigest()[:12]
    return root / name


def _record_failure(item: pytest.Item, report: pytest.TestReport, page: Any) -> None:
    """Screenshot and last snapshot of a failed test: to files, and into its report. Nothing
    here may raise (an exception in this hook would end the whole run): what could not be
    taken or written is said in the report instead."""
    lines = []
    try:
        snap = page.last_snapshot or page.snapshot()
        # the whole screen, also when the test asked for a diff; text a terminal and a
        # file can carry, whatever a page held (it is, already: this is the last guard)
        text = clean(snap.full_text)
    except Exception as exc:  # the device may be what failed: say so, never raise here
        text = f"(no snapshot: {_why(exc)})"
    folder = _folder(item)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        snapshot_file = folder / "snapshot.txt"
        snapshot_file.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        lines.append(f"files not written to {folder}: {exc.strerror or exc}")
    else:
        try:
            from baremobile.page.screenshot import Screenshot

            # the device's screen, not a verb of the test: the trace shows the test's steps
            shot = Screenshot(page.device.screencap()).save(folder / "screenshot.png")
            lines.append(f"screenshot: {shot}")
            report.user_properties.append(("baremobile_screenshot", str(shot)))
        except Exception as exc:
            lines.append(f"screenshot: not taken ({_why(exc)})")
        lines.append(f"snapshot: {snapshot_file}")
        report.user_properties.append(("baremobile_snapshot", str(snapshot_file)))
    if page.tracing.recording:
        lines.append(f"trace: {folder / 'trace.zip'} (written when the test's page closes; "
                     f"baremobile trace show {folder / 'trace.zip'})")
        failed = page.tracing.failed_step
        if failed is not None:
            err = failed["error"] or {}
            lines.append(f"failing step: #{failed['n']} {failed['call']}: "
                         f"{err.get('code') or err.get('type')}: {err.get('message')}")
        else:
            why = item.stash.get(_FAILED, {}).get("error") or "failed"
            lines.append(f"failing step: the test's own check, after the last step: "
                         f"{why.splitlines()[0] if why else why}"[:500])
    lines += [f"last snapshot of {page.serial}:", text]
    report.sections.append(("baremobile", "\n".join(lines)))


def _why(exc: BaseException) -> str:
    with contextlib.suppress(Exception):  # duck-typed: any error with a code and a message
        return clean(f"{exc.code}: {exc.message}")  # type: ignore[attr-defined]
    return clean(f"{type(exc).__name__}: {exc}")
