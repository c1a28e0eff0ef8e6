"""Reading the web content on screen, from a native snapshot to the pages' nodes.

For the foreground app's WebViews on screen (the innermost ``…WebView`` nodes of the
native snapshot, in the foreground package):

1. **discover** the DevTools sockets (one shell round trip, :mod:`.discovery`) and keep the
   foreground package's;
2. **list** the socket's pages (``GET /json/list`` on a ``localabstract:`` stream);
3. **pick** the page each WebView shows: a WebView target's ``description`` says whether it
   is attached and visible and where it is on screen (``AwDevToolsManagerDelegate``), so
   the visible one nearest the node's bounds; Chrome's tabs have no description, so each
   page (the one titled like the WebView node first) is asked for
   ``document.visibilityState`` until the visible tab answers;
4. **capture** it (:mod:`.capture`) on a WebSocket over another ``localabstract:`` stream,
   and build its nodes for the WebView's bounds (:mod:`.tree`).

Failures are never raised: each becomes a one-line note (``web: …``) and the WebView keeps
its native content.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from baremobile.errors import BaremobileError, Cancelled, WebError, WebUnavailable
from baremobile.safetext import loads
from baremobile.snapshot.layout import attr
from baremobile.snapshot.refs import parse_bounds
from baremobile.snapshot.result import Snapshot
from baremobile.web.discovery import DevToolsSocket, discover

if TYPE_CHECKING:
    from baremobile.snapshot.prune import PruneState

__all__ = [
    "WebView", "WebReading", "WebViewSpotter", "webviews_on_screen", "read_web",
    "visible_page", "evaluate", "pick_webview_target", "WebField",
]

log = logging.getLogger("baremobile.web")

Bounds = tuple[int, int, int, int]
Opener = Callable[[str], AbstractContextManager[Any]]


@dataclass(frozen=True)
class WebView:
    """A WebView node of the native dump: how to find it again, and where it is."""

    key: tuple[str, str, str, int]
    """(package, class, bounds attribute, occurrence): the node in the dump"""
    package: str
    bounds: Bounds
    """its bounds attribute, device px"""
    title: str
    """what the node shows (a shallow WebView shows the page title)"""


@dataclass
class WebReading:
    """What was read: nodes per WebView (by :attr:`WebView.key`), notes, timings."""

    nodes: dict[tuple[str, str, str, int], list[Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)
    """the page targets read (their ``/json/list`` entries)"""
    captures: list[Any] = field(default_factory=list)
    """the raw protocol answers (:class:`~baremobile.web.capture.PageCapture`) read"""


class WebViewSpotter:
    """Finds the dump's WebView nodes while a pruner reads it (``StreamPruner(splice=…)``):
    the pruned tree may have dropped them (an untitled shallow WebView says nothing)."""

    def __init__(self) -> None:
        #: per WebView of the dump: key, package, bounds, title, innermost, visible-to-user
        self.found: list[dict[str, Any]] = []

    def splice(self, state: PruneState) -> tuple[Callable[[str, list[str]], None],
                                          Callable[[str], None]]:
        seen: dict[tuple[str, str, str], int] = {}
        stack: list[int] = []  # per open <node>: its index in found, or -1
        found = self.found

        def start(name: str, a: list[str]) -> None:
            if name != "node":
                state.start(name, a)
                return
            cls = attr(a, "class") or ""
            if not cls.endswith("WebView"):
                state.start(name, a)
                stack.append(-1)
                return
            base = (attr(a, "package") or "", cls, attr(a, "bounds") or "")
            title = attr(a, "text") or attr(a, "content-desc") or ""
            visible = attr(a, "visible-to-user") != "false"
            state.start(name, a)
            index = seen.get(base, 0)
            seen[base] = index + 1
            for j in stack:
                if j >= 0:
                    found[j]["inner"] = False  # a WebView inside: not the innermost
            found.append({"key": (*base, index), "package": base[0],
                          "bounds": parse_bounds(base[2]), "inner": True, "title": title,
                          "visible": visible})
            stack.append(len(found) - 1)

        def end(name: str) -> None:
            if name == "node" and stack:
                stack.pop()
            state.end(name)

        return start, end

    def views(self, package: str, screen: tuple[int, int]) -> list[WebView]:
        """The innermost, visible WebViews of ``package`` on a ``screen``-sized display."""
        out = []
        for f in self.found:
            b = f["bounds"]
            on_screen = b[2] > max(b[0], 0) and b[3] > max(b[1], 0) and (
                not screen[0] or (b[0] < screen[0] and b[1] < screen[1]))
            if f["inner"] and f["visible"] and on_screen and (
                    not package or f["package"] == package):
                out.append(WebView(f["key"], f["package"], b, f["title"]))
        return out


def webviews_on_screen(dump: bytes, snap: Snapshot) -> list[WebView]:
    """The foreground app's innermost WebViews on screen in ``dump`` (``snap`` is its
    snapshot), in document order; a dump without one costs one byte search."""
    if b"WebView" not in dump:
        return []
    from baremobile.snapshot.stream import StreamPruner

    spotter = WebViewSpotter()
    pruner = StreamPruner(splice=spotter.splice)
    pruner.feed(dump)
    pruner.close()
    return spotter.views(snap.package, (snap.width, snap.height))


def _overlap(a: tuple[float, float, float, float], b: Bounds) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    union = ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h)
    return w * h / union if union else 0.0


def pick_webview_target(targets: list[dict[str, Any]], view: WebView) -> dict[str, Any] | None:
    """The attached, visible WebView page whose on-screen rect best matches ``view``."""
    best, score = None, -1.0
    for t in targets:
        described = t.get("description")
        try:
            d = loads(described) if isinstance(described, str) and described else {}
        except ValueError:
            d = {}
        if not isinstance(d, dict):
            d = {}
        if d and (not d.get("attached", True) or not d.get("visible", True) or d.get("empty")):
            continue
        rect: tuple[float, float, float, float] = view.bounds
        place = [d.get(k) for k in ("screenX", "screenY", "width", "height")]
        nums = [v for v in place if isinstance(v, (int, float)) and not isinstance(v, bool)
                and abs(v) < 1e9]
        if len(nums) == len(place):
            x, y, w, h = nums
            rect = (x, y, x + w, y + h)
        s = _overlap(rect, view.bounds)
        if s > score:
            best, score = t, s
    return best


def read_web(shell: Callable[[str], str], open_stream: Opener, snap: Snapshot,
             views: list[WebView], *, timeout: float = 10.0) -> WebReading:
    """Read the page of each of ``views`` (see the module docstring); never raises (but a
    cancelled call stays cancelled)."""
    reading = WebReading()
    if not views:
        return reading
    try:
        from baremobile.web import require

        require()
        sockets = [s for s in discover(shell) if s.package == snap.package]
    except Cancelled:
        raise
    except BaremobileError as exc:
        reading.notes.append(f"web: {exc.message}")
        return reading
    if not sockets:
        reading.notes.append(
            f"web: the WebView in {snap.package} is not debuggable (no DevTools socket); "
            "see docs/web.md")
        return reading
    for view in views:
        try:
            _read_view(open_stream, sockets, view, reading, timeout)
        except Cancelled:
            raise
        except BaremobileError as exc:
            reading.notes.append(f"web: {exc.message}")
        except Exception as exc:  # a page we cannot make sense of must not cost the snapshot
            log.warning("reading the page in %s failed", view.package, exc_info=True)
            reading.notes.append(f"web: the page could not be read ({type(exc).__name__})")
    return reading


def _read_view(open_stream: Opener, sockets: list[DevToolsSocket], view: WebView,
               reading: WebReading, timeout: float) -> None:
    from baremobile.web.capture import capture
    from baremobile.web.tree import build_nodes

    with visible_page(open_stream, sockets, view, timeout) as (target, cdp):
        started = time.perf_counter()
        cap = capture(cdp, timeout=timeout)
    reading.nodes[view.key] = build_nodes(cap, view.bounds, view.package)
    reading.captures.append(cap)
    reading.pages.append({**target, "capture_ms": (time.perf_counter() - started) * 1e3})


@contextmanager
def visible_page(open_stream: Opener, sockets: list[DevToolsSocket], view: WebView,
                 timeout: float) -> Iterator[tuple[dict[str, Any], Any]]:
    """(the ``/json/list`` entry, a :class:`~baremobile.web.cdp.Cdp`) of the page ``view``
    shows, for the ``with`` block (its stream is closed afterwards)."""
    from baremobile.web.cdp import Cdp
    from baremobile.web.endpoints import get_json
    from baremobile.web.ws import WebSocket

    sock = sockets[0]
    service = f"localabstract:{sock.name}"
    with open_stream(service) as stream:
        listed = get_json(stream, "/json/list", timeout=timeout)
    if not isinstance(listed, list):
        raise WebError(f"{sock.name} answered /json/list with something that is not a list")
    targets = [t for t in listed if isinstance(t, dict) and t.get("type") == "page"]
    if not targets:
        raise WebUnavailable(f"{sock.name} lists no page")
    if sock.kind == "webview":
        chosen = pick_webview_target(targets, view)
        candidates = [chosen] if chosen is not None else []
    else:  # Chrome: the tab titled like the WebView first, then the others
        candidates = sorted(targets, key=lambda t: t.get("title") != view.title)
    for target in candidates:
        path = "/devtools/page/" + str(target.get("id", ""))
        with open_stream(service) as stream:
            cdp = Cdp(WebSocket(stream, path, timeout=timeout), timeout=timeout)
            if sock.kind != "webview" and len(candidates) > 1:
                state = cdp.call("Runtime.evaluate", {"expression": "document.visibilityState",
                                                      "returnByValue": True})
                if _result_value(state) != "visible":
                    cdp.close()
                    continue
            try:
                yield target, cdp
            finally:
                cdp.close()
            return
    raise WebUnavailable(f"no page of {sock.name} is visible")


def evaluate(shell: Callable[[str], str], open_stream: Opener, snap: Snapshot,
             views: list[WebView], expression: str, *, timeout: float = 10.0) -> Any:
    """The value of ``expression`` (JavaScript; a promise is awaited) in the page the
    foreground WebView shows; raises :class:`~baremobile.errors.WebError` when there is
    none or the script throws."""
    from baremobile.errors import WebError
    from baremobile.web import require

    require()
    if not views:
        raise WebUnavailable(f"no WebView of {snap.package or 'the foreground app'} is on "
                             "screen", hint="open the page first; {snapshot} shows the screen")
    sockets = [s for s in discover(shell) if s.package == snap.package]
    if not sockets:
        raise WebUnavailable(f"the WebView in {snap.package} is not debuggable")
    with visible_page(open_stream, sockets, views[0], timeout) as (_target, cdp):
        r = cdp.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                          "awaitPromise": True, "userGesture": True})
    if "exceptionDetails" in r:
        d = r["exceptionDetails"] if isinstance(r["exceptionDetails"], dict) else {}
        exc = d.get("exception")
        thrown = exc if isinstance(exc, dict) else {}
        said = thrown.get("description") or d.get("text") or "an exception"
        raise WebError(f"the script threw: {str(said).splitlines()[0][:300]}",
                       hint="fix the expression; the page is unchanged unless it ran "
                            "before throwing")
    return _result_value(r)


def _result_value(answer: dict[str, Any]) -> Any:
    """``result.value`` of a ``Runtime.evaluate`` answer (None when it has none)."""
    result = answer.get("result")
    return result.get("value") if isinstance(result, dict) else None


#: Does the page's focused element take typed text? Followed into same-origin frames; a
#: cross-origin frame's document cannot be read from here, so a focused one counts.
_EDITABLE_FOCUS = """(() => {
  const plain = ['button', 'checkbox', 'color', 'file', 'hidden', 'image', 'radio', 'range',
                 'reset', 'submit'];
  let e = document.activeElement;
  while (e && e.tagName === 'IFRAME') {
    let d;
    try { d = e.contentDocument; } catch (x) { return true; }
    if (!d) return true;
    e = d.activeElement;
  }
  if (!e) return false;
  if (e.isContentEditable) return true;
  if (e.disabled || e.readOnly) return false;
  if (e.tagName === 'TEXTAREA') return true;
  return e.tagName === 'INPUT' && !plain.includes((e.type || 'text').toLowerCase());
})()"""


#: Select the whole content of the focused field (same-origin frames followed).
_SELECT_FIELD = """(() => {
  let e = document.activeElement;
  while (e && e.tagName === 'IFRAME' && e.contentDocument) e = e.contentDocument.activeElement;
  if (!e) return false;
  if (typeof e.select === 'function') e.select();
  else e.ownerDocument.execCommand('selectAll');
  return true;
})()"""


class WebField:
    """Typing into the focused field of the page a WebView shows, through DevTools.

    Made before the tap that focuses the field: it checks the ``[web]`` extra and finds
    the app's DevTools socket, raising :class:`~baremobile.errors.WebUnavailable` when
    either is missing — so nothing is tapped for a page that cannot be reached.
    """

    def __init__(self, shell: Callable[[str], str], open_stream: Opener, snap: Snapshot,
                 view: WebView, *, timeout: float, sleep: Callable[[float], None]) -> None:
        from baremobile.web import require

        require()
        self._sockets = [s for s in discover(shell) if s.package == snap.package]
        if not self._sockets:
            raise WebUnavailable(f"the WebView in {snap.package or 'the foreground app'} "
                                 "is not debuggable")
        self._open, self._view, self._timeout, self._sleep = open_stream, view, timeout, sleep

    def type(self, text: str, *, clear: bool = False, focus_wait: float = 2.0) -> None:
        """``text`` — any Unicode — into the page's focused field, as a keyboard's commit
        does (``Input.insertText``: the page sees ``beforeinput`` and ``input`` events, no
        key events); with ``clear``, in place of the field's whole content. Waits up to
        ``focus_wait`` seconds (the tap that focuses it may still be on its way) for a
        focused element that takes text; else :class:`~baremobile.errors.WebUnavailable`,
        nothing changed."""
        with visible_page(self._open, self._sockets, self._view, self._timeout) as (_t, cdp):
            deadline = time.monotonic() + focus_wait
            while True:
                r = cdp.call("Runtime.evaluate", {"expression": _EDITABLE_FOCUS,
                                                  "returnByValue": True})
                if _result_value(r) is True:
                    break
                if time.monotonic() >= deadline:
                    raise WebUnavailable("no text field of the page has focus after the tap")
                self._sleep(0.05)
            if clear:
                cdp.call("Runtime.evaluate", {"expression": _SELECT_FIELD})
            cdp.call("Input.insertText", {"text": text})
