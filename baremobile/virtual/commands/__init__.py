"""The programs of the virtual phone's shell: toybox basics and Android's tools.

Every program is a generator function taking a :class:`~baremobile.virtual.shell.Proc`
(argv, stdin, the phone model, cwd, cancellation) that yields ``(fd, bytes)`` chunks and
returns its exit status. :data:`COMMANDS` maps names (as found in ``/system/bin``) to
programs; shell builtins such as ``echo``, ``cd`` or ``test`` live in
:mod:`baremobile.virtual.shell` because they touch the shell's own state.

Modules: :mod:`.toybox` (files and text), :mod:`.input` (``input`` and the key table),
:mod:`.activity` (``am``, ``pm``, ``monkey``, ``cmd``), :mod:`.system` (``getprop``,
``settings``, ``wm``, ``dumpsys``, ``logcat`` ...), :mod:`.ui` (``uiautomator``,
``screencap``).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

__all__ = ["COMMANDS", "command", "Program", "java_exception", "binder_tail"]

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


def binder_tail(service_class: str, service_file: str, line: int, stub: str,
                stub_line: int) -> list[str]:
    """The stack frames below a binder ``onShellCommand`` (as real devices print them)."""
    return [
        "com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)",
        "android.os.ShellCommand.exec(ShellCommand.java:38)",
        f"{service_class}.onShellCommand({service_file}:{line})",
        "android.os.Binder.shellCommand(Binder.java:1068)",
        "android.os.Binder.onTransact(Binder.java:888)",
        f"{stub}.onTransact({stub.rsplit('.', 1)[-1].split('$')[0]}.java:{stub_line})",
        "android.os.Binder.execTransactInternal(Binder.java:1344)",
        "android.os.Binder.execTransact(Binder.java:1275)",
    ]


def java_exception(cmd: str | None, exception: str, frames: list[str]) -> str:
    """What ``BasicShellCommandHandler`` prints when a shell command throws."""
    lines = ["", f"Exception occurred while executing '{cmd}':", exception]
    lines += [f"\tat {f}" for f in frames]
    return "\n".join(lines) + "\n"


# register everything
from baremobile.virtual.commands import activity as _activity  # noqa: E402,F401
from baremobile.virtual.commands import input as _input  # noqa: E402,F401
from baremobile.virtual.commands import system as _system  # noqa: E402,F401
from baremobile.virtual.commands import toybox as _toybox  # noqa: E402,F401
from baremobile.virtual.commands import ui as _ui  # noqa: E402,F401
