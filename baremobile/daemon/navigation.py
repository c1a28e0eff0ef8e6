"""``ide/getNavigationGraph``: AutoMobile's daemon method, answered from the session's live
recording (:meth:`baremobile.trace.record.Tracing.graph`).

The daemon records a session when it runs with ``--trace DIR`` (or ``$BAREMOBILE_TRACE``);
the graph is what that recording saw so far: screens as nodes, actions as edges (the shape
is :func:`baremobile.trace.graph.navigation_graph`'s). Params (all optional):
``sessionId`` (default ``default``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baremobile.errors import InvalidArgument

if TYPE_CHECKING:
    from baremobile.daemon.server import DaemonServer

__all__ = ["navigation_graph"]


def navigation_graph(server: DaemonServer, params: dict[str, Any], pending: Any) -> Any:
    """The navigation graph of a session's device (see the module's docs)."""
    name = params.get("sessionId", params.get("session", "default"))
    if not isinstance(name, str):
        raise InvalidArgument("params.sessionId must be a string")
    hub = server.hub
    state = hub.session(name)
    page = hub.pages.pages().get(state.options.device or "")
    if page is None:
        raise InvalidArgument(f"session {name!r} has not used a device yet",
                              hint="open it and act on a device first")
    if not page.tracing.recording:
        raise InvalidArgument(
            f"session {name!r} is not being recorded: the navigation graph comes from its "
            "trace", hint="start the daemon with --trace DIR (or $BAREMOBILE_TRACE=DIR)")
    return {"sessionId": name, "device": page.serial, "trace": str(page.tracing.path),
            **page.tracing.graph()}
