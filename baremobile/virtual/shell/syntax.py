"""The shell language's syntax tree: what the parser builds and the interpreter walks.

Words are lists of parts (:class:`Lit`, :class:`Param`, :class:`CmdSub`, :class:`Arith`);
commands are :class:`Simple` commands and the compound forms around them. Plain dataclasses,
no behaviour beyond :meth:`Word.plain`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "ShellSyntaxError", "NAME_RE", "KEYWORDS", "Lit", "Param", "CmdSub", "Arith", "Part",
    "CmdSubst", "Word", "Redir", "Simple", "Pipeline", "AndOr", "Seq", "Group", "If", "Loop",
    "For", "Case", "FuncDef", "Node",
]

#: a variable or function name
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: mksh's reserved words
KEYWORDS = frozenset(
    ["if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "in",
     "case", "esac", "{", "}", "!", "function", "select", "time", "[["])


class ShellSyntaxError(Exception):
    """A parse error, worded as mksh words it (``syntax error: 'fi' unexpected``)."""



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

