"""The closest known word to a mistyped one — one helper for every "did you mean" baremobile
says: a CLI command (``baremobile snapshto``), a device spec (``connect("virtaul")``), a key
name (``press("bakc")``).

No I/O, standard library only (``difflib``), so the CLI's fast path and the sans-I/O layers
may import it.

>>> closest("virtaul", ["auto", "virtual", "usb"])
'virtual'
>>> did_you_mean("bakc", ["back", "home"])
"; did you mean 'back'?"
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]

#: how alike two words must be (``difflib``'s ratio) for one to be offered for the other
CUTOFF = 0.6


def _norm(word: str) -> str:
    return word.strip().lower().replace("_", "-")


def closest(word: str, known: Iterable[str], *, cutoff: float = CUTOFF) -> str | None:
    """The known word closest to ``word`` (case, ``_``/``-`` ignored), or the one known word
    it is a prefix of (or that, four letters or more, is a prefix of it); None when nothing
    is close or it is ambiguous. ``word`` itself, when known, is not a suggestion (the same
    word in other case is)."""
    words = list(dict.fromkeys(known))
    if word in words:
        return None
    by_norm = {_norm(k): k for k in words}
    want = _norm(word)
    if not want:
        return None
    if want in by_norm:
        return by_norm[want]
    close = difflib.get_close_matches(want, list(by_norm), n=1, cutoff=cutoff)
    if close:
        return by_norm[close[0]]
    starts = [k for n, k in by_norm.items()
              if n.startswith(want) or (len(n) >= 4 and want.startswith(n))]
    return starts[0] if len(starts) == 1 else None


def did_you_mean(word: str, known: Iterable[str], *, cutoff: float = CUTOFF,
                 shown: str = "{}") -> str:
    """``"; did you mean 'X'?"`` for the closest known word (``shown`` formats it: ``"baremobile
    {}"``), or ``""`` when none is close."""
    found = closest(word, known, cutoff=cutoff)
    return f"; did you mean {shown.format(found)!r}?" if found is not None else ""
