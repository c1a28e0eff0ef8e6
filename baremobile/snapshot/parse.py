"""Read snapshot text back into a tree: the inverse of :func:`~baremobile.snapshot.render.render`.

``render(parse(render(tree))) == render(tree)`` for every tree. The first line
``# 1080x2400 portrait`` becomes the root's ``text``; window headers (``- app com.example``,
``- status bar: "9:41", (Wi-Fi)``) become :class:`~baremobile.snapshot.tree.Window` nodes (a
condensed header's inline items become its children); ``#id`` becomes ``Node.id_name``.
Other lines starting with ``#`` (the truncation note) are skipped. Malformed text raises
:class:`ValueError` naming the line.
"""

from __future__ import annotations

import re

from baremobile.snapshot.tree import ID_NAME, WINDOW_KINDS, Node, Window

__all__ = ["ID_NAME", "SCREEN_LINE", "parse", "parse_line", "unescape"]

_TEXT = r'"(?P<text>(?:[^"\\]|\\.)*)"'
_DESC = r"\((?P<desc>(?:[^)\\]|\\.)*)\)"
_STATES = r"\[(?P<states>(?:display=-?[0-9]+|[a-z_-]+)(?:, (?:display=-?[0-9]+|[a-z_-]+))*)\]"
_LINE = re.compile(
    r"(?P<indent>(?:  )*)- (?P<role>[^\s\[\]\"()]+)"
    r"(?: \[ref=(?P<ref>[1-9][0-9]*)\])?"
    r"(?: #(?P<id>[A-Za-z0-9_.-]+))?"
    rf"(?: {_TEXT})?"
    rf"(?: {_DESC})?"
    rf"(?: {_STATES})?"
)
_HEADER = re.compile(
    r"(?P<indent>(?:  )*)- (?P<kind>" + "|".join(WINDOW_KINDS) + ")"
    r"(?: (?P<package>[A-Za-z0-9_.]+))?"
    rf"(?: {_TEXT})?"
    rf"(?: {_STATES})?"
    r"(?P<items>: .*)?"
)
#: The first line of a snapshot: the screen's size and orientation.
SCREEN_LINE = re.compile(r"# (?P<w>[0-9]+)x(?P<h>[0-9]+) (?P<o>portrait|landscape|square)")
# the parts of one inline item of a condensed header, in order, each optional
_PARTS = (
    ("ref", re.compile(r"\[ref=([1-9][0-9]*)\]")),
    ("id", re.compile(r"#([A-Za-z0-9_.-]+)")),
    ("text", re.compile(r'"((?:[^"\\]|\\.)*)"')),
    ("desc", re.compile(r"\(((?:[^)\\]|\\.)*)\)")),
    ("states", re.compile(_STATES.replace("?P<states>", ""))),
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


def _states(s: str | None) -> tuple[str, ...]:
    return tuple(s.split(", ")) if s is not None else ()


def _items(s: str) -> list[Node]:
    """The inline nodes of a condensed header (``s`` is what follows ``": "``)."""
    out: list[Node] = []
    pos = 0
    while True:
        found: dict[str, str] = {}
        for name, rx in _PARTS:
            at = pos + (1 if found else 0)
            if found and not s.startswith(" ", pos):
                break
            m = rx.match(s, at)
            if m is not None:
                found[name] = m.group(1) if name != "states" else m.group(0)[1:-1]
                pos = m.end()
        if not found:
            raise ValueError(f"an empty or malformed item at column {pos + 1}")
        text = unescape(found.get("text", ""))
        desc = unescape(found.get("desc", ""))
        node = Node(
            "View",
            int(found["ref"]) if "ref" in found else None,
            text,
            desc if desc != text else "",
            _states(found.get("states")),
        )
        node.id_name = found.get("id", "")
        out.append(node)
        if pos == len(s):
            return out
        if not s.startswith(", ", pos):
            raise ValueError(f"expected ', ' between items at column {pos + 1}")
        pos += 2


def parse_line(line: str) -> tuple[int, Node]:
    """``(depth, node)`` of one snapshot line (a window header gives a :class:`Window`)."""
    h = _HEADER.fullmatch(line)
    if h is not None:
        items = h["items"]
        win = Window(
            h["kind"],
            h["package"] or "",
            unescape(h["text"]) if h["text"] is not None else "",
            _states(h["states"]),
            _items(items[2:]) if items else None,
            condensed=items is not None,
        )
        return len(h["indent"]) // 2, win
    m = _LINE.fullmatch(line)
    if m is None:
        raise ValueError(f"not a snapshot line: {line[:80]!r}")
    text = unescape(m["text"]) if m["text"] is not None else ""
    desc = unescape(m["desc"]) if m["desc"] is not None else ""
    node = Node(
        m["role"],
        int(m["ref"]) if m["ref"] is not None else None,
        text,
        desc if desc != text else "",
        _states(m["states"]),
    )
    node.id_name = m["id"] or ""
    return len(m["indent"]) // 2, node


def parse(text: str) -> Node:
    """Parse snapshot text into a root node (role ``""``) whose children are the top lines.

    The root's ``text`` is the screen line's content (``1080x2400 portrait``), or ``""``.
    """
    root = Node("")
    path: list[Node] = [root]  # path[d] is the parent for lines of depth d
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        if line.startswith("#"):
            if lineno == 1 and SCREEN_LINE.fullmatch(line):
                root.text = line[2:]
            continue
        try:
            depth, node = parse_line(line)
        except ValueError as exc:
            raise ValueError(f"line {lineno}: {exc}") from None
        if depth > len(path) - 1:
            raise ValueError(f"line {lineno} is indented deeper than its parent allows")
        parent = path[depth]
        if type(parent) is Window and parent.condensed:
            raise ValueError(f"line {lineno} is indented under a condensed header")
        del path[depth + 1 :]
        path[depth].children.append(node)
        path.append(node)
    return root
