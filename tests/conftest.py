"""Shared fixtures: virtual phones, test ADB keys, and a private real-adb server.

Every test runs with ``ANDROID_USER_HOME`` pointing at a temporary directory (so the
user's ``~/.android/adbkey`` is never read or written), with the adb-server port moved
to one nothing listens on (so a developer's running adb server is never discovered), and
with no emulator port probed (``BAREMOBILE_EMULATOR_PORTS=""``: an emulator or another
engineer's virtual phone on 5555–5585 is never discovered). Tests of discovery name the
ports they probe.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from baremobile.daemon.client import _alive as alive
from baremobile.transport.keys import AdbKey, ensure_key
from baremobile.virtual import VirtualPhone

# ---------------------------------------------------------------------------------------
# the tiers (tests/unit, tests/phone, tests/doors, tests/release) and the fast one
# ---------------------------------------------------------------------------------------

UNIT = Path(__file__).with_name("unit")

#: hypothesis's profiles: ``quick`` for ``-m fast`` (a tenth of the examples: see
#: :func:`tests.examples`); the default profile everywhere else. ``HYPOTHESIS_PROFILE``
#: (or hypothesis's own ``--hypothesis-profile``) names one for any run.
settings.register_profile("quick", max_examples=10)


def _fast_only(config: pytest.Config) -> bool:
    """The run selects exactly ``-m fast``."""
    return (config.getoption("markexpr", "") or "").strip() == "fast"


def pytest_configure(config: pytest.Config) -> None:
    """A suite started in the background by a script (``cmd &`` in a non-interactive shell)
    inherits SIGINT ignored, and so does every process it starts — an ignored signal stays
    ignored across ``exec``. The tests that press Ctrl-C on ``baremobile virtual`` and
    ``baremobile mcp`` then failed for that reason alone: give SIGINT its default meaning
    back, as a terminal has it.

    The hypothesis profile: ``$HYPOTHESIS_PROFILE``, else ``quick`` under ``-m fast`` —
    unless ``--hypothesis-profile`` named one (hypothesis's plugin loads that)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    profile = os.environ.get("HYPOTHESIS_PROFILE") or ("quick" if _fast_only(config) else None)
    if profile and not config.getoption("hypothesis_profile", None):
        settings.load_profile(profile)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent without it
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per CPU this process may use — its affinity, lowered to its
    cgroup's CPU quota where one is set (a container may see every core of its host and be
    given two: a worker per host core would then share those two, each holding phones)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, int(quota) // int(period)))
    except (OSError, ValueError):
        pass
    return cpus


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under exactly ``-m fast``, a test module outside ``tests/unit`` whose source never
    says ``mark.fast`` holds no fast test: it is not even imported. A cheap text scan —
    importing every module is most of what collecting the whole suite costs."""
    if not _fast_only(config) or collection_path.suffix != ".py" \
            or not collection_path.name.startswith("test_") or UNIT in collection_path.parents:
        return None
    try:
        source = collection_path.read_text(encoding="utf-8")
    except OSError:
        return None
    return None if "mark.fast" in source else True


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of ``tests/unit`` is fast (no phone, no process: the whole folder)."""
    for item in items:
        if UNIT in item.path.parents:
            item.add_marker(pytest.mark.fast)


def free_port() -> int:
    """A free TCP port on 127.0.0.1, outside adb's emulator range 5555–5585."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 5554 <= port <= 5586:
            return port


@pytest.fixture(scope="session")
def key_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("android-user-home")


@pytest.fixture(scope="session")
def adb_key(key_dir: Path) -> AdbKey:
    """The test session's ADB key (generated once, in a temporary ANDROID_USER_HOME)."""
    return ensure_key(key_dir / "adbkey")


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, key_dir: Path) -> None:
    monkeypatch.setenv("ANDROID_USER_HOME", str(key_dir))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(_unused_server_port()))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("ADB_VENDOR_KEYS", raising=False)
    monkeypatch.setenv("BAREMOBILE_EMULATOR_PORTS", "")


@pytest.fixture(autouse=True)
def daemon_socket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every test has a session daemon socket of its own (a short path: AF_UNIX allows ~107
    bytes) and an idle timeout as a safety net; a daemon that the test started is stopped
    afterwards, so none outlives its test. (Its discovery finds only what the test
    announces: no emulator port is probed, and no adb server answers.)"""
    directory = tempfile.mkdtemp(prefix="bmd", dir="/tmp")
    sock = os.path.join(directory, "d.sock")
    monkeypatch.setenv("BAREMOBILE_DAEMON_SOCKET", sock)
    monkeypatch.delenv("BAREMOBILE_DAEMON_DISCOVER", raising=False)
    monkeypatch.setenv("BAREMOBILE_DAEMON_IDLE_TIMEOUT", "120")
    monkeypatch.delenv("BAREMOBILE_SESSION", raising=False)
    monkeypatch.delenv("BAREMOBILE_DAEMON_DEVICES", raising=False)
    monkeypatch.delenv("BAREMOBILE_ADB_SERVERS", raising=False)
    try:
        yield sock
    finally:
        stop_daemon(sock)
        shutil.rmtree(directory, ignore_errors=True)


def daemon_pid(sock: str) -> int | None:
    """The pid in the daemon's metadata file beside ``sock`` (None: no daemon wrote one)."""
    try:
        with open(sock + ".json", encoding="utf-8") as fh:
            pid = json.load(fh).get("pid")
    except (OSError, ValueError):
        return None
    return pid if isinstance(pid, int) and pid != os.getpid() else None


def stop_daemon(sock: str, timeout: float = 10.0) -> None:
    """Stop the daemon process listening on ``sock`` (SIGTERM, then SIGKILL) and wait."""
    pid = daemon_pid(sock)
    if pid is None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:  # a daemon this process started is our child: reap it
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return
            except ChildProcessError:
                pass
            if not alive(pid):
                return
            time.sleep(0.02)


_UNUSED_PORT: list[int] = []


def _unused_server_port() -> int:
    if not _UNUSED_PORT:
        _UNUSED_PORT.append(free_port())
    return _UNUSED_PORT[0]


@pytest.fixture(scope="session")
def mcp_sdk() -> Any:
    """The MCP SDK (the ``[mcp]`` extra) for the tests that drive our servers with its
    client: imported when such a test runs, not when its file is collected (``mcp`` costs
    ~1 s to import); the test skips, saying why, where the SDK is absent."""
    return pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    """A fresh virtual phone (demo scenario, accept-all auth) on a free port."""
    with VirtualPhone(port=free_port()) as p:
        yield p


@pytest.fixture
def no_thread_leaks() -> Iterator[None]:
    """Fail the test if it leaves non-daemon or client-side threads running."""
    before = {t.ident for t in threading.enumerate()}
    yield
    deadline = time.monotonic() + 3
    while True:
        extra = [
            t
            for t in threading.enumerate()
            if t.ident not in before and not t.name.startswith("adbd-") and t.is_alive()
        ]
        if not extra or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not extra, f"threads left behind: {[t.name for t in extra]}"


# ---------------------------------------------------------------------------------------
# Debian's real adb, as the protocol referee
# ---------------------------------------------------------------------------------------


#: An adb server scans this machine's emulator ports (5555–5585) and lists whatever adbd
#: answers there — an emulator, another engineer's virtual phone — as ``emulator-N``: the
#: suite's servers scan none. ``ADB_LOCAL_TRANSPORT_MAX_PORT`` (``adb help``: "max emulator
#: scan port", default 5585) below the first port leaves nothing to scan; ``ADB_EMU=0`` is
#: adb's switch for the whole emulator transport. Devices reach them by ``adb connect``
#: alone (``tests/doors/test_daemon_farm.py`` proves it with an adbd on an emulator port).
NO_EMULATOR_SCAN = {"ADB_LOCAL_TRANSPORT_MAX_PORT": "5553", "ADB_EMU": "0"}


class RealAdb:
    """Runs Debian's ``adb`` against its own private server (never the user's), which
    never looks at this machine's emulator ports (:data:`NO_EMULATOR_SCAN`)."""

    def __init__(self, binary: str, home: Path, port: int) -> None:
        self.binary = binary
        self.home = home
        self.port = port
        self.env = {
            **os.environ,
            "HOME": str(home),
            "ANDROID_USER_HOME": str(home / ".android"),
            "ANDROID_ADB_SERVER_PORT": str(port),
            **NO_EMULATOR_SCAN,
        }
        self.env.pop("ADB_SERVER_SOCKET", None)
        self.env.pop("ANDROID_SERIAL", None)

    def run(
        self, *args: str, timeout: float = 30, input: bytes | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [self.binary, "-P", str(self.port), *args],
            env=self.env,
            capture_output=True,
            timeout=timeout,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
        )

    def ok(self, *args: str, timeout: float = 30) -> bytes:
        r = self.run(*args, timeout=timeout)
        assert r.returncode == 0, (
            f"adb {' '.join(args)} failed ({r.returncode}): {r.stderr!r} {r.stdout!r}"
        )
        return r.stdout

    @property
    def key(self) -> AdbKey:
        return AdbKey.load(self.home / ".android" / "adbkey")

    def connect(self, phone: VirtualPhone, *, timeout: float = 20) -> str:
        """``adb connect`` and wait until the server lists the phone as a ``device``."""
        serial = phone.address
        self.ok("connect", serial)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = self.ok("devices").decode()
            if f"{serial}\tdevice" in out:
                return serial
            time.sleep(0.05)
        raise AssertionError(f"{serial} never became 'device': {out!r}")


@pytest.fixture(scope="session")
def adb_binary() -> str:
    path = shutil.which("adb")
    if path is None:
        pytest.skip("Debian's adb is not installed here (CI installs it: apt-get install -y adb)")
    return path


@contextlib.contextmanager
def private_adb(adb_binary: str, home: Path) -> Iterator[RealAdb]:
    """A private adb server (own HOME under ``home``, own key, own port), killed afterwards."""
    (home / ".android").mkdir(parents=True)
    adb = RealAdb(adb_binary, home, free_port())
    adb.ok("start-server")
    try:
        yield adb
    finally:
        adb.run("kill-server", timeout=15)


@pytest.fixture
def real_adb(adb_binary: str, tmp_path: Path) -> Iterator[RealAdb]:
    """A private adb server (own HOME, own key, own port), killed afterwards."""
    with private_adb(adb_binary, tmp_path / "adb-home") as adb:
        yield adb


# ---------------------------------------------------------------------------------------
# real headless Chromium (the virtual phone's browser) and the local test pages
# ---------------------------------------------------------------------------------------

WEB_PAGES = Path(__file__).with_name("web_pages")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The Chromium the virtual phone will use; the test is skipped where there is none."""
    from baremobile.virtual.chromium import find_chromium

    path = find_chromium()
    if path is None:
        pytest.skip("no Chromium here ($BAREMOBILE_CHROMIUM, chromium, chromium-browser or "
                    "google-chrome); CI installs Debian's chromium")
    return path


@pytest.fixture(scope="session")
def web_pages() -> Iterator[str]:
    """The local test pages (tests/web_pages) served on 127.0.0.1; yields the base URL."""
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(WEB_PAGES)))
    t = threading.Thread(target=server.serve_forever, name="web-pages", daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def assert_no_browser_left(pid: int | None) -> None:
    """No process of the phone's Chromium (its whole session) still runs."""
    if pid is None:
        return
    from baremobile.virtual.chromium import live_processes

    deadline = time.monotonic() + 5
    while live_processes(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not live_processes(pid), f"Chromium processes left: {live_processes(pid)}"


@pytest.fixture(scope="module")
def web_phone(chromium_path: str) -> Iterator[VirtualPhone]:
    """A virtual phone whose browser is a real Chromium, shared by a module's tests; when it
    stops, none of Chromium's processes may be left."""
    phone = VirtualPhone(port=free_port())
    with phone:
        yield phone
        pid = phone.browser.pid if phone.browser is not None else None
    assert_no_browser_left(pid)


@pytest.fixture
def web_page(web_phone: VirtualPhone, adb_key: AdbKey) -> Iterator[Any]:
    """A Page on :func:`web_phone`, its screens reset to the start."""
    from baremobile import connect

    web_phone.screens.reset()
    with connect(web_phone.address, keys=[adb_key]) as page:
        yield page


def page_js(phone: VirtualPhone, expression: str) -> Any:
    """The value of ``expression`` in the page on the phone's screen (asked through the
    phone's own pipe to Chromium, not through what is tested)."""
    phone.screens.web_sync()
    web = phone.screens.web
    assert web.visible is not None, "no page on screen"
    return web.evaluate(web.visible, expression)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the ``baremobile`` command in this process: (exit status, stdout, stderr)."""
    from baremobile.cli import main

    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse refusing the command line
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def virtual_command() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``baremobile virtual`` in its own process, as a user runs it (a phone this process
    did not build, reached only over TCP); yields (address, process)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "baremobile", "virtual", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ))
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "Ctrl-C" in line:
                break
        yield f"127.0.0.1:{port}", proc
    finally:
        proc.kill()
        proc.wait(10)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The documentation's blocks by kind, when their test ran (issue 31)."""
    from tests import doc_examples

    if doc_examples.COUNTS:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(doc_examples.COUNTS.items()))
        terminalreporter.write_line(f"documentation blocks: {kinds}")
