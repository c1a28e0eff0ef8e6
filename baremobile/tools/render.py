"""The one renderer: every door's view of the tool table, written from the rows.

* :func:`menu` / :func:`mcp_tool` — the tools as MCP lists them (``tools/list`` of
  ``baremobile mcp`` over stdio and HTTP, of ``mcp --daemon`` and of the daemon's socket);
* :func:`function_schemas` — the same tools as OpenAI / Anthropic / plain JSON
  function-calling definitions (``tools.schemas()``, the framework adapters);
* :func:`cli_table` — ``cli/commands.json``, the compact copy the CLI is made from;
* :func:`hint_words` — how an error's hint names a tool at each door.

**What a model is shown.** A model pays for the menu on every step, so the menu says each
fact once and only what a model needs (``benchmarks/tokens.py`` measures it; a test keeps it
in budget). A parameter's schema is shown in the subset every client accepts — one ``type``,
``properties`` (never empty), ``required``, ``items``, ``enum``, ``description``: no
``$ref``/``$defs``, ``anyOf``, type lists or ``additionalProperties``, which Gemini's
function declarations and several MCP clients refuse or mangle. Bounds are not shown: they
are enforced when the call arrives (:mod:`baremobile.tools.validate`), with an error naming
the parameter and the bound. (One object is shown without properties, because any object is
accepted there: a batch step's ``args``, which its own tool checks.) A parameter can say how
it is shown (``x-shown``: its shown schema, for one that takes several types) and which of
its fields are accepted but not shown (``x-hidden``: aliases); a row's ``hidden`` parameters
are accepted, not shown. Every device tool accepts ``device``: it is shown where it is a
choice a model makes (``configure``), and the ``devices`` tool says that any tool takes it.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from baremobile.errors import DOORS, HINT_VERBS
from baremobile.tools.row import ToolSpec

__all__ = [
    "DRAFT_2020_12", "STYLES", "call_result", "cli_table", "describe", "function_schemas",
    "TEXT_PAYLOADS", "hint_words", "image_bytes", "input_schema", "mcp_tool", "menu", "shown",
    "to_anthropic", "to_text",
]

STYLES = ("openai", "openai-responses", "anthropic", "json")
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

#: the keywords a shown schema keeps
_SHOWN = ("type", "description", "enum", "properties", "required", "items")


def shown(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` (a parameter's, as accepted) as a model is shown it: the portable subset
    (see the module's docs)."""
    if "x-shown" in schema:
        return shown(schema["x-shown"])
    hidden = set(schema.get("x-hidden", ()))
    out: dict[str, Any] = {}
    for key in _SHOWN:
        if key not in schema:
            continue
        value = schema[key]
        if key == "type" and isinstance(value, list):
            value = next((t for t in value if t != "null"), value[0])
        elif key == "properties":
            value = {name: shown(sub) for name, sub in value.items() if name not in hidden}
        elif key == "items":
            value = shown(value)
        elif key == "required":
            value = [name for name in value if name not in hidden]
            if not value:
                continue
        out[key] = value
    if out.get("type") == "object" and not out.get("properties"):
        out.pop("properties", None)
    return out


def input_schema(row: ToolSpec, *, device: bool = False) -> dict[str, Any]:
    """The arguments of ``row`` as shown (``device``: show the ``device`` parameter too)."""
    props = {name: shown(schema) for name, schema in row.properties.items()
             if name not in row.hidden}
    if device and row.needs_device:
        from baremobile.tools.params import PARAMS

        props["device"] = shown(PARAMS["device"])
    out: dict[str, Any] = {"type": "object"}
    if props:
        out["properties"] = props
    if row.required:
        out["required"] = list(row.required)
    return out


#: what a row that says nothing else returns: the sentence saying what was done
_DONE = "'done'."


def describe(row: ToolSpec) -> str:
    """What a model reads about ``row``: what it does, how to name its element (said in the
    description), and what it returns."""
    return f"{row.description} Returns {row.returns or _DONE}"


def _annotations(row: ToolSpec) -> dict[str, Any]:
    """MCP's tool annotations (hints a client may show or act on; not sent to a model)."""
    out: dict[str, Any] = {"title": row.name.replace("_", " "), "readOnlyHint": row.read_only,
                           "openWorldHint": row.open_world}
    if not row.read_only:
        out["destructiveHint"] = row.destructive
        out["idempotentHint"] = False
    return out


def mcp_tool(row: ToolSpec, prefix: str = "") -> dict[str, Any]:
    """``row`` as an MCP ``Tool`` (JSON; ``mcp_types.Tool.model_validate`` takes it)."""
    return {"name": prefix + row.name, "description": describe(row),
            "inputSchema": input_schema(row), "annotations": _annotations(row)}


def menu(rows: Iterable[ToolSpec], prefix: str = "") -> list[dict[str, Any]]:
    """The MCP ``tools/list`` of ``rows`` — the same at every door."""
    return [mcp_tool(row, prefix) for row in rows]


def function_schemas(rows: Iterable[ToolSpec], style: str = "openai", *, prefix: str = "",
                     device: bool = False) -> list[dict[str, Any]]:
    """``rows`` as function-calling definitions of ``style`` (:data:`STYLES`); ``device``
    shows the ``device`` parameter in each (accepted either way)."""
    out: list[dict[str, Any]] = []
    for row in rows:
        name, desc = prefix + row.name, describe(row)
        params = copy.deepcopy(input_schema(row, device=device))
        params.setdefault("properties", {})  # function calling wants an object's properties
        if style == "openai":
            out.append({"type": "function",
                        "function": {"name": name, "description": desc, "parameters": params}})
        elif style == "openai-responses":
            out.append({"type": "function", "name": name, "description": desc,
                        "parameters": params})
        elif style == "anthropic":
            out.append({"name": name, "description": desc, "input_schema": params})
        else:
            out.append({"name": name, "description": desc,
                        "parameters": {"$schema": DRAFT_2020_12, **params}})
    return out


def call_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """One :func:`baremobile.tools.call` result as MCP's ``CallToolResult`` (JSON): the text
    a model reads (:func:`~baremobile.tools.dispatch.to_text`), an image block for a
    screenshot, the facts in ``structuredContent`` — not the text payloads (snapshot, log,
    file content) or image bytes, which would double the answer — and ``isError`` when the
    tool failed (a failed tool is a result, MCP's rule, not a failed request)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": to_text(result)}]
    image = result.get("image") if result.get("ok") else None
    structured = {k: v for k, v in result.items() if k not in ("image", *TEXT_PAYLOADS)}
    if isinstance(image, Mapping) and isinstance(image.get("data"), str):
        content.append({"type": "image", "data": image["data"],
                        "mimeType": image.get("mime_type", "image/png")})
        structured["image"] = {k: v for k, v in image.items() if k != "data"}
    return {"content": content, "structuredContent": structured,
            "isError": not result.get("ok")}


# ---------------------------------------------------------------------------------------
# results, as a model reads them
# ---------------------------------------------------------------------------------------

#: Result keys holding text for the model to read as-is (not JSON-escaped): the screen,
#: a log, a file's content. MCP keeps them out of ``structuredContent``.
TEXT_PAYLOADS = ("snapshot", "log", "text", "base64")
_SHOWN_APART = ("ok", "tool", "done", "image", *TEXT_PAYLOADS)
#: Facts a snapshot's text says itself (its headers name the app, a cut text says so) or
#: the caller knows (the device it called): left out of the text beside a snapshot, kept in
#: the data (MCP's ``structuredContent``).
_SAID_BY_SNAPSHOT = ("device", "package", "refs", "truncated")


def to_text(result: Mapping[str, Any]) -> str:
    """The result as text for an LLM: the error with its hint (and the observation it came
    with), or what was done, the other facts as compact JSON (beside a snapshot, not those
    its text says), then any text payload (snapshot, log, file content) as plain text, not
    JSON-escaped."""
    if not result.get("ok"):
        err = result.get("error", {})
        lines = [f"error {err.get('code', 'ERROR')}: {err.get('message', '')}"]
        if err.get("hint"):
            lines.append(f"hint: {err['hint']}")
        if isinstance(result.get("snapshot"), str):  # the observation an error came with
            lines.append(result["snapshot"])
        return "\n".join(lines)
    lines = []
    if result.get("done"):
        lines.append(str(result["done"]))
    apart = _SHOWN_APART + (_SAID_BY_SNAPSHOT if isinstance(result.get("snapshot"), str)
                            else ())
    rest = {k: v for k, v in result.items() if k not in apart}
    if rest:
        lines.append(json.dumps(rest, ensure_ascii=False, separators=(", ", ": ")))
    for key in TEXT_PAYLOADS:
        value = result.get(key)
        if not isinstance(value, str):
            continue
        if key == "base64":  # wrapped like a MIME body: readable, and still base64
            value = "\n".join(value[i:i + 76] for i in range(0, len(value), 76))
        lines.append(value)
    if not lines:
        lines.append("ok")
    return "\n".join(lines)


def to_anthropic(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Anthropic ``tool_result`` content: a text block, plus an image block for screenshots."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": to_text(result)}]
    image = result.get("image")
    if result.get("ok") and image:
        blocks.append({"type": "image", "source": {"type": "base64",
                                                   "media_type": image["mime_type"],
                                                   "data": image["data"]}})
    return blocks


def image_bytes(result: Mapping[str, Any]) -> bytes | None:
    """The PNG of a screenshot result (None for other results)."""
    image = result.get("image")
    return base64.b64decode(image["data"]) if result.get("ok") and image else None


# ---------------------------------------------------------------------------------------
# the CLI's copy
# ---------------------------------------------------------------------------------------


def _summary(description: str) -> str:
    """The description's first sentence (what ``baremobile --help`` lists)."""
    m = re.match(r"(.+?)(?<!e\.g)(?<!i\.e)\.(\s+\S|$)", description, re.S)
    return m.group(1) if m else description


def _types(schema: Mapping[str, Any]) -> list[str]:
    kinds = schema.get("type", "string")
    return [kinds] if isinstance(kinds, str) else list(kinds)


def _cli_param(schema: Mapping[str, Any], required: bool) -> dict[str, Any]:
    """One parameter as the CLI needs it: its types, help, bounds, enum, a selector's
    fields (the CLI checks what it can before the daemon does)."""
    alternatives = schema.get("anyOf", []) if "type" not in schema else []
    if alternatives:  # e.g. a number or a named amount: the union of their types, bounds
        kinds: Any = [k for alt in alternatives for k in _types(alt)]
        schema = {**{b: alt[b] for alt in alternatives
                     for b in ("minimum", "exclusiveMinimum", "maximum") if b in alt},
                  **schema}
    else:
        kinds = _types(schema)
    help_text = schema.get("description") or shown(schema).get("description", "")
    out: dict[str, Any] = {"type": kinds, "help": help_text}
    if required:
        out["required"] = True
    if "enum" in schema:
        out["enum"] = list(schema["enum"])
    for bound in ("minimum", "exclusiveMinimum", "maximum"):
        if bound in schema:
            out[bound] = schema[bound]
    if "anyOf" in schema and isinstance(schema.get("properties"), dict):  # a selector
        hidden = set(schema.get("x-hidden", ()))
        out["fields"] = {k: v.get("description", "") for k, v in schema["properties"].items()
                         if k not in hidden}
    return out


def cli_table(rows: Iterable[ToolSpec]) -> dict[str, Any]:
    """What ``cli/commands.json`` holds (the table's order): per tool its command, words,
    parameters (as accepted), the facts of its time (:class:`baremobile.timeouts.Facts`: the
    CLI client waits as long as the daemon's deadline can be), and the CLI's hint words."""
    rows = list(rows)
    tools = []
    for row in rows:
        schema = row.parameters(device=False)
        required = set(schema.get("required", ()))
        params = {name: _cli_param(sub, name in required)  # the CLI's help shows them all
                  for name, sub in schema["properties"].items()}
        for word in row.cli_args:
            name = word.rstrip("?").partition(".")[0]
            assert name in params, f"{row.name}: cli_args names {word!r}, not a parameter"
        tools.append({
            "name": row.name, "command": row.command, "group": row.group,
            "summary": _summary(row.description), "description": describe(row),
            "device": row.needs_device, "image": row.image, "host_paths": list(row.host_paths),
            "args": list(row.cli_args), "time": row.time_facts.to_dict(), "params": params,
        })
    commands = [t["command"] for t in tools]
    assert len(set(commands)) == len(commands), "two tools with one CLI command"
    return {"generated_by": "python -m baremobile.cli.table_gen", "tools": tools,
            "hint_words": {row.name: phrase for row in rows
                           for phrase in [hint_words([row], "cli")[row.name]]}}


# ---------------------------------------------------------------------------------------
# hint words
# ---------------------------------------------------------------------------------------


def hint_words(rows: Iterable[ToolSpec], door: str, prefix: str = "") -> dict[str, str]:
    """How hints name things at ``door``: a ``{tool}`` placeholder (a tool's name) as the
    door calls that tool — ``the tap tool`` for a model, ``baremobile tap`` on the command
    line, ``page.tap()`` in Python —, other placeholders from
    :data:`baremobile.errors.HINT_VERBS`."""
    if door not in DOORS:
        raise ValueError(f"unknown door {door!r}: one of {', '.join(DOORS)}")
    out: dict[str, str] = {}
    for key, words in HINT_VERBS.items():
        phrase = words.get(door) or words["tools"]
        out[key] = phrase.replace("{p}", prefix)
    for row in rows:
        if door == "python":
            if row.verb_name is None:
                continue
            out[row.name] = f"page.{row.verb_name}()"
        elif door == "cli":
            out[row.name] = f"baremobile {row.command}"
        else:
            out[row.name] = f"the {prefix}{row.name} tool"
    return out
