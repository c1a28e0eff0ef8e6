"""``Screenshot``: a PNG of the screen as :meth:`baremobile.page.Page.screenshot` returns it."""

from __future__ import annotations

import os
import struct
from pathlib import Path

from baremobile.android.png import png_problem
from baremobile.errors import InvalidArgument
from baremobile.localfiles import write_atomically

__all__ = ["Screenshot"]


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

    def _repr_png_(self) -> bytes:
        return self.png

    def __bytes__(self) -> bytes:
        return self.png

    def __len__(self) -> int:
        return len(self.png)

    def __repr__(self) -> str:
        return f"<Screenshot {self.width}x{self.height} PNG, {len(self.png)} bytes>"
