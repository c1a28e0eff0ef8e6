"""The merged snapshot: the native dump with each foreground WebView's page inside it.

The dump is pruned a second time with the page's nodes spliced into their WebView (the
WebView's own subtree in the dump — Android's shallow node, or Chrome's accessibility
mirror — gives way to the page's), so one pass of the same pruner numbers every ref in
document order, clips web elements to the WebView and the screen, and marks the ones
under a window on top (the keyboard) covered — exactly as for native views. What could not
be read — or a page too large for the pruner's limits (nesting, elements, refs) — becomes a
note (a ``# web: …`` line at the end); the native snapshot is never lost.
The merged pass numbers refs with the Page's tracker (``baremobile.page.web``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baremobile.errors import DumpTooLarge
from baremobile.snapshot.identity import RefTracker
from baremobile.snapshot.layout import attr
from baremobile.snapshot.prune import PruneState
from baremobile.snapshot.result import Snapshot
from baremobile.snapshot.stream import StreamPruner
from baremobile.web.reader import WebReading
from baremobile.web.tree import WebNode, feed

__all__ = ["merge", "with_web"]

Key = tuple[str, str, str, int]


class _Splice:
    """A PruneState's handlers, with pages fed into their WebView nodes."""

    def __init__(self, state: PruneState, pages: dict[Key, list[WebNode]]) -> None:
        self.state = state
        self.pages = pages
        self.seen: dict[tuple[str, str, str], int] = {}
        self.skip = 0  # > 0 inside a WebView whose page replaces its dump subtree
        self.open: list[list[WebNode] | None] = []

    def start(self, name: str, attrs: list[str]) -> None:
        if self.skip:
            self.skip += 1
            return
        cls = attr(attrs, "class") or "" if name == "node" else ""
        base = (attr(attrs, "package") or "", cls, attr(attrs, "bounds") or "")
        self.state.start(name, attrs)
        nodes = None
        if cls.endswith("WebView"):
            index = self.seen.get(base, 0)
            self.seen[base] = index + 1
            nodes = self.pages.get((*base, index))
            if nodes is not None:
                self.skip = 1
        self.open.append(nodes)

    def end(self, name: str) -> None:
        if self.skip > 1:
            self.skip -= 1
            return
        self.skip = 0
        nodes = self.open.pop()
        if nodes is not None:
            feed(nodes, self.state.start, self.state.end)
        self.state.end(name)

    def handlers(self) -> tuple[Callable[[str, list[str]], None], Callable[[str], None]]:
        return self.start, self.end


def merge(dump: bytes, reading: WebReading, *, tracker: RefTracker | None = None,
          **limits: Any) -> Snapshot:
    """Prune ``dump`` again with ``reading``'s pages in their WebViews, notes appended;
    ``tracker`` (a Page's) numbers its refs."""
    pruner = StreamPruner(
        **limits, tracker=tracker, splice=lambda st: _Splice(st, reading.nodes).handlers())
    pruner.feed(dump, last=True)
    return pruner.close().add_notes(reading.notes, limits.get("max_chars"))


def with_web(transport: Any, snap: Snapshot, dump: bytes, *,
             tracker: RefTracker | None = None, timeout: float = 10.0, **limits: Any
             ) -> tuple[Snapshot | None, list[str]]:
    """(the merged snapshot or None, notes) for ``snap``, the native snapshot of ``dump``:
    the foreground WebViews' pages read and merged in (refs numbered by ``tracker``), or
    None with what kept them out (no page read) — the native snapshot stands then."""
    from baremobile.web.reader import read_web, webviews_on_screen

    views = webviews_on_screen(dump, snap)
    if not views:
        return None, []
    reading = read_web(lambda cmd: transport.shell(cmd, timeout=timeout).text,
                       lambda service: transport.open_stream(service, timeout=timeout),
                       snap, views, timeout=timeout)
    if not reading.nodes:
        return None, reading.notes
    try:
        return merge(dump, reading, tracker=tracker, **limits), []
    except DumpTooLarge as exc:  # the page, not the screen: the native snapshot stands
        said = exc.message.removeprefix("the dump ").removesuffix("; refused")
        return None, [f"web: the page is too large to show: with it, the screen {said}; "
                      "only the native screen is shown"]
