"""Reading and writing ``uiautomator dump`` XML for the virtual phone.

:func:`parse_dump` reads a dump (any of the shapes real devices and uiautomator2-style
dumpers write: single-line or pretty-printed, with or without a BOM or XML declaration)
into :class:`Node` trees, one per top-level window. :func:`serialize` writes trees back
exactly the way ``uiautomator dump`` does on a device: one line, the standard attributes in
their fixed order, ``NAF="true"`` first where set, and the string escaping of Android's
XML serializer (``&amp;`` ``&lt;`` ``&gt;`` ``&quot;``, ``&#10;`` for a newline, and a
numeric reference for every character outside the Basic Multilingual Plane, such as emoji).

Parsing goes through :mod:`defusedxml`, so a hostile file cannot expand entities or load
DTDs, and is bounded as it goes (:data:`MAX_DEPTH` levels, :data:`MAX_NODES` elements:
what builds the trees and every walk over them stays well inside Python's recursion
limit). A file that is not a dump is refused without quoting it: its root element, or
what it declares, is not named.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import defusedxml.ElementTree as DET

__all__ = [
    "element_id",
    "Node",
    "DumpError",
    "STANDARD_ATTRIBUTES",
    "BOOLEAN_ATTRIBUTES",
    "parse_dump",
    "parse_bounds",
    "format_bounds",
    "serialize",
    "escape_attr",
    "is_editable_class",
    "element",
    "MAX_DEPTH",
    "MAX_NODES",
]

#: the deepest element nesting a dump may have (real ones stay under 100)
MAX_DEPTH = 256
#: the most elements a dump may have (the snapshot pipeline's own default limit)
MAX_NODES = 50_000

#: The attributes ``uiautomator dump`` writes for every node, in its order.
STANDARD_ATTRIBUTES = (
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
)

#: The standard attributes whose value is ``"true"`` or ``"false"``.
BOOLEAN_ATTRIBUTES = (
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
)

_STRING_ATTRIBUTES = ("text", "resource-id", "class", "package", "content-desc")
#: Extra attributes API 26+ devices write after ``bounds``.
API26_EXTRAS = ("drawing-order", "hint")

Bounds = tuple[int, int, int, int]

_BOUNDS_RE = re.compile(r"^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\Z")


class DumpError(ValueError):
    """The bytes are not a usable ``uiautomator dump``."""


def parse_bounds(value: str) -> Bounds:
    """``"[0,0][1080,2400]"`` → ``(0, 0, 1080, 2400)``; raises :class:`DumpError`."""
    m = _BOUNDS_RE.match(value.strip())
    if not m:
        raise DumpError(f"bad bounds {value!r} (expected like [0,0][1080,2400])")
    x1, y1, x2, y2 = (int(g) for g in m.groups())
    return (x1, y1, x2, y2)


def format_bounds(b: Bounds) -> str:
    """``(0, 0, 1080, 2400)`` → ``"[0,0][1080,2400]"``."""
    return f"[{b[0]},{b[1]}][{b[2]},{b[3]}]"


def is_editable_class(cls: str) -> bool:
    """Whether a node of this class takes typed text (EditText and its relatives)."""
    return cls.endswith("EditText") or "AutoComplete" in cls or cls.endswith("SearchAutoComplete")


@dataclass(eq=False)
class Node:
    """One ``<node>`` of a dump, mutable, with a few slots the screen model uses.

    ``attrs`` holds every attribute except ``index`` and ``bounds`` (the model computes
    both when it writes a dump); booleans are the strings ``"true"``/``"false"`` as in XML.
    """

    attrs: dict[str, str]
    bounds: Bounds
    children: list[Node] = field(default_factory=list)
    # -- screen-model state (not part of the XML) ------------------------------------
    origin: str = ""  # the scenario screen this node comes from
    value: str | None = None  # content of an editable field (None: not editable)
    cursor: int = 0  # caret position in ``value``
    select_all: bool = False  # the whole ``value`` is selected
    scroll_x: int = 0  # content offset of a scrollable node
    scroll_y: int = 0
    dx: int = 0  # layout shift applied to this subtree (filtered lists, appended rows)
    dy: int = 0
    src: Node | None = None  # in a rendered tree: the model node it was drawn from
    meta: dict[str, Any] = field(default_factory=dict)

    # -- attribute helpers -----------------------------------------------------------
    def get(self, name: str, default: str = "") -> str:
        """An attribute's string value."""
        return self.attrs.get(name, default)

    def flag(self, name: str) -> bool:
        """A boolean attribute."""
        return self.attrs.get(name) == "true"

    def set_flag(self, name: str, on: bool) -> None:
        """Set a boolean attribute."""
        self.attrs[name] = "true" if on else "false"

    @property
    def text(self) -> str:
        return self.attrs.get("text", "")

    @property
    def desc(self) -> str:
        return self.attrs.get("content-desc", "")

    @property
    def rid(self) -> str:
        return self.attrs.get("resource-id", "")

    @property
    def cls(self) -> str:
        return self.attrs.get("class", "")

    @property
    def package(self) -> str:
        return self.attrs.get("package", "")

    @property
    def editable(self) -> bool:
        return self.value is not None

    def iter(self) -> Iterator[Node]:
        """This node and all its descendants, depth first in document order."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def contains(self, x: float, y: float) -> bool:
        """Whether the point lies inside the bounds (right and bottom edges excluded)."""
        b = self.bounds
        return b[0] <= x < b[2] and b[1] <= y < b[3]

    def clone(self) -> Node:
        """A deep copy (state slots included, ``src`` kept as is)."""
        n = Node(
            dict(self.attrs),
            self.bounds,
            [c.clone() for c in self.children],
            self.origin,
            self.value,
            self.cursor,
            self.select_all,
            self.scroll_x,
            self.scroll_y,
            self.dx,
            self.dy,
            self.src,
            {k: v for k, v in self.meta.items() if k != "uid"},  # a copy is another element
        )
        return n


_UIDS = itertools.count(1)


def element_id(node: Node) -> str:
    """A name for a model node that lasts as long as the node does (``e17``): the event log
    says with it which element an input landed on."""
    uid = node.meta.get("uid")
    if uid is None:
        uid = node.meta["uid"] = f"e{next(_UIDS)}"
    return str(uid)


#: the flags :func:`element` writes, in uiautomator's order (``long_clickable`` is
#: ``long-clickable``)
_ELEMENT_FLAGS = ("checkable", "checked", "clickable", "enabled", "focusable", "focused",
                  "scrollable", "long_clickable", "password", "selected")


def element(cls: str, bounds: Bounds, pkg: str, rid: str = "", text: str = "", desc: str = "",
            children: Iterable[Node] = (), hint: str | None = None, **flags: bool) -> Node:
    """A node as a dump would hold it: the string attributes, every flag (``enabled``
    unless told otherwise, the rest off unless given) and an optional ``hint``."""
    attrs = {"text": text, "resource-id": rid, "class": cls, "package": pkg,
             "content-desc": desc}
    for f in _ELEMENT_FLAGS:
        attrs[f.replace("_", "-")] = "true" if flags.get(f, f == "enabled") else "false"
    if hint is not None:
        attrs["hint"] = hint
    return Node(attrs, bounds, list(children))


# -- parsing -----------------------------------------------------------------------------


def _to_node(el: Any, origin: str) -> Node:
    if el.tag != "node":
        raise DumpError(f"unexpected element <{el.tag}> (a dump holds only <node> elements)")
    raw = el.attrib
    if "bounds" not in raw:
        raise DumpError("a <node> has no bounds attribute")
    bounds = parse_bounds(raw["bounds"])
    attrs: dict[str, str] = {}
    if raw.get("NAF") == "true":
        attrs["NAF"] = "true"
    for name in STANDARD_ATTRIBUTES:
        if name in ("index", "bounds"):
            continue
        if name in raw:
            attrs[name] = raw[name]
        elif name in BOOLEAN_ATTRIBUTES:
            attrs[name] = "true" if name == "enabled" else "false"
        else:
            attrs[name] = ""
    for name in API26_EXTRAS:
        if name in raw:
            attrs[name] = raw[name]
    node = Node(attrs, bounds, [_to_node(c, origin) for c in el], origin)
    if is_editable_class(node.cls):
        hint = raw.get("hint", "")
        text = attrs.get("text", "")
        node.value = "" if (hint and text == hint) else text
        if node.flag("password") and node.value and set(node.value) <= {"•"}:
            node.value = ""  # the real value of a captured password field is unknowable
        node.cursor = len(node.value)
        if raw.get("maxlength", "").isdigit():  # scenario-only: devices do not dump it
            node.meta["max_length"] = int(raw["maxlength"])
    return node


def _bounded_tree(data: bytes) -> Any:
    """The element tree of ``data``, refused as soon as its root is not a dump's or it
    passes :data:`MAX_DEPTH` or :data:`MAX_NODES`."""
    depth = count = 0
    root = None
    try:
        for event, el in DET.iterparse(io.BytesIO(data), events=("start", "end")):
            if event == "end":
                depth -= 1
                continue
            depth += 1
            count += 1
            if root is None:
                root = el
                if el.tag not in ("hierarchy", "node"):  # not named: the file may be anything
                    raise DumpError("its root element is not <hierarchy> (nor a <node>)")
            if depth > MAX_DEPTH:
                raise DumpError(f"its elements nest deeper than {MAX_DEPTH} levels")
            if count > MAX_NODES:
                raise DumpError(f"it has more than {MAX_NODES} elements")
    except DumpError:
        raise
    except DET.ParseError as e:  # a position, no content
        raise DumpError(f"not well-formed XML: {e}") from None
    except Exception:  # defusedxml refuses entity declarations and external DTDs
        raise DumpError("refused: it declares entities or an external DTD (dumps never "
                        "do)") from None
    if root is None:
        raise DumpError("the file holds no element")
    return root


def parse_dump(data: bytes | str, origin: str = "") -> tuple[list[Node], int]:
    """Parse a dump into its top-level windows and the ``rotation`` of ``<hierarchy>``.

    Raises :class:`DumpError` naming the problem when the bytes are not a dump.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    stripped = data.strip()
    if not stripped:
        raise DumpError("the file is empty")
    if stripped.startswith(b"ERROR"):
        raise DumpError("the file holds a uiautomator error message, not a dump")
    root = _bounded_tree(stripped)
    if root.tag == "node":  # a bare node fragment
        return [_to_node(root, origin)], 0
    windows = [_to_node(c, origin) for c in root]
    if not windows:
        raise DumpError("<hierarchy> holds no <node>")
    try:
        rotation = int(root.get("rotation", "0"))
    except ValueError:
        raise DumpError(f"bad rotation {root.get('rotation')!r}") from None
    return windows, rotation


# -- writing -----------------------------------------------------------------------------

_ESCAPES = {
    ord("&"): "&amp;",
    ord("<"): "&lt;",
    ord(">"): "&gt;",
    ord('"'): "&quot;",
    ord("\n"): "&#10;",
    ord("\r"): "&#13;",
    ord("\t"): "&#9;",
}
# Characters XML 1.0 cannot carry; Android's dumper writes "?" for them.
for _c in range(0x20):
    if _c not in (0x09, 0x0A, 0x0D):
        _ESCAPES[_c] = "?"
_ESCAPES[0xFFFE] = "?"
_ESCAPES[0xFFFF] = "?"
_NEEDS_ESCAPE = re.compile(r'[&<>"\x00-\x1f\ufffe\uffff\ud800-\udfff\U00010000-\U0010ffff]')
_ASTRAL = re.compile(r"[\ud800-\udfff\U00010000-\U0010ffff]")


def _astral(m: re.Match[str]) -> str:
    c = m.group(0)
    return "?" if 0xD800 <= ord(c) <= 0xDFFF else f"&#{ord(c)};"


def escape_attr(value: str) -> str:
    """Escape an attribute value the way the device's XML serializer does."""
    if not _NEEDS_ESCAPE.search(value):
        return value
    return _ASTRAL.sub(_astral, value.translate(_ESCAPES))


def _write(node: Node, index: int, order: int, out: list[str], extras: bool) -> None:
    a = node.attrs
    parts = ["<node "]
    if a.get("NAF") == "true":
        parts.append('NAF="true" ')
    parts.append(f'index="{index}"')
    for name in _STRING_ATTRIBUTES:
        parts.append(f' {name}="{escape_attr(a.get(name, ""))}"')
    for name in BOOLEAN_ATTRIBUTES:
        v = a.get(name)
        if v is None:
            v = "true" if name == "enabled" else "false"
        parts.append(f' {name}="{v}"')
    parts.append(f' bounds="{format_bounds(node.bounds)}"')
    if extras:
        parts.append(f' drawing-order="{a.get("drawing-order", str(order))}"')
        parts.append(f' hint="{escape_attr(a.get("hint", ""))}"')
    out.append("".join(parts))
    if node.children:
        out.append(">")
        for i, c in enumerate(node.children):
            _write(c, i, i + 1, out, extras)
        out.append("</node>")
    else:
        out.append(" />")


def serialize(windows: Iterable[Node], rotation: int = 0, *, extras: bool = True) -> bytes:
    """Write top-level windows as one ``uiautomator dump`` file (UTF-8, one line).

    ``index`` is each node's position among its emitted siblings; every top-level window
    root has ``index="0"``, as on devices. ``extras`` adds the API 26+ ``drawing-order``
    and ``hint`` attributes. The standard attributes of ``text`` and ``resource-id`` are
    written in the device's order regardless of the order they were read in.
    """
    out = [
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
        f'<hierarchy rotation="{rotation}">',
    ]
    for w in windows:
        _write(w, 0, 0, out, extras)
    out.append("</hierarchy>")
    return "".join(out).encode("utf-8")
