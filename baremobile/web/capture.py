"""Reading one page through the DevTools protocol: what the web pruner needs, in the fewest
round trips.

Measured on headless Chromium 156 (``benchmarks/web.py``): the accessibility tree alone
has roles and the names a screen reader says, but no geometry, and covers one frame per
call; ``DOMSnapshot.captureSnapshot`` has every frame's layout (document CSS pixels), the
click listeners (``isClickable``) and scroll offsets, but no accessible names (computing
them from the DOM would be re-implementing the accessible-name algorithm). So a page is
read as:

1. ``Page.getLayoutMetrics`` — the visual viewport (scroll offset, size, pinch zoom);
2. ``DOMSnapshot.captureSnapshot`` — layout of every frame, one document per frame;
3. ``Accessibility.getFullAXTree`` — once for the main frame, once per child frame
   (``frameId`` from the snapshot's documents);

joined on backend node ids (:mod:`.tree`). A page that navigates between the calls is
caught: the accessibility tree's root must be the document the snapshot saw, and the
snapshot's URL the one the viewport was measured on; otherwise :class:`PageNavigated`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from baremobile.errors import PageNavigated
from baremobile.web.cdp import Cdp, CdpError

__all__ = ["PageCapture", "capture"]


@dataclass
class PageCapture:
    """The raw answers, as the protocol gave them."""

    metrics: dict[str, Any]
    """``Page.getLayoutMetrics``"""
    snapshot: dict[str, Any]
    """``DOMSnapshot.captureSnapshot`` (``documents``, ``strings``)"""
    ax: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """frame id → ``Accessibility.getFullAXTree`` nodes (the main frame under ``""``)"""
    url: str = ""
    calls: int = 0
    """round trips it took"""

    def document_frame(self, index: int) -> str:
        """The frame id of snapshot document ``index``."""
        doc = self.snapshot["documents"][index]
        return str(self.snapshot["strings"][doc["frameId"]])


def capture(cdp: Cdp, *, timeout: float = 10.0) -> PageCapture:
    """Read the page (see the module docstring); raises :class:`PageNavigated` when the
    page changed documents while it was read."""
    metrics = cdp.call("Page.getLayoutMetrics", timeout=timeout)
    try:
        snap = cdp.call("DOMSnapshot.captureSnapshot",
                        {"computedStyles": [], "includeDOMRects": True}, timeout=timeout)
        main = cdp.call("Accessibility.getFullAXTree", timeout=timeout)
    except CdpError as exc:
        # "Cannot find context", "No frame", "Document was destroyed": mid-navigation
        raise PageNavigated(f"the page changed while it was read ({exc.message})") from None
    cap = PageCapture(metrics, snap, {"": main.get("nodes", [])}, calls=3)
    docs = snap.get("documents", [])
    if not docs:
        raise PageNavigated("the page had no document when it was read")
    strings = snap.get("strings", [])
    cap.url = str(strings[docs[0]["documentURL"]]) if strings else ""
    _check_same_document(cap)
    for i in range(1, len(docs)):
        frame = cap.document_frame(i)
        try:
            nodes = cdp.call("Accessibility.getFullAXTree", {"frameId": frame},
                             timeout=timeout).get("nodes", [])
        except CdpError:
            nodes = []  # a frame of another process (OOPIF) or gone: its layout still shows
        cap.ax[frame] = nodes
        cap.calls += 1
    return cap


def _check_same_document(cap: PageCapture) -> None:
    """The accessibility tree's root is the snapshot's main document node."""
    nodes = cap.ax[""]
    root = next((n for n in nodes if n.get("role", {}).get("value") == "RootWebArea"
                 and "parentId" not in n), None)
    doc = cap.snapshot["documents"][0]["nodes"]
    ids = doc.get("backendNodeId", [])
    if root is None or not ids or root.get("backendDOMNodeId") != ids[0]:
        raise PageNavigated("the page navigated while it was read: its accessibility tree "
                            "and its layout are of two different documents")
