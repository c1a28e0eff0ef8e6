"""Read snapshot text back into a tree: the inverse of :func:`~baremobile.snapshot.render.render`.

``render(parse(render(tree))) == render(tree)`` for every tree. Lines starting with ``#``
(the truncation note) are skipped. Malformed text raises :class:`ValueError` naming the line.
"""

from __future__ import annotations

import re

from baremobile.snapshot.tree import Node

__all__ = ["parse", "unescape"]

_LINE = re.compile(
    r"(?P<indent>(?:  )*)- (?P<role>[^\s\[\]\"()]+)"
    r"(?: \[ref=(?P<ref>[1-9][0-9]*)\])?"
    r'(?: "(?P<text>(?:[^"\\]|\\.)*)")?'
    r"(?: \((?P<desc>(?:[^)\\]|\\.)*)\))?"
    r"(?: \[(?P<states>(?:display=-?[0-9]+|[a-z_-]+)(?:, (?:display=-?[0-9]+|[a-z_-]+))*)\])?"
)
_ESCAPE = re.compile(r"\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|(.))", re.DOTALL)
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', ")": ")"}


def _unescape_one(m: re.Match[str]) -> str:
    hex2, hex4, ch = m.groups()
    if hex2 is not None:
        return chr(int(hex2, 16))
    if hex4 is not None:
        return chr(int(hex4, 16))
    out = _SIMPLE.get(ch)
    if out is None:
        raise ValueError(f"unknown escape \\{ch}")
    return out


def unescape(s: str) -> str:
    """Decode the backslash escapes of a text or desc slot."""
    return _ESCAPE.sub(_unescape_one, s) if "\\" in s else s


def parse(text: str) -> Node:
    """Parse snapshot text into a root node (role ``""``) whose children are the top lines."""
    root = Node("")
    path: list[Node] = [root]  # path[d] is the parent for lines of depth d
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise ValueError(f"line {lineno} is not a snapshot line: {line[:80]!r}")
        depth = len(m["indent"]) // 2
        if depth > len(path) - 1:
            raise ValueError(f"line {lineno} is indented deeper than its parent allows")
        del path[depth + 1 :]
        try:
            text_ = unescape(m["text"]) if m["text"] is not None else ""
            desc = unescape(m["desc"]) if m["desc"] is not None else ""
        except ValueError as exc:
            raise ValueError(f"line {lineno}: {exc}") from None
        node = Node(
            m["role"],
            int(m["ref"]) if m["ref"] is not None else None,
            text_,
            desc if desc != text_ else "",
            tuple(m["states"].split(", ")) if m["states"] is not None else (),
        )
        path[depth].children.append(node)
        path.append(node)
    return root
