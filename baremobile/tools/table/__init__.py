"""The tool table, by Page family: each module holds the rows of one family of verbs
(``page/actions.py`` → :mod:`.actions`, …) and their runners; this module puts them in the
order a menu lists them (what a model should look at first, first)."""

from __future__ import annotations

from baremobile.tools.aliases import Alias
from baremobile.tools.row import ToolSpec
from baremobile.tools.table import (
    actions,
    apps,
    arc,
    automobile,
    batch,
    clawperator,
    editing,
    files,
    gestures,
    observing,
    reading,
    session,
    system,
    vision,
    waits,
    web,
)

__all__ = ["ALIASES", "TOOLS"]

_ROWS = {row.name: row for module in (observing, actions, waits, reading, session, apps, files,
                                      system, vision, editing, gestures, web, batch)
         for row in module.ROWS}

#: the menu's order
_ORDER = (
    "snapshot", "tap", "type", "press", "scroll", "swipe", "long_press", "launch", "open_url",
    "back", "home", "screenshot", "find", "wait_for", "scroll_until", "read", "wait_for_text",
    "wait_stable", "wait", "devices", "configure",
    "list_apps", "uninstall_app", "stop_app", "clear_app_data", "grant_permission",
    "revoke_permission", "install_app",
    "list_files", "delete_file", "append_file", "read_file", "replace_in_file",
    "storage_locations", "write_file", "push_file", "pull_file",
    "logcat",
    "recents", "open_notifications", "open_quick_settings", "close_panels", "device_info",
    "rotate", "get_clipboard", "set_clipboard",
    "grid_screenshot", "tap_grid", "annotated_screenshot",
    "insert_text", "replace_text",
    "double_tap", "drag", "pinch", "gesture",
    "ui_xml", "eval", "execute",
)
assert sorted(_ORDER) == sorted(_ROWS), "every row listed once in the menu's order"

TOOLS: tuple[ToolSpec, ...] = tuple(_ROWS[name] for name in _ORDER)

#: other systems' words for our tools (:mod:`baremobile.tools.aliases`), each pointing at a
#: row (or saying the part it needs is absent here); accepted at every door, never shown in
#: our menu
ALIASES: tuple[Alias, ...] = (*clawperator.ALIASES, *automobile.ALIASES, *arc.ALIASES)
assert all(a.tool is None or callable(a.tool) or a.tool in _ROWS for a in ALIASES), \
    "aliases name rows"
