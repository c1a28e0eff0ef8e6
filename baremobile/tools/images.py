"""Images for models: screenshots encoded the way a vision model reads them best, and the
drawing the vision tools do on them (a labelled grid, every ref boxed and numbered).

The drawing helpers use Pillow, imported lazily: the ``vision`` tool group needs
``pip install 'baremobile[vision]'``; ``screenshot`` without it sends the device's PNG at
full size, saying so, and ``tap_grid`` needs nothing.
"""

from __future__ import annotations

import base64
import io
import re
import string
from typing import Any

from baremobile.errors import InvalidArgument, MissingDependency
from baremobile.page.screenshot import Image, encode_png, have_pillow

__all__ = [
    "DEFAULT_FORMAT", "DEFAULT_MAX_SIDE", "DEFAULT_QUALITY", "IMAGE_PARAMS",
    "annotate_refs", "draw_grid", "encoded", "grid_cell_center", "image_result",
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
    "format": {"type": "string", "enum": ["jpeg", "png", "webp"]},
    "quality": {"type": "integer", "minimum": 1, "maximum": 100},
    "max_side": {"type": "integer", "minimum": 64, "maximum": 10_000},
}


def encoded(png: bytes, a: dict[str, Any]) -> tuple[Image, str | None]:
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


GRID_COLUMNS = string.ascii_uppercase


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingDependency(
            "drawing on screenshots needs Pillow, which is not installed",
            hint="pip install 'baremobile[vision]' (or use screenshot and tap_grid, which "
                 "need nothing extra)",
        ) from None
    return Image, ImageDraw, ImageFont


def grid_cell_center(cell: str, rows: int, cols: int, width: int, height: int) -> tuple[int, int]:
    """The screen point at the center of grid cell ``cell`` (``"C4"``: column C, row 4)."""
    m = re.match(r"^\s*([A-Za-z])\s*(\d{1,2})\s*\Z", cell or "")
    if not m:
        raise InvalidArgument(f"{cell!r} is not a grid cell",
                              hint="cells are a column letter and a row number, e.g. 'C4'")
    col = GRID_COLUMNS.index(m.group(1).upper())
    row = int(m.group(2)) - 1
    if col >= cols or not 0 <= row < rows:
        last = f"{GRID_COLUMNS[cols - 1]}{rows}"
        raise InvalidArgument(f"cell {cell!r} is outside the {cols}x{rows} grid (A1–{last})")
    return int((col + 0.5) * width / cols), int((row + 0.5) * height / rows)


def _font(ImageFont: Any, size: int) -> Any:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: one small bitmap font
        return ImageFont.load_default()


def _open_png(Image: Any, png: bytes) -> Any:
    """The device's PNG opened for drawing, through the one image gate (refused before
    decoding when it is huge, typed when it is damaged: ``page.screenshot.decode_png``)."""
    from baremobile.page.screenshot import decode_png

    return decode_png(png, Image).convert("RGB")


def _encode(img: Any) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def draw_grid(png: bytes, rows: int, cols: int) -> bytes:
    """The screenshot with a labelled ``cols`` x ``rows`` grid drawn over it."""
    Image, ImageDraw, ImageFont = _pil()
    img = _open_png(Image, png)
    w, h = img.size
    draw = ImageDraw.Draw(img)
    line = max(2, w // 400)
    for c in range(1, cols):
        x = int(c * w / cols)
        draw.line([(x, 0), (x, h)], fill=(255, 0, 160), width=line)
    for r in range(1, rows):
        y = int(r * h / rows)
        draw.line([(0, y), (w, y)], fill=(255, 0, 160), width=line)
    font = _font(ImageFont, max(14, min(w // cols, h // rows) // 4))
    for r in range(rows):
        for c in range(cols):
            label = f"{GRID_COLUMNS[c]}{r + 1}"
            x, y = int(c * w / cols) + line + 2, int(r * h / rows) + line + 2
            box = draw.textbbox((x, y), label, font=font)
            draw.rectangle(box, fill=(0, 0, 0))
            draw.text((x, y), label, fill=(255, 255, 0), font=font)
    return _encode(img)


def annotate_refs(png: bytes, refs: dict[int, Any]) -> bytes:
    """The screenshot with every ref's bounds boxed and numbered."""
    Image, ImageDraw, ImageFont = _pil()
    img = _open_png(Image, png)
    w, _ = img.size
    draw = ImageDraw.Draw(img)
    line = max(2, w // 360)
    font = _font(ImageFont, max(14, w // 30))
    for ref, node in sorted(refs.items()):
        x1, y1, x2, y2 = node.bounds
        if x2 <= x1 or y2 <= y1:
            continue
        draw.rectangle([x1, y1, x2 - 1, y2 - 1], outline=(255, 0, 80), width=line)
        label = str(ref)
        box = draw.textbbox((x1 + line, y1 + line), label, font=font)
        draw.rectangle(box, fill=(255, 0, 80))
        draw.text((x1 + line, y1 + line), label, fill=(255, 255, 255), font=font)
    return _encode(img)
