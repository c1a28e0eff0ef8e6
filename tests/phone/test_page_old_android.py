"""An Android 6 (API 23) phone: no shell_v2, shell: on a pty (CRLF), checksummed protocol,
no keycombination — the Page must work the same."""

from __future__ import annotations

import pytest

from baremobile import connect
from baremobile.virtual import VirtualPhone
from baremobile.virtual.phone import features_for_api
from tests.conftest import free_port


@pytest.fixture
def old_phone():
    with VirtualPhone(port=free_port(), api_level=23) as phone:
        yield phone


def test_features_follow_the_api_level():
    assert "shell_v2" not in features_for_api(23)
    assert "shell_v2" in features_for_api(24) and "stat_v2" not in features_for_api(25)
    assert "stat_v2" in features_for_api(35)


def test_page_on_android_6(old_phone, adb_key):
    with connect(old_phone.address, keys=[adb_key]) as page:
        assert "shell_v2" not in page.transport.features
        raw = page.transport.open_service("shell", "getprop ro.build.version.sdk", timeout=5)
        assert b"".join(raw) == b"23\r\n"  # the pty, as on a real Android 6 device
        info = page.device_info()
        assert info["api_level"] == 23 and info["screen"]["width"] == 1080
        assert page.shell("echo hi") == "hi\n"  # the CRLF is gone for the caller
        page.launch("com.google.android.apps.messaging")
        page.snapshot()
        page.tap({"text": "Alex Kim"})
        page.snapshot()
        field = page.find({"role": "TextInput"})[0]
        page.type(field.ref, "old phone")
        page.snapshot()
        field = page.find({"role": "TextInput"})[0]
        page.type(field.ref, "replaced", clear=True)  # no keycombination before API 33
        snap = page.snapshot()
        assert snap.refs[field.ref].text == "replaced"
        assert "keycombination" not in {
            c[1] for c in old_phone.events.commands() if c[0] == "input"
        }
        assert page.screenshot().width == 1080


def test_clear_through_a_label_selector_on_android_6(old_phone, adb_key, monkeypatch):
    with connect(old_phone.address, keys=[adb_key]) as page:
        page.launch("com.google.android.apps.messaging")
        page.snapshot()
        page.tap({"text": "Alex Kim"})
        page.snapshot()
        field = page.find({"role": "TextInput"})[0]
        page.type(field.ref, "y" * 60)
        page.snapshot()
        ref = page.last_snapshot.refs[field.ref]
        # as when a selector matches a plain label drawn over the field (no RefNode known)
        real_target = page._target
        monkeypatch.setattr(
            page,
            "_target",
            lambda t: (ref.center, ref.bounds, None) if t == "label" else real_target(t),
        )
        page.type("label", "short", clear=True)  # type: ignore[arg-type]
        page.snapshot()
        assert page.find({"role": "TextInput"})[0].text == "short"
