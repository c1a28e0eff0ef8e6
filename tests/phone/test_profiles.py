"""The virtual phone's device profiles (``android6``, ``tablet``, ``protocol-a``): the
Verified Flows and the gestures on each, over the real ADB protocol, and what each profile
is for — the formats it prints read right through the public API."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from baremobile import Page, connect
from baremobile.android.gestures import paths_plan, pinch_plan
from baremobile.android.touch_events import SENDEVENT_MS
from baremobile.virtual import VirtualPhone
from baremobile.virtual.model import FakeClock
from baremobile.virtual.profiles import PROFILES
from tests.conftest import free_port
from tests.phone.test_page_gestures import _assert_matches
from tests.verified_flows import FLOWS

NEW = ["android6", "tablet", "protocol-a"]
#: the multi-finger route each profile's Android allows
ROUTES = {"default": "uinput", "android6": "sendevent", "tablet": "uinput",
          "protocol-a": "sendevent"}


@contextmanager
def phone_and_page(profile: str, *, clock: bool = False) -> Iterator[tuple[VirtualPhone, Page]]:
    kw = {"clock": FakeClock(), "input_latency": True} if clock else {}
    with VirtualPhone(port=free_port(), browser=False, profile=profile, **kw) as phone, \
            connect(phone.address) as page:
        yield phone, page


def test_profiles_are_listed_and_unknown_ones_refused() -> None:
    assert set(NEW) | {"default"} == set(PROFILES)
    with pytest.raises(ValueError, match="unknown virtual phone profile"):
        VirtualPhone(profile="android99")
    from baremobile.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="android6"):
        connect("virtual", profile="android99")
    with connect("virtual", profile="android6") as page:
        assert page.device.api_level == 23 and "shell_v2" not in page.transport.features
        assert page.transport.max_payload == 4096


@pytest.mark.parametrize("profile", NEW)
@pytest.mark.parametrize("flow", list(FLOWS))
def test_verified_flows_on_each_profile(profile: str, flow: str) -> None:
    with phone_and_page(profile) as (_phone, page):
        FLOWS[flow](page, page.snapshot)


# -- gestures ---------------------------------------------------------------------------------

ZOOM = re.compile(r"Radar map, zoom (\d+)%")


def _zoom(page: Page) -> int:
    m = ZOOM.search(page.snapshot().text)
    assert m is not None
    return int(m.group(1))


@pytest.mark.parametrize("profile", ["default", *NEW])
def test_pinch_zooms_the_map_on_each_profile(profile: str) -> None:
    with phone_and_page(profile, clock=True) as (phone, page):
        page.launch("org.baremobile.weather")
        since = phone.events.last_seq
        assert page.pinch({"id": "radar_map"}, 2.0)["route"] == ROUTES[profile]
        (pinch,) = phone.events.list("pinch", since=since)
        assert pinch["scale"] == pytest.approx(2.0, rel=0.01) and _zoom(page) == 200


@pytest.mark.parametrize("profile", ["default", *NEW])
def test_three_finger_gesture_is_decoded_as_planned_on_each_profile(profile: str) -> None:
    with phone_and_page(profile, clock=True) as (phone, page):
        w, h = page.device_info()["screen"]["width"], page.device_info()["screen"]["height"]
        spec = [[{"x": w * (i + 1) // 4, "y": h // 4, "time": 0},
                 {"x": w * (i + 1) // 4, "y": h // 2, "time": 150},
                 {"x": w * (i + 1) // 4 + 40, "y": h * 3 // 4, "time": 300}] for i in range(3)]
        since = phone.events.last_seq
        result = page.gesture(spec)
        assert result["route"] == ROUTES[profile] and result["fingers"] == 3
        (got,) = phone.events.list("gesture", since=since)
        _assert_matches(paths_plan(spec, w, h), got.detail,
                        duration_tolerance=_tolerance(phone, since, 300))


def _tolerance(phone: VirtualPhone, since: int, ms: float) -> tuple[float, float]:
    """The duration the phone may record: exact through uinput; through sendevent each
    write costs the phone's modelled time, which the script's sleeps only estimate."""
    writes = sum(1 for c in phone.events.commands(since=since) if c[0] == "sendevent")
    return (ms - 1, ms + 1 + writes * SENDEVENT_MS[1])


@pytest.mark.parametrize("profile", NEW)
def test_pinch_in_every_rotation_lands_where_planned(profile: str) -> None:
    with phone_and_page(profile, clock=True) as (phone, page):
        for orientation in ("portrait", "landscape", "reverse_portrait", "reverse_landscape"):
            turned = page.rotate(orientation)
            assert turned["orientation"] == orientation
            w, h = page.device_info()["screen"]["width"], page.device_info()["screen"]["height"]
            assert (w > h) == orientation.endswith("landscape")
            since = phone.events.last_seq
            page.pinch((w // 2, h // 2), 1.8, 400)
            (got,) = phone.events.list("gesture", since=since)
            _assert_matches(pinch_plan(w // 2, h // 2, 1.8, w, h, duration_ms=400), got.detail,
                            duration_tolerance=_tolerance(phone, since, 400))


def test_double_tap_and_drag_on_each_old_profile() -> None:
    for profile in ("android6", "protocol-a"):
        with phone_and_page(profile, clock=True) as (phone, page):
            page.launch("org.baremobile.weather")
            since = phone.events.last_seq
            assert page.double_tap({"id": "radar_map"})["route"] == "sendevent"
            assert len(phone.events.list("double_tap", since=since)) == 1
            since = phone.events.last_seq
            route = page.drag((300, 900), (800, 1600), 400)["route"]
            if route == "input":  # input draganddrop from Android 8
                (drag,) = phone.events.list("swipe", since=since)
                assert drag["drag"] is True
            else:
                (drag,) = phone.events.list("drag", since=since)
            assert (drag["x2"], drag["y2"]) == pytest.approx((800, 1600), abs=1)


# -- what each profile is for --------------------------------------------------------------------


def test_protocol_a_panel_gets_protocol_a_events() -> None:
    with phone_and_page("protocol-a", clock=True) as (phone, page):
        listing = page.shell("getevent -lp")
        assert "ft5x0x_ts" in listing and "ABS_MT_SLOT" not in listing
        assert "INPUT_PROP_DIRECT" not in listing
        since = phone.events.last_seq
        page.pinch((540, 1200), 2.0)
        sent = [c[2:] for c in phone.events.commands(since=since) if c[0] == "sendevent"]
        assert ["0", "2", "0"] in sent  # SYN_MT_REPORT after each contact
        assert not [c for c in sent if c[:2] == ["3", str(0x2F)]]  # no ABS_MT_SLOT
        assert {c[1] for c in phone.events.commands(since=since) if c[0] == "sendevent"} == \
            {"/dev/input/event2"}


def test_tablet_is_landscape_at_rotation_0_and_display_0_wins() -> None:
    with phone_and_page("tablet") as (phone, page):
        info = page.device_info()
        assert (info["screen"]["width"], info["screen"]["height"]) == (2400, 1080)
        assert info["orientation"]["rotation"] == 0
        assert info["orientation"]["orientation"] == "landscape"
        # the second display is listed first, with a focused app of its own
        shown = page.shell("dumpsys window displays")
        assert shown.index("mDisplayId=2") < shown.index("mDisplayId=0")
        assert info["foreground"]["package"] != "com.android.systemui"
        assert page.rotate("portrait") == {"orientation": "portrait", "rotation": 3,
                                           "auto": False}
        assert page.shell("settings get system user_rotation").strip() == "3"
        assert page.snapshot().text.startswith("# 1080x2400 portrait")
        since = phone.events.last_seq
        page.swipe(540, 1800, 540, 600)
        assert phone.events.list("swipe", since=since)


def test_tablet_reports_the_surface_rotation_in_its_dump_and_wm_locks_it() -> None:
    """On a landscape-natural display rotation 0 is wide: the dump's ``rotation`` says 0
    there, and ``wm user-rotation lock`` (no value) locks the rotation shown now."""
    with phone_and_page("tablet") as (phone, page):
        snap = page.snapshot()
        assert (snap.width, snap.height, snap.rotation) == (2400, 1080, 0)
        assert page.shell("wm user-rotation lock") == ""
        assert page.shell("settings get system user_rotation").strip() == "0"
        assert page.rotation() == {"orientation": "landscape", "rotation": 0, "auto": False}
        page.rotate("portrait")
        assert page.snapshot().rotation == 3


def test_android6_prints_toolbox_and_old_layouts_that_read_right() -> None:
    with phone_and_page("android6") as (phone, page):
        page.push(b"hello", "/sdcard/Download/a b.txt")
        assert "VSIZE" in page.shell("ps") and page.shell("ps -A").count("\n") == 1
        listing = page.shell("ls -la /sdcard/Download/")
        assert "total" not in listing and " 1 root" not in listing  # no link counts
        got = {e["name"]: e for e in page.list_files("/sdcard")["entries"]}
        assert got["Download"]["type"] == "directory"  # toolbox prints no size for it
        files = page.list_files("/sdcard/Download")["entries"]
        assert files[0]["name"] == "a b.txt" and files[0]["size"] == 5
        assert page.shell("logcat -d -t 1").splitlines()[-1].startswith("I/")  # brief
        page.launch("com.android.settings")
        log = page.read_log(package="com.android.settings")
        assert log["pids"] and log["log"]
        assert all(f"({log['pids'][0]:5d})" in ln for ln in log["log"].splitlines())
        assert page.foreground().package == "com.android.settings"
        assert page.rotation()["orientation"] == "portrait"
        assert "Max charging" not in page.shell("dumpsys battery")
        assert page.battery()["level"] == 85


def test_android6_web_discovery_falls_back_from_ps_minus_a() -> None:
    from baremobile.web.discovery import discover

    with phone_and_page("android6") as (phone, page):
        phone.model.mark_running("com.android.chrome")
        phone.answer(["cat", "/proc/net/unix"],
                     "Num       RefCount Protocol Flags    Type St Inode Path\n"
                     "0000000000000000: 00000002 00000000 00010000 0001 01 1 "
                     "@chrome_devtools_remote\n")
        (sock,) = discover(page.shell)
        assert (sock.kind, sock.package) == ("chrome", "com.android.chrome")
        assert sock.pid == phone.model.running["com.android.chrome"]


def test_no_pidof_falls_back_to_ps() -> None:
    with phone_and_page("android6") as (phone, page):
        page.launch("com.android.settings")
        phone.answer(["pidof"], stderr="/system/bin/sh: pidof: not found\n", status=127)
        log = page.read_log(package="com.android.settings")
        assert log["pids"] == [phone.model.running["com.android.settings"]]
