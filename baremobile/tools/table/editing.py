"""Rows of the editing verb (``Page.edit_text``): changing part of a field in place."""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.page import Page
from baremobile.timeouts import DUMP_S
from baremobile.tools.params import TARGET, p
from baremobile.tools.row import Args, Ctx, ToolSpec
from baremobile.tools.targets import target, what

__all__ = ["ROWS"]


def _insert_text(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = target(a)
    offset = a.get("offset")
    text = ctx.page.edit_text(t, a["text"], offset=offset)
    where = "at the end" if offset is None else f"at offset {offset}"
    return {"done": f"typed {len(a['text'])} characters {where} of {what(t)}",
            "field_text": text}


def _replace_text(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = target(a)
    if "search" not in a and ("start" not in a or "end" not in a):
        raise InvalidArgument("say what to replace: search (a text in the field), or start "
                              "and end (a range of characters)",
                              hint="insert_text adds text without replacing any")
    text = ctx.page.edit_text(t, a.get("text", ""), start=a.get("start"), end=a.get("end"),
                              search=a.get("search"))
    part = "the text searched for" if "search" in a else \
        f"characters {a.get('start')}–{a.get('end')}"
    return {"done": f"replaced {part} of {what(t)}", "field_text": text}


_FIELD = "the field's text afterwards, as 'field_text'."

ROWS = (
    ToolSpec(
        "insert_text",
        "Insert text into a field at a character offset (default: the end), keeping what it "
        "holds; the caret moves by arrow keys and the field is read back.",
        {**TARGET, "text": p("text", minLength=1), "offset": {"type": "integer", "minimum": 0}},
        _insert_text, verbs=(Page.edit_text,), passes={"search": None}, required=("text",),
        group="edit", returns=_FIELD, floor=DUMP_S,
    ),
    ToolSpec(
        "replace_text",
        "Replace part of a field's text, the first match of search or characters start to "
        "end (end excluded), with text (empty deletes); the field is read back.",
        {**TARGET, "text": p("text"),
         "search": {"type": "string", "minLength": 1},
         "start": {"type": "integer", "minimum": 0},
         "end": {"type": "integer", "minimum": 0}},
        _replace_text, verbs=(Page.edit_text,), group="edit", returns=_FIELD, floor=DUMP_S,
    ),
)
