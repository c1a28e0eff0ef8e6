"""Operations behind tools that need more than one :class:`~baremobile.page.Page` call.

Everything here goes through the Page's public verbs or ``page.device.run(argv)`` (argv is
quoted safely there). The vision helpers draw with Pillow, imported lazily: the ``vision``
tool group needs ``pip install 'baremobile[vision]'``; ``tap_grid`` needs nothing.
"""

from __future__ import annotations

import base64
import io
import re
import string
from pathlib import Path
from typing import Any

from baremobile.device import typing_plan, validate_package
from baremobile.errors import BaremobileError, CommandFailed, InvalidArgument
from baremobile.keycodes import KEYCODES

__all__ = [
    "MissingDependency",
    "annotate_refs",
    "draw_grid",
    "grid_cell_center",
    "install_apk",
    "list_files",
    "read_file",
    "statusbar",
    "type_focused",
    "set_permission",
]

#: Where an APK is pushed before ``pm install``.
INSTALL_PATH = "/data/local/tmp/baremobile_install.apk"
_PERMISSION = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*$")
_DEVICE_PATH = re.compile(r"^/[^\0]*$")


class MissingDependency(BaremobileError):
    """An optional package a tool needs is not installed."""

    code = "MISSING_DEPENDENCY"


# -- typing without a target ----------------------------------------------------------------


def type_focused(page: Any, text: str, *, clear: bool = False, submit: bool = False) -> None:
    """Type into whatever field has focus (no tap first)."""
    plan = typing_plan(text)
    commands: list[list[str]] = []
    if clear:
        if page.device.api_level >= 33:
            commands += [["input", "keycombination", str(KEYCODES["CTRL_LEFT"]),
                          str(KEYCODES["A"])],
                         ["input", "keyevent", str(KEYCODES["DEL"])]]
        else:
            commands += [["input", "keyevent", str(KEYCODES["MOVE_END"])],
                         ["input", "keyevent", *[str(KEYCODES["DEL"])] * 64]]
    commands += plan
    if submit:
        commands.append(["input", "keyevent", str(KEYCODES["ENTER"])])
    if commands:
        page.device.run_all(commands)


# -- apps ----------------------------------------------------------------------------------


def set_permission(page: Any, package: str, permission: str, grant: bool) -> None:
    """``pm grant`` / ``pm revoke`` a runtime permission."""
    validate_package(package)
    if not isinstance(permission, str) or not _PERMISSION.match(permission):
        raise InvalidArgument(f"{permission!r} is not a permission name",
                              hint="e.g. android.permission.CAMERA")
    r = page.device.run(["pm", "grant" if grant else "revoke", package, permission], check=False)
    if r.exit_code != 0:
        said = (r.stdout + r.stderr).decode("utf-8", "replace")
        line = next((x.strip() for x in said.splitlines() if "Exception" in x), said.strip())
        raise CommandFailed(f"pm {'grant' if grant else 'revoke'} failed: {line[:300]}",
                            exit_code=r.exit_code, output=said,
                            hint="check the package and that the permission is a runtime "
                                 "permission the app declares")


def install_apk(page: Any, local_path: str, *, replace: bool = True) -> str:
    """Push a local APK to the device and ``pm install`` it; returns pm's answer."""
    path = Path(local_path).expanduser()
    if not path.is_file():
        raise InvalidArgument(f"no APK at {str(path)!r} on this computer",
                              hint="path is a file on the computer running baremobile")
    page.push(path, INSTALL_PATH)
    try:
        argv = ["pm", "install"] + (["-r"] if replace else []) + [INSTALL_PATH]
        r = page.device.run(argv, check=False, timeout=300)
        said = (r.stdout + r.stderr).decode("utf-8", "replace").strip()
        if "Success" not in said:
            raise CommandFailed(f"pm install failed: {said[:300] or 'no output'}",
                                exit_code=r.exit_code, output=said)
        return said
    finally:
        page.device.run(["rm", "-f", INSTALL_PATH], check=False)


# -- files ---------------------------------------------------------------------------------


def device_path(path: object) -> str:
    if not isinstance(path, str) or not _DEVICE_PATH.match(path):
        raise InvalidArgument(f"{path!r} is not an absolute device path",
                              hint="device paths start with /, e.g. /sdcard/Download")
    return path


def list_files(page: Any, path: str) -> list[str]:
    """Names in a device directory (``ls -A1F``: directories end with ``/``, links ``@``)."""
    r = page.device.run(["ls", "-A1F", device_path(path)], check=False)
    if r.exit_code != 0:
        said = (r.stderr or r.stdout).decode("utf-8", "replace").strip()
        raise CommandFailed(f"cannot list {path}: {said or 'ls failed'}", exit_code=r.exit_code,
                            hint="check the path exists (list its parent)")
    names = r.stdout.decode("utf-8", "replace").splitlines()
    return [n for n in names if n and n not in ("./", "../")]


def read_file(page: Any, path: str, max_bytes: int) -> dict[str, Any]:
    """A device file's content: text when it is UTF-8, else base64; cut at ``max_bytes``."""
    data = page.pull(device_path(path))
    size = len(data)
    cut = data[:max_bytes]
    out: dict[str, Any] = {"path": path, "size": size}
    try:
        out["text"] = cut.decode("utf-8")
    except UnicodeDecodeError:
        out["base64"] = base64.b64encode(cut).decode("ascii")
    if size > max_bytes:
        out["note"] = f"cut at {max_bytes} of {size} bytes — pass a larger max_bytes to read more"
    return out


# -- system UI -----------------------------------------------------------------------------

_STATUSBAR = {
    "notifications": "expand-notifications",
    "quick_settings": "expand-settings",
    "collapse": "collapse",
}


def statusbar(page: Any, what: str) -> None:
    """Open the notification shade / quick settings, or close them."""
    page.device.run(["cmd", "statusbar", _STATUSBAR[what]])


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
    m = re.match(r"^\s*([A-Za-z])\s*(\d{1,2})\s*$", cell or "")
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


def _encode(img: Any) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def draw_grid(png: bytes, rows: int, cols: int) -> bytes:
    """The screenshot with a labelled ``cols`` x ``rows`` grid drawn over it."""
    Image, ImageDraw, ImageFont = _pil()
    img = Image.open(io.BytesIO(png)).convert("RGB")
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
    img = Image.open(io.BytesIO(png)).convert("RGB")
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
