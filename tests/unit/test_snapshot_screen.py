"""What needs the whole dump: the screen's edges, windows on top of refs, displays, the app."""

from __future__ import annotations

import time

import pytest

from baremobile.snapshot import from_xml, parse, render
from tests.snapshot_helpers import corpus_dir, corpus_missing, dump, node, recall

FL = "android.widget.FrameLayout"
TV = "android.widget.TextView"
BTN = "android.widget.Button"
SCREEN = (0, 0, 1080, 2400)
GBOARD = "com.google.android.inputmethod.latin"


def centers(snap) -> dict[int, tuple[int, int]]:
    return {r: snap.refs[r].center for r in snap.refs}


def assert_tappable(snap) -> None:
    """Every tap point lies in its ref's visible bounds, and on the screen when known."""
    for r in snap.refs:
        ref = snap.refs[r]
        x1, y1, x2, y2 = ref.bounds
        cx, cy = ref.center
        assert x1 <= cx < x2 and y1 <= cy < y2, (r, ref.bounds, ref.center)
        assert cx >= 0 and cy >= 0, (r, ref.center)
        if snap.width and ref.display == 0:
            assert cx < snap.width and cy < snap.height, (r, ref.center)


# --- the screen's edges (item: tap points off screen) ---------------------------------------


def test_zero_area_root_with_an_off_screen_child_gives_no_ref():
    xml = (
        b'<hierarchy><node bounds="[0,0][0,0]"><node clickable="true" text="x" '
        b'bounds="[-500,-500][-100,-100]"/></node></hierarchy>'
    )
    snap = from_xml(xml)
    assert snap.text == "" and len(snap.refs) == 0


def test_a_root_partly_off_screen_is_clipped_to_the_screen():
    snap = from_xml(
        b'<hierarchy><node clickable="true" text="x" bounds="[-500,-500][100,100]"/></hierarchy>'
    )
    assert snap.text == '# 100x100 square\n- app\n  - View [ref=1] "x"'
    assert snap.refs[1].bounds == (0, 0, 100, 100) and snap.refs[1].center == (50, 50)
    assert snap.refs[1].raw_bounds == (-500, -500, 100, 100)


def test_zero_area_root_children_are_clipped_to_the_other_windows_screen():
    # the zero-area window comes first: the screen (1080x2400) is only known at the end
    ghost = node(
        FL,
        (0, 0, 0, 0),
        node(BTN, (2000, 3000, 2100, 3100), text="beyond", clickable=True),
        node(BTN, (1000, 2300, 1500, 2600), text="edge", clickable=True),
        node(BTN, (-50, 10, 50, 60), text="left", clickable=True),
    )
    app = node(FL, SCREEN, node(BTN, (0, 500, 1080, 600), text="Go", clickable=True))
    snap = from_xml(dump(ghost, app))
    assert snap.text == (
        "# 1080x2400 portrait\n"
        "- app com.example\n"
        '  - Button [ref=1] "edge"\n  - Button [ref=2] "left"\n'
        "- app com.example\n"
        '  - Button [ref=3] "Go"'
    )  # "beyond" lost its ref and its line; the refs after it were renumbered
    assert snap.refs[1].bounds == (1000, 2300, 1080, 2400)
    assert snap.refs[2].bounds == (0, 10, 50, 60)
    assert snap.refs[3].center == (540, 550)
    assert render(parse(snap.text)) == snap.text
    assert_tappable(snap)


def test_zero_area_root_alone_keeps_its_on_screen_children():
    xml = dump(node(FL, (0, 0, 0, 0), node(BTN, (10, 10, 110, 60), text="ok", clickable=True)))
    snap = from_xml(xml)
    assert snap.text == '- app com.example\n  - Button [ref=1] "ok"' and snap.size == (0, 0)
    assert snap.refs[1].center == (60, 35)


# --- windows on top (item: tap points under the keyboard) ------------------------------------


def _app_and_keyboard(*, keyboard_first: bool, button: tuple[int, int, int, int]) -> bytes:
    app = node(
        FL,
        SCREEN,
        node(BTN, button, text="Send", clickable=True),
        node(BTN, (0, 200, 1080, 300), text="Top", clickable=True),
        package="com.app",
    )
    ime = node(
        FL,
        (0, 1500, 1080, 2400),
        node(BTN, (0, 1500, 540, 2400), desc="q", clickable=True, package=GBOARD),
        node(BTN, (540, 1500, 1080, 2400), desc="Go", clickable=True, package=GBOARD),
        package=GBOARD,
    )
    return dump(ime, app) if keyboard_first else dump(app, ime)


@pytest.mark.parametrize("keyboard_first", [False, True])
def test_a_tap_point_under_the_keyboard_moves_to_the_uncovered_part(keyboard_first):
    # the button reaches from 1400 to 1600; the keyboard starts at 1500
    snap = from_xml(_app_and_keyboard(keyboard_first=keyboard_first, button=(0, 1400, 1080, 1600)))
    send = snap.find(text="Send")[0]
    ref = snap.refs[send.ref]
    assert ref.bounds == (0, 1400, 1080, 1600)
    assert ref.center == (540, 1450) and send.center == (540, 1450)  # not (540, 1500)
    assert not ref.covered and "covered" not in ref.states
    assert snap.package == "com.app"
    assert_tappable(snap)
    assert not recall(
        _app_and_keyboard(keyboard_first=keyboard_first, button=(0, 1400, 1080, 1600)),
        snap.text,
        centers(snap),
    ).missed


@pytest.mark.parametrize("keyboard_first", [False, True])
def test_a_ref_wholly_under_the_keyboard_is_marked_covered(keyboard_first):
    xml = _app_and_keyboard(keyboard_first=keyboard_first, button=(0, 1800, 1080, 1900))
    snap = from_xml(xml)
    send = snap.find(text="Send")[0]
    ref = snap.refs[send.ref]
    assert ref.covered and ref.states == ("covered",)
    assert f'  - Button [ref={send.ref}] "Send" [covered]' in snap.text.split("\n")
    assert ref.center == (540, 1850)  # kept (the ref stays usable once the keyboard is gone)
    top = snap.refs[snap.find(text="Top")[0].ref]
    assert not top.covered and top.center == (540, 250)
    assert not recall(xml, snap.text, centers(snap)).missed
    assert render(parse(snap.text)) == snap.text


def test_keyboard_keys_themselves_are_not_covered():
    snap = from_xml(_app_and_keyboard(keyboard_first=False, button=(0, 1800, 1080, 1900)))
    go = snap.refs[snap.find(desc="Go")[0].ref]
    assert not go.covered and go.center == (810, 1950)


def test_only_what_the_upper_window_shows_covers():
    # a keyboard window spanning the bottom half whose only content is a small toolbar
    # (Gboard's stylus toolbar): the rest of the window lets taps through
    ime = node(
        FL,
        (0, 1200, 1080, 2400),
        node(
            FL,
            (20, 1200, 170, 1900),
            node(BTN, (30, 1210, 160, 1300), desc="Go", clickable=True),
            clickable=True,
        ),
        package=GBOARD,
    )
    app = node(
        FL,
        SCREEN,
        node(BTN, (0, 1500, 1080, 1600), text="Row", clickable=True),
        node(BTN, (8, 1700, 92, 1780), desc="Star", clickable=True),
        package="com.app",
    )
    snap = from_xml(dump(app, ime))
    row = snap.refs[snap.find(text="Row")[0].ref]
    assert row.center == (540, 1550)  # not under the toolbar: unchanged
    star = snap.refs[snap.find(desc="Star")[0].ref]
    assert star.center == (14, 1740)  # the strip left of the toolbar


def test_status_bar_covers_the_app_in_a_windows_dump():
    app = node(
        FL, SCREEN, node(BTN, (0, 40, 1080, 200), text="Title", clickable=True), package="com.app"
    )
    bar = node(
        FL, (0, 0, 1080, 80), node(TV, (0, 0, 100, 80), text="9:41"), package="com.android.systemui"
    )

    def windows_dump(layers: bool) -> str:
        lay = ('layer="1" ', 'layer="0" ') if layers else ("", "")
        return (
            '<displays><display id="0">'
            f'<window index="0" title="Status bar" bounds="[0,0][1080,80]" {lay[0]}'
            f'type="TYPE_SYSTEM"><hierarchy rotation="0">{bar}</hierarchy></window>'
            f'<window index="1" title="App" bounds="[0,0][1080,2400]" {lay[1]}'
            f'type="TYPE_APPLICATION"><hierarchy rotation="0">{app}</hierarchy></window>'
            "</display></displays>"
        )

    for layers in (True, False):
        snap = from_xml(windows_dump(layers))
        # the title's middle (540, 120) is free; its top band is not
        assert snap.refs[1].center == (540, 120)
    # a title wholly under the bar: moved below it
    app2 = app.replace("[0,40][1080,200]", "[0,20][1080,120]")
    snap = from_xml(windows_dump(True).replace(app, app2))
    assert snap.refs[1].center == (540, 100)


def test_a_dialog_inside_the_app_window_is_on_top():
    activity = node(
        FL,
        SCREEN,
        node(BTN, (0, 900, 1080, 1100), text="Behind", clickable=True),
        package="com.app",
    )
    dialog = node(
        FL,
        (90, 700, 990, 1300),
        node(BTN, (120, 1150, 960, 1250), text="OK", clickable=True),
        package="com.app",
    )
    for order in ((activity, dialog), (dialog, activity)):
        snap = from_xml(dump(*order))
        assert sorted(w.kind for w in snap.windows) == ["app", "dialog"]
        behind = snap.refs[snap.find(text="Behind")[0].ref]
        # a dialog is modal: a tap beside it would not reach the app, so no tap point is
        # looked for around it and nothing is marked covered — the whole app is behind the
        # dialog (its header says so; the Page refuses the app's refs, RefCovered)
        assert behind.center == (540, 1000) and not behind.covered
        ok = snap.refs[snap.find(text="OK")[0].ref]
        assert ok.center == (540, 1200) and not ok.covered


def test_same_windows_side_by_side_do_not_cover_each_other():
    left = node(
        FL,
        (0, 0, 540, 2400),
        node(BTN, (0, 0, 540, 100), text="L", clickable=True),
        package="com.a",
    )
    right = node(
        FL,
        (540, 0, 1080, 2400),
        node(BTN, (540, 0, 1080, 100), text="R", clickable=True),
        package="com.b",
    )
    snap = from_xml(dump(left, right))
    assert [snap.refs[r].center for r in snap.refs] == [(270, 50), (810, 50)]


CORPUS_COVERED = {"027_adipec.xml": (27, 30, 33, 36), "133_adipec.xml": (14, 16, 18, 20)}


@pytest.mark.skipif(
    not (corpus_dir() / "dumps" / "027_adipec.xml").exists(), reason=corpus_missing()
)
@pytest.mark.parametrize("name", sorted(CORPUS_COVERED))
def test_corpus_refs_under_gboard_get_an_uncovered_tap_point(name):
    data = (corpus_dir() / "dumps" / name).read_bytes()
    snap = from_xml(data)
    keyboard = [snap.refs[r] for r in snap.refs if snap.refs[r].package == GBOARD]
    assert keyboard
    toolbar = keyboard[0].bounds  # the stylus toolbar that holds every key: (21,900)-(169,1590)
    assert toolbar == (21, 900, 169, 1590)
    for r in snap.refs:
        ref = snap.refs[r]
        if ref.package == GBOARD:
            continue
        x, y = ref.center
        under = toolbar[0] <= x < toolbar[2] and toolbar[1] <= y < toolbar[3]
        assert not under, (r, ref.label, ref.center)
        assert not ref.covered
    moved = {r: snap.refs[r].center for r in CORPUS_COVERED[name]}
    assert all(c[0] == 14 or c[1] >= 1590 for c in moved.values()), moved
    # the "Add to my Favorites" switch the reviewer found under the "Go" key
    fav = snap.refs[CORPUS_COVERED[name][1]]
    assert fav.label.startswith("Add to my Favorites") and fav.center == (14, 1222)
    assert not recall(data, snap.text, centers(snap)).missed
    assert_tappable(snap)


def test_covering_many_windows_stays_cheap():
    """Hundreds of stacked windows and thousands of refs: bounded, like plain parsing."""
    rows = [node(BTN, (0, y, 1080, y + 2), text=f"r{y}", clickable=True) for y in range(0, 2400, 2)]
    app = node(FL, SCREEN, *rows, package="com.app")
    popups = [
        node(
            FL,
            (i, i, 1080 - i, 2400 - i),
            node(TV, (i, i, i + 10, i + 10), text=f"p{i}"),
            package="com.app",
        )
        for i in range(1, 400)
    ]
    stacked = dump(app, *popups)
    # the same windows on another display cover nothing: the same parse, no covering work
    apart = dump(app, *[p.replace("<node ", '<node display-id="1" ', 1) for p in popups])
    assert len(apart) - len(stacked) == len(' display-id="1"') * len(popups)

    def best(xml: bytes) -> float:
        out = []
        for _ in range(3):
            t0 = time.perf_counter()
            from_xml(xml)
            out.append(time.perf_counter() - t0)
        return min(out)

    assert best(stacked) < 3 * best(apart)


# --- displays -------------------------------------------------------------------------------


def _display_dump(first: int, second: int) -> str:
    def window(title: str, size: tuple[int, int], label: str, pkg: str) -> str:
        w, h = size
        return (
            f'<window index="0" title="{title}" bounds="[0,0][{w},{h}]" focused="false" '
            f'type="TYPE_APPLICATION"><hierarchy rotation="0">'
            + node(
                FL, (0, 0, w, h), node(BTN, (0, 0, w, h), text=label, clickable=True), package=pkg
            )
            + "</hierarchy></window>"
        )

    return (
        f'<displays><display id="{first}">'
        + window("Main", (1080, 2400), "Phone OK", "com.phone")
        + f'</display><display id="{second}">'
        + window("Cast", (1920, 1080), "TV Play", "com.tv")
        + "</display></displays>"
    )


def test_other_displays_are_marked_and_do_not_set_the_screen():
    snap = from_xml(_display_dump(0, 2))
    assert snap.text == (
        "# 1080x2400 portrait\n"
        '- app com.phone "Main"\n  - Button [ref=1] "Phone OK"\n'
        '- app com.tv "Cast" [display=2]\n  - Button [ref=2] "TV Play"'
    )
    assert snap.size == (1080, 2400) and snap.package == "com.phone"
    assert snap.refs[1].display == 0 and snap.refs[2].display == 2
    assert snap.refs.node(2).display == 2
    assert render(parse(snap.text)) == snap.text
    assert parse(snap.text).children[1].states == ("display=2",)
    # display 0 listed second: still the default
    snap = from_xml(_display_dump(2, 0))
    assert snap.size == (1920, 1080) and snap.package == "com.tv"
    assert snap.text.startswith('# 1920x1080 landscape\n- app com.phone "Main" [display=2]')


def test_without_display_0_the_first_display_is_the_default():
    snap = from_xml(_display_dump(3, 5))
    assert snap.size == (1080, 2400) and snap.package == "com.phone"
    assert '- app com.phone "Main"\n' in snap.text and '"Cast" [display=5]\n' in snap.text
    assert snap.refs[1].display == 3


def test_windows_of_different_displays_never_cover_each_other():
    snap = from_xml(_display_dump(0, 2))
    assert not snap.refs[1].covered and snap.refs[1].center == (540, 1200)


def test_plain_dump_with_display_ids_on_roots():
    main = node(
        FL,
        SCREEN,
        node(BTN, (0, 0, 100, 100), text="A", clickable=True),
        package="com.a",
        extra={"display-id": "0"},
    )
    other = node(
        FL,
        (0, 0, 1920, 1080),
        node(BTN, (0, 0, 100, 100), text="B", clickable=True),
        package="com.b",
        extra={"display-id": "4"},
    )
    snap = from_xml(dump(main, other))
    assert snap.text == (
        "# 1080x2400 portrait\n"
        '- app com.a\n  - Button [ref=1] "A"\n- app com.b [display=4]\n  - Button [ref=2] "B"'
    )
    assert snap.size == (1080, 2400) and snap.package == "com.a"
    assert snap.refs[2].display == 4 and snap.refs[1].display == 0
    assert render(parse(snap.text)) == snap.text


@pytest.mark.parametrize(
    "ime",
    [
        "com.samsung.android.honeyboard",
        "com.touchtype.swiftkey",
        "com.google.android.inputmethod.latin",
        "com.sohu.inputmethod.sogou",
        "com.baidu.input_huawei",
        "com.iflytek.inputmethod",
        "com.tencent.qqpinyin",
    ],
)
def test_package_is_never_the_keyboard(ime):
    # a small app dialog and a keyboard larger than it
    dialog = node(
        FL,
        (90, 700, 990, 1300),
        node("android.widget.EditText", (120, 800, 960, 900), text="Rename"),
        package="com.app",
    )
    keyboard = node(
        FL,
        (0, 1400, 1080, 2400),
        node(BTN, (0, 1400, 100, 1500), text="q", clickable=True, package=ime),
        package=ime,
    )
    assert from_xml(dump(dialog, keyboard)).package == "com.app"
    assert from_xml(dump(keyboard, dialog)).package == "com.app"
