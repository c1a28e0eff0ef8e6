"""How the pruner reads a node's attributes: expat's flat list, through one getter per layout.

With ``ordered_attributes`` expat hands a node's attributes as one list
``[name, value, name, value, ...]``, which is cheaper for pyexpat to build than a dict.
uiautomator writes the same names in the same order on every node, so one
:func:`operator.itemgetter` per *layout* (the sequence of names) reads everything a handler
needs in one C call. The pruner checks the layout on every node, so a dump whose nodes vary
is read right, only slower. :func:`attr_dict` turns a list into the dict
:attr:`Node.attrs <baremobile.snapshot.tree.Node.attrs>` shows, when it is first read.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

__all__ = ["END_FIELDS", "START_FIELDS", "Getter", "Layout", "attr", "attr_dict", "layout"]

#: Attributes every node's start handler reads, and its end handler, in unpacking order.
START_FIELDS = (
    "bounds",
    "class",
    "clickable",
    "long-clickable",
    "checkable",
    "scrollable",
    "password",
)
END_FIELDS = (
    "text",
    "content-desc",
    "checked",
    "selected",
    "focused",
    "enabled",
    "password",
    "scrollable",
)
Getter = Callable[[list[str]], tuple[Any, ...]]
#: (start getter, end getter, index of ``visible-to-user`` or 0)
Layout = tuple[Getter, Getter, int]
_LAYOUTS: dict[tuple[str, ...], Layout] = {}
_LAYOUTS_MAX = 256


def layout(names: list[str]) -> Layout:
    """How to read the attributes of nodes whose attribute names are ``names``, in order.

    Expat hands a node's attributes as one list ``[name, value, name, value, ...]``
    (``ordered_attributes``); uiautomator writes the same names in the same order on every
    node, so one ``itemgetter`` per layout reads all a handler needs in one C call. A layout
    that lacks one of the fields (none that uiautomator writes does) is read by a slower
    getter that reads ``None`` for the missing ones.
    """
    key = tuple(names)
    lay = _LAYOUTS.get(key)
    if lay is None:
        pos = {n: 2 * i + 1 for i, n in enumerate(key)}
        lay = (
            _getter([pos.get(f) for f in START_FIELDS]),
            _getter([pos.get(f) for f in END_FIELDS]),
            pos.get("visible-to-user", 0),
        )
        if len(_LAYOUTS) < _LAYOUTS_MAX:  # hostile dumps cannot grow it without bound
            _LAYOUTS[key] = lay
    return lay


def _getter(where: list[int | None]) -> Getter:
    """Reads the values at ``where`` (``None`` where a field is missing) as one tuple."""
    found = [i for i in where if i is not None]
    if len(found) == len(where):
        return itemgetter(*found)  # every field there (the fields are >1: a tuple)

    def read(a: list[str]) -> tuple[str | None, ...]:
        return tuple(a[i] if i is not None else None for i in where)

    return read


def attr(a: list[str], name: str) -> str | None:
    """The value of attribute ``name`` in an attribute list, or ``None``."""
    for i in range(0, len(a) - 1, 2):
        if a[i] == name:
            return a[i + 1]
    return None


def attr_dict(a: list[str]) -> dict[str, str]:
    """``{name: value}`` of expat's flat ``[name, value, ...]`` list."""
    return dict(zip(a[0 : len(a) & ~1 : 2], a[1::2], strict=True))
