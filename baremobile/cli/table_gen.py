"""Writes ``baremobile/cli/commands.json``: the tool table as the CLI needs it.

    python -m baremobile.cli.table_gen          # after changing baremobile/tools/spec.py

The CLI's fast path imports only the standard library (a session verb must start about as
fast as Python: ``benchmarks/cli.py``), and the tool table (:mod:`baremobile.tools.spec`)
imports the runners and through them the device stack. So the CLI reads a compact copy of
the facts it needs — each tool's command name, positional words, parameters with their
types and descriptions, group and description — generated from the table by this module and
checked in; ``tests/test_cli_table.py`` fails when the copy is not what the table says now.
Nothing in it is written by hand: the facts stay on the table's rows.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["PATH", "describe", "main", "render"]

PATH = Path(__file__).with_name("commands.json")


def _summary(description: str) -> str:
    """The description's first sentence (what ``baremobile --help`` lists)."""
    m = re.match(r"(.+?)(?<!e\.g)(?<!i\.e)\.(\s+\S|$)", description, re.S)
    return m.group(1) if m else description


def _param(schema: dict[str, Any], required: bool) -> dict[str, Any]:
    alternatives = schema.get("anyOf", []) if "type" not in schema else []
    if alternatives:  # e.g. a number or a named amount: the union of their types, bounds
        kinds: Any = [k for alt in alternatives for k in _types(alt)]
        schema = {**{b: alt[b] for alt in alternatives
                     for b in ("minimum", "exclusiveMinimum", "maximum") if b in alt},
                  **schema}
    else:
        kinds = _types(schema)
    out: dict[str, Any] = {"type": kinds, "help": schema.get("description", "")}
    if required:
        out["required"] = True
    if "enum" in schema:
        out["enum"] = list(schema["enum"])
    for bound in ("minimum", "exclusiveMinimum", "maximum"):
        if bound in schema:
            out[bound] = schema[bound]
    if "anyOf" in schema and isinstance(schema.get("properties"), dict):  # a selector
        out["fields"] = {k: v.get("description", "") for k, v in schema["properties"].items()}
    return out


def _types(schema: dict[str, Any]) -> list[str]:
    kinds = schema.get("type", "string")
    return [kinds] if isinstance(kinds, str) else list(kinds)


def describe() -> dict[str, Any]:
    """The CLI's view of every tool (the table's order)."""
    from baremobile.tools.spec import TOOLS

    tools = []
    for t in TOOLS:
        schema = t.parameters(device=False)
        required = set(schema.get("required", ()))
        params = {name: _param(sub, name in required)
                  for name, sub in schema["properties"].items()}
        for word in t.cli_args:
            name = word.rstrip("?").partition(".")[0]
            assert name in params, f"{t.name}: cli_args names {word!r}, not a parameter"
        tools.append({
            "name": t.name, "command": t.command, "group": t.group,
            "summary": _summary(t.description), "description": t.full_description(),
            "device": t.needs_device, "image": t.image, "host_paths": list(t.host_paths),
            "args": list(t.cli_args), "params": params,
        })
    commands = [t["command"] for t in tools]
    assert len(set(commands)) == len(commands), "two tools with one CLI command"
    return {"generated_by": "python -m baremobile.cli.table_gen", "tools": tools}


def render() -> str:
    """The file's text: one tool per line, so a change reads as a one-line diff."""
    data = describe()
    lines = [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in data["tools"]]
    return ('{"generated_by":' + json.dumps(data["generated_by"]) + ',"tools":[\n'
            + ",\n".join(lines) + "\n]}\n")


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
