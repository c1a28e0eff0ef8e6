"""The display: its size, density and rotation, the heights of the system bars and the
keyboard, and rectangle arithmetic in screen pixels.

This is where the screen's geometry lives (a rotation or a resize changes it here and
nowhere else); everything that lays out or hit-tests windows asks it.
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
