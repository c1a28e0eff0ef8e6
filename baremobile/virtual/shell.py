"""The virtual phone's ``/system/bin/sh``: a faithful subset of Android's mksh.

Every ``shell:`` / ``exec:`` command line reaches :func:`run_command_line`, exactly as a
real device runs ``/system/bin/sh -c <command>``. Quoting is interpreted as mksh does it
(single quotes, double quotes with ``\\`` escaping only ``$ ` " \\`` and newline,
backslash escapes, ``$'...'``), and whatever an unquoted metacharacter would do is really
done (``;``, ``|``, ``&&``, ``$(...)``, redirections, globbing ...), so a quoting bug in a
client is *detected* by the event log rather than hidden.

Three layers, each a plain class:

* :class:`Lexer` / :class:`Parser` — source text to an AST of small dataclasses;
  errors are :class:`ShellSyntaxError` carrying mksh's wording.
* :class:`Shell` — the executor. Everything is a generator of ``(fd, bytes)`` chunks
  (fd 1 = stdout, 2 = stderr) whose ``return`` value is the exit status, so output
  streams out as it is produced and ``sleep`` really pauses the stream.
* :mod:`baremobile.virtual.commands` — the Android/toybox programs.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ShellSyntaxError",
    "Cancelled",
    "Lexer",
    "Parser",
    "parse",
    "Shell",
    "Reader",
    "run_command_line",
    "mksh_print_escapes",
]

Chunk = tuple[int, bytes]
Gen = Generator[Chunk, None, int]

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
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset(
    ["if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in",
     "case", "esac", "{", "}", "!", "function", "select", "time", "[["])


class _BadSubst(Exception):  # noqa: N818 - internal parse signal
    pass


class ShellSyntaxError(Exception):
    """A parse error, worded as mksh words it (``syntax error: 'fi' unexpected``)."""


class Cancelled(Exception):
    """The client went away; unwinds the whole process."""


class ShellExit(Exception):  # noqa: N818 - control flow, not an error
    def __init__(self, status: int) -> None:
        self.status = status


class _Return(Exception):  # noqa: N818
    def __init__(self, status: int) -> None:
        self.status = status


class _LoopCtl(Exception):  # noqa: N818
    def __init__(self, kind: str, levels: int) -> None:
        self.kind = kind
        self.levels = levels


# ======================================================================================
# AST
# ======================================================================================


@dataclass
class Lit:
    """Literal text; ``quoted`` text is protected from splitting, globbing and braces."""

    text: str
    quoted: bool


@dataclass
class Param:
    """``$name`` / ``${name op arg}`` (op: ``:-`` ``-`` ``:=`` ``=`` ``:+`` ``+`` ``:?``
    ``?`` ``#`` ``##`` ``%`` ``%%`` or ``len`` for ``${#name}``)."""

    name: str
    quoted: bool
    op: str | None = None
    arg: Word | None = None


@dataclass
class CmdSub:
    body: Node | None
    quoted: bool
    #: mksh's ``${ cmd;}``: run in the current shell (its assignments stay), not a subshell
    same_shell: bool = False


@dataclass
class Arith:
    expr: Word
    quoted: bool


Part = Lit | Param | CmdSub | Arith


@dataclass
class CmdSubst:
    """Payload of ``${x/pat/rep}``: the pattern and replacement words."""

    pattern: Word
    replacement: Word


@dataclass
class Word:
    parts: list[Part]

    def plain(self) -> str | None:
        """The text when the word is one unquoted literal (keywords, names), else None."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None


@dataclass
class Redir:
    fd: int
    op: str  # < > >> >| <> >& <& &> << <<- <<<
    target: Word | None = None
    heredoc: Word | None = None  # body, for << and <<-
    explicit_fd: bool = False


@dataclass
class Simple:
    assigns: list[tuple[str, Word]]
    words: list[Word]
    redirs: list[Redir]


@dataclass
class Pipeline:
    cmds: list[Node]
    negate: bool = False


@dataclass
class AndOr:
    first: Node
    rest: list[tuple[str, Node]]


@dataclass
class Seq:
    items: list[tuple[Node, bool]]  # (node, run in background)


@dataclass
class Group:
    body: Node
    redirs: list[Redir] = field(default_factory=list)
    subshell: bool = False


@dataclass
class If:
    clauses: list[tuple[Node, Node]]
    orelse: Node | None
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Loop:
    cond: Node
    body: Node
    until: bool
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class For:
    var: str
    words: list[Word] | None
    body: Node
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Case:
    word: Word
    items: list[tuple[list[Word], Node | None]]
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class FuncDef:
    name: str
    body: Node


Node = Simple | Pipeline | AndOr | Seq | Group | If | Loop | For | Case | FuncDef


# ======================================================================================
# lexer
# ======================================================================================

_META = frozenset(" \t\n|&;<>()")


@dataclass
class Token:
    kind: str  # WORD OP NEWLINE EOF REDIR
    value: str = ""
    word: Word | None = None
    fd: int = -1
    explicit_fd: bool = False


class Lexer:
    """mksh's lexical rules over one source string (tokens on demand, re-entrant)."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.i = 0
        self._peeked: Token | None = None
        self._heredocs: list[tuple[Redir, str, bool, bool]] = []  # redir, delim, quoted, strip

    # -- character access -----------------------------------------------------------
    def _ch(self, k: int = 0) -> str:
        j = self.i + k
        return self.src[j] if j < len(self.src) else ""

    def _skip_continuations(self) -> None:
        while self.src.startswith("\\\n", self.i):
            self.i += 2

    # -- tokens ---------------------------------------------------------------------
    def peek(self) -> Token:
        if self._peeked is None:
            self._peeked = self._lex()
        return self._peeked

    def next(self) -> Token:
        tok = self.peek()
        self._peeked = None
        return tok

    def add_heredoc(self, redir: Redir, delim: str, quoted: bool, strip: bool) -> None:
        self._heredocs.append((redir, delim, quoted, strip))

    def _lex(self) -> Token:
        while True:
            self._skip_continuations()
            c = self._ch()
            if c in (" ", "\t"):
                self.i += 1
                continue
            if c == "#":
                while self._ch() not in ("", "\n"):
                    self.i += 1
                continue
            break
        if c == "":
            if self._heredocs:
                delim = self._heredocs[0][1]
                raise ShellSyntaxError(f"here document '{delim}' unclosed")
            return Token("EOF")
        if c == "\n":
            self.i += 1
            self._read_heredocs()
            return Token("NEWLINE", "\n")
        redir = self._try_redir()
        if redir is not None:
            return redir
        if c in "|&;()":
            return self._operator(c)
        return Token("WORD", word=self.read_word())

    def _operator(self, c: str) -> Token:
        nxt = self._ch(1)
        two = c + nxt
        if two in ("&&", "||", ";;", "|&"):
            self.i += 2
            return Token("OP", two)
        self.i += 1
        return Token("OP", c)

    def _try_redir(self) -> Token | None:
        c, n = self._ch(), self._ch(1)
        fd = -1
        start = self.i
        if c.isdigit() and c.isascii() and n in ("<", ">"):
            fd = int(c)
            self.i += 1
            c, n = n, self._ch(1)
        elif c == "&" and n == ">":
            self.i += 2
            if self._ch() == ">":
                self.i += 1
                return Token("REDIR", "&>>", fd=1)
            return Token("REDIR", "&>", fd=1)
        if c not in ("<", ">"):
            self.i = start
            return None
        self.i += 1
        n = self._ch()
        if c == ">":
            if n in (">", "|", "&"):
                self.i += 1
                op = ">" + n
            else:
                op = ">"
            return Token("REDIR", op, fd=1 if fd < 0 else fd, explicit_fd=fd >= 0)
        if n == "<":
            self.i += 1
            if self._ch() == "-":
                self.i += 1
                op = "<<-"
            elif self._ch() == "<":
                self.i += 1
                op = "<<<"
            else:
                op = "<<"
        elif n in (">", "&"):
            self.i += 1
            op = "<" + n
        else:
            op = "<"
        return Token("REDIR", op, fd=0 if fd < 0 else fd, explicit_fd=fd >= 0)

    # -- here documents ---------------------------------------------------------------
    def _read_heredocs(self) -> None:
        pending, self._heredocs = self._heredocs, []
        for redir, delim, quoted, strip in pending:
            lines: list[str] = []
            while True:
                if self.i >= len(self.src):
                    if not lines:
                        raise ShellSyntaxError(f"here document '{delim}' unclosed")
                    break
                end = self.src.find("\n", self.i)
                line = self.src[self.i:] if end < 0 else self.src[self.i:end]
                self.i = len(self.src) if end < 0 else end + 1
                check = line.lstrip("\t") if strip else line
                if check == delim:
                    break
                lines.append(check + "\n")
            body = "".join(lines)
            redir.heredoc = Word([Lit(body, True)]) if quoted else _heredoc_word(body)

    # -- words --------------------------------------------------------------------------
    def read_word(self, *, brace: bool = False, in_dq: bool = False, stop: str = "}") -> Word:
        """Read one word (``brace``: the argument of ``${x op arg}``, ended by ``stop``)."""
        parts: list[Part] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), in_dq))
                buf.clear()

        while True:
            self._skip_continuations()
            c = self._ch()
            if c == "":
                if brace:
                    raise ShellSyntaxError("no closing quote")
                break
            if brace and c in stop:
                break
            if not brace and c in _META:
                break
            if c == "\\":
                flush()
                nxt = self._ch(1)
                self.i += 2 if nxt else 1
                if nxt:
                    if in_dq and nxt not in '$`"\\}':
                        parts.append(Lit("\\" + nxt, True))
                    else:
                        parts.append(Lit(nxt, True))
            elif c == "'" and not in_dq:
                flush()
                parts.append(Lit(self._single_quoted(), True))
            elif c == '"':
                flush()
                self.i += 1
                parts.extend(self._double_quoted())
            elif c == "$":
                flush()
                parts.extend(self._dollar(in_dq))
            elif c == "`":
                flush()
                parts.append(self._backquote(in_dq))
            elif (not in_dq and not brace and c in "*@+?!" and self._ch(1) == "("):
                buf.append(self._ext_pattern())
            else:
                buf.append(c)
                self.i += 1
        flush()
        return Word(parts)

    def _single_quoted(self) -> str:
        end = self.src.find("'", self.i + 1)
        if end < 0:
            raise ShellSyntaxError("no closing quote")
        text = self.src[self.i + 1:end]
        self.i = end + 1
        return text

    def _ext_pattern(self) -> str:
        start = self.i
        self.i += 2
        depth = 1
        while depth:
            c = self._ch()
            if c == "":
                raise ShellSyntaxError("no closing quote")
            if c == "\\":
                self.i += 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            self.i += 1
        return self.src[start:self.i]

    def _double_quoted(self) -> list[Part]:
        parts: list[Part] = [Lit("", True)]  # "" is an (empty) argument
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), True))
                buf.clear()

        while True:
            self._skip_continuations()
            c = self._ch()
            if c == "":
                raise ShellSyntaxError("no closing quote")
            if c == '"':
                self.i += 1
                break
            if c == "\\":
                nxt = self._ch(1)
                if nxt in ('"', "\\", "$", "`"):
                    buf.append(nxt)
                    self.i += 2
                else:
                    buf.append("\\")
                    self.i += 1
            elif c == "$":
                flush()
                parts.extend(self._dollar(True))
            elif c == "`":
                flush()
                parts.append(self._backquote(True))
            else:
                buf.append(c)
                self.i += 1
        flush()
        return parts

    def _dollar(self, in_dq: bool) -> list[Part]:
        self.i += 1  # the $
        self._skip_continuations()
        c = self._ch()
        if c == "(":
            if self._ch(1) == "(":
                arith = self._try_arith(in_dq)
                if arith is not None:
                    return [arith]
            self.i += 1
            body = Parser(self).parse_subst_body()
            return [CmdSub(body, in_dq)]
        if c == "{":
            if self._ch(1) in (" ", "\t", "\n"):  # mksh's function substitution ${ cmd;}
                return [self._funsub(in_dq)]
            return [self._braced(in_dq)]
        if c == "'" and not in_dq:
            return [Lit(self._ansi_c(), True)]
        if c == '"' and not in_dq:
            self.i += 1
            return self._double_quoted()
        if c and (c.isascii() and (c.isalpha() or c == "_")):
            j = self.i
            while j < len(self.src) and (self.src[j].isascii()
                                         and (self.src[j].isalnum() or self.src[j] == "_")):
                j += 1
            name = self.src[self.i:j]
            self.i = j
            return [Param(name, in_dq)]
        if c and (c in "?$!#@*-" or (c.isascii() and c.isdigit())):
            self.i += 1
            return [Param(c, in_dq)]
        return [Lit("$", in_dq)]

    def _funsub(self, in_dq: bool) -> CmdSub:
        """``${ cmd;}``: the body ends at the first unquoted, unescaped ``}`` outside a
        nested ``${…}`` (mksh closes it even inside a word: ``${ echo a}b`` → ``ab``)."""
        self.i += 1  # the {
        start = self.i
        depth, quote = 0, ""
        while self.i < len(self.src):
            c = self.src[self.i]
            if quote:
                if c == "\\" and quote == '"':
                    self.i += 1
                elif c == quote:
                    quote = ""
            elif c in "'\"":
                quote = c
            elif c == "\\":
                self.i += 1
            elif c == "{" and self.src[self.i - 1] == "$":
                depth += 1
            elif c == "}" and depth:
                depth -= 1
            elif c == "}":
                inner = self.src[start : self.i]
                self.i += 1
                body = Parser(Lexer(inner)).parse_program() if inner.strip() else None
                return CmdSub(body, in_dq, same_shell=True)
            self.i += 1
        raise ShellSyntaxError("syntax error: unmatched '{'")

    def _try_arith(self, in_dq: bool) -> Arith | None:
        j = self.i + 2
        depth = 0
        while j < len(self.src):
            c = self.src[j]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    if self.src.startswith("))", j):
                        inner = self.src[self.i + 2:j]
                        self.i = j + 2
                        return Arith(_heredoc_word(inner) if inner else Word([]), in_dq)
                    return None
                depth -= 1
            j += 1
        raise ShellSyntaxError("no closing quote")

    def _braced(self, in_dq: bool) -> Param:
        self.i += 1  # {
        start = self.i
        try:
            return self._braced_form(in_dq)
        except _BadSubst:
            self.i = start
            self.read_word(brace=True, in_dq=in_dq)  # mksh scans to the closing brace
            raw = self.src[start:self.i]
            self.i += 1
            return Param("", in_dq, "bad", Word([Lit(raw, True)]))

    def _braced_form(self, in_dq: bool) -> Param:
        length = False
        if self._ch() == "#" and self._ch(1) not in ("}", ""):
            length = True
            self.i += 1
        c = self._ch()
        if c and c.isascii() and (c.isalpha() or c == "_"):
            j = self.i
            while j < len(self.src) and self.src[j].isascii() and (
                    self.src[j].isalnum() or self.src[j] == "_"):
                j += 1
            name = self.src[self.i:j]
        elif c and c.isascii() and c.isdigit():
            j = self.i
            while j < len(self.src) and self.src[j].isdigit():
                j += 1
            name = self.src[self.i:j]
        elif c and c in "?$!#@*-":
            name, j = c, self.i + 1
        elif c == "":
            raise ShellSyntaxError("no closing quote")
        else:
            raise _BadSubst()
        self.i = j
        if length:
            if self._ch() != "}":
                raise _BadSubst()
            self.i += 1
            return Param(name, in_dq, "len")
        c = self._ch()
        if c == "}":
            self.i += 1
            return Param(name, in_dq)
        if c == "/":
            return self._substitution(name, in_dq)
        op = None
        for cand in (":-", ":=", ":+", ":?", "##", "%%", "-", "=", "+", "?", "#", "%"):
            if self.src.startswith(cand, self.i):
                op = cand
                break
        if op is None:
            if c == "":
                raise ShellSyntaxError("no closing quote")
            raise _BadSubst()
        self.i += len(op)
        arg = self.read_word(brace=True, in_dq=in_dq)
        self.i += 1  # }
        return Param(name, in_dq, op, arg)

    def _substitution(self, name: str, in_dq: bool) -> Param:
        """``${name/pat/rep}``, ``${name//pat/rep}``, ``${name/#pat/rep}``, ``${name/%pat/rep}``."""
        self.i += 1
        op = "/"
        if self._ch() in ("/", "#", "%"):
            op += self._ch()
            self.i += 1
        pat = self.read_word(brace=True, in_dq=in_dq, stop="/}")
        rep = Word([])
        if self._ch() == "/":
            self.i += 1
            rep = self.read_word(brace=True, in_dq=in_dq)
        self.i += 1  # }
        return Param(name, in_dq, op, Word([CmdSubst(pat, rep)]))  # type: ignore[list-item]

    def _backquote(self, in_dq: bool) -> CmdSub:
        self.i += 1
        buf: list[str] = []
        while True:
            c = self._ch()
            if c == "":
                raise ShellSyntaxError("no closing quote")
            if c == "`":
                self.i += 1
                break
            if c == "\\":
                nxt = self._ch(1)
                if nxt in ("$", "`", "\\") or (nxt == '"' and in_dq):
                    buf.append(nxt)
                    self.i += 2
                    continue
                if nxt == "":
                    self.i += 1
                    continue
            buf.append(c)
            self.i += 1
        return CmdSub(Parser(Lexer("".join(buf))).parse_program(), in_dq)

    def _ansi_c(self) -> str:
        self.i += 1  # the quote
        out: list[str] = []
        stopped = False
        while True:
            c = self._ch()
            if c == "":
                raise ShellSyntaxError("no closing quote")
            self.i += 1
            if c == "'":
                break
            if c != "\\":
                if not stopped:
                    out.append(c)
                continue
            val, self.i = _unbackslash(self.src, self.i, cstyle=True)
            if val == "\0":
                stopped = True
            if not stopped:
                out.append(val)
        return "".join(out)


def _heredoc_word(body: str) -> Word:
    """An unquoted here-document body: ``$``, backquotes and ``\\$ \\` \\\\`` are live."""
    lx = Lexer(body)
    parts: list[Part] = []
    buf: list[str] = []
    while lx.i < len(body):
        c = body[lx.i]
        if c == "\\" and lx._ch(1) in ("$", "`", "\\", "\n"):
            if lx._ch(1) != "\n":
                buf.append(lx._ch(1))
            lx.i += 2
        elif c == "$":
            if buf:
                parts.append(Lit("".join(buf), True))
                buf.clear()
            parts.extend(lx._dollar(True))
        elif c == "`":
            if buf:
                parts.append(Lit("".join(buf), True))
                buf.clear()
            parts.append(lx._backquote(True))
        else:
            buf.append(c)
            lx.i += 1
    if buf:
        parts.append(Lit("".join(buf), True))
    return Word(parts or [Lit("", True)])


_SIMPLE_ESC = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
               "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"'}


def _unbackslash(s: str, i: int, *, cstyle: bool) -> tuple[str, int]:
    """Decode the escape after a backslash at ``s[i]`` (mksh's ``unbksl``).

    Returns ``(text, new_index)``; an unknown escape returns ``"\\" + char``.
    """
    c = s[i] if i < len(s) else ""
    if c == "":
        return "\\", i
    if c in _SIMPLE_ESC and (cstyle or c not in "'\""):
        return _SIMPLE_ESC[c], i + 1
    if c == "c" and cstyle and i + 1 < len(s):
        nxt = s[i + 1]
        return chr(0x7F if nxt == "?" else ord(nxt.upper()) & 0x1F), i + 2
    if c in "01234567" and (cstyle or c == "0"):
        j = i if cstyle else i + 1
        digits = ""
        while j < len(s) and len(digits) < 3 and s[j] in "01234567":
            digits += s[j]
            j += 1
        return chr(int(digits or "0", 8) & 0xFF), j
    if c in "xuU":
        width = {"x": 2, "u": 4, "U": 8}[c]
        j = i + 1
        digits = ""
        while j < len(s) and len(digits) < width and s[j] in "0123456789abcdefABCDEF":
            digits += s[j]
            j += 1
        if not digits:
            return "\\" + c, i + 1
        val = int(digits, 16)
        return (chr(val) if c != "x" else chr(val & 0xFF)), j
    return "\\" + c, i + 1


def mksh_print_escapes(text: str, *, stop_at_c: bool = False) -> tuple[str, bool]:
    """Backslash escapes as mksh's ``echo``/``print`` expand them.

    Returns ``(text, saw_c)``. ``\\c`` suppresses the trailing newline; mksh's echo
    keeps printing the rest of its arguments, while ``stop_at_c`` (printf ``%b``,
    toybox ``echo -e``) cuts the output there.
    """
    saw_c = False
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 < len(text) and text[i + 1] == "c":
            if stop_at_c:
                return "".join(out), True
            saw_c = True
            i += 2
            continue
        val, i = _unbackslash(text, i + 1, cstyle=False)
        out.append(val)
    return "".join(out), saw_c


# ======================================================================================
# parser
# ======================================================================================

_STOP_WORDS = frozenset(["then", "elif", "else", "fi", "do", "done", "esac", "}"])


class Parser:
    """Recursive-descent parser for the mksh subset (see docs/virtual-shell.md)."""

    def __init__(self, lexer: Lexer) -> None:
        self.lx = lexer
        self._nest: list[str] = []

    # -- helpers ----------------------------------------------------------------------
    def _unexpected(self, tok: Token) -> ShellSyntaxError:
        if tok.kind == "EOF":
            if self._nest:
                return ShellSyntaxError(f"syntax error: unmatched '{self._nest[-1]}'")
            return ShellSyntaxError("syntax error: unexpected EOF")
        if tok.kind == "NEWLINE":
            text = "newline"
        elif tok.kind == "WORD":
            text = _word_source(tok.word)
        elif tok.kind == "REDIR":
            text = (str(tok.fd) if tok.explicit_fd else "") + tok.value + " "
        else:
            text = tok.value
        return ShellSyntaxError(f"syntax error: unexpected '{text}'")

    def _kw(self, tok: Token) -> str | None:
        if tok.kind != "WORD" or tok.word is None:
            return None
        p = tok.word.plain()
        return p if p in _KEYWORDS else None

    def _skip_newlines(self) -> None:
        while self.lx.peek().kind == "NEWLINE":
            self.lx.next()

    def _expect_kw(self, kw: str) -> None:
        self._skip_newlines()
        tok = self.lx.next()
        if self._kw(tok) != kw:
            raise self._unexpected(tok)

    # -- entry points -------------------------------------------------------------------
    def parse_program(self) -> Node:
        node = self.parse_list(top=True)
        tok = self.lx.next()
        if tok.kind != "EOF":
            raise self._unexpected(tok)
        return node

    def parse_subst_body(self) -> Node:
        """The inside of ``$( ... )``, consuming the closing parenthesis."""
        self._nest.append("(")
        node = self.parse_list(top=True)
        tok = self.lx.next()
        if not (tok.kind == "OP" and tok.value == ")"):
            raise self._unexpected(tok)
        self._nest.pop()
        return node

    def parse_line(self) -> Node | None:
        """The next top-level line (mksh parses and runs a script line by line)."""
        self._skip_newlines()
        tok = self.lx.peek()
        if tok.kind == "EOF":
            return None
        items: list[tuple[Node, bool]] = []
        while True:
            node = self.parse_and_or()
            tok = self.lx.peek()
            if tok.kind == "OP" and tok.value in (";", "&"):
                self.lx.next()
                items.append((node, tok.value == "&"))
                nxt = self.lx.peek()
                if nxt.kind in ("NEWLINE", "EOF"):
                    break
                continue
            items.append((node, False))
            break
        tok = self.lx.next()
        if tok.kind not in ("NEWLINE", "EOF"):
            raise self._unexpected(tok)
        return Seq(items)

    # -- lists ------------------------------------------------------------------------
    def _at_list_end(self, tok: Token) -> bool:
        if tok.kind == "EOF":
            return True
        if tok.kind == "OP" and tok.value in (")", ";;"):
            return True
        return self._kw(tok) in _STOP_WORDS

    def parse_list(self, *, top: bool = False) -> Node:
        items: list[tuple[Node, bool]] = []
        while True:
            self._skip_newlines()
            tok = self.lx.peek()
            if self._at_list_end(tok):
                break
            node = self.parse_and_or()
            bg = False
            tok = self.lx.peek()
            if tok.kind == "OP" and tok.value in (";", "&"):
                self.lx.next()
                bg = tok.value == "&"
                items.append((node, bg))
                continue
            items.append((node, bg))
            if tok.kind == "NEWLINE":
                continue
            break
        if not items and not top:
            raise self._unexpected(self.lx.peek())
        return Seq(items)

    def parse_and_or(self) -> Node:
        first = self.parse_pipeline()
        rest: list[tuple[str, Node]] = []
        while True:
            tok = self.lx.peek()
            if tok.kind == "OP" and tok.value in ("&&", "||"):
                self.lx.next()
                self._skip_newlines()
                rest.append((tok.value, self.parse_pipeline()))
            else:
                break
        return AndOr(first, rest) if rest else first

    def parse_pipeline(self) -> Node:
        negate = False
        while self._kw(self.lx.peek()) == "!":
            self.lx.next()
            negate = not negate
        cmds = [self.parse_command()]
        while True:
            tok = self.lx.peek()
            if tok.kind == "OP" and tok.value == "|":
                self.lx.next()
                self._skip_newlines()
                cmds.append(self.parse_command())
            else:
                break
        if len(cmds) == 1 and not negate:
            return cmds[0]
        return Pipeline(cmds, negate)

    # -- commands -----------------------------------------------------------------------
    def parse_command(self) -> Node:
        tok = self.lx.peek()
        kw = self._kw(tok)
        if tok.kind == "OP" and tok.value == "(":
            self.lx.next()
            self._nest.append("(")
            body = self.parse_list()
            end = self.lx.next()
            if not (end.kind == "OP" and end.value == ")"):
                raise self._unexpected(end)
            self._nest.pop()
            return self._with_redirs(Group(body, subshell=True))
        if kw is not None:
            handler: dict[str, Callable[[], Node]] = {
                "{": self._parse_brace, "if": self._parse_if, "while": self._parse_while,
                "until": self._parse_while, "for": self._parse_for, "case": self._parse_case,
            }
            if kw in handler:
                return self._with_redirs(handler[kw]())
            if kw not in ("in", "function", "select", "time", "[["):
                raise self._unexpected(tok)
        return self.parse_simple()

    def _with_redirs(self, node: Any) -> Node:
        while self.lx.peek().kind == "REDIR":
            node.redirs.append(self._parse_redir(self.lx.next()))
        return node

    def _parse_brace(self) -> Node:
        self.lx.next()
        self._nest.append("{")
        body = self.parse_list()
        self._expect_kw("}")
        self._nest.pop()
        return Group(body)

    def _parse_if(self) -> Node:
        self.lx.next()
        self._nest.append("if")
        clauses: list[tuple[Node, Node]] = []
        orelse: Node | None = None
        while True:
            cond = self.parse_list()
            self._expect_kw("then")
            body = self.parse_list()
            tok = self.lx.next()
            kw = self._kw(tok)
            clauses.append((cond, body))
            if kw == "elif":
                continue
            if kw == "else":
                orelse = self.parse_list()
                self._expect_kw("fi")
                break
            if kw == "fi":
                break
            raise self._unexpected(tok)
        self._nest.pop()
        return If(clauses, orelse)

    def _parse_while(self) -> Node:
        kw = self._kw(self.lx.next())
        self._nest.append(kw or "while")
        cond = self.parse_list()
        body = self._parse_do()
        self._nest.pop()
        return Loop(cond, body, until=kw == "until")

    def _parse_do(self) -> Node:
        self._expect_kw("do")
        self._nest.append("do")
        body = self.parse_list()
        self._expect_kw("done")
        self._nest.pop()
        return body

    def _parse_for(self) -> Node:
        self.lx.next()
        self._nest.append("for")
        tok = self.lx.next()
        name = tok.word.plain() if tok.kind == "WORD" and tok.word else None
        if name is None or not _NAME_RE.match(name):
            raise self._unexpected(tok)
        words: list[Word] | None = None
        self._skip_newlines()
        if self._kw(self.lx.peek()) == "in":
            self.lx.next()
            words = []
            while self.lx.peek().kind == "WORD":
                w = self.lx.next().word
                assert w is not None
                words.append(w)
            tok = self.lx.peek()
            if tok.kind == "OP" and tok.value == ";":
                self.lx.next()
            elif tok.kind != "NEWLINE":
                raise self._unexpected(tok)
        else:
            tok = self.lx.peek()
            if tok.kind == "OP" and tok.value == ";":
                self.lx.next()
        body = self._parse_do()
        self._nest.pop()
        return For(name, words, body)

    def _parse_case(self) -> Node:
        self.lx.next()
        self._nest.append("case")
        tok = self.lx.next()
        if tok.kind != "WORD" or tok.word is None:
            raise self._unexpected(tok)
        word = tok.word
        self._expect_kw("in")
        items: list[tuple[list[Word], Node | None]] = []
        while True:
            self._skip_newlines()
            tok = self.lx.peek()
            if self._kw(tok) == "esac":
                self.lx.next()
                break
            if tok.kind == "OP" and tok.value == "(":
                self.lx.next()
            pats: list[Word] = []
            while True:
                t = self.lx.next()
                if t.kind != "WORD" or t.word is None:
                    raise self._unexpected(t)
                pats.append(t.word)
                t = self.lx.next()
                if t.kind == "OP" and t.value == "|":
                    continue
                if t.kind == "OP" and t.value == ")":
                    break
                raise self._unexpected(t)
            self._skip_newlines()
            t = self.lx.peek()
            body: Node | None = None
            if not (t.kind == "OP" and t.value == ";;") and self._kw(t) != "esac":
                body = self.parse_list()
            t = self.lx.peek()
            if t.kind == "OP" and t.value == ";;":
                self.lx.next()
            elif self._kw(t) != "esac":
                raise self._unexpected(t)
            items.append((pats, body))
        self._nest.pop()
        return Case(word, items)

    def parse_simple(self) -> Node:
        assigns: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirs: list[Redir] = []
        while True:
            tok = self.lx.peek()
            if tok.kind == "REDIR":
                redirs.append(self._parse_redir(self.lx.next()))
                continue
            if tok.kind != "WORD" or tok.word is None:
                break
            self.lx.next()
            if not words:
                asg = _split_assignment(tok.word)
                if asg is not None:
                    assigns.append(asg)
                    continue
                name = tok.word.plain()
                nxt = self.lx.peek()
                if (name is not None and not assigns and nxt.kind == "OP" and nxt.value == "("
                        and _NAME_RE.match(name.replace("-", "_").replace(".", "_"))):
                    return self._parse_funcdef(name)
            words.append(tok.word)
        if not (assigns or words or redirs):
            raise self._unexpected(self.lx.peek())
        tok = self.lx.peek()
        if tok.kind == "OP" and tok.value == "(":
            raise self._unexpected(tok)
        return Simple(assigns, words, redirs)

    def _parse_funcdef(self, name: str) -> Node:
        self.lx.next()  # (
        tok = self.lx.next()
        if not (tok.kind == "OP" and tok.value == ")"):
            raise self._unexpected(tok)
        self._skip_newlines()
        return FuncDef(name, self.parse_command())

    def _parse_redir(self, tok: Token) -> Redir:
        target = self.lx.next()
        if target.kind != "WORD" or target.word is None:
            raise self._unexpected(target)
        redir = Redir(tok.fd, tok.value, target.word, explicit_fd=tok.explicit_fd)
        if tok.value in ("<<", "<<-"):
            delim, quoted = _heredoc_delim(target.word)
            self.lx.add_heredoc(redir, delim, quoted, tok.value == "<<-")
        return redir


def _word_source(word: Word | None) -> str:
    if word is None:
        return ""
    out = []
    for p in word.parts:
        if isinstance(p, Lit):
            out.append(p.text)
        elif isinstance(p, Param):
            out.append("$" + p.name)
        else:
            out.append("$(...)")
    return "".join(out)


def _heredoc_delim(word: Word) -> tuple[str, bool]:
    text = "".join(p.text if isinstance(p, Lit) else "$" + getattr(p, "name", "")
                   for p in word.parts)
    quoted = any(isinstance(p, Lit) and p.quoted for p in word.parts)
    return text, quoted


def _split_assignment(word: Word) -> tuple[str, Word] | None:
    first = word.parts[0] if word.parts else None
    if not isinstance(first, Lit) or first.quoted or "=" not in first.text:
        return None
    name, _, rest = first.text.partition("=")
    if not _NAME_RE.match(name):
        return None
    value_parts: list[Part] = ([Lit(rest, False)] if rest else []) + list(word.parts[1:])
    return name, Word(value_parts)


def parse(src: str) -> Node:
    """Parse a command line (raises :class:`ShellSyntaxError`)."""
    return Parser(Lexer(src)).parse_program()


# ======================================================================================
# I/O plumbing
# ======================================================================================


class Reader:
    """A process's stdin: buffered over a blocking pipe, or over fixed bytes."""

    def __init__(self, source: Any = None, data: bytes = b"") -> None:
        self._src = source
        self._buf = bytearray(data)
        self._eof = source is None

    def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = self._src.read(65536)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def read_chunk(self) -> bytes:
        """Whatever is available (blocking for at least one byte); ``b""`` at EOF."""
        if not self._buf:
            self._fill()
        data = bytes(self._buf)
        self._buf.clear()
        return data

    def read(self, n: int = -1) -> bytes:
        """``n`` bytes (or everything up to EOF when ``n < 0``)."""
        while (n < 0 or len(self._buf) < n) and self._fill():
            pass
        if n < 0:
            n = len(self._buf)
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def readline(self) -> bytes:
        """One line including its ``\\n`` (the rest at EOF)."""
        while b"\n" not in self._buf and self._fill():
            pass
        i = self._buf.find(b"\n")
        n = len(self._buf) if i < 0 else i + 1
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data


class Sink:
    """Where one file descriptor's bytes go."""

    def write(self, data: bytes) -> Chunk | None:
        raise NotImplementedError


class StreamSink(Sink):
    """The process's real stdout (1) or stderr (2)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes) -> Chunk | None:
        return (self.fd, data)


class BufferSink(Sink):
    def __init__(self) -> None:
        self.buf = bytearray()

    def write(self, data: bytes) -> Chunk | None:
        self.buf += data
        return None


class NullSink(Sink):
    def write(self, data: bytes) -> Chunk | None:
        return None


class FileSink(Sink):
    def __init__(self, fs: Any, path: str) -> None:
        self.fs = fs
        self.path = path

    def write(self, data: bytes) -> Chunk | None:
        with contextlib.suppress(OSError):
            self.fs.write(self.path, data, append=True)
        return None


@dataclass
class IO:
    """File descriptors of one command: sinks for output fds and a stdin reader."""

    fds: dict[int, Sink]
    stdin: Reader

    def copy(self) -> IO:
        return IO(dict(self.fds), self.stdin)

    def route(self, fd: int, data: bytes) -> Chunk | None:
        sink = self.fds.get(fd)
        return None if sink is None else sink.write(data)


def out(text: str | bytes) -> Chunk:
    """A stdout chunk (str is UTF-8 encoded, lone surrogates kept as raw bytes)."""
    return (1, text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))


def err(text: str | bytes) -> Chunk:
    """A stderr chunk."""
    return (2, text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))


def decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def strerror(exc: OSError) -> str:
    import os

    return os.strerror(exc.errno) if exc.errno else str(exc)


# ======================================================================================
# patterns (glob, case, ${x#pat})
# ======================================================================================

# kinds per character: "q" quoted, "l" unquoted literal from the source, "e" unquoted
# result of an expansion (globbed and split, but never brace-expanded)


def _has_glob(text: str, kinds: str) -> bool:
    return any(k != "q" and c in "*?[" for c, k in zip(text, kinds, strict=True)) or (
        any(k == "l" and c in "@+!" for c, k in zip(text, kinds, strict=True)) and "(" in text
    )


def pattern_regex(text: str, kinds: str, *, path: bool = False) -> str:
    """Translate a shell pattern (quoted characters literal) to a Python regex."""
    out_: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c, k = text[i], kinds[i]
        if k == "q":
            out_.append(re.escape(c))
            i += 1
            continue
        if c in "*?@+!" and i + 1 < n and text[i + 1] == "(" and kinds[i + 1] != "q":
            j, depth = i + 2, 1
            while j < n and depth:
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                j += 1
            inner = text[i + 2:j - 1]
            alts = "|".join(pattern_regex(a, "l" * len(a), path=path) for a in inner.split("|"))
            suffix = {"*": "*", "?": "?", "+": "+", "@": ""}.get(c)
            out_.append(f"(?:{alts}){suffix}" if suffix is not None else f"(?!(?:{alts})$).*")
            i = j
            continue
        if c == "*":
            out_.append("[^/]*" if path else ".*")
        elif c == "?":
            out_.append("[^/]" if path else ".")
        elif c == "[":
            j = i + 1
            if j < n and text[j] in "!^":
                j += 1
            if j < n and text[j] == "]":
                j += 1
            while j < n and text[j] != "]":
                j += 1
            if j >= n:
                out_.append(re.escape("["))
            else:
                body = text[i + 1:j]
                neg = body[:1] in ("!", "^")
                if neg:
                    body = body[1:]
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                out_.append(f"[{'^' if neg else ''}{body}]")
                i = j
        else:
            out_.append(re.escape(c))
        i += 1
    return "".join(out_)


def pattern_match(pattern: str, kinds: str, text: str) -> bool:
    """Whole-string shell pattern match."""
    try:
        return re.fullmatch(pattern_regex(pattern, kinds), text, re.S) is not None
    except re.error:
        return pattern == text


def _brace_expand(text: str, kinds: str) -> list[tuple[str, str]]:
    """mksh brace expansion ``a{b,c}d`` on unquoted source braces."""
    n = len(text)
    for i in range(n):
        if text[i] != "{" or kinds[i] == "q":
            continue
        depth = 0
        commas: list[int] = []
        for j in range(i, n):
            if kinds[j] == "q":
                continue
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    if not commas:
                        break
                    pre, pk = text[:i], kinds[:i]
                    post, qk = text[j + 1:], kinds[j + 1:]
                    bounds = [i, *commas, j]
                    results: list[tuple[str, str]] = []
                    for a, b in zip(bounds, bounds[1:], strict=False):
                        alt, ak = text[a + 1:b], kinds[a + 1:b]
                        results.extend(_brace_expand(pre + alt + post, pk + ak + qk))
                    return results
            elif text[j] == "," and depth == 1:
                commas.append(j)
        if depth:
            break  # the first brace is never closed: mksh leaves the word alone
    return [(text, kinds)]


# ======================================================================================
# arithmetic
# ======================================================================================

_ARITH_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|([A-Za-z_][A-Za-z0-9_]*)|"
    r"(\*\*|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\+\+|--|[-+*/%<>=!~&^|?:()]))"
)


class _Arith:
    """Integer arithmetic for ``$(( ))`` (C precedence, 64-bit wraparound ignored)."""

    _BIN = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
            ("<<", ">>"), ("+", "-"), ("*", "/", "%")]

    def __init__(self, text: str, shell: Shell) -> None:
        self.toks: list[str] = []
        self.shell = shell
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _ARITH_TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(f"{text}: syntax error")
            self.toks.append(m.group(m.lastindex or 1))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.k = 0

    def _peek(self) -> str:
        return self.toks[self.k] if self.k < len(self.toks) else ""

    def _take(self) -> str:
        t = self._peek()
        self.k += 1
        return t

    def run(self) -> int:
        if not self.toks:
            return 0
        v = self._assign()
        if self.k != len(self.toks):
            raise ValueError(f"unexpected '{self._peek()}'")
        return v

    def _var(self, name: str) -> int:
        raw = (self.shell.get_var(name) or "0").strip() or "0"
        try:
            return int(raw, 0)
        except ValueError:
            return _Arith(raw, self.shell).run()

    def _assign(self) -> int:
        if (self.k + 1 < len(self.toks) and _NAME_RE.match(self.toks[self.k])
                and self.toks[self.k + 1] in ("=", "+=", "-=", "*=", "/=", "%=")):
            name, op = self.toks[self.k], self.toks[self.k + 1]
            self.k += 2
            val = self._assign()
            if op != "=":
                val = self._apply(op[0], self._var(name), val)
            self.shell.set_var(name, str(val))
            return val
        return self._ternary()

    def _ternary(self) -> int:
        cond = self._binary(0)
        if self._peek() == "?":
            self._take()
            a = self._assign()
            if self._take() != ":":
                raise ValueError("':' expected")
            b = self._assign()
            return a if cond else b
        return cond

    def _binary(self, level: int) -> int:
        if level == len(self._BIN):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek() in self._BIN[level]:
            op = self._take()
            right = self._binary(level + 1)
            left = self._apply(op, left, right)
        return left

    @staticmethod
    def _apply(op: str, a: int, b: int) -> int:
        if op in ("/", "%"):
            if b == 0:
                raise ZeroDivisionError
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if op == "/" else a - q * b
        table: dict[str, Callable[[int, int], int]] = {
            "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
            "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y, "&": lambda x, y: x & y,
            "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
            "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
            "<": lambda x, y: int(x < y), "<=": lambda x, y: int(x <= y),
            ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y),
            "&&": lambda x, y: int(bool(x) and bool(y)), "||": lambda x, y: int(bool(x) or bool(y)),
        }
        return table[op](a, b)

    def _unary(self) -> int:
        t = self._peek()
        if t in ("-", "+", "!", "~"):
            self._take()
            v = self._unary()
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}[t]
        if t == "(":
            self._take()
            v = self._assign()
            if self._take() != ")":
                raise ValueError("')' expected")
            return v
        t = self._take()
        if not t:
            raise ValueError("unexpected 'end of expression'")
        if t[0].isdigit():
            return int(t, 16) if t[:2].lower() == "0x" else int(t, 10)
        if _NAME_RE.match(t):
            return self._var(t)
        raise ValueError(f"unexpected '{t}'")


# ======================================================================================
# the executor
# ======================================================================================

Seg = tuple[str | None, str]  # (text, kind) ; text None = forced field break ("$@")


class Proc:
    """What a program sees when it runs: argv, stdin, the phone, cwd/env, cancellation."""

    def __init__(self, shell: Shell, io: IO, argv: list[str], env: dict[str, str]) -> None:
        self.shell = shell
        self.io = io
        self.argv = argv
        self.env = env
        self.model = shell.model

    @property
    def stdin(self) -> Reader:
        return self.io.stdin

    @property
    def cwd(self) -> str:
        return self.shell.cwd

    @property
    def fs(self) -> Any:
        return self.model.fs

    @property
    def api_level(self) -> int:
        return int(self.model.api_level)

    def path(self, p: str) -> str:
        """``p`` made absolute against the shell's working directory."""
        return self.model.fs.normalize(p, self.shell.cwd)

    def sleep(self, seconds: float) -> None:
        """Sleep on the model's clock; raises :class:`Cancelled` if the client left."""
        self.shell.check_cancel()
        if seconds > 0:
            self.model.clock.sleep(seconds, self.shell.cancel)
        self.shell.check_cancel()

    def check_cancel(self) -> None:
        self.shell.check_cancel()

    @property
    def cancel_event(self) -> threading.Event:
        return self.shell.cancel

    def which(self, name: str) -> str | None:
        """Where ``name`` would be found on PATH (None if nowhere)."""
        return self.shell.lookup_path(name)

    def run_script(self, src: str, argv0: str, args: list[str]) -> Gen:
        """Run ``src`` in a child ``sh`` (``sh -c``), with this program's I/O."""
        child = self.shell.child(argv0, args, self.env)
        status = yield from child.run_source(src, self.io)
        return status


class Shell:
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

    def _x_seq(self, node: Seq, io: IO) -> Gen:
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

    def _x_andor(self, node: AndOr, io: IO) -> Gen:
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
        except (_Return, _LoopCtl):
            status = self.status
        return status & 0xFF

    def _x_pipeline(self, node: Pipeline, io: IO) -> Gen:
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

    def _x_group(self, node: Group, io: IO) -> Gen:
        gio = yield from self.redirect(node.redirs, io)
        if gio is None:
            return 1
        if node.subshell:
            status = yield from self.subshell().isolated(node.body, gio)
            return status
        status = yield from self.execute(node.body, gio)
        return status

    def _x_if(self, node: If, io: IO) -> Gen:
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

    def _x_loop(self, node: Loop, io: IO) -> Gen:
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
        except _LoopCtl as ctl:
            if ctl.levels > 1:
                ctl.levels -= 1
                raise
            return status, ctl.kind == "break"

    def _x_for(self, node: For, io: IO) -> Gen:
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

    def _x_case(self, node: Case, io: IO) -> Gen:
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

    def _x_funcdef(self, node: FuncDef, io: IO) -> Gen:
        self.functions[node.name] = node.body
        return 0
        yield  # pragma: no cover - makes this a generator

    def _x_simple(self, node: Simple, io: IO) -> Gen:
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
            routed = io.route(fd, data)
            if routed is not None:
                yield routed
            if self.cancel.is_set():
                gen.close()
                raise Cancelled()

    def run_argv(self, argv: list[str], io: IO, env: dict[str, str],
                 assigns: list[tuple[str, str]] | None = None) -> Gen:
        from baremobile.virtual.commands import COMMANDS

        name = argv[0]
        if name == "":
            yield from self.drive(_gen_err(f"{self.argv0}: : can't execute: Is a directory\n"),
                                  io)
            return 126
        if "/" in name:
            return (yield from self._run_path(argv, io, env))
        if name in self.functions:
            return (yield from self._call_function(name, argv, io))
        builtin = BUILTINS.get(name)
        if builtin is not None:
            for k, v in assigns or ():
                if name in ("export", "readonly", ".", "source", "eval", "exec", "set"):
                    self.set_var(k, v)
            return (yield from self.drive(builtin(self, argv, io), io))
        program = COMMANDS.get(name)
        if program is not None:
            proc = Proc(self, io, argv, env)
            return (yield from self.drive(program(proc), io))
        yield from self.drive(_gen_err(f"{self.argv0}: {name}: inaccessible or not found\n"), io)
        return 127

    def _run_path(self, argv: list[str], io: IO, env: dict[str, str]) -> Gen:
        from baremobile.virtual.commands import COMMANDS

        fs = self.model.fs
        path = fs.normalize(argv[0], self.cwd)
        directory, base = posixpath.split(path)
        entry = fs.stat(path)
        if entry is None and directory in BIN_DIRS and base in COMMANDS:
            proc = Proc(self, io, [base, *argv[1:]], env)
            proc.argv[0] = argv[0]
            return (yield from self.drive(COMMANDS[base](proc), io))
        if entry is None:
            msg = f"{self.argv0}: {argv[0]}: inaccessible or not found\n"
            yield from self.drive(_gen_err(msg), io)
            return 127
        if entry.is_dir or not (entry.mode & 0o111) or path.startswith("/storage/"):
            why = "Is a directory" if entry.is_dir else "Permission denied"
            yield from self.drive(_gen_err(f"{self.argv0}: {argv[0]}: can't execute: {why}\n"),
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
        except _Return as ret:
            status = ret.status
        finally:
            self.args = saved
        return status

    def lookup_path(self, name: str) -> str | None:
        from baremobile.virtual.commands import COMMANDS

        if "/" in name:
            return name if self.model.fs.exists(self.model.fs.normalize(name, self.cwd)) else None
        if name in COMMANDS:
            return f"/system/bin/{name}"
        return None

    # -- redirections ---------------------------------------------------------------------
    def redirect(self, redirs: list[Redir], io: IO) -> Generator[Chunk, None, IO | None]:
        """Apply redirections in order to a copy of ``io`` (None + message on failure)."""
        if not redirs:
            return io
        new = io.copy()
        for r in redirs:
            failure = yield from self._apply_redir(r, new)
            if failure is not None:
                routed = io.route(2, f"{self.argv0}: {failure}\n".encode())
                if routed is not None:
                    yield routed
                return None
        return new

    def _apply_redir(self, r: Redir, io: IO) -> Generator[Chunk, None, str | None]:
        fs = self.model.fs
        if r.op in ("<<", "<<-"):
            body = yield from self.expand_string(r.heredoc or Word([]), io)
            io.stdin = Reader(data=body.encode("utf-8", "surrogateescape"))
            return None
        target = yield from self.expand_string(r.target or Word([]), io, tilde=True)
        if r.op == "<<<":
            io.stdin = Reader(data=(target + "\n").encode("utf-8", "surrogateescape"))
            return None
        if r.op in (">&", "<&"):
            if target == "-":
                if r.fd == 0:
                    io.stdin = Reader()
                io.fds.pop(r.fd, None)
                return None
            shown = (str(r.fd) if r.explicit_fd else "") + r.op + _sh_quote(target) + " "
            if not re.fullmatch(r"[0-9]", target):
                return f"{shown}: illegal file descriptor name"
            src = int(target)
            if r.op == "<&" or r.fd == 0:
                return None if src == 0 else f"{shown}: bad file descriptor"
            if src not in io.fds:
                return f"{shown}: bad file descriptor"
            io.fds[r.fd] = io.fds[src]
            return None
        if target == "":
            verb = "can't open" if r.op in ("<", "<>") else "can't create"
            return f"{verb} : No such file or directory"
        path = fs.normalize(target, self.cwd)
        if r.op in ("<", "<>"):
            if path in ("/dev/null", "/dev/zero"):
                io.stdin = Reader()
                return None
            try:
                data = fs.read(path)
            except OSError as exc:
                if r.op == "<>" and exc.errno == 2:
                    data = b""
                else:
                    return f"can't open {target}: {strerror(exc)}"
            if r.fd == 0:
                io.stdin = Reader(data=data)
            return None
        sink = self._open_sink(path, append=r.op in (">>", "&>>"), io=io)
        if isinstance(sink, str):
            return f"can't create {target}: {sink}"
        if r.op in ("&>", "&>>"):
            io.fds[1] = sink
            io.fds[2] = sink
        else:
            io.fds[r.fd] = sink
        return None

    def _open_sink(self, path: str, *, append: bool, io: IO) -> Sink | str:
        fs = self.model.fs
        if path == "/dev/null":
            return NullSink()
        if path in ("/dev/stdout", "/proc/self/fd/1"):
            return io.fds.get(1, NullSink())
        if path in ("/dev/stderr", "/proc/self/fd/2"):
            return io.fds.get(2, NullSink())
        if path == "/dev/tty":
            return "No such device or address"
        try:
            entry = fs.stat(path)
            if entry is not None and entry.is_dir:
                return "Is a directory"
            if entry is None or not append:
                fs.write(path, b"", mode=0o660 if path.startswith("/storage/") else 0o644)
        except OSError as exc:
            return strerror(exc)
        return FileSink(fs, path)

    # -- expansion ------------------------------------------------------------------------
    def expand_fields(self, word: Word, io: IO) -> Generator[Chunk, None, list[str]]:
        """Full expansion: parameters, $(...), splitting, braces, globbing, quote removal."""
        parts = word.parts
        if (len(parts) == 2 and isinstance(parts[0], Lit) and parts[0].text == ""
                and isinstance(parts[1], Param) and parts[1].name == "@"
                and parts[1].op is None and parts[1].quoted):
            return list(self.args)
        segs = yield from self.expand_parts(parts, io)
        result: list[str] = []
        for fld in self._split(segs):
            text = "".join(t for t, _ in fld)
            kinds = "".join(k * len(t) for t, k in fld)
            for btext, bkinds in _brace_expand(text, kinds):
                result.extend(self._glob(btext, bkinds))
        return result

    def expand_string(self, word: Word, io: IO, *, tilde: bool = False, assign: bool = False
                      ) -> Generator[Chunk, None, str]:
        """Expansion without splitting or globbing (assignments, redirections, here-docs)."""
        segs = yield from self.expand_parts(word.parts, io, tilde=tilde, assign=assign)
        return "".join(t for t, _ in segs if t is not None)

    def _tildes(self, text: str, starts: set[int], last: bool, assign: bool) -> list[Seg]:
        """Expand ``~`` at the allowed positions (word start, after the first ``=``, and
        after ``:`` in assignments) when the tilde prefix is empty (no ``~user``)."""
        home = self.get_var("HOME") or "/"
        segs: list[Seg] = []
        pos = 0
        for s0 in sorted(starts):
            if s0 >= len(text) or text[s0] != "~" or s0 < pos:
                continue
            end = s0 + 1
            stop_chars = "/:" if assign else "/"
            at_end = end >= len(text)
            if (at_end and last) or (not at_end and text[end] in stop_chars):
                segs.append((text[pos:s0], "l"))
                segs.append((home, "q"))
                pos = end
        segs.append((text[pos:], "l"))
        return [sg for sg in segs if sg[0]] or [("", "l")]

    def expand_parts(self, parts: list[Part], io: IO, *, tilde: bool = True,
                     assign: bool = False) -> Generator[Chunk, None, list[Seg]]:
        segs: list[Seg] = []
        seen_eq = False
        for idx, p in enumerate(parts):
            if isinstance(p, Lit):
                text = p.text
                if tilde and not p.quoted:
                    starts = {0} if idx == 0 else set()
                    if assign:
                        starts |= {k + 1 for k, c in enumerate(text) if c == ":"}
                    elif not seen_eq and "=" in text:
                        starts.add(text.index("=") + 1)
                    if starts and "~" in text:
                        segs.extend(self._tildes(text, starts, idx == len(parts) - 1, assign))
                        seen_eq = seen_eq or "=" in text
                        continue
                seen_eq = seen_eq or (not p.quoted and "=" in text)
                segs.append((text, "q" if p.quoted else "l"))
            elif isinstance(p, Param):
                segs.extend((yield from self._expand_param(p, io)))
            elif isinstance(p, CmdSub):
                text = yield from self._command_subst(p.body, io, same_shell=p.same_shell)
                segs.append((text, "q" if p.quoted else "e"))
            else:
                expr = yield from self.expand_string(p.expr, io)
                try:
                    value = str(_Arith(expr, self).run())
                except ZeroDivisionError:
                    yield err(f"{self.argv0}: {expr.strip()}: zero divisor\n")
                    raise ShellExit(1) from None
                except ValueError as exc:
                    yield err(f"{self.argv0}: {expr.strip()}: {exc}\n")
                    raise ShellExit(1) from None
                segs.append((value, "q" if p.quoted else "e"))
        return segs

    def _expand_param(self, p: Param, io: IO) -> Generator[Chunk, None, list[Seg]]:
        kind = "q" if p.quoted else "e"
        value = self.get_var(p.name)
        op = p.op
        if op is None:
            if p.name == "@" and p.quoted and self.args:
                segs: list[Seg] = []
                for k, a in enumerate(self.args):
                    if k:
                        segs.append((None, "q"))
                    segs.append((a, "q"))
                return segs
            return [(value or "", kind)]
        if op == "len":
            return [(str(len(value or "")), kind)]
        if op == "bad":
            raw = p.arg.parts[0].text if p.arg and isinstance(p.arg.parts[0], Lit) else ""
            yield err(f"{self.argv0}: ${{{raw}}}: bad substitution\n")
            raise ShellExit(1)
        empty = value is None or (op.startswith(":") and value == "")
        if op in (":-", "-"):
            if empty:
                return (yield from self._arg_segs(p, io))
            return [(value or "", kind)]
        if op in (":=", "="):
            if empty:
                new = yield from self.expand_string(p.arg or Word([]), io)
                self.set_var(p.name, new)
                return [(new, kind)]
            return [(value or "", kind)]
        if op in (":+", "+"):
            if empty:
                return []
            return (yield from self._arg_segs(p, io))
        if op in (":?", "?"):
            if empty:
                msg = yield from self.expand_string(p.arg or Word([]), io)
                msg = msg or ("parameter null or not set" if op == ":?" else "parameter not set")
                yield err(f"{self.argv0}: {p.name}: {msg}\n")
                raise ShellExit(1)
            return [(value or "", kind)]
        if op.startswith("/"):
            return [((yield from self._substitute(value or "", p, io)), kind)]
        # pattern removal: # ## % %%
        segs = yield from self.expand_parts((p.arg or Word([])).parts, io, tilde=False)
        pat = "".join(t for t, _ in segs if t is not None)
        kinds = "".join(("q" if k == "q" else "l") * len(t) for t, k in segs if t is not None)
        return [(_remove_pattern(value or "", pat, kinds, op), kind)]

    def _substitute(self, value: str, p: Param, io: IO) -> Generator[Chunk, None, str]:
        payload = p.arg.parts[0] if p.arg and p.arg.parts else None
        assert isinstance(payload, CmdSubst)
        segs = yield from self.expand_parts(payload.pattern.parts, io, tilde=False)
        pat = "".join(t for t, _ in segs if t is not None)
        kinds = "".join(("q" if k == "q" else "l") * len(t) for t, k in segs if t is not None)
        rep = yield from self.expand_string(payload.replacement, io)
        if not pat:
            return value
        try:
            rx = re.compile(pattern_regex(pat, kinds), re.S)
        except re.error:
            return value
        op = p.op or "/"
        if op == "/#":
            for k in range(len(value), -1, -1):
                if rx.fullmatch(value[:k]):
                    return rep + value[k:]
            return value
        if op == "/%":
            for k in range(len(value) + 1):
                if rx.fullmatch(value[k:]):
                    return value[:k] + rep
            return value
        out_: list[str] = []
        i = 0
        replaced = False
        while i <= len(value):
            hit = None
            if not (replaced and op == "/"):
                for k in range(len(value), i - 1, -1):
                    if k > i and rx.fullmatch(value[i:k]):
                        hit = k
                        break
            if hit is None:
                if i < len(value):
                    out_.append(value[i])
                i += 1
                continue
            out_.append(rep)
            replaced = True
            i = hit
        return "".join(out_)

    def _arg_segs(self, p: Param, io: IO) -> Generator[Chunk, None, list[Seg]]:
        segs = yield from self.expand_parts((p.arg or Word([])).parts, io)
        if p.quoted:
            return [(t, "q") for t, _ in segs]
        return [(t, "e" if k == "l" else k) for t, k in segs]

    def _command_subst(
        self, body: Node | None, io: IO, *, same_shell: bool = False
    ) -> Generator[Chunk, None, str]:
        if body is None:
            return ""
        sub = self if same_shell else self.subshell()
        cio = io.copy()
        buf = BufferSink()
        cio.fds[1] = buf
        status = yield from sub.isolated(body, cio)
        self._cmdsub_status = status
        self.status = status
        return decode(bytes(buf.buf)).rstrip("\n")

    def _split(self, segs: list[Seg]) -> list[list[tuple[str, str]]]:
        ifs = self.vars.get("IFS", " \t\n")
        ws = "".join(c for c in ifs if c in " \t\n")
        fields: list[list[tuple[str, str]]] = []
        cur: list[tuple[str, str]] = []
        has = False
        after_ws = False
        for text, kind in segs:
            if text is None:
                fields.append(cur)
                cur, has = [], False
                continue
            if kind != "e" or not ifs:
                if text or kind == "q":
                    has = True
                    after_ws = False
                cur.append((text, kind))
                continue
            piece: list[str] = []
            for ch in text:
                if ch not in ifs:
                    piece.append(ch)
                    has = True
                    after_ws = False
                    continue
                if piece:
                    cur.append(("".join(piece), kind))
                    piece = []
                if ch in ws:
                    if has:
                        fields.append(cur)
                        cur, has = [], False
                        after_ws = True
                else:
                    if after_ws:
                        after_ws = False
                    else:
                        fields.append(cur)
                        cur, has = [], False
            if piece:
                cur.append(("".join(piece), kind))
        if has:
            fields.append(cur)
        return fields

    def _glob(self, text: str, kinds: str) -> list[str]:
        if not _has_glob(text, kinds):
            return [text]
        fs = self.model.fs
        absolute = text.startswith("/")
        comps: list[tuple[str, str]] = []
        start = 0
        for i, c in enumerate(text + "/"):
            if c == "/":
                comps.append((text[start:i], kinds[start:i]))
                start = i + 1
        bases = ["/"] if absolute else [""]
        for ctext, ckinds in comps:
            if not ctext:
                continue
            new: list[str] = []
            if not _has_glob(ctext, ckinds):
                new = [_join(b, ctext) for b in bases]
            else:
                try:
                    rx = re.compile(pattern_regex(ctext, ckinds, path=True), re.S)
                except re.error:
                    return [text]
                for b in bases:
                    directory = fs.normalize(b or ".", self.cwd)
                    if not fs.is_dir(directory):
                        continue
                    try:
                        names = [n for n, _ in fs.listdir(directory)]
                    except OSError:
                        continue
                    for name in names:
                        if name.startswith(".") and not ctext.startswith("."):
                            continue
                        if rx.fullmatch(name):
                            new.append(_join(b, name))
            bases = new
            if not bases:
                break
        found = sorted(b for b in bases if fs.exists(fs.normalize(b or ".", self.cwd)))
        if text.endswith("/"):
            found = [f + "/" for f in found if fs.is_dir(fs.normalize(f, self.cwd))]
        return found or [text]


def _join(base: str, name: str) -> str:
    if not base:
        return name
    return base + name if base.endswith("/") else base + "/" + name


def _remove_pattern(value: str, pat: str, kinds: str, op: str) -> str:
    try:
        rx = re.compile(pattern_regex(pat, kinds), re.S)
    except re.error:
        return value
    n = len(value)
    if op in ("#", "##"):
        rng = range(n + 1) if op == "#" else range(n, -1, -1)
        for k in rng:
            if rx.fullmatch(value[:k]):
                return value[k:]
    else:
        rng = range(n, -1, -1) if op == "%" else range(n + 1)
        for k in rng:
            if rx.fullmatch(value[k:]):
                return value[:k]
    return value


def _gen_err(text: str) -> Gen:
    yield err(text)
    return 1


# ======================================================================================
# builtins (the ones that live inside mksh)
# ======================================================================================

Builtin = Callable[[Shell, list[str], IO], Gen]
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
                yield out(f"export {k}={_sh_quote(sh.vars[k])}\n")
        return 0
    for a in args:
        name, eq, value = a.partition("=")
        if not _NAME_RE.match(name):
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
    raise _Return(status)


@builtin("break", "continue")
def _bi_loopctl(sh: Shell, argv: list[str], io: IO) -> Gen:
    levels = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    raise _LoopCtl(argv[0], max(1, levels))
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
            yield out(f"{k}={_sh_quote(sh.vars[k])}\n")
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
    if name in _KEYWORDS:
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
    from baremobile.virtual.commands.toybox import evaluate_test

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


def _sh_quote(value: str) -> str:
    if value and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


# ======================================================================================
# entry point
# ======================================================================================


def run_command_line(model: Any, command: str, *, stdin: Any = None,
                     cancel: threading.Event | None = None, pid: int | None = None) -> Gen:
    """Run ``/system/bin/sh -c command`` (or the interactive shell when empty)."""
    shell = Shell(model, cancel=cancel or threading.Event(),
                  pid=pid if pid is not None else model.new_pid())
    io = shell.base_io(Reader(stdin))
    if command == "":
        return (yield from shell.repl(io))
    return (yield from shell.run_source(command, io))


