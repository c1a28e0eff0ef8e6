"""The screen's size, density and rotation: ``wm size``, ``wm density``,
``dumpsys window displays``.

* ``wm size`` (``WindowManagerShellCommand.runDisplaySize``; ``Wm.java`` before Android 9)
  prints ``Physical size: WxH`` and, when one is set, ``Override size: WxH`` — the override
  is what apps get. Some builds print the override alone.
* ``wm density`` (``runDisplayDensity``): ``Physical density: N`` and ``Override density:
  N`` likewise.
* ``dumpsys window displays`` (``WindowManagerService.dumpDisplayContents`` →
  ``DisplayContent.dump``; Android 4.2–16): one block per display, headed ``Display:
  mDisplayId=N`` (Android 12+ may add `` (organized)`` or `` rootTasks=N``), then a line
  ``init=WxH DPIdpi [fields…] cur=WxH app=WxH rng=…`` — ``init`` the natural (base) size,
  ``cur`` the size in the current rotation. The blocks come in the order of the display
  list, so a virtual display (a cast screen, a cover screen, an app's VirtualDisplay) may
  come before display 0. The rotation is ``mRotation=N`` or ``mRotation=ROTATION_90``
  (``DisplayRotation.dump`` from Android 10, in the display's block; Android ≤ 9 prints
  ``mRotation=N`` in the window manager's own dump) or ``mCurrentRotation=`` (some
  builds); a ``winConfig={… mRotation=ROTATION_0}`` before the first block is the root
  container's.
* Orientation names follow ``DisplayRotation``'s mapping of rotations to orientations,
  which depends on the natural size: on a landscape-natural device (tablets, head units)
  rotation 0 is landscape (``mLandscapeRotation = ROTATION_0``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.android.text import lines
from baremobile.errors import CommandFailed

__all__ = ["Display", "ScreenSize", "parse_wm_size", "parse_wm_density",
           "parse_displays", "default_display", "orientation_of", "rotation_for",
           "ORIENTATIONS"]

#: orientation names, in the order of the rotations of a portrait-natural device
ORIENTATIONS = ("portrait", "landscape", "reverse_portrait", "reverse_landscape")
#: the same for a landscape-natural device (``DisplayRotation``: landscape 0, seascape 180,
#: portrait 270, upside down 90 — without ``config_reverseDefaultRotation``)
_LANDSCAPE_NATURAL = ("landscape", "reverse_portrait", "reverse_landscape", "portrait")


@dataclass(frozen=True)
class ScreenSize:
    """``wm size``: the physical size and the override, if any (pixels)."""

    physical: tuple[int, int] | None
    override: tuple[int, int] | None

    @property
    def size(self) -> tuple[int, int]:
        """What apps get: the override when set, else the physical size."""
        found = self.override or self.physical
        assert found is not None
        return found


_SIZE = re.compile(r"^\s*(Physical|Override) size:\s*(\d+)\s*x\s*(\d+)\s*$")
_DENSITY = re.compile(r"^\s*(Physical|Override) density:\s*(\d+)\s*$")


def parse_wm_size(data: bytes | str) -> ScreenSize:
    """``wm size``; raises :class:`CommandFailed` when it names no size."""
    found: dict[str, tuple[int, int]] = {}
    for line in lines(data):
        m = _SIZE.match(line)
        if m and int(m.group(2)) > 0 and int(m.group(3)) > 0:
            found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    if not found:
        raise CommandFailed(f"unexpected `wm size` output: {_head(data)!r}",
                            output=_head(data))
    return ScreenSize(found.get("Physical"), found.get("Override"))


def parse_wm_density(data: bytes | str) -> int | None:
    """``wm density``: the override when set, else the physical density (None: neither)."""
    found: dict[str, int] = {}
    for line in lines(data):
        m = _DENSITY.match(line)
        if m and int(m.group(2)) > 0:
            found[m.group(1)] = int(m.group(2))
    return found.get("Override") or found.get("Physical")


@dataclass(frozen=True)
class Display:
    """One display of ``dumpsys window displays``."""

    display_id: int
    natural: tuple[int, int]
    current: tuple[int, int]
    density: int | None
    rotation: int
    """``Surface.ROTATION_*`` index 0–3 (read, or inferred from ``cur`` against ``init``)"""

    @property
    def orientation(self) -> str:
        return orientation_of(self.rotation, self.natural)


_HEADER = re.compile(r"^\s*Display: mDisplayId=(\d+)\b")
_INIT = re.compile(r"\binit=(\d+)x(\d+)(?:\s+(\d+)dpi)?")
_CUR = re.compile(r"\bcur=(\d+)x(\d+)")
_ROT = re.compile(r"\bm(?:Current)?Rotation=(?:ROTATION_)?(\d+)\b")


def _rotation(value: str) -> int | None:
    n = int(value)
    if n in (0, 1, 2, 3):
        return n
    if n in (90, 180, 270):
        return n // 90
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@dataclass
class _Block:
    """A display block being read: what its lines said so far."""

    id: int
    init: tuple[int, int] | None = None
    dpi: int | None = None
    cur: tuple[int, int] | None = None
    rot: int | None = None


def parse_displays(data: bytes | str) -> list[Display]:
    """Every display block with an ``init=`` line, in the order printed. A rotation line
    outside every block (Android ≤ 9's window manager line after the display contents, a
    root ``winConfig`` before them) is display 0's when its block has none."""
    blocks: list[_Block] = []
    outside: int | None = None
    cur: _Block | None = None
    depth = -1  # the indentation of the current block's header
    for line in lines(data):
        m = _HEADER.match(line)
        if m:
            cur = _Block(int(m.group(1)))
            blocks.append(cur)
            depth = _indent(line)
            continue
        if cur is not None and line.strip() and _indent(line) <= depth:
            cur = None  # back at the header's level: outside every block
        i = _INIT.search(line)
        if i and cur is None and not blocks:  # Android 4.x dumps without a header
            cur = _Block(0)
            blocks.append(cur)
            depth = -1
        if cur is not None and i and cur.init is None:
            cur.init = (int(i.group(1)), int(i.group(2)))
            if i.group(3):
                cur.dpi = int(i.group(3))
            c = _CUR.search(line)
            if c:
                cur.cur = (int(c.group(1)), int(c.group(2)))
        for r in _ROT.finditer(line):
            value = _rotation(r.group(1))
            if value is None:
                continue
            if cur is None:
                outside = value if outside is None else outside
            elif cur.rot is None:
                cur.rot = value
    out = []
    for b in blocks:
        natural = b.init
        if natural is None:
            continue
        current = b.cur if b.cur is not None else natural
        rot = b.rot
        if rot is None and b.id == 0:
            rot = outside
        if rot is None:  # not printed: cur against init tells 0/180 from 90/270
            rot = 1 if current != natural and current == natural[::-1] else 0
        out.append(Display(b.id, natural, current, b.dpi, rot))
    return out


def default_display(data: bytes | str) -> Display | None:
    """Display 0 (the built-in screen) of ``dumpsys window displays``; the first display
    when none is numbered 0; None when the output has none."""
    found = parse_displays(data)
    return next((d for d in found if d.display_id == 0), found[0] if found else None)


def orientation_of(rotation: int, natural: tuple[int, int]) -> str:
    """The orientation name of ``rotation`` on a display of ``natural`` size."""
    names = _LANDSCAPE_NATURAL if natural[0] > natural[1] else ORIENTATIONS
    return names[rotation % 4]


def rotation_for(orientation: str, natural: tuple[int, int]) -> int:
    """The ``user_rotation`` that shows ``orientation`` on a display of ``natural`` size."""
    names = _LANDSCAPE_NATURAL if natural[0] > natural[1] else ORIENTATIONS
    return names.index(orientation)


def _head(data: bytes | str) -> str:
    text = "\n".join(ln for ln in lines(data) if ln)
    return text[:200]
