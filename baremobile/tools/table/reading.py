"""Rows of the reading verbs (``page/reading.py``): an element's text, the raw hierarchy."""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.page import Page
from baremobile.timeouts import DUMP_S
from baremobile.tools.params import PARAMS, SELECTOR, selector
from baremobile.tools.row import Args, Ctx, ToolSpec

__all__ = ["ROWS"]


def _read(ctx: Ctx, a: Args) -> dict[str, Any]:
    sel = dict(a["selector"])
    if "container" in a and "container_ref" in a:
        raise InvalidArgument("give container or container_ref, not both")
    within = dict(a["container"]) if "container" in a else a.get("container_ref")
    got = ctx.page.read(sel, all=a.get("all", False), regex=a.get("regex"), within=within)
    if isinstance(got, list):
        return {"texts": got, "count": len(got)}
    return {"text": got}


def _ui_xml(ctx: Ctx, a: Args) -> dict[str, Any]:
    xml = ctx.page.ui_xml()
    limit = a.get("max_chars", ctx.options.max_chars)
    out: dict[str, Any] = {"chars": len(xml), "truncated": False}
    if limit is not None and len(xml) > limit:
        xml = xml[:limit]
        out["truncated"] = True
        out["note"] = (f"cut at {limit} of {out['chars']} characters: pass a larger max_chars, "
                       "or use snapshot (pruned, with refs)")
    out["text"] = xml
    return out


ROWS = (
    ToolSpec(
        "read",
        "Read the text (else description) of the element matching the selector, or of all "
        "matches (all=true), optionally within a container (container_ref, or container: a "
        "selector); regex filters.",
        {"selector": SELECTOR, "all": {"type": "boolean"},
         "regex": {"type": "string", "minLength": 1, "maxLength": 1000},
         "container": selector(), "container_ref": PARAMS["ref"]},
        _read, verbs=(Page.read,), required=("selector",), read_only=True,
        hidden=("container",),
        returns="'text', or 'texts' and 'count'.",
    ),
    ToolSpec(
        "ui_xml",
        "The screen's raw uiautomator hierarchy, every node and attribute; large, prefer "
        "snapshot.",
        {"max_chars": PARAMS["max_chars"]},
        _ui_xml, verbs=(Page.ui_xml,), group="inspect", read_only=True, floor=DUMP_S,
        returns="the XML as 'text', 'chars', 'truncated'.",
    ),
)
