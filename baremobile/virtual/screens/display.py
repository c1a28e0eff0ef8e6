"""The display: its size, density and rotation, the heights of the system bars and the
keyboard, and rectangle arithmetic in screen pixels.

This is where the screen's geometry lives (a rotation or a resize changes it here and
nowhere else); everything that lays out or hit-tests windows asks it.

**Rotation.** ``width``/``height`` are the layout's size, the display in its natural
(portrait) orientation, where every window is laid out and hit-tested. What the outside
world sees — ``uiautomator dump`` bounds, the screenshot, the coordinates ``input tap``
takes — is the *current* orientation: :attr:`Display.size` swaps the sides for rotations
1 and 3 (``Surface.ROTATION_90/270``), :meth:`Display.to_layout` maps a screen point into
the layout and :meth:`Display.to_screen` a layout rectangle onto the screen. The virtual
phone's apps are not laid out again for landscape: the portrait layout is stretched to the
landscape size (an approximation; real apps re-layout). Raw touch-panel coordinates are in
the panel's natural orientation and go through :meth:`Display.from_panel`, the inverse of
what ``TouchInputMapper`` documents for each ``SurfaceOrientation``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Bounds", "Display", "intersect", "is_empty", "area"]

Bounds = tuple[int, int, int, int]


@dataclass
class Display:
    """The screen as uiautomator and ``wm size`` report it."""

    width: int
    height: int
    density: int
    rotation: int
    status_bar: bool  # whether the status bar is drawn
    nav_buttons: bool  # whether the 3-button navigation bar is drawn

    @property
    def scale(self) -> float:
        """Density relative to the 420 dpi the system windows are measured at."""
        return self.density / 420

    @property
    def status_bar_height(self) -> int:
        return round(136 * self.scale) if self.status_bar else 0

    @property
    def nav_bar_height(self) -> int:
        return round(126 * self.scale) if self.nav_buttons else 0

    @property
    def ime_height(self) -> int:
        return round(self.height * 0.32)

    @property
    def content_bottom(self) -> int:
        """Where app content ends: the top of the navigation bar."""
        return self.height - self.nav_bar_height

    @property
    def ime_top(self) -> int:
        """The top of the on-screen keyboard when it is shown."""
        return self.content_bottom - self.ime_height

    @property
    def bounds(self) -> Bounds:
        return (0, 0, self.width, self.height)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) as the screen is now: sides swapped when turned sideways."""
        return (self.height, self.width) if self.rotation % 2 else (self.width, self.height)

    def to_layout(self, x: float, y: float) -> tuple[float, float]:
        """A point on the screen as it is now → the same point in the layout."""
        w, h = self.size
        return x * self.width / w, y * self.height / h

    def to_screen(self, b: Bounds) -> Bounds:
        """A layout rectangle → where it is drawn on the screen as it is now."""
        w, h = self.size
        if (w, h) == (self.width, self.height):
            return b
        return (b[0] * w // self.width, b[1] * h // self.height,
                b[2] * w // self.width, b[3] * h // self.height)

    def from_panel(self, xn: float, yn: float) -> tuple[float, float]:
        """A touch-panel point in natural pixels → screen pixels for the current rotation
        (``TouchInputMapper``: 90° swaps x/y and reverses y, 180° reverses both, 270° swaps
        and reverses x)."""
        w, h = self.width, self.height
        r = self.rotation % 4
        if r == 1:
            return yn, w - xn
        if r == 2:
            return w - xn, h - yn
        if r == 3:
            return h - yn, xn
        return xn, yn


def intersect(a: Bounds, b: Bounds) -> Bounds:
    """The overlap of two rectangles (an empty one at the corner when they do not meet)."""
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    if x1 >= x2 or y1 >= y2:
        return (x1, y1, x1, y1)
    return (x1, y1, x2, y2)


def is_empty(b: Bounds) -> bool:
    return b[2] <= b[0] or b[3] <= b[1]


def area(b: Bounds) -> int:
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])
