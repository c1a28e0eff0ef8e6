"""The demo's system apps, laid out: the Pixel launcher (home, all apps) and Settings (home,
sub-pages, the screen-timeout dialog, search)."""

from __future__ import annotations

from baremobile.virtual.uixml import Node

from .demo_widgets import (
    BOTTOM,
    LAUNCHER,
    SB,
    SEARCH,
    SETTINGS,
    Bounds,
    Content,
    H,
    W,
    alert,
    edit,
    n,
    pref_row,
    settings_page,
    stack_rows,
    up_button,
    window,
)

__all__ = [
    "launcher_home", "launcher_all_apps", "settings_home", "settings_network",
    "settings_internet", "settings_display", "settings_generic", "screen_timeout_dialog",
    "settings_search",
]


def icon(label: str, b: Bounds) -> Node:
    return n("TextView", b, LAUNCHER, "icon", label, label, clickable=True, focusable=True,
             long_clickable=True)


def launcher_home(c: Content) -> Node:
    col = [(58, 299), (299, 540), (540, 781), (781, 1022)]
    work = [icon(label, (col[i][0], 1500, col[i][1], 1790))
            for i, label in enumerate(c["launcher"]["workspace"])]
    hot = [icon(label, (col[i][0], 1860, col[i][1], 2080))
           for i, label in enumerate(c["launcher"]["hotseat"])]
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


def launcher_all_apps(c: Content) -> Node:
    col = [(58, 299), (299, 540), (540, 781), (781, 1022)]
    items = []
    for i, label in enumerate(c["launcher"]["all_apps"]):
        r, k = divmod(i, 4)
        y = 420 + r * 328
        items.append(icon(label, (col[k][0], y, col[k][1], y + 328)))
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


def settings_home(c: Content) -> Node:
    rows = []
    y = 640
    for title, summary in c["settings"]["home"]:
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


def settings_network(c: Content) -> Node:
    return settings_page("Network & internet", stack_rows(c["settings"]["network"]))


def settings_internet(c: Content) -> Node:
    main = n("LinearLayout", (42, 500, W - 42, 680), SETTINGS, "main_switch_bar",
             clickable=True, focusable=True, children=[
        n("TextView", (105, 555, 700, 625), SETTINGS, "switch_text", "Wi-Fi"),
        n("Switch", (W - 210, 548, W - 84, 632), SETTINGS, "android:id/switch_widget",
          checkable=True, checked=True),
    ])
    rows = stack_rows(c["settings"]["internet"], top=700)
    page = settings_page("Internet", rows, list_top=700)
    content = page.children[0].children[0].children[0]
    content.children.insert(1, main)
    return page


def settings_display(c: Content) -> Node:
    return settings_page("Display", stack_rows(c["settings"]["display"]))


def settings_generic(c: Content) -> Node:
    return settings_page("{title}", [
        n("TextView", (63, 520, W - 63, 640), SETTINGS, "android:id/summary",
          "Nothing to change here on this virtual phone.")])


def screen_timeout_dialog(c: Content) -> Node:
    options = c["settings"]["screen_timeout"]["options"]
    selected = c["settings"]["screen_timeout"]["selected"]
    top = 560
    items = []
    for i, label in enumerate(options):
        y = top + 168 + i * 147
        items.append(n("CheckedTextView", (42, y, W - 42, y + 147), SETTINGS, "android:id/text1",
                       label, checkable=True, checked=label == selected, clickable=True,
                       focusable=True))
    list_bottom = top + 168 + len(options) * 147
    body = [n("FrameLayout", (42, top + 168, W - 42, list_bottom), SETTINGS,
              "android:id/contentPanel", children=[
        n("ListView", (42, top + 168, W - 42, list_bottom), SETTINGS,
          "android:id/select_dialog_listview", focusable=True, children=items)])]
    return alert(SETTINGS, "Screen timeout", body,
                 [("android:id/button2", "Cancel"), ("android:id/button1", "OK")],
                 top, list_bottom - top + 189)


def settings_search(c: Content) -> Node:
    p = SEARCH
    top = 330
    items = []
    y = top
    for title, crumb in c["settings"]["search"]:
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
