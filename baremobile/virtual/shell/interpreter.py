"""The interpreter: one mksh process running a syntax tree.

Everything is a generator of ``(fd, bytes)`` chunks (fd 1 = stdout, 2 = stderr) whose
``return`` value is the exit status, so output streams out as it is produced and ``sleep``
really pauses the stream. :class:`Shell` holds a process's state (variables, functions,
positional parameters, cwd), walks the tree (:meth:`Shell.execute`), and runs functions,
builtins (:mod:`.builtins`) and programs (:mod:`baremobile.virtual.commands`, each
handed a :class:`~.process.Proc`). Expansion and redirections are the stages below it
(:mod:`.expand`, :mod:`.redirect`). :func:`run_command_line` is the entry point adbd uses.
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Generator
from typing import Any

from baremobile.virtual.commands import available

from . import syntax
from .builtins import BUILTINS, FunctionReturn, LoopControl
from .lexer import Lexer
from .parser import Parser
from .patterns import pattern_match
from .process import (
    IO,
    BufferSink,
    Cancelled,
    Chunk,
    Gen,
    Proc,
    Reader,
    Refused,
    ShellExit,
    StreamSink,
    decode,
    err,
)
from .redirect import Redirections
from .syntax import Node, Redir, ShellSyntaxError

__all__ = ["Shell", "run_command_line", "SH", "BIN_DIRS", "DEFAULT_ENV"]

SH = "/system/bin/sh"
#: where the shell finds programs (``which`` and ``command -v`` answer with these)
BIN_DIRS = ("/system/bin", "/system/xbin", "/vendor/bin", "/product/bin", "/system_ext/bin",
            "/apex/com.android.runtime/bin", "/odm/bin", "/bin")
DEFAULT_ENV = {
    "PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:"
    "/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
    "ANDROID_ROOT": "/system",
    "ANDROID_DATA": "/data",
    "ANDROID_STORAGE": "/storage",
    "EXTERNAL_STORAGE": "/sdcard",
    "ASEC_MOUNTPOINT": "/mnt/asec",
    "BOOTCLASSPATH": "/apex/com.android.art/javalib/core-oj.jar",
    "HOME": "/",
    "HOSTNAME": "vphone",
    "LOGNAME": "shell",
    "USER": "shell",
    "SHELL": "/bin/sh",
    "TERM": "dumb",
    "TMPDIR": "/data/local/tmp",
}


class Shell(Redirections):
    """One mksh process: variables, functions, cwd, and the executor."""

    def __init__(self, model: Any, *, cancel: threading.Event, pid: int, argv0: str = SH,
                 args: list[str] | None = None, env: dict[str, str] | None = None,
                 cwd: str = "/") -> None:
        self.model = model
        self.cancel = cancel
        self.pid = pid
        self.argv0 = argv0
        self.args: list[str] = list(args or [])
        self.vars: dict[str, str] = dict(DEFAULT_ENV if env is None else env)
        self.vars.setdefault("IFS", " \t\n")
        self.exported: set[str] = set(DEFAULT_ENV if env is None else env) - {"IFS"}
        self.functions: dict[str, Node] = {}
        self.cwd = cwd
        self.status = 0
        self.last_bg = ""
        self._cmdsub_status: int | None = None

    # -- process structure --------------------------------------------------------------
    def subshell(self) -> Shell:
        sub = Shell(self.model, cancel=self.cancel, pid=self.pid, argv0=self.argv0,
                    args=self.args, env=dict(self.vars), cwd=self.cwd)
        sub.exported = set(self.exported)
        sub.functions = dict(self.functions)
        sub.status = self.status
        sub.last_bg = self.last_bg
        return sub

    def child(self, argv0: str, args: list[str], env: dict[str, str]) -> Shell:
        """A new ``sh`` process (exported variables only, new pid)."""
        return Shell(self.model, cancel=self.cancel, pid=self.model.new_pid(), argv0=argv0,
                     args=args, env=dict(env), cwd=self.cwd)

    def run_script(self, src: str, argv0: str, args: list[str], env: dict[str, str],
                   io: IO) -> Gen:
        """Run ``src`` in a child ``sh`` (``sh -c src argv0 args...``) with ``io``."""
        return (yield from self.child(argv0, args, env).run_source(src, io))

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Cancelled()

    def environ(self) -> dict[str, str]:
        return {k: v for k, v in self.vars.items() if k in self.exported}

    # -- variables --------------------------------------------------------------------
    def get_var(self, name: str) -> str | None:
        if name == "?":
            return str(self.status)
        if name == "$":
            return str(self.pid)
        if name == "!":
            return self.last_bg
        if name == "#":
            return str(len(self.args))
        if name == "0":
            return self.argv0
        if name == "-":
            return "h"
        if name in ("@", "*"):
            return " ".join(self.args)
        if name.isdigit():
            n = int(name)
            return self.args[n - 1] if 0 < n <= len(self.args) else None
        if name == "PWD":
            return self.vars.get("PWD", self.cwd)
        return self.vars.get(name)

    def set_var(self, name: str, value: str) -> None:
        self.vars[name] = value

    # -- running source -------------------------------------------------------------------
    def base_io(self, stdin: Reader) -> IO:
        return IO({1: StreamSink(1), 2: StreamSink(2)}, stdin)

    def syntax_error(self, exc: ShellSyntaxError) -> Chunk:
        return err(f"{self.argv0}: {exc}\n")

    def run_source(self, src: str, io: IO) -> Gen:
        """Parse and run ``src`` line by line (as mksh does with ``-c``)."""
        parser = Parser(Lexer(src))
        status = 0
        try:
            while True:
                try:
                    node = parser.parse_line()
                except ShellSyntaxError as exc:
                    yield self.syntax_error(exc)
                    return 1
                if node is None:
                    break
                status = yield from self.execute(node, io)
        except ShellExit as ex:
            status = ex.status
        return status & 0xFF

    def repl(self, io: IO) -> Gen:
        """The interactive shell (empty command): read lines from stdin, no prompt."""
        pending = ""
        while True:
            self.check_cancel()
            line = io.stdin.readline()
            if not line:
                return self.status
            pending += decode(line)
            try:
                node = Parser(Lexer(pending)).parse_program()
            except ShellSyntaxError as exc:
                text = str(exc)
                if pending.endswith("\n") and ("unexpected EOF" in text or "unmatched" in text
                                               or "no closing quote" in text
                                               or "unclosed" in text) and line.endswith(b"\n"):
                    continue
                yield self.syntax_error(exc)
                pending = ""
                self.status = 1
                continue
            pending = ""
            try:
                self.status = yield from self.execute(node, io)
            except ShellExit as ex:
                return ex.status & 0xFF

    # -- nodes ----------------------------------------------------------------------------
    def execute(self, node: Node, io: IO) -> Gen:
        self.check_cancel()
        method = getattr(self, "_x_" + type(node).__name__.lower())
        status = yield from method(node, io)
        self.status = status & 0xFF
        return self.status

    def _x_seq(self, node: syntax.Seq, io: IO) -> Gen:
        status = self.status
        for item, background in node.items:
            if background:
                sub = self.subshell()
                yield from sub.isolated(item, io)
                self.last_bg = str(self.model.new_pid())
                status = 0
                self.status = 0
            else:
                status = yield from self.execute(item, io)
        return status

    def _x_andor(self, node: syntax.AndOr, io: IO) -> Gen:
        status = yield from self.execute(node.first, io)
        for op, item in node.rest:
            if (op == "&&") == (status == 0):
                status = yield from self.execute(item, io)
        return status

    def isolated(self, node: Node, io: IO) -> Gen:
        """Run ``node`` where ``exit`` only ends this (sub)shell."""
        try:
            status = yield from self.execute(node, io)
        except ShellExit as ex:
            status = ex.status
        except (FunctionReturn, LoopControl):
            status = self.status
        return status & 0xFF

    def _x_pipeline(self, node: syntax.Pipeline, io: IO) -> Gen:
        data: bytes | None = None
        status = 0
        last = len(node.cmds) - 1
        for idx, cmd in enumerate(node.cmds):
            cio = io.copy()
            if idx > 0:
                cio.stdin = Reader(data=data or b"")
            buf = BufferSink()
            if idx < last:
                cio.fds[1] = buf
            status = yield from self.subshell().isolated(cmd, cio)
            data = bytes(buf.buf)
        if node.negate:
            status = 0 if status else 1
        return status

    def _x_group(self, node: syntax.Group, io: IO) -> Gen:
        gio = yield from self.redirect(node.redirs, io)
        if gio is None:
            return 1
        if node.subshell:
            status = yield from self.subshell().isolated(node.body, gio)
            return status
        status = yield from self.execute(node.body, gio)
        return status

    def _x_if(self, node: syntax.If, io: IO) -> Gen:
        gio = yield from self.redirect(node.redirs, io)
        if gio is None:
            return 1
        for cond, body in node.clauses:
            status = yield from self.execute(cond, gio)
            if status == 0:
                status = yield from self.execute(body, gio)
                return status
        if node.orelse is not None:
            status = yield from self.execute(node.orelse, gio)
            return status
        return 0

    def _x_loop(self, node: syntax.Loop, io: IO) -> Gen:
        gio = yield from self.redirect(node.redirs, io)
        if gio is None:
            return 1
        status = 0
        while True:
            c = yield from self.execute(node.cond, gio)
            if (c == 0) == node.until:
                break
            status, stop = yield from self._loop_body(node.body, gio, status)
            if stop:
                break
        return status

    def _loop_body(
        self, body: Node, gio: IO, status: int
    ) -> Generator[Chunk, None, tuple[int, bool]]:
        """One pass of a loop body: (its status, whether ``break`` ended the loop).

        ``break``/``continue`` leave the status of the last completed pass; ``break N`` /
        ``continue N`` travel outwards one loop at a time.
        """
        try:
            return (yield from self.execute(body, gio)), False
        except LoopControl as ctl:
            if ctl.levels > 1:
                ctl.levels -= 1
                raise
            return status, ctl.kind == "break"

    def _x_for(self, node: syntax.For, io: IO) -> Gen:
        gio = yield from self.redirect(node.redirs, io)
        if gio is None:
            return 1
        if node.words is None:
            values = list(self.args)
        else:
            values = []
            for w in node.words:
                values.extend((yield from self.expand_fields(w, gio)))
        status = 0
        for v in values:
            self.set_var(node.var, v)
            status, stop = yield from self._loop_body(node.body, gio, status)
            if stop:
                break
        return status

    def _x_case(self, node: syntax.Case, io: IO) -> Gen:
        gio = yield from self.redirect(node.redirs, io)
        if gio is None:
            return 1
        subject = yield from self.expand_string(node.word, gio)
        for pats, body in node.items:
            for pw in pats:
                segs = yield from self.expand_parts(pw.parts, gio)
                text = "".join(t for t, _ in segs if t is not None)
                kinds = "".join(k * len(t) for t, k in segs if t is not None)
                if pattern_match(text, kinds, subject):
                    if body is None:
                        return 0
                    status = yield from self.execute(body, gio)
                    return status
        return 0

    def _x_funcdef(self, node: syntax.FuncDef, io: IO) -> Gen:
        self.functions[node.name] = node.body
        return 0
        yield  # pragma: no cover - makes this a generator

    def _x_simple(self, node: syntax.Simple, io: IO) -> Gen:
        self._cmdsub_status = None
        argv: list[str] = []
        for w in node.words:
            argv.extend((yield from self.expand_fields(w, io)))
        assigns: list[tuple[str, str]] = []
        for name, w in node.assigns:
            assigns.append((name, (yield from self.expand_string(w, io, tilde=True,
                                                                 assign=True))))
        sub_status = self._cmdsub_status
        if not argv:
            for name, value in assigns:
                self.set_var(name, value)
            cio = yield from self.redirect(node.redirs, io)
            if cio is None:
                return 1
            return sub_status if sub_status is not None else 0
        if argv[0] == "exec" and len(argv) == 1:
            return (yield from self._exec_redirs(node.redirs, io))
        cio = yield from self.redirect(node.redirs, io)
        if cio is None:
            return 1
        self.model.events.append("command", argv=list(argv))
        env = self.environ()
        env.update(assigns)
        status = yield from self.run_argv(argv, cio, env, assigns)
        return status

    def _exec_redirs(self, redirs: list[Redir], io: IO) -> Gen:
        new = yield from self.redirect(redirs, io)
        if new is None:
            return 1
        io.fds.clear()
        io.fds.update(new.fds)
        io.stdin = new.stdin
        self.model.events.append("command", argv=["exec"])
        return 0

    # -- running programs ---------------------------------------------------------------
    def drive(self, gen: Gen, io: IO) -> Gen:
        """Run a program's generator, routing its fds through ``io``."""
        while True:
            try:
                fd, data = next(gen)
            except StopIteration as stop:
                return int(stop.value or 0) & 0xFF
            except Refused as no:  # the model refused: the program fails, the shell goes on
                gen.close()
                routed = io.route(2, (no.message.rstrip("\n") + "\n").encode())
                if routed is not None:
                    yield routed
                return no.status & 0xFF
            routed = io.route(fd, data)
            if routed is not None:
                yield routed
            if self.cancel.is_set():
                gen.close()
                raise Cancelled()

    def run_argv(self, argv: list[str], io: IO, env: dict[str, str],
                 assigns: list[tuple[str, str]] | None = None) -> Gen:
        name = argv[0]
        if name == "":
            yield from self.drive(_error_out(f"{self.argv0}: : can't execute: Is a directory\n"),
                                  io)
            return 126
        if "/" in name:
            return (yield from self._run_path(argv, io, env))
        if name in self.functions:
            return (yield from self._call_function(name, argv, io))
        canned = self.model.answers.match(argv) if hasattr(self.model, "answers") else None
        if canned is not None:  # a test taught the phone this command's output
            return (yield from self.drive(_canned(canned), io))
        builtin = BUILTINS.get(name)
        if builtin is not None:
            for k, v in assigns or ():
                if name in ("export", "readonly", ".", "source", "eval", "exec", "set"):
                    self.set_var(k, v)
            return (yield from self.drive(builtin(self, argv, io), io))
        program = available(name, self.model.api_level)
        if program is not None:
            proc = Proc(self, io, argv, env)
            return (yield from self.drive(program(proc), io))
        yield from self.drive(_error_out(f"{self.argv0}: {name}: inaccessible or not found\n"), io)
        return 127

    def _run_path(self, argv: list[str], io: IO, env: dict[str, str]) -> Gen:
        fs = self.model.fs
        path = fs.normalize(argv[0], self.cwd)
        directory, base = posixpath.split(path)
        entry = fs.stat(path)
        program = available(base, self.model.api_level)
        if entry is None and directory in BIN_DIRS and program is not None:
            proc = Proc(self, io, [base, *argv[1:]], env)
            proc.argv[0] = argv[0]
            return (yield from self.drive(program(proc), io))
        if entry is None:
            msg = f"{self.argv0}: {argv[0]}: inaccessible or not found\n"
            yield from self.drive(_error_out(msg), io)
            return 127
        if entry.is_dir or not (entry.mode & 0o111) or path.startswith("/storage/"):
            why = "Is a directory" if entry.is_dir else "Permission denied"
            yield from self.drive(_error_out(f"{self.argv0}: {argv[0]}: can't execute: {why}\n"),
                                  io)
            return 126
        script = decode(fs.read(path))
        child = self.child(argv[0], argv[1:], env)
        return (yield from child.run_source(script, io))

    def _call_function(self, name: str, argv: list[str], io: IO) -> Gen:
        saved = self.args
        self.args = argv[1:]
        try:
            status = yield from self.execute(self.functions[name], io)
        except FunctionReturn as ret:
            status = ret.status
        finally:
            self.args = saved
        return status

    def lookup_path(self, name: str) -> str | None:
        if "/" in name:
            return name if self.model.fs.exists(self.model.fs.normalize(name, self.cwd)) else None
        if available(name, self.model.api_level) is not None:
            return f"/system/bin/{name}"
        return None


def _canned(answer: Any) -> Gen:
    if answer.stdout:
        yield (1, answer.stdout)
    if answer.stderr:
        yield (2, answer.stderr)
    return int(answer.status)


def _error_out(text: str) -> Gen:
    yield err(text)
    return 1


def run_command_line(model: Any, command: str, *, stdin: Any = None,
                     cancel: threading.Event | None = None, pid: int | None = None) -> Gen:
    """Run ``/system/bin/sh -c command`` (or the interactive shell when empty)."""
    shell = Shell(model, cancel=cancel or threading.Event(),
                  pid=pid if pid is not None else model.new_pid())
    io = shell.base_io(Reader(stdin))
    if command == "":
        return (yield from shell.repl(io))
    return (yield from shell.run_source(command, io))


