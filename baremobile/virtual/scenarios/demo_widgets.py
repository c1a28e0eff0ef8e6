"""The building blocks of the demo's dumps: the device's geometry, the apps' packages, and
the widgets every screen is made of (a node, an activity window, an edit field, the up
button, an alert dialog, a Settings preference row and a stack of them, a bottom panel).

Screens imitate a Pixel running Android 15 at 1080x2400, 420 dpi.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from baremobile.virtual.uixml import Node, element

__all__ = [
    "W", "H", "SB", "NB", "BOTTOM", "IME_TOP", "LAUNCHER", "SETTINGS", "SEARCH", "MESSAGES",
    "FILES", "CHROME", "NOTES", "WEATHER", "Bounds", "Content", "CONTENT_PATH", "load_content",
    "n", "window", "edit", "up_button", "alert", "pref_row", "stack_rows", "settings_page",
    "panel_frame",
]

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
    """One node; ``cls`` without a dot means ``android.widget.<cls>``, ``rid`` without a colon
    ``<pkg>:id/<rid>``."""
    if "." not in cls:
        cls = f"android.widget.{cls}"
    if rid and ":" not in rid:
        rid = f"{pkg}:id/{rid}"
    return element(cls, b, pkg, rid, text, desc, children, hint, **flags)


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

Content = dict[str, Any]
#: the words on the demo's screens
CONTENT_PATH = Path(__file__).with_name("demo") / "content.yaml"


def load_content(path: Path = CONTENT_PATH) -> Content:
    """The demo's content file (rows, lists, contacts, emoji, files ...)."""
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


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


def stack_rows(spec: list[tuple[str, str | None, bool | None]], top: int = 500) -> list[Node]:
    rows, y = [], top
    for title, summary, switch in spec:
        r = pref_row(SETTINGS, y, title, summary, switch)
        rows.append(r)
        y = r.bounds[3]
    return rows


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


def alert(pkg: str, title: str, body: list[Node], buttons: list[tuple[str, str]],
          top: int, height: int) -> Node:
    """An AlertDialog window centred horizontally."""
    x1, x2 = 42, W - 42
    bottom = top + height
    btns: list[Node] = []
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


def panel_frame(rid: str, children: list[Node]) -> Node:
    return n("FrameLayout", (0, IME_TOP, W, BOTTOM), MESSAGES, rid, children=children)
