"""The pruning rules, applied while the dump is being parsed.

:class:`PruneState` exposes two callbacks, ``start(name, attrs)`` and ``end(name)``, with
exactly the signature of expat's element handlers. :mod:`~baremobile.snapshot.stream` plugs
them into expat; anything else that walks a dump in document order can drive them too.

When a ``node`` **opens** (its children are still unknown):

* its **visible rect** is its bounds clipped to its parent's visible rect (or, for children
  that Android draws outside their parent, to the window); an empty rect means the node is
  zero-area or off screen, and the node itself is dropped (its children are still examined);
* it gets the **next ref** (1-based, document order) when it is visible and clickable,
  long-clickable, checkable, scrollable or editable (an EditText-like class or a password
  field). A ref, once given, is never taken back, so refs are dense.

When a ``node`` **closes** (its children are final and already pruned):

1. invisible: the node goes; its kept children move up to its parent, and its label may
   still name the ref it sits in (a "hidden label": tabs whose title view is ``[0,0][0,0]``);
2. **dedup**: of sibling leaves without a ref, the second and later copies of the same
   (role, text, desc, states) are dropped (RecyclerView repeats, separators);
3. **echoes**: a ref-less leaf child whose text/desc is already part of this node's label
   goes; so does a stateful wrapper whose only child shows the same states;
4. **nothing to say** (no ref, text, desc or state): with no children it is dropped; a
   Group/View with one child is replaced by it, and inside a ref by all of its children;
5. a label-only node whose only child repeats its label is replaced by that child;
6. **label folding**: a ref (or stateful) node without text whose only child is a ref-less,
   stateless leaf takes that leaf's text/desc onto its own line
   (``- Group [ref=4] "Wi-Fi"`` instead of two lines);
7. an editable field showing its hint as text (``text == hint``) is printed empty with the
   hint as its desc, so the agent can tell an empty field from a filled one.

States: ``checked``, ``selected``, ``focused`` on any kept node; ``disabled``, ``password``
and ``scrollable`` (unless the role says it) only on refs. ``docs/snapshot.md`` gives the
reasons for each rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baremobile.errors import InvalidDump
from baremobile.snapshot import roles
from baremobile.snapshot.refs import parse_bounds
from baremobile.snapshot.tree import Node

__all__ = ["PruneState", "WindowInfo"]

_BIG = 1 << 31
_NO_CLIP = (-_BIG, -_BIG, _BIG, _BIG)

# Frame layout (a list per open element; index constants keep the hot path cheap).
#   0 attrs of a node (None for other elements; <window> keeps its attrs in 8)
#   1 visible rect or None                 2 ref (0 = none)
#   3 kept children (list or None)         4 clip rect for children  5 window rect
#   6 ClassInfo for nodes, the tag name for other elements
#   7 True when an ancestor carries a ref       8 a label hidden in a dropped descendant

_STATES: dict[int, tuple[str, ...]] = {}


def _states(mask: int) -> tuple[str, ...]:
    st = _STATES.get(mask)
    if st is None:
        names = ("checked", "selected", "focused", "disabled", "password", "scrollable")
        st = _STATES[mask] = tuple(n for i, n in enumerate(names) if mask >> i & 1)
    return st


def _intersect(
    b: tuple[int, int, int, int], c: tuple[int, int, int, int]
) -> tuple[int, int, int, int] | None:
    x1 = b[0] if b[0] > c[0] else c[0]
    y1 = b[1] if b[1] > c[1] else c[1]
    x2 = b[2] if b[2] < c[2] else c[2]
    y2 = b[3] if b[3] < c[3] else c[3]
    if x2 > x1 and y2 > y1:
        return (x1, y1, x2, y2)
    return None


def _dedup(kids: list[Node]) -> list[Node]:
    seen: set[tuple[Any, ...]] | None = None
    out: list[Node] | None = None
    for i, k in enumerate(kids):
        if k.ref is None and not k.children:
            key = (k.role, k.text, k.desc, k.states)
            if seen is None:
                seen = {key}
            elif key in seen:
                if out is None:
                    out = kids[:i]
                continue
            else:
                seen.add(key)
        if out is not None:
            out.append(k)
    return kids if out is None else out


def _drop_echoes(
    kids: list[Node], text: str, desc: str, states: tuple[str, ...]
) -> list[Node] | None:
    out: list[Node] | None = None
    for i, k in enumerate(kids):
        if (
            k.ref is None
            and not k.children
            and (not k.states or all(s in states for s in k.states))
            and (not k.text or k.text in text or k.text in desc)
            and (not k.desc or k.desc in text or k.desc in desc)
        ):
            if out is None:
                out = kids[:i]
            continue
        if out is not None:
            out.append(k)
    if out is None:
        return kids
    return out or None


class WindowInfo:
    """A top-level window of the dump: where it is and whose it is."""

    __slots__ = ("package", "bounds", "kind", "title")

    def __init__(
        self, package: str, bounds: tuple[int, int, int, int], kind: str = "", title: str = ""
    ) -> None:
        self.package = package
        self.bounds = bounds
        self.kind = kind
        self.title = title

    @property
    def area(self) -> int:
        b = self.bounds
        return max(0, b[2] - b[0]) * max(0, b[3] - b[1])

    def __repr__(self) -> str:
        return f"<WindowInfo {self.package} {self.bounds} {self.kind}>"


class PruneState:
    """Builds the pruned tree and the ref table from element start/end events."""

    def __init__(self, max_nesting: int = 512) -> None:
        #: kept top-level nodes (one per window that kept anything), in document order
        self.roots: list[Node] = []
        #: ref → node carrying it
        self.refs: dict[int, Node] = {}
        #: the dump's top-level windows (hierarchy roots), in document order
        self.windows: list[WindowInfo] = []
        #: ``rotation`` of the (first) hierarchy
        self.rotation = 0
        #: the document element's name once seen
        self.root_tag: str | None = None
        #: True once the document element has closed
        self.done = False
        self.max_nesting = max_nesting
        self.start, self.end = self._handlers()

    def _handlers(
        self,
    ) -> tuple[Callable[[str, dict[str, str]], None], Callable[[str], None]]:
        # One closure pair on purpose: locals are the cheapest lookups on the hot path.
        state = self
        refs = self.refs
        windows = self.windows
        doc_frame: list[Any] = [
            None,
            None,
            0,
            self.roots,
            _NO_CLIP,
            _NO_CLIP,
            "#document",
            False,
            None,
        ]
        stack: list[list[Any]] = [doc_frame]
        limit = self.max_nesting + 1
        bcache: dict[str | None, tuple[int, int, int, int]] = {}
        ccache = roles._CACHE
        class_info = roles.class_info
        nref = 0

        def other_start(name: str, a: dict[str, str]) -> None:
            if len(stack) > limit:
                raise InvalidDump(f"the dump nests deeper than {state.max_nesting} levels; refused")
            p = stack[-1]
            if state.root_tag is None:
                if name not in ("hierarchy", "displays"):
                    raise InvalidDump(
                        f"not a uiautomator dump: the document element is <{name[:40]}>, "
                        "expected <hierarchy> or <displays>"
                    )
                state.root_tag = name
            if name == "hierarchy":
                if not state.windows:
                    try:
                        state.rotation = int(a.get("rotation", "0"))
                    except ValueError:
                        state.rotation = 0
                stack.append([None, None, 0, None, p[4], p[5], name, False, None])
            elif name == "window":
                b = parse_bounds(a.get("bounds"))
                win = b if b[2] > b[0] and b[3] > b[1] else p[5]
                stack.append([None, win, 0, None, win, win, name, False, a])
            else:  # displays, display, or an element we do not know: transparent
                stack.append([None, None, 0, None, p[4], p[5], name, False, None])

        def other_end(name: str) -> None:
            f = stack.pop()
            kids = f[3]
            p = stack[-1]
            if f[6] == "window" and kids:
                a = f[8]
                st = ("focused",) if a.get("focused") == "true" else ()
                node = Node("Window", None, a.get("title", ""), "", st, kids, a, f[1])
                kids = [node]
            if kids:
                pk = p[3]
                if pk is None:
                    p[3] = kids
                else:
                    pk.extend(kids)
            if len(stack) == 1:
                state.done = True

        def start(name: str, a: dict[str, str]) -> None:
            nonlocal nref
            if name != "node":
                other_start(name, a)
                return
            if len(stack) > limit:
                raise InvalidDump(f"the dump nests deeper than {state.max_nesting} levels; refused")
            p = stack[-1]
            bs = a.get("bounds")
            b = bcache.get(bs)
            if b is None:
                b = parse_bounds(bs)
                if len(bcache) < 65536:
                    bcache[bs] = b
            x1, y1, x2, y2 = b
            clip = p[4]
            cx1, cy1, cx2, cy2 = clip
            if x1 >= cx1 and y1 >= cy1 and x2 <= cx2 and y2 <= cy2:
                vis = b if x2 > x1 and y2 > y1 else None
            else:
                vis = _intersect(b, clip)
                if vis is None:
                    vis = _intersect(b, p[5])
            cls = a.get("class") or ""
            ci = ccache.get(cls)
            if ci is None:
                ci = class_info(cls)
            if p[0] is None:
                # the root node of a window
                if state.root_tag is None:
                    raise InvalidDump(
                        "not a uiautomator dump: the document element is <node>, "
                        "expected <hierarchy> or <displays>"
                    )
                if p[6] == "hierarchy":
                    up = stack[-2]
                    kind = up[8].get("type", "") if up[6] == "window" else ""
                    windows.append(WindowInfo(a.get("package", ""), b, kind))
                win = vis if vis is not None else p[5]
            else:
                win = p[5]
            if vis is not None and a.get("visible-to-user") == "false":
                vis = None
            ref = 0
            if vis is not None and (
                a.get("clickable") == "true"
                or a.get("long-clickable") == "true"
                or a.get("checkable") == "true"
                or a.get("scrollable") == "true"
                or ci.editable
                or a.get("password") == "true"
            ):
                nref += 1
                ref = nref
            stack.append(
                [
                    a,
                    vis,
                    ref,
                    None,
                    vis if vis is not None else clip,
                    win,
                    ci,
                    p[7] or p[2] != 0,
                    None,
                ]
            )

        def end(name: str) -> None:
            if name != "node":
                other_end(name)
                return
            a, vis, ref, kids, _, _, ci, inref, hidden = stack.pop()
            pf = stack[-1]
            if vis is None:
                # zero-area, off screen or invisible: the node goes, its visible children stay
                if kids:
                    pk = pf[3]
                    if pk is None:
                        pf[3] = kids
                    else:
                        pk.extend(kids)
                # ... and its label may still name the ref it sits in (a tab whose title
                # view is collapsed to [0,0][0,0])
                if inref and pf[8] is None:
                    for label in (a.get("text"), a.get("content-desc"), hidden):
                        if label and not label.isspace():
                            pf[8] = label
                            break
                return
            text = a.get("text") or ""
            if text and text.isspace():
                text = ""
            desc = a.get("content-desc") or ""
            if desc and desc.isspace():
                desc = ""
            mask = 0
            if a.get("checked") == "true":
                mask = 1
            if a.get("selected") == "true":
                mask |= 2
            if a.get("focused") == "true":
                mask |= 4
            if hidden and not ref and inref and pf[8] is None:
                pf[8] = hidden  # hidden labels travel up to the ref they sit in
            if ref:
                if hidden and not text and not desc:
                    desc = hidden  # a ref without a label of its own, named by a hidden child
                if a.get("enabled") == "false":
                    mask |= 8
                if a.get("password") == "true":
                    mask |= 16
                if a.get("scrollable") == "true" and not ci.scroller:
                    mask |= 32
                if ci.editable or mask & 16:
                    hint = a.get("hint")
                    if hint and not hint.isspace():
                        if text == hint:
                            text = ""
                        if not desc and not text:
                            desc = hint
            if kids:
                if len(kids) > 1:
                    kids = _dedup(kids)
                if text or desc:
                    kids = _drop_echoes(kids, text, desc, _states(mask))
            if (
                mask
                and not (ref or text or desc)
                and kids
                and len(kids) == 1
                and all(n in kids[0].states for n in _states(mask))
            ):
                mask = 0  # the only child shows the same states: this wrapper adds nothing
            if not (ref or text or desc or mask):
                if not kids:
                    return  # an empty leaf
                if ci.wrapper and (len(kids) == 1 or inref):
                    # a wrapper: replaced by its only child; inside a ref, by all of them
                    # (the whole subtree is one tap target, its sub-grouping says nothing)
                    pk = pf[3]
                    if pk is None:
                        pf[3] = kids
                    else:
                        pk.extend(kids)
                    return
            elif (
                not ref
                and not mask
                and kids
                and len(kids) == 1
                and (not text or text == kids[0].text)
                and (not desc or desc == kids[0].desc or desc == kids[0].text)
            ):
                # a label-only node whose only child repeats its label: the child says it all
                pk = pf[3]
                if pk is None:
                    pf[3] = kids
                else:
                    pk.append(kids[0])
                return
            elif kids and not text and len(kids) == 1:
                k = kids[0]
                if (
                    k.ref is None
                    and not k.children
                    and not k.states
                    and (not desc or not k.desc or k.desc == desc)
                ):
                    text = k.text
                    if not desc:
                        desc = k.desc
                    kids = None
            st = _states(mask) if mask else ()
            node = Node(ci.role, ref or None, text, desc, st, kids, a, vis)
            if ref:
                refs[ref] = node
            pk = pf[3]
            if pk is None:
                pf[3] = [node]
            else:
                pk.append(node)

        return start, end
