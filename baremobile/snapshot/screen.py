"""What needs the whole dump: displays, the screen, the foreground app, windows on top.

The pruner decides everything it can while streaming. A few things are only known once the
last window has been read; :func:`build_snapshot` settles them, cheaply (it looks at windows
and refs, never at every node), before the text is rendered:

* **displays**: the default display is display 0 (or the first one in the dump). Its screen
  size and foreground package are the snapshot's; windows of other displays get a
  ``display=N`` marker on their ``- Window`` line, and their nodes and refs carry
  ``display``;
* **the screen's far edges**: a window whose root is zero-area (outside any ``<window>``) had
  only the screen's origin to clip its nodes against; they are now clipped to the screen,
  and a node left with no area on it goes (a ref on it is taken back, the others renumbered);
* **windows on top**: a ref whose tap point lies under a window above its own (keyboard,
  system bar) gets a tap point in an uncovered part of its visible rect, or, when there is
  none, the ``covered`` state. A dialog over its app covers nothing this way: it is modal,
  the whole app is behind it (its header says so; acting verbs refuse the app's refs).

Which window is on top: ``<window layer>`` when dumped (higher is on top); otherwise in a
``--windows`` dump the earlier window (``getWindows()`` lists the top one first); otherwise
(plain dumps, whose window order depends on the dumper) system UI is above input methods,
which are above apps, and among apps a window lying wholly inside another is above it.
"""

from __future__ import annotations

from collections.abc import Iterable

from baremobile.snapshot.identity import RefTracker
from baremobile.snapshot.prune import PruneState, WindowInfo, intersect
from baremobile.snapshot.refs import RefMap, label_bare_refs
from baremobile.snapshot.render import render_report
from baremobile.snapshot.result import Snapshot
from baremobile.snapshot.tree import Node
from baremobile.snapshot.windows import (
    DIALOG_MIN_WIDTH,
    inside,
    is_input_method,
    screen_text,
    window_headers,
)

__all__ = ["build_snapshot", "is_input_method", "is_secondary"]

Rect = tuple[int, int, int, int]

_SYSTEM_PACKAGES = frozenset({"com.android.systemui", "android"})
#: ``AccessibilityWindowInfo`` types of windows that are not the app.
_APP_TYPES = frozenset({"TYPE_APPLICATION", "1"})
_IME_TYPES = frozenset({"TYPE_INPUT_METHOD", "2"})

#: Windows (per display) looked at for covering; real screens have well under 20.
MAX_COVER_WINDOWS = 32
#: Rects a keyboard covers with (its kept top-level nodes), and rects one ref is checked
#: against for a free part; more are merged into their hull.
MAX_COVER_RECTS = 4


def is_secondary(win: WindowInfo) -> bool:
    """System UI, keyboards and overlays: windows that are not the app in front."""
    kind = win.kind
    if kind and kind not in _APP_TYPES:
        return True
    pkg = win.package
    return pkg in _SYSTEM_PACKAGES or is_input_method(pkg)


def _rank(win: WindowInfo) -> int:
    """Stacking band: 0 apps, 1 input methods, 2 system UI (status/navigation bars…)."""
    kind = win.kind
    if kind:
        if kind in _APP_TYPES:
            return 0
        return 1 if kind in _IME_TYPES else 2
    pkg = win.package
    if pkg in _SYSTEM_PACKAGES:
        return 2
    return 1 if is_input_method(pkg) else 0


def _hull(rects: Iterable[Rect]) -> Rect:
    rs = list(rects)
    return (
        min(r[0] for r in rs),
        min(r[1] for r in rs),
        max(r[2] for r in rs),
        max(r[3] for r in rs),
    )


def _area_rect(win: WindowInfo) -> Rect | None:
    if win.rect is not None:
        return win.rect
    if win.frame is not None:
        return win.frame
    vis = [n.vis for n in win.tops if n.vis is not None]
    return _hull(vis) if vis else None


def _above(
    a: WindowInfo, b: WindowInfo, ra: int, rb: int, ar: Rect | None, br: Rect | None
) -> bool:
    """Whether window ``a`` is stacked above window ``b`` (same display).

    ``ra``/``rb`` are their :func:`_rank`, ``ar``/``br`` their :func:`_area_rect`.
    """
    if a.layer is not None and b.layer is not None:
        return a.layer > b.layer
    if a.windowed and b.windowed:
        return a.index < b.index  # getWindows(): the top window first
    if ra != rb:
        return ra > rb
    # same band, order unknown: a window lying wholly inside another (dialog, popup, PiP)
    return ar is not None and br is not None and inside(ar, br)


def _dialog_of(ar: Rect | None, br: Rect | None, ra: int, rb: int) -> bool:
    """Whether application window ``a`` is a dialog of application window ``b``: wholly
    inside it and at least a quarter of its width (as :mod:`.windows` names dialogs). A
    dialog is modal — a touch outside it does not reach the app — so it marks no ref of the
    app ``covered``: all of them are behind it, which the dialog's header says."""
    return (
        ra == 0
        and rb == 0
        and ar is not None
        and br is not None
        and inside(ar, br)
        and ar[2] - ar[0] >= DIALOG_MIN_WIDTH * (br[2] - br[0])
    )


def _walk(tops: list[Node]) -> Iterable[Node]:
    stack = list(reversed(tops))
    while stack:
        node = stack.pop()
        yield node
        if node.children:
            stack.extend(reversed(node.children))


# -- windows and displays ------------------------------------------------------------------


def _set_tops(windows: list[WindowInfo]) -> None:
    """Each window's kept top-level nodes: its slice of the list its root appended to."""
    last: dict[int, WindowInfo] = {}
    for win in windows:
        prev = last.get(id(win.kids))
        if prev is not None:
            prev.tops = prev.kids[prev.kid_start : win.kid_start]
        last[id(win.kids)] = win
    for win in last.values():
        win.tops = win.kids[win.kid_start :]


def _screens(windows: list[WindowInfo]) -> dict[int, tuple[int, int]]:
    """display → (width, height): how far its windows reach (0 when unknown)."""
    out: dict[int, tuple[int, int]] = {}
    for win in windows:
        w, h = out.get(win.display, (0, 0))
        b = win.bounds
        if b[2] > b[0] and b[3] > b[1]:
            w, h = max(w, b[2]), max(h, b[3])
        out[win.display] = (w, h)
    return out


def _foreground_package(windows: Iterable[WindowInfo]) -> str:
    best: WindowInfo | None = None
    best_key: tuple[bool, int] = (False, -1)
    for win in windows:
        if not win.package:
            continue
        b = win.bounds
        key = (not is_secondary(win), max(0, b[2] - b[0]) * max(0, b[3] - b[1]))
        # prefer app windows over system/IME ones, then the larger window, then the earlier
        if best is None or key > best_key:
            best, best_key = win, key
    return best.package if best is not None else ""


# -- the screen's far edges ----------------------------------------------------------------


_REF_ONLY_STATES = frozenset({"disabled", "password", "scrollable"})


def _clip_unbounded(win: WindowInfo, screen: Rect, containers: list[list[Node]]) -> bool:
    """Clip a zero-area-root window's nodes to the screen; True when a ref was taken back.

    Nodes left with no area go (their kept children move up), as they would have while
    streaming had the screen been known. The window's top-level list is edited in place.
    """
    demoted = False
    # post-order over the window's subtree, rebuilding children lists
    out: list[Node] = []
    stack: list[tuple[Node, list[Node], bool]] = [(n, out, False) for n in reversed(win.tops)]
    results: dict[int, list[Node]] = {}
    while stack:
        node, dest, done = stack.pop()
        if not done:
            stack.append((node, dest, True))
            results[id(node)] = []
            for kid in reversed(node.children):
                stack.append((kid, results[id(node)], False))
            continue
        kids = results.pop(id(node))
        # children were visited in order and appended to `kids` (reversed push, LIFO pop)
        node.children = kids
        vis = node.vis
        if vis is not None:
            node.vis = vis = intersect(vis, screen)
            if vis is None:
                if node.ref is not None:
                    node.ref = None
                    node.states = tuple(s for s in node.states if s not in _REF_ONLY_STATES)
                    demoted = True
                dest.extend(kids)  # off screen: the node goes, its visible children stay
                continue
        dest.append(node)
    # replace the window's run of nodes in the list that holds them in the tree
    for holder in containers:
        first = next((i for i, n in enumerate(holder) if n is win.tops[0]), None)
        if first is not None:
            end = first + len(win.tops)
            if all(a is b for a, b in zip(holder[first:end], win.tops, strict=False)):
                holder[first:end] = out
            break
    win.tops = out
    return demoted


def _renumber(roots: list[Node]) -> dict[int, Node]:
    refs: dict[int, Node] = {}
    for node in _walk(roots):
        if node.ref is not None:
            node.ref = len(refs) + 1
            refs[node.ref] = node
    return refs


# -- windows on top --------------------------------------------------------------------------


def _inside(x: int, y: int, rects: list[Rect]) -> bool:
    for r in rects:  # noqa: SIM110 (a plain loop is faster than any() over a generator)
        if r[0] <= x < r[2] and r[1] <= y < r[3]:
            return True
    return False


def _uncovered_point(vis: Rect, covers: list[Rect]) -> tuple[int, int] | None:
    """A point of ``vis`` outside every rect of ``covers`` (which overlap it), or ``None``.

    Tries the middles of the bands of ``vis`` left, right, above and below each cover and
    keeps the one in the largest band (ties: nearest the middle of ``vis``).
    """
    x1, y1, x2, y2 = vis
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    best: tuple[int, int] | None = None
    best_key: tuple[int, int] | None = None
    for k in covers:
        for band in (
            (x1, y1, k[0], y2),
            (k[2], y1, x2, y2),
            (x1, y1, x2, k[1]),
            (x1, k[3], x2, y2),
        ):
            bx1, by1, bx2, by2 = band
            if bx2 <= bx1 or by2 <= by1:
                continue
            px, py = (bx1 + bx2) // 2, (by1 + by2) // 2
            if _inside(px, py, covers):
                continue
            key = ((bx2 - bx1) * (by2 - by1), -abs(px - cx) - abs(py - cy))
            if best_key is None or key > best_key:
                best, best_key = (px, py), key
    return best


def _cover_rects(win: WindowInfo, rank: int) -> list[Rect]:
    """Where ``win`` takes taps: its ``<window bounds>`` (the touchable region's bounds);
    in plain dumps the root's rect, except for keyboards, which let taps through outside
    what they show (Gboard's floating stylus toolbar spans a tiny part of its window)."""
    if win.frame is not None:
        return [win.frame]
    if win.rect is not None and rank != 1:
        return [win.rect]
    rects = [n.vis for n in win.tops if n.vis is not None]
    if len(rects) > MAX_COVER_RECTS:
        rects = [_hull(rects)]
    return rects


def _uncover(windows: list[WindowInfo], refs: dict[int, Node], renumbered: bool) -> None:
    """Move tap points out from under higher windows, or mark the refs ``covered``."""
    # each window's refs: numbered from its ref_start up to the next window's (refs are handed
    # out in document order), unless refs were renumbered: then its subtree is walked
    ref_end = {id(w): nxt.ref_start for w, nxt in zip(windows, windows[1:], strict=False)}
    last = len(refs) + 1
    by_display: dict[int, list[WindowInfo]] = {}
    for win in windows:
        if win.tops:
            by_display.setdefault(win.display, []).append(win)
    for wins in by_display.values():
        if len(wins) < 2:
            continue
        wins = wins[:MAX_COVER_WINDOWS]
        ranks = [_rank(w) for w in wins]
        areas = [_area_rect(w) for w in wins]
        covers = [_cover_rects(w, r) for w, r in zip(wins, ranks, strict=True)]
        for i, low in enumerate(wins):
            area = areas[i]
            if area is None:
                continue
            above: list[Rect] = []
            for j, high in enumerate(wins):
                if j == i or not _above(high, low, ranks[j], ranks[i], areas[j], area):
                    continue
                if _dialog_of(areas[j], area, ranks[j], ranks[i]):
                    continue  # modal: the whole app is behind it (acting verbs refuse it)
                for r in covers[j]:
                    if intersect(r, area) is not None:
                        above.append(r)
            if not above:
                continue
            hull = _hull(above)
            if renumbered:
                mine: Iterable[Node] = _walk(low.tops)
            else:
                end = ref_end.get(id(low), last)
                mine = [refs[r] for r in range(low.ref_start, end) if r in refs]
            for node in mine:
                vis = node.vis
                if node.ref is None or vis is None or intersect(vis, hull) is None:
                    continue
                cx, cy = (vis[0] + vis[2]) // 2, (vis[1] + vis[3]) // 2
                if not _inside(cx, cy, above):
                    continue
                over = [c for r in above if (c := intersect(r, vis)) is not None]
                if len(over) > MAX_COVER_RECTS:
                    over = [_hull(over)]  # bounded work; at worst a "covered" too many
                point = _uncovered_point(vis, over)
                if point is None:
                    node.states = node.states + ("covered",)
                else:
                    node.tap = point


# -- displays ------------------------------------------------------------------------------


def _mark_displays(st: PruneState) -> None:
    """``display`` on the nodes of other displays' windows (their headers say ``display=N``)."""
    for win in st.windows:
        if win.display != 0:
            for node in _walk(win.tops):
                node.display = win.display


# -- the snapshot --------------------------------------------------------------------------


def build_snapshot(
    st: PruneState, limits: dict[str, int | None], tracker: RefTracker | None = None
) -> Snapshot:
    """Settle what needed the whole dump, name the windows, render, return the Snapshot.

    With a ``tracker`` (a Page's), refs are renumbered to stay stable across snapshots
    before anything is rendered; without one they are ``1..N`` in line order.
    """
    windows = st.windows
    refs = st.refs
    if windows:
        screens = _screens(windows)
        default = 0 if 0 in screens else windows[0].display
        width, height = screens[default]
        displays = len(screens) > 1 or default != 0
        unbounded = [w for w in windows if w.unbounded]
        _set_tops(windows)
        renumber = False
        for win in unbounded:
            w, h = screens[win.display]
            if w and h and win.tops:
                holders = [st.roots] + [n.children for n in st.window_nodes]
                if _clip_unbounded(win, (0, 0, w, h), holders):
                    renumber = True
        if len(windows) > 1:
            _uncover(windows, refs, renumber)
        if displays:
            _mark_displays(st)
        package = _foreground_package(w for w in windows if w.display == default)
        tops = window_headers(windows, st.window_nodes, screens, default, package)
        if renumber:
            refs = _renumber(tops)
    else:
        width = height = 0
        package = ""
        tops = []
    label_bare_refs(refs.values(), st.hidden_ids)
    if tracker is not None:
        refs = tracker.assign(tops, refs, (width, height))
    tree = Node("", text=screen_text(width, height), children=tops)
    rendered = render_report(tree, **limits)
    return Snapshot(
        rendered.text,
        RefMap(dict(sorted(refs.items()))),
        tree,
        width=width,
        height=height,
        rotation=st.rotation,
        package=package,
        truncation=rendered.truncation,
    )
