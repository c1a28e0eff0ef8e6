"""``baremobile trace``: look at a recorded session, turn it into a replayable scenario.

    baremobile trace show TRACE [-o FILE.html] [--no-open]   one self-contained HTML page
    baremobile trace summary TRACE                           the steps as text
    baremobile trace to-scenario TRACE DIR                   a recorded virtual-phone scenario
    baremobile trace graph TRACE                             the navigation graph as JSON

A TRACE is the zip ``page.tracing.stop()`` wrote (or the ``.recording`` directory a crash
left). See ``docs/traces.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_commands", "record_into"]


def record_into(folder: str, door: str) -> None:
    """Have the pages this process (and a daemon it starts) opens for tools record traces
    into ``folder`` (``$BAREMOBILE_TRACE``: see :func:`baremobile.trace.record.trace_door`)."""
    import os

    path = Path(folder).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    os.environ["BAREMOBILE_TRACE"] = str(path)
    os.environ.setdefault("BAREMOBILE_TRACE_DOOR", door)


def add_commands(sub: Any) -> None:
    t = sub.add_parser("trace", help="show, summarise or replay a recorded trace")
    tsub = t.add_subparsers(dest="action", required=True)
    s = tsub.add_parser("show", help="write the trace as one HTML page and open it")
    s.add_argument("trace")
    s.add_argument("-o", "--output", default=None,
                   help="the HTML file (default: beside the trace, TRACE.html)")
    s.add_argument("--no-open", action="store_true", help="write it, do not open a browser")
    s.set_defaults(func=_show)
    s = tsub.add_parser("summary", help="the steps as text, for terminals and coding agents")
    s.add_argument("trace")
    s.set_defaults(func=_summary)
    s = tsub.add_parser("to-scenario", help="a recorded virtual-phone scenario: replay the "
                        "session with connect('virtual:DIR')")
    s.add_argument("trace")
    s.add_argument("dir")
    s.add_argument("--name", default=None, help="the scenario's name")
    s.set_defaults(func=_to_scenario)
    s = tsub.add_parser("graph", help="the navigation graph (screens, actions) as JSON")
    s.add_argument("trace")
    s.set_defaults(func=_graph)


def _show(args: argparse.Namespace) -> int:
    from baremobile.localfiles import write_atomically
    from baremobile.trace.format import open_trace
    from baremobile.trace.view import render_html

    with open_trace(args.trace) as trace:
        out = Path(args.output) if args.output else \
            trace.path.with_name(trace.path.name + ".html")
        page = render_html(trace)
    write_atomically(out, page.encode("utf-8"), overwrite=True)
    print(f"wrote {out}")
    if not args.no_open:
        import webbrowser

        webbrowser.open(out.resolve().as_uri())
    return 0


def _summary(args: argparse.Namespace) -> int:
    from baremobile.trace.format import open_trace
    from baremobile.trace.summary import summary

    with open_trace(args.trace) as trace:
        print(summary(trace))
    return 0


def _to_scenario(args: argparse.Namespace) -> int:
    from baremobile.trace.format import open_trace
    from baremobile.trace.scenario import to_scenario

    with open_trace(args.trace) as trace:
        done = to_scenario(trace, args.dir, name=args.name)
    print(f"wrote {done.scenario}: {done.screens} screens, {done.rules} rules; replay it with "
          f"connect('virtual:{Path(args.dir)}')")
    for w in done.warnings:
        print(f"  not replayed: {w}", file=sys.stderr)
    return 0


def _graph(args: argparse.Namespace) -> int:
    from baremobile.trace.format import open_trace
    from baremobile.trace.graph import navigation_graph

    with open_trace(args.trace) as trace:
        print(json.dumps(navigation_graph(trace), indent=1, ensure_ascii=False))
    return 0
