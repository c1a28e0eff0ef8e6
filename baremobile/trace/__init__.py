"""Traces: what the agent saw, step by step — recorded, viewed, replayed, mapped.

* :mod:`~baremobile.trace.record` — ``page.tracing``: recording a session;
* :mod:`~baremobile.trace.format` — the trace file (a zip), written step by step, read back;
* :mod:`~baremobile.trace.view` — one self-contained HTML page; :mod:`~.summary` — text;
* :mod:`~baremobile.trace.scenario` — a trace as a virtual-phone scenario (replay in CI);
* :mod:`~baremobile.trace.graph` — screens as nodes, actions as edges.

See ``docs/traces.md``.
"""

from __future__ import annotations

from baremobile.trace.format import Trace, open_trace
from baremobile.trace.record import AsyncTracing, Tracing

__all__ = ["AsyncTracing", "Trace", "Tracing", "open_trace"]
