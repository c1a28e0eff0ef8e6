"""The windows Android draws itself: the status bar, the navigation bar, the keyboard, the
always-on display, the overview (recents) and a default launcher.

Each is built fresh as a node tree in uiautomator's shape (the resource ids and classes a
Pixel running Android 15 dumps), sized from the :class:`~.display.Display`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from baremobile.virtual.scenario import AppDef, ScreenDef
from baremobile.virtual.uixml import Node
from baremobile.virtual.uixml import element as node

from .clock import PhoneClock
from .display import Display
from .state import IME_PACKAGE, SYSTEMUI, ScreenInstance, ScreenState

__all__ = [
    "DEFAULT_LAUNCHER", "status_bar", "nav_bar", "ime_window", "aod_window", "recents_screen",
    "default_launcher",
]

DEFAULT_LAUNCHER = "com.android.launcher3"


def status_bar(display: Display, clock: PhoneClock) -> Node:
    """The status bar window: clock, Wi-Fi, signal and battery icons."""
    w, h, p = display.width, display.status_bar_height, SYSTEMUI
    s = display.scale

    def r(v: float) -> int:
        return round(v * s)

    clock_text = clock.clock_str()
    icons_x = w - r(196)
    return node("android.widget.FrameLayout", (0, 0, w, h), p, children=[
        node("android.widget.FrameLayout", (0, 0, w, h), p,
            f"{p}:id/status_bar_launch_animation_container"),
        node("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/status_bar_container",
            children=[
            node("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/status_bar",
                children=[
                node("android.widget.LinearLayout", (r(47), 0, w - r(53), h), p,
                    f"{p}:id/status_bar_contents", children=[
                    node("android.widget.FrameLayout", (r(47), 1, r(459), h), p,
                        f"{p}:id/status_bar_start_side_container", children=[
                        node("android.widget.TextView", (r(47), r(47), r(172), r(90)), p,
                            f"{p}:id/clock", clock_text, clock.time_str()),
                    ]),
                    node("android.view.View", (r(459), 1, r(604), h), p,
                        f"{p}:id/cutout_space_view"),
                    node("android.widget.FrameLayout", (r(604), 1, w - r(64), h), p,
                        f"{p}:id/status_bar_end_side_container", children=[
                        node("android.widget.LinearLayout", (icons_x, r(39), w - r(64),
                                                            r(97)), p,
                            f"{p}:id/system_icons", children=[
                            node("android.widget.FrameLayout",
                                (icons_x, r(39), icons_x + r(46), r(97)), p,
                                f"{p}:id/wifi_combo", desc="Wifi signal full."),
                            node("android.widget.FrameLayout",
                                (icons_x + r(46), r(39), icons_x + r(85), r(97)), p,
                                f"{p}:id/mobile_combo", desc="Phone signal full."),
                            node("android.widget.LinearLayout",
                                (icons_x + r(101), r(51), icons_x + r(121), r(85)), p,
                                f"{p}:id/battery", desc="Battery 100 percent."),
                        ]),
                    ]),
                ]),
            ]),
        ]),
    ])


def nav_bar(display: Display) -> Node:
    """The 3-button navigation bar window: Back, Home, Overview."""
    w, h, p = display.width, display.height, SYSTEMUI
    top = display.content_bottom
    bw = round(w * 0.22)
    return node("android.widget.FrameLayout", (0, top, w, h), p,
               f"{p}:id/navigation_bar_frame", children=[
        node("android.widget.FrameLayout", (0, top, w, h), p, children=[
            node("android.widget.FrameLayout", (0, top, w, h), p,
                f"{p}:id/navigation_inflater", children=[
                node("android.widget.FrameLayout", (0, top, w, h), p, f"{p}:id/horizontal",
                    children=[
                    node("android.widget.FrameLayout", (0, top, w, h), p,
                        f"{p}:id/nav_buttons", children=[
                        node("android.widget.LinearLayout", (0, top, w, h), p,
                            f"{p}:id/ends_group", children=[
                            node("android.widget.ImageView",
                                (round(w * 0.11), top, round(w * 0.11) + bw, h), p,
                                f"{p}:id/back", desc="Back", clickable=True,
                                focusable=True, long_clickable=True),
                            node("android.widget.ImageView",
                                (w - round(w * 0.11) - bw, top, w - round(w * 0.11), h), p,
                                f"{p}:id/recent_apps", desc="Overview", clickable=True,
                                focusable=True, long_clickable=True),
                        ]),
                        node("android.widget.LinearLayout",
                            ((w - bw) // 2, top, (w + bw) // 2, h), p,
                            f"{p}:id/center_group", children=[
                            node("android.widget.ImageView",
                                ((w - bw) // 2, top, (w + bw) // 2, h), p, f"{p}:id/home",
                                desc="Home", clickable=True, focusable=True,
                                long_clickable=True),
                        ]),
                    ]),
                ]),
            ]),
        ]),
    ])


def ime_window(display: Display) -> Node:
    """Gboard's window (its keys are one obfuscated view, as on a real device)."""
    w, p = display.width, IME_PACKAGE
    top, bottom = display.ime_top, display.content_bottom
    obf = f"{p}:id/0_resource_name_obfuscated"
    strip = top + round(display.ime_height * 0.17)
    key = round(w * 0.117)
    return node("android.widget.FrameLayout", (0, top, w, bottom), p, children=[
        node("android.widget.LinearLayout", (0, top, w, bottom), p, children=[
            node("android.widget.FrameLayout", (0, top, w, bottom), p, "android:id/inputArea",
                children=[
                node("android.widget.FrameLayout", (0, top, w, bottom), p,
                    f"{p}:id/keyboard_holder", children=[
                    node("android.widget.FrameLayout", (0, top, w, strip), p,
                        f"{p}:id/keyboard_header_view_holder", children=[
                        node("android.widget.FrameLayout", (6, top, 6 + key, strip), p,
                            f"{p}:id/key_pos_header_access_points_menu",
                            desc="Open features menu", clickable=True, focusable=True),
                        node("android.widget.LinearLayout", (6 + key, top, w - 6 - key,
                                                            strip), p,
                            f"{p}:id/softkey_holder_fixed_candidates"),
                        node("android.widget.FrameLayout", (w - 6 - key, top, w - 6, strip),
                            p, f"{p}:id/key_pos_header_voice", desc="Use voice typing",
                            clickable=True, focusable=True),
                    ]),
                    node("android.view.View", (0, strip, w, bottom), p, obf),
                ]),
            ]),
        ]),
    ])


def aod_window(display: Display, clock: PhoneClock) -> Node:
    """The always-on display while the screen is off: the clock and the date."""
    w, h, p = display.width, display.height, SYSTEMUI
    return node("android.widget.FrameLayout", (0, 0, w, h), p, children=[
        node("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/notification_panel",
            children=[
            node("android.widget.TextView", (w // 4, round(h * 0.28), w * 3 // 4,
                                            round(h * 0.36)), p,
                f"{p}:id/lockscreen_clock_view", clock.clock_str(), clock.time_str()),
            node("android.widget.TextView", (w // 4, round(h * 0.36), w * 3 // 4,
                                            round(h * 0.39)), p,
                f"{p}:id/date_view", clock.date_str()),
        ]),
    ])


def recents_screen(display: Display, state: ScreenState) -> ScreenInstance:
    """The overview: one card per recent task, the newest in the middle."""
    w, h = display.width, display.height
    home = state.apps[state.home_pkg]
    p = home.package
    card_w, card_h = round(w * 0.70), round(h * 0.56)
    gap = round(w * 0.06)
    icon = round(h * 0.05)
    top = display.status_bar_height + icon + round(h * 0.08)
    x0 = (w - card_w) // 2
    cards = []
    for i, t in enumerate(state.tasks):
        label = state.apps[t.package].label if t.package in state.apps else t.package
        x1 = x0 - i * (card_w + gap)
        cx = x1 + card_w // 2
        card = node("com.android.quickstep.views.TaskView", (x1, top - icon - 20, x1 + card_w,
                                                            top + card_h), p,
                   desc=label, clickable=True, focusable=True, long_clickable=True,
                   children=[
            node("android.widget.ImageView", (cx - icon // 2, top - icon - 20, cx + icon // 2,
                                             top - 20), p, f"{p}:id/icon", desc=label,
                clickable=True, focusable=True),
            node("android.view.View", (x1, top, x1 + card_w, top + card_h), p,
                f"{p}:id/snapshot"),
        ])
        card.meta["task"] = t
        cards.append(card)
    children: list[Node] = list(reversed(cards))
    if cards:
        oldest_x = x0 - (len(cards) - 1) * (card_w + gap)
        clear = node("android.widget.Button", (oldest_x - gap - 300, top + card_h // 2 - 70,
                                              oldest_x - gap, top + card_h // 2 + 70), p,
                    f"{p}:id/clear_all", "Clear all", clickable=True, focusable=True)
        clear.meta["clear_all"] = True
        children.insert(0, clear)
    else:
        children.append(node("android.widget.TextView", (0, h // 2 - 60, w, h // 2 + 60), p,
                            text="No recent items"))
    bottom = display.content_bottom
    panel = node("com.android.quickstep.views.RecentsView", (0, 0, w, bottom), p,
                f"{p}:id/overview_panel", children=children, focusable=True,
                scrollable=bool(cards))
    actions = node("android.widget.FrameLayout", (0, bottom - 220, w, bottom), p,
                  f"{p}:id/overview_actions_view", children=[
        node("android.widget.LinearLayout", (0, bottom - 200, w, bottom - 60), p,
            f"{p}:id/action_buttons", children=[
            node("android.widget.Button", (w // 2 - 330, bottom - 190, w // 2 - 20,
                                          bottom - 70), p, f"{p}:id/action_screenshot",
                "Screenshot", clickable=True, focusable=True),
            node("android.widget.Button", (w // 2 + 20, bottom - 190, w // 2 + 330,
                                          bottom - 70), p, f"{p}:id/action_select",
                "Select", clickable=True, focusable=True),
        ]),
    ]) if cards else None
    root_children = [panel] + ([actions] if actions is not None else [])
    root = node("android.widget.FrameLayout", (0, 0, w, h), p, children=[
        node("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/launcher", children=[
            node("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/drag_layer",
                children=root_children)])])
    for n in root.iter():
        n.origin = "recents"
    sd = ScreenDef("recents", p, state.home.stack[0].sd.activity, Path("<generated>"),
                   [root], [], [], {}, [])
    inst = ScreenInstance(sd, {}, "system")
    # the overview is built afresh each time it opens, but it shows the same elements (its
    # panel, "Clear all", a task's card): what each node is an instance of (``defn``) is
    # what it is — its kind and label, and its ancestors' — not the node it was built from
    stack = [(w, "recents") for w in inst.windows]
    while stack:
        n, above = stack.pop()
        here = f"{above}/{n.cls}#{n.rid}#{n.text}#{n.desc}"
        n.meta["defn"] = here
        stack.extend((c, here) for c in n.children)
    return inst


def default_launcher(display: Display, installed: Iterable[AppDef]) -> tuple[ScreenDef, AppDef]:
    """Launcher3 with one icon per launchable app, for scenarios that name no home app."""
    w, h = display.width, display.height
    pkg = DEFAULT_LAUNCHER
    apps = [a for a in installed if a.activity and a.start]
    cols = 4
    cell_w = w // cols
    cell_h = round(h * 0.13)
    top = display.status_bar_height + round(h * 0.06)
    icons = []
    for i, a in enumerate(apps):
        r, c = divmod(i, cols)
        b = (c * cell_w + 16, top + r * cell_h, (c + 1) * cell_w - 16, top + (r + 1) * cell_h)
        icons.append(node("android.widget.TextView", b, pkg, f"{pkg}:id/icon", a.label,
                         a.label, clickable=True, focusable=True, long_clickable=True))
    grid = node("android.view.ViewGroup", (0, top, w, display.content_bottom), pkg,
               f"{pkg}:id/workspace", children=icons)
    root = node("android.widget.FrameLayout", (0, 0, w, h), pkg, children=[
        node("android.widget.FrameLayout", (0, 0, w, h), pkg, "android:id/content", children=[
            node("android.widget.FrameLayout", (0, 0, w, h), pkg, f"{pkg}:id/launcher",
                children=[grid])])])
    for n in root.iter():
        n.origin = "launcher"
    sd = ScreenDef(
        name="launcher", package=pkg, activity="com.android.launcher3.uioverrides."
        "QuickstepLauncher", xml_path=Path("<generated>"), windows=[root], rules=[],
        filters=[], vars={}, templates=[],
    )
    return sd, AppDef(pkg, "Launcher3", sd.activity, True, "15", 35, "launcher", ["launcher"],
                      [], True)
