"""The table of programs on the virtual phone's ``/system/bin``: :data:`COMMANDS`, filled by
the ``@command`` decorators of the modules beside this one."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

__all__ = ["COMMANDS", "command", "Program"]

Chunk = tuple[int, bytes]
Program = Callable[[Any], Generator[Chunk, None, int]]

#: name -> program (filled by the submodules' ``@command`` decorators)
COMMANDS: dict[str, Program] = {}


def command(*names: str) -> Callable[[Program], Program]:
    """Register a program under one or more names."""

    def deco(fn: Program) -> Program:
        for n in names:
            COMMANDS[n] = fn
        return fn

    return deco
