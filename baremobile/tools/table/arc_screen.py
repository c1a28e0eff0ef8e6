"""The screen as Android Remote Control shows it (:mod:`baremobile.tools.table.arc`): its
element ids (``node_<ref>``, ``node_<ref>_<k>`` for a label inside an element,
``node_0_<k>`` outside any), ``get_screen_state``'s TSV, an element's JSON and its finder —
all drawn from a snapshot we already took (no device I/O)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from baremobile.errors import DumpFailed
from baremobile.tools.table.observing import ref_parents

__all__ = ["cell", "element", "element_id", "elements", "matching", "screen_text", "seen"]


def elements(snap: Any) -> Iterator[tuple[str, Any, Any]]:
    """``(id, node, window)`` for every element of the snapshot, window by window in line
    order; ids as the module's docs say."""
    parents = ref_parents(snap)
    labels: dict[int, int] = {}
    for window in snap.tree.children:
        for node in window.walk():
            if node is window:
                continue
            yield element_id(node, parents, labels), node, window


def element_id(node: Any, parents: dict[int, int], labels: dict[int, int]) -> str:
    """A node's ARC id (``labels`` counts the labels seen so far per element)."""
    if node.ref is not None:
        return f"node_{node.ref}"
    owner = parents.get(id(node), 0)
    labels[owner] = labels.get(owner, 0) + 1
    return f"node_{owner}_{labels[owner]}"


def _flag(node: Any, name: str) -> bool:
    return node.attr(name) == "true"


def _editable(node: Any) -> bool:
    return node.role == "TextInput" or node.cls.endswith("EditText")


def _enabled(node: Any) -> bool:
    return node.attr("enabled") != "false" and "disabled" not in node.states


def _flags(node: Any) -> str:
    flags = ["on"]
    for name, short in (("clickable", "clk"), ("long-clickable", "lclk"),
                        ("focusable", "foc"), ("scrollable", "scr")):
        if _flag(node, name):
            flags.append(short)
    if _editable(node):
        flags.append("edt")
    if _enabled(node):
        flags.append("ena")
    return ",".join(flags)


def cell(value: str, cut: int | None = 100) -> str:
    value = " ".join(value.replace("\t", " ").splitlines()).strip()
    if not value:
        return "-"
    if cut is not None and len(value) > cut:
        return value[:cut] + "...truncated"
    return value


_WINDOW_TYPES = {"app": "APPLICATION", "dialog": "APPLICATION", "keyboard": "INPUT_METHOD",
                 "window": "APPLICATION"}
_NOTES = (
    "note:structural-only nodes are omitted from the tree",
    "note:certain elements are custom and will not be properly reported, if needed or if "
    "tools are not working as expected set include_screenshot=true to see the screen and "
    "take what you see into account",
    "note:flags: on=onscreen off=offscreen clk=clickable lclk=longClickable "
    "foc=focusable scr=scrollable edt=editable ena=enabled",
    "note:offscreen items require scroll_to_element before interaction",
)


def seen(page: Any) -> Any:
    """The screen the row read: the call's page's latest snapshot."""
    screen = getattr(page, "last_snapshot", None)
    if screen is None:
        raise DumpFailed("the screen was not read", hint="try again")
    return screen


def screen_text(snap: Any) -> str:
    """ARC's ``get_screen_state`` text: notes, the screen line, per window a header and a
    TSV of its elements."""
    w, h = snap.width, snap.height
    lines = [*_NOTES,
             f"screen:{w}x{h} density:0 orientation:{'landscape' if w > h else 'portrait'}"]
    by_window: dict[int, list[tuple[str, Any]]] = {}
    for eid, node, window in elements(snap):
        by_window.setdefault(id(window), []).append((eid, node))
    windows = list(snap.tree.children)
    focused_any = any("focused" in getattr(win, "states", ()) for win in windows)
    for layer, window in enumerate(windows):
        kind = getattr(window, "kind", window.role)
        pkg = getattr(window, "package", "") or next(
            (n.package for _, n in by_window.get(id(window), ()) if n.package), "") or "-"
        focused = "focused" in window.states if focused_any else (
            kind == "app" and pkg == snap.package)
        lines.append(f"--- window:{layer} type:{_WINDOW_TYPES.get(kind, 'SYSTEM')} "
                     f"pkg:{pkg} title:{cell(getattr(window, 'title', '') or kind, None)} "
                     f"layer:{layer} focused:{str(focused).lower()} ---")
        lines.append("id\tclass\ttext\tdesc\tres_id\tbounds\tflags")
        for eid, node in by_window.get(id(window), ()):
            v = node.vis
            lines.append("\t".join((
                eid, cell(node.cls.rpartition(".")[2]), cell(node.text), cell(node.desc),
                cell(node.resource_id), ",".join(map(str, v)) if v else "-", _flags(node))))
    return "\n".join(lines)


def element(eid: str, node: Any) -> dict[str, Any]:
    """An element as ARC's ``find_elements`` gives it."""
    v = node.vis or (0, 0, 0, 0)
    return {"id": eid, "text": node.text or None, "contentDescription": node.desc or None,
            "resourceId": node.resource_id or None, "className": node.cls or None,
            "bounds": {"left": v[0], "top": v[1], "right": v[2], "bottom": v[3]},
            "clickable": _flag(node, "clickable"),
            "longClickable": _flag(node, "long-clickable"),
            "scrollable": _flag(node, "scrollable"), "editable": _editable(node),
            "enabled": _enabled(node)}


def matching(snap: Any, by: str, value: str, exact: bool) -> list[tuple[str, Any]]:
    """The elements ARC's finder picks: their ``by`` (``text``, ``content_desc``,
    ``resource_id``, ``class_name``) equal to ``value`` (``exact``), else containing it in
    any case."""
    found = []
    for eid, node, _ in elements(snap):
        have = {"text": (node.text, node.attr("text")),
                "content_desc": (node.desc, node.attr("content-desc")),
                "resource_id": (node.resource_id,), "class_name": (node.cls,)}[by]
        if any(value == x if exact else value.casefold() in x.casefold() for x in have if x):
            found.append((eid, node))
    return found
