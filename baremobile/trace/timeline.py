"""A trace's moves in order: each thing an acting step did to the screen, the screen it was
done on and the screen read after it — what the replay (:mod:`.scenario`) turns into rules
and the navigation graph (:mod:`.graph`) into edges.

A touching verb (``tap``, ``double_tap``, ``drag``, ``pinch``, ``gesture``, ``swipe``,
``scroll``, ``scroll_until`` …) makes one move per touch it sent (``step["sent"]``); the
dumps it read are placed between them by ``step["sent_before"]`` (how many touches had been
sent when each was read: a ``scroll_until`` looks after each scroll). Any other acting verb
(``type``, ``press``, ``launch``, ``intent`` …) is one move, after the dumps it read (a
field read before typing is the screen it typed on). A trace of format 1 (no ``sent``) has
one move per acting step, as it had.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from baremobile.trace.format import Trace

__all__ = ["Move", "TOUCHING", "moves"]

#: Verbs whose every touch is a move of its own.
TOUCHING = frozenset({"tap", "long_press", "tap_xy", "double_tap", "drag", "pinch", "gesture",
                      "swipe", "scroll", "scroll_until"})


@dataclass
class Move:
    """One move: ``step`` (its record), ``sent`` (the touch, or None when the whole step is
    the move), ``before`` (the dump of the screen it was done on; None when the screen was
    not read since the move before — it is what that move led to) and ``after`` (the last
    dump read after it and before the next move; None when none was)."""

    step: dict[str, Any]
    sent: dict[str, Any] | None
    before: str | None
    after: str | None = None


def _events(trace: Trace) -> Iterator[tuple[str | None, dict[str, Any] | None,
                                             dict[str, Any] | None]]:
    """(dump, None, None) for each dump read, (None, step, touch) for each move."""
    if trace.meta.get("start_dump"):
        yield trace.meta["start_dump"], None, None
    for s in trace.steps:
        dumps = list(zip(s.get("dumps") or [], s.get("sent_before") or [], strict=False))
        sent = s.get("sent") or []
        if s.get("acts") and s.get("verb") in TOUCHING and sent:
            for k, touch in enumerate(sent):
                for d, _ in (x for x in dumps if x[1] == k):
                    yield d, None, None
                yield None, s, touch
            for d, _ in (x for x in dumps if x[1] >= len(sent)):
                yield d, None, None
        elif s.get("acts") and s.get("verb") == "scroll_until":  # format 1: looks after
            yield None, s, None
            for d, _ in dumps:
                yield d, None, None
        else:
            for d, _ in dumps:
                yield d, None, None
            if s.get("acts"):
                yield None, s, None
    if trace.meta.get("end_dump"):
        yield trace.meta["end_dump"], None, None


def moves(trace: Trace) -> list[Move]:
    """Every move of ``trace`` in order (see the module's docs)."""
    out: list[Move] = []
    last: str | None = None  # the last dump read
    looked = True  # whether a dump was read since the last move
    for dump, step, touch in _events(trace):
        if dump is not None:
            last, looked = dump, True
            if out:
                out[-1].after = dump
            continue
        assert step is not None
        out.append(Move(step, touch, last if looked else None))
        looked = False
    return out
