"""The table of programs on the virtual phone's ``/system/bin``: :data:`COMMANDS`, filled by
the ``@command`` decorators of the modules beside this one.

Some programs exist only from a given API level on (``uinput`` came with Android 11):
:data:`SINCE` holds that level and :func:`available` is what the shell asks before it runs
or finds one, so an older phone answers ``inaccessible or not found`` as it would.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

__all__ = ["COMMANDS", "SINCE", "available", "command", "Program"]

Chunk = tuple[int, bytes]
Program = Callable[[Any], Generator[Chunk, None, int]]

#: name -> program (filled by the submodules' ``@command`` decorators)
COMMANDS: dict[str, Program] = {}
#: name -> the first API level that ships it (absent: every level the phone emulates)
SINCE: dict[str, int] = {}


def command(*names: str, since: int | None = None) -> Callable[[Program], Program]:
    """Register a program under one or more names (``since``: first API level with it)."""

    def deco(fn: Program) -> Program:
        for n in names:
            COMMANDS[n] = fn
            if since is not None:
                SINCE[n] = since
        return fn

    return deco


def available(name: str, api_level: int) -> Program | None:
    """The program called ``name`` on a phone of ``api_level``, or None."""
    program = COMMANDS.get(name)
    if program is None or api_level < SINCE.get(name, 0):
        return None
    return program
