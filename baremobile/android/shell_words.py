"""How an argument list becomes one command line the device's ``sh -c`` runs as meant.

This is where command lines are built — and therefore where nothing may break out of
them. Every argument is validated (numbers are numbers, package names look like package
names) and then single-quoted: inside ``'…'`` mksh treats every byte literally, and a
``'`` is written as ``'\\''``. No user string is ever pasted into a command line any other
way. No I/O here: :class:`~baremobile.device.core.Device` sends what these functions build.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from baremobile.errors import InvalidArgument

__all__ = [
    "MAX_COMMAND",
    "absolute_path",
    "batches",
    "command_line",
    "intent_extra",
    "number",
    "quote",
    "validate_action",
    "validate_component",
    "validate_log_tag",
    "validate_package",
    "validate_uri",
]

#: Longest command line sent in one round trip (older adbd cap OPEN at 4 KiB).
MAX_COMMAND = 3500

_SAFE = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+\Z")
_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+\Z")
_CLASS = re.compile(r"^\.?[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*\Z")
_ACTION = re.compile(r"^[A-Za-z0-9_.]+\Z")
_EXTRA_KEY = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.:-]*\Z")  # never an option
_LOG_TAG = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*(:[VDIWEFS])?\Z")  # never an option
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


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
            hint="package names look like 'com.android.settings'; list them with {list_apps}",
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


def validate_log_tag(tag: object) -> str:
    """A logcat tag filter, optionally with a priority: ``ActivityManager:I``."""
    if not isinstance(tag, str) or not _LOG_TAG.match(tag):
        raise InvalidArgument(
            f"{tag!r} is not a log tag",
            hint="letters, digits, '_', '.', '-' (not first), optionally ':PRIORITY'",
        )
    return tag


def absolute_path(path: object) -> str:
    """A device path, as every verb and door checks it: text starting with ``/``, holding no
    NUL, line break or lone surrogate (a path the sync protocol and ``sh -c`` both carry
    unchanged, and a listing can show on one line)."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise InvalidArgument(f"{path!r} is not an absolute device path",
                              hint="device paths start with /, e.g. /sdcard/Download")
    if "\0" in path or "\n" in path or "\r" in path:
        raise InvalidArgument(f"{path!r} is not a device path baremobile can name: it holds "
                              "a NUL or a line break",
                              hint="name the file without control characters (list its "
                                   "folder to see its name)")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument("the device path holds a lone surrogate, which cannot be sent",
                              hint="pass well-formed text") from None
    return path


def intent_extra(key: str, value: object) -> list[str]:
    """The ``am start`` options that pass one extra, typed by the value's Python type."""
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
