"""The demo's other apps, laid out: Messages, Files (DocumentsUI), Chrome, and the two
third-party apps (Notes, Weather)."""

from __future__ import annotations

from baremobile.virtual.uixml import Node

from .demo_widgets import (
    BOTTOM,
    CHROME,
    FILES,
    IME_TOP,
    MESSAGES,
    NOTES,
    SB,
    WEATHER,
    Content,
    H,
    W,
    alert,
    edit,
    n,
    panel_frame,
    up_button,
    window,
)

__all__ = [
    "messages_home", "messages_new", "messages_conversation", "messages_emoji_panel",
    "messages_attach_panel", "attach_dialog", "files_recent", "files_drawer", "files_downloads",
    "chrome_ntp", "chrome_page", "notes_login", "notes_list", "weather_home", "weather_radar",
]

# -- Messages ---------------------------------------------------------------------------------

M = MESSAGES

def messages_home(c: Content) -> Node:
    rows, y = [], 330
    for name, snippet, when in c["messages"]["conversations"]:
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


def messages_new(c: Content) -> Node:
    items = []
    y = 500
    items.append(n("LinearLayout", (0, y, W, y + 189), M, "send_to_row", clickable=True,
                   focusable=True, children=[
        n("ImageView", (42, y + 37, 158, y + 153), M, "contact_icon"),
        n("TextView", (200, y + 62, W - 63, y + 127), M, "send_to_text", "Send to {query:phone}"),
    ]))
    y += 189
    for name, number in c["messages"]["contacts"]:
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


def messages_conversation(c: Content) -> Node:
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


def messages_emoji_panel(c: Content) -> Node:
    emoji = c["messages"]["emoji"]
    cols, size = 8, 135
    top = IME_TOP + 105
    cells = []
    for i, (ch, name) in enumerate(emoji):
        r, k = divmod(i, cols)
        cells.append(n("TextView", (k * size, top + r * size, (k + 1) * size,
                                    top + (r + 1) * size), M, "emoji_view", ch, name,
                       clickable=True, focusable=True, long_clickable=True))
    rows = (len(emoji) + cols - 1) // cols
    return panel_frame("emoji_picker", [
        n("TextView", (42, IME_TOP + 21, 700, IME_TOP + 91), M, "category_title",
          "Smileys & emotion"),
        n("GridView", (0, top, W, top + rows * size), M, "emoji_grid", focusable=True,
          children=cells),
    ])


def messages_attach_panel(c: Content) -> Node:
    opts = c["messages"]["attach"]
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


def attach_dialog(c: Content) -> Node:
    top = 900
    body = [n("FrameLayout", (42, top + 168, W - 42, top + 400), M, "android:id/contentPanel",
              children=[n("TextView", (105, top + 189, W - 105, top + 379), M,
                          "android:id/message",
                          "This conversation can only send text. Remove the file or "
                          "try another app.")])]
    return alert(M, "Attachments not supported", body, [("android:id/button1", "OK")], top, 589)


# -- Files (DocumentsUI) ----------------------------------------------------------------------

F = FILES
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


def files_recent(c: Content) -> Node:
    return files_window("Recent", [
        n("RecyclerView", (0, 315, W, BOTTOM), F, "dir_list", focusable=True, children=[
            n("FrameLayout", (0, 315, W, BOTTOM), F, "android:id/empty", children=[
                n("TextView", (340, 1150, 740, 1220), F, "message", "No items")])])])


def files_downloads(c: Content) -> Node:
    items, y = [], 336
    for name, size, date in c["files"]["downloads"]:
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


def files_drawer(c: Content) -> Node:
    roots = c["files"]["roots"]
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


def chrome_ntp(c: Content) -> Node:
    return window(C, [n("LinearLayout", (0, 0, W, H), C, children=[
        chrome_toolbar("", "Search or type URL"),
        n("FrameLayout", (0, 304, W, BOTTOM), C, "ntp_content", children=[
            n("ImageView", (290, 600, 790, 780), C, "search_provider_logo", desc="Google"),
            n("TextView", (84, 860, W - 84, 1000), C, "search_box_text", "Search or type URL",
              clickable=True, focusable=True),
        ]),
    ])])


def chrome_page(c: Content) -> Node:
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


def notes_login(c: Content) -> Node:
    p = NOTES
    return window(p, [n("LinearLayout", (0, 0, W, H), p, children=[
        n("TextView", (63, 400, W - 63, 520), p, "title", "Sign in to Notes"),
        edit((63, 640, W - 63, 800), p, "email", "Email"),
        edit((63, 840, W - 63, 1000), p, "password", "Password", password=True),
        n("Button", (63, 1080, W - 63, 1230), p, "sign_in", "Sign in", clickable=True,
          focusable=True),
        # disabled: the app makes accounts on its website only (a tap does nothing)
        n("Button", (63, 1270, W - 63, 1420), p, "create_account", "Create account",
          clickable=True, focusable=True, enabled=False),
    ])])


def notes_list(c: Content) -> Node:
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


def weather_home(c: Content) -> Node:
    hours = c["weather"]["hours"]
    p = WEATHER
    cells = []
    for i, h in enumerate(hours):
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
          scrollable=True, children=[n("LinearLayout", (42, 1100, 42 + 200 * len(hours),
                                                        1400), p, children=cells)]),
        n("Button", (63, 1500, 531, 1650), p, "refresh", "Refresh", clickable=True,
          focusable=True),
        # the app's in-app browser (a WebView: demo.yaml's weather_radar)
        n("Button", (549, 1500, W - 63, 1650), p, "radar", "Live radar", clickable=True,
          focusable=True),
        # a map that zooms: pinch it, or double-tap it (demo.yaml's rules)
        n("ImageView", (63, 1700, W - 63, BOTTOM - 42), p, "radar_map",
          desc="Radar map, zoom {zoom}", clickable=True, focusable=True),
    ])])


def weather_radar(c: Content) -> Node:
    """The app's in-app browser: a toolbar and a WebView (the page it shows is real when the
    phone has a browser engine)."""
    p = WEATHER
    return window(p, [n("LinearLayout", (0, 0, W, H), p, children=[
        n("FrameLayout", (0, SB, W, SB + 147), p, "toolbar", children=[
            up_button(p),
            n("TextView", (189, SB + 30, W - 63, SB + 117), p, "toolbar_title", "Radar"),
        ]),
        n("FrameLayout", (0, SB + 147, W, BOTTOM), p, "web_container", children=[
            n("android.webkit.WebView", (0, SB + 147, W, BOTTOM), p, "webview", "{host}",
              focusable=True, children=[
                n("TextView", (63, SB + 240, W - 63, SB + 400), p, text="{url}")]),
        ]),
    ])])
