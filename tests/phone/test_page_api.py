"""Page API edges: validation before anything reaches the device, closed pages, options."""

from __future__ import annotations

import pytest

from baremobile import Selector, connect
from baremobile.android.keycodes import KEYCODES, keycode
from baremobile.android.text_input import MAX_PIECE, typing_plan
from baremobile.errors import InvalidArgument, PageClosed, RefNotFound

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def test_a_single_digit_is_the_digit_key_not_a_keycode():
    assert keycode("5") == KEYCODES["5"] == 12  # not 5 (CALL)
    assert keycode(5) == 5 and keycode("66") == 66 and keycode("KEYCODE_5") == 12


def test_selectors_are_validated_however_they_are_built():
    with pytest.raises(InvalidArgument, match="at least one"):
        Selector()
    with pytest.raises(InvalidArgument, match="index"):
        Selector(text="x", index=-1)
    with pytest.raises(InvalidArgument, match="unknown selector"):
        Selector.of({"txt": "x"})
    with pytest.raises(InvalidArgument, match="must be a string"):
        Selector.of({"text": 5})
    assert Selector.of({"resource_id": "a:id/b"}).id == "a:id/b"


def test_long_words_are_typed_in_small_pieces():
    plan = typing_plan("x" * (MAX_PIECE * 2 + 5) + " '" + "'" * 3000)
    assert all(len(argv[2]) <= MAX_PIECE for argv in plan if argv[1] == "text")
    typed = "".join(argv[2] if argv[1] == "text" else " " for argv in plan)
    assert typed == "x" * (MAX_PIECE * 2 + 5) + " '" + "'" * 3000


def test_a_missing_selector_costs_one_fresh_snapshot(page, phone):
    page.snapshot()
    before = len(phone.events.list("dump"))
    with pytest.raises(RefNotFound):
        page.tap({"text": "not on this screen"})
    assert len(phone.events.list("dump")) == before + 1


def test_push_and_pull_arguments(page, tmp_path):
    local = tmp_path / "f.txt"
    local.write_bytes(b"from a file")
    page.push(local, "/sdcard/Download/f.txt")
    page.push(str(local), "/sdcard/Download/g.txt")
    assert page.pull("/sdcard/Download/g.txt") == b"from a file"
    with pytest.raises(InvalidArgument, match="cannot read local file"):
        page.push(str(tmp_path / "missing"), "/sdcard/x")
    with pytest.raises(InvalidArgument, match="bytes or a local path"):
        page.push(5, "/sdcard/x")  # type: ignore[arg-type]
    for bad in ("", None, "a\0b"):
        with pytest.raises(InvalidArgument, match="device path"):
            page.pull(bad)  # type: ignore[arg-type]
    assert page.pull("/sdcard/Download/f.txt") == b"from a file"  # the connection survived


def test_wait_arguments_are_checked(page):
    with pytest.raises(InvalidArgument, match="interval"):
        page.wait_for_text("x", interval=-1)
    with pytest.raises(InvalidArgument, match="timeout"):
        page.wait_for_text("x", timeout=float("nan"))


def test_a_closed_page_refuses_instead_of_reconnecting(phone, adb_key):
    page = connect(phone.address, keys=[adb_key])
    page.snapshot()
    page.close()
    connections = len(phone.events.list("connect"))
    with pytest.raises(PageClosed):
        page.snapshot()
    with pytest.raises(PageClosed):
        page.tap_xy(1, 1)
    assert len(phone.events.list("connect")) == connections
    page.close()  # twice is fine


def test_connect_options_are_checked():
    with pytest.raises(InvalidArgument, match="timout"):
        connect("virtual", timout=1)
    with pytest.raises(InvalidArgument, match="two scenarios"):
        connect("virtual:a.yaml", scenario="b.yaml")


def test_logcat_tags_cannot_become_options(page, phone):
    since = phone.events.last_seq
    for bad in ("-c", "-G16M", "--clear", "a b", "", "tag:X"):
        with pytest.raises(InvalidArgument, match="log tag"):
            page.read_log(tag=bad)
    assert phone.events.commands(since=since) == []
    page.read_log(tag="VirtualPhone:I")


def test_a_final_newline_never_passes_a_safe_pattern():
    from baremobile.android.shell_words import quote, validate_action, validate_package

    assert quote("0\n") == "'0\n'"
    with pytest.raises(InvalidArgument):
        validate_package("com.android.settings\n")
    with pytest.raises(InvalidArgument):
        validate_action("android.intent.action.VIEW\n")
