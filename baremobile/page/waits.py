"""Waiting verbs of :class:`~baremobile.page.Page`: ``wait`` (a fixed time),
``wait_for_text``, ``wait_for`` (appear or disappear), ``wait_stable``, ``wait_idle`` (with
a change tolerance) and ``scroll_until``. Each polls snapshots inside one verb, so a cancel
stops the wait between dumps too. ``fail=False`` makes a wait that runs out answer "not
found" (None, or :class:`Idle` with ``idle`` false) instead of raising ``TIMEOUT``.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from baremobile.android.shell_words import number
from baremobile.errors import CommandTimeout, InvalidArgument, RefNotFound
from baremobile.page.actions import DIRECTIONS, ActionVerbs
from baremobile.page.selector import Selector, Target
from baremobile.page.steps import verb
from baremobile.snapshot import Snapshot
from baremobile.snapshot.tree import Node
from baremobile.transport.progress import Progress, ProgressCallback, shown

__all__ = ["DIRECTIONS", "Idle", "WaitVerbs", "similarity"]


@dataclass(frozen=True)
class Idle:
    """What :meth:`WaitVerbs.wait_idle` saw: the last ``snapshot``, the ``similarity`` (%)
    of the last two, whether the screen went ``idle`` (reached the threshold), the seconds
    it took and how many snapshots were taken."""

    snapshot: Snapshot
    similarity: float
    idle: bool
    elapsed: float
    attempts: int


def report_to(told: ProgressCallback | None, done: float, total: float) -> None:
    """Tell a wait's ``progress`` callback how long it has waited (what it raises is
    ignored: a display must not end the wait)."""
    if told is not None:
        with contextlib.suppress(Exception):  # the caller's display failed, not the wait
            told(done, float(total))


def similarity(a: str, b: str) -> float:
    """How alike two snapshot texts are, in percent: the share of their lines that match
    in order (``difflib``'s ratio over lines; 100 = identical)."""
    if a == b:
        return 100.0
    return round(100.0 * difflib.SequenceMatcher(None, a.splitlines(), b.splitlines(),
                                                 autojunk=False).ratio(), 1)


class WaitVerbs(ActionVerbs):
    """Waiting for the screen, and scrolling until something shows (see the module's docs)."""

    # -- waiting ------------------------------------------------------------------------
    @verb(waits="seconds")
    def wait(self, seconds: float, *, progress: Progress | None = None) -> None:
        """Do nothing for ``seconds`` (0–600): an app loading, an animation, pacing. The
        page's cancel stops it at once. ``progress``: ``progress(waited_s, seconds)`` about
        twice a second, or ``True`` for a bar."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
                not math.isfinite(seconds) or not 0 <= seconds <= 600:
            raise InvalidArgument(f"seconds must be a number from 0 to 600, not {seconds!r}")
        token = self._token
        assert token is not None
        with shown(progress, f"waiting {seconds:g} s", "s") as told:
            if told is None:
                if seconds:
                    token.sleep(float(seconds), f"waiting {seconds:g} s")
                return
            started = time.monotonic()
            while (left := float(seconds) - (time.monotonic() - started)) > 0:
                token.sleep(min(0.5, left), f"waiting {seconds:g} s")
                report_to(told, min(float(seconds), time.monotonic() - started), seconds)
            report_to(told, float(seconds), seconds)

    @verb(waits="timeout")
    def wait_for_text(self, text: str, *, timeout: float = 10.0, interval: float = 0.5,
                      fail: bool = True, progress: Progress | None = None) -> Snapshot | None:
        """Snapshot until ``text`` appears (case-insensitive substring); return that snapshot
        (``fail=False``: None when it does not appear in time, instead of ``TIMEOUT``).
        ``progress``: ``progress(waited_s, timeout)`` after each snapshot, or ``True`` for a
        bar."""
        if not isinstance(text, str) or not text:
            raise InvalidArgument("wait_for_text needs a non-empty string")
        needle = text.casefold()
        try:
            return self._poll(
                lambda s: needle in s.text.casefold(), f"text {text!r}", timeout, interval,
                progress=progress,
            )
        except CommandTimeout:
            if fail:
                raise
            return None

    @verb(waits="timeout")
    def wait_for(
        self,
        selector: Selector | Mapping[str, Any],
        *,
        timeout: float = 10.0,
        interval: float = 0.5,
        gone: bool = False,
        fail: bool = True,
        progress: Progress | None = None,
    ) -> Node | None:
        """Snapshot until an element matches and return it — or, with ``gone=True``, until
        none does (returns None). ``CommandTimeout`` (``TIMEOUT``) if it does not happen;
        with ``fail=False`` instead: None (nothing appeared), or for ``gone`` the element
        still there. ``progress``: ``progress(waited_s, timeout)`` after each snapshot, or
        ``True`` for a bar."""
        sel = Selector.of(selector)
        try:
            if gone:
                self._poll(lambda s: len(sel.matches(s)) <= sel.position,
                           f"{sel} to disappear", timeout, interval,
                           happened="did not disappear", progress=progress)
                return None
            snap = self._poll(lambda s: len(sel.matches(s)) > sel.position, str(sel), timeout,
                              interval, progress=progress)
        except CommandTimeout:
            if fail:
                raise
            last = self._last
            found = sel.matches(last) if last is not None else []
            return found[sel.position] if gone and len(found) > sel.position else None
        return sel.matches(snap)[sel.position]

    @verb(waits="timeout")
    def wait_stable(self, *, timeout: float = 10.0) -> Snapshot:
        """Snapshot until two consecutive dumps are identical."""
        return self.snapshot(stable=True, timeout=timeout)

    @verb(waits="timeout")
    def wait_idle(self, *, timeout: float = 10.0, match_percentage: float = 100.0,
                  interval: float = 0.5, fail: bool = True) -> Idle:
        """Snapshot every ``interval`` seconds until two in a row are at least
        ``match_percentage`` % alike (:func:`similarity`; 100: identical, lower tolerates a
        ticking clock or a progress bar). ``TIMEOUT`` when the screen keeps changing, or
        with ``fail=False`` an :class:`Idle` whose ``idle`` is false."""
        if isinstance(match_percentage, bool) or \
                not isinstance(match_percentage, (int, float)) or \
                not 0 <= match_percentage <= 100:
            raise InvalidArgument(f"match_percentage must be 0–100, not {match_percentage!r}")
        started = time.monotonic()
        last: list[str] = []
        score = [0.0]
        attempts = [0]

        def settled(snap: Snapshot) -> bool:
            attempts[0] += 1
            text = snap.full_text
            if last:
                score[0] = similarity(last[0], text)
            last[:] = [text]
            return attempts[0] > 1 and score[0] >= match_percentage

        try:
            snap = self._poll(settled, "an idle screen", timeout, interval,
                              happened="did not come")
        except CommandTimeout:
            if fail or self._last is None:
                raise CommandTimeout(
                    f"the screen did not go idle within {timeout:g} s: the last two "
                    f"snapshots were {score[0]:g}% alike, {match_percentage:g}% wanted",
                    hint="wait longer, or lower match_percentage to tolerate small changes "
                         "(a clock, a progress bar)") from None
            return Idle(self._last, score[0], False, time.monotonic() - started, attempts[0])
        return Idle(snap, score[0], True, time.monotonic() - started, attempts[0])

    def _poll(self, ok: Any, what: str, timeout: float, interval: float,
              happened: str = "did not appear", progress: Progress | None = None
              ) -> Snapshot:
        with shown(progress, f"waiting for {what}", "s") as told:
            return self._polled(ok, what, timeout, interval, happened, told)

    def _polled(self, ok: Any, what: str, timeout: float, interval: float, happened: str,
                told: ProgressCallback | None) -> Snapshot:
        for name, value in (("timeout", timeout), ("interval", interval)):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (0 <= value <= 3600)
            ):
                raise InvalidArgument(f"{name} must be a number of seconds (0–3600), not {value!r}")
        token = self._token
        assert token is not None
        started = time.monotonic()
        deadline = started + timeout
        while True:
            # each dump may use what is left of the wait (at least 2 s: a dump takes time)
            snap = self.snapshot(timeout=max(2.0, deadline - time.monotonic()))
            report_to(told, min(float(timeout), time.monotonic() - started), timeout)
            if ok(snap):
                return snap
            if time.monotonic() + interval > deadline:
                raise CommandTimeout(
                    f"{what} {happened} within {timeout:g} s",
                    hint="check the last snapshot ({last_snapshot}); "
                    "the screen may need scrolling or a different selector",
                )
            token.sleep(interval, f"waiting for {what}")

    @verb(acts=True)
    def scroll_until(
        self,
        selector: Selector | Mapping[str, Any],
        target: Target | None = None,
        *,
        direction: str = "down",
        max_scrolls: int = 10,
        click_after: bool = False,
    ) -> Node:
        """Scroll ``target`` (or the screen) until an element matches; return it (tapped
        first with ``click_after=True``)."""
        sel = Selector.of(selector)
        limit = number("max_scrolls", max_scrolls, minimum=0, maximum=200)
        if direction not in DIRECTIONS:
            raise InvalidArgument(
                f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}"
            )
        snap = self.snapshot()
        area = self._scroll_area(target)  # resolved once: the element may scroll away
        for _ in range(limit + 1):
            found = sel.matches(snap)
            if len(found) > sel.position:
                if click_after:
                    self.tap(sel)  # the snapshot just taken resolves it
                return found[sel.position]
            before = snap.text
            self._swipe_within(area, direction, 0.6, 400)
            snap = self.snapshot()
            if snap.text == before:  # reached the end
                break
        raise RefNotFound(
            f"nothing matching {sel} after scrolling {direction}",
            hint="the element may be elsewhere: try the other direction",
        )
