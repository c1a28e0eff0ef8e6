"""The pruning rules, applied while the dump is being parsed.

:class:`PruneState` exposes two callbacks, ``start(name, attrs)`` and ``end(name)``, with
exactly the signature of expat's element handlers. :mod:`~baremobile.snapshot.stream` plugs
them into expat; anything else that walks a dump in document order can drive them too.

When a ``node`` **opens** (its children are still unknown):

* its **visible rect** is its bounds clipped to its parent's visible rect (or, for children
  that Android draws outside their parent, to the window); a window's root is clipped to the
  screen's origin (x, y >= 0) and to its ``<window>`` bounds; an empty rect means the node is
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
   (of at most :data:`ECHO_LABEL_MAX` characters) goes; so does a stateful wrapper whose
   only child shows the same states;
4. **nothing to say** (no ref, text, desc or state): with no children it is dropped; a
   Group/View with one child is replaced by it, and inside a ref by all of its children;
5. a label-only node whose only child repeats its label is replaced by that child;
6. **label folding**: a ref (or stateful) node without text whose only child is a ref-less,
   stateless leaf takes that leaf's text/desc onto its own line
   (``- Group [ref=4] "Wi-Fi"`` instead of two lines);
7. an editable field showing its hint as text (``text == hint``) is printed empty with the
   hint as its desc, so the agent can tell an empty field from a filled one.

Elements other than ``hierarchy``, ``displays``, ``display``, ``window`` and ``node`` are
transparent: their ``node`` children belong to the enclosing node (or window) as if the
element were not there.

What needs the whole dump (the screen's far edges, which window covers which, the default
display) is settled after parsing, in :mod:`~baremobile.snapshot.screen`.

States: ``checked``, ``selected``, ``focused`` on any kept node; ``disabled``, ``password``
and ``scrollable`` (unless the role says it) only on refs. ``docs/snapshot.md`` gives the
reasons for each rule.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from baremobile.errors import DumpTooLarge, InvalidDump
from baremobile.snapshot import roles
from baremobile.snapshot.layout import Getter, attr, attr_dict, layout
from baremobile.snapshot.refs import id_name, parse_bounds
from baremobile.snapshot.siblings import dedup, drop_echoes, unselect
from baremobile.snapshot.tree import Node
from baremobile.snapshot.window_info import WindowInfo

__all__ = [
    "DEFAULT_ELEMENTS",
    "DEFAULT_NESTING",
    "DEFAULT_REFS",
    "ECHO_LABEL_MAX",
    "SCREEN",
    "PruneState",
    "WindowInfo",
    "intersect",
]

#: Deepest element nesting accepted (real dumps stay under 100).
DEFAULT_NESTING = 512
#: Most elements accepted: 100 times the largest dump of the real-dump corpus (504 nodes).
#: Each element costs time, and each kept node memory, so this bounds both.
DEFAULT_ELEMENTS = 50_000
#: Most refs accepted: the corpus has at most 74 on one screen.
DEFAULT_REFS = 10_000
#: Most attributes on one element (uiautomator writes at most ~25): the work per element
#: is bounded, not only the bytes of a tag (a 4 MB tag could hold 300,000 attributes).
MAX_ATTRIBUTES = 100

_BIG = 1 << 31
#: What is known of the screen while streaming: its origin. Window roots are clipped to it;
#: the far edges (the union of the windows) are only known once the dump has been read.
SCREEN = (0, 0, _BIG, _BIG)
#: Echo removal (rule 7) tests each child label for being a substring of the parent's label.
#: Above this many characters of parent label the test is skipped: it would cost
#: O(children x label), and the longest label it applies to in the corpus has 282.
ECHO_LABEL_MAX = 2048

# Frame layout (a list per open element; index constants keep the hot path cheap).
#   0 attrs of a node (None for other elements; <window> keeps its attrs in 8)
#   1 visible rect or None                 2 ref (0 = none)
#   3 kept children (list or None)         4 clip rect for children  5 window rect
#   6 ClassInfo for nodes, the tag name for other elements
#   7 True when an ancestor carries a ref       8 a label hidden in a dropped descendant
#     (for <display> and <displays>: the display id outside it)
#   9 the attribute getter of the node's layout   10 (nodes in a ref) the resource id of the
#     first dropped descendant
# An unknown element pushes its parent's frame again (the very same list), so it is
# transparent: its children see their real parent and add to its kids.

_STATES: dict[int, tuple[str, ...]] = {}


def _states(mask: int) -> tuple[str, ...]:
    st = _STATES.get(mask)
    if st is None:
        names = ("checked", "selected", "focused", "disabled", "password", "scrollable")
        st = _STATES[mask] = tuple(n for i, n in enumerate(names) if mask >> i & 1)
    return st


def intersect(
    b: tuple[int, int, int, int], c: tuple[int, int, int, int]
) -> tuple[int, int, int, int] | None:
    x1 = b[0] if b[0] > c[0] else c[0]
    y1 = b[1] if b[1] > c[1] else c[1]
    x2 = b[2] if b[2] < c[2] else c[2]
    y2 = b[3] if b[3] < c[3] else c[3]
    if x2 > x1 and y2 > y1:
        return (x1, y1, x2, y2)
    return None


def _int(s: str | None, default: Any) -> Any:
    if s is None:
        return default
    try:
        return int(s)
    except ValueError:
        return default


class PruneState:
    """Builds the pruned tree and the ref table from element start/end events."""

    def __init__(
        self,
        max_nesting: int = DEFAULT_NESTING,
        max_elements: int = DEFAULT_ELEMENTS,
        max_refs: int = DEFAULT_REFS,
    ) -> None:
        #: kept top-level nodes (one per window that kept anything), in document order
        self.roots: list[Node] = []
        #: ref → node carrying it
        self.refs: dict[int, Node] = {}
        #: the dump's top-level windows (hierarchy roots), in document order
        self.windows: list[WindowInfo] = []
        #: the ``- Window`` nodes of a ``--windows`` dump, in closing order
        self.window_nodes: list[Node] = []
        #: id(ref node) → the resource id of its first dropped descendant (an empty leaf): what
        #: names a ref that has no id, label or labelled descendant of its own
        self.hidden_ids: dict[int, str] = {}
        #: ``rotation`` of the (first) hierarchy
        self.rotation = 0
        #: the document element's name once seen
        self.root_tag: str | None = None
        #: True once the document element has closed
        self.done = False
        self.max_nesting = max_nesting
        self.max_elements = max_elements
        self.max_refs = max_refs
        self.start, self.end = self._handlers()

    max_attributes = MAX_ATTRIBUTES

    def _too_large(self, limit: str) -> DumpTooLarge:
        value = getattr(self, limit)
        what = {
            "max_nesting": f"nests deeper than {value} levels",
            "max_elements": f"has more than {value} elements",
            "max_refs": f"has more than {value} actionable nodes (refs)",
            "max_attributes": f"has an element with more than {value} attributes",
        }[limit]
        return DumpTooLarge(f"the dump {what} ({limit}); refused", limit=limit, value=value)

    def _handlers(
        self,
    ) -> tuple[Callable[[str, list[str]], None], Callable[[str], None]]:
        # One closure pair on purpose: locals are the cheapest lookups on the hot path.
        state = self
        refs = self.refs
        windows = self.windows
        doc_frame: list[Any] = [
            None,
            None,
            0,
            self.roots,
            SCREEN,
            SCREEN,
            "#document",
            False,
            None,
            None,
        ]
        stack: list[list[Any]] = [doc_frame]
        limit = self.max_nesting + 1
        bcache: dict[str | None, tuple[int, int, int, int]] = {}
        zero = (0, 0, 0, 0)
        ccache = roles._CACHE
        class_info = roles.class_info
        window_nodes = self.window_nodes
        hidden_ids = self.hidden_ids
        nref = 0
        max_refs = self.max_refs
        budget = self.max_elements  # elements still accepted
        display: int | None = None  # the id of the <display> being read
        open_windows: list[dict[str, str]] = []  # attributes of the <window>s being read
        names: list[str] | None = None  # the attribute names of the last node (its layout)
        get_start: Getter = itemgetter(0)
        get_end: Getter = itemgetter(0)
        i_visible = 0

        def other_start(name: str, al: list[str]) -> None:
            nonlocal display, budget
            budget -= 1
            if budget < 0:
                raise state._too_large("max_elements")
            if len(al) > 2 * MAX_ATTRIBUTES:
                raise state._too_large("max_attributes")
            if len(stack) > limit:
                raise state._too_large("max_nesting")
            a = attr_dict(al)
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
                stack.append([None, None, 0, None, p[4], p[5], name, False, None, None])
            elif name == "window":
                win = intersect(parse_bounds(a.get("bounds")), SCREEN) or p[5]
                stack.append([None, win, 0, None, win, win, name, False, a, None])
                open_windows.append(a)
            elif name == "display" or name == "displays":
                stack.append([None, None, 0, None, p[4], p[5], name, False, display, None])
                if name == "display":
                    display = _int(a.get("id"), 0)
            else:  # an element we do not know: transparent (its parent's frame again)
                stack.append(p)

        def other_end(name: str) -> None:
            nonlocal display
            f = stack.pop()
            p = stack[-1]
            if f is p:
                return  # an unknown element: transparent
            kids = f[3]
            tag = f[6]
            if tag == "display":
                display = f[8]
            elif tag == "window":
                open_windows.pop()
                if kids:
                    a = f[8]
                    st = ("focused",) if a.get("focused") == "true" else ()
                    node = Node("Window", None, a.get("title", ""), "", st, kids, a, f[1])
                    node.display = display or 0
                    window_nodes.append(node)
                    kids = [node]
            if kids:
                pk = p[3]
                if pk is None:
                    p[3] = kids
                else:
                    pk.extend(kids)
            if len(stack) == 1:
                state.done = True

        def window_root(a: list[str], b: Any, vis: Any, p: list[Any]) -> Any:
            """A window's root node: record the window; returns the rect its nodes clip to."""
            if state.root_tag is None:
                raise InvalidDump(
                    "not a uiautomator dump: the document element is <node>, "
                    "expected <hierarchy> or <displays>"
                )
            ad = attr_dict(a)
            wa = open_windows[-1] if open_windows else None
            info = WindowInfo(
                ad.get("package", ""),
                b,
                wa.get("type", "") if wa is not None else "",
                wa.get("title", "") if wa is not None else "",
                display=display if display is not None else _int(ad.get("display-id"), 0),
                layer=_int(wa.get("layer"), None) if wa is not None else None,
                index=len(windows),
                windowed=wa is not None,
            )
            windows.append(info)
            info.rect = vis
            if wa is not None:
                info.frame = intersect(parse_bounds(wa.get("bounds")), SCREEN)
            win = vis if vis is not None else p[5]
            info.unbounded = win is SCREEN
            if p[3] is None:
                p[3] = []
            info.kids = p[3]
            info.kid_start = len(p[3])
            info.ref_start = nref + 1
            return win

        def start(name: str, a: list[str]) -> None:
            nonlocal nref, budget, names, get_start, get_end, i_visible
            if name != "node":
                other_start(name, a)
                return
            budget -= 1
            if budget < 0:
                raise state._too_large("max_elements")
            if len(stack) > limit:
                raise state._too_large("max_nesting")
            if len(a) > 2 * MAX_ATTRIBUTES:
                raise state._too_large("max_attributes")
            if a[::2] != names:
                names = a[::2]
                get_start, get_end, i_visible = layout(names)
            bs, cls, clickable, long_clickable, checkable, scrollable, password = get_start(a)
            p = stack[-1]
            b = bcache.get(bs)
            if b is None:
                # parse_bounds, inline: "[x1,y1][x2,y2]", else (0, 0, 0, 0)
                b = zero
                if bs and bs[0] == "[" and bs[-1] == "]":
                    try:
                        x1, y1, x2, y2 = bs[1:-1].replace("][", ",").split(",")
                        b = (int(x1), int(y1), int(x2), int(y2))
                    except ValueError:
                        pass
                if len(bcache) < 65536:
                    bcache[bs] = b
            x1, y1, x2, y2 = b
            clip = p[4]
            cx1, cy1, cx2, cy2 = clip
            if x1 >= cx1 and y1 >= cy1 and x2 <= cx2 and y2 <= cy2:
                vis = b if x2 > x1 and y2 > y1 else None
            else:
                vis = intersect(b, clip)
                if vis is None:
                    vis = intersect(b, p[5])
            ci = ccache.get(cls)
            if ci is None:
                ci = class_info(cls or "")
            win = p[5] if p[0] is not None else window_root(a, b, vis, p)
            ref = 0
            if vis is not None:
                if i_visible and a[i_visible] == "false":
                    vis = None
                elif (
                    clickable == "true"
                    or long_clickable == "true"
                    or checkable == "true"
                    or scrollable == "true"
                    or ci.editable
                    or password == "true"
                ):
                    nref += 1
                    ref = nref
                    if nref > max_refs:
                        raise state._too_large("max_refs")
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
                    get_end,
                    None,
                ]
            )

        def end(name: str) -> None:
            if name != "node":
                other_end(name)
                return
            a, vis, ref, kids, _, _, ci, inref, hidden, fields, hidden_id = stack.pop()
            pf = stack[-1]
            text, desc, checked, selected, focused, enabled, password, scrollable = fields(a)
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
                    for label in (text, desc, hidden):
                        if label and not label.isspace():
                            pf[8] = label
                            break
                return
            if not text or text.isspace():
                text = ""
            if not desc or desc.isspace():
                desc = ""
            mask = 0
            if checked == "true":
                mask = 1
            if selected == "true":
                mask |= 2
            if focused == "true":
                mask |= 4
            if hidden and not ref and inref and pf[8] is None:
                pf[8] = hidden  # hidden labels travel up to the ref they sit in
            if ref:
                if hidden and not text and not desc:
                    desc = hidden  # a ref without a label of its own, named by a hidden child
                if enabled == "false":
                    mask |= 8
                if password == "true":
                    mask |= 16
                if scrollable == "true" and not ci.scroller:
                    mask |= 32
                if ci.editable or mask & 16:
                    hint = attr(a, "hint")
                    if hint and not hint.isspace():
                        if text == hint:
                            text = ""
                        if not desc and not text:
                            desc = hint
            if kids:
                if mask & 2 and (
                    ref or text or desc or len(kids) > 1 or "selected" not in kids[0].states
                ):
                    # a selected node selects all of its children (ViewGroup.dispatchSetSelected):
                    # theirs says nothing more, and a leaf kept only to show it goes
                    kids = unselect(kids)
                if len(kids) > 1:
                    kids = dedup(kids)
                if (text or desc) and len(text) + len(desc) <= ECHO_LABEL_MAX:
                    kids = drop_echoes(kids, text, desc, _states(mask))
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
                    # an empty leaf; its resource id may still name the ref it sits in
                    if inref and pf[10] is None:
                        rid = attr(a, "resource-id")
                        pf[10] = rid if rid and id_name(rid) else hidden_id
                    return
                if ci.wrapper and (len(kids) == 1 or inref):
                    # a wrapper: replaced by its only child; inside a ref, by all of them
                    # (the whole subtree is one tap target, its sub-grouping says nothing)
                    if hidden_id and inref and pf[10] is None:
                        pf[10] = hidden_id
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
                if hidden_id:
                    hidden_ids[id(node)] = hidden_id
            elif hidden_id and inref and pf[10] is None:
                pf[10] = hidden_id
            pk = pf[3]
            if pk is None:
                pf[3] = [node]
            else:
                pk.append(node)

        return start, end
