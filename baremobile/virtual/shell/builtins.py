"""The builtins that live inside mksh (they change the shell's own state: ``cd``, ``export``,
``set``, ``read``, ``eval``, ``.``, ``exit``, ``return``, ``break`` ...).

Each builtin is a generator ``(shell, argv, io) -> status`` registered in :data:`BUILTINS`;
the programs on ``/system/bin`` are :mod:`baremobile.virtual.commands`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from .conditions import evaluate_test
from .escapes import mksh_print_escapes
from .lexer import Lexer
from .parser import Parser
from .process import IO, Gen, ShellExit, decode, err, out, strerror
from .redirect import sh_quote
from .syntax import KEYWORDS, NAME_RE, ShellSyntaxError

if TYPE_CHECKING:
    from .interpreter import Shell

__all__ = ["BUILTINS", "builtin", "FunctionReturn", "LoopControl"]


class FunctionReturn(Exception):  # noqa: N818 - control flow, not an error
    """``return N`` inside a function."""

    def __init__(self, status: int) -> None:
        self.status = status


class LoopControl(Exception):  # noqa: N818 - control flow, not an error
    """``break N`` / ``continue N``."""

    def __init__(self, kind: str, levels: int) -> None:
        self.kind = kind
        self.levels = levels


Builtin = Callable[["Shell", list[str], IO], Gen]
BUILTINS: dict[str, Builtin] = {}


def builtin(*names: str) -> Callable[[Builtin], Builtin]:
    def deco(fn: Builtin) -> Builtin:
        for n in names:
            BUILTINS[n] = fn
        return fn
    return deco


@builtin(":", "true")
def _bi_true(sh: Shell, argv: list[str], io: IO) -> Gen:
    return 0
    yield  # pragma: no cover


@builtin("false")
def _bi_false(sh: Shell, argv: list[str], io: IO) -> Gen:
    return 1
    yield  # pragma: no cover


@builtin("echo")
def _bi_echo(sh: Shell, argv: list[str], io: IO) -> Gen:
    """mksh's echo: ``-n -e -E`` (only as whole option words); escapes ON by default."""
    args = argv[1:]
    newline, expand = True, True
    while args and args[0].startswith("-") and len(args[0]) > 1 and all(
            c in "neE" for c in args[0][1:]):
        for c in args[0][1:]:
            if c == "n":
                newline = False
            else:
                expand = c == "e"
        args = args[1:]
    text = " ".join(args)
    if expand:
        text, stop = mksh_print_escapes(text)
        if stop:
            newline = False
    yield out(text + ("\n" if newline else ""))
    return 0


@builtin("cd")
def _bi_cd(sh: Shell, argv: list[str], io: IO) -> Gen:
    args = [a for a in argv[1:] if a not in ("-L", "-P")]
    target = args[0] if args else (sh.get_var("HOME") or "/")
    if target == "-":
        target = sh.get_var("OLDPWD") or sh.cwd
    fs = sh.model.fs
    path = fs.normalize(target, sh.cwd)
    entry = fs.stat(path)
    if entry is None or not entry.is_dir:
        why = "No such file or directory" if entry is None else "Not a directory"
        yield err(f"{sh.argv0}: cd: {target}: {why}\n")
        return 2
    sh.vars["OLDPWD"] = sh.cwd
    sh.cwd = posixpath.normpath(posixpath.join(sh.cwd, target)) if not target.startswith(
        "/") else posixpath.normpath(target)
    if sh.cwd.startswith("//"):
        sh.cwd = "/" + sh.cwd.lstrip("/")
    sh.vars["PWD"] = sh.cwd
    return 0


@builtin("pwd")
def _bi_pwd(sh: Shell, argv: list[str], io: IO) -> Gen:
    yield out(sh.cwd + "\n")
    return 0


@builtin("export", "readonly", "typeset", "local")
def _bi_export(sh: Shell, argv: list[str], io: IO) -> Gen:
    args = [a for a in argv[1:] if not a.startswith("-")]
    if not args and argv[0] == "export":
        for k in sorted(sh.exported):
            if k in sh.vars:
                yield out(f"export {k}={sh_quote(sh.vars[k])}\n")
        return 0
    for a in args:
        name, eq, value = a.partition("=")
        if not NAME_RE.match(name):
            yield err(f"{sh.argv0}: {argv[0]}: {name}: is not an identifier\n")
            return 1
        if eq:
            sh.vars[name] = value
        if argv[0] == "export":
            sh.exported.add(name)
    return 0


@builtin("unset")
def _bi_unset(sh: Shell, argv: list[str], io: IO) -> Gen:
    for name in argv[1:]:
        if name.startswith("-"):
            continue
        sh.vars.pop(name, None)
        sh.exported.discard(name)
        sh.functions.pop(name, None)
    return 0
    yield  # pragma: no cover


def _status_arg(sh: Shell, argv: list[str]) -> tuple[int, str | None]:
    if len(argv) < 2:
        return sh.status, None
    try:
        return int(argv[1]) & 0xFF, None
    except ValueError:
        return 1, f"{sh.argv0}: {argv[0]}: {argv[1]}: bad number\n"


@builtin("exit")
def _bi_exit(sh: Shell, argv: list[str], io: IO) -> Gen:
    status, problem = _status_arg(sh, argv)
    if problem:
        yield err(problem)
    raise ShellExit(status)


@builtin("return")
def _bi_return(sh: Shell, argv: list[str], io: IO) -> Gen:
    status, problem = _status_arg(sh, argv)
    if problem:
        yield err(problem)
    raise FunctionReturn(status)


@builtin("break", "continue")
def _bi_loopctl(sh: Shell, argv: list[str], io: IO) -> Gen:
    levels = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    raise LoopControl(argv[0], max(1, levels))
    yield  # pragma: no cover


@builtin("shift")
def _bi_shift(sh: Shell, argv: list[str], io: IO) -> Gen:
    n = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    if n > len(sh.args):
        yield err(f"{sh.argv0}: shift: {n}: bad number\n")
        return 1
    sh.args = sh.args[n:]
    return 0


@builtin("set")
def _bi_set(sh: Shell, argv: list[str], io: IO) -> Gen:
    args = argv[1:]
    if not args:
        for k in sorted(sh.vars):
            yield out(f"{k}={sh_quote(sh.vars[k])}\n")
        return 0
    while args and args[0][:1] in ("-", "+") and args[0] != "--":
        args = args[1:]
    if args and args[0] == "--":
        sh.args = args[1:]
    elif args:
        sh.args = args
    return 0


@builtin("read")
def _bi_read(sh: Shell, argv: list[str], io: IO) -> Gen:
    raw = False
    names: list[str] = []
    for a in argv[1:]:
        if a == "-r":
            raw = True
        elif not a.startswith("-"):
            names.append(a)
    names = names or ["REPLY"]
    line = io.stdin.readline()
    if not line:
        for n in names:
            sh.set_var(n, "")
        return 1
    text = decode(line).removesuffix("\n")
    if not raw:
        text = re.sub(r"\\(.)", r"\1", text)
    ifs = sh.vars.get("IFS", " \t\n")
    fields = [f for f in re.split("[" + re.escape(ifs) + "]+", text.strip(ifs))] if ifs else [text]
    for i, n in enumerate(names):
        if i == len(names) - 1:
            rest = fields[i:] if i < len(fields) else []
            sh.set_var(n, " ".join(rest) if len(rest) > 1 else (rest[0] if rest else ""))
        else:
            sh.set_var(n, fields[i] if i < len(fields) else "")
    return 0
    yield  # pragma: no cover


@builtin("eval")
def _bi_eval(sh: Shell, argv: list[str], io: IO) -> Gen:
    src = " ".join(argv[1:])
    try:
        node = Parser(Lexer(src)).parse_program()
    except ShellSyntaxError as exc:
        yield sh.syntax_error(exc)
        return 1
    return (yield from sh.execute(node, io))


@builtin(".", "source")
def _bi_source(sh: Shell, argv: list[str], io: IO) -> Gen:
    if len(argv) < 2:
        yield err(f"{sh.argv0}: {argv[0]}: missing argument\n")
        return 1
    try:
        src = decode(sh.model.fs.read(sh.model.fs.normalize(argv[1], sh.cwd)))
    except OSError as exc:
        yield err(f"{sh.argv0}: {argv[0]}: {argv[1]}: {strerror(exc)}\n")
        return 1
    try:
        node = Parser(Lexer(src)).parse_program()
    except ShellSyntaxError as exc:
        yield sh.syntax_error(exc)
        return 1
    return (yield from sh.execute(node, io))


@builtin("command")
def _bi_command(sh: Shell, argv: list[str], io: IO) -> Gen:
    args = argv[1:]
    verbose = None
    while args and args[0] in ("-v", "-V", "-p"):
        if args[0] != "-p":
            verbose = args[0]
        args = args[1:]
    if not args:
        return 0
    if verbose:
        status = 0
        for name in args:
            kind = _whence(sh, name)
            if kind is None:
                status = 1
                if verbose == "-V":
                    yield err(f"{name} not found\n")
            elif verbose == "-v":
                yield out((kind if kind.startswith("/") else name) + "\n")
            else:
                yield out(_whence_text(name, kind) + "\n")
        return status
    env = sh.environ()
    saved = dict(sh.functions)
    sh.functions.clear()
    try:
        return (yield from sh.run_argv(args, io, env))
    finally:
        sh.functions.update(saved)


@builtin("type", "whence")
def _bi_type(sh: Shell, argv: list[str], io: IO) -> Gen:
    status = 0
    for name in [a for a in argv[1:] if not a.startswith("-")]:
        kind = _whence(sh, name)
        if kind is None:
            yield out(f"{name} not found\n")
            status = 1
        else:
            yield out(_whence_text(name, kind) + "\n")
    return status


def _whence(sh: Shell, name: str) -> str | None:
    if name in KEYWORDS:
        return "reserved word"
    if name in sh.functions:
        return "function"
    if name in BUILTINS:
        return "builtin"
    return sh.lookup_path(name)


def _whence_text(name: str, kind: str) -> str:
    if kind == "builtin":
        return f"{name} is a shell builtin"
    if kind == "reserved word":
        return f"{name} is a reserved word"
    if kind == "function":
        return f"{name} is a function"
    return f"{name} is a tracked alias for {kind}"


@builtin("wait", "trap", "umask", "ulimit", "alias", "unalias", "hash", "times", "getopts",
         "ulimit", "builtin", "let")
def _bi_accept(sh: Shell, argv: list[str], io: IO) -> Gen:
    if argv[0] == "umask" and len(argv) == 1:
        yield out("0077\n")
    return 0


@builtin("test", "[")
def _bi_test(sh: Shell, argv: list[str], io: IO) -> Gen:
    args = argv[1:]
    if argv[0] == "[":
        if not args or args[-1] != "]":
            yield err(f"{sh.argv0}: [: missing ]\n")
            return 2
        args = args[:-1]
    status, problem = evaluate_test(args, sh.model.fs, sh.cwd)
    if problem:
        yield err(f"{sh.argv0}: {argv[0]}: {problem}\n")
    return status
