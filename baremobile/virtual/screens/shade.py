"""The notification shade and quick settings, as SystemUI draws them on a Pixel (Android
14–15) when ``cmd statusbar expand-notifications`` / ``expand-settings`` (or ``service call
statusbar 1``, a swipe down from the status bar) opens them.

One window of ``com.android.systemui`` over the whole screen (the navigation bar stays above
it), laid out as real dumps show it (``NotificationShadeWindowView``: the scrims, then
``notification_panel`` → ``notification_container_parent`` holding ``qs_frame`` and the
``notification_stack_scroller``, and the shade header with the clock and the date):

* **notifications** — the header, the first row of tiles (QQS: Internet, Bluetooth,
  Flashlight, Do Not Disturb) and the notification list; the phone posts no notification,
  so the list holds the empty-shade view, ``No notifications``;
* **quick settings** — the brightness slider, a page of eight tiles, the page indicator and
  the footer's edit, settings and power buttons.

No notifications are modelled; the tiles show fixed states.
"""

from __future__ import annotations

from baremobile.virtual.uixml import Node
from baremobile.virtual.uixml import element as node

from .clock import PhoneClock
from .display import Display
from .state import SYSTEMUI

__all__ = ["KINDS", "shade_window"]

#: what ``cmd statusbar`` opens → the shade's kind
KINDS = {"expand-notifications": "notifications", "expand-settings": "settings"}

#: the tiles (label, state, a Switch: it toggles) in a Pixel's default order
_TILES = [("Internet", "AndroidWifi", False), ("Bluetooth", "On", True),
          ("Flashlight", "Off", True), ("Do Not Disturb", "Off", True),
          ("Alarm", "No alarm set", False), ("Airplane mode", "Off", True),
          ("Device controls", "Unavailable", False), ("Auto-rotate", "On", True)]


def _tile(x1: int, y1: int, x2: int, y2: int, label: str, state: str, switch: bool,
          scale: float) -> Node:
    p = SYSTEMUI

    def s(v: float) -> int:
        return round(v * scale)

    icon = (x1 + s(42), y1 + s(78), x1 + s(95), y1 + s(131))
    words = (x1 + s(121), y1 + s(54), x2 - s(42), y1 + s(156))
    mid = (words[1] + words[3]) // 2
    return node("android.widget.Switch" if switch else "android.widget.LinearLayout",
                (x1, y1, x2, y2), p, text=f"{label}, {state}", desc=label,
                clickable=True, focusable=True, long_clickable=True,
                checkable=switch, checked=switch and state == "On", children=[
        node("android.view.ViewGroup", icon, p, children=[
            node("android.widget.ImageView", icon, p, f"{p}:id/icon")]),
        node("android.widget.LinearLayout", words, p, children=[
            node("android.widget.TextView", (words[0], words[1], words[2], mid), p,
                 f"{p}:id/tile_label", label),
            node("android.widget.TextView", (words[0], mid, words[2], words[3]), p,
                 f"{p}:id/app_label", state),
        ]),
    ])


def _header(display: Display, clock: PhoneClock) -> Node:
    """The shade's header: the clock, the date, the status icons and the battery."""
    p, w = SYSTEMUI, display.width

    def r(v: float) -> int:
        return round(v * display.scale)

    return node("android.view.ViewGroup", (0, 0, w, r(315)), p,
                f"{p}:id/split_shade_status_bar", children=[
        node("android.widget.TextView", (r(42), r(27), r(268), r(315)), p, f"{p}:id/clock",
             clock.clock_str(), clock.time_str(), clickable=True, focusable=True),
        node("android.widget.TextView", (r(42), r(252), r(245), r(315)), p, f"{p}:id/date",
             clock.date_str()),
        node("android.widget.LinearLayout", (r(245), r(252), w - r(165), r(315)), p,
             f"{p}:id/statusIcons", children=[
            node("android.widget.FrameLayout", (w - r(266), r(254), w - r(220), r(312)), p,
                 f"{p}:id/wifi_combo", desc="Wifi signal full."),
            node("android.widget.FrameLayout", (w - r(220), r(254), w - r(181), r(312)), p,
                 f"{p}:id/mobile_combo", desc="Phone signal full."),
        ]),
        node("android.widget.LinearLayout", (w - r(165), r(252), w - r(42), r(315)), p,
             f"{p}:id/batteryRemainingIcon", desc="Battery 100 percent.", children=[
            node("android.widget.TextView", (w - r(145), r(252), w - r(42), r(315)), p,
                 f"{p}:id/battery_percentage_view", "100%"),
        ]),
    ])


def shade_window(display: Display, clock: PhoneClock, kind: str) -> Node:
    """The shade's window: ``kind`` is ``notifications`` or ``settings``."""
    p, w, h = SYSTEMUI, display.width, display.height

    def r(v: float) -> int:
        return round(v * display.scale)

    left, right = r(42), w - r(42)
    col = (left + right) // 2
    tiles: list[Node] = []
    if kind == "settings":
        shown = _TILES
        top = r(525)
    else:
        shown = _TILES[:4]
        top = r(350)
    for i, (label, state, switch) in enumerate(shown):
        row, c = divmod(i, 2)
        y1 = top + row * r(231)
        x1, x2 = (left, col - r(11)) if c == 0 else (col + r(11), right)
        tiles.append(_tile(x1, y1, x2, y1 + r(210), label, state, switch, display.scale))
    tiles_bottom = top + ((len(shown) + 1) // 2) * r(231)
    if kind == "settings":
        panel = node("android.widget.ScrollView", (left, 0, right, r(1733)), p,
                     f"{p}:id/expanded_qs_scroll_view", children=[
            node("android.widget.LinearLayout", (left, r(126), right, r(1733)), p,
                 f"{p}:id/quick_settings_panel", children=[
                node("android.widget.FrameLayout", (left, r(357), right, r(483)), p,
                     f"{p}:id/brightness_slider", desc="Display brightness", children=[
                    node("android.widget.SeekBar", (left, r(357), right, r(483)), p,
                         f"{p}:id/slider", "Display brightness", focusable=True)]),
                node("androidx.viewpager.widget.ViewPager", (left, top, right, tiles_bottom),
                     p, f"{p}:id/qs_pager", scrollable=True, focusable=True, children=[
                    node("android.view.ViewGroup", (left, top, right, tiles_bottom), p,
                         f"{p}:id/tile_page", children=tiles)]),
                node("android.widget.FrameLayout", (r(47), tiles_bottom, w - r(47),
                                                    tiles_bottom + r(126)), p,
                     f"{p}:id/qs_footer", children=[
                    node("android.view.ViewGroup", (w // 2 - r(34), tiles_bottom + r(52),
                                                    w // 2 + r(34), tiles_bottom + r(73)), p,
                         f"{p}:id/footer_page_indicator", desc="Page 1 of 2"),
                    node("android.widget.ImageView", (w - r(173), tiles_bottom,
                                                      w - r(47), tiles_bottom + r(126)), p,
                         f"{p}:id/edit", desc="Edit order of settings.", clickable=True,
                         focusable=True)]),
            ]),
        ])
        footer = node("android.widget.LinearLayout", (0, h - r(221), w, h - r(63)), p,
                      f"{p}:id/qs_footer_actions", children=[
            node("android.widget.FrameLayout", (w - r(283), h - r(200), w - r(157),
                                                h - r(74)), p,
                 f"{p}:id/settings_button_container", desc="Open settings.",
                 clickable=True, focusable=True),
            node("android.widget.FrameLayout", (w - r(157), h - r(200), w - r(31),
                                                h - r(74)), p, f"{p}:id/pm_lite",
                 desc="Power menu", clickable=True, focusable=True)])
        qs = [panel, footer]
        stack: list[Node] = []
    else:
        qs = [node("android.view.ViewGroup", (left, top, right, tiles_bottom), p,
                   f"{p}:id/quick_qs_panel", children=tiles)]
        empty_top = tiles_bottom + r(84)
        stack = [node("android.widget.FrameLayout", (0, empty_top, w, empty_top + r(200)), p,
                      f"{p}:id/no_notifications_footer", children=[
                     node("android.widget.TextView", (0, empty_top, w, empty_top + r(200)), p,
                          f"{p}:id/no_notifications", "No notifications")])]
    return node("android.widget.FrameLayout", (0, 0, w, h), p, children=[
        node("android.view.View", (0, 0, w, h), p, f"{p}:id/scrim_behind", clickable=True),
        node("android.view.View", (0, 0, w, h), p, f"{p}:id/scrim_notifications"),
        node("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/notification_panel",
             children=[
            node("android.view.ViewGroup", (0, 0, w, h), p,
                 f"{p}:id/notification_container_parent", children=[
                node("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/qs_frame",
                     children=[
                    node("android.widget.FrameLayout", (0, 0, w, h), p,
                         f"{p}:id/quick_settings_container", children=qs)]),
                node("android.widget.ScrollView", (0, 0, w, display.content_bottom), p,
                     f"{p}:id/notification_stack_scroller", children=stack),
                _header(display, clock),
            ]),
        ]),
    ])
