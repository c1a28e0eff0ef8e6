"""The pruned tree: one :class:`Node` per line of snapshot text.

The pruner builds it, :func:`~baremobile.snapshot.render.render` prints it and
:func:`~baremobile.snapshot.parse.parse` rebuilds it from text. A node built by the pruner also
keeps the dump's attributes (``cls``, ``resource_id``, ``package``, ``bounds``…); a node parsed
from text has only what the grammar carries (role, ref, id, text, desc, states, children).

The root of a snapshot's tree is a node of role ``""`` whose ``text`` is the screen line
(``1080x2400 portrait``); its children are :class:`Window` headers, one per top-level window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from baremobile.snapshot.layout import attr, attr_dict

__all__ = ["ID_NAME", "Node", "STATE_ORDER", "WINDOW_KINDS", "Window"]

#: The states a snapshot prints, in the order it prints them. ``Window`` lines of a display
#: other than the default one also carry ``display=N`` (after these).
STATE_ORDER: tuple[str, ...] = (
    "checked",
    "selected",
    "focused",
    "disabled",
    "password",
    "scrollable",
    "covered",
)

#: The resource-id entry names a ``#id`` can show (others are not shown: they could not be
#: read back). Real ones are Java identifiers; web views add ``-``.
ID_NAME = re.compile(r"[A-Za-z0-9_.-]+")


class Node:
    """One node of a pruned snapshot tree.

    ``text`` and ``desc`` are what the line shows: for a ref whose only child was a plain
    label, the pruner folds that label into the ref's own line (see ``docs/snapshot.md``).
    The raw attributes of the dump stay available through :attr:`attrs`.
    """

    __slots__ = (
        "role",
        "ref",
        "text",
        "desc",
        "states",
        "children",
        "_attrs",
        "vis",
        "tap",
        "display",
        "id_name",
    )

    def __init__(
        self,
        role: str,
        ref: int | None = None,
        text: str = "",
        desc: str = "",
        states: tuple[str, ...] = (),
        children: list[Node] | None = None,
        attrs: dict[str, str] | list[str] | None = None,
        vis: tuple[int, int, int, int] | None = None,
    ) -> None:
        self.role = role
        self.ref = ref
        self.text = text
        self.desc = desc
        self.states = states
        self.children: list[Node] = children if children is not None else []
        # the dump's attributes: a dict, or expat's flat [name, value, ...] list, which
        # becomes a dict when first read (most nodes' attributes are never read)
        self._attrs = attrs
        #: visible bounds (own bounds clipped to parent, window and screen), or ``None``
        self.vis = vis
        #: the tap point when it is not the middle of :attr:`vis` (a window on top covers that)
        self.tap: tuple[int, int] | None = None
        #: the display the node is on (``<display id>``, else its window's ``display-id``)
        self.display = 0
        #: the resource id's entry name the line shows (``#name``): set on refs that have no
        #: text, desc or labelled descendant, else ``""``
        self.id_name = ""

    # -- dump attributes -----------------------------------------------------------------

    @property
    def attrs(self) -> dict[str, str] | None:
        """The dump's attributes of this node (``None`` for nodes parsed from text)."""
        a = self._attrs
        if a is None or isinstance(a, dict):
            return a
        d = self._attrs = attr_dict(a)
        return d

    @attrs.setter
    def attrs(self, value: dict[str, str] | None) -> None:
        self._attrs = value

    def _attr(self, name: str) -> str:
        a = self.attrs
        return a.get(name, "") if a is not None else ""

    @property
    def from_dump(self) -> bool:
        """Whether the pruner built this node (it has the dump's attributes)."""
        return self._attrs is not None

    def attr(self, name: str) -> str:
        """One attribute of the dump (``""`` when absent), without building :attr:`attrs`."""
        a = self._attrs
        if a is None:
            return ""
        if isinstance(a, dict):
            return a.get(name, "")
        return attr(a, name) or ""

    @property
    def cls(self) -> str:
        """The full Android class name (``""`` for parsed or synthetic nodes)."""
        return self._attr("class")

    @property
    def resource_id(self) -> str:
        """The view's ``resource-id`` (``""`` when it has none)."""
        return self._attr("resource-id")

    @property
    def package(self) -> str:
        """The package of the app that owns this node."""
        return self._attr("package")

    @property
    def bounds(self) -> tuple[int, int, int, int] | None:
        """Visible bounds ``(x1, y1, x2, y2)`` on screen, or ``None`` when unknown."""
        return self.vis

    @property
    def center(self) -> tuple[int, int] | None:
        """The tap point: inside the visible bounds, not under a window on top when possible.

        The middle of :attr:`bounds`, unless a higher window (keyboard, status bar, dialog)
        covers that point and an uncovered part exists (see ``docs/snapshot.md``); ``None``
        when the bounds are unknown.
        """
        if self.tap is not None:
            return self.tap
        v = self.vis
        if v is None:
            return None
        return ((v[0] + v[2]) // 2, (v[1] + v[3]) // 2)

    # -- walking -------------------------------------------------------------------------

    def walk(self) -> Iterator[Node]:
        """This node and all its descendants, in document (= line) order. Not recursive."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.children:
                stack.extend(reversed(node.children))

    def to_dict(self) -> dict[str, Any]:
        """The grammar-visible fields as plain nested data (for tests and JSON). Not recursive."""

        def fields(node: Node) -> dict[str, Any]:
            out: dict[str, Any] = {"role": node.role}
            if isinstance(node, Window):
                out["kind"] = node.kind
                if node.package:
                    out["package"] = node.package
            if node.ref is not None:
                out["ref"] = node.ref
            if node.id_name:
                out["id"] = node.id_name
            if node.text:
                out["text"] = node.text
            if node.desc:
                out["desc"] = node.desc
            if node.states:
                out["states"] = list(node.states)
            return out

        top = fields(self)
        stack = [(self, top)]
        while stack:
            node, out = stack.pop()
            if node.children:
                kids = [fields(c) for c in node.children]
                out["children"] = kids
                stack.extend(zip(node.children, kids, strict=True))
        return top

    def __repr__(self) -> str:
        bits = [self.role]
        if self.ref is not None:
            bits.append(f"ref={self.ref}")
        if self.text:
            bits.append(repr(self.text))
        if self.desc:
            bits.append(f"desc={self.desc!r}")
        if self.states:
            bits.append(f"states={list(self.states)}")
        if self.children:
            bits.append(f"+{len(self.children)} children")
        return f"<Node {' '.join(bits)}>"


#: The kinds of window a header can name, in the words the header prints.
WINDOW_KINDS: tuple[str, ...] = (
    "app",
    "dialog",
    "keyboard",
    "status bar",
    "navigation bar",
    "notification shade",
    "window",
)


class Window(Node):
    """A window header: one per top-level window, its kept nodes as children.

    Prints as ``- app com.android.settings`` (``kind``, then ``package`` for apps, dialogs and
    windows of unknown kind), then the window's ``"title"`` when the dump gives one
    (``--windows`` dumps) and its states (``focused``, ``display=N``). A ``condensed``
    header prints its whole subtree on its own line: ``- status bar: "9:41", (Wi-Fi)``.
    ``role`` is the kind; ``text`` is the title.
    """

    __slots__ = ("kind", "package_name", "condensed")

    def __init__(
        self,
        kind: str,
        package: str = "",
        title: str = "",
        states: tuple[str, ...] = (),
        children: list[Node] | None = None,
        *,
        condensed: bool = False,
    ) -> None:
        super().__init__(kind, None, title, "", states, children)
        #: what the window is: one of :data:`WINDOW_KINDS`
        self.kind = kind
        #: the package that owns it (printed for apps, dialogs and other windows)
        self.package_name = package
        #: True: printed on one line with its nodes inline (system bars)
        self.condensed = condensed

    @property
    def package(self) -> str:
        """The window's package (``""`` when unknown)."""
        return self.package_name

    @property
    def title(self) -> str:
        """The window's title (``--windows`` dumps), else ``""``."""
        return self.text

    def __repr__(self) -> str:
        bits = [self.kind]
        if self.package_name:
            bits.append(self.package_name)
        if self.text:
            bits.append(repr(self.text))
        if self.states:
            bits.append(f"states={list(self.states)}")
        if self.condensed:
            bits.append("condensed")
        bits.append(f"+{len(self.children)} children")
        return f"<Window {' '.join(bits)}>"
