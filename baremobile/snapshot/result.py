"""The :class:`Snapshot` object: the text an agent reads plus what the verbs need to act."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from baremobile.snapshot.refs import RefMap
from baremobile.snapshot.render import Truncation
from baremobile.snapshot.tree import Node

__all__ = ["Snapshot"]


class Snapshot:
    """One pruned view of the screen.

    * :attr:`text` — the snapshot in the baremobile grammar (``str(snapshot)`` is the same);
    * :attr:`refs` — ``{ref: RefNode}`` for every ``[ref=N]``, with bounds and a tap point;
    * :attr:`tree` — the pruned tree (a root :class:`Node` of role ``""``);
    * :attr:`width`, :attr:`height`, :attr:`rotation` — the screen as the dump saw it;
    * :attr:`package` — the foreground app (the main app window, not system UI or keyboard);
    * :attr:`truncated` / :attr:`truncation` — whether and what a limit cut from the text.
    """

    __slots__ = ("text", "refs", "tree", "width", "height", "rotation", "package", "truncation")

    def __init__(
        self,
        text: str,
        refs: RefMap,
        tree: Node,
        *,
        width: int = 0,
        height: int = 0,
        rotation: int = 0,
        package: str = "",
        truncation: Truncation | None = None,
    ) -> None:
        self.text = text
        self.refs = refs
        self.tree = tree
        self.width = width
        self.height = height
        self.rotation = rotation
        self.package = package
        self.truncation = truncation

    @property
    def truncated(self) -> bool:
        """True when a ``max_*`` limit cut nodes from :attr:`text` (refs stay valid)."""
        return self.truncation is not None

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the screen in the current rotation."""
        return (self.width, self.height)

    def nodes(self) -> Iterator[Node]:
        """Every kept node, in line order (refs and plain labels alike)."""
        for top in self.tree.children:
            yield from top.walk()

    def find(
        self,
        *,
        text: str | None = None,
        text_contains: str | None = None,
        desc: str | None = None,
        desc_contains: str | None = None,
        resource_id: str | None = None,
        role: str | None = None,
        ref_only: bool = False,
    ) -> list[Node]:
        """Kept nodes matching every given criterion, in line order.

        ``text``/``desc`` compare with what the line shows (a folded label included) and with
        the node's own attribute, except a ``text`` attribute equal to the node's ``hint``
        (an empty field showing its hint, printed empty: rule 10); ``*_contains`` is a
        case-insensitive substring test; ``resource_id`` matches the full id or the part
        after ``:id/``.
        """
        tc = text_contains.casefold() if text_contains is not None else None
        dc = desc_contains.casefold() if desc_contains is not None else None
        out = []
        for node in self.nodes():
            if ref_only and node.ref is None:
                continue
            if role is not None and node.role != role:
                continue
            a = node.attrs or {}
            raw = a.get("text", "")
            if raw and raw == a.get("hint"):
                raw = ""  # the hint shown as text: the field is empty
            texts = (node.text, raw)
            descs = (node.desc, a.get("content-desc", ""))
            if text is not None and text not in texts:
                continue
            if tc is not None and not any(tc in t.casefold() for t in texts):
                continue
            if desc is not None and desc not in descs:
                continue
            if dc is not None and not any(dc in d.casefold() for d in descs):
                continue
            if resource_id is not None:
                rid = node.resource_id
                if rid != resource_id and rid.rpartition(":id/")[2] != resource_id:
                    continue
            out.append(node)
        return out

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return (
            f"<Snapshot {self.width}x{self.height} {self.package or '?'}: "
            f"{len(self.refs)} refs, {len(self.text)} chars"
            f"{', truncated' if self.truncated else ''}>"
        )

    def _repr_markdown_(self) -> str:
        longest = max((len(m) for m in re.findall(r"`+", self.text)), default=0)
        fence = "`" * max(3, longest + 1)
        head = (
            f"**{self.package or 'snapshot'}** · {self.width}x{self.height} · {len(self.refs)} refs"
        )
        return f"{head}\n\n{fence}\n{self.text}\n{fence}\n"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text if not cycle else "<Snapshot ...>")
