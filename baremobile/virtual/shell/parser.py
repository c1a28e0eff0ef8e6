"""The shell's parser: recursive descent over the lexer's tokens into a :mod:`.syntax` tree.

Errors are :class:`~.syntax.ShellSyntaxError` with mksh's wording. :func:`parse` parses a
whole command line; :meth:`Parser.parse_line` gives one top-level line at a time, as mksh
runs scripts (a syntax error on line 3 comes after lines 1 and 2 ran).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .lexer import Lexer, Token
from .syntax import (
    KEYWORDS,
    NAME_RE,
    AndOr,
    Case,
    For,
    FuncDef,
    Group,
    If,
    Lit,
    Loop,
    Node,
    Param,
    Part,
    Pipeline,
    Redir,
    Seq,
    ShellSyntaxError,
    Simple,
    Word,
)

__all__ = ["Parser", "parse"]

_STOP_WORDS = frozenset(["then", "elif", "else", "fi", "do", "done", "esac", "}"])


class Parser:
    """Recursive-descent parser for the mksh subset (see docs/virtual-shell.md)."""

    def __init__(self, lexer: Lexer) -> None:
        self.lx = lexer
        lexer.subparser = type(self)  # nested $( ), `...` and ${ ;} parse like this
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
        return p if p in KEYWORDS else None

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
        if name is None or not NAME_RE.match(name):
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
                        and NAME_RE.match(name.replace("-", "_").replace(".", "_"))):
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
    if not NAME_RE.match(name):
        return None
    value_parts: list[Part] = ([Lit(rest, False)] if rest else []) + list(word.parts[1:])
    return name, Word(value_parts)


def parse(src: str) -> Node:
    """Parse a command line (raises :class:`ShellSyntaxError`)."""
    return Parser(Lexer(src)).parse_program()

