"""Android shell verbs over a :class:`~baremobile.transport.Transport`.

This is where command lines are built — and therefore where nothing may break out of
them. Every argument is validated (numbers are numbers, package names look like package
names) and then single-quoted for the device's ``sh -c``: inside ``'…'`` mksh treats every
byte literally, and a ``'`` is written as ``'\\''``. No user string is ever pasted into a
command line any other way.

Android quirks handled here:

* ``uiautomator dump`` writes to a file (``/dev/tty`` fails on API 35+); the dump and the
  read-back happen in one ``exec:`` round trip and are streamed.
* ``input text`` cannot type spaces on API 35+, turns ``%s`` into a space, and fails on
  anything outside printable ASCII: :func:`typing_plan` types word by word with
  KEYCODE_SPACE between words, splits every ``%``/``s`` pair across two commands, and
  rejects untypable characters before anything is sent.
"""

from __future__ import annotations

import contextlib
import math
import re
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from baremobile.errors import (
    CommandFailed,
    DumpFailed,
    InvalidArgument,
    ServiceRefused,
    UnsupportedText,
)
from baremobile.keycodes import KEYCODES
from baremobile.transport.base import DUMP_TIMEOUT, ShellResult, Transport

__all__ = [
    "DUMP_PATH",
    "Device",
    "Focus",
    "batches",
    "clear_plan",
    "command_line",
    "number",
    "png_problem",
    "quote",
    "typing_plan",
    "untypable",
    "validate_action",
    "validate_component",
    "validate_package",
    "validate_uri",
]

#: Where the hierarchy is dumped (``/dev/tty`` does not work on API 35+).
DUMP_PATH = "/data/local/tmp/baremobile_dump.xml"

#: Longest command line sent in one round trip (older adbd cap OPEN at 4 KiB).
MAX_COMMAND = 3500

_SAFE = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+\Z")
_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+\Z")
_CLASS = re.compile(r"^\.?[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*\Z")
_ACTION = re.compile(r"^[A-Za-z0-9_.]+\Z")
_EXTRA_KEY = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.:-]*\Z")  # never an option
_LOG_TAG = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*(:[VDIWEFS])?\Z")  # never an option
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


# ---------------------------------------------------------------------------------------
# quoting and validation
# ---------------------------------------------------------------------------------------


def quote(arg: str) -> str:
    """Quote one argument for the device's ``sh``: safe words as-is, else ``'…'``."""
    if not isinstance(arg, str):
        raise InvalidArgument(f"shell arguments must be strings, not {type(arg).__name__}")
    if "\0" in arg:
        raise InvalidArgument("a shell argument cannot contain a NUL character")
    if arg and _SAFE.match(arg):
        return arg
    return "'" + arg.replace("'", "'\\''") + "'"


def command_line(argv: Sequence[str]) -> str:
    """argv → one safely quoted command line."""
    if not argv:
        raise InvalidArgument("empty command")
    return " ".join(quote(a) for a in argv)


def number(
    name: str, value: object, *, minimum: float | None = None, maximum: float | None = None
) -> int:
    """A finite number (int or float, not bool, not str) rounded to an int, in range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{name} must be a number, not {value!r}")
    if not math.isfinite(value):
        raise InvalidArgument(f"{name} must be finite, not {value!r}")
    v = int(round(value))
    if minimum is not None and v < minimum:
        raise InvalidArgument(f"{name} must be ≥ {minimum:g}, not {value!r}")
    if maximum is not None and v > maximum:
        raise InvalidArgument(f"{name} must be ≤ {maximum:g}, not {value!r}")
    return v


def validate_package(package: object) -> str:
    """A Java package name like ``com.android.settings``."""
    if not isinstance(package, str) or not _PACKAGE.match(package):
        raise InvalidArgument(
            f"{package!r} is not an Android package name",
            hint="package names look like 'com.android.settings'; list them with {apps}",
        )
    return package


def validate_component(component: object) -> str:
    """``pkg/.Activity`` or ``pkg/full.class.Name``."""
    if not isinstance(component, str) or component.count("/") != 1:
        raise InvalidArgument(f"{component!r} is not a component (expected 'package/.Activity')")
    pkg, cls = component.split("/")
    validate_package(pkg)
    if not _CLASS.match(cls):
        raise InvalidArgument(f"{cls!r} is not an activity class name")
    return component


def validate_uri(uri: object) -> str:
    if not isinstance(uri, str) or not _SCHEME.match(uri):
        raise InvalidArgument(
            f"{uri!r} is not a URI with a scheme",
            hint="pass e.g. 'https://example.com', 'tel:5551234', 'geo:0,0?q=cafe'",
        )
    bad = sorted({c for c in uri if c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F})
    if bad:
        raise InvalidArgument(
            f"URI contains whitespace or control characters: {bad!r}",
            hint="percent-encode them (a space is %20)",
        )
    return uri


def validate_action(action: object) -> str:
    if not isinstance(action, str) or not _ACTION.match(action):
        raise InvalidArgument(
            f"{action!r} is not an intent action like 'android.intent.action.VIEW'"
        )
    return action


# ---------------------------------------------------------------------------------------
# typing
# ---------------------------------------------------------------------------------------

#: Characters ``input text`` can type (the virtual keyboard map): printable ASCII.
TYPABLE = frozenset(chr(c) for c in range(0x20, 0x7F))
#: Characters typed as keys instead of text.
KEY_CHARS = {" ": KEYCODES["SPACE"], "\n": KEYCODES["ENTER"], "\t": KEYCODES["TAB"]}


def untypable(text: str) -> list[str]:
    """The characters of ``text`` that ``input text`` cannot produce (in order, unique)."""
    return list(dict.fromkeys(c for c in text if c not in TYPABLE and c not in KEY_CHARS))


#: Longest piece of a word typed by one ``input text`` (old adbd caps a command at 4 KiB).
MAX_PIECE = 1000


def _text_pieces(word: str) -> list[str]:
    """Split a word so no piece contains ``%`` directly followed by ``s``.

    ``input text`` turns every ``%s`` into a space; typing ``%`` and ``s…`` in two
    commands is the only way to produce a literal ``%s``. Long words are also cut into
    pieces of at most :data:`MAX_PIECE` characters, so every command line stays small.
    """
    pieces, start = [], 0
    for i in range(len(word) - 1):
        if (word[i] == "%" and word[i + 1] == "s") or i + 1 - start >= MAX_PIECE:
            pieces.append(word[start : i + 1])
            start = i + 1
    pieces.append(word[start:])
    return [p for p in pieces if p]


def typing_plan(text: str) -> list[list[str]]:
    """The ``input`` commands (argv lists) that make a field hold exactly ``text``.

    Words go through ``input text``; spaces, newlines and tabs become key events
    (consecutive ones share one ``input keyevent``). Raises :class:`UnsupportedText`
    naming every character that cannot be typed — before anything is sent.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"text must be a string, not {type(text).__name__}")
    bad = untypable(text)
    if bad:
        raise UnsupportedText(bad)
    plan: list[list[str]] = []
    word: list[str] = []
    keys: list[str] = []

    def flush_word() -> None:
        if word:
            plan.extend(["input", "text", p] for p in _text_pieces("".join(word)))
            word.clear()

    def flush_keys() -> None:
        if keys:
            plan.append(["input", "keyevent", *keys])
            keys.clear()

    for ch in text:
        if ch in KEY_CHARS:
            flush_word()
            keys.append(str(KEY_CHARS[ch]))
        else:
            flush_keys()
            word.append(ch)
    flush_word()
    flush_keys()
    return plan


#: DELs sent beyond the field's length (characters that arrive while clearing).
CLEAR_MARGIN = 8
#: DELs for a password field whose dump hides its text (Android before 8 leaves ``text``
#: empty for passwords; later versions show one bullet per character).
HIDDEN_PASSWORD_DELETES = 128


def clear_plan(api_level: int, length: int) -> list[list[str]]:
    """The ``input`` commands that empty the focused field holding ``length`` characters.

    Android 13+ (API 33): select all (``keycombination CTRL_LEFT A``) and delete — any
    length. Older Android has no key combinations: the caret goes to the end and
    ``length`` + :data:`CLEAR_MARGIN` DELs follow, so ``length`` must be the field's length
    *now* (read from the device, never from an older snapshot).
    """
    if api_level >= 33:
        return [
            ["input", "keycombination", str(KEYCODES["CTRL_LEFT"]), str(KEYCODES["A"])],
            ["input", "keyevent", str(KEYCODES["DEL"])],
        ]
    dels = [str(KEYCODES["DEL"])] * (max(length, 0) + CLEAR_MARGIN)
    return [["input", "keyevent", str(KEYCODES["MOVE_END"])], ["input", "keyevent", *dels]]


def batches(commands: Iterable[Sequence[str]], limit: int = MAX_COMMAND) -> list[str]:
    """Join argv lists with ``&&`` into as few command lines as fit in ``limit`` bytes.

    An ``input keyevent`` with more keys than fit is split into several; any other
    command longer than ``limit`` raises :class:`InvalidArgument` — before anything is
    sent, since the whole plan is made first.
    """
    out: list[str] = []
    cur = ""
    for argv in commands:
        for line in _fitting(argv, limit):
            if cur and len(cur.encode()) + 4 + len(line.encode()) > limit:
                out.append(cur)
                cur = ""
            cur = f"{cur} && {line}" if cur else line
    if cur:
        out.append(cur)
    return out


def _fitting(argv: Sequence[str], limit: int) -> list[str]:
    """``argv`` as command lines of at most ``limit`` bytes each."""
    line = command_line(argv)
    if len(line.encode()) <= limit:
        return [line]
    head = list(argv[:2])
    if head == ["input", "keyevent"] and len(argv) > 3:  # keys: any split is the same
        lines: list[str] = []
        keys: list[str] = []
        for key in argv[2:]:
            if keys and len(command_line([*head, *keys, key]).encode()) > limit:
                lines.append(command_line([*head, *keys]))
                keys = []
            keys.append(key)
        last = command_line([*head, *keys])
        if len(last.encode()) <= limit:
            return [*lines, last]
    raise InvalidArgument(
        f"a command of {len(line.encode())} bytes does not fit in one message to the device "
        f"(at most {limit}): {line[:60]}…",
        hint="make it shorter; nothing was sent",
    )


# ---------------------------------------------------------------------------------------
# PNG
# ---------------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IHDR = b"\x00\x00\x00\x0dIHDR"  # the first chunk: 13 bytes of header, then a CRC
_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # the last chunk, always these 12 bytes


def png_problem(data: object) -> str | None:
    """What makes ``data`` not a complete PNG file (None when it is one): the signature,
    a whole ``IHDR`` chunk first and the ``IEND`` chunk last are checked, not the pixels."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return f"a PNG is bytes, not {type(data).__name__}"
    b = bytes(data[:33])
    if b[:8] != PNG_SIGNATURE:
        return "it does not start with the PNG signature"
    if len(data) < 33 or b[8:16] != _IHDR:
        return f"it ends after {len(data)} bytes, inside the PNG header"
    if bytes(data[-12:]) != _IEND:
        return f"it is cut off: {len(data)} bytes without the closing IEND chunk"
    return None


# ---------------------------------------------------------------------------------------
# the device
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Focus:
    """The focused window as ``dumpsys window`` reports it."""

    package: str
    activity: str


class Device:
    """Shell verbs on one device. Thread-safe as far as its transport is."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
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
            self.transport.shell(line, timeout=timeout).check()

    # -- properties -------------------------------------------------------------------
    def props(self, *, refresh: bool = False) -> dict[str, str]:
        """All system properties (``getprop``), cached."""
        if self._props is None or refresh:
            text = self.run(["getprop"]).text
            props = {}
            for m in re.finditer(r"^\[([^\]]*)\]: \[(.*)\]$", text, re.M):
                props[m.group(1)] = m.group(2)
            self._props = props
        return self._props

    def getprop(self, key: str) -> str:
        return self.props().get(key, "")

    @property
    def api_level(self) -> int:
        try:
            return int(self.getprop("ro.build.version.sdk") or 0)
        except ValueError:
            return 0

    def screen_size(self) -> tuple[int, int]:
        """(width, height) in pixels as ``wm size`` reports (override wins)."""
        text = self.run(["wm", "size"]).text
        sizes = re.findall(r"(Physical|Override) size: (\d+)x(\d+)", text)
        if not sizes:
            raise CommandFailed(f"unexpected `wm size` output: {text.strip()!r}")
        chosen = dict((k, (int(w), int(h))) for k, w, h in sizes)
        return chosen.get("Override") or chosen["Physical"]

    def density(self) -> int:
        text = self.run(["wm", "density"]).text
        found = re.findall(r"(Physical|Override) density: (\d+)", text)
        chosen = {k: int(v) for k, v in found}
        return chosen.get("Override") or chosen.get("Physical") or 0

    def focus(self) -> Focus | None:
        """The focused app window (``dumpsys window`` → ``mCurrentFocus``).

        The line moved between sections over Android versions (``windows`` before 10,
        ``displays`` after), so the whole dump is filtered on the device.
        """
        pattern = quote("mCurrentFocus|mFocusedApp")
        text = self.transport.shell(f"dumpsys window | grep -E {pattern}").text
        m = re.search(r"mCurrentFocus=Window\{\S+ \S+ ([^/\s}]+)/([^\s}]+)\}", text)
        if not m:
            m2 = re.search(r"mCurrentFocus=Window\{\S+ \S+ ([^\s}]+)\}", text)
            return Focus(m2.group(1), "") if m2 else None
        pkg, act = m.group(1), m.group(2)
        if act.startswith("."):
            act = pkg + act
        return Focus(pkg, act)

    # -- files ------------------------------------------------------------------------
    def file_info(self, path: str) -> tuple[int, str]:
        """``(size, kind)`` of a device file, links followed (``stat -L``); kind is
        toybox's ``%F``: ``regular file``, ``regular empty file``, ``directory``, ``fifo``…

        Raises :class:`CommandFailed` with the device's words when it is missing or not
        readable.
        """
        _absolute(path)
        line = f"{command_line(['stat', '-L', '-c', '%s %F', path])} && " \
               f"{command_line(['test', '-r', path])}"
        r = self.transport.shell(line)
        out = r.text.strip()
        size, _, kind = out.partition(" ")
        if r.exit_code != 0 or not size.isdigit():
            said = (r.stderr or r.stdout).decode("utf-8", "replace").strip()
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
        _absolute(path)
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

    def packages(self, *, third_party: bool = False) -> list[str]:
        argv = ["pm", "list", "packages"] + (["-3"] if third_party else [])
        text = self.run(argv).text
        return sorted(line[8:].strip() for line in text.splitlines() if line.startswith("package:"))

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
            with contextlib.closing(stream):  # type: ignore[type-var]
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
            said = data[:300].decode("utf-8", "replace").strip()
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
        self.run(self.tap_argv(x, y, display=display))

    def swipe(
        self, x1: int, y1: int, x2: int, y2: int, duration_ms: int, *, display: int = 0
    ) -> None:
        coords = [str(v) for v in (x1, y1, x2, y2, duration_ms)]
        self.run([*self._input(display), "swipe", *coords])

    def keyevent(self, *codes: int, longpress: bool = False) -> None:
        argv = ["input", "keyevent"] + (["--longpress"] if longpress else [])
        self.run(argv + [str(c) for c in codes])

    def keycombination(self, *codes: int) -> None:
        self.run(["input", "keycombination", *(str(c) for c in codes)])

    # -- apps -------------------------------------------------------------------------
    def launch(self, package: str) -> None:
        """Start ``package``'s launcher activity (``monkey -p PKG -c LAUNCHER 1``)."""
        validate_package(package)
        r = self.run(
            ["monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1"], check=False
        )
        said = (r.stdout + r.stderr).decode("utf-8", "replace")
        if "No activities found" in said or "monkey aborted" in said or r.exit_code != 0:
            raise InvalidArgument(
                f"{package} has no launchable activity on {self.serial} (is it installed?)",
                hint="check the package name with {apps}",
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
            argv += _extra(key, value)
        if package is not None:
            argv.append(validate_package(package))
        if len(argv) == 2:
            raise InvalidArgument("an intent needs an action, data, component or package")
        r = self.run(argv, check=False)
        said = (r.stdout + r.stderr).decode("utf-8", "replace")
        errors = [x for x in said.splitlines() if x.lstrip().startswith("Error")]
        if r.exit_code != 0 or errors:
            line = errors[0].strip() if errors else said.strip()
            raise CommandFailed(
                f"am start failed: {line}",
                command=command_line(argv),
                exit_code=r.exit_code,
                output=said,
            )
        return said

    def force_stop(self, package: str) -> None:
        self.run(["am", "force-stop", validate_package(package)])

    def clear_data(self, package: str) -> None:
        self.run(["pm", "clear", validate_package(package)])

    def logcat(self, *, lines: int = 200, tag: str | None = None) -> str:
        argv = ["logcat", "-d", "-t", str(number("lines", lines, minimum=1, maximum=100_000))]
        if tag is not None:
            if not isinstance(tag, str) or not _LOG_TAG.match(tag):
                raise InvalidArgument(
                    f"{tag!r} is not a log tag",
                    hint="letters, digits, '_', '.', '-' (not first), optionally ':PRIORITY'",
                )
            argv += ["-s", tag]
        return self.run(argv).text


def _absolute(path: object) -> str:
    if not isinstance(path, str) or not path.startswith("/") or "\0" in path:
        raise InvalidArgument(f"{path!r} is not an absolute device path",
                              hint="device paths start with /, e.g. /sdcard/Download")
    return path


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


def _extra(key: str, value: object) -> list[str]:
    if not isinstance(key, str) or not _EXTRA_KEY.match(key):
        raise InvalidArgument(f"{key!r} is not a valid intent extra name")
    if isinstance(value, bool):
        return ["--ez", key, "true" if value else "false"]
    if isinstance(value, int):
        return ["--el" if abs(value) > 2**31 - 1 else "--ei", key, str(value)]
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgument(f"extra {key!r} must be finite, not {value!r}")
        return ["--ef", key, repr(value)]
    if isinstance(value, str):
        if "\0" in value:
            raise InvalidArgument(f"extra {key!r} contains a NUL character")
        return ["--es", key, value]
    raise InvalidArgument(
        f"extra {key!r} must be str, int, float or bool, not {type(value).__name__}"
    )
