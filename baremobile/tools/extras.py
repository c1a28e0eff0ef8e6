"""What tools add around a :class:`~baremobile.page.Page` verb's answer: device paths
checked and hinted, a file's bytes as text or base64, a device file streamed into the files
directory, and drawing on screenshots.

Nothing here acts on the device but through the Page's public verbs. The vision helpers draw
with Pillow, imported lazily: the ``vision`` tool group needs
``pip install 'baremobile[vision]'``; ``tap_grid`` needs nothing.
"""

from __future__ import annotations

import base64
import contextlib
import io
import re
import string
from collections.abc import Iterator
from typing import Any

from baremobile.device.files import FilePart
from baremobile.errors import CommandFailed, InvalidArgument, MissingDependency
from baremobile.tools import hostfiles

__all__ = [
    "MissingDependency",
    "annotate_refs",
    "draw_grid",
    "grid_cell_center",
    "device_path",
    "file_part_result",
    "pull_to_host",
]

_DEVICE_PATH = re.compile(r"^/[^\0]*\Z")


# -- files ---------------------------------------------------------------------------------


def device_path(path: object) -> str:
    if not isinstance(path, str) or not _DEVICE_PATH.match(path):
        raise InvalidArgument(f"{path!r} is not an absolute device path",
                              hint="device paths start with /, e.g. /sdcard/Download")
    return path


@contextlib.contextmanager
def device_path_hint() -> Iterator[None]:
    """A device's refusal of a path (sync FAIL: no such file, read-only) says what to do."""
    try:
        yield
    except CommandFailed as exc:
        if not exc.hint:
            exc.hint = "check the device path: list its folder ({list_files})"
        raise


def _utf8(data: bytes, cut: bool) -> str | None:
    """``data`` as UTF-8 (when ``cut``, a character split at the end is dropped); None if
    it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut and exc.reason == "unexpected end of data" and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8", "strict")
        return None


def file_part_result(part: FilePart) -> dict[str, Any]:
    """What ``read_file`` answers for bytes of a device file: text when they are UTF-8 (a
    character cut at the end is left for the next read), else base64; where to read on."""
    path, offset, data, size, more = part.path, part.offset, part.data, part.size, part.more
    text = _utf8(data, more)
    out: dict[str, Any] = {"path": path, "offset": offset}
    if text is not None:
        out["encoding"] = "utf-8"
        out["text"] = text
        got = len(text.encode("utf-8"))
    else:
        out["encoding"] = "base64"
        out["base64"] = base64.b64encode(data).decode("ascii")
        got = len(data)
    end = offset + got
    # stat's size, unless the file is a virtual one (/proc) that reports 0 but has content
    out["size"] = size if size >= end or not got else None
    if more:
        out["truncated"] = True
        out["next_offset"] = end
        out["note"] = (f"cut: bytes {offset}–{end} of {size if out['size'] else 'more'}"
                       f" — read on with offset={end}, or pass a larger max_bytes")
    elif offset and not got and size and offset >= size:
        out["note"] = f"offset {offset} is past the end of the file ({size} bytes)"
    return out


def pull_to_host(page: Any, path: str, files_dir: str | None, local_path: str,
                 *, overwrite: bool) -> tuple[str, int]:
    """Stream a device file into a file of the files directory (written beside, renamed
    into place when complete); returns ``(path shown, bytes)``."""
    device_path(path)

    def fill(f: Any) -> int:
        with device_path_hint():
            return int(page.pull_into(path, f))

    shown, count = hostfiles.pull_to_host_file(files_dir, local_path, fill, overwrite=overwrite)
    return shown, int(count)  # type: ignore[call-overload]


# -- vision --------------------------------------------------------------------------------

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


#: The largest screenshot the drawing tools decode (width x height): 25 megapixels is far
#: past any phone or tablet screen and 75 MB as RGB; a larger PNG is refused unread.
MAX_PIXELS = 25_000_000


def _open_png(Image: Any, png: bytes) -> Any:
    """The device's PNG opened for drawing, refused before decoding when it is huge."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise CommandFailed("the device's screenshot is not a PNG",
                            hint="take the screenshot again")
    w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    if w * h > MAX_PIXELS:
        raise CommandFailed(f"the device's screenshot is {w}x{h} pixels, more than this tool "
                            f"decodes ({MAX_PIXELS // 1_000_000} megapixels)",
                            hint="use screenshot (which does not decode the image) instead")
    try:
        img = Image.open(io.BytesIO(png), formats=["PNG"])
        if img.size[0] * img.size[1] > MAX_PIXELS:  # pragma: no cover - IHDR said otherwise
            raise CommandFailed("the device's screenshot is too large to decode")
        return img.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise CommandFailed(f"the device's screenshot cannot be decoded: {exc}",
                            hint="take the screenshot again") from None


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
