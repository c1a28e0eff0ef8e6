"""The blueprint's Verified Flows, replayed through connect() over TCP on the virtual phone.

Every assertion is on what the next snapshot shows and on what the phone's event log says
it received.
"""

from __future__ import annotations

import pytest

from baremobile import connect
from baremobile.errors import CommandTimeout, InvalidArgument, RefNotFound
from baremobile.page import Page, Screenshot

SETTINGS = "com.android.settings"
MESSAGES = "com.google.android.apps.messaging"


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def ref_of(page: Page, **selector) -> int:
    (node, *_) = page.find(selector)
    assert node.ref is not None, f"{selector} has no ref"
    return node.ref


def open_conversation(page: Page) -> None:
    """Messages, then the conversation with Alex Kim (its compose field on screen)."""
    page.launch(MESSAGES)
    page.snapshot()
    page.tap({"text": "Alex Kim"})
    page.snapshot()


@pytest.mark.fast
def test_open_settings_and_read_it(page, phone):
    page.launch(SETTINGS)
    snap = page.snapshot()
    assert snap.package == SETTINGS
    for label in ("Settings", "Network & internet", "Connected devices"):
        assert label in snap.text
    (label,) = page.find(text="Network & internet")
    x1, y1, x2, y2 = label.vis
    rows = [
        r
        for r in snap.refs.values()
        if r.clickable
        and r.bounds[0] <= x1
        and r.bounds[1] <= y1
        and r.bounds[2] >= x2
        and r.bounds[3] >= y2
    ]
    assert rows, "the label sits inside a tappable row with a ref"
    (start,) = phone.events.list("start")
    assert start["package"] == SETTINGS


@pytest.mark.fast
def test_search_by_typing(page, phone):
    page.launch(SETTINGS)
    page.snapshot()
    page.tap(ref_of(page, text="Search Settings"))
    page.snapshot()
    field = page.find(role="TextInput")[0]
    page.type(field.ref, "wifi")
    snap = page.snapshot()
    assert '"wifi"' in snap.text
    for result in ("Wi-Fi hotspot", "Wi-Fi Direct", "Wi-Fi scanning"):
        assert result in snap.text
    assert [e["text"] for e in phone.events.list("text")] == ["wifi"]


@pytest.mark.fast
def test_navigate_back(page):
    page.launch(SETTINGS)
    home = page.snapshot()
    page.tap(ref_of(page, text="Search Settings"))
    search = page.snapshot()
    assert search.package != SETTINGS and "Use voice typing" in search.text  # keyboard up
    page.back()  # as on a phone, the first BACK only hides the keyboard
    assert "Use voice typing" not in page.snapshot().text
    page.back()
    again = page.snapshot()
    assert "Network & internet" in again.text and again.package == home.package


@pytest.mark.fast
def test_scroll_a_long_list(page, phone):
    page.launch(SETTINGS)
    before = page.snapshot()
    lst = page.find(role="List")[0]
    page.scroll(lst.ref, "down")
    after = page.snapshot()
    new = [
        t
        for t in ("Security & privacy", "Accessibility", "System", "About phone")
        if t in after.text and t not in before.text
    ]
    assert new, after.text
    assert "Network & internet" not in after.text  # scrolled off the top
    (swipe,) = phone.events.list("swipe")
    assert swipe["y1"] > swipe["y2"]  # finger moved up: content moves down
    page.scroll(lst.ref, "up")
    assert "Network & internet" in page.snapshot().text


def test_toggle_a_switch(page):
    page.launch(SETTINGS)
    page.snapshot()
    page.tap({"text": "Network & internet"})
    page.snapshot()
    switch = next(n for n in page.find(role="Switch"))
    was = "checked" in switch.states
    page.tap(switch.ref)
    page.snapshot()
    now = next(n for n in page.find(role="Switch"))
    assert ("checked" in now.states) != was


@pytest.mark.fast
def test_send_a_text_message(page, phone):
    page.launch(MESSAGES)
    page.snapshot()
    page.tap({"text": "Start chat"})
    page.snapshot()
    page.type(page.find(role="TextInput")[0].ref, "5551234567")
    page.snapshot()
    page.tap({"text_contains": "Send to"})
    page.snapshot()
    compose = page.find(role="TextInput")[0].ref
    page.type(compose, "Hello from baremobile!")
    page.snapshot()
    page.tap({"desc": "Send SMS"})
    snap = page.snapshot()
    assert "You said Hello from baremobile!" in snap.text
    typed = "".join(
        e["text"] if e.kind == "text" else " "
        for e in phone.events.list()
        if e.kind == "text" or (e.kind == "key" and e["keycode"] == 62)
    )
    assert typed.endswith("Hello from baremobile!")


def test_insert_emoji_by_tapping(page):
    open_conversation(page)
    page.tap({"desc": "Emoji"})
    page.snapshot()
    page.tap({"desc": "grinning face"})
    page.tap({"desc": "face with tears of joy"})
    snap = page.snapshot()
    field = page.find(role="TextInput")[0]
    assert "😀😂" in snap.refs[field.ref].text


def test_attach_a_file_and_dismiss_the_dialog(page):
    open_conversation(page)
    page.tap({"desc": "Add attachment"})
    page.snapshot()
    page.tap({"text_contains": "Files"})
    page.snapshot()
    page.tap({"desc": "Show roots"})
    page.snapshot()
    page.tap({"text": "Downloads"})
    page.snapshot()
    page.tap({"text": "test-attach.txt"})
    snap = page.snapshot()
    assert "Attachments not supported" in snap.text
    page.tap(ref_of(page, text="OK"))
    assert "Attachments not supported" not in page.snapshot().text


def test_dialog_ok_and_cancel(page):
    page.launch(SETTINGS)
    page.snapshot()
    page.tap({"text": "Display"})
    page.snapshot()
    page.scroll_until({"text": "Screen timeout"}, page.find(role="List")[0].ref)
    page.tap({"text": "Screen timeout"})
    snap = page.snapshot()
    assert "Cancel" in snap.text and "OK" in snap.text
    page.tap(ref_of(page, text="Cancel"))
    assert "Cancel" not in page.snapshot().text


@pytest.mark.fast
def test_screenshot_is_a_png_of_the_screen(page, phone):
    shot = page.screenshot()
    assert isinstance(shot, Screenshot)
    assert shot.png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (shot.width, shot.height) == (1080, 2400)
    assert shot._repr_png_() is shot.png
    assert phone.events.list("screencap")


def test_screenshot_stays_clean_when_screencap_warns_on_stderr(page, phone):
    phone.model.multiple_displays = True
    shot = page.screenshot()
    assert shot.png[:8] == b"\x89PNG\r\n\x1a\n"


def test_home_screen(page):
    page.launch(SETTINGS)
    page.snapshot()
    page.home()
    snap = page.snapshot()
    assert snap.package == "com.google.android.apps.nexuslauncher"
    assert "Google search" in snap.text and "Messages" in snap.text


def test_recent_apps(page, phone):
    page.launch(SETTINGS)
    page.launch(MESSAGES)
    page.recents()
    snap = page.snapshot()
    assert "(Settings)" in snap.text and "(Messages)" in snap.text
    assert snap.package == "com.google.android.apps.nexuslauncher"
    assert [e["keycode"] for e in phone.events.list("key")] == [187]


def test_open_url_and_intent(page, phone):
    page.open_url("https://example.com/a?b=c&d=e")
    snap = page.snapshot()
    assert "https://example.com/a?b=c&d=e" in snap.text
    with pytest.raises(InvalidArgument):
        page.open_url("no scheme here")
    out = page.intent(action="android.intent.action.VIEW", data="https://example.org")
    assert "Starting: Intent" in out


@pytest.mark.fast
def test_long_press_and_tap_xy(page, phone):
    page.snapshot()
    page.long_press(ref_of(page, text="Settings"), ms=800)
    (ev,) = phone.events.list("long_press") or phone.events.list("swipe")
    page.tap_xy(540, 1200)
    assert phone.events.list("tap")[-1]["x"] == 540


def test_stale_and_unknown_refs(page):
    with pytest.raises(RefNotFound, match="no snapshot yet"):
        page.tap(1)
    snap = page.snapshot()
    with pytest.raises(RefNotFound) as exc:
        page.tap(len(snap.refs) + 5)
    assert "take a new snapshot" in str(exc.value)
    with pytest.raises(RefNotFound, match="nothing on screen matches"):
        page.tap({"text": "No such thing anywhere"})
    with pytest.raises(InvalidArgument):
        page.tap(True)


def test_wait_for_text_and_selectors(page):
    page.launch(SETTINGS)
    snap = page.wait_for_text("network & INTERNET", timeout=2)
    assert "Network & internet" in snap.text
    node = page.wait_for({"text": "Connected devices"}, timeout=2)
    assert node.text == "Connected devices" or "Connected devices" in (node.attrs or {}).get(
        "text", ""
    )
    with pytest.raises(CommandTimeout):
        page.wait_for_text("never shown", timeout=0.3, interval=0.1)
    assert page.wait_stable(timeout=2).text == page.snapshot().text


def test_device_info_and_apps(page):
    info = page.device_info()
    assert info["model"] == "Virtual Phone" and info["api_level"] == 35
    assert info["screen"] == {"width": 1080, "height": 2400, "density": 420}
    apps = {app.package for app in page.list_apps()}
    assert SETTINGS in apps and MESSAGES in apps
    assert {app.package for app in page.list_apps(kind="user")} < apps
    page.launch(SETTINGS)
    assert page.foreground().package == SETTINGS


def test_press_names_and_codes(page, phone):
    page.press("back")
    page.press("KEYCODE_MENU")
    page.press(84)
    assert [e["keycode"] for e in phone.events.list("key")] == [4, 82, 84]
    with pytest.raises(InvalidArgument, match="unknown key"):
        page.press("definitely-not-a-key")


def test_push_pull_and_logcat(page, phone):
    page.push(b"hello", "/sdcard/Download/h.txt")
    assert page.pull("/sdcard/Download/h.txt") == b"hello"
    page.tap_xy(10, 10)
    assert "VirtualPhone" in page.read_log(tag="VirtualPhone")["log"]


def test_the_old_verb_names_still_work_and_say_what_replaces_them(page):
    """``apps`` and ``logcat`` were the first names of ``list_apps`` and ``read_log``."""
    with pytest.warns(DeprecationWarning, match=r"list_apps") as caught:
        names = page.apps()
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert names == sorted(app.package for app in page.list_apps())
    with pytest.warns(DeprecationWarning, match=r"list_apps"):
        assert page.apps(third_party=True) == sorted(
            app.package for app in page.list_apps(kind="user"))
    page.tap_xy(10, 10)
    with pytest.warns(DeprecationWarning, match=r"read_log"):
        assert "VirtualPhone" in page.logcat(tag="VirtualPhone")


def test_module_level_one_shot_snapshot():
    import baremobile

    snap = baremobile.snapshot("virtual")
    assert "Settings" in snap.text and snap.refs
