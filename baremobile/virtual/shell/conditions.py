"""``test`` / ``[`` expressions (POSIX test(1) with toybox's and mksh's messages).

Shared by mksh's ``test`` builtin and toybox's ``/system/bin/test``: both evaluate the same
grammar (``!``, ``-a``, ``-o``, parentheses, string, integer and file tests) against the
phone's filesystem.
"""

from __future__ import annotations

import re
import stat as _stat
from typing import Any

__all__ = ["evaluate_test"]


def evaluate_test(args: list[str], fs: Any, cwd: str) -> tuple[int, str | None]:
    """POSIX ``test``: returns ``(status, error message or None)``; status 2 on errors."""
    try:
        value, rest = _test_or(list(args), fs, cwd)
        if rest:
            return 2, f"{rest[0]}: unexpected operator"
        return (0 if value else 1), None
    except _TestError as exc:
        return 2, str(exc)


class _TestError(Exception):
    pass


def _test_or(a: list[str], fs: Any, cwd: str) -> tuple[bool, list[str]]:
    if not a:
        return False, []
    v, a = _test_and(a, fs, cwd)
    while a and a[0] == "-o":
        w, a = _test_and(a[1:], fs, cwd)
        v = v or w
    return v, a


def _test_and(a: list[str], fs: Any, cwd: str) -> tuple[bool, list[str]]:
    v, a = _test_not(a, fs, cwd)
    while a and a[0] == "-a":
        w, a = _test_not(a[1:], fs, cwd)
        v = v and w
    return v, a


_BIN_OPS = ("=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "<", ">", "-nt", "-ot")


def _test_not(a: list[str], fs: Any, cwd: str) -> tuple[bool, list[str]]:
    if not a:
        raise _TestError("argument expected")
    if a[0] == "!" and not (len(a) >= 3 and a[1] in _BIN_OPS):
        v, rest = _test_not(a[1:], fs, cwd)
        return not v, rest
    if a[0] == "(" and len(a) > 1 and not (len(a) >= 3 and a[1] in _BIN_OPS):
        v, rest = _test_or(a[1:], fs, cwd)
        if not rest or rest[0] != ")":
            raise _TestError("')' expected")
        return v, rest[1:]
    if len(a) >= 3 and a[1] in _BIN_OPS:
        return _test_binary(a[0], a[1], a[2]), a[3:]
    if len(a) == 2 and a[1] in _BIN_OPS:
        raise _TestError(f"{a[1]}: missing second argument")
    if len(a) >= 2 and re.fullmatch(r"-[a-zA-Z]", a[0]) and a[0] not in ("-a", "-o"):
        return _test_unary(a[0], a[1], fs, cwd), a[2:]
    return a[0] != "", a[1:]


def _int(s: str) -> int:
    try:
        return int(s.strip())
    except ValueError:
        raise _TestError(f"{s}: bad number") from None


def _test_binary(x: str, op: str, y: str) -> bool:
    if op in ("=", "=="):
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == ">":
        return x > y
    if op in ("-nt", "-ot"):
        return False
    a, b = _int(x), _int(y)
    return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b,
            "-ge": a >= b}[op]


def _test_unary(op: str, x: str, fs: Any, cwd: str) -> bool:
    if op == "-z":
        return x == ""
    if op == "-n":
        return x != ""
    if op == "-t":
        return False
    entry = fs.stat(fs.normalize(x, cwd)) if x else None
    if op in ("-e", "-a"):
        return entry is not None
    if entry is None:
        return False
    return {
        "-f": not entry.is_dir and _stat.S_ISREG(entry.mode),
        "-d": entry.is_dir,
        "-s": entry.size > 0 and not entry.is_dir or entry.is_dir,
        "-r": True,
        "-w": True,
        "-x": bool(entry.mode & 0o111),
        "-L": False,
        "-h": False,
        "-c": _stat.S_ISCHR(entry.mode),
        "-b": False,
        "-p": False,
        "-S": False,
    }.get(op, False)
