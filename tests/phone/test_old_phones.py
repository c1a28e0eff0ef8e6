"""Old and odd phones (issue 31), through the public API over the real ADB protocol: the
virtual phone prints each format as the release of its profile does (``android6``: Android
6; the default phone: Android 15), and the product reads it right.

* ``run-as``'s refusal: ``run-as: Package 'X' is unknown`` (``run-as.c``, Android ≤ 7.1) and
  ``run-as: unknown package: X`` (``run-as.cpp``, Android 8+) both say "not installed";
* a shell command's exception (``pm grant``, ``pm install``): the reason is the exception's
  message, never ``Exception occurred while executing:``;
* ``pm install``: an APK installs (``pm list packages``, ``pm path``, the launcher); a file
  that is no APK is refused as each release refuses it;
* the notification shade and quick settings as SystemUI draws them;
* ``am force-stop`` (``stop_app``): the next launch starts the app afresh; and on a package
  that is not installed, "not installed" (issue 29).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from baremobile import Page, connect
from baremobile.errors import CommandFailed, InvalidArgument, NotDebuggable, Unsupported
from baremobile.virtual import VirtualPhone
from baremobile.virtual.apk import build_apk
from tests.conftest import free_port

NOTES = "org.baremobile.notes"  # the demo's debuggable app
WEATHER = "org.baremobile.weather"  # installed, not debuggable
PROFILES = ["default", "android6"]


@contextmanager
def phone_and_page(profile: str = "default") -> Iterator[tuple[VirtualPhone, Page]]:
    with VirtualPhone(port=free_port(), browser=False, profile=profile) as phone, \
            connect(phone.address) as page:
        yield phone, page


# -- run-as -----------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_run_as_refusals_read_in_each_release_wording(profile: str) -> None:
    with phone_and_page(profile) as (phone, page):
        said = page.shell("run-as com.nope.app ls 2>&1; echo status=$?")
        if profile == "android6":  # run-as.c: panic() exits with -ENOENT
            assert said.startswith("run-as: Package 'com.nope.app' is unknown")
            assert "status=254" in said
        else:
            assert said.startswith("run-as: unknown package: com.nope.app")
        with pytest.raises(InvalidArgument, match="com.nope.app is not installed"):
            page.preferences("com.nope.app", "settings")
        with pytest.raises(NotDebuggable, match="not a debuggable build"):
            page.preferences(WEATHER, "settings")
        assert page.preferences(NOTES, "nothing_here") == {}  # a debuggable app: entered


# -- a shell command's exception --------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_pm_grant_on_an_unknown_package_says_not_installed(profile: str) -> None:
    with phone_and_page(profile) as (_phone, page):
        said = page.shell("pm grant com.nope.app android.permission.CAMERA 2>&1; true")
        first = said.strip().splitlines()[0]
        if profile == "android6":  # Pm.java catches it: one line, then the usage
            assert first == ("Bad argument: java.lang.IllegalArgumentException: Unknown "
                             "package: com.nope.app")
        else:  # BasicShellCommandHandler: the announcement, then the exception
            assert first == "Exception occurred while executing 'grant':"
        with pytest.raises(InvalidArgument) as e:
            page.grant_permission("com.nope.app", "android.permission.CAMERA")
        assert "com.nope.app is not installed" in e.value.message
        assert "Unknown package: com.nope.app" in e.value.message
        assert "Exception occurred" not in e.value.message
        page.grant_permission(NOTES, "android.permission.CAMERA")  # a known one is granted
        with pytest.raises(CommandFailed) as e:  # any command's failure names the exception
            page.shell("pm grant com.nope.app android.permission.CAMERA")
        assert "Unknown package: com.nope.app" in e.value.message


# -- pm install -------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_install_refuses_a_file_that_is_no_apk(profile: str) -> None:
    with phone_and_page(profile) as (_phone, page):
        before = {a.package for a in page.list_apps()}
        with pytest.raises(CommandFailed) as e:
            page.install(os.urandom(4096))
        if profile == "android6":  # DefaultContainerService cannot parse it
            assert "INSTALL_FAILED_INVALID_APK" in e.value.message
        else:  # PackageManagerShellCommand.setParamsSize parses it before the session
            assert "Failed to parse APK file: /data/local/tmp/baremobile_install.apk" in \
                e.value.message and "IllegalArgumentException" in e.value.message
            assert "Exception occurred" not in e.value.message
        assert "not an APK" in (e.value.hint or "")
        assert {a.package for a in page.list_apps()} == before  # nothing was installed


def test_streamed_install_of_no_apk_fails_at_the_commit() -> None:
    # what adb install runs (cmd package install -S SIZE, the bytes on stdin): refused when
    # the session is committed, INSTALL_PARSE_FAILED_NOT_APK naming the session's base.apk
    with phone_and_page() as (_phone, page):
        page.push(b"not a zip at all", "/data/local/tmp/x.apk")
        said = page.shell("pm install -S 16 < /data/local/tmp/x.apk; true")
        assert said.startswith("Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse "
                               "/data/app/vmdl")
        assert ".tmp/base.apk: Failed to load asset path /data/app/vmdl" in said


@pytest.mark.parametrize("profile", PROFILES)
def test_an_installed_apk_is_listed_found_and_launched(profile: str) -> None:
    apk = build_apk("com.example.hello", "Hello App", 7, "7.1", ".Main")
    with phone_and_page(profile) as (_phone, page):
        assert "Success" in page.install(apk)
        assert "com.example.hello" in [a.package for a in page.list_apps(kind="user")]
        assert page.shell("pm path com.example.hello").startswith("package:/data/app/")
        assert page.app_label("com.example.hello") == "Hello App"  # read back from its APK
        assert page.find_app("Hello App") == "com.example.hello"  # a launcher activity
        # the launcher's list of apps shows it, in alphabetical order, and its icon opens it
        page.home()
        page.swipe(540, 1800, 540, 500)  # up: all apps
        snap = page.snapshot()
        labels = [n.text for n in snap.find(resource_id="icon")]
        assert "Hello App" in labels and labels == sorted(labels, key=str.casefold)
        page.tap({"text": "Hello App"})
        assert page.foreground().package == "com.example.hello"
        assert "Hello World!" in page.snapshot().text
        page.uninstall("com.example.hello")
        assert "com.example.hello" not in [a.package for a in page.list_apps()]


def test_a_debuggable_apk_lets_run_as_in() -> None:
    apk = build_apk("com.example.debug", "Debug App", 1, "1.0", ".Main", debuggable=True)
    with phone_and_page() as (_phone, page):
        page.install(apk)
        page.set_preference("com.example.debug", "prefs", "user", "ada")
        assert page.preferences("com.example.debug", "prefs")["user"]["value"] == "ada"


# -- the notification shade -------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_the_shade_appears_as_systemui_draws_it(profile: str) -> None:
    with phone_and_page(profile) as (phone, page):
        page.launch("com.android.settings")
        page.statusbar("notifications")
        sent = [c for c in phone.events.commands() if "statusbar" in c]
        # Android 7+ has cmd statusbar; before it, the service is called by code
        assert sent[-1] == (["service", "call", "statusbar", "1"] if profile == "android6"
                            else ["cmd", "statusbar", "expand-notifications"])
        xml = page.ui_xml()
        for rid in ("notification_panel", "notification_stack_scroller", "quick_qs_panel",
                    "split_shade_status_bar"):
            assert f'resource-id="com.android.systemui:id/{rid}"' in xml
        snap = page.snapshot()
        assert "No notifications" in snap.text and "Bluetooth, On" in snap.text
        page.back()  # BACK closes the shade, and only the shade
        xml = page.ui_xml()
        assert "notification_panel" not in xml
        assert page.foreground().package == "com.android.settings"
        if profile == "android6":  # no stable transaction code for quick settings
            with pytest.raises(Unsupported, match="before Android 7"):
                page.statusbar("quick_settings")
            return
        page.statusbar("quick_settings")
        snap = page.snapshot()
        assert "Airplane mode, Off" in snap.text and "(Open settings.)" in snap.text
        assert "Display brightness" in snap.text
        page.statusbar("collapse")
        assert "qs_frame" not in page.ui_xml()


def test_a_swipe_down_from_the_status_bar_opens_the_shade() -> None:
    with phone_and_page() as (_phone, page):
        page.swipe(540, 40, 540, 1400)  # down from the status bar
        assert "No notifications" in page.snapshot().text
        page.swipe(540, 1800, 540, 300)  # up: it closes
        assert "No notifications" not in page.snapshot().text


# -- stop_app ---------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_stop_app_resets_the_app_and_refuses_a_package_not_installed(profile: str) -> None:
    with phone_and_page(profile) as (_phone, page):
        page.launch("com.android.settings")
        page.tap({"text": "Network & internet"})
        assert "Internet" in page.snapshot().text and page.snapshot().text != ""
        inner = page.snapshot().text
        page.stop_app("com.android.settings")
        assert page.foreground().package != "com.android.settings"  # its tasks are gone
        page.launch("com.android.settings")  # starts afresh: its home screen, not Network
        fresh = page.snapshot().text
        assert fresh != inner and "Network & internet" in fresh
        with pytest.raises(InvalidArgument, match="com.nope.app is not installed"):
            page.stop_app("com.nope.app")
        with pytest.raises(InvalidArgument, match="com.nope.app is not installed"):
            page.clear_app_data("com.nope.app")
