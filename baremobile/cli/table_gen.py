"""Writes ``baremobile/cli/commands.json``: the tool table as the CLI needs it.

    python -m baremobile.cli.table_gen          # after changing baremobile/tools/spec.py

The CLI's fast path imports only the standard library (a session verb must start about as
fast as Python: ``benchmarks/cli.py``), and the tool table (:mod:`baremobile.tools.spec`)
imports the runners and through them the device stack. So the CLI reads a compact copy of
the facts it needs — each tool's command name, positional words, parameters with their
types and descriptions, group, description, the facts of its time and the CLI's words for
each tool in hints — written by the one renderer (:func:`baremobile.tools.render.cli_table`)
and checked in; ``tests/doors/test_cli_table.py`` fails when the copy is not what the table
says now. Nothing in it is written by hand: the facts stay on the table's rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["PATH", "describe", "main", "render"]

PATH = Path(__file__).with_name("commands.json")


def describe() -> dict[str, Any]:
    """The CLI's view of every tool (the table's order), written by the one renderer
    (:func:`baremobile.tools.render.cli_table`)."""
    from baremobile.tools.render import cli_table
    from baremobile.tools.spec import TOOLS

    return cli_table(TOOLS)


def render() -> str:
    """The file's text: one tool per line, so a change reads as a one-line diff."""
    data = describe()
    lines = [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in data["tools"]]
    words = json.dumps(data["hint_words"], ensure_ascii=False, separators=(",", ":"))
    return ('{"generated_by":' + json.dumps(data["generated_by"]) + ',"tools":[\n'
            + ",\n".join(lines) + '\n],\n"hint_words":' + words + "}\n")


def main() -> int:
    text = render()
    if PATH.exists() and PATH.read_text(encoding="utf-8") == text:
        print(f"{PATH} is up to date")
        return 0
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
