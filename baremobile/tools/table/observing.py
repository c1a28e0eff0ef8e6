"""Rows of the observing verbs (``Page.snapshot``, ``Page.find``): looking at the screen."""

from __future__ import annotations

from typing import Any

from baremobile.hints import argument
from baremobile.page import Page
from baremobile.timeouts import DUMP_S
from baremobile.tools.params import PARAMS, SELECTOR
from baremobile.tools.row import Args, Ctx, Resource, ToolSpec
from baremobile.tools.targets import node_data

__all__ = ["ROWS", "node_details", "observe_snapshot", "ref_parents", "snapshot_result"]


def observe_snapshot(ctx: Ctx, *, diff: bool) -> Any:
    """A fresh snapshot of the page; with ``diff``, as a diff against a snapshot the model
    was shown (the last one, or an earlier one the screen came back to), or the whole screen
    after the new-screen note. The page keeps what was shown (one history per page, whatever
    the door)."""
    return ctx.page.snapshot(diff=diff)


def snapshot_result(ctx: Ctx, snap: Any, max_chars: int | None) -> dict[str, Any]:
    """``{"snapshot", "package", "refs", "truncated"}`` for a snapshot or a diff, cut to
    ``max_chars`` at a line boundary (refs are never renumbered; cut ones stay usable). A
    diff longer than ``max_chars`` gives way to the cut full text, after the new-screen
    note."""
    from baremobile.snapshot import render_report
    from baremobile.snapshot.diff import full_note

    text = snap.text
    truncated = False
    if max_chars is not None and len(text) > max_chars:
        total = len(snap.full_text)
        head = full_note(snap.number) + "\n" if snap.is_diff and full_note(snap.number) else ""
        more = (f" — {total} chars in all: ask for {argument(ctx.door, 'max_chars', total)} "
                "to see everything, or scroll, or find")
        notes = "".join(f"\n# {n}" for n in snap.notes)  # a page that could not be read
        if len(notes) > max_chars // 2:
            notes = ""
        rendered = render_report(
            snap.tree, max_chars=max(1, max_chars - len(more) - len(head) - len(notes)))
        text = head + rendered.text + (more if rendered.truncation is not None else "") + notes
        truncated = rendered.truncation is not None
    return {"snapshot": text, "package": snap.package, "refs": len(snap.refs),
            "truncated": truncated}


def _snapshot(ctx: Ctx, a: Args) -> dict[str, Any]:
    snap = observe_snapshot(ctx, diff=a.get("diff", False))
    return snapshot_result(ctx, snap, a.get("max_chars", ctx.options.max_chars))


def ref_parents(snap: Any) -> dict[int, int]:
    """id(node) → the ref of its nearest ancestor with a ref (for labels inside a row)."""
    out: dict[int, int] = {}
    stack = [(top, None) for top in reversed(snap.tree.children)]
    while stack:
        node, inside = stack.pop()
        if inside is not None:
            out[id(node)] = inside
        mine = node.ref if node.ref is not None else inside
        stack.extend((kid, mine) for kid in reversed(node.children))
    return out


#: the dump's flags ``find`` reports, as the reference servers name them
_FLAGS = ("clickable", "focusable", "scrollable", "checkable", "checked", "enabled",
          "selected", "focused", "long-clickable", "password")


def node_details(n: Any, inside_ref: int | None = None) -> dict[str, Any]:
    """:func:`~baremobile.tools.targets.node_data` plus the dump's ``resource_id``,
    ``class_name`` and flags (clickable, focusable, scrollable, checked, enabled …)."""
    out = node_data(n, inside_ref)
    attrs = n.attrs or {}
    if attrs.get("resource-id"):
        out["resource_id"] = attrs["resource-id"]
    if attrs.get("class"):
        out["class_name"] = attrs["class"]
    for flag in _FLAGS:
        if flag in attrs:
            out[flag.replace("-", "_")] = attrs[flag] == "true"
    return out


def _find(ctx: Ctx, a: Args) -> dict[str, Any]:
    snap = ctx.page.snapshot()  # a fresh one: refs in the answer are current
    found = ctx.page.find(a["selector"])
    parents = ref_parents(snap)
    return {"matches": [node_details(n, parents.get(id(n))) for n in found[:50]],
            "count": len(found)}


ROWS = (
    ToolSpec(
        "snapshot",
        "The screen as text: a size line, then per window a header and its elements, one "
        "per line: '- Role \"text\" (description) [states]', nested by indent. What you "
        "can act on has [ref=N] (or #id), kept while it stays on screen. Look first and "
        "after changes. diff=true: only changes since an earlier look ('@N' at line N, "
        "plain lines added, '-K' K removed, '~R' ref R's line now, '=K' new window "
        "content).",
        {"diff": {"type": "boolean"}, "max_chars": PARAMS["max_chars"]},
        _snapshot, verbs=(Page.snapshot,), read_only=True,
        returns="the text, cut at max_chars with a note on seeing the rest.",
        floor=DUMP_S,
        resource=Resource("snapshot", "text/plain", "screen (snapshot)", "snapshot"),
    ),
    ToolSpec(
        "find",
        "Find elements by selector without reading the whole screen. Selector fields (all "
        "given must match): text, desc (exact), text_contains, desc_contains (any case), id "
        "(resource id), role, class_name (e.g. EditText), index (which of several). Tools "
        "naming an element take the same selector.",
        {"selector": SELECTOR},
        _find, verbs=(Page.snapshot, Page.find), required=("selector",), read_only=True,
        returns="'matches' [{ref, role, text, desc, bounds, flags}] and 'count'.",
        floor=DUMP_S,
        cli_args=("selector.text_contains?",),
    ),
)
