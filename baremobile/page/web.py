"""Web content verbs of :class:`~baremobile.page.Page` (``docs/web.md``): ``eval_js``, and
typing text beyond ASCII into a web page's field (DevTools' ``Input.insertText``). The
merged snapshot itself is :meth:`~baremobile.page.base.PageBase._web_dump`.

The ``[web]`` layer (:mod:`baremobile.web`) is imported only when a dump mentions a WebView.
"""

from __future__ import annotations

from typing import Any

from baremobile.android.keycodes import KEYCODES
from baremobile.errors import InvalidArgument, UnsupportedText, WebUnavailable
from baremobile.page.base import WEB_TIMEOUT, PageBase
from baremobile.page.selector import Target
from baremobile.page.steps import verb
from baremobile.snapshot import Snapshot
from baremobile.transport import DUMP_TIMEOUT

__all__ = ["WebVerbs", "WEB_TIMEOUT"]


class WebVerbs(PageBase):
    """``eval_js`` and the web side of ``type``."""

    @verb(acts=True, waits="timeout")
    def eval_js(self, expression: str, *, timeout: float = 10.0, allowed: bool = False) -> Any:
        """The value of a JavaScript expression in the page the foreground WebView (or
        Chrome's tab) shows — only when ``page.allow_eval = True`` was set (a script sees
        the page's cookies and can change it), or for this one call with ``allowed=True``
        (what the tools' ``eval`` passes where its operator allowed it; ``allow_eval`` stays
        as it is). A promise is awaited; the value comes back as JSON data. For reading
        and acting, snapshots and refs need no script."""
        if not isinstance(expression, str) or not expression.strip():
            raise InvalidArgument("eval_js needs a JavaScript expression (a non-empty string)")
        if not (allowed is True or self.allow_eval):
            raise WebUnavailable(
                "running JavaScript in the page is off",
                hint="set page.allow_eval = True to allow it (docs/web.md: what a script "
                "can do); snapshots and refs read and act on pages without it")
        from baremobile.web.reader import evaluate, webviews_on_screen

        # a dump of its own, numbered by no tracker: it only says where the WebViews are
        snap, dump = self._read_dump({}, timeout, None, keep=True)
        return evaluate(lambda c: self.transport.shell(c, timeout=timeout).text,
                        lambda svc: self.transport.open_stream(svc, timeout=timeout),
                        snap, webviews_on_screen(dump, snap), expression,
                        timeout=timeout)

    def _type_into_page(self, target: Target, text: str, unsupported: UnsupportedText, *,
                        clear: bool, submit: bool) -> None:
        """Text ``input text`` cannot type, into a field of a web page (a debuggable WebView
        or Chrome): the device's tap focuses the field (unless the snapshot shows it
        focused), DevTools' ``Input.insertText`` puts the text in. Anywhere else
        ``unsupported`` is raised, nothing sent."""
        _, _, node = self._target(target)
        x, y, display, _node = self._touch_point(target)
        found = self._web_view_at(x, y, DUMP_TIMEOUT)
        if found is None:
            raise unsupported
        try:
            field = self._web_field(*found, timeout=WEB_TIMEOUT)
            if node is None or not node.focused:  # as natively: a focused field keeps its caret
                self.device.run_all([self.device.tap_argv(x, y, display=display)])
            field.type(text, clear=clear)
        except WebUnavailable as exc:
            raise UnsupportedText(
                unsupported.characters,
                hint=f"{exc.message}: text beyond ASCII reaches a web page's focused field "
                "only (DevTools); native fields take printable ASCII") from None
        if submit:
            self.device.run_all([["input", "keyevent", str(KEYCODES["ENTER"])]])

    def _web_view_at(self, x: int, y: int, timeout: float) -> tuple[Snapshot, Any] | None:
        """(a fresh snapshot, the WebView) when ``(x, y)`` lies in one of the foreground
        app's WebViews on screen, else None (one dump, numbered by no tracker)."""
        snap, dump = self._read_dump({}, timeout, None, keep=True)
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

        token = self._token
        assert token is not None  # inside a verb

        return WebField(
            lambda c: self.transport.shell(c, timeout=timeout).text,
            lambda svc: self.transport.open_stream(svc, timeout=timeout),
            snap, view, timeout=timeout,
            sleep=lambda s: token.sleep(s, "waiting for the page's text field to take focus"))
