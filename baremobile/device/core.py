"""Android shell verbs over a :class:`~baremobile.transport.Transport`.

Command lines are built by :mod:`baremobile.android.shell_words` (validation and quoting) and
:mod:`baremobile.android.text_input` (the typing plan); this module sends them and reads the
answers. Android quirks handled here: ``uiautomator dump`` writes to a file (``/dev/tty``
fails on API 35+), so the dump and the read-back happen in one ``exec:`` round trip and are
streamed; a screencap is checked to be a whole PNG before it is handed out.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence

from baremobile.android.activity import parse_am_start
from baremobile.android.display import parse_wm_density, parse_wm_size
from baremobile.android.input_method import GREP_PATTERN, InputTarget, parse_input_target
from baremobile.android.packages import parse_pm_path
from baremobile.android.png import PNG_SIGNATURE, png_problem
from baremobile.android.props import parse_getprop
from baremobile.android.shell_words import (
    MAX_COMMAND,
    absolute_path,
    batches,
    command_line,
    intent_extra,
    number,
    quote,
    validate_action,
    validate_component,
    validate_package,
    validate_uri,
)
from baremobile.android.windows import Focus, parse_focus
from baremobile.errors import (
    CommandFailed,
    DumpFailed,
    InvalidArgument,
    ServiceRefused,
)
from baremobile.safetext import decode
from baremobile.transport.base import DUMP_TIMEOUT, ShellResult, Transport

__all__ = ["DUMP_PATH", "Device", "Focus"]

#: Where the hierarchy is dumped (``/dev/tty`` does not work on API 35+).
DUMP_PATH = "/data/local/tmp/baremobile_dump.xml"


class Device:
    """Shell verbs on one device. Thread-safe as far as its transport is."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        #: how many commands that may change the screen were sent (taps, swipes, keys,
        #: typing, starting and stopping apps): a verb that fails after one was sent
        #: still changed the screen (the Page's guard reads it)
        self.sent = 0
        self._props: dict[str, str] | None = None

    @property
    def serial(self) -> str:
        return self.transport.serial

    # -- running things ---------------------------------------------------------------
    def run(
        self, argv: Sequence[str], *, timeout: float | None = None, check: bool = True
    ) -> ShellResult:
        """Run one command (argv, quoted here) and return its result."""
        r = self.transport.shell(command_line(argv), timeout=timeout)
        return r.check() if check else r

    def run_all(self, commands: Iterable[Sequence[str]], *, timeout: float | None = None) -> None:
        """Run commands in order, ``&&``-chained into as few round trips as fit in one
        message to this device (its negotiated max payload; all planned before sending)."""
        for line in batches(commands, min(MAX_COMMAND, self.transport.max_command)):
            self.sent += 1
            self.transport.shell(line, timeout=timeout).check()

    # -- properties -------------------------------------------------------------------
    def props(self, *, refresh: bool = False) -> dict[str, str]:
        """All system properties (``getprop``, read by
        :func:`baremobile.android.props.parse_getprop`: CRLF, multi-line values), cached."""
        if self._props is None or refresh:
            self._props = dict(parse_getprop(self.run(["getprop"]).stdout).values)
        return self._props

    def getprop(self, key: str) -> str:
        return self.props().get(key, "")

    @property
    def api_level(self) -> int:
        v = self.getprop("ro.build.version.sdk").strip()
        return int(v) if v.isdigit() else 0

    def screen_size(self) -> tuple[int, int]:
        """(width, height) in pixels as ``wm size`` reports (override wins)."""
        return parse_wm_size(self.run(["wm", "size"]).stdout).size

    def density(self) -> int:
        return parse_wm_density(self.run(["wm", "density"]).stdout) or 0

    def focus(self) -> Focus | None:
        """The focused app window (``dumpsys window`` → ``mCurrentFocus`` /
        ``mFocusedApp``, read by :func:`baremobile.android.windows.parse_focus`: several
        displays, Android 4.1's lines without a user).

        The lines moved between sections over Android versions (``windows`` before 10,
        ``displays`` after), so the whole dump is filtered on the device.
        """
        pattern = quote("mCurrentFocus|mFocusedApp")
        return parse_focus(self.transport.shell(f"dumpsys window | grep -E {pattern}").stdout)

    def input_target(self) -> InputTarget:
        """Which view the input method serves and whether it takes text (``dumpsys
        input_method``, filtered on the device: one round trip, no dump; see
        :mod:`baremobile.android.input_method`)."""
        text = self.transport.shell(
            f"dumpsys input_method | grep -E {quote(GREP_PATTERN)}").text
        return parse_input_target(text)

    # -- files ------------------------------------------------------------------------
    def file_info(self, path: str) -> tuple[int, str]:
        """``(size, kind)`` of a device file, links followed (``stat -L``); kind is
        toybox's ``%F``: ``regular file``, ``regular empty file``, ``directory``, ``fifo``…

        Raises :class:`CommandFailed` with the device's words when it is missing or not
        readable.
        """
        absolute_path(path)
        line = f"{command_line(['stat', '-L', '-c', '%s %F', path])} && " \
               f"{command_line(['test', '-r', path])}"
        r = self.transport.shell(line)
        out = r.text.strip()
        size, _, kind = out.partition(" ")
        if r.exit_code != 0 or not size.isdigit():
            said = decode(r.stderr or r.stdout).strip()
            reason = said.splitlines()[0] if said else "it is not readable (permission denied)"
            raise CommandFailed(f"cannot read {path}: {reason}", command=line,
                                exit_code=r.exit_code, output=said,
                                hint="check the path: list its folder ({list_files})")
        return int(size), kind

    def read_part(self, path: str, offset: int, length: int) -> bytes:
        """At most ``length`` bytes of a device file from byte ``offset`` on, without
        moving the rest of the file.

        Android 9+ (toybox 0.7.6+, where ``head -c`` exists — it came in toybox 0.7.5):
        ``tail -c +OFFSET | head -c LENGTH`` over ``exec:``, so only those bytes cross
        the wire. Older devices: a sync pull that stops once it has them (the connection
        is then reopened; memory stays at ``length`` either way).
        """
        absolute_path(path)
        offset = number("offset", offset, minimum=0)
        length = number("length", length, minimum=1)
        if self.api_level >= 28:
            head = command_line(["head", "-c", str(length)])
            if offset:
                tail = command_line(["tail", "-c", f"+{offset + 1}", path])
                line = f"{tail} 2>/dev/null | {head} 2>/dev/null"
            else:
                line = f"{command_line(['head', '-c', str(length), path])} 2>/dev/null"
            return self.transport.exec_out(line)
        window = _Window(offset, length)
        with contextlib.suppress(_Enough):
            self.transport.pull_into(path, window)
        return bytes(window.data)

    # -- the hierarchy ----------------------------------------------------------------
    def dump_stream(
        self, *, timeout: float = DUMP_TIMEOUT, path: str | None = None
    ) -> Iterator[bytes]:
        """Dump the UI hierarchy and yield what the device prints, as it arrives.

        One ``exec:`` round trip: ``rm -f P; uiautomator dump P; cat P; rm -f P``. The bytes
        are uiautomator's status text, then the XML; feed them all to a
        :class:`~baremobile.snapshot.StreamPruner`, which checks the status text for the
        known failures (:class:`~baremobile.errors.DeviceNotIdle`, :class:`NullRootNode`,
        :class:`AutomationBusy`, other :class:`DumpFailed`) exactly as
        :func:`~baremobile.snapshot.from_xml` does for a dump held in memory.
        """
        # a file of its own per call: two clients of one device cannot remove each other's
        p = quote(path or f"{DUMP_PATH[:-4]}-{secrets.token_hex(4)}.xml")
        cmd = f"rm -f {p}; uiautomator dump {p}; cat {p}; rm -f {p}"
        stream = self.transport.stream(cmd, timeout=timeout)
        try:
            with contextlib.closing(stream):
                yield from stream
        except ServiceRefused as exc:
            raise DumpFailed(
                f"the device would not run uiautomator: {exc.message}", device_output=exc.message
            ) from None

    def screencap(self, *, timeout: float | None = None) -> bytes:
        """A PNG of the screen (``exec:`` — binary-safe — with stderr discarded).

        Raises :class:`CommandFailed` (the device's fault, not the caller's) when what came
        back is not a complete PNG: other output, or a PNG cut short.
        """
        data = self.transport.exec_out("screencap -p 2>/dev/null", timeout=timeout)
        if not data.startswith(PNG_SIGNATURE):
            said = decode(data[:300]).strip()
            raise CommandFailed(
                f"screencap did not return a PNG: {said or 'no output'}", output=said,
                hint="take the screenshot again; the screen may be secure (FLAG_SECURE) "
                "or the device busy",
            )
        problem = png_problem(data)
        if problem is not None:
            raise CommandFailed(
                f"screencap returned a broken PNG: {problem}",
                hint="take the screenshot again",
            )
        return data

    # -- input ------------------------------------------------------------------------
    @staticmethod
    def _input(display: int) -> list[str]:
        return ["input", "-d", str(display)] if display else ["input"]

    def tap_argv(self, x: int, y: int, *, display: int = 0) -> list[str]:
        """``input [-d DISPLAY] tap X Y``."""
        return [*self._input(display), "tap", str(x), str(y)]

    def tap(self, x: int, y: int, *, display: int = 0) -> None:
        self.sent += 1
        self.run(self.tap_argv(x, y, display=display))

    def swipe(
        self, x1: int, y1: int, x2: int, y2: int, duration_ms: int, *, display: int = 0
    ) -> None:
        coords = [str(v) for v in (x1, y1, x2, y2, duration_ms)]
        self.sent += 1
        self.run([*self._input(display), "swipe", *coords])

    def keyevent(self, *codes: int, longpress: bool = False) -> None:
        argv = ["input", "keyevent"] + (["--longpress"] if longpress else [])
        self.sent += 1
        self.run(argv + [str(c) for c in codes])

    def keycombination(self, *codes: int) -> None:
        self.sent += 1
        self.run(["input", "keycombination", *(str(c) for c in codes)])

    # -- apps -------------------------------------------------------------------------
    def launch(self, package: str) -> None:
        """Start ``package``'s launcher activity (``monkey -p PKG -c LAUNCHER 1``)."""
        validate_package(package)
        r = self.run(
            ["monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1"], check=False
        )
        said = decode(r.stdout + r.stderr)
        if "No activities found" in said or "monkey aborted" in said or r.exit_code != 0:
            raise InvalidArgument(
                f"{package} has no launchable activity on {self.serial} (is it installed?)",
                hint="check the package name with {list_apps}",
            )

    def start_activity(
        self,
        *,
        action: str | None = None,
        data: str | None = None,
        component: str | None = None,
        package: str | None = None,
        categories: Sequence[str] = (),
        extras: Mapping[str, object] | None = None,
        flags: int | None = None,
        wait: bool = False,
    ) -> str:
        """``am start`` with validated arguments; returns am's output."""
        argv = ["am", "start"]
        if wait:
            argv.append("-W")
        if action is not None:
            argv += ["-a", validate_action(action)]
        if data is not None:
            argv += ["-d", validate_uri(data)]
        for c in categories:
            argv += ["-c", validate_action(c)]
        if component is not None:
            argv += ["-n", validate_component(component)]
        if flags is not None:
            argv += ["-f", str(number("flags", flags, minimum=0, maximum=0xFFFFFFFF))]
        for key, value in (extras or {}).items():
            argv += intent_extra(key, value)
        if package is not None:
            argv.append(validate_package(package))
        if len(argv) == 2:
            raise InvalidArgument("an intent needs an action, data, component or package")
        r = self.run(argv, check=False)
        said = decode(r.stdout + r.stderr)
        result = parse_am_start(said)
        if r.exit_code != 0 or not result.ok:
            line = result.error or said.strip() or f"exit status {r.exit_code}"
            raise CommandFailed(
                f"am start failed: {line}",
                command=command_line(argv),
                exit_code=r.exit_code,
                output=said,
            )
        return said

    def force_stop(self, package: str) -> None:
        """``am force-stop`` an installed package (one round trip: ``pm path`` first, since
        ``am force-stop`` answers nothing, successfully, for a package that is not there)."""
        self._installed_then(package, ["am", "force-stop", package])

    def clear_data(self, package: str) -> None:
        """``pm clear`` an installed package (its data erased, its processes stopped)."""
        self._installed_then(package, ["pm", "clear", package])

    def _installed_then(self, package: str, argv: Sequence[str]) -> ShellResult:
        """Run ``argv`` when ``package`` is installed (``pm path P && …``, one round trip);
        :class:`InvalidArgument` saying it is not, as the other app verbs do."""
        validate_package(package)
        line = command_line(["pm", "path", package]) + " && " + command_line(argv)
        self.sent += 1
        r = self.transport.shell(line)
        if not parse_pm_path(r.stdout):
            raise InvalidArgument(f"{package} is not installed on {self.serial}",
                                  hint="list the packages with {list_apps}")
        if r.exit_code != 0:
            said = [ln.strip() for ln in decode(r.stdout + r.stderr).splitlines()
                    if ln.strip() and not ln.startswith("package:")]
            raise CommandFailed(f"`{command_line(argv)}` failed on the device (exit "
                                f"{r.exit_code}): {said[0] if said else 'no output'}",
                                command=line, exit_code=r.exit_code, output="\n".join(said))
        return r


class _Enough(Exception):
    """A pull stops here: the window has what was asked for."""


class _Window:
    """A sink keeping bytes ``[offset, offset + length)`` of what is written to it."""

    def __init__(self, offset: int, length: int) -> None:
        self.start, self.end = offset, offset + length
        self.pos = 0
        self.data = bytearray()

    def write(self, chunk: bytes) -> int:
        lo, hi = max(self.start - self.pos, 0), min(self.end - self.pos, len(chunk))
        if lo < hi:
            self.data += chunk[lo:hi]
        self.pos += len(chunk)
        if self.pos >= self.end:
            raise _Enough
        return len(chunk)
