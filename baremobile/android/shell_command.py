"""A Java exception a shell command printed: what went wrong, not the line announcing it.

``pm``, ``am``, ``cmd …`` run in the system server (``Binder.onShellCommand``) or, before
Android 7, in an ``app_process`` of their own (``Pm.java``, ``Am.java``); when the work
throws, what they print depends on the release, and the line that says what went wrong is
never the first:

* **Android 12+** — ``BasicShellCommandHandler.exec`` (``frameworks/libs/modules-utils``;
  ``android.os.BasicShellCommandHandler`` in Android 11) catches any ``Throwable``, prints a
  blank line, ``Exception occurred while executing 'CMD':`` and the stack trace, whose first
  line is the exception (``Throwable.toString()``)::

      Exception occurred while executing 'grant':
      java.lang.IllegalArgumentException: Unknown package: com.nope
          at com.android.server.pm.permission.PermissionManagerServiceImpl…  (a tab first)

* **Android 8–10** — ``android.os.ShellCommand.exec``: the same with
  ``Exception occurred while executing:`` (no command), and for a ``SecurityException``
  ``Security exception: MESSAGE``, a blank line, then the trace;
* **Android 7** — ``ShellCommand.exec`` as first written (2015) said
  ``Exception occurred while dumping:``;
* **Android ≤ 6** (and the commands ``Pm.java`` still ran itself on 7) — the command catches
  and prints one line: ``Bad argument: java.lang.IllegalArgumentException: …`` (then the
  usage), ``Operation not allowed: java.lang.SecurityException: …`` (``runGrantRevoke
  Permission``), ``Error: java.lang.…: …`` (``Pm.main``'s last resort).

:func:`parse_exception` finds the exception in any of these (no I/O): its class and its
message. A caller reports the message (``Unknown package: com.nope``) — the reason — and
never ``Exception occurred while executing:``, which only says that something did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.android.text import lines

__all__ = ["JavaException", "parse_exception"]

# Throwable.toString(): the class's binary name, then ": " and the message when it has one
_THROWABLE = r"(?P<name>(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error))(?::\s?(?P<msg>.*))?"
_LINE = re.compile(rf"^{_THROWABLE}$")
# what the commands print before a caught exception's toString() on one line
_LEAD = re.compile(rf"^(?:Bad argument|Operation not allowed|Error|Exception):\s+{_THROWABLE}$")
_SECURITY = re.compile(r"^Security exception:\s?(?P<msg>.*)$")
_ANNOUNCED = re.compile(r"^Exception occurred while (?:executing|dumping)\b")


@dataclass(frozen=True)
class JavaException:
    """An exception a shell command printed."""

    #: the class, as printed (``java.lang.IllegalArgumentException``)
    name: str
    #: its message (``""`` when it has none)
    message: str = ""

    @property
    def short_name(self) -> str:
        """The class without its package (``IllegalArgumentException``)."""
        return self.name.rsplit(".", 1)[-1]

    def __str__(self) -> str:
        return f"{self.name}: {self.message}" if self.message else self.name


def parse_exception(data: bytes | str) -> JavaException | None:
    """The exception in a command's output (see the module's docs), or None.

    The first one wins: a ``Caused by:`` further down is the cause of the one reported, and
    stack frames (``\\tat …``) are never read as one."""
    text = [ln.strip() for ln in lines(data)]
    for i, line in enumerate(text):
        if not line or line.startswith("at ") or line.startswith("Caused by:"):
            continue
        m = _LEAD.match(line) or _LINE.match(line)
        if m:
            return JavaException(m.group("name"), (m.group("msg") or "").strip())
        s = _SECURITY.match(line)
        if s:
            return JavaException("java.lang.SecurityException", s.group("msg").strip())
        if _ANNOUNCED.match(line):  # the exception is on the next line that is not blank
            rest = next((ln for ln in text[i + 1:] if ln), "")
            m = _LINE.match(rest)
            if m:
                return JavaException(m.group("name"), (m.group("msg") or "").strip())
    return None
