"""The virtual phone's ``/system/bin/sh``: a faithful subset of Android's mksh.

Every ``shell:`` / ``exec:`` command line reaches
:func:`~baremobile.virtual.shell.interpreter.run_command_line`, exactly as a real device runs
``/system/bin/sh -c <command>``. Quoting is interpreted as mksh does it (single quotes,
double quotes with ``\\`` escaping only ``$ ` " \\`` and newline, backslash escapes,
``$'...'``), and whatever an unquoted metacharacter would do is really done (``;``, ``|``,
``&&``, ``$(...)``, redirections, globbing ...), so a quoting bug in a client is *detected*
by the event log rather than hidden.

One module per stage of the language, each importing only those above it in this list:

* :mod:`.syntax` — the syntax tree (small dataclasses) and :class:`ShellSyntaxError`;
* :mod:`.escapes` — backslash escapes (``$'...'``, ``echo``);
* :mod:`.lexer` — source text to tokens and words;
* :mod:`.parser` — tokens to the syntax tree (:func:`parse`);
* :mod:`.process` — what a running program sees (:class:`Proc`: argv, fds, stdin, the
  phone) and the stream plumbing (sinks, :class:`Reader`); the programs in
  :mod:`baremobile.virtual.commands` depend on this, never on the interpreter;
* :mod:`.patterns`, :mod:`.arith`, :mod:`.conditions` — globs, ``$(( ))``, ``test``;
* :mod:`.expand` — word expansion; :mod:`.redirect` — redirections;
* :mod:`.builtins` — ``cd``, ``export``, ``read``, ``eval`` ...;
* :mod:`.interpreter` — :class:`~.interpreter.Shell`, which walks the tree and runs
  builtins and programs, and :func:`~.interpreter.run_command_line`.

This package's own namespace holds only the language's front (syntax, lexer, parser,
process interface), so importing :mod:`.process` never loads the interpreter.
"""

from __future__ import annotations

from .escapes import mksh_print_escapes
from .lexer import Lexer
from .parser import Parser, parse
from .process import Cancelled, Proc, Reader
from .syntax import ShellSyntaxError

__all__ = [
    "ShellSyntaxError",
    "Cancelled",
    "Lexer",
    "Parser",
    "parse",
    "Proc",
    "Reader",
    "mksh_print_escapes",
]
