"""Refs: what ``[ref=N]`` points at, for the verbs that act on it.

:class:`RefMap` maps each ref of a snapshot to a :class:`RefNode` — the node's class,
resource id, own text and desc, visible bounds, a tap point inside them, its states and
flags. RefNodes are built on first access from the pruned tree, so a snapshot whose refs are
never looked up pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from baremobile.snapshot.tree import ID_NAME, Node

__all__ = ["RefMap", "RefNode", "id_name", "label_bare_refs", "parse_bounds"]


def parse_bounds(s: str | None) -> tuple[int, int, int, int]:
    """``"[x1,y1][x2,y2]"`` → ``(x1, y1, x2, y2)``; ``(0, 0, 0, 0)`` when absent or malformed."""
    if not s or s[0] != "[" or s[-1] != "]":
        return (0, 0, 0, 0)
    try:
        x1, y1, x2, y2 = s[1:-1].replace("][", ",").split(",")
        return (int(x1), int(y1), int(x2), int(y2))
    except ValueError:
        return (0, 0, 0, 0)


def id_name(resource_id: str) -> str:
    """The entry name of a resource id (``pkg:id/send`` → ``send``) when a ``#id`` can show
    it, else ``""``."""
    name = resource_id.rpartition(":id/")[2]
    return name if name and ID_NAME.fullmatch(name) else ""


def _labelled_below(node: Node) -> bool:
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.text or n.desc:
            return True
        stack.extend(n.children)
    return False


def label_bare_refs(nodes: Iterable[Node], hidden: dict[int, str] | None = None) -> None:
    """Give refs with no text, desc or labelled descendant their resource id's entry name
    (``- Image [ref=4] #send_button``): ``Node.id_name``. A ref without an id of its own
    takes that of its first pruned descendant (``hidden``: ``id(node)`` → resource id), the
    icon that fills the button."""
    for node in nodes:
        if node.text or node.desc or node.ref is None:
            continue
        rid = node.attr("resource-id") or (hidden.get(id(node), "") if hidden else "")
        if rid and not _labelled_below(node):
            node.id_name = id_name(rid)


@dataclass(frozen=True)
class RefNode:
    """One actionable node of a snapshot: everything a verb needs to act on ``[ref=N]``."""

    ref: int
    role: str
    cls: str
    """full Android class name"""
    resource_id: str
    text: str
    """the node's own ``text`` attribute (the line may show a label folded in from a child)"""
    desc: str
    """the node's own ``content-desc``"""
    label: str
    """what the snapshot line shows for it: its text, else its desc"""
    bounds: tuple[int, int, int, int]
    """visible bounds ``(x1, y1, x2, y2)``: the dump's bounds clipped to parent and window"""
    raw_bounds: tuple[int, int, int, int]
    """the ``bounds`` attribute as dumped"""
    center: tuple[int, int]
    """the tap point: inside :attr:`bounds`, and outside any window on top of this one when
    such a point exists (else the middle of :attr:`bounds`, and :attr:`covered` is true)"""
    states: tuple[str, ...]
    clickable: bool
    long_clickable: bool
    checkable: bool
    checked: bool
    scrollable: bool
    editable: bool
    focusable: bool
    focused: bool
    selected: bool
    enabled: bool
    password: bool
    package: str
    hint: str
    display: int = 0
    """the display the node is on; taps (``input tap``) go to display 0"""
    covered: bool = False
    """a window on top (keyboard, dialog, system bar) covers all of :attr:`bounds`: a tap
    would hit that window (the line shows ``[covered]``)"""

    @classmethod
    def from_node(cls, node: Node) -> RefNode:
        """Build the RefNode of a pruner-built node that carries a ref."""
        from baremobile.snapshot.roles import class_info

        a = node.attrs or {}
        vis = node.vis or (0, 0, 0, 0)
        center = node.center or (0, 0)
        klass = a.get("class", "")
        password = a.get("password") == "true"
        return cls(
            ref=node.ref or 0,
            role=node.role,
            cls=klass,
            resource_id=a.get("resource-id", ""),
            text=a.get("text", ""),
            desc=a.get("content-desc", ""),
            label=node.text or node.desc,
            bounds=vis,
            raw_bounds=parse_bounds(a.get("bounds")),
            center=center,
            states=node.states,
            clickable=a.get("clickable") == "true",
            long_clickable=a.get("long-clickable") == "true",
            checkable=a.get("checkable") == "true",
            checked=a.get("checked") == "true",
            scrollable=a.get("scrollable") == "true",
            editable=class_info(klass).editable or password,
            focusable=a.get("focusable") == "true",
            focused=a.get("focused") == "true",
            selected=a.get("selected") == "true",
            enabled=a.get("enabled", "true") != "false",
            password=password,
            package=a.get("package", ""),
            hint=a.get("hint", ""),
            display=node.display,
            covered="covered" in node.states,
        )


class RefMap(Mapping[int, RefNode]):
    """ref → :class:`RefNode`, built lazily from the pruned tree's ref nodes."""

    __slots__ = ("_nodes", "_cache")

    def __init__(self, nodes: dict[int, Node]) -> None:
        self._nodes = nodes
        self._cache: dict[int, RefNode] = {}

    def __getitem__(self, ref: int) -> RefNode:
        hit = self._cache.get(ref)
        if hit is None:
            hit = self._cache[ref] = RefNode.from_node(self._nodes[ref])
        return hit

    def __iter__(self) -> Iterator[int]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, ref: object) -> bool:
        return ref in self._nodes

    def node(self, ref: int) -> Node:
        """The tree node that carries ``ref`` (its line and subtree)."""
        return self._nodes[ref]

    def __repr__(self) -> str:
        return f"<RefMap {len(self._nodes)} refs>"
