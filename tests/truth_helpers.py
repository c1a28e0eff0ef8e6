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


#: element name → what it is an instance of (the screen node it was cloned from, with the
#: screen's variables): every element any dump showed
INSTANCE_OF: dict[str, str] = {}


def _stamping_serialize(windows, rotation=0, *, extras=True):  # type: ignore[no-untyped-def]
    windows = list(windows)
    for w in windows:
        for node, uid in drawn_ids(w):
            node.attrs["drawing-order"] = uid
            defn = node.src.meta.get("defn") if node.src is not None else None
            if defn is not None:
                INSTANCE_OF[uid] = str(defn)
    return _serialize(windows, rotation, extras=True)


def same_element(a: str | None, b: str) -> bool:
    """Whether element names ``a`` and ``b`` name the same element: the same node, or two
    instances of one element of the same screen (that screen opened again)."""
    if a is None:
        return False
    return a == b or (a in INSTANCE_OF and INSTANCE_OF.get(a) == INSTANCE_OF.get(b))


def stamp_elements(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every dump name the model element of each node (see the module docs)."""
    monkeypatch.setattr(screens_mod, "serialize", _stamping_serialize)


def element_of(snap: Snapshot, ref: int) -> str:
    """The screen model's name of the element ``ref`` shows in ``snap``."""
    return str((snap.refs.node(ref).attrs or {})["drawing-order"])


def touches(events: list[Event]) -> list[Event]:
    """The touches among ``events`` (taps, long presses, swipes; a ``double_tap`` event only
    says that a tap completed one)."""
    return [e for e in events if e.kind in ("tap", "long_press", "swipe")]


def landed_on(event: Event, element: str) -> bool:
    """Whether a touch landed on ``element`` or inside it (or an instance of the same
    element: :func:`same_element`)."""
    under: Any = event.get("under") or []
    return any(same_element(u, element) for u in (event.get("on"), *under))


def opens(events: list[Event]) -> int:
    """Round trips: the services opened (each shell or exec command is one)."""
    return sum(1 for e in events if e.kind == "open")


def dumps(events: list[Event]) -> int:
    """The screen's dumps among ``events`` (``uiautomator dump`` runs)."""
    return sum(1 for e in events if e.kind == "dump")


def reads_frames(argv: list[str]) -> bool:
    """Whether ``argv`` (one of ``phone.events.commands()``) is part of the page reading
    the display's frame count (``page.freshness``): the count, its marks, the comparison."""
    return (argv[:3] == ["service", "call", "SurfaceFlinger"] or argv[:1] == ["["]
            or argv in (["echo", "--baremobile-unchanged--"], ["echo", "--baremobile-frames--"]))


def only_frame_checks(argvs: list[list[str]]) -> bool:
    """Whether every command among ``argvs`` (``phone.events.commands()``) only read the
    display's frame count (the page's freshness check): no input, no dump."""
    return all(reads_frames(argv) for argv in argvs)


def without_frame_reads(argvs: list[list[str]]) -> list[list[str]]:
    """``argvs`` (``phone.events.commands()``) less the page's frame count reads."""
    return [argv for argv in argvs if not reads_frames(argv)]


def checks(events: list[Event]) -> int:
    """The round trips among ``events`` that only checked whether the screen drew (the
    page's freshness check, which brings a dump along only when it did)."""
    return sum(1 for e in events if e.kind == "open"
               and str(e.get("service", "")).startswith('exec:if [ "$(service call'))
