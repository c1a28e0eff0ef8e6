"""Helpers for the truthful-actions tests: which element of the virtual phone's screen model
a ref names, and where the phone says an input landed.

The referee is the phone's own screen model. A test-only wrapper around its serializer
writes each drawn node's element name (:func:`baremobile.virtual.screens.touch.drawn_ids`,
the name the event log uses for where an input landed) into the node's ``drawing-order``
attribute, which the pruner keeps in ``attrs`` and nothing else reads.
"""

from __future__ import annotations

from typing import Any

import pytest

from baremobile.snapshot import Snapshot
from baremobile.virtual.events import Event
from baremobile.virtual.screens import screen_model as screens_mod
from baremobile.virtual.screens.touch import drawn_ids

_serialize = screens_mod.serialize


def _stamping_serialize(windows, rotation=0, *, extras=True):  # type: ignore[no-untyped-def]
    windows = list(windows)
    for w in windows:
        for node, uid in drawn_ids(w):
            node.attrs["drawing-order"] = uid
    return _serialize(windows, rotation, extras=True)


def stamp_elements(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every dump name the model element of each node (see the module docs)."""
    monkeypatch.setattr(screens_mod, "serialize", _stamping_serialize)


def element_of(snap: Snapshot, ref: int) -> str:
    """The screen model's name of the element ``ref`` shows in ``snap``."""
    return str((snap.refs.node(ref).attrs or {})["drawing-order"])


def touches(events: list[Event]) -> list[Event]:
    """The touches among ``events`` (taps, long presses, swipes)."""
    return [e for e in events if e.kind in ("tap", "long_press", "swipe", "double_tap")]


def landed_on(event: Event, element: str) -> bool:
    """Whether a touch landed on ``element`` or inside it."""
    under: Any = event.get("under") or []
    return element == event.get("on") or element in under


def opens(events: list[Event]) -> int:
    """Round trips: the services opened (each shell or exec command is one)."""
    return sum(1 for e in events if e.kind == "open")
