"""The shell's lexer: mksh's lexical rules over one source string, tokens on demand.

Quoting (single, double, ``$'...'``, backslashes), parameter and arithmetic expansions, command
substitutions, here-documents and redirection operators are recognised here and handed to
the parser as :class:`Token` objects whose words are already split into parts
(:mod:`.syntax`). Nested command text (``$( )``, backquotes, ``${ cmd;}``) is parsed by the
parser that drives the lexer (:attr:`Lexer.subparser`), so this module never imports the
parser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .escapes import unbackslash
from .syntax import Arith, CmdSub, CmdSubst, Lit, Node, Param, Part, Redir, ShellSyntaxError, Word

__all__ = ["Token", "Lexer", "heredoc_word"]


class SubParser(Protocol):
    """What the lexer needs of a parser for nested command text."""

    def parse_program(self) -> Node: ...

    def parse_subst_body(self) -> Node: ...


SubParserFactory = Callable[["Lexer"], SubParser]


class _BadSubst(Exception):  # noqa: N818 - internal parse signal
    pass


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
        #: builds the parser for nested command text; the parser driving this lexer sets it
        self.subparser: SubParserFactory | None = None

    def _nested(self, lexer: Lexer) -> SubParser:
        """The parser for command text nested in a word (``$( )``, backquotes,
        ``${ cmd;}``): the lexer does not know the grammar, so it asks the parser that
        drives it for another of its kind."""
        if self.subparser is None:
            raise ShellSyntaxError("command substitution needs a parser")
        return self.subparser(lexer)

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
            redir.heredoc = (Word([Lit(body, True)]) if quoted
                             else heredoc_word(body, self.subparser))

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
            body = self._nested(self).parse_subst_body()
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
                body = self._nested(Lexer(inner)).parse_program() if inner.strip() else None
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
                        return Arith(heredoc_word(inner, self.subparser) if inner else Word([]),
                                     in_dq)
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
        return CmdSub(self._nested(Lexer("".join(buf))).parse_program(), in_dq)

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
            val, self.i = unbackslash(self.src, self.i, cstyle=True)
            if val == "\0":
                stopped = True
            if not stopped:
                out.append(val)
        return "".join(out)


def heredoc_word(body: str, subparser: SubParserFactory | None) -> Word:
    """An unquoted here-document body: ``$``, backquotes and ``\\$ \\` \\\\`` are live."""
    lx = Lexer(body)
    lx.subparser = subparser
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

