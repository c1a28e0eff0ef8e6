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
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baremobile.android.png import png_problem
from baremobile.errors import CommandFailed, InvalidArgument, MissingDependency
from baremobile.localfiles import write_atomically

__all__ = ["FORMATS", "MAX_PIXELS", "Image", "Screenshot", "decode_png", "encode_png",
           "have_pillow", "shrink_png"]

#: format name → MIME type
FORMATS = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
#: the largest image decoded (width x height): far past any phone or tablet screen, and
#: 75 MB as RGB. Every decode of a device's PNG goes through :func:`decode_png`, which
#: refuses a larger one before decoding anything (re-encoding, the trace's screenshots,
#: the drawing tools)
MAX_PIXELS = 25_000_000


def decode_png(png: bytes, pil: Any = None) -> Any:
    """The one gate before a device's PNG is decoded: a Pillow image of ``png`` (opened,
    not yet converted), or a typed error — ``CommandFailed`` (the device's fault) when it
    is not a whole PNG, is empty (0x0), is larger than :data:`MAX_PIXELS` (refused from its
    header, before decoding) or cannot be decoded. ``pil`` is ``PIL.Image`` (imported here
    when not given: ``MISSING_DEPENDENCY`` without Pillow)."""
    problem = png_problem(png)
    if problem is not None:
        raise CommandFailed(f"the device's screenshot is not a whole PNG: {problem}",
                            hint="take the screenshot again")
    width, height = struct.unpack(">II", bytes(png[16:24]))
    if width * height > MAX_PIXELS:
        raise CommandFailed(f"the device's screenshot is {width}x{height} pixels, more than "
                            f"is decoded ({MAX_PIXELS // 1_000_000} megapixels)",
                            hint="ask for the PNG as it is (format png, no max_side)")
    if pil is None:
        try:
            from PIL import Image as pil
        except ImportError:
            raise MissingDependency("decoding a screenshot needs Pillow, which is not installed",
                                    hint="pip install 'baremobile[vision]'") from None
    try:
        img = pil.open(io.BytesIO(png), formats=["PNG"])
        img.load()
    except (OSError, ValueError, SyntaxError, EOFError, zlib.error,
            pil.DecompressionBombError) as exc:
        raise CommandFailed(f"the device's screenshot cannot be decoded: "
                            f"{type(exc).__name__}: {exc}"[:300],
                            hint="take the screenshot again") from None
    if img.size != (width, height):  # pragma: no cover - Pillow read another header
        raise CommandFailed("the device's screenshot cannot be decoded: its header lies",
                            hint="take the screenshot again")
    return img


def shrink_png(png: bytes, width: int) -> tuple[bytes, list[int], float]:
    """(PNG, its size ``[w, h]``, the scale it is kept at): ``png`` reduced by a whole
    factor to at most ``width`` pixels wide when Pillow is installed (through
    :func:`decode_png`: a PNG it refuses raises), else as it came."""
    problem = png_problem(png)
    if problem is not None:
        raise CommandFailed(f"the device's screenshot is not a whole PNG: {problem}")
    w, h = struct.unpack(">II", bytes(png[16:24]))
    try:
        from PIL import Image as pil
    except ImportError:
        return bytes(png), [w, h], 1.0
    if w <= width:
        return bytes(png), [w, h], 1.0
    img = decode_png(png, pil)
    factor = -(-w // width)  # a whole factor: box reduction, the fast way
    try:
        small = img.convert("RGB").reduce(factor)
        out = io.BytesIO()
        small.save(out, "PNG")
    except (OSError, ValueError) as exc:  # pragma: no cover - decoded above
        raise CommandFailed(f"the device's screenshot cannot be decoded: {exc}") from None
    return out.getvalue(), [w, h], round(small.width / w, 6)


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
    img: Any = decode_png(png, PILImage).convert("RGB")  # the one gate
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
