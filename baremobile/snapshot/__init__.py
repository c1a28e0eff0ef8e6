"""The snapshot pipeline: a ``uiautomator dump`` in, the fewest tokens that still act out.

One pass, no DOM::

    bytes ─► StreamPruner.feed()  (expat, defused; stream.py)
               └─ start/end callbacks apply the rules as nodes open and close (prune.py,
                  roles.py) and hand out refs (refs.py)
           ─► StreamPruner.close() ─► displays, screen edges, windows on top of refs
               (screen.py) ─► render (render.py) ─► Snapshot (result.py)

``parse`` (parse.py) reads the text grammar back; ``dump_error`` (dump_errors.py) turns what
a failing ``uiautomator dump`` prints into a typed error. See ``docs/snapshot.md``.

>>> from baremobile.snapshot import from_xml
>>> snap = from_xml(open("window_dump.xml", "rb").read())  # doctest: +SKIP
>>> print(snap)  # doctest: +SKIP
- Button [ref=1] "OK"
"""

from __future__ import annotations

from baremobile.snapshot.dump_errors import dump_error
from baremobile.snapshot.parse import parse
from baremobile.snapshot.refs import RefMap, RefNode, parse_bounds
from baremobile.snapshot.render import Rendered, Truncation, render, render_report
from baremobile.snapshot.result import Snapshot
from baremobile.snapshot.roles import ROLES, role_for_class
from baremobile.snapshot.stream import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ELEMENTS,
    DEFAULT_MAX_NESTING,
    DEFAULT_MAX_REFS,
    DEFAULT_MAX_TOKEN_BYTES,
    StreamPruner,
    from_xml,
)
from baremobile.snapshot.tree import Node

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ELEMENTS",
    "DEFAULT_MAX_NESTING",
    "DEFAULT_MAX_REFS",
    "DEFAULT_MAX_TOKEN_BYTES",
    "ROLES",
    "Node",
    "RefMap",
    "RefNode",
    "Rendered",
    "Snapshot",
    "StreamPruner",
    "Truncation",
    "dump_error",
    "from_xml",
    "parse",
    "parse_bounds",
    "render",
    "render_report",
    "role_for_class",
]
