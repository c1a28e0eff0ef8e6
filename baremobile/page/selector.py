"""Selectors: find elements by what they show, instead of by ref."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.snapshot import Snapshot
from baremobile.snapshot.tree import Node

__all__ = ["ALIASES", "CRITERIA", "Selector", "Target"]


#: The selector fields that pick elements (``index`` only chooses among the matches).
CRITERIA = ("text", "text_contains", "desc", "desc_contains", "id", "role", "class_name")
#: other spellings a selector mapping may use (clawperator's camelCase keys, Android's
#: names) → the field they mean
ALIASES = {"resource_id": "id", "resourceId": "id", "textContains": "text_contains",
           "descContains": "desc_contains", "contentDescContains": "desc_contains",
           "contentDesc": "desc", "className": "class_name", "class": "class_name",
           "textEquals": "text", "contentDescEquals": "desc"}


@dataclass(frozen=True)
class Selector:
    """Find elements by what they show. Every given field must match.

    ``text``/``desc`` are exact; ``text_contains``/``desc_contains`` are case-insensitive
    substrings; ``id`` is a resource id (full ``pkg:id/name`` or just ``name``); ``role``
    is a snapshot role (``Button``, ``TextInput`` …); ``class_name`` an Android class (full,
    or its last part: ``EditText``); ``index`` picks among several matches. A mapping may
    spell fields as clawperator does (:data:`ALIASES`: ``textContains``, ``descContains``,
    ``resourceId`` …). A verb that acts on one element (``tap``, ``type``, ``wait_for``)
    takes match ``index`` (the first when none is given); :meth:`Page.find
    <baremobile.page.Page.find>` returns every match, or only match ``index`` when one is
    given.
    """

    text: str | None = None
    text_contains: str | None = None
    desc: str | None = None
    desc_contains: str | None = None
    id: str | None = None
    role: str | None = None
    index: int | None = None
    class_name: str | None = None

    def __post_init__(self) -> None:
        for f in CRITERIA:
            v = getattr(self, f)
            if v is not None and not isinstance(v, str):
                raise InvalidArgument(f"selector {f} must be a string, not {v!r}")
        if self.index is not None and (isinstance(self.index, bool)
                                       or not isinstance(self.index, int) or self.index < 0):
            raise InvalidArgument(
                f"selector index must be a non-negative integer, not {self.index!r}"
            )
        if all(getattr(self, f) is None for f in CRITERIA):
            raise InvalidArgument(
                "a selector needs at least one of text, text_contains, desc, "
                "desc_contains, id, role, class_name"
            )

    @classmethod
    def of(cls, value: Selector | Mapping[str, Any]) -> Selector:
        """A selector from a mapping (the :data:`ALIASES` are accepted: ``resource_id`` or
        ``resourceId`` for ``id``, ``textContains`` …); validated."""
        if isinstance(value, Selector):
            return value
        if not isinstance(value, Mapping):
            raise InvalidArgument(f"a selector is a mapping, not {type(value).__name__}")
        names = {f.name for f in fields(cls)}
        unknown = set(value) - names - set(ALIASES)
        if unknown:
            raise InvalidArgument(
                f"unknown selector field(s): {', '.join(sorted(map(str, unknown)))}",
                hint=f"use {', '.join(sorted(names))}",
            )
        data: dict[str, Any] = {}
        for key, v in value.items():
            name = ALIASES.get(key, key)
            if name in data and data[name] != v:
                raise InvalidArgument(f"selector field {name} is given twice, differently "
                                      f"({key!r} and another spelling)")
            data[name] = v
        return cls(**data)

    @property
    def position(self) -> int:
        """Which match a verb acting on one element takes (``index``, else the first)."""
        return 0 if self.index is None else self.index

    def pick(self, found: list[Node]) -> list[Node]:
        """``found`` (the :meth:`matches`), or only match ``index`` when one is given (none
        when there are not that many)."""
        return found if self.index is None else found[self.index:self.index + 1]

    def matches(self, snap: Snapshot) -> list[Node]:
        """The nodes of ``snap`` this selector matches, those with a ref first, each group in
        screen order (``index`` not applied: :meth:`pick`)."""
        found = snap.find(
            text=self.text,
            text_contains=self.text_contains,
            desc=self.desc,
            desc_contains=self.desc_contains,
            resource_id=self.id,
            role=self.role,
            class_name=self.class_name,
        )
        # prefer actionable matches (a ref) over plain labels, keeping line order
        return [n for n in found if n.ref is not None] + [n for n in found if n.ref is None]

    def __str__(self) -> str:
        parts = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if getattr(self, f.name) is not None
        ]
        return "{" + ", ".join(parts) + "}"


#: A ref from the last snapshot, or a selector (object or mapping).
Target = int | Selector | Mapping[str, Any]
