"""A tiny fake screen model (and helpers) for the shell/model tests.

It records every call so tests can assert exactly what the shell sent to the screen.
"""

from __future__ import annotations

from typing import Any

import pytest

from baremobile.virtual.model import FakeClock, PhoneModel
from baremobile.virtual.screens import AppInfo

LAUNCHER = ("com.android.launcher3", "com.android.launcher3.Launcher")
DUMP = (
    b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    b'<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" '
    b'content-desc="" checkable="false" checked="false" clickable="false" enabled="true" '
    b'focusable="false" focused="false" scrollable="false" long-clickable="false" '
    b'password="false" selected="false" bounds="[0,0][1080,2400]">'
    b'<node index="0" text="" resource-id="" class="android.widget.LinearLayout" package="p" '
    b'content-desc="" checkable="false" checked="false" clickable="false" enabled="true" '
    b'focusable="false" focused="false" scrollable="false" long-clickable="false" '
    b'password="false" selected="false" bounds="[0,0][1080,2400]">'
    b'<node index="0" text="Hello &amp; bye" resource-id="p:id/t" class="android.widget.TextView" '
    b'package="p" content-desc="" checkable="false" checked="false" clickable="true" '
    b'enabled="true" focusable="true" focused="false" scrollable="false" '
    b'long-clickable="false" password="false" selected="false" bounds="[0,0][100,100]" />'
    b"</node></node></hierarchy>"
)
# a 2x1 RGBA PNG: one red, one green pixel
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000010806000000f4227f"
    "8a0000000e49444154789c63f8cfc0f01f040110f803fd4e95c16f0000000049"
    "454e44ae426082"
)


class FakeScreens:
    """Records calls; three apps; VIEW handles https only."""

    width = 1080
    height = 2400
    density = 420
    rotation = 0

    def __init__(self) -> None:
        self.cur = LAUNCHER
        self.calls: list[tuple[Any, ...]] = []
        self.png = PNG

    def apps(self) -> list[AppInfo]:
        return [
            AppInfo(LAUNCHER[0], "Launcher", LAUNCHER[1], True),
            AppInfo("com.android.settings", "Settings", "com.android.settings.Settings", True),
            AppInfo("com.example.notes", "Notes", "com.example.notes.MainActivity", False),
        ]

    def current(self) -> tuple[str, str]:
        return self.cur

    def dump_xml(self) -> bytes:
        return DUMP

    def recorded_intent(self, fields: dict[str, Any]) -> bool | None:
        return None  # not a recorded scenario

    def screenshot_png(self) -> bytes:
        return self.png

    def tap(self, x: int, y: int) -> None:
        self.calls.append(("tap", x, y))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        self.calls.append(("swipe", x1, y1, x2, y2, duration_ms))

    def type_text(self, text: str) -> None:
        self.calls.append(("type", text))

    def key(self, keycode: int) -> None:
        self.calls.append(("key", keycode))
        if keycode == 3:
            self.cur = LAUNCHER

    def key_combination(self, keycodes: list[int]) -> None:
        self.calls.append(("combo", list(keycodes)))

    def launch(self, package: str, activity: str | None = None) -> bool:
        self.calls.append(("launch", package, activity))
        for app in self.apps():
            if app.package == package and app.launcher_activity:
                if activity not in (None, app.launcher_activity):
                    return False
                self.cur = (package, app.launcher_activity)
                return True
        return False

    def force_stop(self, package: str) -> None:
        self.calls.append(("force_stop", package))
        if self.cur[0] == package:  # its activities finish: the launcher shows
            self.cur = LAUNCHER

    def statusbar(self, what: str) -> bool:
        self.calls.append(("statusbar", what))
        return what in ("expand-notifications", "expand-settings", "collapse")

    def install(self, package: str, *rest: Any) -> None:
        self.calls.append(("install", package))

    def view(self, uri: str) -> str | None:
        self.calls.append(("view", uri))
        if uri.startswith("https://"):
            self.cur = ("com.android.chrome", "com.google.android.apps.chrome.Main")
            return "com.android.chrome"
        return None


def make_phone(api_level: int = 35) -> PhoneModel:
    """A phone with the fake screens and a fake clock."""
    return PhoneModel(screens=FakeScreens(), clock=FakeClock(), api_level=api_level)


def sh(phone: PhoneModel, command: str, stdin: bytes | None = None) -> tuple[str, str, int]:
    """Run a command line; (stdout, stderr, status) as text."""
    from baremobile.virtual.model import StdinPipe

    pipe = None
    if stdin is not None:
        pipe = StdinPipe()
        pipe.feed(stdin)
        pipe.close()
    out, err, status = phone.spawn(command, stdin=pipe).run()
    return out.decode("utf-8", "surrogateescape"), err.decode("utf-8", "surrogateescape"), status


@pytest.fixture
def phone() -> PhoneModel:
    return make_phone()
