"""What an installed package adds to the screen: its own screen, and its icon in the
launcher's list of apps.

``pm install`` of an APK (read by :func:`baremobile.virtual.apk.read_apk`) makes an app the
phone did not have. It gets one screen — an activity as Android Studio's "Empty Activity"
template draws it: an action bar with the app's label over ``Hello World!`` — and, when it
has a launcher activity, an icon in the launcher's all-apps list, in alphabetical order as
Launcher3 sorts it (``AppInfoComparator``), the icons laid out again on the list's grid.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from baremobile.virtual.scenario import AppDef, ScreenDef
from baremobile.virtual.uixml import Node
from baremobile.virtual.uixml import element as node

from .display import Display

__all__ = ["installed_app", "with_icon"]


def installed_app(display: Display, package: str, label: str, launcher: str | None,
                  version_name: str, version_code: int, debuggable: bool
                  ) -> tuple[AppDef, ScreenDef]:
    """The app (and its one screen) a package installed from an APK is."""
    w, h = display.width, display.height
    top = display.status_bar_height
    bar = top + round(154 * display.scale)
    bottom = display.content_bottom
    name = f"installed:{package}"
    activity = launcher or f"{package}.MainActivity"
    root = node("android.widget.FrameLayout", (0, 0, w, h), package, children=[
        node("android.widget.LinearLayout", (0, 0, w, h), package, children=[
            node("android.widget.FrameLayout", (0, top, w, bottom), package,
                 "android:id/content", children=[
                node("android.view.ViewGroup", (0, top, w, bar), package,
                     f"{package}:id/action_bar", children=[
                    node("android.widget.TextView", (round(w * 0.04), top, w // 2, bar),
                         package, text=label)]),
                node("android.widget.TextView", (w // 2 - 160, (bar + bottom) // 2 - 30,
                                                 w // 2 + 160, (bar + bottom) // 2 + 30),
                     package, text="Hello World!"),
            ]),
        ]),
    ])
    for n in root.iter():
        n.origin = name
    screen = ScreenDef(name, package, activity, Path("<installed>"), [root], [], [], {}, [])
    app = AppDef(package, label, launcher, False, version_name, version_code, name, [name],
                 [], debuggable=debuggable)
    return app, screen


def _icon_grids(root: Node, labels: set[str]) -> list[Node]:
    """The nodes whose children are launcher icons (``…:id/icon``) naming every app in
    ``labels``: the all-apps list (a home screen's row holds only some)."""
    found = []
    for n in root.iter():
        icons = [c for c in n.children if c.rid.endswith(":id/icon")]
        if len(icons) >= 2 and labels <= {c.text for c in icons}:
            found.append(n)
    return found


def with_icon(screen: ScreenDef, label: str, launchable: set[str]) -> ScreenDef | None:
    """``screen`` (a launcher's) with an icon for ``label`` in its all-apps grid, or None
    when it has no such grid. ``launchable``: the labels of the apps it lists already."""
    windows = [win.clone() for win in screen.windows]
    changed = False
    for win in windows:
        for grid in _icon_grids(win, launchable):
            icons = [c for c in grid.children if c.rid.endswith(":id/icon")]
            if any(c.text == label for c in icons):
                continue
            new = icons[-1].clone()
            new.attrs["text"] = label
            if new.attrs.get("content-desc"):
                new.attrs["content-desc"] = label
            slots = sorted({(c.bounds[1], c.bounds[0]) for c in icons})
            xs = sorted({c.bounds[0] for c in icons})
            ys = sorted({c.bounds[1] for c in icons})
            cw = icons[0].bounds[2] - icons[0].bounds[0]
            ch = icons[0].bounds[3] - icons[0].bounds[1]
            dy = ys[1] - ys[0] if len(ys) > 1 else ch
            ordered = sorted([*icons, new], key=lambda c: c.text.casefold())
            for k, icon in enumerate(ordered):
                if k < len(slots):
                    y, x = slots[k]
                else:  # the next cell of the grid: along the row, then a new row
                    row, col = divmod(k, len(xs))
                    x, y = xs[col], ys[0] + row * dy
                icon.bounds = (x, y, x + cw, y + ch)
            rest = [c for c in grid.children if not c.rid.endswith(":id/icon")]
            grid.children = ordered + rest
            changed = True
    return replace(screen, windows=windows) if changed else None
