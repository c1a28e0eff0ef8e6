"""The virtual phone's screen model (INTERFACE STUB — being implemented).

A scenario (YAML, read with ruamel.yaml) names apps and screens; each screen is a real
``uiautomator dump`` XML plus transitions. Input events (tap, swipe, text, keys, intents)
change the model; ``dump_xml()`` serialises what is on screen now in uiautomator's format.

The shell simulation (``baremobile.virtual.shell``) calls only the public methods below.
All of them are thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ScreenModel", "AppInfo", "ScenarioError"]


class ScenarioError(ValueError):
    """A scenario file is invalid; the message names the file, the screen and the problem."""


@dataclass(frozen=True)
class AppInfo:
    """One installed app."""

    package: str
    label: str
    launcher_activity: str | None  # e.g. ".Settings" expanded to "com.android.settings.Settings"
    system: bool  # False for third-party apps (``pm list packages -3``)
    version_name: str = "1.0"
    version_code: int = 1


class ScreenModel:
    """What the phone shows, and how it reacts to input."""

    width: int
    height: int
    density: int
    rotation: int

    @classmethod
    def from_scenario(cls, path: str | Path | None = None) -> ScreenModel:
        """Load a scenario file; ``None`` loads the built-in demo."""
        raise NotImplementedError

    # -- what is installed / shown ------------------------------------------------
    def apps(self) -> list[AppInfo]:
        raise NotImplementedError

    def current(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the focused app window."""
        raise NotImplementedError

    def dump_xml(self) -> bytes:
        """The current screen as uiautomator writes it (single line, UTF-8)."""
        raise NotImplementedError

    def screenshot_png(self) -> bytes:
        """A valid PNG of ``width`` x ``height`` depicting the current screen."""
        raise NotImplementedError

    # -- input ----------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        raise NotImplementedError

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        """A swipe; a (near) zero-distance swipe of >= 500 ms is a long press."""
        raise NotImplementedError

    def type_text(self, text: str) -> None:
        """Characters into the focused editable field (no-op when nothing is focused)."""
        raise NotImplementedError

    def key(self, keycode: int) -> None:
        raise NotImplementedError

    def key_combination(self, keycodes: list[int]) -> None:
        raise NotImplementedError

    def launch(self, package: str, activity: str | None = None) -> bool:
        """Bring an app (optionally a given activity) to the front; False if unknown."""
        raise NotImplementedError

    def view(self, uri: str) -> str | None:
        """ACTION_VIEW ``uri``; returns the package that handled it, or None."""
        raise NotImplementedError
