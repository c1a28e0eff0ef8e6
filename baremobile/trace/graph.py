"""The navigation graph of a session: screens as nodes, actions as edges.

:func:`navigation_graph` reads a trace (or ``page.tracing.graph()`` the recording running
now) and answers JSON — what ``baremobile trace graph`` prints, the HTML view draws and the
daemon's ``ide/getNavigationGraph`` returns::

    {"start": "n1", "current": "n3",
     "nodes": [{"id": "n1", "package": "com.android.settings", "title": "Settings",
                "visits": 2, "dump": "dumps/….xml", "steps": [2, 6]}, …],
     "edges": [{"from": "n1", "to": "n2", "action": "tap(4) → Group \\"Network & internet\\"",
                "verb": "tap", "count": 1, "steps": [3]}, …]}

A node is a screen up to what changes by itself: two dumps whose snapshots differ only in
the status bar (the clock, the battery) are one node. An edge joins the screen an action
was taken on — for a step that read the screen itself first (``type`` reading its field,
a ref read again), that screen — to the screen read next (:mod:`.timeline`; an action
taken twice in a row without a look in between leads to an unknown screen: it gets no
edge).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from baremobile.snapshot import from_xml
from baremobile.trace.format import Trace, call_text
from baremobile.trace.timeline import moves

__all__ = ["navigation_graph"]

_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _read(xml: bytes) -> tuple[str, str]:
    """(the snapshot text of a dump — its whole screen —, its app's package); both empty
    when the dump is unreadable."""
    try:
        snap = from_xml(xml)
    except Exception:
        return "", ""
    return snap.full_text, snap.package


def _key_and_title(text: str) -> tuple[str, str]:
    """(what identifies the screen: its text less the status bar, a short title)."""
    kept: list[str] = []
    skipping = False
    title = ""
    in_app = False
    for line in text.split("\n"):
        top = line.startswith("- ")
        if top:
            skipping = line.startswith("- status bar")
            in_app = line.startswith("- app ")
        if skipping:
            continue
        kept.append(line)
        if in_app and not title and not top:
            m = _QUOTED.search(line)
            if m:
                title = m.group(1)
    return hashlib.sha256("\n".join(kept).encode()).hexdigest()[:16], title


def navigation_graph(trace: Trace) -> dict[str, Any]:
    """The graph of ``trace`` (see the module's docs)."""
    nodes: dict[str, dict[str, Any]] = {}
    by_dump: dict[str, str] = {}

    def node(dump: str | None, step: int | None) -> str | None:
        if not dump:
            return None
        if dump not in by_dump:
            xml = trace.dump(dump)
            if xml is None:
                return None
            text, package = _read(xml)
            key, title = _key_and_title(text)
            if key not in nodes:
                nodes[key] = {"id": f"n{len(nodes) + 1}", "package": package, "title": title,
                              "visits": 0, "dump": dump, "steps": []}
            by_dump[dump] = key
        n = nodes[by_dump[dump]]
        n["visits"] += 1
        if step is not None:
            n["steps"].append(step)
        return str(n["id"])

    start = node(trace.meta.get("start_dump"), None)
    current = start
    dumps_seen: list[tuple[str, int]] = [(d, s["n"]) for s in trace.steps
                                         for d in s.get("dumps") or []]
    for d, n in dumps_seen:
        current = node(d, n) or current
    if trace.meta.get("end_dump"):
        current = node(trace.meta["end_dump"], None) or current
    ids = {key: n["id"] for key, n in nodes.items()}
    edges: dict[tuple[str, str, str], dict[str, Any]] = {}
    for move in moves(trace):
        step = move.step
        if step.get("error") is not None or not move.after or not move.before:
            continue
        a = by_dump.get(move.before)
        b = by_dump.get(move.after)
        if a is None or b is None:
            continue
        action = call_text(step)
        key = (ids[a], ids[b], action)
        e = edges.setdefault(key, {"from": ids[a], "to": ids[b], "action": action,
                                   "verb": step.get("verb"), "count": 0, "steps": []})
        e["count"] += 1
        if step["n"] not in e["steps"]:
            e["steps"].append(step["n"])
    return {"start": start or (next(iter(ids.values()), None)), "current": current,
            "nodes": list(nodes.values()), "edges": list(edges.values())}
