"""Print a pruned tree in the baremobile grammar, one node per line.

::

    - Role [ref=N] "text" (desc) [state, state]
      - Child …

* two spaces of indent per depth; every part after the role is optional;
* ``text`` is double-quoted; ``\\``, ``"``, and every character that could end a line or hide
  (C0/C1 controls, DEL, U+2028, U+2029) are backslash-escaped (``\\n``, ``\\r``, ``\\t``,
  ``\\xNN``, ``\\uNNNN``), so one line is always one node and decoding is exact;
* ``desc`` is parenthesized; it escapes ``\\`` and ``)`` instead of ``"``; it is omitted when it
  equals ``text``;
* an optional last line starting with ``#`` reports truncation (it is not a node).

:func:`~baremobile.snapshot.parse.parse` reads this grammar back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.snapshot.tree import Node

__all__ = ["Rendered", "Truncation", "escape_desc", "escape_text", "render", "render_report"]

# Characters that must not appear raw on a line: C0 controls, DEL and C1 controls, and the
# Unicode line/paragraph separators (str.splitlines() breaks on several of these).
_CTRL = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_TEXT_SPECIAL = re.compile(f'[{_CTRL}"\\\\]')
_DESC_SPECIAL = re.compile(f"[{_CTRL})\\\\]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", '"': '\\"', ")": "\\)"}


def _escape_char(m: re.Match[str]) -> str:
    c = m.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_text(s: str) -> str:
    """Escape ``s`` for the double-quoted text slot."""
    # str.isprintable() is False for every character class we escape (and a few more).
    if s.isprintable() and '"' not in s and "\\" not in s:
        return s
    return _TEXT_SPECIAL.sub(_escape_char, s)


def escape_desc(s: str) -> str:
    """Escape ``s`` for the parenthesized desc slot."""
    if s.isprintable() and ")" not in s and "\\" not in s:
        return s
    return _DESC_SPECIAL.sub(_escape_char, s)


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


def _line(node: Node, depth: int) -> str:
    parts = ["  " * depth, "- ", node.role]
    if node.ref is not None:
        parts.append(f" [ref={node.ref}]")
    text = node.text
    if text:
        parts.append(f' "{escape_text(text)}"')
    desc = node.desc
    if desc and desc != text:
        parts.append(f" ({escape_desc(desc)})")
    if node.states:
        parts.append(f" [{', '.join(node.states)}]")
    return "".join(parts)


def _render_all(tops: list[Node]) -> str:
    """The no-limits path: the same lines as :func:`_line`, built inline."""
    out: list[str] = []
    append = out.append
    indents = ["- "]
    stack: list[tuple[Node, int]] = [(n, 0) for n in reversed(tops)]
    pop = stack.pop
    push = stack.append
    esc_t = escape_text
    esc_d = escape_desc
    while stack:
        node, depth = pop()
        if depth >= len(indents):
            indents.extend("  " * d + "- " for d in range(len(indents), depth + 1))
        line = indents[depth] + node.role
        if node.ref is not None:
            line += f" [ref={node.ref}]"
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


def _count(nodes: list[Node], refs: list[int]) -> int:
    n = 0
    for top in nodes:
        for node in top.walk():
            n += 1
            if node.ref is not None:
                refs.append(node.ref)
    return n


def render_report(
    tree: Node | list[Node],
    *,
    max_chars: int | None = None,
    max_depth: int | None = None,
    max_nodes: int | None = None,
) -> Rendered:
    """Render ``tree`` and report what the limits cut.

    ``tree`` is a root node (role ``""``: only its children are printed), any other node
    (printed itself), or a list of top-level nodes. ``max_depth`` keeps lines of depth
    ``0..max_depth``; ``max_nodes`` keeps that many lines; ``max_chars`` bounds the length of
    the whole text, the truncation note included. Cut subtrees are reported, never renumbered.
    """
    tops = (
        list(tree) if not isinstance(tree, Node) else tree.children if tree.role == "" else [tree]
    )
    if max_chars is None and max_depth is None and max_nodes is None:
        return Rendered(_render_all(tops), None)
    lines: list[str] = []
    shown: list[Node] = []
    size = -1  # running len("\n".join(lines))
    budget = max_chars
    cut_refs: list[int] = []
    cut_nodes = 0
    reason: str | None = None
    stack: list[tuple[Node, int]] = [(n, 0) for n in reversed(tops)]
    while stack:
        node, depth = stack.pop()
        if max_depth is not None and depth > max_depth:
            cut_nodes += _count([node], cut_refs)
            reason = reason or "max_depth"
            continue
        if max_nodes is not None and len(lines) >= max_nodes:
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
        if kids:
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
