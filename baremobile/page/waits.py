"""Waiting verbs of :class:`~baremobile.page.Page`: ``wait_for_text``, ``wait_for``
(appear or disappear), ``wait_stable`` and ``scroll_until``. Each polls snapshots inside
one verb, so a cancel stops the wait between dumps too.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from baremobile.android.shell_words import number
from baremobile.errors import CommandTimeout, InvalidArgument, RefNotFound
from baremobile.page.actions import DIRECTIONS, ActionVerbs
from baremobile.page.base import verb
from baremobile.page.selector import Selector, Target
from baremobile.snapshot import Snapshot
from baremobile.snapshot.tree import Node

__all__ = ["DIRECTIONS", "WaitVerbs"]


class WaitVerbs(ActionVerbs):
    """Waiting for the screen, and scrolling until something shows (see the module's docs)."""

    # -- waiting ------------------------------------------------------------------------
    @verb()
    def wait_for_text(self, text: str, *, timeout: float = 10.0, interval: float = 0.5) -> Snapshot:
        """Snapshot until ``text`` appears (case-insensitive substring); return that snapshot."""
        if not isinstance(text, str) or not text:
            raise InvalidArgument("wait_for_text needs a non-empty string")
        needle = text.casefold()
        return self._poll(
            lambda s: needle in s.text.casefold(), f"text {text!r}", timeout, interval
        )

    @verb()
    def wait_for(
        self,
        selector: Selector | Mapping[str, Any],
        *,
        timeout: float = 10.0,
        interval: float = 0.5,
        gone: bool = False,
    ) -> Node | None:
        """Snapshot until an element matches and return it — or, with ``gone=True``, until
        none does (returns None). ``CommandTimeout`` (``TIMEOUT``) if it does not happen."""
        sel = Selector.of(selector)
        if gone:
            self._poll(lambda s: len(sel.matches(s)) <= sel.index, f"{sel} to disappear",
                       timeout, interval, happened="did not disappear")
            return None
        snap = self._poll(lambda s: len(sel.matches(s)) > sel.index, str(sel), timeout, interval)
        return sel.matches(snap)[sel.index]

    @verb()
    def wait_stable(self, *, timeout: float = 10.0) -> Snapshot:
        """Snapshot until two consecutive dumps are identical."""
        return self.snapshot(stable=True, timeout=timeout)

    def _poll(self, ok: Any, what: str, timeout: float, interval: float,
              happened: str = "did not appear") -> Snapshot:
        for name, value in (("timeout", timeout), ("interval", interval)):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (0 <= value <= 3600)
            ):
                raise InvalidArgument(f"{name} must be a number of seconds (0–3600), not {value!r}")
        token = self._token
        assert token is not None
        deadline = time.monotonic() + timeout
        while True:
            # each dump may use what is left of the wait (at least 2 s: a dump takes time)
            snap = self.snapshot(timeout=max(2.0, deadline - time.monotonic()))
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
        scrolled = False
        for _ in range(limit + 1):
            found = sel.matches(snap)
            if len(found) > sel.index:
                if click_after:
                    try:
                        self.tap(sel)  # the snapshot just taken resolves it
                    except BaseException as exc:
                        if scrolled:  # the swipes were sent: the screen changed anyway
                            exc.nothing_sent = False  # type: ignore[attr-defined]
                        raise
                return found[sel.index]
            before = snap.text
            self._swipe_within(area, direction, 0.6, 400)
            scrolled = True
            snap = self.snapshot()
            if snap.text == before:  # reached the end
                break
        raise RefNotFound(
            f"nothing matching {sel} after scrolling {direction}",
            hint="the element may be elsewhere: try the other direction",
        )
