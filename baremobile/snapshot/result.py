"""The :class:`Snapshot` object: the text an agent reads plus what the verbs need to act."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from baremobile.snapshot import diff as _diff
from baremobile.snapshot.refs import RefMap
from baremobile.snapshot.render import Truncation, render, render_report
from baremobile.snapshot.tree import Node, Window

__all__ = ["Snapshot"]


class Snapshot:
    """One pruned view of the screen.

    * :attr:`text` — the snapshot in the baremobile grammar (``str(snapshot)`` is the same);
    * :attr:`refs` — ``{ref: RefNode}`` for every ``[ref=N]``, with bounds and a tap point;
    * :attr:`tree` — the pruned tree (a root :class:`Node` of role ``""``);
    * :attr:`width`, :attr:`height`, :attr:`rotation` — the screen as the dump saw it;
    * :attr:`package` — the foreground app (the main app window, not system UI or keyboard);
    * :attr:`truncated` / :attr:`truncation` — whether and what a limit cut from the text;
    * :attr:`is_diff` — whether :attr:`text` is a diff against a snapshot seen before
      (``page.snapshot(diff=True)``); :attr:`full_text` is the whole screen either way;
      :attr:`number` is the observation's number in its :class:`~.diff.History`;
    * :attr:`notes` — what the snapshot says about itself (``web: …`` when a page could not
      be read), each a ``# …`` line at the end of :attr:`text` (the grammar's parser skips
      them; they are not in :attr:`full_text`, so diffs never show them as changes).
    """

    __slots__ = (
        "text",
        "refs",
        "tree",
        "width",
        "height",
        "rotation",
        "package",
        "truncation",
        "is_diff",
        "notes",
        "number",
        "_full",
    )

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
        #: True when :attr:`text` is a diff (see :mod:`baremobile.snapshot.diff`)
        self.is_diff = False
        self.notes: tuple[str, ...] = ()
        #: the observation's number when :meth:`diff_from` took it through a History
        self.number: int | None = None
        self._full: str | None = None if truncation is not None else text

    @property
    def full_text(self) -> str:
        """The whole screen in the grammar: no limits applied, never a diff."""
        if self._full is None:
            self._full = render(self.tree)
        return self._full

    @property
    def windows(self) -> list[Window]:
        """The window headers (top-level lines), in order."""
        return [w for w in self.tree.children if isinstance(w, Window)]

    def diff_from(
        self, previous: str | _diff.History | None, *, max_chars: int | None = None
    ) -> Snapshot:
        """This snapshot with a diff as its :attr:`text`.

        ``previous`` is the whole text of a snapshot the reader saw, or a
        :class:`~baremobile.snapshot.diff.History` of what it saw (the diff is then numbered,
        may be taken against an earlier observation, and is recorded; :attr:`number` is set).
        With nothing before, or when the screen is new, the text is the whole screen after
        the new-screen note. A diff longer than ``max_chars`` gives way to the whole screen
        cut to ``max_chars``.
        """
        full = self.full_text
        number = None
        if isinstance(previous, _diff.History):
            number, text = previous.observe(full)
        elif previous is not None:
            text = _diff.diff(previous, full)
        else:
            text = _diff.full_note() + "\n" + full
        truncation = None
        if max_chars is not None and len(text) > max_chars:
            note = _diff.full_note(number)
            cut = render_report(self.tree, max_chars=max(1, max_chars - len(note) - 1))
            text = _diff.whole(cut.text, number)
            truncation = cut.truncation
        out = Snapshot(
            text,
            self.refs,
            self.tree,
            width=self.width,
            height=self.height,
            rotation=self.rotation,
            package=self.package,
            truncation=truncation,
        )
        out.is_diff = True
        out.number = number
        out._full = full
        out.add_notes(self.notes, max_chars)
        return out

    def add_notes(self, notes: Iterable[str], max_chars: int | None = None) -> Snapshot:
        """Append ``notes`` (see :attr:`notes`; repeats dropped) as ``# …`` lines to
        :attr:`text`, within ``max_chars`` (a note that does not fit is cut, or left out
        when not even its start fits). Returns the snapshot."""
        text, added = self.text, list(self.notes)
        for note in dict.fromkeys(notes):
            if note in added:
                continue
            line = "# " + " ".join(note.splitlines())
            joined = f"{text}\n{line}" if text else line
            if max_chars is not None and len(joined) > max_chars:
                room = max_chars - len(text) - (1 if text else 0)
                if room < 12:  # not even "# web: …" fits
                    break
                joined = (f"{text}\n" if text else "") + line[: room - 1] + "…"
            text = joined
            added.append(note)
        self.text = text
        self.notes = tuple(added)
        return self

    @property
    def truncated(self) -> bool:
        """True when a ``max_*`` limit cut nodes from :attr:`text` (refs stay valid)."""
        return self.truncation is not None

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the screen in the current rotation."""
        return (self.width, self.height)

    def nodes(self) -> Iterator[Node]:
        """Every kept node, in line order (refs and plain labels alike; not the window
        headers, see :attr:`windows`)."""
        for top in self.tree.children:
            for node in top.walk():
                if type(node) is not Window:
                    yield node

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
        class_name: str | None = None,
    ) -> list[Node]:
        """Kept nodes matching every given criterion, in line order.

        ``text``/``desc`` compare with what the line shows (a folded label included) and with
        the node's own attribute, except a ``text`` attribute equal to the node's ``hint``
        (an empty field showing its hint, printed empty: rule 10); ``*_contains`` is a
        case-insensitive substring test; ``resource_id`` matches the full id or the part
        after ``:id/``; ``class_name`` the Android class, full (``android.widget.EditText``)
        or its last part (``EditText``).
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
            if class_name is not None:
                cls = a.get("class", "")
                if cls != class_name and cls.rpartition(".")[2] != class_name:
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
            f"{', diff' if self.is_diff else ''}{', truncated' if self.truncated else ''}>"
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
