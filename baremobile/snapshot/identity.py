"""Stable refs: within one Page, an element keeps its ``[ref=N]`` from snapshot to snapshot.

:class:`RefTracker` is sans-I/O: it is handed each new pruned tree (its refs numbered
``1..N`` by the pruner) and renumbers the refs in place, matching them against the refs of
the previous tree. A Page holds one for its whole life; the one-shot ``from_xml`` /
``baremobile.snapshot()`` have none and keep ``1..N``.

**What identifies an element** (its *key*): its window (the header's kind, package and
display), its class, its resource id and

* its label — the text and desc its line shows; for an editable field, whose text is what
  was typed, its ``hint`` and ``content-desc`` attributes instead;
* the labels of the lines inside it, down to the next ref (a row's ``Text`` lines), except
  for a scrollable element, whose contents change as it scrolls;
* for a ref with neither (a bare icon or switch), its context: its parent line's label and
  the labels of the label-only lines beside it (the row's title next to a switch).

**The rule**, applied to the previous and the new snapshot's refs:

1. Same key, one on each side: the same element, wherever it moved (scrolled, rotated,
   under a dialog now).
2. Same key, several on a side (identical rows): paired in order, at the offset whose
   pairs moved the way their container moved. A container's move is the median move of
   its elements that rule 1 matched (the nearest scrollable ref around them, else the
   window); a pair counts when the old element, moved that much, and the new one share at
   least half of the smaller of the two. Without a known move, 0 is assumed; after the
   screen's size changed (rotation), pairs are made in order only when both sides have as
   many. (More than :data:`MAX_ALIGN` identical elements on a side are not paired.)
3. A ref still unmatched, of the same window, class and id, whose labels are related —
   the same first label (a row's title, its second line changed: "100%" → "99%"), or one
   set of labels inside the other (a row half scrolled off shows only some of its lines)
   — keeps its number when it sits where its container's known move puts it (the same
   overlap test). Not after a rotation, never without a known move, never for an editable
   field (rule 1 already follows those).
4. A ref still unmatched is matched the same way (rules 1–3) against each of the
   :data:`HISTORY` screens before the previous one, most recent first, among their refs
   whose numbers the new screen does not use yet: an element that left the screen and
   came back (navigating back, a dialog closed, a list scrolled back) gets its number back.
   A number names one element for the Page's whole life; this rule gives it back to that
   element, never to another one.
5. Everything else is a new element: it gets the next unused number.

**Limits.** Two elements that share every part of a key cannot be told apart: when one
replaces the other (a list scrolled by exactly one identical row, the "Navigate up" button
of the next screen of the same app, at the same place) it inherits the ref — tapping it
does what tapping the first would have. An element whose label changes outside rule 3 (a
button going "Follow" → "Following") gets a new ref, and so does an element that comes
back after more than :data:`HISTORY` snapshots.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from baremobile.snapshot.roles import class_info
from baremobile.snapshot.tree import Node, Window

__all__ = ["RefTracker", "element_keys"]

#: Inner labels kept per element (a long row says who it is in its first lines).
MAX_INNER = 8
#: Neighbour labels kept as a bare ref's context.
MAX_CONTEXT = 4
#: Descriptions of gone refs remembered for error messages.
MAX_GONE = 4096
#: Identical elements paired by rule 2 per side at most (the offset search is quadratic);
#: more than that (a hostile dump) get new numbers.
MAX_ALIGN = 128
#: Screens remembered, the previous one included: an element that left the screen and
#: comes back within this many snapshots gets its number back (rule 4).
HISTORY = 8

Key = tuple[object, ...]
#: a window's key: its header's kind, package and display
WindowKey = tuple[str, str, int]
#: an element's key: (window, class, id, editable, label, inner labels, context)
ElementKey = tuple[WindowKey, str, str, bool, tuple[str, str], tuple[str, ...], tuple[str, ...]]


@dataclass(slots=True)
class _Entry:
    ref: int
    node: Node
    key: ElementKey
    group: Key | None  # (window, class, id) for rule 3; None for editable fields
    labels: tuple[str, ...]  # its label and inner labels, in line order
    container: Key
    rect: tuple[int, int, int, int]

    @property
    def center(self) -> tuple[int, int]:
        r = self.rect
        return ((r[0] + r[2]) // 2, (r[1] + r[3]) // 2)


def _label(node: Node) -> tuple[str, str]:
    return (node.text, node.desc)


def _scrolls(node: Node) -> bool:
    if node.from_dump:
        return node.attr("scrollable") == "true"
    return node.role in ("List", "ScrollView", "Pager") or "scrollable" in node.states


def _editable(node: Node) -> bool:
    if not node.from_dump:
        return node.role == "TextInput"
    return class_info(node.attr("class")).editable or node.attr("password") == "true"


def _inner(node: Node) -> tuple[str, ...]:
    """Labels of the ref-less lines inside ``node``, down to the next ref."""
    out: list[str] = []
    stack = list(reversed(node.children))
    while stack and len(out) < MAX_INNER:
        n = stack.pop()
        if n.ref is not None:
            continue
        for s in (n.text, n.desc):
            if s:
                out.append(s)
        stack.extend(reversed(n.children))
    return tuple(out[:MAX_INNER])


def _context(parent: Node | None) -> tuple[str, ...]:
    """A bare ref's context: its parent line's labels and those of the label-only lines
    beside it (the same for every ref of one parent)."""
    if parent is None:
        return ()
    out = [s for s in (parent.text, parent.desc) if s] if type(parent) is not Window else []
    limit = len(out) + MAX_CONTEXT
    for sib in parent.children:
        if sib.ref is not None or sib.children:
            continue
        for s in (sib.text, sib.desc):
            if s:
                out.append(s)
        if len(out) >= limit:
            break
    return tuple(out[:limit])


def _entries(tops: Iterable[Node]) -> list[_Entry]:
    """One entry per ref, in line order."""
    out: list[_Entry] = []
    contexts: dict[int, tuple[str, ...]] = {}  # id(parent) → its bare refs' context
    # (node, window key, parent, container key)
    stack: list[tuple[Node, WindowKey, Node | None, Key]] = []
    for top in reversed(list(tops)):
        if type(top) is Window:
            wkey: WindowKey = (top.kind, top.package_name, top.display)
        else:
            wkey = ("", "", top.display)
        stack.append((top, wkey, None, ("window", *wkey)))
    while stack:
        node, wkey, parent, container = stack.pop()
        inner_container = container
        if node.ref is not None:
            dumped = node.from_dump
            cls = node.attr("class") if dumped else node.role
            rid = node.attr("resource-id") if dumped else node.id_name
            editable = _editable(node)
            if editable and dumped:
                label = (node.attr("hint"), node.attr("content-desc"))
            else:
                label = _label(node)
            scrolls = _scrolls(node)
            inner = () if scrolls else _inner(node)
            context: tuple[str, ...] = ()
            if label == ("", "") and not inner:
                known = contexts.get(id(parent))
                if known is None:
                    known = contexts[id(parent)] = _context(parent)
                context = known
            key: ElementKey = (wkey, cls, rid, editable, label, inner, context)
            labels = tuple(x for x in (*label, *inner) if x)
            group = None if editable or not labels else (wkey, cls, rid)
            out.append(
                _Entry(node.ref, node, key, group, labels, container, node.vis or (0, 0, 0, 0))
            )
            if scrolls:
                inner_container = ("scroller", key)
        for kid in reversed(node.children):
            stack.append((kid, wkey, node, inner_container))
    return out


def element_keys(tops: Iterable[Node]) -> dict[int, ElementKey]:
    """ref → the key that identifies its element (see the module docs); for tests."""
    return {e.ref: e.key for e in _entries(tops)}


def _overlap(old: _Entry, new: _Entry, shift: tuple[float, float]) -> float:
    """How much of the smaller of ``old`` moved by ``shift`` and ``new`` they share (0–1)."""
    a, b = old.rect, new.rect
    ax1, ay1, ax2, ay2 = a[0] + shift[0], a[1] + shift[1], a[2] + shift[0], a[3] + shift[1]
    w = min(ax2, b[2]) - max(ax1, b[0])
    h = min(ay2, b[3]) - max(ay1, b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / smaller if smaller > 0 else 0.0


def _fits(old: _Entry, new: _Entry, shift: tuple[float, float]) -> bool:
    """Whether ``old`` moved by ``shift`` covers at least half of ``new``, or the reverse
    (a row partly scrolled off is a part of what it was)."""
    return _overlap(old, new, shift) >= 0.5


def _related(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """Labels of one element before and after: the same first label (a row's title), or
    one set inside the other (lines clipped off, or added)."""
    if old[0] == new[0]:
        return True
    a, b = set(old), set(new)
    return a <= b or b <= a


def _deviation(old: _Entry, new: _Entry, shift: tuple[float, float]) -> float:
    return abs(new.center[0] - old.center[0] - shift[0]) + abs(
        new.center[1] - old.center[1] - shift[1]
    )


class _Matcher:
    def __init__(self, old: list[_Entry], new: list[_Entry], resized: bool) -> None:
        self.old = old
        self.new = new
        self.resized = resized
        self.pairs: dict[int, _Entry] = {}  # id(new entry) -> old entry
        self.used: set[int] = set()  # id(old entry)
        self.shifts: dict[Key, tuple[float, float]] = {}

    def pair(self, o: _Entry, n: _Entry) -> None:
        self.pairs[id(n)] = o
        self.used.add(id(o))

    def shift(self, n: _Entry) -> tuple[float, float] | None:
        s = self.shifts.get(n.container)
        if s is None:
            s = self.shifts.get(("window", *n.key[0]))
        return s

    def run(self) -> dict[int, _Entry]:
        olds: dict[Key, list[_Entry]] = {}
        for o in self.old:
            olds.setdefault(o.key, []).append(o)
        news: dict[Key, list[_Entry]] = {}
        for n in self.new:
            news.setdefault(n.key, []).append(n)
        multi: list[tuple[list[_Entry], list[_Entry]]] = []
        moves: dict[Key, list[tuple[int, int]]] = {}
        for key, ns in news.items():
            os_ = olds.get(key)
            if not os_:
                continue
            if len(os_) == 1 and len(ns) == 1:
                o, n = os_[0], ns[0]
                self.pair(o, n)
                move = (n.center[0] - o.center[0], n.center[1] - o.center[1])
                moves.setdefault(n.container, []).append(move)
                moves.setdefault(("window", *n.key[0]), []).append(move)
            else:
                multi.append((os_, ns))
        if not self.resized:
            for c, ms in moves.items():
                self.shifts[c] = (
                    statistics.median(m[0] for m in ms),
                    statistics.median(m[1] for m in ms),
                )
        for os_, ns in multi:
            self.align(os_, ns)
        if not self.resized:
            self.loose()
        return self.pairs

    def align(self, os_: list[_Entry], ns: list[_Entry]) -> None:
        """Rule 2: identical elements, paired in order at the offset that fits the move."""
        if len(os_) > MAX_ALIGN or len(ns) > MAX_ALIGN:
            return
        if self.resized:
            if len(os_) == len(ns):
                for o, n in zip(os_, ns, strict=True):
                    self.pair(o, n)
            return
        best: tuple[int, float, int] | None = None
        best_pairs: list[tuple[_Entry, _Entry]] = []
        for k in range(-(len(os_) - 1), len(ns)):
            good: list[tuple[_Entry, _Entry]] = []
            dev = 0.0
            for i, o in enumerate(os_):
                j = i + k
                if 0 <= j < len(ns):
                    n = ns[j]
                    s = self.shift(n) or (0.0, 0.0)
                    if _fits(o, n, s):
                        good.append((o, n))
                        dev += _deviation(o, n, s)
            score = (len(good), -dev, -abs(k))
            if good and (best is None or score > best):
                best, best_pairs = score, good
        for o, n in best_pairs:
            self.pair(o, n)

    def loose(self) -> None:
        """Rule 3: changed labels, where the container's known move puts the element."""
        olds: dict[Key, list[_Entry]] = {}
        for o in self.old:
            if o.group is not None and id(o) not in self.used:
                olds.setdefault(o.group, []).append(o)
        if not olds:
            return
        for n in self.new:
            if n.group is None or id(n) in self.pairs:
                continue
            cands = olds.get(n.group)
            if not cands:
                continue
            s = self.shift(n)
            if s is None:
                continue
            fit = [
                o
                for o in cands
                if id(o) not in self.used and _related(o.labels, n.labels) and _fits(o, n, s)
            ]
            if fit:
                self.pair(max(fit, key=lambda o: _overlap(o, n, s)), n)


def _describe(node: Node) -> str:
    inner = _inner(node)
    label = node.text or node.desc or (inner[0] if inner else "")
    label = label or (f"#{node.id_name}" if node.id_name else "")
    if len(label) > 60:
        label = label[:59] + "…"
    return f'{node.role} "{label}"' if label else node.role


class RefTracker:
    """Hands out the refs of one Page's snapshots: the same element keeps its number (also
    when it comes back within ``history`` snapshots), a new one gets the next number, and no
    number is ever given to two elements (see the module docs)."""

    def __init__(self, history: int = HISTORY) -> None:
        if history < 1:
            raise ValueError(f"history must be at least 1 (the previous screen), not {history}")
        #: the last screens' refs (most recent first) and the screen size of each
        self._screens: deque[tuple[list[_Entry], tuple[int, int]]] = deque(maxlen=history)
        #: the next number to give
        self.next = 1
        #: numbers whose element is gone → what it was (``Button "OK"``), for error messages
        self.gone: dict[int, str] = {}

    def issued(self, ref: int) -> bool:
        """Whether ``ref`` was ever handed out by this tracker."""
        return 0 < ref < self.next

    def fork(self) -> RefTracker:
        """A copy to number a tree that may not be the one shown (the native pass of a
        screen whose web content is merged in a second pass): :meth:`adopt` it if it was."""
        other = RefTracker(self._screens.maxlen or HISTORY)
        # the remembered screens' entries are never changed by assign(), only the deque
        other._screens = deque(self._screens, maxlen=self._screens.maxlen)
        other.next, other.gone = self.next, dict(self.gone)
        return other

    def adopt(self, fork: RefTracker) -> None:
        """Take the state of ``fork`` (:meth:`fork`): its tree was the one shown."""
        self._screens, self.next, self.gone = fork._screens, fork.next, fork.gone

    def assign(
        self, tops: list[Node], refs: dict[int, Node], size: tuple[int, int]
    ) -> dict[int, Node]:
        """Renumber the refs of a new tree in place; returns the new ``ref → node`` map.

        ``tops`` are the tree's top-level nodes (window headers), ``refs`` its ``1..N`` refs
        as the pruner numbered them, ``size`` the screen's.
        """
        del refs  # the tree is walked: its line order is the order new numbers follow
        new = _entries(tops)
        pairs: dict[int, _Entry] = {}
        taken: set[int] = set()
        for old, old_size in self._screens:  # the previous screen first, then older ones
            rest = [e for e in new if id(e) not in pairs] if pairs else new
            if not rest:
                break
            avail = [o for o in old if o.ref not in taken] if taken else old
            if not avail:
                continue
            found = _Matcher(avail, rest, size != old_size).run()
            pairs.update(found)
            taken.update(o.ref for o in found.values())
        out: dict[int, Node] = {}
        for e in new:
            o = pairs.get(id(e))
            if o is not None:
                e.ref = o.ref
            else:
                e.ref = self.next
                self.next += 1
            e.node.ref = e.ref
            out[e.ref] = e.node
        kept = {e.ref for e in new}
        if self._screens:
            for o in self._screens[0][0]:
                if o.ref not in kept:
                    self.gone[o.ref] = _describe(o.node)
        for r in kept:
            self.gone.pop(r, None)
        while len(self.gone) > MAX_GONE:
            del self.gone[next(iter(self.gone))]
        self._screens.appendleft((new, size))
        return out
