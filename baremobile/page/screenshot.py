"""``Screenshot``: a PNG of the screen as :meth:`baremobile.page.Page.screenshot` returns it;
``Image``: a screenshot encoded for a reader — PNG, JPEG or WebP, at a quality, scaled so its
longest side fits (:meth:`Screenshot.encode`, :func:`encode_png`).

Re-encoding and scaling use Pillow (the ``[vision]`` extra, imported only then). Without it
only the device's own PNG at full size is possible; anything else raises
``MISSING_DEPENDENCY`` saying so.
"""

from __future__ import annotations

import io
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baremobile.android.png import png_problem
from baremobile.errors import InvalidArgument, MissingDependency
from baremobile.localfiles import write_atomically

__all__ = ["FORMATS", "Image", "Screenshot", "encode_png", "have_pillow"]

#: format name → MIME type
FORMATS = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
#: the largest screenshot decoded for re-encoding (width x height): far past any screen
MAX_PIXELS = 25_000_000


def have_pillow() -> bool:
    """Whether Pillow (the ``[vision]`` extra) is importable."""
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Image:
    """An encoded screenshot: ``data`` in ``format`` (``png``, ``jpeg``, ``webp``),
    ``width`` x ``height`` pixels (after scaling), from a screen of ``source_size``."""

    data: bytes
    format: str
    width: int
    height: int
    source_size: tuple[int, int]

    @property
    def mime_type(self) -> str:
        return FORMATS[self.format]

    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write the image to ``path`` (beside, then renamed; see :meth:`Screenshot.save`)."""
        p = Path(path)
        write_atomically(os.path.realpath(p), self.data, overwrite=overwrite,
                         what=f"image file {str(p)!r}")
        return p

    def __repr__(self) -> str:
        return (f"<Image {self.width}x{self.height} {self.format.upper()}, {len(self.data)} "
                f"bytes>")


def _check(format: str, quality: int | None, max_side: int | None) -> str:  # noqa: A002
    fmt = format.lower() if isinstance(format, str) else format
    if fmt == "jpg":
        fmt = "jpeg"
    if fmt not in FORMATS:
        raise InvalidArgument(f"format must be png, jpeg or webp, not {format!r}")
    if quality is not None and (isinstance(quality, bool) or not isinstance(quality, int)
                                or not 1 <= quality <= 100):
        raise InvalidArgument(f"quality must be a whole number 1–100, not {quality!r}")
    if max_side is not None and (isinstance(max_side, bool) or not isinstance(max_side, int)
                                 or not 16 <= max_side <= 100_000):
        raise InvalidArgument(f"max_side must be a whole number of pixels (16 or more), not "
                              f"{max_side!r}")
    return str(fmt)


def encode_png(png: bytes, format: str = "png", *, quality: int | None = None,  # noqa: A002
               max_side: int | None = None) -> Image:
    """``png`` (a whole PNG) as ``format``, scaled down (never up) so that its longest side
    is at most ``max_side``; ``quality`` (1–100) for JPEG and WebP (default 80). The PNG
    itself at full size needs nothing; the rest needs Pillow (``MISSING_DEPENDENCY``)."""
    fmt = _check(format, quality, max_side)
    problem = png_problem(png)
    if problem is not None:
        raise InvalidArgument(f"not a complete PNG image: {problem}")
    width, height = struct.unpack(">II", png[16:24])
    target = _fit(width, height, max_side)
    if fmt == "png" and target == (width, height):
        return Image(bytes(png), "png", width, height, (width, height))
    try:
        from PIL import Image as PILImage
    except ImportError:
        raise MissingDependency(
            f"{'scaling' if fmt == 'png' else fmt.upper()} screenshots need Pillow, which is "
            "not installed: only the device's PNG at full size is available",
            hint="pip install 'baremobile[vision]', or ask for format png without max_side",
        ) from None
    if width * height > MAX_PIXELS:
        raise InvalidArgument(f"the screenshot is {width}x{height} pixels, more than is "
                              f"re-encoded ({MAX_PIXELS // 1_000_000} megapixels)",
                              hint="ask for format png without max_side")
    img: Any = PILImage.open(io.BytesIO(png), formats=["PNG"])
    img = img.convert("RGB")
    if target != (width, height):
        img = img.resize(target, PILImage.Resampling.LANCZOS)
    buf = io.BytesIO()
    if fmt == "png":
        img.save(buf, format="PNG", optimize=True)
    elif fmt == "jpeg":
        img.save(buf, format="JPEG", quality=quality or 80, optimize=True)
    else:
        img.save(buf, format="WEBP", quality=quality or 80, method=4)
    return Image(buf.getvalue(), fmt, target[0], target[1], (width, height))


def _fit(width: int, height: int, max_side: int | None) -> tuple[int, int]:
    longest = max(width, height)
    if max_side is None or longest <= max_side:
        return width, height
    scale = max_side / longest
    return max(1, round(width * scale)), max(1, round(height * scale))


class Screenshot:
    """A PNG of the screen: ``.png``, ``.width``, ``.height``, ``.save()``; shows in Jupyter."""

    __slots__ = ("png", "width", "height")

    def __init__(self, png: bytes) -> None:
        problem = png_problem(png)
        if problem is not None:
            raise InvalidArgument(f"not a complete PNG image: {problem}")
        self.png = bytes(png)
        self.width, self.height = struct.unpack(">II", self.png[16:24])

    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write the PNG to ``path`` (a symlink is followed); returns the path.

        Written beside and renamed into place: if writing fails (a full disk), an existing
        file keeps its old content. ``overwrite=False`` refuses to replace a file.
        """
        p = Path(path)
        write_atomically(os.path.realpath(p), self.png, overwrite=overwrite,
                         what=f"screenshot file {str(p)!r}")
        return p

    def encode(self, format: str = "jpeg", *, quality: int | None = None,  # noqa: A002
               max_side: int | None = None) -> Image:
        """This screenshot as ``format`` (png, jpeg, webp), scaled so its longest side is at
        most ``max_side`` (see :func:`encode_png`; all but the PNG itself need Pillow)."""
        return encode_png(self.png, format, quality=quality, max_side=max_side)

    def _repr_png_(self) -> bytes:
        return self.png

    def __bytes__(self) -> bytes:
        return self.png

    def __len__(self) -> int:
        return len(self.png)

    def __repr__(self) -> str:
        return f"<Screenshot {self.width}x{self.height} PNG, {len(self.png)} bytes>"
