"""What the pruner records of each top-level window of a dump."""

from __future__ import annotations

from baremobile.snapshot.tree import Node

__all__ = ["WindowInfo"]


class WindowInfo:
    """A top-level window of the dump (one root ``node``): where it is and whose it is."""

    __slots__ = (
        "package",
        "bounds",
        "kind",
        "title",
        "display",
        "layer",
        "index",
        "windowed",
        "rect",
        "frame",
        "unbounded",
        "kids",
        "kid_start",
        "tops",
        "ref_start",
    )

    def __init__(
        self,
        package: str,
        bounds: tuple[int, int, int, int],
        kind: str = "",
        title: str = "",
        *,
        display: int = 0,
        layer: int | None = None,
        index: int = 0,
        windowed: bool = False,
    ) -> None:
        #: the root node's ``package``
        self.package = package
        #: the root node's ``bounds`` as dumped
        self.bounds = bounds
        #: the ``<window type>`` (``--windows`` dumps), else ``""``
        self.kind = kind
        self.title = title
        #: ``<display id>``, else the root's ``display-id`` attribute, else 0
        self.display = display
        #: the ``<window layer>`` (higher is on top), when dumped
        self.layer = layer
        #: document order among the dump's windows
        self.index = index
        #: True inside a ``<window>`` element (``--windows`` dumps)
        self.windowed = windowed
        #: the root's visible rect (bounds clipped to the screen origin and the ``<window>``)
        self.rect: tuple[int, int, int, int] | None = None
        #: the ``<window bounds>`` (clipped to the screen origin), in ``--windows`` dumps
        self.frame: tuple[int, int, int, int] | None = None
        #: True when nothing bounds this window's nodes but the screen origin (a zero-area root
        #: outside any ``<window>``): the screen's far edges are applied after parsing
        self.unbounded = False
        #: the list this window's kept top-level nodes are appended to, and where they start
        self.kids: list[Node] = []
        self.kid_start = 0
        #: the kept top-level nodes of this window (set after parsing)
        self.tops: list[Node] = []
        #: the first ref number handed out in this window (its refs run up to the next's)
        self.ref_start = 1

    @property
    def area(self) -> int:
        b = self.bounds
        return max(0, b[2] - b[0]) * max(0, b[3] - b[1])

    def __repr__(self) -> str:
        return f"<WindowInfo {self.package} {self.bounds} {self.kind}>"
