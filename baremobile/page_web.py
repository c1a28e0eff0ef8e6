"""Web content for :class:`~baremobile.page.Page`: the merged snapshot's passes and
``eval_js`` (``docs/web.md``).

A screen whose dump mentions a WebView is pruned twice: first natively, to find the
foreground app's WebViews and where they are, then — once their pages were read through
the DevTools protocol — again with the pages spliced into their WebViews. Only the tree an
agent is shown may move the page's :class:`~baremobile.snapshot.identity.RefTracker`: the
native pass numbers its refs on a :meth:`~baremobile.snapshot.identity.RefTracker.fork`,
the merged pass on the tracker itself, so web refs stay as stable as native ones (an
element keeps its number while it stays on screen; a number is never given twice). When
no page could be merged, the native pass was the one shown: the tracker adopts its fork.

The ``[web]`` layer (:mod:`baremobile.web`) is imported only when a dump mentions a WebView.
"""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument, WebUnavailable
from baremobile.snapshot import Snapshot
from baremobile.snapshot.identity import RefTracker

__all__ = ["WebVerbs", "WEB_TIMEOUT"]

#: The most a snapshot waits for its pages (the native part never waits for them).
WEB_TIMEOUT = 15.0


class WebVerbs:
    """Mixed into :class:`~baremobile.page.Page` (``transport``, ``_using``,
    ``_read_dump``)."""

    transport: Any
    allow_eval: bool
    _web_seen: bool = False

    def _web_dump(self, limits: dict[str, int], timeout: float,
                  tracker: RefTracker | None) -> Snapshot:
        """The screen with its foreground WebViews' pages merged in (see the module docs)."""
        fork = tracker.fork() if tracker is not None else None
        snap, dump = self._read_dump(limits, timeout, fork, keep=True)  # type: ignore[attr-defined]
        #: whether the last snapshot's screen showed a WebView (text beyond ASCII can only
        #: go to a page: without one, ``type`` refuses it without asking the device)
        self._web_seen = b"WebView" in dump
        if not self._web_seen:  # most screens: one byte search
            merged, notes = None, []
        else:
            from baremobile.web.merge import with_web

            merged, notes = with_web(self.transport, snap, dump, tracker=tracker,
                                     timeout=min(timeout, WEB_TIMEOUT), **limits)
        if merged is not None:
            return merged
        if tracker is not None and fork is not None:
            tracker.adopt(fork)  # the native pass is what is shown
        return snap.add_notes(notes, limits.get("max_chars"))

    def eval_js(self, expression: str, *, timeout: float = 10.0, allowed: bool = False) -> Any:
        """The value of a JavaScript expression in the page the foreground WebView (or
        Chrome's tab) shows — only when ``page.allow_eval = True`` was set (a script sees
        the page's cookies and can change it), or for this one call with ``allowed=True``
        (what the tools' ``eval`` passes where its operator allowed it; ``allow_eval`` stays
        as it is). A promise is awaited; the value comes back as JSON data. For reading
        and acting, snapshots and refs need no script."""
        if not isinstance(expression, str) or not expression.strip():
            raise InvalidArgument("eval_js needs a JavaScript expression (a non-empty string)")
        with self._using():  # type: ignore[attr-defined]
            if not (allowed is True or self.allow_eval):
                raise WebUnavailable(
                    "running JavaScript in the page is off",
                    hint="set page.allow_eval = True to allow it (docs/web.md: what a script "
                    "can do); snapshots and refs read and act on pages without it")
            from baremobile.web.reader import evaluate, webviews_on_screen

            # a dump of its own, numbered by no tracker: it only says where the WebViews are
            snap, dump = self._read_dump({}, timeout, None, keep=True)  # type: ignore[attr-defined]
            return evaluate(lambda c: self.transport.shell(c, timeout=timeout).text,
                            lambda svc: self.transport.open_stream(svc, timeout=timeout),
                            snap, webviews_on_screen(dump, snap), expression,
                            timeout=timeout)

    def _web_view_at(self, x: int, y: int, timeout: float) -> tuple[Snapshot, Any] | None:
        """(a fresh snapshot, the WebView) when ``(x, y)`` lies in one of the foreground
        app's WebViews on screen, else None (one dump, numbered by no tracker)."""
        snap, dump = self._read_dump({}, timeout, None, keep=True)  # type: ignore[attr-defined]
        if b"WebView" not in dump:
            return None
        from baremobile.web.reader import webviews_on_screen

        for view in webviews_on_screen(dump, snap):
            left, top, right, bottom = view.bounds
            if left <= x < right and top <= y < bottom:
                return snap, view
        return None

    def _web_field(self, snap: Snapshot, view: Any, timeout: float) -> Any:
        """A :class:`~baremobile.web.reader.WebField` for the page ``view`` shows (raises
        ``WebUnavailable`` at once when it cannot be reached)."""
        from baremobile.web.reader import WebField

        token = self._token  # type: ignore[attr-defined]
        return WebField(
            lambda c: self.transport.shell(c, timeout=timeout).text,
            lambda svc: self.transport.open_stream(svc, timeout=timeout),
            snap, view, timeout=timeout,
            sleep=lambda s: token.sleep(s, "waiting for the page's text field to take focus"))
