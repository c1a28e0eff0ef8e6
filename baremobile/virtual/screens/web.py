"""The real browser behind web screens: a renderer of its own beside :mod:`.render`.

A scenario screen with ``web: <url template>`` shows a page in its first
``android.webkit.WebView`` node. When the phone has a web engine
(:class:`~baremobile.virtual.chromium.Chromium`), each such screen instance is one page
target of that headless Chromium — a Chrome tab, or an app's WebView:

* the page is laid out for the WebView's drawn size at the display's density
  (``Emulation.setDeviceMetricsOverride``, ``mobile``, touch enabled, an Android user agent);
  Chrome's tabs share the default browser context, each WebView app gets its own (cookies
  and storage apart, as processes are);
* only the page in front is visible: every target has a window of its own, and background
  tabs' windows are minimised (``document.visibilityState`` is ``hidden`` there, as on a
  phone); at most :data:`MAX_LIVE_TARGETS` pages stay loaded — older background tabs are
  discarded and reloaded from their URL when they come back, as Chrome on Android does;
* the dump draws the WebView shallow, the way Android's dumps show a WebView whose
  accessibility tree is not exposed (corpus dumps ``034_guard``, ``085_brella``): the view
  with one inner WebView node holding the page title, focusable, no children;
* a tap, long press or swipe inside the WebView's region becomes real touch input in
  Chromium (:mod:`.web_input`: device pixels mapped to the page's CSS pixels through its
  visual viewport, so pinch zoom is honoured); once the WebView has focus, typed
  text goes to the page (``Input.insertText``) and editing keys become key events; the
  keyboard shows while the page's focused element is editable;
* a navigation the user makes (a link) updates the screen's ``{url}`` and ``{host}``.

Without an engine (no Chromium installed, or ``browser=False``) the screen keeps its
scenario placeholder. Everything here runs under the screen model's lock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from baremobile.virtual.chromium import Chromium, ChromiumError
from baremobile.virtual.scenario import render_template
from baremobile.virtual.uixml import Node

from .display import Bounds, Display, is_empty
from .state import ScreenInstance, ScreenState
from .web_input import PageInput

__all__ = ["WebRoom", "Surface", "CHROME_PACKAGES", "MAX_LIVE_TARGETS", "socket_kind"]

log = logging.getLogger("baremobile.virtual.web")

#: Chrome builds that listen on ``@chrome_devtools_remote`` (Chromium's
#: ``android_device_info_query.cc`` lists the same packages).
CHROME_PACKAGES = frozenset({
    "com.android.chrome", "com.chrome.beta", "com.chrome.dev", "com.chrome.canary",
    "com.google.android.apps.chrome", "org.chromium.chrome",
})
#: Pages kept loaded at once; older background tabs are discarded.
MAX_LIVE_TARGETS = 6
#: How long the phone waits for a page it was asked to open to finish loading.
LOAD_TIMEOUT = 15.0

_UA = ("Mozilla/5.0 (Linux; Android {release}; {model}{wv}) AppleWebKit/537.36 "
       "(KHTML, like Gecko) {version}Chrome/{chrome} Mobile Safari/537.36")

def socket_kind(package: str) -> str:
    """``"chrome"`` for Chrome builds, else ``"webview"`` (an app's embedded WebView)."""
    return "chrome" if package in CHROME_PACKAGES else "webview"


class Surface:
    """One web screen instance and the page target that shows it."""

    __slots__ = ("inst", "package", "kind", "target", "session", "window", "url", "title",
                 "region", "css", "minimised", "shown_at", "pending_url", "context")

    def __init__(self, inst: ScreenInstance, package: str, context: str | None) -> None:
        self.inst = inst
        self.package = package
        self.kind = socket_kind(package)
        self.context = context
        self.target: str | None = None
        self.session: str | None = None
        self.window: int | None = None
        self.url = ""  # what the page shows now (follows navigations)
        self.title = ""
        self.region: Bounds | None = None  # where the WebView was last drawn (device px)
        self.css: tuple[int, int] | None = None  # the viewport size set, CSS px
        self.minimised: bool | None = None
        self.shown_at = 0.0
        self.pending_url: str | None = None  # a navigation the page made, not yet shown

    def description(self, visible: bool) -> str:
        """A WebView target's ``description`` in ``/json/list``, as
        ``AwDevToolsManagerDelegate::GetTargetDescription`` writes it (keys sorted)."""
        if self.kind != "webview":
            return ""
        r = self.region or (0, 0, 0, 0)
        d: dict[str, Any] = {"attached": True, "visible": visible, "screenX": r[0],
                             "screenY": r[1], "empty": is_empty(r)}
        if not is_empty(r):
            d["width"], d["height"] = r[2] - r[0], r[3] - r[1]
        return json.dumps(d, sort_keys=True, separators=(",", ":"))


class WebRoom(PageInput):
    """Web screens backed by a real browser (see the module docstring)."""

    def __init__(self, state: ScreenState, display: Display, props: dict[str, str],
                 render: Callable[[], list[Node]]) -> None:
        self.state = state
        self.display = display
        self.props = props
        self._render = render
        self._synced: tuple[int, int] | None = None
        self.engine: Chromium | None = None
        self.failed: str | None = None
        #: bumped whenever what the dump draws of a page changes (title, URL)
        self.generation = 0
        self._surfaces: dict[ScreenInstance, Surface] = {}
        self._contexts: dict[str, str] = {}
        self._visible: Surface | None = None

    # -- the engine -----------------------------------------------------------------------
    def attach(self, engine: Chromium | None) -> None:
        """Use ``engine`` for web screens (started when first needed); None detaches."""
        self.engine = engine
        self.failed = None
        self._synced = None

    @property
    def active(self) -> bool:
        return self.engine is not None and self.failed is None

    def _engine(self) -> Chromium:
        assert self.engine is not None
        if not self.engine.running:
            self.engine.start()
        return self.engine

    def _look(self, engine: Chromium, s: Surface) -> None:
        """Read the page's title and URL now (a link or a script may have moved it)."""
        assert s.target is not None
        info = engine.call("Target.getTargetInfo", {"targetId": s.target})["targetInfo"]
        title, url = info.get("title", ""), info.get("url", "")
        # the browser learns a new title a little after the page has it (and between two
        # documents there is no page to ask)
        with contextlib.suppress(ChromiumError):
            title = self.evaluate(s, "document.title") or title
        if title != s.title:
            s.title = title
            self.generation += 1
        if url and url != s.url:
            s.url = s.pending_url = url
            self.generation += 1

    # -- drawing (called by the renderer) ------------------------------------------------
    def draw(self, drawn: Node, inst: ScreenInstance) -> None:
        """Draw the WebView of ``inst`` shallow: the view, and one inner WebView node with
        the page title (what Android dumps when the page's tree is not exposed)."""
        if not self.active:
            return
        s = self._surfaces.get(inst)
        title = s.title if s is not None else ""
        attrs = dict(drawn.attrs)
        attrs["text"] = ""
        focused = attrs.get("focused") == "true"
        attrs["focused"] = "false"
        inner = dict(attrs)
        inner.update({"text": title, "resource-id": "", "content-desc": "",
                      "focusable": "true", "focused": "true" if focused else "false",
                      "clickable": "false", "long-clickable": "false", "scrollable": "false"})
        drawn.attrs = attrs
        drawn.children = [Node(inner, drawn.bounds, [], drawn.origin, src=drawn.src)]
        drawn.meta["web_inst"] = inst

    # -- keeping the browser in step with the screens ------------------------------------
    def web_instances(self) -> list[ScreenInstance]:
        """Web screen instances alive on any task, in front first."""
        st = self.state
        out = []
        for task in ([st.tasks[0]] if st.tasks else []) + st.tasks[1:] + [st.home]:
            for inst in reversed(task.stack):
                if inst.web_node is not None:
                    out.append(inst)
        return out

    def invalidate(self) -> None:
        """Sync again at the next look (the state was replaced, its version restarted)."""
        self._synced = None

    def ensure(self, look: bool = False) -> None:
        """Sync when the screens changed since the last sync. Pages are realised lazily,
        when something looks at them (a dump, a DevTools socket) or touches them: opening
        a URL costs nothing until then. With ``look``, the page on screen is read again
        (its title and URL change by themselves: scripts, links)."""
        if not self.active:
            return
        key = (self.state.version, self.generation)
        if key != self._synced:
            if self.sync(self._render()):
                self._render()  # redraw what the pages changed (title, URL)
        elif look and self._visible is not None and self.engine is not None:
            gen = self.generation
            try:
                self._look(self.engine, self._visible)
                if self._visible.pending_url is not None:
                    self._follow(self._visible)
            except ChromiumError as exc:
                log.info("reading the page: %s", exc)
            if gen != self.generation:
                self._render()
        self._synced = (self.state.version, self.generation)

    def sync(self, windows: list[Node]) -> bool:
        """Create, load, show, hide and discard page targets to match the screens drawn in
        ``windows``; returns True when what the dump shows of a page changed."""
        if not self.active:
            return False
        live = self.web_instances()
        if not live and not self._surfaces:
            return False
        gen = self.generation
        try:
            self._sync(live, windows)
        except ChromiumError as exc:
            log.warning("the virtual phone's browser failed: %s", exc)
            self.failed = str(exc)
            self.generation += 1
            return True
        return gen != self.generation

    def _sync(self, live: list[ScreenInstance], windows: list[Node]) -> None:
        engine = self._engine()
        alive = set(live)
        for key in [k for k in self._surfaces if k not in alive]:
            self._close(self._surfaces.pop(key))
        drawn: dict[ScreenInstance, Bounds] = {}
        for w in windows:
            for n in w.iter():
                inst = n.meta.get("web_inst")
                if inst is not None:
                    drawn[inst] = n.bounds
        visible: Surface | None = None
        for rank, inst in enumerate(live):
            s = self._surfaces.get(inst)
            if s is None:
                pkg = inst.sd.package
                s = self._surfaces[inst] = Surface(inst, pkg, self._context(engine, pkg))
            region = drawn.get(inst)
            if region is not None and not is_empty(region) and self.state.screen_on:
                s.region = region
                s.shown_at = time.monotonic()
                visible = s
            elif s.region is None and inst.web_node is not None:
                s.region = inst.web_node.bounds  # never drawn yet: its layout size
            if rank >= MAX_LIVE_TARGETS and s is not visible:
                self._close(s)  # an old background tab: discarded until it comes back
                continue
            if s.target is None:
                self._open(engine, s)
            self._fit(engine, s)
            if s is visible:
                self._look(engine, s)
            if s.pending_url is not None:
                self._follow(s)
        for s in self._surfaces.values():
            if s.target is not None and s.window is not None:
                want = s is not visible
                if s.minimised != want:
                    state = "minimized" if want else "normal"
                    engine.call("Browser.setWindowBounds",
                                {"windowId": s.window, "bounds": {"windowState": state}})
                    s.minimised = want
        self._visible = visible

    def _context(self, engine: Chromium, package: str) -> str | None:
        if socket_kind(package) == "chrome":
            return None  # Chrome's tabs: the default profile
        ctx = self._contexts.get(package)
        if ctx is None:
            ctx = engine.call("Target.createBrowserContext")["browserContextId"]
            self._contexts[package] = ctx
        return ctx

    def _open(self, engine: Chromium, s: Surface) -> None:
        """A page target for ``s``: sized, touch-enabled, then loaded (waits for the load)."""
        url = s.url or render_template(s.inst.sd.web or "", s.inst.vars) or "about:blank"
        params: dict[str, Any] = {"url": "about:blank", "newWindow": True}
        if s.context is not None:
            params["browserContextId"] = s.context
        s.target = engine.call("Target.createTarget", params)["targetId"]
        s.session = engine.call("Target.attachToTarget",
                                {"targetId": s.target, "flatten": True})["sessionId"]
        s.window = engine.call("Browser.getWindowForTarget", {"targetId": s.target})["windowId"]
        s.minimised = None
        s.css = None
        self._fit(engine, s)
        self._page(s, "Emulation.setTouchEmulationEnabled", {"enabled": True,
                                                             "maxTouchPoints": 10})
        ua = _UA.format(release=self.props.get("ro.build.version.release", "15"),
                        model=self.props.get("ro.product.model", "Virtual Phone"),
                        wv="; wv" if s.kind == "webview" else "",
                        version="Version/4.0 " if s.kind == "webview" else "",
                        chrome=engine.version.get("product", "Chrome/0").split("/")[-1])
        self._page(s, "Emulation.setUserAgentOverride", {"userAgent": ua})
        self.navigate(s, url)
        self._page(s, "Page.resetNavigationHistory")  # the tab's history starts at its page

    def navigate(self, s: Surface, url: str) -> None:
        """Load ``url`` in the page and wait (at most :data:`LOAD_TIMEOUT`) for it."""
        s.url = url
        s.pending_url = None
        result = self._page(s, "Page.navigate", {"url": url})
        if result.get("errorText"):
            log.info("page %s: %s", url, result["errorText"])
        deadline = time.monotonic() + LOAD_TIMEOUT
        while time.monotonic() < deadline:
            try:
                state = self.evaluate(s, "document.readyState")
            except ChromiumError:
                state = None  # the context is being replaced
            if state == "complete":
                break
            time.sleep(0.01)
        s.pending_url = None
        self.generation += 1

    def _fit(self, engine: Chromium, s: Surface) -> None:
        r = s.region
        if r is None or is_empty(r):
            return
        dsf = self.display.density / 160
        css = (max(1, round((r[2] - r[0]) / dsf)), max(1, round((r[3] - r[1]) / dsf)))
        if css != s.css:
            self._page(s, "Emulation.setDeviceMetricsOverride",
                       {"width": css[0], "height": css[1], "deviceScaleFactor": dsf,
                        "mobile": True})
            s.css = css

    def _follow(self, s: Surface) -> None:
        """The page navigated by itself (a link): the screen's ``{url}`` follows."""
        url = s.pending_url or ""
        s.pending_url = None
        inst = s.inst
        if not url or inst.vars.get("url") == url:
            return
        parts = urlsplit(url)
        inst.vars.update({"url": url, "uri": url, "host": parts.netloc})
        for w in inst.windows:
            for n in w.iter():
                if n.value is not None and "{url}" in n.attrs.get("text", "") and (
                        inst.focus is not n):
                    n.value = render_template(n.attrs["text"], inst.vars)
                    n.cursor = len(n.value)
        self.state.changed()

    def _close(self, s: Surface) -> None:
        if s.target is not None and self.engine is not None and self.engine.running:
            try:
                self.engine.call("Target.closeTarget", {"targetId": s.target})
            except ChromiumError as exc:
                log.info("closing a page: %s", exc)
        s.target = s.session = s.window = None
        s.css = None

    def _page(self, s: Surface, method: str, params: dict[str, Any] | None = None
              ) -> dict[str, Any]:
        assert self.engine is not None and s.session is not None
        return self.engine.call(method, params, session=s.session)

    def evaluate(self, s: Surface, expression: str) -> Any:
        """The value of a JavaScript expression in the page (for the phone's own checks)."""
        r = self._page(s, "Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True})
        if "exceptionDetails" in r:
            raise ChromiumError(f"{expression!r} threw in the page")
        return r.get("result", {}).get("value")

    # -- what the phone's DevTools sockets see -------------------------------------------
    def surfaces(self, package: str | None = None) -> list[Surface]:
        """Loaded pages (of ``package``'s process: Chrome builds share one), front first."""
        kind = socket_kind(package) if package is not None else None
        out = [s for s in self._surfaces.values() if s.target is not None and (
            package is None or s.package == package
            or (kind == "chrome" and s.kind == "chrome"))]
        return sorted(out, key=lambda s: s.shown_at, reverse=True)

    def is_visible(self, s: Surface) -> bool:
        return s is self._visible

    @property
    def visible(self) -> Surface | None:
        """The page on screen now (after the last sync), or None."""
        return self._visible

    def web_packages(self) -> set[str]:
        """Packages whose screens show web content (their processes host a DevTools socket
        while they run)."""
        return {sd.package for sd in self.state.screens.values() if sd.web is not None}

    # -- input (called by touch and keys) ------------------------------------------------
    def claims(self, inst: ScreenInstance | None, x: int, y: int) -> Surface | None:
        """The surface a touch at (x, y) on ``inst``'s window lands in, if any."""
        self.ensure()
        s = self._visible
        if s is None or inst is None or s.inst is not inst or s.target is None:
            return None
        r = s.region
        if r is None or not (r[0] <= x < r[2] and r[1] <= y < r[3]):
            return None
        return s

    def focused(self) -> Surface | None:
        """The visible page when its WebView holds input focus."""
        self.ensure()
        s = self._visible
        owner = self.state.focus_owner()
        if s is None or owner is not s.inst or owner.focus is not s.inst.web_node:
            return None
        return s

    def back(self) -> bool:
        """BACK in Chrome goes back in the tab's history first (True when it did)."""
        self.ensure()
        s = self._visible
        st = self.state
        top = st.top()
        if (s is None or s.kind != "chrome" or top is not s.inst or top.dialogs
                or top.panel is not None or st.ime_shown() or s.target is None):
            return False
        try:
            hist = self._page(s, "Page.getNavigationHistory")
            i = hist.get("currentIndex", 0)
            entries = hist.get("entries", [])
            if i < 1 or i > len(entries) - 1:
                return False
            self._page(s, "Page.navigateToHistoryEntry", {"entryId": entries[i - 1]["id"]})
        except ChromiumError:
            return False
        return True

    def stop(self) -> None:
        """Close every page this room opened, and forget them."""
        engine = self.engine
        if engine is not None and engine.running:
            for surface in list(self._surfaces.values()):
                self._close(surface)
            for ctx in self._contexts.values():
                try:
                    engine.call("Target.disposeBrowserContext", {"browserContextId": ctx})
                except ChromiumError as exc:
                    log.info("disposing a browser context: %s", exc)
        self._surfaces.clear()
        self._contexts.clear()
        self._visible = None
        self._synced = None
