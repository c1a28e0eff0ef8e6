"""``df -k``: the sizes of mounted file systems (toybox ``df.c``: a header ``Filesystem
1K-blocks Used Available Use% Mounted on``, then one row per path given, in order; toolbox's
``df`` on Android 6 and older prints ``Filesystem Size Used Free Blksize`` with sizes like
``1.9G`` — its rows do not parse here and are skipped)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["parse_df"]

_DF = re.compile(r"^(?P<fs>\S+)\s+(?P<size>\d+)\s+(?P<used>\d+)\s+(?P<avail>\d+)\s+"
                 r"(?P<pct>\d+)%\s+(?P<mount>/.*)$")


def parse_df(text: str) -> list[dict[str, Any]]:
    """``df -k`` rows: ``filesystem``, ``total_bytes``, ``used_bytes``,
    ``available_bytes``, ``mount`` (the header and unparsable lines are skipped)."""
    rows = []
    for line in text.splitlines():
        m = _DF.match(line.strip())
        if m:
            rows.append({"filesystem": m["fs"], "total_bytes": int(m["size"]) * 1024,
                         "used_bytes": int(m["used"]) * 1024,
                         "available_bytes": int(m["avail"]) * 1024, "mount": m["mount"]})
    return rows
