"""Runners of the tools issue 22 added or widened for the reference servers' clients
(clawperator, UFO's MobileAgent, Android Remote Control): screenshots sized for models, a
fixed wait, waits that may answer "not found", an idle wait with a tolerance, editing a
field in place, a file's lines, replacing in a file, the storage roots. Each only adapts
arguments to a :class:`~baremobile.page.Page` verb and its answer to data, like the
runners in :mod:`.spec`, whose table lists them.
"""

from __future__ import annotations

import base64
from typing import Any

from baremobile.errors import CommandTimeout, InvalidArgument
from baremobile.page.screenshot import Image, encode_png, have_pillow
from baremobile.tools import extras
from baremobile.tools.targets import node_data, target, what

__all__ = [
    "DEFAULT_FORMAT", "DEFAULT_MAX_SIDE", "DEFAULT_QUALITY", "IMAGE_PARAMS",
    "annotated_screenshot", "find", "image_result", "insert_text", "read_lines", "ref_parents",
    "replace_in_file", "replace_text", "screenshot", "storage_locations", "wait",
    "wait_for_text", "wait_stable",
]

#: What the screenshot tools send when a call does not say (``benchmarks/screenshot.py``):
#: a JPEG at quality 80 whose longest side is 1024 px — on a 1080x2400 phone 461x1024, ~49
#: KB instead of ~420 KB of PNG, 425 image tokens for GPT-4o-class models instead of 1445
#: (two 512 px tiles), ~630 for Claude instead of ~1480, with 14 sp body text still ~16 px
#: tall. WebP is ~40% smaller again, but not every client decodes it: ask for it.
DEFAULT_FORMAT = "jpeg"
DEFAULT_QUALITY = 80
DEFAULT_MAX_SIDE = 1024

IMAGE_PARAMS: dict[str, Any] = {
    "format": {"type": "string", "enum": ["jpeg", "png", "webp"],
               "description": "image format (default jpeg: what a vision model reads at the "
                              "fewest bytes; png: lossless; webp: smallest, where the client "
                              "reads it). Without Pillow on the computer only png works"},
    "quality": {"type": "integer", "minimum": 1, "maximum": 100,
                "description": "JPEG/WebP quality 1-100 (default 80)"},
    "max_side": {"type": "integer", "minimum": 64, "maximum": 10_000,
                 "description": "scale down so the longest side is at most this many pixels "
                                "(default 1024; coordinates: multiply by the result's "
                                "'scale' to get screen pixels)"},
}


def _encoded(png: bytes, a: dict[str, Any]) -> tuple[Image, str | None]:
    """``png`` as the call asks, else the default; without Pillow, a call that asked for
    nothing gets the PNG itself with a note (one that asked for more: MISSING_DEPENDENCY)."""
    fmt = a.get("format", DEFAULT_FORMAT)
    if "max_side" not in a and (fmt == "png" or "format" not in a) and not have_pillow():
        note = ("PNG at full size: JPEG, WebP and scaling need Pillow on the computer "
                "(pip install 'baremobile[vision]')")
        return encode_png(png), note
    quality = a.get("quality", DEFAULT_QUALITY if fmt != "png" else None)
    side = a.get("max_side", DEFAULT_MAX_SIDE)
    return encode_png(png, fmt, quality=quality, max_side=side), None


def image_result(img: Image, what: str, note: str | None = None) -> dict[str, Any]:
    """``{"done", "image": {mime_type, width, height, data}, "screen", "scale"}``: the
    image, the screen it shows and how to turn image pixels into screen pixels."""
    w0, h0 = img.source_size
    scaled = (img.width, img.height) != (w0, h0)
    done = f"{what} ({img.width}x{img.height} {img.format.upper()}" + \
        (f" of the {w0}x{h0} screen)" if scaled else ")")
    out: dict[str, Any] = {
        "done": done,
        "image": {"mime_type": img.mime_type, "width": img.width, "height": img.height,
                  "data": base64.b64encode(img.data).decode("ascii")},
        "screen": {"width": w0, "height": h0},
        "scale": round(w0 / img.width, 4) if img.width else 1.0,
    }
    if note:
        out["note"] = note
    return out


def screenshot(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    img, note = _encoded(ctx.page.screenshot().png, a)
    return image_result(img, "screenshot", note)


def annotated_screenshot(ctx: Any, a: dict[str, Any], snapshot_result: Any
                         ) -> dict[str, Any]:
    snap = ctx.page.snapshot()
    shot = ctx.page.screenshot()
    boxed = extras.annotate_refs(shot.png, dict(snap.refs))
    img, note = _encoded(boxed, a)
    out = image_result(img, f"screenshot with {len(snap.refs)} refs boxed and numbered", note)
    out.update(snapshot_result(ctx, snap, a.get("max_chars", ctx.options.max_chars)))
    return out


def wait(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.wait(a["seconds"])
    return {"done": f"waited {a['seconds']:g} s"}


def wait_for_text(ctx: Any, a: dict[str, Any], snapshot_result: Any) -> dict[str, Any]:
    timeout = a.get("timeout", ctx.options.timeout)
    snap = ctx.page.wait_for_text(a["text"], timeout=timeout,
                                  interval=min(0.5, max(0.05, timeout / 10)),
                                  fail=a.get("error_on_timeout", True))
    if snap is None:
        return {"found": False,
                "done": f"{a['text']!r} did not appear within {timeout:g} s"}
    return {"found": True, "done": f"{a['text']!r} is on screen",
            **snapshot_result(ctx, snap, a.get("max_chars", ctx.options.max_chars))}


def wait_stable(ctx: Any, a: dict[str, Any], snapshot_result: Any) -> dict[str, Any]:
    timeout = max(1.0, a.get("timeout", ctx.options.timeout))  # two dumps need time
    limit = a.get("max_chars", ctx.options.max_chars)
    fail = a.get("error_on_timeout", True)
    if "match_percentage" not in a and fail:
        try:
            snap = ctx.page.wait_stable(timeout=timeout)
        except CommandTimeout:
            raise CommandTimeout(
                f"the screen could not be read within {timeout:g} s",
                hint="pass a longer timeout (reading the screen takes 1-3 s on a phone); the "
                     "device may also be busy") from None
        return {"done": "the screen is stable", "idle": True, "similarity": 100.0,
                **snapshot_result(ctx, snap, limit)}
    idle = ctx.page.wait_idle(timeout=timeout, match_percentage=a.get("match_percentage", 100),
                              fail=fail)
    done = ("the screen is stable" if idle.idle else
            f"the screen was still changing after {timeout:g} s")
    return {"done": done + f" (last two snapshots {idle.similarity:g}% alike)",
            "idle": idle.idle, "similarity": idle.similarity,
            "elapsed_ms": int(idle.elapsed * 1000), "attempts": idle.attempts,
            **snapshot_result(ctx, idle.snapshot, limit)}


def insert_text(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = target(a)
    offset = a.get("offset")
    text = ctx.page.edit_text(t, a["text"], offset=offset)
    where = "at the end" if offset is None else f"at offset {offset}"
    return {"done": f"typed {len(a['text'])} characters {where} of {what(t)}",
            "field_text": text}


def replace_text(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = target(a)
    if "search" not in a and ("start" not in a or "end" not in a):
        raise InvalidArgument("say what to replace: search (a text in the field), or start "
                              "and end (a range of characters)",
                              hint="insert_text adds text without replacing any")
    text = ctx.page.edit_text(t, a.get("text", ""), start=a.get("start"), end=a.get("end"),
                              search=a.get("search"))
    part = repr(a["search"]) if "search" in a else f"characters {a.get('start')}–{a.get('end')}"
    return {"done": f"replaced {part} of {what(t)}", "field_text": text}


def find(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    snap = ctx.page.snapshot()  # a fresh one: refs in the answer are current
    found = ctx.page.find(a["selector"])
    parents = ref_parents(snap)
    return {"matches": [node_details(n, parents.get(id(n))) for n in found[:50]],
            "count": len(found)}


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


def read_lines(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    extras.device_path(a["path"])
    got = ctx.page.read_lines(a["path"], start=a.get("start_line", 1),
                              count=a.get("line_count", 200))
    first = got["start"]
    numbered = "".join(f"{first + i}: {line}\n" for i, line in enumerate(got["lines"]))
    out = {"path": got["path"], "start_line": first, "lines": len(got["lines"]),
           "text": numbered, "has_more": got["has_more"]}
    if got["has_more"]:
        out["next_line"] = got["next_line"]
    if got.get("cut"):  # one line longer than a read returns: its first part
        out.update(cut=True, next_offset=got["next_offset"], note=f"line {first} is cut: "
                   "read the rest by bytes from next_offset (offset, max_bytes)")
    return out


def replace_in_file(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    path = extras.device_path(a["path"])
    with extras.device_path_hint():
        n = ctx.page.replace_in_file(path, a["old_text"], a["new_text"],
                                     replace_all=a.get("replace_all", False))
    return {"done": f"replaced {n} occurrence{'s' if n != 1 else ''} in {path}",
            "replaced": n}


def storage_locations(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return {"locations": ctx.page.storage_locations()}
