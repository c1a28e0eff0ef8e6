"""``run-as``'s refusals: why it would not run a command as an app.

``run-as PACKAGE CMD`` runs ``CMD`` as the app's uid in its data directory — or prints one
line on stderr and exits non-zero. The line's wording changed once, with the rewrite in C++:

* **Android 1.6–7.1** (API ≤ 25: ``system/core/run-as/run-as.c``, its ``panic()`` printing
  ``"run-as: "`` and the message, then ``exit(errno ? -errno : 1)`` — 254 for an unknown
  package, whose lookup sets ``ENOENT``; the file is ``run-as.c`` up to the tags
  ``android-7.1.2_r*``)::

      run-as: Package 'com.example' is unknown
      run-as: Package 'com.example' is not an application
      run-as: Package 'com.example' is not debuggable
      run-as: Package 'com.example' has corrupt installation
      run-as: Permission denied
      run-as: Could not cd to package's data directory: No such file or directory

* **Android 8+** (API 26+: ``run-as.cpp``, first commit 0c8bf5798 "Switch run-as to
  libpackagelistparser", 2016; bionic's ``error(1, …)`` prints ``run-as: `` and the message,
  exit status 1)::

      run-as: unknown package: com.example
      run-as: package not an application: com.example
      run-as: package not debuggable: com.example
      run-as: package has corrupt installation: com.example     (8.x)
      run-as: run-as is disabled from the kernel commandline     (9+, ef62f3fcb)
      run-as: couldn't chdir to package's data directory '…': …

:func:`parse_run_as` reads either into a :class:`RunAsRefusal` (no I/O); a command that ran
— whatever it printed — is not a refusal. The history is ``git log -- run-as`` in
``platform/system/core`` (``run-as.c`` → ``run-as.cpp``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.android.text import lines

__all__ = ["REASONS", "RunAsRefusal", "parse_run_as"]

#: what a refusal says, whichever Android wrote it
REASONS = ("unknown", "not_debuggable", "not_application", "corrupt", "disabled", "other")

_PREFIX = "run-as: "
# Android ≤ 7.1: "Package 'PKG' is unknown" …
_OLD = re.compile(r"^Package '(?P<pkg>[^']*)' (?P<what>is unknown|is not an application|"
                  r"is not debuggable|has corrupt installation)\s*$")
# Android 8+: "unknown package: PKG" …
_NEW = re.compile(r"^(?P<what>unknown package|package not an application|"
                  r"package not debuggable|package has corrupt installation|"
                  r"package has non-application uid): (?P<pkg>\S+)\s*$")
_REASON = {"is unknown": "unknown", "unknown package": "unknown",
           "is not an application": "not_application",
           "package not an application": "not_application",
           "package has non-application uid": "not_application",
           "is not debuggable": "not_debuggable", "package not debuggable": "not_debuggable",
           "has corrupt installation": "corrupt",
           "package has corrupt installation": "corrupt"}


@dataclass(frozen=True)
class RunAsRefusal:
    """Why ``run-as`` refused (see the module's docs)."""

    #: one of :data:`REASONS`
    reason: str
    #: the line as printed, without ``run-as: `` (``Package 'x' is unknown``)
    line: str
    #: the package the line names (None when it names none)
    package: str | None = None
    #: the wording of Android ≤ 7.1 (``run-as.c``)
    old: bool = False


def parse_run_as(data: bytes | str) -> RunAsRefusal | None:
    """The refusal ``run-as`` printed, or None when it printed none (the command ran).

    Only a line that starts with ``run-as: `` counts (what the command itself prints never
    does); the first one is the refusal — the old usage message goes on over two lines."""
    for raw in lines(data):
        line = raw.strip()
        if not line.startswith(_PREFIX.strip()):
            continue
        said = line[len(_PREFIX):].strip() if line.startswith(_PREFIX) else ""
        if not said:
            continue
        m = _OLD.match(said)
        if m:
            return RunAsRefusal(_REASON[m.group("what")], said, m.group("pkg"), old=True)
        m = _NEW.match(said)
        if m:
            return RunAsRefusal(_REASON[m.group("what")], said, m.group("pkg"))
        if said.startswith("run-as is disabled"):
            return RunAsRefusal("disabled", said)
        old = said[:1].isupper()  # run-as.c's messages begin with a capital
        return RunAsRefusal("other", said, old=old)
    return None
