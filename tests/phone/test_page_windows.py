"""Windows over windows: a ref under the keyboard is refused (a tap would hit the keys),
and taps can target another display."""

from __future__ import annotations

import pytest

from baremobile import connect
from baremobile.errors import RefCovered
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.scenario_helpers import bare_app, node
from tests.truth_helpers import without_frame_reads


@pytest.fixture
def keyboard_phone(tmp_path):
    app = node(
        "android.widget.FrameLayout", "[0,0][1080,2400]",
        children=node("android.widget.Button", "[100,2000][980,2200]", text="Buy now",
                      clickable=True)
        + node("android.widget.Button", "[100,300][980,500]", text="Details", clickable=True),
    )
    ime_pkg = "com.google.android.inputmethod.latin"
    ime = node("android.widget.FrameLayout", "[0,1500][1080,2400]", pkg=ime_pkg,
               children=node("android.view.View", "[0,1500][1080,2400]", pkg=ime_pkg,
                             desc="keyboard", clickable=True))
    with VirtualPhone(bare_app(tmp_path, {"s": app + ime}), port=free_port()) as phone:
        yield phone


def test_a_ref_under_the_keyboard_is_refused_before_anything_is_sent(keyboard_phone, adb_key):
    with connect(keyboard_phone.address, keys=[adb_key]) as page:
        snap = page.snapshot()
        (buy,) = page.find({"text": "Buy now"})
        assert snap.refs[buy.ref].covered and "[covered]" in snap.text
        since = keyboard_phone.events.last_seq
        for act in (page.tap, page.long_press, lambda r: page.type(r, "x")):
            with pytest.raises(RefCovered) as exc:
                act(buy.ref)
            assert "keyboard" in str(exc.value) and exc.value.code == "REF_COVERED"
        # nothing but the freshness checks (did the screen draw since the snapshot?)
        assert without_frame_reads(keyboard_phone.events.commands(since=since)) == []
        page.tap({"text": "Details"})  # uncovered refs work as ever
        assert keyboard_phone.events.list("tap")[-1]["y"] == 400


def test_taps_can_target_another_display(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as page:
        since = phone.events.last_seq
        page.device.tap(10, 20, display=2)
        page.device.swipe(1, 2, 3, 4, 100, display=2)
        assert phone.events.commands(since=since) == [
            ["input", "-d", "2", "tap", "10", "20"],
            ["input", "-d", "2", "swipe", "1", "2", "3", "4", "100"],
        ]
