"""Regenerate the built-in demo scenario's dump XML files.

The demo's screens are ordinary ``uiautomator dump`` files in ``demo/``. Their words (rows,
lists, contacts, emoji, files) are data in ``demo/content.yaml``; their layout (bounds
that depend on each other, ids, classes) is computed by :mod:`.demo_system` and
:mod:`.demo_apps` from the widgets in :mod:`.demo_widgets`, which is error-prone to edit
by hand in the XML. Edit the content or the layout, run

    python baremobile/virtual/scenarios/build_demo.py

and commit the rewritten XML. ``demo.yaml`` (the rules) is written by hand. A test checks
that the committed XML is exactly what this script produces.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from baremobile.virtual.scenarios.demo_apps import (
    attach_dialog,
    chrome_ntp,
    chrome_page,
    files_downloads,
    files_drawer,
    files_recent,
    messages_attach_panel,
    messages_conversation,
    messages_emoji_panel,
    messages_home,
    messages_new,
    notes_list,
    notes_login,
    weather_home,
    weather_radar,
)
from baremobile.virtual.scenarios.demo_system import (
    launcher_all_apps,
    launcher_home,
    screen_timeout_dialog,
    settings_display,
    settings_generic,
    settings_home,
    settings_internet,
    settings_network,
    settings_search,
)
from baremobile.virtual.scenarios.demo_widgets import Content, load_content
from baremobile.virtual.uixml import Node, serialize

SCREENS: dict[str, Callable[[Content], Node]] = {
    "launcher/home.xml": launcher_home,
    "launcher/all_apps.xml": launcher_all_apps,
    "settings/home.xml": settings_home,
    "settings/search.xml": settings_search,
    "settings/network.xml": settings_network,
    "settings/internet.xml": settings_internet,
    "settings/display.xml": settings_display,
    "settings/page.xml": settings_generic,
    "settings/screen_timeout_dialog.xml": screen_timeout_dialog,
    "messages/conversations.xml": messages_home,
    "messages/new_conversation.xml": messages_new,
    "messages/conversation.xml": messages_conversation,
    "messages/emoji_panel.xml": messages_emoji_panel,
    "messages/attach_panel.xml": messages_attach_panel,
    "messages/attach_dialog.xml": attach_dialog,
    "files/recent.xml": files_recent,
    "files/drawer.xml": files_drawer,
    "files/downloads.xml": files_downloads,
    "chrome/new_tab.xml": chrome_ntp,
    "chrome/page.xml": chrome_page,
    "notes/login.xml": notes_login,
    "notes/list.xml": notes_list,
    "weather/home.xml": weather_home,
    "weather/radar.xml": weather_radar,
}


def build(content: Content | None = None) -> dict[str, bytes]:
    """Every demo dump, by path relative to ``demo/`` (from ``demo/content.yaml`` unless
    ``content`` is given)."""
    c = load_content() if content is None else content
    return {path: serialize([make(c)]) for path, make in SCREENS.items()}


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).with_name("demo")
    for rel, data in build().items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    print(f"wrote {len(SCREENS)} dumps under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
