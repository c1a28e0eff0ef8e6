"""What a closing node does to its kept children: dedup, echoes, ``selected`` once.

The rules are numbered as in :mod:`~baremobile.snapshot.prune`, which calls these on its
hot path (each returns its input list untouched when nothing changes, so the common case
allocates nothing).
"""

from __future__ import annotations

from typing import Any

from baremobile.snapshot.tree import Node

__all__ = ["dedup", "drop_echoes", "unselect"]


def dedup(kids: list[Node]) -> list[Node]:
    """Rule 2: of sibling leaves without a ref, the first of each (role, text, desc,
    states); the list itself when nothing goes."""
    seen: set[tuple[Any, ...]] | None = None
    out: list[Node] | None = None
    for i, k in enumerate(kids):
        if k.ref is None and not k.children:
            key = (k.role, k.text, k.desc, k.states)
            if seen is None:
                seen = {key}
            elif key in seen:
                if out is None:
                    out = kids[:i]
                continue
            else:
                seen.add(key)
        if out is not None:
            out.append(k)
    return kids if out is None else out


def unselect(kids: list[Node]) -> list[Node]:
    """``selected`` said once per subtree: children of a selected node lose the state, and
    a child left with nothing to say goes."""
    out: list[Node] = []
    for k in kids:
        st = k.states
        if "selected" in st:
            st = tuple(s for s in st if s != "selected")
            if not (st or k.ref is not None or k.text or k.desc or k.children):
                continue
            k.states = st
        out.append(k)
    return out


def drop_echoes(
    kids: list[Node], text: str, desc: str, states: tuple[str, ...]
) -> list[Node] | None:
    """Rule 3: ref-less leaf children whose text and desc are already part of the parent's
    label (and whose states it shows) go; None when none is left."""
    out: list[Node] | None = None
    for i, k in enumerate(kids):
        if (
            k.ref is None
            and not k.children
            and (not k.states or all(s in states for s in k.states))
            and (not k.text or k.text in text or k.text in desc)
            and (not k.desc or k.desc in text or k.desc in desc)
        ):
            if out is None:
                out = kids[:i]
            continue
        if out is not None:
            out.append(k)
    if out is None:
        return kids
    return out or None
