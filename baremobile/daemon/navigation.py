"""The navigation graph: AutoMobile's ``ide/getNavigationGraph``, kept for every session,
always.

Every page a session uses is watched (:class:`Watcher`, one of the page's step observers):
each screen the page reads for its caller (a snapshot, a wait's look, a target read before
an action) is a **screen**, each acting call between two screens a **transition**. Nothing
more is read from the device for it — the graph sees what the session's calls read anyway
(a session that observes after acting, ``ide/setFeatureFlag observe``, sees every screen).
A screen is its snapshot less the status bar (the clock changes by itself), named
``<app>: <title>``; a transition is ``{from, to, type, tool}`` — ``type`` ``tool`` (one
call between the two screens: the client's tool name), ``back`` (a Back press) or
``unknown`` (several calls without a look between them: where each led is not known).
Each session has its graph; the daemon's graph has every session's screens and moves.

``ide/getNavigationGraph`` (params all optional: ``sessionUuid`` / ``sessionId``,
``platform``) answers what AutoMobile's ``getNavigationGraph`` tool answers — an MCP
``CallToolResult`` whose ``content[0].text`` is the JSON ``{message, currentScreen,
nodeCount, edgeCount, knownEdges, unknownEdges, screens: [{name, visitCount, lastVisited}],
transitions: [{from, to, type, tool?}]}`` — for the session named, else the daemon's whole
graph. On our own socket a session recorded into a trace (``daemon start --trace``) answers
its trace's richer graph instead (:func:`baremobile.trace.graph.navigation_graph`), as
before.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from baremobile.errors import InvalidArgument

if TYPE_CHECKING:
    from baremobile.daemon.server import DaemonServer

__all__ = ["NavGraph", "Watcher", "graph_result", "navigation_graph"]

#: the most screens and transitions one graph keeps (screens come from what devices show)
MAX_SCREENS = 2000
MAX_TRANSITIONS = 5000


def _screen_key(snap: Any) -> tuple[str, str]:
    """(what identifies the screen, its title): the trace graph's rule, so both graphs
    agree on what one screen is."""
    from baremobile.trace.graph import _key_and_title

    return _key_and_title(snap.full_text)


def _iso(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc) \
        .isoformat(timespec="milliseconds").replace("+00:00", "Z")


class NavGraph:
    """Screens and transitions between them, as one session's calls (or every session's)
    saw them. Thread-safe; no device I/O."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._screens: dict[str, dict[str, Any]] = {}  # name → {name, visitCount, …}
        self._names: dict[str, str] = {}  # screen key → name
        self._transitions: dict[tuple[str, str, str, str | None], dict[str, Any]] = {}
        self._moves: list[tuple[str, str]] = []  # (tool, type) since the last screen
        self.current: str | None = None
        self.app: str | None = None
        self._tool = threading.local()

    @contextlib.contextmanager
    def calling(self, tool: str) -> Iterator[None]:
        """Name the moves of this thread's call: ``tool`` (the client's tool name)."""
        before = getattr(self._tool, "name", None)
        self._tool.name = tool
        try:
            yield
        finally:
            self._tool.name = before

    def acted(self, verb: str, back: bool = False) -> None:
        """An acting call ran (``verb``: the page's; the client's tool name is used when a
        call is named)."""
        with self._lock:
            self._moves.append((getattr(self._tool, "name", None) or verb,
                                "back" if back else "tool"))

    def looked(self, snap: Any) -> None:
        """The page read the screen ``snap`` for its caller."""
        key, title = _screen_key(snap)
        package = getattr(snap, "package", "") or ""
        now = int(self._clock() * 1000)
        with self._lock:
            name = self._names.get(key)
            if name is None:
                if len(self._screens) >= MAX_SCREENS:
                    return
                base = f"{package}: {title}" if title else package or "screen"
                name, n = base, 2
                while name in self._screens:
                    name, n = f"{base} ({n})", n + 1
                self._names[key] = name
                self._screens[name] = {"name": name, "visitCount": 0, "lastVisited": now,
                                       "app": package}
            moves, self._moves = self._moves, []
            if name == self.current and not moves:
                self._screens[name]["lastVisited"] = now
                return  # looked again at the same screen
            screen = self._screens[name]
            screen["visitCount"] += 1
            screen["lastVisited"] = now
            if self.current is not None and moves:
                tool, kind = moves[0] if len(moves) == 1 else (moves[0][0], "unknown")
                edge = (self.current, name, kind, tool if kind != "unknown" else None)
                if edge in self._transitions:
                    self._transitions[edge]["count"] += 1
                elif len(self._transitions) < MAX_TRANSITIONS:
                    self._transitions[edge] = {"from": edge[0], "to": edge[1], "type": kind,
                                               "count": 1}
                    if edge[3] is not None:
                        self._transitions[edge]["tool"] = edge[3]
            self.current = name
            self.app = package or None

    def automobile(self) -> dict[str, Any]:
        """The graph as AutoMobile's ``getNavigationGraph`` words it."""
        with self._lock:
            screens = [{"name": s["name"], "visitCount": s["visitCount"],
                        "lastVisited": _iso(s["lastVisited"])}
                       for s in self._screens.values()]
            transitions = [dict(t) for t in self._transitions.values()]
            current, app = self.current, self.app
        unknown = sum(1 for t in transitions if t["type"] == "unknown")
        return {"message": f"Navigation graph for app: {app or 'none'}",
                "currentScreen": current, "nodeCount": len(screens),
                "edgeCount": len(transitions), "knownEdges": len(transitions) - unknown,
                "unknownEdges": unknown, "screens": screens, "transitions": transitions}


def _is_back(step: Any) -> bool:
    if step.verb == "back":
        return True
    key = step.args[0] if step.args else step.kwargs.get("key")
    return step.verb == "press" and str(key).strip().lower() in ("back", "keycode_back", "4")


class Watcher:
    """A page's observer feeding the graphs of the session that holds it (and the daemon's):
    what each outermost verb read and did, from the page's own state — no device I/O."""

    def __init__(self, *graphs: NavGraph) -> None:
        self.graphs = graphs
        self._seen: Any = None

    def step_started(self, page: Any, step: Any) -> None:
        self._seen = page.last_snapshot

    def step_ended(self, page: Any, step: Any) -> None:
        snap = page.last_snapshot
        fresh = snap is not None and snap is not self._seen
        self._seen = snap
        # a screen an acting verb read was read before it acted (its target); the screen
        # after it is read by the next verb (the session's observation, or the client's)
        if fresh:
            for graph in self.graphs:
                graph.looked(snap)
        if step.acts and step.error is None:
            for graph in self.graphs:
                graph.acted(step.verb, _is_back(step))


def graph_result(graph: NavGraph) -> dict[str, Any]:
    """AutoMobile's tool result of ``graph``: an MCP ``CallToolResult`` (JSON text)."""
    return {"content": [{"type": "text", "text": json.dumps(graph.automobile(), indent=2)}]}


def _session_named(params: dict[str, Any]) -> str | None:
    name = params.get("sessionUuid", params.get("sessionId", params.get("session")))
    if name is not None and not isinstance(name, str):
        raise InvalidArgument("params.sessionUuid must be a string")
    return name


def navigation_graph(server: DaemonServer, params: dict[str, Any], pending: Any) -> Any:
    """``ide/getNavigationGraph`` (see the module's docs)."""
    hub = server.hub
    name = _session_named(params)
    if name is None:
        return graph_result(hub.graph)
    state = hub.session(name)
    page = hub.pages.pages().get(state.options.device or "")
    tracing = getattr(page, "tracing", None)
    if page is not None and getattr(pending, "conn", None) is not None and \
            getattr(pending.conn, "vocabulary", None) is None and \
            tracing is not None and tracing.recording:
        return {"sessionId": name, "device": page.serial, "trace": str(tracing.path),
                **tracing.graph()}
    return graph_result(state.graph)
