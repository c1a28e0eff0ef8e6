"""The web pruner's front: a captured page (:mod:`.capture`) as ``uiautomator``-style nodes.

Each accessibility node of the page becomes one node with the attributes a dump would give
it — a class (so the snapshot's roles apply: ``Button``, ``TextInput``, ``CheckBox`` …, and
``Link``/``Heading`` for what Android has no widget for), ``text``/``content-desc``, the
flags (``clickable``, ``checkable``, ``checked``, ``focused``, ``enabled``, ``password``)
and ``bounds`` in device pixels — and is fed to the very same pruner as native nodes
(:class:`~baremobile.snapshot.prune.PruneState`): same rules, same grammar, refs in the same
sequence; what lies outside the WebView's visible rect is clipped away and gets no ref,
exactly as off-screen native views.

Geometry: the snapshot's bounds are CSS pixels of each frame's document; a frame's origin in
the main document is its ``<iframe>``'s box plus the iframe's border minus the frame's own
scroll offset; the main document maps to the screen through the visual viewport
(``cssVisualViewport``) and the WebView's bounds on screen ``[L,T][R,B]``::

    x_device = L + (x_css − viewport.pageX) · (R − L) / viewport.clientWidth

(the one ratio holds the device pixel ratio and the pinch zoom). Labels: the accessible
name (what TalkBack reads); an input shows its value as text and its label as desc.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baremobile.errors import WebError
from baremobile.web.capture import PageCapture

__all__ = ["WebNode", "Geometry", "build_nodes", "feed", "ACTIONABLE_ROLES", "CLASS_FOR_ROLE",
           "MAX_NODES"]

Bounds = tuple[int, int, int, int]

#: the most accessibility nodes of one page that are read (the pruner's own element limit
#: is 50,000 for the whole screen; this bounds the work before it)
MAX_NODES = 200_000

_W = "android.widget."
#: accessibility role → the class the node carries (its snapshot role follows from it)
CLASS_FOR_ROLE: dict[str, str] = {
    "button": _W + "Button",
    "togglebutton": _W + "ToggleButton",
    "link": "web.Link",
    "textbox": _W + "EditText",
    "searchbox": _W + "EditText",
    "spinbutton": _W + "EditText",
    "textField": _W + "EditText",
    "checkbox": _W + "CheckBox",
    "menuitemcheckbox": _W + "CheckBox",
    "radio": _W + "RadioButton",
    "menuitemradio": _W + "RadioButton",
    "switch": _W + "Switch",
    "combobox": _W + "Spinner",
    "PopUpButton": _W + "Spinner",
    "listbox": _W + "ListView",
    "option": "web.Option",
    "menuitem": "web.MenuItem",
    "slider": _W + "SeekBar",
    "progressbar": _W + "ProgressBar",
    "meter": _W + "ProgressBar",
    "image": _W + "Image",
    "img": _W + "Image",
    "heading": "web.Heading",
    "StaticText": _W + "TextView",
    "tab": "web.TabView",
    "tablist": _W + "TabWidget",
}
#: roles a user acts on (they get a ref when visible, like clickable views)
ACTIONABLE_ROLES = frozenset({
    "button", "togglebutton", "link", "checkbox", "menuitemcheckbox", "radio",
    "menuitemradio", "switch", "combobox", "PopUpButton", "listbox", "option", "menuitem",
    "slider", "spinbutton", "tab", "treeitem", "searchbox", "textbox", "textField",
})
_CHECKABLE = frozenset({"checkbox", "menuitemcheckbox", "radio", "menuitemradio", "switch"})
_VALUE_AS_TEXT = frozenset({"textbox", "searchbox", "spinbutton", "textField", "combobox",
                            "PopUpButton", "slider"})
_SKIP = frozenset({"InlineTextBox", "LineBreak", "ListMarker"})


class WebNode:
    """One node: dump attributes (strings) and children."""

    __slots__ = ("attrs", "children")

    def __init__(self, attrs: dict[str, str], children: list[WebNode] | None = None) -> None:
        self.attrs = attrs
        self.children = children if children is not None else []

    def __repr__(self) -> str:
        a = self.attrs
        return f"<WebNode {a.get('class')} {a.get('text')!r} {a.get('bounds')}>"


@dataclass(frozen=True)
class Geometry:
    """Main-document CSS pixels → device pixels (see the module docstring)."""

    left: float
    top: float
    kx: float
    ky: float
    page_x: float
    page_y: float
    viewport: tuple[float, float, float, float]
    """the visual viewport in main-document CSS px (x1, y1, x2, y2)"""

    @classmethod
    def of(cls, metrics: dict[str, Any], region: Bounds) -> Geometry:
        vv = metrics.get("cssVisualViewport") or metrics.get("visualViewport") or {}
        w = float(vv.get("clientWidth") or 1.0)
        h = float(vv.get("clientHeight") or 1.0)
        px, py = float(vv.get("pageX", 0.0)), float(vv.get("pageY", 0.0))
        left, top, right, bottom = region
        return cls(left, top, (right - left) / w, (bottom - top) / h, px, py,
                   (px, py, px + w, py + h))

    def to_device(self, r: tuple[float, float, float, float]) -> Bounds:
        """A CSS rect (x1, y1, x2, y2) on screen, rounded outwards to whole pixels."""
        import math

        return (math.floor(self.left + (r[0] - self.page_x) * self.kx),
                math.floor(self.top + (r[1] - self.page_y) * self.ky),
                math.ceil(self.left + (r[2] - self.page_x) * self.kx),
                math.ceil(self.top + (r[3] - self.page_y) * self.ky))


class _Layout:
    """Backend node id → box (main-document CSS px) and DOM facts, from the DOM snapshot."""

    def __init__(self, snap: dict[str, Any]) -> None:
        self.strings: list[str] = snap.get("strings", [])
        self.box: dict[int, tuple[float, float, float, float]] = {}
        self.clickable: set[int] = set()
        self.dom_id: dict[int, str] = {}
        self.placeholder: dict[int, str] = {}
        self.password: set[int] = set()
        self.frame_of_iframe: dict[int, str] = {}  # iframe's backend id → its frame id
        docs = snap.get("documents", [])
        origin: dict[int, tuple[float, float]] = {0: (0.0, 0.0)}
        for di, doc in enumerate(docs):
            ox, oy = origin.get(di, (0.0, 0.0))
            nodes = doc.get("nodes", {})
            backend = nodes.get("backendNodeId", [])
            lay = doc.get("layout", {})
            client = lay.get("clientRects") or []
            cd = nodes.get("contentDocumentIndex", {})
            content_doc = dict(zip(cd.get("index", []), cd.get("value", []), strict=False))
            node_box: dict[int, tuple[float, float, float, float]] = {}
            for li, ni in enumerate(lay.get("nodeIndex", [])):
                b = lay["bounds"][li]
                if len(b) < 4 or ni in node_box:
                    continue
                node_box[ni] = (ox + b[0], oy + b[1], ox + b[0] + b[2], oy + b[1] + b[3])
                if ni < len(backend):
                    self.box.setdefault(backend[ni], node_box[ni])
                cdi = content_doc.get(ni)
                if cdi is not None and cdi < len(docs):
                    child = docs[cdi]
                    cr = client[li] if li < len(client) and len(client[li]) >= 2 else [0, 0]
                    origin[cdi] = (ox + b[0] + cr[0] - float(child.get("scrollOffsetX", 0)),
                                   oy + b[1] + cr[1] - float(child.get("scrollOffsetY", 0)))
                    if ni < len(backend):
                        self.frame_of_iframe[backend[ni]] = self.s(child.get("frameId", -1))
            for ni in nodes.get("isClickable", {}).get("index", []):
                if ni < len(backend):
                    self.clickable.add(backend[ni])
            for ni, attrs in enumerate(nodes.get("attributes", [])):
                if not attrs or ni >= len(backend):
                    continue
                for k in range(0, len(attrs) - 1, 2):
                    name, value = self.s(attrs[k]), self.s(attrs[k + 1])
                    if name == "id":
                        self.dom_id[backend[ni]] = value
                    elif name == "placeholder":
                        self.placeholder[backend[ni]] = value
                    elif name == "type" and value.lower() == "password":
                        self.password.add(backend[ni])

    def s(self, index: int) -> str:
        return self.strings[index] if 0 <= index < len(self.strings) else ""


def _prop(node: dict[str, Any], name: str) -> Any:
    for p in node.get("properties", ()):
        if p.get("name") == name:
            return p.get("value", {}).get("value")
    return None


def _related(node: dict[str, Any], name: str) -> list[dict[str, Any]]:
    for p in node.get("properties", ()):
        if p.get("name") == name:
            return list(p.get("value", {}).get("relatedNodes", ()))
    return []


def _value(node: dict[str, Any], key: str) -> str:
    v = node.get(key)
    if not v:
        return ""
    val = v.get("value")
    return "" if val is None else str(val)


def build_nodes(cap: PageCapture, region: Bounds, package: str) -> list[WebNode]:
    """The page's nodes (the main frame's root's children, frames nested in their
    ``<iframe>``), bounds on screen for a WebView drawn at ``region``."""
    geo = Geometry.of(cap.metrics, region)
    lay = _Layout(cap.snapshot)
    by_frame = {frame: {n["nodeId"]: n for n in nodes} for frame, nodes in cap.ax.items()}
    main = by_frame.get("", {})
    root = next((n for n in main.values() if "parentId" not in n), None)
    if root is None:
        return []
    # a <label> names its control, whose line says it: the label's own text goes
    labels = {r.get("backendDOMNodeId") for t in by_frame.values() for n in t.values()
              for r in _related(n, "labelledby")}
    out = WebNode({})
    # iterative depth-first walk: (AX node, its frame's table, the WebNode to append to,
    # whether it is inside a label)
    stack: list[tuple[dict[str, Any], dict[str, dict[str, Any]], WebNode, bool]] = [
        (main[c], main, out, False) for c in reversed(root.get("childIds", [])) if c in main]
    seen: set[int] = set()  # a hostile DevTools server may send childIds in a circle
    while stack:
        ax, table, parent, in_label = stack.pop()
        if id(ax) in seen:
            continue
        seen.add(id(ax))
        if len(seen) > MAX_NODES:
            raise WebError(f"the page has more than {MAX_NODES} accessibility nodes; "
                           "too large to show")
        role = _value(ax, "role")
        if role in _SKIP or (in_label and role == "StaticText"):
            continue
        backend = ax.get("backendDOMNodeId")
        kids = [table[c] for c in ax.get("childIds", []) if c in table]
        kid_table = table
        if role == "Iframe" and backend in lay.frame_of_iframe:
            frame_nodes = by_frame.get(lay.frame_of_iframe[backend], {})
            froot = next((n for n in frame_nodes.values() if "parentId" not in n), None)
            if froot is not None:
                kids = [frame_nodes[c] for c in froot.get("childIds", []) if c in frame_nodes]
                kid_table = frame_nodes
        is_label = backend in labels
        if is_label or (ax.get("ignored") and backend not in lay.clickable):
            holder = parent  # its children belong to its parent
        else:
            holder = WebNode(_attrs(ax, role, backend, lay, geo, package))
            parent.children.append(holder)
        for k in reversed(kids):
            stack.append((k, kid_table, holder, in_label or is_label))
    return out.children


def _attrs(ax: dict[str, Any], role: str, backend: int | None, lay: _Layout, geo: Geometry,
           package: str) -> dict[str, str]:
    name = _value(ax, "name").strip()
    text, desc, hint = name, "", ""
    password = backend in lay.password
    if role in _VALUE_AS_TEXT:
        text, desc = _value(ax, "value"), name
        hint = lay.placeholder.get(backend or -1, "")
        if password and text:
            text = "\u2022" * len(text)
    elif role in ("image", "img"):
        text, desc = "", name
    checked = _prop(ax, "checked")
    box = lay.box.get(backend) if backend is not None else None
    bounds = geo.to_device(box) if box is not None else (0, 0, 0, 0)
    flag = {True: "true", False: "false"}
    a = {
        "text": text,
        "resource-id": lay.dom_id.get(backend or -1, ""),
        "class": CLASS_FOR_ROLE.get(role, "android.view.View"),
        "package": package,
        "content-desc": desc,
        "checkable": flag[role in _CHECKABLE],
        "checked": flag[checked in (True, "true", "mixed")],
        "clickable": flag[role in ACTIONABLE_ROLES or backend in lay.clickable],
        "enabled": flag[not _prop(ax, "disabled")],
        "focusable": flag[bool(_prop(ax, "focusable"))],
        "focused": flag[bool(_prop(ax, "focused"))],
        "scrollable": "false",
        "long-clickable": "false",
        "password": flag[password],
        "selected": flag[bool(_prop(ax, "selected"))],
        "bounds": f"[{bounds[0]},{bounds[1]}][{bounds[2]},{bounds[3]}]",
    }
    if hint:
        a["hint"] = hint
    return a


def feed(nodes: list[WebNode], start: Callable[[str, list[str]], None],
         end: Callable[[str], None]) -> int:
    """Drive a pruner's ``start``/``end`` handlers with ``nodes`` in document order, as
    expat would with their XML (attributes as its flat ``[name, value, …]`` list, a fresh
    one per node: the pruner may append to it); returns how many nodes were fed."""
    count = 0
    stack: list[tuple[WebNode, bool]] = [(n, False) for n in reversed(nodes)]
    while stack:
        node, closing = stack.pop()
        if closing:
            end("node")
            continue
        start("node", [x for kv in node.attrs.items() for x in kv])
        count += 1
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(node.children))
    return count
