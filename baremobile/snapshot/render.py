"""Print a pruned tree in the baremobile grammar, one node per line.

::

    # 1080x2400 portrait
    - app com.android.settings
      - Role [ref=N] #id "text" (desc) [state, state]
        - Child …
    - navigation bar: [ref=9] (Back), [ref=10] (Home)

* the first line, when the root knows it, gives the screen size and orientation;
* each top-level line is a window header (:class:`~baremobile.snapshot.tree.Window`): its kind
  (lower-case words), its package for apps, dialogs and unknown windows, its ``"title"``
  and states; a *condensed* header lists its window's nodes inline after ``": "``, each as
  ``[ref=N] #id "text" (desc) [states]`` without role, separated by ``", "``;
* two spaces of indent per depth; every part after the role is optional;
* ``#id`` is the resource id's entry name, shown only on refs with nothing else to name them;
* ``text`` is double-quoted; ``\\``, ``"``, and every character that could end a line or hide
  (C0/C1 controls, DEL, U+2028, U+2029) are backslash-escaped (``\\n``, ``\\r``, ``\\t``,
  ``\\xNN``, ``\\uNNNN``), so one line is always one node and decoding is exact;
* ``desc`` is parenthesized; it escapes ``\\`` and ``)`` instead of ``"``; it is omitted when it
  equals ``text``;
* an optional last line starting with ``#`` reports truncation (it is not a node).

:func:`~baremobile.snapshot.parse.parse` reads this grammar back.
"""

from __future__ import annotations

from dataclasses import dataclass

from baremobile.safetext import escape_desc, escape_text
from baremobile.snapshot.tree import Node, Window

__all__ = [
    "Rendered",
    "Truncation",
    "escape_desc",
    "escape_text",
    "header_line",
    "inline_item",
    "node_line",
    "render",
    "render_report",
]


@dataclass(frozen=True)
class Truncation:
    """What a limit cut from the text. Refs are never renumbered: the cut refs stay valid."""

    reason: str
    """which limit cut first: ``"max_chars"``, ``"max_nodes"`` or ``"max_depth"``"""
    nodes_omitted: int
    refs_omitted: tuple[int, ...]

    def note(self) -> str:
        """The ``#`` line appended to truncated text."""
        refs = self.refs_omitted
        if not refs:
            which = "no refs"
        elif len(refs) == 1:
            which = f"ref {refs[0]}"
        elif refs[-1] - refs[0] + 1 == len(refs):
            which = f"refs {refs[0]}-{refs[-1]}"
        else:
            which = f"{len(refs)} refs"
        return f"# truncated ({self.reason}): {self.nodes_omitted} more nodes, {which} not shown"


@dataclass(frozen=True)
class Rendered:
    """Snapshot text plus what limits cut from it (``truncation`` is ``None`` when nothing)."""

    text: str
    truncation: Truncation | None


def inline_item(node: Node) -> str:
    """One node of a condensed header: ``[ref=N] #id "text" (desc) [states]`` (no role)."""
    parts = []
    if node.ref is not None:
        parts.append(f"[ref={node.ref}]")
    if node.id_name:
        parts.append("#" + node.id_name)
    text = node.text
    if text:
        parts.append(f'"{escape_text(text)}"')
    desc = node.desc
    if desc and desc != text:
        parts.append(f"({escape_desc(desc)})")
    if node.states:
        parts.append(f"[{', '.join(node.states)}]")
    return " ".join(parts)


def header_line(win: Window) -> str:
    """A window header (without indent): ``- app com.example "Title" [focused]``."""
    line = "- " + win.kind
    if win.package_name:
        line += " " + win.package_name
    if win.text:
        line += f' "{escape_text(win.text)}"'
    if win.states:
        line += " [" + ", ".join(win.states) + "]"
    if win.condensed:
        items = [it for n in win.children for d in n.walk() if (it := inline_item(d))]
        if items:
            line += ": " + ", ".join(items)
    return line


def node_line(node: Node) -> str:
    """The line of ``node`` without indent (a window header for a :class:`Window`)."""
    if type(node) is Window:
        return header_line(node)
    line = "- " + node.role
    if node.ref is not None:
        line += f" [ref={node.ref}]"
    if node.id_name:
        line += " #" + node.id_name
    text = node.text
    if text:
        line += f' "{escape_text(text)}"'
    desc = node.desc
    if desc and desc != text:
        line += f" ({escape_desc(desc)})"
    if node.states:
        line += f" [{', '.join(node.states)}]"
    return line


def _line(node: Node, depth: int) -> str:
    return "  " * depth + node_line(node)


def _render_all(tops: list[Node], out: list[str]) -> str:
    """The no-limits path: the same lines as :func:`_line`, built inline."""
    append = out.append
    indents = ["- "]
    stack: list[tuple[Node, int]] = [(n, 0) for n in reversed(tops)]
    pop = stack.pop
    push = stack.append
    esc_t = escape_text
    esc_d = escape_desc
    window = Window
    while stack:
        node, depth = pop()
        if depth >= len(indents):
            indents.extend("  " * d + "- " for d in range(len(indents), depth + 1))
        if node.__class__ is window:
            append("  " * depth + header_line(node))
            if node.condensed:
                continue
        else:
            line = indents[depth] + node.role
            if node.ref is not None:
                line += f" [ref={node.ref}]"
            if node.id_name:
                line += " #" + node.id_name
            text = node.text
            if text:
                line += ' "' + esc_t(text) + '"'
            desc = node.desc
            if desc and desc != text:
                line += " (" + esc_d(desc) + ")"
            if node.states:
                line += " [" + ", ".join(node.states) + "]"
            append(line)
        kids = node.children
        if kids:
            depth += 1
            for i in range(len(kids) - 1, -1, -1):
                push((kids[i], depth))
    return "\n".join(out)


def screen_line(tree: Node | list[Node]) -> str | None:
    """The first line of the text of ``tree``: ``# 1080x2400 portrait`` (None: no root or
    no screen known)."""
    if isinstance(tree, Node) and tree.role == "" and tree.text:
        return "# " + tree.text
    return None


def _count(nodes: list[Node], refs: list[int]) -> int:
    """Lines under ``nodes`` (a condensed header is one line); their refs go to ``refs``."""
    n = 0
    stack = list(nodes)
    while stack:
        node = stack.pop()
        n += 1
        if type(node) is Window and node.condensed:
            refs.extend(d.ref for d in node.walk() if d.ref is not None)
            continue
        if node.ref is not None:
            refs.append(node.ref)
        stack.extend(node.children)
    return n


def render_report(
    tree: Node | list[Node],
    *,
    max_chars: int | None = None,
    max_depth: int | None = None,
    max_nodes: int | None = None,
) -> Rendered:
    """Render ``tree`` and report what the limits cut.

    ``tree`` is a root node (role ``""``: only its children are printed, after the screen
    line its ``text`` gives), any other node (printed itself), or a list of top-level nodes.
    ``max_depth`` keeps lines of depth ``0..max_depth``; ``max_nodes`` keeps that many node
    lines; ``max_chars`` bounds the length of the whole text, the truncation note included.
    Cut subtrees are reported, never renumbered.
    """
    tops = (
        list(tree) if not isinstance(tree, Node) else tree.children if tree.role == "" else [tree]
    )
    first = screen_line(tree)
    if max_chars is None and max_depth is None and max_nodes is None:
        return Rendered(_render_all(tops, [first] if first else []), None)
    lines: list[str] = []
    shown: list[Node | None] = []
    size = -1  # running len("\n".join(lines))
    budget = max_chars
    cut_refs: list[int] = []
    cut_nodes = 0
    reason: str | None = None
    if first and (budget is None or len(first) <= budget):
        lines.append(first)
        shown.append(None)
        size = len(first)
    stack: list[tuple[Node, int]] = [(n, 0) for n in reversed(tops)]
    while stack:
        node, depth = stack.pop()
        if max_depth is not None and depth > max_depth:
            cut_nodes += _count([node], cut_refs)
            reason = reason or "max_depth"
            continue
        if max_nodes is not None and len(shown) - (shown[:1] == [None]) >= max_nodes:
            reason = reason or "max_nodes"
            cut_nodes += _count([node] + [n for n, _ in stack], cut_refs)
            break
        line = _line(node, depth)
        if budget is not None and size + 1 + len(line) > budget:
            reason = reason or "max_chars"
            cut_nodes += _count([node] + [n for n, _ in stack], cut_refs)
            break
        lines.append(line)
        shown.append(node)
        size += 1 + len(line)
        kids = node.children
        if kids and not (type(node) is Window and node.condensed):
            for kid in reversed(kids):
                stack.append((kid, depth + 1))
    if reason is None:
        return Rendered("\n".join(lines), None)
    while True:
        trunc = Truncation(reason, cut_nodes, tuple(sorted(cut_refs)))
        note = trunc.note()
        if max_chars is None or not lines or size + 1 + len(note) <= max_chars:
            break
        # make room for the note: the last lines shown go too (and are reported)
        size -= 1 + len(lines.pop())
        dropped = shown.pop()
        if dropped is not None:
            if type(dropped) is Window and dropped.condensed:
                cut_nodes += _count([dropped], cut_refs)
            else:
                cut_nodes += 1
                if dropped.ref is not None:
                    cut_refs.append(dropped.ref)
    if max_chars is not None:
        note = note[: max(0, max_chars - size - 1)]
    lines.append(note)
    return Rendered("\n".join(lines), trunc)


def render(
    tree: Node | list[Node],
    *,
    max_chars: int | None = None,
    max_depth: int | None = None,
    max_nodes: int | None = None,
) -> str:
    """The snapshot text of ``tree`` (see :func:`render_report` for the arguments)."""
    return render_report(tree, max_chars=max_chars, max_depth=max_depth, max_nodes=max_nodes).text
