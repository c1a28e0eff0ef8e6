"""A page on its own as a :class:`~baremobile.snapshot.Snapshot`: the web nodes of
:mod:`.tree` under one WebView node, through the snapshot pipeline's own pruner and
renderer (the merged snapshot splices the same nodes into the native dump instead)."""

from __future__ import annotations

from baremobile.snapshot.prune import PruneState
from baremobile.snapshot.result import Snapshot
from baremobile.snapshot.screen import build_snapshot
from baremobile.web.capture import PageCapture
from baremobile.web.tree import build_nodes, feed

__all__ = ["web_snapshot"]


def web_snapshot(cap: PageCapture, region: tuple[int, int, int, int], package: str = "",
                 *, max_chars: int | None = None, max_depth: int | None = None,
                 max_nodes: int | None = None) -> Snapshot:
    """The page as a snapshot of one WebView window drawn at ``region`` (device px)."""
    st = PruneState()
    st.start("hierarchy", ["rotation", "0"])
    bounds = f"[{region[0]},{region[1]}][{region[2]},{region[3]}]"
    st.start("node", ["text", "", "class", "android.webkit.WebView", "package", package,
                      "content-desc", "", "bounds", bounds])
    feed(build_nodes(cap, region, package), st.start, st.end)
    st.end("node")
    st.end("hierarchy")
    return build_snapshot(st, {"max_chars": max_chars, "max_depth": max_depth,
                               "max_nodes": max_nodes})
