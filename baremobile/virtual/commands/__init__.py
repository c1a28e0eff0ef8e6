"""The programs of the virtual phone's shell: toybox basics and Android's tools.

Every program is a generator function taking a
:class:`~baremobile.virtual.shell.process.Proc` (argv, stdin, the phone model, cwd,
cancellation) that yields ``(fd, bytes)`` chunks and returns its exit status. Programs depend
on that process interface only, never on the interpreter. :data:`COMMANDS` maps names (as
found in ``/system/bin``) to programs; shell builtins such as ``echo``, ``cd`` or ``test``
live in :mod:`baremobile.virtual.shell.builtins` because they touch the shell's own state.

Modules: :mod:`.toybox` (option parsing, identity and process basics), :mod:`.files`,
:mod:`.text`, :mod:`.input` (``input`` and the key table), :mod:`.evdev` (``getevent``,
``sendevent``, ``uinput``),
:mod:`.activity` (``am``, ``monkey``, ``cmd``, ``svc``), :mod:`.package` (``pm``),
:mod:`.intents` (packages and intents), :mod:`.system` (``getprop``,
``settings``, ``wm``, ``dumpsys``, ``logcat`` ...), :mod:`.ui` (``uiautomator``,
``screencap``), :mod:`.surfaceflinger` (``service call SurfaceFlinger 1013``: frames drawn).
"""

from __future__ import annotations

from baremobile.virtual.commands import activity as _activity  # noqa: F401 - registers
from baremobile.virtual.commands import dumpsys as _dumpsys  # noqa: F401
from baremobile.virtual.commands import evdev as _evdev  # noqa: F401
from baremobile.virtual.commands import files as _files  # noqa: F401
from baremobile.virtual.commands import input as _input  # noqa: F401
from baremobile.virtual.commands import logcat as _logcat  # noqa: F401
from baremobile.virtual.commands import package as _package  # noqa: F401
from baremobile.virtual.commands import system as _system  # noqa: F401
from baremobile.virtual.commands import text as _text  # noqa: F401
from baremobile.virtual.commands import toybox as _toybox  # noqa: F401
from baremobile.virtual.commands import ui as _ui  # noqa: F401
from baremobile.virtual.commands.binder import binder_tail, java_exception
from baremobile.virtual.commands.registry import COMMANDS, SINCE, Program, available, command

__all__ = ["COMMANDS", "SINCE", "available", "command", "Program", "java_exception",
           "binder_tail"]
