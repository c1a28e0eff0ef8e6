"""``am start``'s answer (``ActivityManagerShellCommand.runStartActivity``; ``Am.java``
before Android 8 — ``cmd activity start-activity`` is the same code).

Success prints ``Starting: Intent { … }`` and, with ``-W``, ``Status: ok``,
``LaunchState: COLD|WARM|HOT``, ``Activity: …``, ``TotalTime: N``, ``WaitTime: N``,
``Complete``. A ``Warning: Activity not started, its current task has been brought to the
front`` (or ``…intent has been delivered to currently running top-most instance``) is not a
failure: the activity is in front. Failures print ``Error type N`` (``START_*`` result
codes: 3 = class not found) and then the line that says why — ``Error: Activity class {…}
does not exist.``, ``Error: Activity not started, unable to resolve Intent { … }``,
``java.lang.SecurityException: Permission Denial: …`` — on stdout or stderr, with exit
status 0 on many versions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.android.text import lines

__all__ = ["StartResult", "parse_am_start"]


@dataclass(frozen=True)
class StartResult:
    """What ``am start`` said."""

    ok: bool
    error: str | None = None
    """the line that says why it failed (not ``Error type N``)"""
    warning: str | None = None
    launch_state: str | None = None
    total_time_ms: int | None = None
    wait_time_ms: int | None = None


_ERROR_TYPE = re.compile(r"^Error type \d+\s*$")


def parse_am_start(data: bytes | str) -> StartResult:
    """Read ``am start``'s output (stdout and stderr together)."""
    text = [ln.strip() for ln in lines(data) if ln.strip()]
    errors = [ln for ln in text if (ln.startswith("Error") and not _ERROR_TYPE.match(ln))
              or re.match(r"^(java\.lang\.|android\.\w+\.)?\w*Exception\b", ln)
              or ln.startswith("Exception occurred")]
    typed = [ln for ln in text if _ERROR_TYPE.match(ln)]
    warning = next((ln for ln in text if ln.startswith("Warning:")), None)
    fields = dict(re.findall(r"^(LaunchState|TotalTime|WaitTime|Status): (\S+)$",
                             "\n".join(text), re.M))

    def num(key: str) -> int | None:
        v = fields.get(key, "")
        return int(v) if v.isdigit() else None

    if errors or typed or fields.get("Status", "ok") != "ok":
        why = errors[0] if errors else (typed[0] if typed else f"Status: {fields['Status']}")
        if why.startswith("Error: "):
            why = why[len("Error: "):]
        return StartResult(False, why, warning)
    return StartResult(True, None, warning, fields.get("LaunchState"), num("TotalTime"),
                       num("WaitTime"))
