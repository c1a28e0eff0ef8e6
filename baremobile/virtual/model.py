"""``PhoneModel``: the whole virtual phone minus the ADB protocol.

The protocol layer (:mod:`baremobile.virtual.adbd`) hands every ``shell:`` / ``exec:``
command line to :meth:`PhoneModel.spawn`, which interprets it the way Android's
``/system/bin/sh -c <command>`` (mksh) would, over an in-memory filesystem
(:mod:`~baremobile.virtual.fs`), a screen model (:mod:`~baremobile.virtual.screens`) and
an event log (:mod:`~baremobile.virtual.events`).

>>> from baremobile.virtual.model import FakeClock, PhoneModel
>>> phone = PhoneModel(screens=my_screens, clock=FakeClock())      # doctest: +SKIP
>>> proc = phone.spawn("echo hi; sleep 1; echo $?")                # doctest: +SKIP
>>> list(proc.output()), proc.exit_code                            # doctest: +SKIP
([(1, b'hi\\n'), (1, b'0\\n')], 0)
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from baremobile.virtual.answers import Answers
from baremobile.virtual.chromium import CHROMIUM_ENV, Chromium, ChromiumError, find_chromium
from baremobile.virtual.events import EventLog
from baremobile.virtual.fs import FileSystem
from baremobile.virtual.identity import app_uid, default_props, default_settings
from baremobile.virtual.inputdev import InputDevice, MultiTouchDecoder
from baremobile.virtual.profiles import resolve
from baremobile.virtual.sockets import DevToolsSocket, devtools_sockets, proc_net_unix

__all__ = [
    "Clock",
    "RealClock",
    "FakeClock",
    "StdinPipe",
    "DumpFaults",
    "LogEntry",
    "Battery",
    "PhoneModel",
    "ShellProcess",
]


# --------------------------------------------------------------------------------------
# clocks
# --------------------------------------------------------------------------------------


class Clock(Protocol):
    """Where the phone gets its time from (injectable so tests never sleep for real)."""

    def time(self) -> float: ...

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> None: ...


class RealClock:
    """Wall-clock time; :meth:`sleep` really waits (and returns early on ``cancel``)."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> None:
        if seconds <= 0:
            return
        if cancel is None:
            time.sleep(seconds)
        else:
            cancel.wait(seconds)


class FakeClock:
    """A clock that advances instantly when slept on: tests run at full speed.

    ``sleeps`` records every requested sleep (seconds), for assertions.
    """

    def __init__(self, start: float = 1_735_689_600.0) -> None:  # 2025-01-01T00:00:00Z
        self._lock = threading.Lock()
        self._now = float(start)
        self._mono = 1000.0
        self.sleeps: list[float] = []

    def time(self) -> float:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def advance(self, seconds: float) -> None:
        """Move time forward without sleeping."""
        with self._lock:
            self._now += seconds
            self._mono += seconds

    def sleep(self, seconds: float, cancel: threading.Event | None = None) -> None:
        if cancel is not None and cancel.is_set():
            return
        with self._lock:
            self.sleeps.append(seconds)
        if seconds > 0:
            self.advance(seconds)


# --------------------------------------------------------------------------------------
# stdin
# --------------------------------------------------------------------------------------


class StdinPipe:
    """Bytes the client sends to a process: a blocking, thread-safe pipe."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._buf = bytearray()
        self._closed = False
        self._aborted = False

    def feed(self, data: bytes) -> None:
        """Append bytes (ignored after :meth:`close`)."""
        if not data:
            return
        with self._cond:
            if not self._closed:
                self._buf += data
                self._cond.notify_all()

    def close(self) -> None:
        """End of input: readers get what is left, then ``b""``."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def abort(self) -> None:
        """Wake every reader for good (the process was cancelled)."""
        with self._cond:
            self._aborted = True
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        with self._cond:
            return self._closed

    def read(self, n: int = -1) -> bytes:
        """Block until data or EOF; return up to ``n`` bytes (all buffered if ``n < 0``)."""
        with self._cond:
            while not self._buf and not self._closed:
                self._cond.wait()
            if self._aborted:
                return b""
            if n < 0 or n >= len(self._buf):
                data = bytes(self._buf)
                self._buf.clear()
            else:
                data = bytes(self._buf[:n])
                del self._buf[:n]
            return data


# --------------------------------------------------------------------------------------
# fault injection and logcat
# --------------------------------------------------------------------------------------

DUMP_ERRORS = ("idle", "null_root", "busy")


@dataclass
class DumpFaults:
    """Make ``uiautomator dump`` fail or slow down, as real devices do.

    Attributes:
        error: ``None`` (dumps work), ``"idle"`` (``ERROR: could not get idle state.``),
            ``"null_root"`` (``ERROR: null root node returned by UiTestAutomationBridge.``)
            or ``"busy"`` (another UiAutomation client is registered: a Java stack trace
            and ``Killed``, exit 137).
        times: how many dumps fail before the fault clears by itself; ``-1`` = forever.
        delay_s: how long every dump takes (via the model's clock, cancellable).
    """

    error: str | None = None
    times: int = -1
    delay_s: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def set(self, error: str | None, times: int = -1, delay_s: float | None = None) -> None:
        """Arm (or, with ``error=None``, clear) the fault."""
        if error is not None and error not in DUMP_ERRORS:
            raise ValueError(f"unknown dump fault {error!r}; use one of {DUMP_ERRORS}")
        with self._lock:
            self.error = error
            self.times = times
            if delay_s is not None:
                self.delay_s = delay_s

    def take(self) -> str | None:
        """The error this dump should fail with (consuming one of ``times``), or None."""
        with self._lock:
            if self.error is None or self.times == 0:
                return None
            err = self.error
            if self.times > 0:
                self.times -= 1
                if self.times == 0:
                    self.error = None
            return err


@dataclass(frozen=True)
class LogEntry:
    """One logcat line that did not come from the event log."""

    time: float
    pid: int
    tid: int
    priority: str  # V D I W E F
    tag: str
    message: str


@dataclass
class Battery:
    """What ``BatteryService`` reports (``dumpsys battery``); tests change it, and
    ``dumpsys battery set|unplug|reset`` does what it does on a device."""

    level: int = 85
    status: int = 2  # BatteryManager: 1 unknown, 2 charging, 3 discharging, 4 not charging, 5 full
    ac: bool = False
    usb: bool = True
    wireless: bool = False
    health: int = 2
    voltage: int = 4213
    temperature: int = 250  # tenths of a degree Celsius
    frozen: bool = False  # after ``dumpsys battery set/unplug``: "UPDATES STOPPED"


# --------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------

#: Seconds a real device spends before an injection reaches the screen, by how the tool
#: runs: ``input`` is a Java program started with ``app_process`` up to API 30 (a VM start
#: per call, 0.3–1 s in measurements), a binder call into system_server from API 31
#: (``cmd input``); ``uinput`` is always an ``app_process`` program; ``sendevent`` a small
#: native one. Applied only when the phone models latency (``input_latency=True``).
INPUT_LATENCY = {"input_vm": 0.35, "input_cmd": 0.03, "uinput_vm": 0.35, "native": 0.004}

_pids = itertools.count(4200)


class PhoneModel:
    """The whole virtual phone minus the protocol. Thread-safe.

    Args:
        scenario: scenario file for :meth:`ScreenModel.from_scenario` (``None`` = demo).
        browser: the engine behind web screens and DevTools sockets: ``"auto"`` (a headless
            Chromium when one is installed, see :func:`~baremobile.virtual.chromium.
            find_chromium`), ``None``/``False`` (none: web screens show their placeholder),
            a path to a Chromium executable, or a shared
            :class:`~baremobile.virtual.chromium.Chromium` (then :meth:`close` leaves it
            running). An engine is started only when a web screen or socket first needs it.
        screens: a ready screen model (then ``scenario`` is ignored).
        api_level: Android API level to emulate (quirks depend on it); default: the profile's.
        profile: what kind of device (:mod:`~baremobile.virtual.profiles`: ``"android6"``,
            ``"tablet"``, ``"protocol-a"``; ``None`` = the default Android 15 phone).
        serial: ``ro.serialno`` and the adb serial.
        clock: time source (:class:`RealClock` by default; :class:`FakeClock` in tests).
        input_latency: spend on the clock what a real device spends starting ``input``,
            ``uinput`` and ``sendevent`` (:data:`INPUT_LATENCY`), so the time between two
            injections is what a real phone would record. Off by default (the phone
            answers at once); use it with a :class:`FakeClock`.
    """

    def __init__(
        self,
        scenario: str | os.PathLike[str] | None = None,
        *,
        screens: Any = None,
        api_level: int | None = None,
        serial: str = "vphone-0001",
        clock: Clock | None = None,
        input_latency: bool = False,
        browser: Any = "auto",
        profile: Any = None,
    ) -> None:
        self.profile = resolve(profile)
        self.answers = Answers()  # canned output a test taught the phone (answers.py)
        self.clock: Clock = clock if clock is not None else RealClock()
        self.input_latency = input_latency
        self.api_level = api_level if api_level is not None else self.profile.api_level
        self.serial = serial
        self.fs = FileSystem(self.clock)
        self.events = EventLog(self.clock)
        if screens is None:
            from baremobile.virtual.screens import ScreenModel

            screens = ScreenModel.from_scenario(scenario, clock=self.clock)
        self.screens = screens
        self.faults = DumpFaults()
        #: screencap warns on stderr about several displays (as real multi-display phones do)
        self.multiple_displays = False
        self.lock = threading.RLock()
        self.props: dict[str, str] = default_props(self.api_level, self.serial,
                                                  getattr(self.screens, 'density', 420))
        self.settings: dict[str, dict[str, str]] = default_settings(serial)
        self.wm_size_override: tuple[int, int] | None = None
        self.wm_density_override: int | None = None
        self.running: dict[str, int] = {}  # package -> pid
        self.granted: dict[str, set[str]] = {}
        self.boot_time = self.clock.time() - 3600.0
        self._log: list[LogEntry] = []
        self._logcat_cleared_seq = 0
        self._logcat_cleared_time = 0.0
        self.battery = Battery()
        self.input_devices: list[InputDevice] = self.profile.input_devices()
        self._decoders: dict[int, MultiTouchDecoder] = {}
        self.install_apks()
        self.browser, self._own_browser = _engine(browser)
        if hasattr(screens, "attach_browser"):
            screens.attach_browser(self.browser, self.props)
        self.fs.provide("/proc/net/unix", lambda: proc_net_unix(self))
        if hasattr(screens, "surface_of"):
            screens.surface_of = self.profile.surface_rotation
        self.apply_rotation()  # a landscape-natural display starts wide

    # -- the web engine and its sockets ----------------------------------------------------
    def devtools_socket(self, name: str) -> DevToolsSocket | None:
        """The DevTools socket listening as ``@name`` now, or None."""
        return next((s for s in devtools_sockets(self) if s.name == name), None)

    def close(self) -> None:
        """Stop what the phone started (its browser engine, unless it was shared)."""
        engine = self.browser
        if engine is None:
            return
        if hasattr(self.screens, "attach_browser"):
            self.screens.attach_browser(None)  # closes its pages in a shared engine
        if self._own_browser:
            engine.stop()

    # -- identity -----------------------------------------------------------------------
    def banner_props(self) -> dict[str, str]:
        """The three properties adbd puts in its CNXN banner."""
        with self.lock:
            return {k: self.props[k] for k in ("ro.product.name", "ro.product.model",
                                                 "ro.product.device")}

    # -- processes ----------------------------------------------------------------------
    def spawn(self, command: str, *, stdin: StdinPipe | None = None) -> ShellProcess:
        """Start ``/system/bin/sh -c command`` (an interactive shell when empty)."""
        return ShellProcess(self, command, stdin=stdin)

    def new_pid(self) -> int:
        """A fresh process id (for ``$$``, ``pidof`` ...)."""
        return next(_pids)

    # -- logcat ---------------------------------------------------------------------------
    def log(self, priority: str, tag: str, message: str, *, pid: int = 1000) -> None:
        """Add a line to the logcat buffer (what ``logcat -d`` shows besides events)."""
        with self.lock:
            self._log.append(LogEntry(self.clock.time(), pid, pid, priority, tag, message))

    def logcat_clear(self) -> None:
        """``logcat -c``: forget the buffer (the Python event log is kept)."""
        with self.lock:
            self._log.clear()
            self._logcat_cleared_seq = self.events.last_seq

    def logcat_entries(self) -> list[tuple[float, str, str, str, int, Any]]:
        """Everything logcat would show: ``(time, priority, tag, message, pid, event)``.

        ``event`` is the :class:`~baremobile.virtual.events.Event` for event lines (so
        ``-v threadtime`` can print :meth:`Event.logcat_line` verbatim), else ``None``.
        """
        with self.lock:
            rows: list[tuple[float, str, str, str, int, Any]] = [
                (e.time, e.priority, e.tag, e.message, e.pid, None) for e in self._log
            ]
            since = self._logcat_cleared_seq
        for ev in self.events.list(since=since):
            line = ev.logcat_line()
            msg = line.split("VirtualPhone: ", 1)[1] if "VirtualPhone: " in line else line
            rows.append((ev.time, "I", "VirtualPhone", msg, 1000, ev))
        rows.sort(key=lambda r: r[0])
        return rows

    # -- apps -----------------------------------------------------------------------------
    def mark_running(self, package: str) -> int:
        """Remember that ``package`` has a process (for ``pidof``); returns its pid."""
        with self.lock:
            if package not in self.running:
                pid = self.running[package] = self.new_pid() + 6000
                uid = app_uid(package)
                self.log("I", "ActivityManager", f"Start proc {pid}:{package}/u0a{uid - 10000} "
                         "for top-activity", pid=1000)
                self.log("I", "ActivityThread", f"Bind application {package}", pid=pid)
            return self.running[package]

    def force_stop(self, package: str) -> None:
        """``am force-stop``: no process of the package, no activity (its tasks close)."""
        with self.lock:
            self.running.pop(package, None)
        self.screens.force_stop(package)

    def display_size(self) -> tuple[int, int]:
        """The physical display size in pixels (natural orientation, as ``wm size``)."""
        return self.profile.natural_size(int(self.screens.width), int(self.screens.height))

    def install_apks(self) -> None:
        """Write every installed package's APK where ``pm path`` says it is."""
        from baremobile.virtual.apk import BASE_LABELS, build_apk
        from baremobile.virtual.commands.intents import apk_path, packages

        labels = {a.package: a.label for a in self.screens.apps()}
        for pkg in packages(self):
            path = apk_path(pkg)
            if self.fs.exists(path):
                continue
            base = pkg.name not in labels
            label = BASE_LABELS.get(pkg.name, pkg.name) if base else labels[pkg.name]
            self.fs.install(path, build_apk(pkg.name, label, pkg.version_code,
                                            pkg.version_name, pkg.launcher,
                                            literal_label=base))

    # -- time spent by real devices -------------------------------------------------------
    def spend(self, what: str, cancel: threading.Event | None = None) -> None:
        """Let the clock run for what a real device spends on ``what`` (a key of
        :data:`INPUT_LATENCY`), when the phone models latency."""
        if self.input_latency:
            self.clock.sleep(INPUT_LATENCY[what], cancel)

    def now_ms(self) -> float:
        """The phone's clock in milliseconds (what input events are stamped with here; the
        screen model's double-tap timing uses the same clock)."""
        return self.clock.time() * 1000

    # -- rotation -------------------------------------------------------------------------
    def apply_rotation(self) -> None:
        """Turn the display as WindowManager does from ``accelerometer_rotation`` and
        ``user_rotation`` (the phone lies still in portrait, so auto-rotate means 0)."""
        with self.lock:
            system = self.settings["system"]
            auto = system.get("accelerometer_rotation", "1") != "0"
            try:
                user = int(system.get("user_rotation", "0")) % 4
            except ValueError:
                user = 0
        set_rotation = getattr(self.screens, "set_rotation", None)
        if set_rotation is not None:
            set_rotation(self.profile.layout_rotation(0 if auto else user))

    def surface_rotation(self) -> int:
        """The display's rotation as Android reports it (``Surface.ROTATION_*``: 0 is the
        natural orientation, wide on a landscape-natural tablet) — the screen model lays
        apps out portrait and keeps its own layout rotation."""
        return self.profile.surface_rotation(int(getattr(self.screens, "rotation", 0)))

    # -- input devices --------------------------------------------------------------------
    def input_device(self, path: str) -> InputDevice | None:
        """The ``/dev/input/eventN`` node at ``path``."""
        with self.lock:
            return next((d for d in self.input_devices if d.path == path), None)

    def add_input_device(self, dev: InputDevice) -> InputDevice:
        """A new node (``/dev/uinput``): the next free ``eventN``."""
        with self.lock:
            dev.number = max((d.number for d in self.input_devices), default=-1) + 1
            self.input_devices.append(dev)
            return dev

    def remove_input_device(self, dev: InputDevice) -> None:
        with self.lock:
            if dev in self.input_devices:
                self.input_devices.remove(dev)
            self._decoders.pop(dev.number, None)

    def inject(self, dev: InputDevice, events: list[tuple[int, int, int]]) -> None:
        """Events written to ``dev`` (``write()`` of ``struct input_event``s, stamped now):
        a touch screen's frames go to the screen; what it recognises is logged
        (``gesture``, then ``tap``/``double_tap``/``long_press``/``swipe``/``drag``/
        ``pinch``) with ``source`` = the device's path."""
        now = self.now_ms()
        if now < dev.ready_at_ms or not dev.is_touchscreen:
            return  # InputReader has not opened it yet, or it is not a touch screen
        with self.lock:
            decoder = self._decoders.get(dev.number)
            if decoder is None:
                decoder = self._decoders[dev.number] = MultiTouchDecoder.for_device(dev)
            frames = decoder.feed(events, now)
        w, h = self.display_size()
        touch_frame = getattr(self.screens, "touch_frame", None)
        for f in frames:
            pointers = {pid: self.profile.panel_to_layout(*dev.to_natural(x, y, w, h),
                                                          int(self.screens.width))
                        for pid, (x, y) in f.pointers.items()}
            for what in (touch_frame(dev.path, f.time_ms, pointers) if touch_frame else []):
                detail = {k: v for k, v in what.items() if k != "kind"}
                self.events.append(what["kind"], source=dev.path, **detail)


def _engine(browser: Any) -> tuple[Chromium | None, bool]:
    """(engine, whether the phone owns it) for the ``browser`` argument."""
    if browser is None or browser is False:
        return None, False
    if isinstance(browser, Chromium):
        return browser, False
    if browser == "auto" or browser is True:
        exe = find_chromium()
        if exe is None and browser is True:
            raise ChromiumError("no Chromium found: install chromium, or name one in "
                                f"${CHROMIUM_ENV}")
        return (Chromium(exe), True) if exe else (None, False)
    return Chromium(str(browser)), True


# --------------------------------------------------------------------------------------
# a running shell command
# --------------------------------------------------------------------------------------

#: exit status of a process whose stream the client closed (SIGHUP, like adbd's hangup)
CANCELLED_STATUS = 129


class ShellProcess:
    """One ``shell:``/``exec:`` command running on the phone.

    Iterate :meth:`output` (in any thread) to run it; :attr:`exit_code` is set when the
    iteration ends; :meth:`cancel` (from any thread) stops it promptly.
    """

    def __init__(self, model: PhoneModel, command: str, *, stdin: StdinPipe | None) -> None:
        self.model = model
        self.command = command
        self.stdin = stdin
        self.exit_code: int | None = None
        self.pid = model.new_pid()
        self._cancel = threading.Event()
        self._started = False

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        """The client closed the stream: stop sleeping/reading/dumping and end output()."""
        self._cancel.set()
        if self.stdin is not None and hasattr(self.stdin, "abort"):
            self.stdin.abort()

    def output(self) -> Iterator[tuple[int, bytes]]:
        """Run the command, yielding ``(1, stdout)`` / ``(2, stderr)`` chunks as produced."""
        if self._started:
            raise RuntimeError("ShellProcess.output() can only be iterated once")
        self._started = True
        from baremobile.virtual.shell.interpreter import run_command_line
        from baremobile.virtual.shell.process import Cancelled

        gen = run_command_line(self.model, self.command, stdin=self.stdin,
                               cancel=self._cancel, pid=self.pid)
        status = 0
        try:
            while True:
                try:
                    fd, data = next(gen)
                except StopIteration as stop:
                    status = int(stop.value or 0)
                    break
                if self._cancel.is_set():
                    status = CANCELLED_STATUS
                    gen.close()
                    break
                if data:
                    yield fd, data
        except Cancelled:
            status = CANCELLED_STATUS
        finally:
            if self._cancel.is_set():
                status = CANCELLED_STATUS
            self.exit_code = status & 0xFF

    def run(self) -> tuple[bytes, bytes, int]:
        """Convenience for tests: run to completion, return ``(stdout, stderr, status)``."""
        out = bytearray()
        err = bytearray()
        for fd, data in self.output():
            (err if fd == 2 else out).extend(data)
        assert self.exit_code is not None
        return bytes(out), bytes(err), self.exit_code
