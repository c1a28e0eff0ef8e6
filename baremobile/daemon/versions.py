"""Ordering package versions for the client/daemon handshake (a PEP 440 subset, no deps).

``1.2``, ``1.2.0``, ``1.2.0rc1``, ``1.2.0.post1``, ``0.1.0.dev0`` are understood (release
numbers, then ``a``/``b``/``rc`` pre-releases, ``.post``, ``.dev``; a local ``+…`` part is
refused). Anything else — ``unknown``, a git hash — has no order, and the handshake then
refuses rather than guess which side is newer (as AutoMobile's proxy does).
"""

from __future__ import annotations

import re

__all__ = ["compare", "numeric_compare"]

_VERSION = re.compile(
    r"^v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|b|rc|alpha|beta|c)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?post[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?\Z",
    re.IGNORECASE,
)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2}
_INF = float("inf")


#: longer version strings have no order (no real one is; int() of a 5,000-digit release
#: number would raise)
_MAX_LENGTH = 64


def _key(version: str) -> tuple[object, ...] | None:
    if not isinstance(version, str) or len(version) > _MAX_LENGTH:
        return None
    m = _VERSION.match(version.strip())
    if not m:
        return None
    release = [int(x) for x in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    pre = m["pre"]
    post, dev = m["post"], m["dev"]
    # a dev release sorts before its pre-releases and its final release
    pre_key: tuple[float, int] = (
        (_PRE[pre.lower()], int(m["pre_n"] or 0)) if pre else
        ((-_INF, 0) if dev is not None and post is None else (_INF, 0))
    )
    post_key = int(post or 0) if post is not None else -1
    dev_key = int(dev or 0) if dev is not None else _INF
    return (tuple(release), pre_key, post_key, dev_key)


def compare(a: str, b: str) -> int | None:
    """-1, 0 or 1 as ``a`` is older than, the same as, or newer than ``b``; None when
    either has no order."""
    ka, kb = _key(a), _key(b)
    if ka is None or kb is None:
        return None
    return (ka > kb) - (ka < kb)


_NUMERIC = re.compile(r"^\d+(?:\.\d+)*\Z")


def numeric_compare(a: str, b: str) -> int | None:
    """Like :func:`compare`, for the client/daemon handshake's rule (AutoMobile's): only
    plain release numbers (``1.2.3``) have an order there — a pre-release tag (``1.2.0rc1``,
    ``0.1.0.dev0``), a local part or ``unknown`` has none (None), since which side is newer
    is then ambiguous."""
    if not (isinstance(a, str) and isinstance(b, str)
            and _NUMERIC.match(a.strip()) and _NUMERIC.match(b.strip())):
        return None
    return compare(a, b)
