"""Command-line options made from a tool's JSON schema (for the tools without a hand-made
command): ``baremobile logcat --lines 50 --tag ActivityManager``.

Each property becomes ``--name`` (underscores as dashes): strings and numbers take a value,
booleans are flags (``--third-party``; ``--no-third-party`` for false), arrays repeat, an
object (a selector) takes JSON. Required properties are still options, checked by the
tool's own validation, so the error names the parameter as every front door does.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from baremobile.errors import InvalidArgument

__all__ = ["parse_tool_args", "tool_parser"]


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not JSON") from None


def tool_parser(name: str) -> argparse.ArgumentParser:
    """The parser for tool ``name`` (from the one tool table)."""
    from baremobile.tools.spec import get

    tool = get(name)
    if tool is None:  # pragma: no cover - SCHEMA_COMMANDS is checked against the table
        raise InvalidArgument(f"there is no tool {name!r}")
    p = argparse.ArgumentParser(prog=f"baremobile {name.replace('_', '-')}",
                                description=tool.full_description())
    schema = tool.parameters()
    required = set(schema.get("required", ()))
    for prop, sub in schema["properties"].items():
        flag = "--" + prop.replace("_", "-")
        kinds = sub.get("type", "string")
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        help_text = sub.get("description", "") + (" (required)" if prop in required else "")
        if prop == "device":
            p.add_argument("-d", flag, dest=prop, default=None, help=help_text)
        elif kinds == ["boolean"]:
            p.add_argument(flag, dest=prop, action=argparse.BooleanOptionalAction,
                           default=None, help=help_text)
        elif "object" in kinds or "array" in kinds:
            p.add_argument(flag, dest=prop, type=_json_value, default=None,
                           help=help_text + " (JSON)")
        elif kinds == ["integer"]:
            p.add_argument(flag, dest=prop, type=int, default=None, help=help_text)
        elif kinds == ["number"]:
            p.add_argument(flag, dest=prop, type=float, default=None, help=help_text)
        else:  # strings, and string-or-integer (key): the tool's validator decides
            p.add_argument(flag, dest=prop, default=None, metavar=prop.upper(),
                           choices=sub.get("enum"), help=help_text)
    return p


def parse_tool_args(name: str, argv: list[str]) -> dict[str, Any]:
    """The tool's arguments from ``argv`` (options not given are left out)."""
    ns = tool_parser(name).parse_args(argv)
    return {k: v for k, v in vars(ns).items() if v is not None}
