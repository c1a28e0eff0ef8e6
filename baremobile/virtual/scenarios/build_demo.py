"""Regenerate the built-in demo scenario's dump XML files.

The demo's screens are ordinary ``uiautomator dump`` files in ``demo/``; this script is
where their layout is computed (a long Settings list is 19 rows whose bounds all depend on
each other, which is error-prone to edit by hand). Edit the layout here, run

    python baremobile/virtual/scenarios/build_demo.py

and commit the rewritten XML. ``demo.yaml`` (the rules) is written by hand. A test checks
that the committed XML is exactly what this script produces.

The screens imitate a Pixel running Android 15 at 1080x2400, 420 dpi; every string in
them was written for this demo.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from baremobile.virtual.uixml import Node, serialize

W, H = 1080, 2400
SB = 136  # status bar height
NB = 126  # 3-button navigation bar height
BOTTOM = H - NB
IME_TOP = BOTTOM - round(H * 0.32)  # where the keyboard (and the demo's panels) start

LAUNCHER = "com.google.android.apps.nexuslauncher"
SETTINGS = "com.android.settings"
SEARCH = "com.android.settings.intelligence"
MESSAGES = "com.google.android.apps.messaging"
FILES = "com.android.documentsui"
CHROME = "com.android.chrome"
NOTES = "org.baremobile.notes"
WEATHER = "org.baremobile.weather"

Bounds = tuple[int, int, int, int]


def n(
    cls: str,
    b: Bounds,
    pkg: str,
    rid: str = "",
    text: str = "",
    desc: str = "",
    children: Iterable[Node] = (),
    hint: str | None = None,
    **flags: bool,
) -> Node:
    """One node; ``cls`` without a dot means ``android.widget.<cls>``."""
    if "." not in cls:
        cls = f"android.widget.{cls}"
    if rid and ":" not in rid:
        rid = f"{pkg}:id/{rid}"
    attrs = {"text": text, "resource-id": rid, "class": cls, "package": pkg,
             "content-desc": desc}
    for f in ("checkable", "checked", "clickable", "enabled", "focusable", "focused",
              "scrollable", "long_clickable", "password", "selected"):
        attrs[f.replace("_", "-")] = "true" if flags.get(f, f == "enabled") else "false"
    if hint is not None:
        attrs["hint"] = hint
    return Node(attrs, b, list(children))


def window(pkg: str, content: Iterable[Node], b: Bounds = (0, 0, W, H)) -> Node:
    """An activity window: decor FrameLayout → LinearLayout → content FrameLayout."""
    return n("FrameLayout", b, pkg, children=[
        n("LinearLayout", b, pkg, children=[
            n("FrameLayout", b, pkg, "android:id/content", children=content)])])


def edit(b: Bounds, pkg: str, rid: str, hint: str, text: str = "", focused: bool = False,
         password: bool = False) -> Node:
    return n("EditText", b, pkg, rid, text or hint, hint=hint, clickable=True, focusable=True,
             focused=focused, long_clickable=True, password=password)


def up_button(pkg: str, y: int = SB) -> Node:
    return n("ImageButton", (0, y, 147, y + 147), pkg, desc="Navigate up", clickable=True,
             focusable=True)


# -- launcher ------------------------------------------------------------------------------


def icon(label: str, b: Bounds) -> Node:
    return n("TextView", b, LAUNCHER, "icon", label, label, clickable=True, focusable=True,
             long_clickable=True)


def launcher_home() -> Node:
    col = [(58, 299), (299, 540), (540, 781), (781, 1022)]
    work = [icon(label, (col[i][0], 1500, col[i][1], 1790))
            for i, label in enumerate(("Notes", "Weather", "Files"))]
    hot = [icon(label, (col[i][0], 1860, col[i][1], 2080))
           for i, label in enumerate(("Messages", "Chrome", "Settings"))]
    glance = n("ViewGroup", (58, 260, 1022, 520), LAUNCHER, "search_container_workspace",
               desc="At a glance", children=[
        n("TextView", (95, 300, 700, 400), LAUNCHER, "date", "{date}", "{date}",
          clickable=True, focusable=True),
        n("TextView", (95, 410, 700, 480), LAUNCHER, "subtitle", "Sunny · 21°"),
    ])
    search = n("FrameLayout", (58, 2100, 1022, 2250), LAUNCHER, "search_container_hotseat",
               desc="Google search", clickable=True, focusable=True, children=[
        n("ImageView", (80, 2120, 190, 2230), LAUNCHER, "g_icon", desc="Google app",
          clickable=True, focusable=True),
        n("ImageView", (780, 2120, 890, 2230), LAUNCHER, "mic_icon", desc="Voice search",
          clickable=True, focusable=True),
        n("ImageButton", (890, 2120, 1000, 2230), LAUNCHER, "lens_icon", desc="Google Lens",
          clickable=True, focusable=True),
    ])
    drag = n("FrameLayout", (0, 0, W, H), LAUNCHER, "drag_layer", children=[
        n("View", (0, 0, W, H), LAUNCHER, "scrim_view"),
        n("ScrollView", (0, 0, W, H), LAUNCHER, "workspace", focusable=True, children=[
            n("ViewGroup", (0, 0, W, 1800), LAUNCHER, "cell_layout", children=[glance, *work]),
        ]),
        n("View", (450, 1800, 630, 1830), LAUNCHER, "page_indicator", desc="Page 1 of 1"),
        n("FrameLayout", (0, 1840, W, H), LAUNCHER, "hotseat", children=[
            n("ViewGroup", (0, 1840, W, 2100), LAUNCHER, children=hot), search]),
        n("View", (0, 136, W, 2274), LAUNCHER, desc="Home"),
    ])
    return window(LAUNCHER, [n("FrameLayout", (0, 0, W, H), LAUNCHER, "launcher",
                               children=[drag])])


ALL_APPS = ("Chrome", "Files", "Messages", "Notes", "Settings", "Weather")


def launcher_all_apps() -> Node:
    col = [(58, 299), (299, 540), (540, 781), (781, 1022)]
    items = []
    for i, label in enumerate(ALL_APPS):
        r, c = divmod(i, 4)
        y = 420 + r * 328
        items.append(icon(label, (col[c][0], y, col[c][1], y + 328)))
    return window(LAUNCHER, [
        n("FrameLayout", (0, 0, W, H), LAUNCHER, "launcher", children=[
            n("FrameLayout", (0, 0, W, H), LAUNCHER, "drag_layer", children=[
                n("RelativeLayout", (0, 0, W, H), LAUNCHER, "apps_view", children=[
                    n("RecyclerView", (0, 380, W, BOTTOM), LAUNCHER, "apps_list_view",
                      focusable=True, children=items),
                    n("FrameLayout", (58, 200, 1022, 350), LAUNCHER, "search_container_all_apps",
                      desc="Search", children=[
                        edit((200, 210, 880, 340), LAUNCHER, "input",
                             "Search your phone and more", focused=False),
                    ]),
                ]),
            ]),
        ]),
    ])


# -- Settings ----------------------------------------------------------------------------

HOME_ROWS = [
    ("Network & internet", "Mobile, Wi-Fi, hotspot"),
    ("Connected devices", "Bluetooth, pairing"),
    ("Apps", "Assistant, recent apps, default apps"),
    ("Notifications", "Notification history, conversations"),
    ("Battery", "100%"),
    ("Storage", "34% used - 84.31 GB free"),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb"),
    ("Display", "Dark theme, font size, brightness"),
    ("Wallpaper & style", "Colors, themed icons, app grid"),
    ("Accessibility", "Display, interaction, audio"),
    ("Security & privacy", "App security, device lock, permissions"),
    ("Location", "On - 2 apps have access to location"),
    ("Safety & emergency", "Emergency SOS, medical info, alerts"),
    ("Passwords, passkeys & accounts", "Saved passwords, autofill, synced accounts"),
    ("Digital Wellbeing & parental controls", "Screen time, app timers, bedtime schedules"),
    ("Google", "Services & preferences"),
    ("System", "Languages, gestures, time, backup"),
    ("About phone", "Pixel 8"),
    ("Tips & support", "Help articles, phone & chat"),
]


def pref_row(pkg: str, y: int, title: str, summary: str | None = None,
             switch: bool | None = None, icon_: bool = True, height: int | None = None) -> Node:
    """A Settings preference row; ``switch`` adds a switch widget (checked or not)."""
    h = height or (210 if summary else 158)
    left = 189 if icon_ else 63
    kids: list[Node] = []
    if icon_:
        kids.append(n("LinearLayout", (0, y, 189, y + h), pkg, "com.android.settings:id/icon_frame",
                      children=[n("ImageView", (63, y + h // 2 - 38, 139, y + h // 2 + 38), pkg,
                                  "android:id/icon")]))
    right = W - 210 if switch is not None else W - 63
    text_top = y + (h - (110 if summary else 60)) // 2
    texts = [n("TextView", (left, text_top, right, text_top + 60), pkg, "android:id/title", title)]
    if summary:
        texts.append(n("TextView", (left, text_top + 60, right, text_top + 110), pkg,
                       "android:id/summary", summary))
    kids.append(n("RelativeLayout", (left, text_top, right, text_top + (110 if summary else 60)),
                  pkg, children=texts))
    if switch is not None:
        kids.append(n("LinearLayout", (W - 210, y, W, y + h), pkg, "android:id/widget_frame",
                      children=[n("Switch", (W - 189, y + h // 2 - 42, W - 42, y + h // 2 + 42),
                                  pkg, "android:id/switch_widget", checkable=True,
                                  checked=switch, focusable=False)]))
    return n("LinearLayout", (0, y, W, y + h), pkg, children=kids, clickable=True,
             focusable=True)


def settings_home() -> Node:
    rows = []
    y = 640
    for title, summary in HOME_ROWS:
        rows.append(pref_row(SETTINGS, y, title, summary))
        y += 210
    return window(SETTINGS, [
        n("LinearLayout", (0, 0, W, H), SETTINGS, "settings_homepage_container", children=[
            n("FrameLayout", (0, SB, W, 470), SETTINGS, "homepage_title", children=[
                n("TextView", (63, 300, W - 63, 430), SETTINGS, "homepage_title_text",
                  "Settings")]),
            n("FrameLayout", (42, 470, W - 42, 610), SETTINGS, "search_bar", children=[
                n("LinearLayout", (42, 470, W - 42, 610), SETTINGS, "search_action_bar",
                  clickable=True, focusable=True, children=[
                    n("ImageView", (84, 500, 164, 580), SETTINGS, desc=""),
                    n("TextView", (200, 505, 800, 575), SETTINGS, "search_action_bar_title",
                      "Search Settings"),
                ]),
            ]),
            n("FrameLayout", (0, 630, W, BOTTOM), SETTINGS, "main_content", children=[
                n("RecyclerView", (0, 630, W, BOTTOM), SETTINGS, "recycler_view",
                  focusable=True, scrollable=True, children=rows)]),
        ])])


def settings_page(title: str, rows: list[Node], list_top: int = 500) -> Node:
    """A sub-page: collapsing toolbar with "Navigate up" and a big title, then a list."""
    return window(SETTINGS, [
        n("LinearLayout", (0, 0, W, H), SETTINGS, children=[
            n("FrameLayout", (0, SB, W, list_top), SETTINGS, "app_bar", children=[
                up_button(SETTINGS),
                n("TextView", (63, 320, W - 63, 450), SETTINGS, "collapsing_toolbar_title",
                  title),
            ]),
            n("FrameLayout", (0, list_top, W, BOTTOM), SETTINGS, "main_content", children=[
                n("RecyclerView", (0, list_top, W, BOTTOM), SETTINGS, "recycler_view",
                  focusable=True, scrollable=True, children=rows)]),
        ])])


def stack_rows(spec: list[tuple[str, str | None, bool | None]], top: int = 500) -> list[Node]:
    rows, y = [], top
    for title, summary, switch in spec:
        r = pref_row(SETTINGS, y, title, summary, switch)
        rows.append(r)
        y = r.bounds[3]
    return rows


def settings_network() -> Node:
    return settings_page("Network & internet", stack_rows([
        ("Internet", "AndroidWifi", None),
        ("Calls & SMS", "T-Mobile", None),
        ("SIMs", "T-Mobile", None),
        ("Airplane mode", None, False),
        ("Hotspot & tethering", "Off", None),
        ("Data Saver", "Off", None),
        ("VPN", "None", None),
        ("Private DNS", "Automatic", None),
        ("Adaptive connectivity", "Extends battery life by managing network connections",
         None),
    ]))


def settings_internet() -> Node:
    main = n("LinearLayout", (42, 500, W - 42, 680), SETTINGS, "main_switch_bar",
             clickable=True, focusable=True, children=[
        n("TextView", (105, 555, 700, 625), SETTINGS, "switch_text", "Wi-Fi"),
        n("Switch", (W - 210, 548, W - 84, 632), SETTINGS, "android:id/switch_widget",
          checkable=True, checked=True),
    ])
    rows = stack_rows([
        ("AndroidWifi", "Connected", None),
        ("Add network", None, None),
        ("Saved networks", "1 network", None),
        ("Network preferences", "Wi-Fi turns back on automatically", None),
        ("Non-carrier data usage", "2.1 GB used", None),
    ], top=700)
    page = settings_page("Internet", rows, list_top=700)
    content = page.children[0].children[0].children[0]
    content.children.insert(1, main)
    return page


def settings_display() -> Node:
    return settings_page("Display", stack_rows([
        ("Brightness level", "45%", None),
        ("Adaptive brightness", None, True),
        ("Lock screen", "Show all notification content", None),
        ("Dark theme", None, False),
        ("Screen timeout", "After 30 seconds of inactivity", None),
        ("Auto-rotate screen", None, False),
        ("Display size and text", None, None),
        ("Colors", "Adaptive", None),
        ("Screen saver", "Clock", None),
        ("Tap to wake", None, True),
    ]))


def settings_generic() -> Node:
    return settings_page("{title}", [
        n("TextView", (63, 520, W - 63, 640), SETTINGS, "android:id/summary",
          "Nothing to change here on this virtual phone.")])


def alert(pkg: str, title: str, body: list[Node], buttons: list[tuple[str, str]],
          top: int, height: int) -> Node:
    """An AlertDialog window centred horizontally."""
    x1, x2 = 42, W - 42
    bottom = top + height
    btns = []
    bx = x2 - 42
    for rid, label in reversed(buttons):
        wdt = 60 + 30 * len(label)
        btns.insert(0, n("Button", (bx - wdt, bottom - 168, bx, bottom - 42), pkg, rid, label,
                         clickable=True, focusable=True))
        bx -= wdt + 21
    return n("FrameLayout", (x1, top, x2, bottom), pkg, children=[
        n("FrameLayout", (x1, top, x2, bottom), pkg, "android:id/content", children=[
            n("LinearLayout", (x1, top, x2, bottom), pkg, "android:id/parentPanel", children=[
                n("LinearLayout", (x1, top, x2, top + 168), pkg, "android:id/topPanel",
                  children=[n("TextView", (x1 + 63, top + 63, x2 - 63, top + 147), pkg,
                              "android:id/alertTitle", title)]),
                *body,
                n("ScrollView", (x1, bottom - 189, x2, bottom), pkg, "android:id/buttonPanel",
                  children=[n("LinearLayout", (x1, bottom - 189, x2, bottom), pkg,
                              children=btns)]),
            ])])])


def screen_timeout_dialog() -> Node:
    options = ["15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes",
               "30 minutes"]
    top = 560
    items = []
    for i, label in enumerate(options):
        y = top + 168 + i * 147
        items.append(n("CheckedTextView", (42, y, W - 42, y + 147), SETTINGS, "android:id/text1",
                       label, checkable=True, checked=label == "30 seconds", clickable=True,
                       focusable=True))
    list_bottom = top + 168 + len(options) * 147
    body = [n("FrameLayout", (42, top + 168, W - 42, list_bottom), SETTINGS,
              "android:id/contentPanel", children=[
        n("ListView", (42, top + 168, W - 42, list_bottom), SETTINGS,
          "android:id/select_dialog_listview", focusable=True, children=items)])]
    return alert(SETTINGS, "Screen timeout", body,
                 [("android:id/button2", "Cancel"), ("android:id/button1", "OK")],
                 top, list_bottom - top + 189)


SEARCH_RESULTS = [
    ("Wi-Fi", "Network & internet > Internet"),
    ("Wi-Fi hotspot", "Network & internet > Hotspot & tethering"),
    ("Wi-Fi Direct", "Network & internet > Internet > Network preferences"),
    ("Wi-Fi scanning", "Location > Location services"),
    ("Wi-Fi preferences", "Network & internet > Internet"),
    ("Wi-Fi calling", "Network & internet > Calls & SMS"),
    ("Wi-Fi data usage", "Network & internet > Internet > Non-carrier data usage"),
    ("Airplane mode", "Network & internet"),
    ("Bluetooth", "Connected devices > Connection preferences"),
    ("Mobile network", "Network & internet > SIMs"),
    ("Hotspot & tethering", "Network & internet"),
    ("Data Saver", "Network & internet"),
    ("Private DNS", "Network & internet"),
    ("VPN", "Network & internet"),
    ("Battery", "Battery"),
    ("Battery Saver", "Battery"),
    ("Battery percentage", "Battery"),
    ("Brightness level", "Display"),
    ("Adaptive brightness", "Display"),
    ("Dark theme", "Display"),
    ("Screen timeout", "Display"),
    ("Auto-rotate screen", "Display"),
    ("Font size", "Display > Display size and text"),
    ("Notifications", "Notifications"),
    ("Do Not Disturb", "Sound & vibration"),
    ("Ring volume", "Sound & vibration"),
    ("Storage", "Storage"),
    ("Location", "Location"),
    ("Screen lock", "Security & privacy > Device unlock"),
    ("Languages", "System > Languages"),
    ("Date & time", "System"),
    ("Reset options", "System"),
    ("Developer options", "System"),
    ("About phone", "About phone"),
    ("Android version", "About phone"),
    ("Build number", "About phone > Android version"),
]


def settings_search() -> Node:
    p = SEARCH
    top = 330
    items = []
    y = top
    for title, crumb in SEARCH_RESULTS:
        items.append(n("LinearLayout", (0, y, W, y + 189), p, clickable=True, focusable=True,
                       children=[
            n("ImageView", (63, y + 57, 139, y + 133), p, "android:id/icon"),
            n("LinearLayout", (189, y + 37, W - 63, y + 152), p, children=[
                n("TextView", (189, y + 37, W - 63, y + 97), p, "android:id/title", title),
                n("TextView", (189, y + 97, W - 63, y + 152), p, "breadcrumb", crumb),
            ]),
        ]))
        y += 189
    items.append(n("TextView", (63, y, W - 63, y + 158), p, "no_results", "No results"))
    bar = n("LinearLayout", (0, SB, W, top), p, "search_toolbar", children=[
        up_button(p, SB + 21),
        n("LinearLayout", (168, SB + 21, W - 42, SB + 168), p, "search_bar", children=[
            n("LinearLayout", (168, SB + 21, W - 42, SB + 168), p, "search_plate", children=[
                edit((168, SB + 21, W - 189, SB + 168), p, "search_src_text", "Search settings",
                     focused=True),
                n("ImageView", (W - 189, SB + 21, W - 42, SB + 168), p, "search_close_btn",
                  desc="Clear query", clickable=True, focusable=True),
            ]),
        ]),
    ])
    return window(p, [n("LinearLayout", (0, 0, W, H), p, children=[
        bar,
        n("RecyclerView", (0, top, W, BOTTOM), p, "recycler_view", focusable=True,
          scrollable=True, children=items),
    ])])


# -- Messages ---------------------------------------------------------------------------------

M = MESSAGES

CONVERSATIONS = [
    ("Alex Kim", "See you at 7?", "Mon"),
    ("Mom", "Call me when you land", "Sun"),
    ("Jordan Lee", "Thanks! That works for me.", "Sat"),
    ("Google", "Your verification code is 482913", "Jan 2"),
]


def messages_home() -> Node:
    rows, y = [], 330
    for name, snippet, when in CONVERSATIONS:
        rows.append(n("LinearLayout", (0, y, W, y + 210), M, "swipeableContainer", clickable=True,
                      focusable=True, long_clickable=True, children=[
            n("ImageView", (42, y + 47, 158, y + 163), M, "conversation_icon", desc=name),
            n("LinearLayout", (200, y + 40, W - 200, y + 170), M, children=[
                n("TextView", (200, y + 40, W - 200, y + 105), M, "conversation_name", name),
                n("TextView", (200, y + 105, W - 200, y + 170), M, "conversation_snippet",
                  snippet),
            ]),
            n("TextView", (W - 190, y + 45, W - 42, y + 100), M, "conversation_timestamp", when),
        ]))
        y += 210
    return window(M, [n("FrameLayout", (0, 0, W, H), M, children=[
        n("ViewGroup", (0, SB, W, 330), M, "toolbar", children=[
            n("TextView", (63, 190, 600, 280), M, text="Messages"),
            n("ImageView", (W - 294, 172, W - 168, 298), M, "action_zero_state_search",
              desc="Search", clickable=True, focusable=True),
            n("ImageView", (W - 168, 172, W - 42, 298), M, "selected_account_disc",
              desc="Account and settings", clickable=True, focusable=True),
        ]),
        n("RecyclerView", (0, 330, W, BOTTOM), M, "conversation_list", focusable=True,
          scrollable=True, children=rows),
        n("Button", (W - 440, BOTTOM - 210, W - 42, BOTTOM - 52), M, "start_chat_fab",
          "Start chat", clickable=True, focusable=True),
    ])])


CONTACTS = [
    ("Alex Kim", "(650) 555-0134"),
    ("Jordan Lee", "(415) 555-0199"),
    ("Mom", "(555) 010-4477"),
    ("Sam Rivera", "(212) 555-0148"),
]


def messages_new() -> Node:
    items = []
    y = 500
    items.append(n("LinearLayout", (0, y, W, y + 189), M, "send_to_row", clickable=True,
                   focusable=True, children=[
        n("ImageView", (42, y + 37, 158, y + 153), M, "contact_icon"),
        n("TextView", (200, y + 62, W - 63, y + 127), M, "send_to_text", "Send to {query:phone}"),
    ]))
    y += 189
    for name, number in CONTACTS:
        items.append(n("LinearLayout", (0, y, W, y + 189), M, "contact_row", clickable=True,
                       focusable=True, children=[
            n("ImageView", (42, y + 37, 158, y + 153), M, "contact_icon", desc=name),
            n("LinearLayout", (200, y + 30, W - 63, y + 160), M, children=[
                n("TextView", (200, y + 30, W - 63, y + 95), M, "contact_name", name),
                n("TextView", (200, y + 95, W - 63, y + 160), M, "contact_details", number),
            ]),
        ]))
        y += 189
    return window(M, [n("LinearLayout", (0, 0, W, H), M, children=[
        n("ViewGroup", (0, SB, W, 310), M, "toolbar", children=[
            up_button(M, SB + 13),
            n("TextView", (189, 190, 800, 260), M, text="New conversation"),
        ]),
        n("LinearLayout", (0, 310, W, 480), M, "recipient_row", children=[
            n("TextView", (42, 360, 140, 430), M, text="To"),
            edit((140, 330, W - 42, 460), M, "recipient_text_view",
                 "Type name, phone number, or email", focused=True),
        ]),
        n("RecyclerView", (0, 480, W, BOTTOM), M, "contact_list", focusable=True,
          scrollable=True, children=items),
    ])])


def messages_conversation() -> Node:
    list_top, bar_top = 330, BOTTOM - 189
    template = n("LinearLayout", (0, list_top + 21, W, list_top + 231), M, "message_row",
                 children=[
        n("FrameLayout", (320, list_top + 21, W - 42, list_top + 168), M, "message_content",
          desc="You said {text}", clickable=True, focusable=True, long_clickable=True,
          children=[n("TextView", (362, list_top + 49, W - 84, list_top + 140), M,
                      "message_text", "{text}")]),
        n("TextView", (W - 360, list_top + 168, W - 42, list_top + 224), M, "message_status",
          "{time}"),
    ])
    return window(M, [n("LinearLayout", (0, 0, W, H), M, children=[
        n("ViewGroup", (0, SB, W, list_top), M, "toolbar", children=[
            up_button(M, SB + 21),
            n("TextView", (189, 200, 700, 270), M, "conversation_title", "{recipient}"),
            n("ImageView", (W - 294, SB + 21, W - 168, SB + 147), M, "call_button",
              desc="Call", clickable=True, focusable=True),
            n("ImageView", (W - 168, SB + 21, W - 42, SB + 147), M, "overflow",
              desc="More options", clickable=True, focusable=True),
        ]),
        n("RecyclerView", (0, list_top, W, bar_top), M, "messages_list", focusable=True,
          scrollable=True, children=[template]),
        n("LinearLayout", (0, bar_top, W, BOTTOM), M, "compose_bar", children=[
            n("ImageView", (21, bar_top + 31, 147, bar_top + 157), M, "plus_button",
              desc="Add attachment", clickable=True, focusable=True),
            edit((168, bar_top + 21, W - 273, bar_top + 168), M, "compose_message_text",
                 "Text message", focused=True),
            n("ImageView", (W - 273, bar_top + 31, W - 147, bar_top + 157), M, "emoji_button",
              desc="Emoji", clickable=True, focusable=True),
            n("ImageButton", (W - 147, bar_top + 31, W - 21, bar_top + 157), M,
              "send_message_button_icon", desc="Send SMS", clickable=True, focusable=True),
        ]),
    ])])


EMOJI = [
    ("\U0001f600", "grinning face"),
    ("\U0001f603", "grinning face with big eyes"),
    ("\U0001f604", "grinning face with smiling eyes"),
    ("\U0001f601", "beaming face with smiling eyes"),
    ("\U0001f606", "grinning squinting face"),
    ("\U0001f605", "grinning face with sweat"),
    ("\U0001f923", "rolling on the floor laughing"),
    ("\U0001f602", "face with tears of joy"),
    ("\U0001f642", "slightly smiling face"),
    ("\U0001f609", "winking face"),
    ("\U0001f60a", "smiling face with smiling eyes"),
    ("\U0001f607", "smiling face with halo"),
    ("\U0001f60d", "smiling face with heart-eyes"),
    ("\U0001f618", "face blowing a kiss"),
    ("\U0001f60b", "face savoring food"),
    ("\U0001f61c", "winking face with tongue"),
    ("\U0001f914", "thinking face"),
    ("\U0001f610", "neutral face"),
    ("\U0001f634", "sleeping face"),
    ("\U0001f60e", "smiling face with sunglasses"),
    ("\U0001f622", "crying face"),
    ("\U0001f62e", "face with open mouth"),
    ("\U0001f44d", "thumbs up"),
    ("\u2764\ufe0f", "red heart"),
]


def panel_frame(rid: str, children: list[Node]) -> Node:
    return n("FrameLayout", (0, IME_TOP, W, BOTTOM), M, rid, children=children)


def messages_emoji_panel() -> Node:
    cols, size = 8, 135
    top = IME_TOP + 105
    cells = []
    for i, (ch, name) in enumerate(EMOJI):
        r, c = divmod(i, cols)
        cells.append(n("TextView", (c * size, top + r * size, (c + 1) * size,
                                    top + (r + 1) * size), M, "emoji_view", ch, name,
                       clickable=True, focusable=True, long_clickable=True))
    rows = (len(EMOJI) + cols - 1) // cols
    return panel_frame("emoji_picker", [
        n("TextView", (42, IME_TOP + 21, 700, IME_TOP + 91), M, "category_title",
          "Smileys & emotion"),
        n("GridView", (0, top, W, top + rows * size), M, "emoji_grid", focusable=True,
          children=cells),
    ])


def messages_attach_panel() -> Node:
    opts = [("Gallery", "gallery"), ("Files", "files"), ("Location", "location"),
            ("Contact", "contact")]
    w = W // len(opts)
    cells = []
    for i, (label, rid) in enumerate(opts):
        x = i * w
        cells.append(n("LinearLayout", (x, IME_TOP + 84, x + w, IME_TOP + 378), M,
                       f"attach_{rid}", clickable=True, focusable=True, children=[
            n("ImageView", (x + w // 2 - 70, IME_TOP + 105, x + w // 2 + 70, IME_TOP + 245), M),
            n("TextView", (x + 21, IME_TOP + 266, x + w - 21, IME_TOP + 336), M, text=label),
        ]))
    return panel_frame("attachment_panel", cells)


def attach_dialog() -> Node:
    top = 900
    body = [n("FrameLayout", (42, top + 168, W - 42, top + 400), M, "android:id/contentPanel",
              children=[n("TextView", (105, top + 189, W - 105, top + 379), M,
                          "android:id/message",
                          "This conversation can only send text. Remove the file or "
                          "try another app.")])]
    return alert(M, "Attachments not supported", body, [("android:id/button1", "OK")], top, 589)


# -- Files (DocumentsUI) ----------------------------------------------------------------------

F = FILES
DOWNLOADS = [
    ("test-attach.txt", "24 B", "Jan 5"),
    ("boarding-pass.pdf", "182 kB", "Jan 3"),
    ("holiday-photo.jpg", "2.4 MB", "Dec 28"),
    ("recipes.txt", "3 kB", "Dec 12"),
]


def files_window(title: str, body: list[Node]) -> Node:
    return window(F, [n("ViewGroup", (0, 0, W, H), F, "coordinator_layout", children=[
        n("androidx.drawerlayout.widget.DrawerLayout", (0, SB, W, BOTTOM), F, "drawer_layout",
          children=[n("LinearLayout", (0, SB, W, BOTTOM), F, children=[
            n("ViewGroup", (0, SB, W, 315), F, "toolbar", children=[
                n("ImageButton", (0, SB, 168, 315), F, desc="Show roots", clickable=True,
                  focusable=True),
                n("TextView", (210, 185, 700, 265), F, text=title),
                n("Button", (W - 336, SB + 11, W - 168, 304), F, "option_menu_search",
                  desc="Search", clickable=True, focusable=True),
                n("ImageView", (W - 168, SB + 11, W, 304), F, desc="More options",
                  clickable=True, focusable=True, long_clickable=True),
            ]),
            n("FrameLayout", (0, 315, W, BOTTOM), F, "container_directory", children=body),
          ])])])])


def files_recent() -> Node:
    return files_window("Recent", [
        n("RecyclerView", (0, 315, W, BOTTOM), F, "dir_list", focusable=True, children=[
            n("FrameLayout", (0, 315, W, BOTTOM), F, "android:id/empty", children=[
                n("TextView", (340, 1150, 740, 1220), F, "message", "No items")])])])


def files_downloads() -> Node:
    items, y = [], 336
    for name, size, date in DOWNLOADS:
        items.append(n("LinearLayout", (0, y, W, y + 189), F, "item_root", clickable=True,
                       focusable=True, long_clickable=True, children=[
            n("ImageView", (63, y + 47, 158, y + 142), F, "icon_mime"),
            n("LinearLayout", (200, y + 30, W - 63, y + 160), F, children=[
                n("TextView", (200, y + 30, W - 63, y + 95), F, "android:id/title", name),
                n("TextView", (200, y + 95, 500, y + 160), F, "details", size),
                n("TextView", (520, y + 95, 800, y + 160), F, "date", date),
            ]),
        ]))
        y += 189
    return files_window("Downloads", [
        n("RecyclerView", (0, 315, W, BOTTOM), F, "dir_list", focusable=True, scrollable=False,
          children=items)])


def files_drawer() -> Node:
    roots = ["Recent", "Images", "Videos", "Audio", "Documents", "Downloads"]
    rows, y = [], 400
    for label in roots:
        rows.append(n("LinearLayout", (0, y, 830, y + 168), F, "item", clickable=True,
                      focusable=True, selected=label == "Recent", children=[
            n("ImageView", (42, y + 42, 126, y + 126), F, "android:id/icon"),
            n("TextView", (189, y + 49, 790, y + 119), F, "android:id/title", label),
        ]))
        y += 168
    return window(F, [n("ViewGroup", (0, 0, W, H), F, "coordinator_layout", children=[
        n("androidx.drawerlayout.widget.DrawerLayout", (0, SB, W, BOTTOM), F, "drawer_layout",
          children=[n("LinearLayout", (0, SB, 830, BOTTOM), F, "drawer_roots", children=[
            n("TextView", (63, 200, 790, 300), F, "drawer_app_title", "Files"),
            n("RecyclerView", (0, 400, 830, BOTTOM), F, "roots_list", focusable=True,
              children=rows),
          ])])])])


# -- Chrome -----------------------------------------------------------------------------------

C = CHROME


def chrome_toolbar(url_text: str, hint: str) -> Node:
    return n("FrameLayout", (0, SB, W, 304), C, "toolbar_container", children=[
        n("ImageButton", (0, SB + 11, 147, 293), C, "home_button", desc="Open the home page",
          clickable=True, focusable=True),
        n("FrameLayout", (147, SB + 21, W - 294, 283), C, "location_bar", children=[
            edit((189, SB + 21, W - 294, 283), C, "url_bar", hint, url_text)]),
        n("ImageButton", (W - 294, SB + 11, W - 147, 293), C, "tab_switcher_button",
          desc="Switch or close tabs", clickable=True, focusable=True, long_clickable=True),
        n("ImageButton", (W - 147, SB + 11, W, 293), C, "menu_button",
          desc="Customize and control Google Chrome", clickable=True, focusable=True),
    ])


def chrome_ntp() -> Node:
    return window(C, [n("LinearLayout", (0, 0, W, H), C, children=[
        chrome_toolbar("", "Search or type URL"),
        n("FrameLayout", (0, 304, W, BOTTOM), C, "ntp_content", children=[
            n("ImageView", (290, 600, 790, 780), C, "search_provider_logo", desc="Google"),
            n("TextView", (84, 860, W - 84, 1000), C, "search_box_text", "Search or type URL",
              clickable=True, focusable=True),
        ]),
    ])])


def chrome_page() -> Node:
    return window(C, [n("LinearLayout", (0, 0, W, H), C, children=[
        chrome_toolbar("{url}", "Search or type URL"),
        n("FrameLayout", (0, 304, W, BOTTOM), C, "compositor_view_holder", children=[
            n("android.webkit.WebView", (0, 304, W, BOTTOM), C, text="{host}", focusable=True,
              children=[n("android.view.View", (0, 304, W, BOTTOM), C, children=[
                n("TextView", (63, 420, W - 63, 540), C, text="{host}"),
                n("TextView", (63, 580, W - 63, 820), C,
                  text="You opened {url} on the virtual phone. Pages are not fetched; this "
                  "placeholder shows the address that was requested."),
              ])]),
        ]),
    ])])


# -- third-party apps ------------------------------------------------------------------------


def notes_login() -> Node:
    p = NOTES
    return window(p, [n("LinearLayout", (0, 0, W, H), p, children=[
        n("TextView", (63, 400, W - 63, 520), p, "title", "Sign in to Notes"),
        edit((63, 640, W - 63, 800), p, "email", "Email"),
        edit((63, 840, W - 63, 1000), p, "password", "Password", password=True),
        n("Button", (63, 1080, W - 63, 1230), p, "sign_in", "Sign in", clickable=True,
          focusable=True),
    ])])


def notes_list() -> Node:
    p = NOTES
    template = n("LinearLayout", (42, 520, W - 42, 730), p, "note_row", clickable=True,
                 focusable=True, long_clickable=True, children=[
        n("TextView", (84, 550, W - 84, 620), p, "note_text", "{text}"),
        n("TextView", (84, 630, W - 84, 690), p, "note_time", "Edited {time}"),
    ])
    return window(p, [n("LinearLayout", (0, 0, W, H), p, children=[
        n("TextView", (63, 180, W - 63, 290), p, "toolbar_title", "Notes"),
        n("LinearLayout", (0, 320, W, 480), p, "composer", children=[
            edit((42, 330, W - 300, 470), p, "note_input", "Take a note…"),
            n("Button", (W - 280, 340, W - 42, 460), p, "add_note", "Add", clickable=True,
              focusable=True),
        ]),
        n("RecyclerView", (0, 500, W, BOTTOM), p, "notes", focusable=True, scrollable=True,
          children=[template]),
    ])])


HOURS = ["Now", "1 PM", "2 PM", "3 PM", "4 PM", "5 PM", "6 PM", "7 PM", "8 PM", "9 PM",
         "10 PM", "11 PM"]


def weather_home() -> Node:
    p = WEATHER
    cells = []
    for i, h in enumerate(HOURS):
        x = 42 + i * 200
        cells.append(n("LinearLayout", (x, 1100, x + 180, 1400), p, "hour", children=[
            n("TextView", (x, 1120, x + 180, 1190), p, "hour_time", h),
            n("TextView", (x, 1300, x + 180, 1370), p, "hour_temp", f"{21 - i // 3}°"),
        ]))
    return window(p, [n("LinearLayout", (0, 0, W, H), p, children=[
        n("TextView", (63, 250, W - 63, 350), p, "city", "Springfield"),
        n("TextView", (63, 380, W - 63, 700), p, "temperature", "21°"),
        n("TextView", (63, 720, W - 63, 800), p, "condition", "Partly cloudy"),
        n("TextView", (63, 1000, W - 63, 1070), p, text="Hourly forecast"),
        n("HorizontalScrollView", (0, 1100, W, 1400), p, "hourly", focusable=True,
          scrollable=True, children=[n("LinearLayout", (42, 1100, 42 + 200 * len(HOURS),
                                                        1400), p, children=cells)]),
        n("Button", (63, 1500, W - 63, 1650), p, "refresh", "Refresh", clickable=True,
          focusable=True),
    ])])


# -- output ------------------------------------------------------------------------------------

SCREENS: dict[str, Callable[[], Node]] = {
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
}


def build() -> dict[str, bytes]:
    """Every demo dump, by path relative to ``demo/``."""
    return {path: serialize([make()]) for path, make in SCREENS.items()}


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
