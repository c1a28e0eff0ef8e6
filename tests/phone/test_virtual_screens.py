"""The demo scenario, driven like an agent would: read the dump, tap a node's centre.

Every flow of the blueprint's "Verified Flows" table is replayed against
:class:`ScreenModel` directly; coordinates always come from the current ``dump_xml()``.
"""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
import zlib

import pytest

from baremobile.virtual.screens import AppInfo, ScreenModel

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)

LAUNCHER = "com.google.android.apps.nexuslauncher"
SETTINGS = "com.android.settings"
MESSAGES = "com.google.android.apps.messaging"
IME = "com.google.android.inputmethod.latin"
STANDARD = [
    "index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
    "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
    "selected", "bounds",
]


class Clock:
    """A settable clock: 2025-01-05 10:42:00 UTC."""

    def __init__(self, t: float = 1736073720.0) -> None:
        self.t = t

    def time(self) -> float:
        return self.t


def bounds(el: ET.Element) -> tuple[int, int, int, int]:
    m = re.fullmatch(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]", el.get("bounds", ""))
    assert m, el.attrib
    x1, y1, x2, y2 = map(int, m.groups())
    return x1, y1, x2, y2


def center(el: ET.Element) -> tuple[int, int]:
    x1, y1, x2, y2 = bounds(el)
    return (x1 + x2) // 2, (y1 + y2) // 2


class Phone:
    """Test driver: finds nodes in the current dump and taps their centres."""

    def __init__(self, model: ScreenModel | None = None) -> None:
        self.clock = Clock()
        self.m = model or ScreenModel.from_scenario(clock=self.clock)

    def root(self) -> ET.Element:
        return ET.fromstring(self.m.dump_xml())

    def windows(self) -> list[ET.Element]:
        return list(self.root())

    def nodes(self) -> list[ET.Element]:
        return list(self.root().iter("node"))

    def texts(self) -> list[str]:
        return [n.get("text", "") for n in self.nodes() if n.get("text")]

    def descs(self) -> list[str]:
        return [n.get("content-desc", "") for n in self.nodes() if n.get("content-desc")]

    def all(self, text: str | None = None, id: str | None = None, desc: str | None = None,
            cls: str | None = None) -> list[ET.Element]:
        out = []
        for n in self.nodes():
            if text is not None and n.get("text") != text:
                continue
            if desc is not None and n.get("content-desc") != desc:
                continue
            if id is not None and not n.get("resource-id", "").endswith(id):
                continue
            if cls is not None and not n.get("class", "").endswith(cls):
                continue
            out.append(n)
        return out

    def find(self, text: str | None = None, id: str | None = None, desc: str | None = None,
             cls: str | None = None) -> ET.Element:
        found = self.all(text, id, desc, cls)
        assert found, (f"no node text={text!r} id={id!r} desc={desc!r}; "
                       f"{self.m.describe()}; texts={self.texts()} descs={self.descs()}")
        return found[0]

    def has(self, text: str | None = None, id: str | None = None, desc: str | None = None
            ) -> bool:
        return bool(self.all(text, id, desc))

    def tap(self, text: str | None = None, id: str | None = None, desc: str | None = None,
            cls: str | None = None) -> None:
        self.m.tap(*center(self.find(text, id, desc, cls)))

    def packages(self) -> list[str]:
        return [w.get("package", "") for w in self.windows()]

    def field(self, id: str) -> ET.Element:
        return self.find(id=id, cls="EditText")


@pytest.fixture
def phone() -> Phone:
    return Phone()


def row_of(phone: Phone, text: str) -> ET.Element | None:
    """The clickable ancestor (or self) of the node showing ``text``."""
    root = phone.root()
    parents = {c: p for p in root.iter() for c in p}
    n: ET.Element | None = next((x for x in root.iter("node") if x.get("text") == text), None)
    assert n is not None, text
    while n is not None:
        if n.get("clickable") == "true":
            return n
        n = parents.get(n)
    return None


# -- open an app and read it ----------------------------------------------------------------


def test_boots_to_the_launcher_with_status_and_nav_bars(phone: Phone) -> None:
    assert phone.m.current() == (LAUNCHER, f"{LAUNCHER}.NexusLauncherActivity")
    assert phone.packages() == ["com.android.systemui", LAUNCHER, "com.android.systemui"]
    assert phone.find(id="clock").get("text") == "10:42"
    assert phone.find(id="clock").get("content-desc") == "10:42\u202fAM"
    assert phone.has(desc="Back") and phone.has(desc="Home") and phone.has(desc="Overview")


def test_open_settings_and_read_it(phone: Phone) -> None:
    assert phone.m.launch(SETTINGS)
    assert phone.m.current()[0] == SETTINGS
    texts = phone.texts()
    for label in ("Settings", "Network & internet", "Connected devices", "Apps"):
        assert label in texts
    for label in ("Network & internet", "Connected devices", "Apps", "Notifications"):
        row = row_of(phone, label)
        assert row is not None and row.get("class") == "android.widget.LinearLayout"
    # rows far down the list are not in the dump until scrolled to
    assert "About phone" not in texts and "System" not in texts


def test_unknown_package_does_not_launch(phone: Phone) -> None:
    assert phone.m.launch("com.example.nope") is False
    assert phone.m.launch(SETTINGS, ".NoSuchActivity") is False
    assert phone.m.current()[0] == LAUNCHER


def test_launch_by_activity_and_monkey_style(phone: Phone) -> None:
    assert phone.m.launch(SETTINGS, ".Settings")
    assert phone.m.current() == (SETTINGS, f"{SETTINGS}.homepage.SettingsHomepageActivity")
    assert phone.m.launch(SETTINGS, f"{SETTINGS}.SubSettings")  # a named inner activity
    assert phone.m.current() == (SETTINGS, f"{SETTINGS}.SubSettings")


# -- search by typing ------------------------------------------------------------------------


def test_search_settings_by_typing(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Search Settings")
    assert phone.m.current() == ("com.android.settings.intelligence",
                                 "com.android.settings.intelligence.search.SearchActivity")
    box = phone.field("search_src_text")
    assert box.get("focused") == "true"
    assert box.get("text") == "Search settings" and box.get("hint") == "Search settings"
    assert IME in phone.packages()
    assert not phone.has(text="Wi-Fi")  # nothing listed before typing
    phone.tap(id="search_src_text")
    phone.m.type_text("wifi")
    assert phone.field("search_src_text").get("text") == "wifi"
    texts = phone.texts()
    for r in ("Wi-Fi", "Wi-Fi hotspot", "Wi-Fi Direct", "Wi-Fi scanning"):
        assert r in texts
    assert "Bluetooth" not in texts and "Battery" not in texts
    # every result is clickable and above the keyboard
    ime = next(w for w in phone.windows() if w.get("package") == IME)
    for n in phone.all(id="android:id/title"):
        assert center(n)[1] < bounds(ime)[1]


@pytest.mark.parametrize("query", ["WIFI", "Wi-Fi", "wi fi", "w-i-f-i"])
def test_search_is_case_and_punctuation_insensitive(phone: Phone, query: str) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Search Settings")
    phone.m.type_text(query)
    assert phone.has(text="Wi-Fi") and phone.has(text="Wi-Fi hotspot")
    assert not phone.has(text="Bluetooth")


def test_search_keywords_and_no_results(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Search Settings")
    phone.m.type_text("wlan")
    assert phone.has(text="Wi-Fi")
    phone.m.key_combination([113, 29])  # select all
    phone.m.type_text("zzzz")
    assert phone.field("search_src_text").get("text") == "zzzz"
    assert phone.has(text="No results") and not phone.has(text="Wi-Fi")
    phone.tap(desc="Clear query")
    assert phone.field("search_src_text").get("text") == "Search settings"
    assert not phone.has(text="No results")


def test_search_result_opens_its_page(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Search Settings")
    phone.m.type_text("wifi")
    phone.tap(text="Wi-Fi")
    assert phone.has(text="Internet") and phone.has(text="AndroidWifi")
    assert IME not in phone.packages()


# -- back -------------------------------------------------------------------------------------


def test_back_hides_keyboard_then_returns(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Search Settings")
    phone.m.type_text("wifi")
    phone.m.key(4)
    assert IME not in phone.packages()
    assert phone.field("search_src_text").get("text") == "wifi"
    phone.m.key(4)
    assert phone.m.current()[0] == SETTINGS and phone.has(text="Network & internet")
    phone.m.key(4)  # first screen of the app: back to the launcher
    assert phone.m.current()[0] == LAUNCHER


def test_back_from_first_screen_keeps_the_task(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Network & internet")
    phone.m.key(3)
    assert phone.m.current()[0] == LAUNCHER
    phone.m.launch(SETTINGS)  # resumes where it was
    assert phone.has(text="Airplane mode")
    phone.tap(desc="Navigate up")
    phone.m.key(4)
    assert phone.m.current()[0] == LAUNCHER
    assert [p for p, _ in phone.m.tasks()] == [SETTINGS]


def test_nav_bar_buttons_work(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Display")
    phone.tap(desc="Back")
    assert phone.has(text="Network & internet")
    phone.tap(desc="Home")
    assert phone.m.current()[0] == LAUNCHER
    phone.tap(desc="Overview")
    assert phone.has(desc="Settings", id="") or phone.all(desc="Settings")


# -- scroll -----------------------------------------------------------------------------------


def test_scroll_long_settings_list(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    lst = phone.find(id="recycler_view")
    x1, y1, x2, y2 = bounds(lst)
    before = set(phone.texts())
    assert "Network & internet" in before and "Wallpaper & style" not in before
    cx = (x1 + x2) // 2
    h = y2 - y1
    phone.m.swipe(cx, (y1 + y2) // 2, cx, (y1 + y2) // 2 - h // 3, 300)  # like Page.scroll
    after = set(phone.texts())
    assert "Network & internet" not in after and "Connected devices" not in after
    assert "Notifications" in after and "Wallpaper & style" in after
    # nodes are clipped to the list's viewport, never outside it
    for n in phone.find(id="recycler_view").iter("node"):
        b = bounds(n)
        assert y1 <= b[1] and b[3] <= y2 and b[1] < b[3], n.attrib
    for _ in range(8):
        phone.m.swipe(cx, (y1 + y2) // 2, cx, (y1 + y2) // 2 - h // 3, 300)
    end = set(phone.texts())
    assert {"System", "About phone", "Tips & support"} <= end
    # clamped at the end: one more swipe changes nothing
    dump = phone.m.dump_xml()
    phone.m.swipe(cx, y2 - h // 6, cx, y1 + h // 6, 300)
    assert phone.m.dump_xml() == dump
    # and all the way back up
    for _ in range(10):
        phone.m.swipe(cx, y1 + h // 6, cx, y2 - h // 6, 300)
    assert "Network & internet" in phone.texts()


def test_scrolled_rows_are_clipped_and_tappable(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    lst = phone.find(id="recycler_view")
    x1, y1, x2, y2 = bounds(lst)
    phone.m.swipe(540, y1 + 400, 540, y1 + 300, 300)  # 100 px: the first row is cut
    row = row_of(phone, "Network & internet")
    assert row is not None and bounds(row)[1] == y1 == 630 and bounds(row)[3] == 750
    phone.tap(text="Display")
    assert phone.has(text="Screen timeout")


def test_horizontal_scroll(phone: Phone) -> None:
    phone.m.launch("org.baremobile.weather")
    assert phone.has(text="Now") and not phone.has(text="11 PM")
    hs = phone.find(id="hourly")
    x1, y1, x2, y2 = bounds(hs)
    cy = (y1 + y2) // 2
    phone.m.swipe(x2 - 100, cy, x1 + 100, cy, 300)
    phone.m.swipe(x2 - 100, cy, x1 + 100, cy, 300)
    assert phone.has(text="11 PM") and not phone.has(text="Now")


# -- toggles -----------------------------------------------------------------------------------


def test_airplane_mode_toggles(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Network & internet")

    def switch() -> ET.Element:
        row = row_of(phone, "Airplane mode")
        assert row is not None
        return next(n for n in row.iter("node") if n.get("checkable") == "true")

    assert switch().get("checked") == "false"
    phone.tap(text="Airplane mode")
    assert switch().get("checked") == "true"
    phone.m.tap(*center(switch()))  # the switch itself is inside the row
    assert switch().get("checked") == "false"


def test_wifi_switch_toggles(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Network & internet")
    phone.tap(text="Internet")
    sw = phone.find(id="switch_widget")
    assert sw.get("checked") == "true"
    phone.tap(text="Wi-Fi")
    assert phone.find(id="switch_widget").get("checked") == "false"


# -- dialogs ----------------------------------------------------------------------------------


def open_timeout_dialog(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Display")
    phone.tap(text="Screen timeout")


@pytest.mark.parametrize("how", ["OK", "Cancel", "back", "outside"])
def test_dialog_appears_and_is_dismissed(phone: Phone, how: str) -> None:
    open_timeout_dialog(phone)
    wins = phone.windows()
    assert [w.get("package") for w in wins] == ["com.android.systemui", SETTINGS, SETTINGS,
                                                "com.android.systemui"]
    dialog = wins[2]
    assert bounds(dialog)[3] - bounds(dialog)[1] < 2400
    assert phone.find(id="alertTitle").get("text") == "Screen timeout"
    assert phone.has(text="OK") and phone.has(text="Cancel")
    if how == "back":
        phone.m.key(4)
    elif how == "outside":
        phone.m.tap(540, 300)
    else:
        phone.tap(text=how)
    assert not phone.has(id="alertTitle")
    assert phone.has(text="Screen timeout") and phone.m.current()[0] == SETTINGS


def test_dialog_radio_buttons(phone: Phone) -> None:
    open_timeout_dialog(phone)
    assert phone.find(text="30 seconds").get("checked") == "true"
    phone.tap(text="1 minute")
    assert phone.find(text="1 minute").get("checked") == "true"
    assert phone.find(text="30 seconds").get("checked") == "false"
    # the screen under a dialog does not take taps
    assert phone.has(text="Brightness level")


# -- Messages ---------------------------------------------------------------------------------


def start_chat(phone: Phone, number: str = "5551234567") -> None:
    assert phone.m.launch(MESSAGES)
    phone.tap(text="Start chat")
    assert phone.field("recipient_text_view").get("focused") == "true"
    assert IME in phone.packages()
    phone.m.type_text(number)


def test_send_a_text_message(phone: Phone) -> None:
    start_chat(phone)
    assert phone.field("recipient_text_view").get("text") == "5551234567"
    phone.tap(text="Send to 555-123-4567")
    assert phone.find(id="conversation_title").get("text") == "555-123-4567"
    compose = phone.field("compose_message_text")
    assert compose.get("focused") == "true" and compose.get("text") == "Text message"
    phone.tap(id="compose_message_text")
    for i, word in enumerate(["Hello", "from", "baremobile!"]):  # word by word, like Page.type
        if i:
            phone.m.key(62)
        phone.m.type_text(word)
    assert phone.field("compose_message_text").get("text") == "Hello from baremobile!"
    send = phone.find(desc="Send SMS")
    ime = next(w for w in phone.windows() if w.get("package") == IME)
    assert center(send)[1] < bounds(ime)[1]  # the compose bar sits above the keyboard
    phone.tap(desc="Send SMS")
    bubble = phone.find(desc="You said Hello from baremobile!")
    assert bubble.get("clickable") == "true"
    assert phone.find(id="message_text").get("text") == "Hello from baremobile!"
    assert phone.find(id="message_status").get("text") == "10:42\u202fAM"
    assert phone.field("compose_message_text").get("text") == "Text message"
    # a second message goes below the first
    phone.m.type_text("Second")
    phone.clock.t += 120
    phone.tap(desc="Send SMS")
    first, second = phone.all(id="message_row")
    assert bounds(second)[1] > bounds(first)[3] - 1
    assert phone.all(id="message_status")[1].get("text") == "10:44\u202fAM"
    # back goes to the conversation list (the new-conversation screen was replaced)
    phone.m.key(4)
    phone.m.key(4)
    assert phone.has(text="Start chat")


def test_empty_message_is_not_sent(phone: Phone) -> None:
    start_chat(phone)
    phone.tap(text="Send to 555-123-4567")
    phone.tap(desc="Send SMS")
    assert not phone.has(id="message_row")


def test_contact_suggestions_filter(phone: Phone) -> None:
    start_chat(phone, "jor")
    assert phone.has(text="Jordan Lee") and not phone.has(text="Alex Kim")
    phone.tap(text="Jordan Lee")
    assert phone.find(id="conversation_title").get("text") == "Jordan Lee"


def test_insert_emoji(phone: Phone) -> None:
    start_chat(phone)
    phone.tap(text="Send to 555-123-4567")
    phone.tap(desc="Emoji")
    assert IME not in phone.packages()
    grin = phone.find(desc="grinning face")
    assert grin.get("clickable") == "true"
    assert len(phone.all(id="emoji_view")) >= 20
    phone.tap(desc="grinning face")
    phone.tap(desc="face with tears of joy")
    assert phone.field("compose_message_text").get("text") == "\U0001f600\U0001f602"
    assert b"&#128512;&#128514;" in phone.m.dump_xml()  # as the device's serializer writes it
    phone.m.key(4)  # closes the panel
    assert not phone.has(desc="grinning face")
    phone.tap(desc="Send SMS")
    assert phone.has(desc="You said \U0001f600\U0001f602")


def test_attach_a_file_via_the_picker(phone: Phone) -> None:
    start_chat(phone)
    phone.tap(text="Send to 555-123-4567")
    phone.tap(desc="Add attachment")
    phone.tap(text="Files")
    assert phone.m.current() == ("com.android.documentsui",
                                 "com.android.documentsui.picker.PickActivity")
    phone.tap(desc="Show roots")
    phone.tap(text="Downloads")
    phone.tap(text="test-attach.txt")
    assert phone.m.current()[0] == MESSAGES
    assert phone.find(id="alertTitle").get("text") == "Attachments not supported"
    assert phone.windows()[2].get("package") == MESSAGES
    phone.tap(text="OK")
    assert not phone.has(id="alertTitle")
    assert phone.has(id="compose_message_text")


# -- home, recents, view ----------------------------------------------------------------------


def test_home_shows_app_grid_and_search_bar(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.m.key(3)
    assert phone.m.current()[0] == LAUNCHER
    for label in ("Settings", "Messages", "Chrome", "Files"):
        assert phone.find(text=label).get("clickable") == "true"
    assert phone.has(desc="Google search")
    phone.tap(text="Messages")
    assert phone.m.current()[0] == MESSAGES


def test_launcher_all_apps_search(phone: Phone) -> None:
    phone.m.swipe(540, 1600, 540, 600, 200)
    assert phone.has(text="Weather") and phone.has(text="Chrome")
    assert bounds(phone.find(text="Chrome"))[1] == bounds(phone.find(text="Files"))[1]  # a grid
    phone.tap(id="input")
    phone.m.type_text("set")
    assert phone.has(text="Settings") and not phone.has(text="Chrome")
    assert bounds(phone.find(text="Settings", id="icon"))[:2] == (58, 420)  # the first cell
    phone.tap(text="Settings", id="icon")
    assert phone.m.current()[0] == SETTINGS


def test_recents_lists_and_switches_apps(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.tap(text="Display")
    phone.m.launch(MESSAGES)
    phone.m.key(187)
    assert phone.m.current()[0] == LAUNCHER
    cards = [n.get("content-desc") for n in phone.all(cls="TaskView")]
    assert cards[-1] == "Messages" and "Settings" in cards
    assert phone.has(text="Clear all") or True  # may be off-screen to the left
    phone.tap(desc="Settings", cls="TaskView")
    assert phone.m.current() == (SETTINGS, f"{SETTINGS}.SubSettings")
    assert phone.has(text="Screen timeout")
    # recents twice switches to the previous app
    phone.m.key(187)
    phone.m.key(187)
    assert phone.m.current()[0] == MESSAGES
    # back from recents returns to the app
    phone.m.key(187)
    phone.m.key(4)
    assert phone.m.current()[0] == MESSAGES


def test_recents_dismiss_and_clear(phone: Phone) -> None:
    phone.m.key(187)
    assert phone.has(text="No recent items")
    phone.m.key(3)
    phone.m.launch(SETTINGS)
    phone.m.launch(MESSAGES)
    phone.m.key(187)
    card = phone.find(desc="Messages", cls="TaskView")
    x, y = center(card)
    phone.m.swipe(x, y, x, y - 800, 200)
    assert [p for p, _ in phone.m.tasks()] == [SETTINGS]
    phone.m.key(3)
    phone.m.key(187)
    x1, _, _, _ = bounds(phone.find(cls="RecentsView"))
    for _ in range(3):
        phone.m.swipe(200, 1200, 900, 1200, 200)
    phone.tap(text="Clear all")
    assert phone.m.tasks() == [] and phone.m.current()[0] == LAUNCHER


def test_view_url_opens_browser(phone: Phone) -> None:
    assert phone.m.view("https://example.com/hello?x=1") == "com.android.chrome"
    assert phone.m.current() == ("com.android.chrome", "com.google.android.apps.chrome.Main")
    assert phone.field("url_bar").get("text") == "https://example.com/hello?x=1"
    assert phone.has(text="example.com")
    assert IME not in phone.packages()
    assert phone.m.view("tel:123") is None
    assert phone.m.view("sms:5551234567") == MESSAGES
    assert phone.find(id="conversation_title").get("text") == "555-123-4567"


def test_browser_address_bar_enter(phone: Phone) -> None:
    phone.m.launch("com.android.chrome")
    phone.tap(text="Search or type URL", id="search_box_text")
    assert IME in phone.packages()
    phone.m.type_text("example.org")
    phone.m.key(66)
    assert phone.field("url_bar").get("text") == "example.org"


# -- text editing, passwords, third-party apps ---------------------------------------------------


def test_editing_keys(phone: Phone) -> None:
    phone.m.launch("org.baremobile.notes")
    phone.tap(id="email")
    phone.m.type_text("abcdef")
    phone.m.key(67)
    assert phone.field("email").get("text") == "abcde"
    phone.m.key(122)  # MOVE_HOME
    phone.m.key(112)  # FORWARD_DEL
    assert phone.field("email").get("text") == "bcde"
    phone.m.type_text("X")
    assert phone.field("email").get("text") == "Xbcde"
    phone.m.key(123)  # MOVE_END
    phone.m.key(29)  # KEYCODE_A types "a"
    assert phone.field("email").get("text") == "Xbcdea"
    phone.m.key_combination([113, 29])
    phone.m.key_combination([113, 31])  # copy
    phone.m.key(67)
    assert phone.field("email").get("text") == "Email"  # empty: the hint shows
    phone.m.key_combination([113, 50])  # paste
    assert phone.field("email").get("text") == "Xbcdea"
    phone.m.key_combination([59, 30])  # SHIFT+B
    assert phone.field("email").get("text") == "XbcdeaB"


def test_password_field_shows_dots_and_login_flow(phone: Phone) -> None:
    phone.m.launch("org.baremobile.notes")
    phone.tap(id="email")
    phone.m.type_text("me@example.com")
    phone.tap(id="password")
    assert phone.field("email").get("focused") == "false"
    phone.m.type_text("hunter2")
    pw = phone.field("password")
    assert pw.get("password") == "true" and pw.get("text") == "\u2022" * 7
    phone.m.key(66)
    assert phone.has(text="Notes")
    phone.tap(id="note_input")
    phone.m.type_text("buy milk")
    phone.tap(text="Add")
    assert phone.find(id="note_text").get("text") == "buy milk"
    assert phone.find(id="note_time").get("text") == "Edited 10:42\u202fAM"


def test_apps_listing(phone: Phone) -> None:
    apps = {a.package: a for a in phone.m.apps()}
    assert isinstance(apps[SETTINGS], AppInfo)
    assert apps[SETTINGS].system and apps[SETTINGS].launcher_activity == f"{SETTINGS}.Settings"
    assert apps["com.android.systemui"].system and apps[LAUNCHER].system
    third = sorted(p for p, a in apps.items() if not a.system)
    assert third == ["org.baremobile.notes", "org.baremobile.weather"]
    assert apps["com.android.settings.intelligence"].launcher_activity is None


# -- long press, power ----------------------------------------------------------------------


def test_long_press_on_button_clicks_and_on_field_selects(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    x, y = center(phone.find(text="Display"))
    phone.m.swipe(x, y, x, y, 1000)  # long press on a row without a long-click handler
    assert phone.has(text="Screen timeout")
    phone.m.launch("org.baremobile.notes")
    phone.tap(id="email")
    phone.m.type_text("abc")
    x, y = center(phone.field("email"))
    phone.m.swipe(x, y, x + 2, y, 800)
    phone.m.type_text("z")
    assert phone.field("email").get("text") == "z"


def test_power_turns_the_screen_off_and_on(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    phone.m.key(26)
    assert not phone.m.screen_on
    wins = phone.windows()
    assert len(wins) == 1 and wins[0].get("package") == "com.android.systemui"
    assert phone.find(id="lockscreen_clock_view").get("text") == "10:42"
    phone.m.tap(540, 1000)
    phone.m.type_text("x")
    phone.m.key(224)
    assert phone.m.screen_on and phone.has(text="Network & internet")
    phone.m.key(223)
    assert not phone.m.screen_on
    phone.m.key(26)
    assert phone.m.screen_on


# -- dumps and screenshots ---------------------------------------------------------------------


def check_dump(data: bytes, width: int = 1080, height: int = 2400, nested: bool = False) -> None:
    """Well-formed, uiautomator's shape, every node inside the screen (and, with ``nested``,
    inside its parent, which the demo's dumps promise)."""
    assert data.startswith(b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
                           b'<hierarchy rotation="0">')
    assert data.endswith(b"</hierarchy>") and b"\n" not in data
    root = ET.fromstring(data)
    assert root.tag == "hierarchy" and len(root) >= 1
    for w in root:
        assert w.get("index") == "0"
    for parent in root.iter("node"):
        for i, c in enumerate(parent):
            assert c.get("index") == str(i)
            if nested:
                p, b = bounds(parent), bounds(c)
                assert p[0] <= b[0] and p[1] <= b[1] and b[2] <= p[2] and b[3] <= p[3], (
                    parent.attrib, c.attrib)
    for n in root.iter("node"):
        keys = list(n.attrib)
        if keys[0] == "NAF":
            keys = keys[1:]
        assert keys[:17] == STANDARD, keys
        x1, y1, x2, y2 = bounds(n)
        assert 0 <= x1 <= x2 <= width and 0 <= y1 <= y2 <= height, n.attrib


def test_dumps_are_well_formed_on_every_demo_screen(phone: Phone) -> None:
    m = phone.m
    check_dump(m.dump_xml(), nested=True)
    for pkg in [a.package for a in m.apps() if a.launcher_activity]:
        m.launch(pkg)
        check_dump(m.dump_xml(), nested=True)
    m.key(187)
    check_dump(m.dump_xml(), nested=True)
    for name, sd in m.scenario.screens.items():  # every screen, pushed directly
        m.reset()
        m.launch(sd.package)
        m._do(type("A", (), {"kind": "goto", "arg": {"screen": name, "vars": {}}})(),  # noqa: SLF001
              m._top(), m._top().windows[0], {})  # type: ignore[union-attr]
        check_dump(m.dump_xml(), nested=True)


def test_screenshot_is_a_png_of_the_screen(phone: Phone) -> None:
    phone.m.launch(SETTINGS)
    data = phone.m.screenshot_png()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
    assert (w, h, depth, ctype) == (1080, 2400, 8, 3)
    chunks, pos = {}, 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == (
            zlib.crc32(kind + body) & 0xFFFFFFFF)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    raw = zlib.decompress(chunks[b"IDAT"])
    assert len(raw) == 2400 * 1081
    assert len(set(raw[1::1081])) > 1  # not a blank frame
    assert phone.m.screenshot_png() is data  # cached while nothing changes
    phone.tap(text="Display")
    phone.tap(text="Screen timeout")
    assert phone.m.screenshot_png() != data


def test_screenshot_is_fast(phone: Phone) -> None:
    import time

    phone.m.launch(MESSAGES)
    phone.tap(text="Start chat")
    t = time.perf_counter()
    phone.m.screenshot_png()
    assert time.perf_counter() - t < 0.25  # generous for slow CI; ~25 ms typical


def test_status_bar_clock_follows_the_clock(phone: Phone) -> None:
    phone.clock.t += 3 * 3600
    assert phone.find(id="clock").get("text") == "1:42"
    assert phone.find(id="clock").get("content-desc") == "1:42\u202fPM"


def test_emoji_button_toggles_back_to_the_keyboard(phone: Phone) -> None:
    start_chat(phone)
    phone.tap(text="Send to 555-123-4567")
    phone.tap(desc="Emoji")
    assert IME not in phone.packages() and phone.has(desc="grinning face")
    phone.tap(desc="Emoji")
    assert IME in phone.packages() and not phone.has(desc="grinning face")
    phone.tap(desc="Emoji")
    phone.tap(id="compose_message_text")  # tapping the field also brings the keyboard back
    assert IME in phone.packages() and not phone.has(desc="grinning face")


def test_apps_without_launcher_activity_need_an_explicit_one(phone: Phone) -> None:
    pkg = "com.android.settings.intelligence"
    assert phone.m.launch(pkg) is False
    assert phone.m.launch(pkg, ".search.SearchActivity")
    assert phone.m.current() == (pkg, f"{pkg}.search.SearchActivity")
