"""The virtual phone: an in-process adbd speaking the real ADB protocol over TCP,
in front of a simulated Android shell and screen model.

``VirtualPhone`` is the embedded default for the demo (``connect("virtual")``) and the
test double for every test. The product never imports this package unless asked to.
"""

from __future__ import annotations

from baremobile.virtual.phone import VirtualPhone

__all__ = ["VirtualPhone"]
