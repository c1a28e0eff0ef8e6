"""Rows for vision models: a screenshot with a grid to tap by cell, or with every ref boxed.
They call ``Page.screenshot`` / ``Page.snapshot`` / ``Page.tap_xy``; the drawing is
:mod:`baremobile.tools.images`'."""

from __future__ import annotations

import base64
from typing import Any

from baremobile.page import Page
from baremobile.timeouts import DUMP_S
from baremobile.tools import images
from baremobile.tools.params import PARAMS
from baremobile.tools.row import Args, Ctx, ToolSpec
from baremobile.tools.table.observing import snapshot_result

__all__ = ["ROWS"]


def _screen_size(ctx: Ctx) -> tuple[int, int]:
    snap = ctx.page.last_snapshot
    if snap is not None and snap.width and snap.height:
        return snap.width, snap.height
    return ctx.page.screen_size()


def _grid_screenshot(ctx: Ctx, a: Args) -> dict[str, Any]:
    rows, cols = a.get("rows", 12), a.get("cols", 6)
    shot = ctx.page.screenshot()
    png = images.draw_grid(shot.png, rows, cols)
    return {"done": f"screenshot with a {cols}x{rows} grid ({shot.width}x{shot.height} PNG)",
            "image": {"mime_type": "image/png", "width": shot.width, "height": shot.height,
                      "data": base64.b64encode(png).decode("ascii")},
            "grid": {"rows": rows, "cols": cols}}


def _tap_grid(ctx: Ctx, a: Args) -> dict[str, Any]:
    rows, cols = a.get("rows", 12), a.get("cols", 6)
    w, h = _screen_size(ctx)
    x, y = images.grid_cell_center(a["cell"], rows, cols, w, h)
    ctx.page.tap_xy(x, y)
    return {"done": f"tapped grid cell {a['cell'].strip().upper()} at ({x}, {y})"}


def _annotated_screenshot(ctx: Ctx, a: Args) -> dict[str, Any]:
    snap = ctx.page.snapshot()
    shot = ctx.page.screenshot()
    boxed = images.annotate_refs(shot.png, dict(snap.refs))
    img, note = images.encoded(boxed, a)
    out = images.image_result(img, f"screenshot with {len(snap.refs)} refs boxed and numbered",
                              note)
    out.update(snapshot_result(ctx, snap, a.get("max_chars", ctx.options.max_chars)))
    return out


_ROWS = {"type": "integer", "minimum": 2, "maximum": 40, "description": "default 12"}
_COLS = {"type": "integer", "minimum": 2, "maximum": 26, "description": "default 6"}

ROWS = (
    ToolSpec(
        "grid_screenshot",
        "Take a screenshot under a labelled grid (columns A…, rows 1…), for what the "
        "snapshot does not list; then tap_grid a cell.",
        {"rows": _ROWS, "cols": _COLS},
        _grid_screenshot, verbs=(Page.screenshot,), group="vision", read_only=True,
        returns="a PNG with the grid.",
        floor=DUMP_S,
        image=True,
    ),
    ToolSpec(
        "tap_grid",
        "Tap the middle of a grid_screenshot cell, e.g. C4 (same rows and cols).",
        {"cell": {"type": "string", "minLength": 2, "maxLength": 3}, "rows": _ROWS,
         "cols": _COLS},
        _tap_grid, verbs=(Page.tap_xy,), required=("cell",), group="vision",
        cli_args=("cell",),
    ),
    ToolSpec(
        "annotated_screenshot",
        "Take a screenshot with every ref boxed and numbered, and the matching snapshot; "
        "sized like screenshot.",
        {"max_chars": PARAMS["max_chars"], **images.IMAGE_PARAMS},
        _annotated_screenshot, verbs=(Page.snapshot, Page.screenshot), group="vision",
        read_only=True,
        returns="the boxed image and the snapshot.",
        floor=DUMP_S,
        image=True,
    ),
)
