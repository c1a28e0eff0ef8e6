"""How the state is drawn: the windows on screen as uiautomator dumps them.

Each screen instance's windows are laid out from their scenario bounds with what changed
since: scroll offsets (scrollable nodes hold their whole content; only what is inside the
viewport is drawn, partly visible nodes clipped, as RecyclerView does), filtered lists,
``adjustResize`` while the keyboard or a panel covers the bottom, dialogs over their screen,
and the system windows around them. Every drawn node keeps ``src``, the state node it shows,
so input can find its way back. :func:`~baremobile.virtual.uixml.serialize` turns the result
into the dump; :mod:`.paint` into the PNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from baremobile.virtual.scenario import render_template
from baremobile.virtual.uixml import Node

from .display import Bounds, Display, area, intersect, is_empty
from .filters import apply_filters
from .shade import shade_window
from .state import SYSTEMUI, ScreenInstance, ScreenState
from .system_ui import aod_window, ime_window, nav_bar, recents_screen, status_bar

__all__ = ["Renderer", "tag", "extent", "scroll_range", "clamp_scroll"]


class Renderer:
    """Draws a :class:`~.state.ScreenState` on a :class:`~.display.Display`."""

    def __init__(self, state: ScreenState, display: Display) -> None:
        self.state = state
        self.display = display
        self._cache: tuple[Any, list[Node]] | None = None
        #: the real browser's room (:class:`~.web.WebRoom`), which draws web screens' WebViews
        self.web: Any = None

    def clear(self) -> None:
        """Forget the cached drawing (after a reset)."""
        self._cache = None

    def render(self) -> list[Node]:
        """The windows on screen now, bottom to top (cached until the state or the minute
        changes)."""
        key = (self.state.version, self.state.clock.minute(),
               self.web.generation if self.web is not None else 0)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        windows = self._render_uncached()
        self._cache = (key, windows)
        return windows

    def _render_uncached(self) -> list[Node]:
        st, d = self.state, self.display
        screen = d.bounds
        if not st.screen_on:
            return [tag(aod_window(d, st.clock), "aod")]
        out: list[Node] = []
        bars = True
        content: Sequence[Node | None]
        if st.mode == "recents":
            if st.recents is None:
                st.recents = recents_screen(d, st)
            content = [self._draw_window(w, st.recents, screen, None)
                       for w in st.recents.windows]
        else:
            top = st.top()
            assert top is not None
            bars = top.sd.system_bars == "on" or (
                top.sd.system_bars == "auto"
                and not any(w.package == SYSTEMUI for w in top.windows)
            )
            content = self._render_inst(top, screen)
        if bars and d.status_bar:
            out.append(tag(status_bar(d, st.clock), "status"))
        out.extend(w for w in content if w is not None)
        if st.ime_shown():
            out.append(tag(ime_window(d), "ime"))
        if st.shade is not None:  # the shade covers the app; the navigation bar stays on top
            out.append(tag(shade_window(d, st.clock, st.shade), "shade"))
        if (bars or st.shade is not None) and d.nav_buttons:
            out.append(tag(nav_bar(d), "nav"))
        return out

    def _render_inst(self, inst: ScreenInstance, screen: Bounds) -> list[Node]:
        apply_filters(inst)
        resize = self._resize_info(inst)
        out: list[Node] = []
        for i, w in enumerate(inst.windows):
            r = self._draw_window(w, inst, screen, resize)
            if r is None:
                continue
            if i == 0 and inst.panel is not None:
                apply_filters(inst.panel)
                for pw in inst.panel.windows:
                    pr = self._draw_window(pw, inst.panel, screen, None)
                    if pr is not None:
                        pr.meta["inst"] = inst.panel
                        r.children.append(pr)
                        b, pb = r.bounds, pr.bounds  # the window holds its panel
                        r.bounds = (min(b[0], pb[0]), min(b[1], pb[1]), max(b[2], pb[2]),
                                    max(b[3], pb[3]))
            out.append(r)
        for d in inst.dialogs:
            apply_filters(d)
            for w in d.windows:
                r = self._draw_window(w, d, screen, None)
                if r is not None:
                    r.meta["kind"] = "dialog"
                    out.append(r)
        return out

    def _draw_window(self, w: Node, inst: ScreenInstance, clip: Bounds,
                     resize: tuple[Node, int, int] | None) -> Node | None:
        ctx = self.state.context(inst)
        r = self._draw(w, 0, 0, clip, ctx, resize, False)
        if r is not None:
            r.meta["kind"] = "app" if inst.kind != "dialog" else "dialog"
            r.meta["inst"] = inst
            r.meta["frame"] = intersect((w.bounds[0] + w.dx, w.bounds[1] + w.dy,
                                          w.bounds[2] + w.dx, w.bounds[3] + w.dy), clip)
            if inst.web_node is not None and self.web is not None:
                drawn = next((d for d in r.iter() if d.src is inst.web_node), None)
                if drawn is not None:
                    self.web.draw(drawn, inst)
        return r

    def _resize_info(self, inst: ScreenInstance) -> tuple[Node, int, int] | None:
        """(node that shrinks, delta, pivot y) while the keyboard or a panel covers the
        bottom of the screen, emulating ``adjustResize``."""
        tops = []
        if self.state.ime_shown() and self.state.focus_owner() is inst:
            tops.append(self.display.ime_top)
        if inst.panel is not None and inst.panel.windows:
            tops.append(min(w.bounds[1] for w in inst.panel.windows))
        if not tops or inst.sd.resize_off:
            return None
        bottom = self.display.content_bottom
        delta = bottom - min(tops)
        if delta <= 0:
            return None
        f = inst.resize_node
        if f is None:
            if inst.sd.resize is not None:
                f = inst.find(inst.sd.resize)
            else:
                best = 0
                for n in inst.windows[0].iter():
                    if n.flag("scrollable") and area(n.bounds) > best:
                        best, f = area(n.bounds), n
            inst.resize_node = f
        if f is None:
            return None
        return f, delta, f.bounds[3] + f.dy

    def _draw(self, n: Node, ox: int, oy: int, clip: Bounds,
              ctx: dict[str, str], resize: tuple[Node, int, int] | None, in_f: bool
              ) -> Node | None:
        if n.meta.get("hidden"):
            return None
        ox += n.dx
        oy += n.dy
        b = n.bounds
        x1, y1, x2, y2 = b[0] + ox, b[1] + oy, b[2] + ox, b[3] + oy
        child_in_f = in_f
        own_clip = False
        if resize is not None and not in_f:
            f, delta, pivot = resize
            if n is f:
                y2 = max(y1, y2 - delta)
                child_in_f = True
                own_clip = True
            elif y1 >= pivot:
                y1 -= delta
                y2 -= delta
            elif y1 < pivot < y2:
                y2 = max(y1, y2 - delta)
        rect = (x1, y1, x2, y2)
        vis = intersect(rect, clip)
        if is_empty(vis):
            if not is_empty(b):
                return None
            vis = rect
        attrs = dict(n.attrs)
        if n.value is not None:
            shown = n.value
            if shown and n.flag("password"):
                shown = "\u2022" * len(shown)
            attrs["text"] = shown or attrs.get("hint", "")
        elif "{" in attrs.get("text", ""):
            attrs["text"] = render_template(attrs["text"], ctx)
        if "{" in attrs.get("content-desc", ""):
            attrs["content-desc"] = render_template(attrs["content-desc"], ctx)
        out = Node(attrs, vis, [], n.origin, src=n)
        n.meta["_o"] = (ox, oy)
        n.meta["_vp"] = vis
        cx, cy = ox, oy
        cclip = clip
        if n.flag("scrollable") and n.children:
            clamp_scroll(n, vis)
            cx -= n.scroll_x
            cy -= n.scroll_y
            cclip = intersect(clip, vis)
        elif own_clip:
            cclip = intersect(clip, vis)
        for c in n.children:
            rc = self._draw(c, cx, cy, cclip, ctx, resize, child_in_f)
            if rc is not None:
                out.children.append(rc)
        return out




def tag(w: Node, kind: str) -> Node:
    """Mark a system window's kind (status, nav, ime, aod) for hit-testing and painting."""
    w.meta["kind"] = kind
    for n in w.iter():
        n.src = n
    return w


def extent(n: Node) -> Bounds | None:
    """Union of the content of scrollable ``n`` in its own layout coordinates."""
    x1 = y1 = 1 << 30
    x2 = y2 = -(1 << 30)
    stack: list[tuple[Node, int, int]] = [(c, 0, 0) for c in n.children]
    found = False
    while stack:
        c, dx, dy = stack.pop()
        if c.meta.get("hidden"):
            continue
        dx += c.dx
        dy += c.dy
        b = c.bounds
        if not is_empty(b):
            found = True
            x1, y1 = min(x1, b[0] + dx), min(y1, b[1] + dy)
            x2, y2 = max(x2, b[2] + dx), max(y2, b[3] + dy)
        if not c.flag("scrollable"):
            stack.extend((g, dx, dy) for g in c.children)
    return (x1, y1, x2, y2) if found else None


def scroll_range(n: Node, vp: Bounds) -> tuple[int, int, int, int]:
    """(min_x, max_x, min_y, max_y) scroll offsets for viewport ``vp`` (screen coords)."""
    ext = extent(n)
    if ext is None:
        return 0, 0, 0, 0
    ox, oy = n.meta.get("_o", (0, 0))
    e = (ext[0] + ox, ext[1] + oy, ext[2] + ox, ext[3] + oy)
    return (min(0, e[0] - vp[0]), max(0, e[2] - vp[2]),
            min(0, e[1] - vp[1]), max(0, e[3] - vp[3]))


def clamp_scroll(n: Node, vp: Bounds) -> None:
    """Keep ``n``'s scroll offsets inside its content (or jump to its end, after a send)."""
    to_end = n.meta.pop("to_end", False)
    if not (n.scroll_x or n.scroll_y or to_end):
        return
    n.meta["_vp"] = vp
    mnx, mxx, mny, mxy = scroll_range(n, vp)
    if to_end:
        n.scroll_y = mxy
    n.scroll_x = min(max(n.scroll_x, mnx), mxx)
    n.scroll_y = min(max(n.scroll_y, mny), mxy)
