"""Window headers, the screen line, condensed system bars and ``#id`` on bare refs."""

from __future__ import annotations

import pytest

from baremobile import connect
from baremobile.snapshot import from_xml, parse, render
from tests.snapshot_helpers import body, corpus_dir, corpus_files, dump, node, recall

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)

FL = "android.widget.FrameLayout"
LL = "android.widget.LinearLayout"
TV = "android.widget.TextView"
BTN = "android.widget.Button"
IMG = "android.widget.ImageView"
SYSUI = "com.android.systemui"
GBOARD = "com.google.android.inputmethod.latin"


def kinds(xml) -> list[tuple[str, str]]:
    return [(w.kind, w.package) for w in from_xml(xml).windows]


def app(bounds=(0, 0, 1080, 2400), pkg="com.app", label="Go"):
    x1, y1, x2, y2 = bounds
    top = y1 + 300 if y2 - y1 > 600 else y1
    return node(FL, bounds, node(BTN, (x1, top, x2, top + 100), text=label, clickable=True),
                package=pkg)


def bar(bounds, *kids, pkg=SYSUI):
    return node(FL, bounds, *kids, package=pkg)


def test_plain_dump_windows_by_package_and_place():
    status = bar((0, 0, 1080, 130), node(TV, (0, 0, 200, 130), text="9:41"))
    nav = bar((0, 2270, 1080, 2400),
              node(IMG, (100, 2270, 300, 2400), desc="Back", clickable=True),
              node(IMG, (400, 2270, 600, 2400), desc="Home", clickable=True))
    ime = bar((0, 1600, 1080, 2270), node(BTN, (0, 1600, 100, 1700), text="q", clickable=True),
              pkg=GBOARD)
    dialog = app((100, 800, 980, 1400), label="OK")
    handle = app((1040, 400, 1080, 800), pkg="com.other", label="edge")
    assert kinds(dump(status, app(), dialog, handle, ime, nav)) == [
        ("status bar", ""),
        ("app", "com.app"),
        ("dialog", "com.app"),
        ("window", "com.other"),
        ("keyboard", ""),
        ("navigation bar", ""),
    ]
    snap = from_xml(dump(status, app(), dialog, ime, nav))
    assert snap.text == (
        "# 1080x2400 portrait\n"
        '- status bar: "9:41"\n'
        "- app com.app\n"
        '  - Button [ref=1] "Go"\n'
        "- dialog com.app\n"
        '  - Button [ref=2] "OK"\n'
        "- keyboard\n"
        '  - Button [ref=3] "q"\n'
        "- navigation bar: [ref=4] (Back), [ref=5] (Home)"
    )
    assert render(parse(snap.text)) == snap.text
    # the condensed bar's refs are refs like any other
    assert snap.refs[5].desc == "Home" and snap.refs[5].center == (500, 2335)
    assert not any(snap.refs[r].covered for r in snap.refs)
    assert not recall(dump(status, app(), dialog, ime, nav), snap.text,
                      {r: snap.refs[r].center for r in snap.refs}).missed


def test_landscape_side_navigation_bar_and_the_notification_shade():
    side = bar((2280, 0, 2400, 1080), node(IMG, (2280, 400, 2400, 500), desc="Back",
                                          clickable=True))
    land = dump(app((0, 0, 2280, 1080)), side, rotation=1)
    assert kinds(land) == [("app", "com.app"), ("navigation bar", "")]
    assert from_xml(land).text.startswith("# 2400x1080 landscape\n")
    shade = bar((0, 0, 1080, 2400), node(TV, (0, 100, 500, 200), text="Wi-Fi"))
    assert kinds(dump(shade)) == [("notification shade", "")]
    other = bar((800, 1000, 1080, 1500), node(TV, (800, 1000, 1080, 1100), text="vol"))
    assert kinds(dump(app(), other))[1] == ("window", "com.android.systemui")  # not guessed


def test_split_screen_apps_are_both_apps():
    assert kinds(dump(app((0, 0, 1080, 1190), "com.a"), app((0, 1210, 1080, 2400), "com.b"))) \
        == [("app", "com.a"), ("app", "com.b")]


def _window(kind: str, title: str, bounds, inner: str, focused: bool = False) -> str:
    x1, y1, x2, y2 = bounds
    return (
        f'<window index="0" title="{title}" bounds="[{x1},{y1}][{x2},{y2}]" '
        f'focused="{"true" if focused else "false"}" type="{kind}">'
        f'<hierarchy rotation="0">{inner}</hierarchy></window>'
    )


def test_windows_dump_types_and_titles():
    # getWindows() lists the top window first
    xml = (
        '<displays><display id="0">'
        + _window("TYPE_SYSTEM", "Status bar", (0, 0, 1080, 130),
                  bar((0, 0, 1080, 130), node(TV, (0, 0, 200, 130), text="9:41")))
        + _window("TYPE_SYSTEM", "NavigationBar0", (0, 2270, 1080, 2400),
                  bar((0, 2270, 1080, 2400), node(IMG, (0, 2270, 300, 2400), desc="Back",
                                                  clickable=True)))
        + _window("TYPE_ACCESSIBILITY_OVERLAY", "Menu", (0, 1000, 100, 1100),
                  app((0, 1000, 100, 1100), pkg="com.access", label="m"))
        + _window("TYPE_INPUT_METHOD", "Gboard", (0, 1600, 1080, 2270),
                  bar((0, 1600, 1080, 2270), node(BTN, (0, 1600, 100, 1700), text="q",
                                                  clickable=True), pkg=GBOARD))
        + _window("TYPE_APPLICATION", "Pick", (100, 800, 980, 1400),
                  app((100, 800, 980, 1400), pkg="com.android.settings", label="OK"))
        + _window("TYPE_APPLICATION", "Settings", (0, 0, 1080, 2400),
                  app(pkg="com.android.settings"), focused=True)
        + "</display></displays>"
    )
    text = from_xml(xml).text
    assert text == (
        "# 1080x2400 portrait\n"
        '- status bar: "9:41"\n'
        "- navigation bar: [ref=1] (Back)\n"
        '- window com.access "Menu"\n'
        '  - Button [ref=2] "m"\n'
        "- keyboard\n"
        '  - Button [ref=3] "q"\n'
        '- dialog com.android.settings "Pick"\n'
        '  - Button [ref=4] "OK"\n'
        '- app com.android.settings "Settings" [focused]\n'
        '  - Button [ref=5] "Go"'
    )


def test_a_bar_is_condensed_only_when_that_is_shorter():
    long_label = "x" * 30
    one = bar((0, 0, 1080, 130), node(TV, (0, 0, 500, 130), text=long_label))
    assert f'- status bar: "{long_label}"' in from_xml(dump(one, app())).text
    grouped = bar((0, 0, 1080, 130), node(FL, (0, 0, 1080, 130),
                                          node(TV, (0, 0, 100, 130), text="9:41"),
                                          node(FL, (500, 0, 1080, 130),
                                               node(IMG, (500, 0, 600, 130), desc="Wi-Fi"),
                                               node(IMG, (600, 0, 700, 130), desc="Battery"))))
    text = from_xml(dump(grouped, app())).text
    assert '- status bar: "9:41", (Wi-Fi), (Battery)\n' in text


def test_a_root_with_something_to_say_is_kept_under_the_header():
    root = node(FL, (0, 0, 1080, 2400), node(BTN, (0, 0, 100, 100), text="a", clickable=True),
                node(BTN, (0, 100, 100, 200), text="b", clickable=True), selected=True,
                package="com.app")
    assert from_xml(dump(root)).text == (
        "# 1080x2400 portrait\n- app com.app\n  - Group [selected]\n"
        '    - Button [ref=1] "a"\n    - Button [ref=2] "b"'
    )


def test_an_empty_foreground_app_is_still_named():
    game = node("android.view.SurfaceView", (0, 0, 1080, 2400), package="com.game")
    assert from_xml(dump(game)).text == "# 1080x2400 portrait\n- app com.game"


# --- #id --------------------------------------------------------------------------------


def test_bare_refs_show_their_id_and_nothing_else_does():
    xml = dump(node(
        FL,
        (0, 0, 1080, 2400),
        node(IMG, (0, 0, 100, 100), clickable=True, rid="com.app:id/send_button"),
        node(IMG, (0, 100, 100, 200), clickable=True, rid="com.app:id/x", desc="Close"),
        node(FL, (0, 200, 100, 300), node(TV, (0, 200, 100, 300), text="Row"),
             clickable=True, rid="com.app:id/row"),
        node(IMG, (0, 300, 100, 400), clickable=True, rid="com.app:id/(name removed)"),
        node(IMG, (0, 400, 100, 500), clickable=True, rid="testTag"),
        node(IMG, (0, 500, 100, 600), clickable=True),
        node(TV, (0, 600, 100, 700), rid="com.app:id/label_only", text=""),
        node("android.widget.EditText", (0, 700, 100, 800), rid="com.app:id/q",
             extra={"hint": "Search"}),
        package="com.app",
    ))
    snap = from_xml(xml)
    assert snap.text == (
        "# 1080x2400 portrait\n- app com.app\n"
        "  - Image [ref=1] #send_button\n"
        "  - Image [ref=2] (Close)\n"
        '  - Group [ref=3] "Row"\n'
        "  - Image [ref=4]\n"  # an id that could not be read back is not shown
        "  - Image [ref=5] #testTag\n"  # a Compose test tag is the whole id
        "  - Image [ref=6]\n"
        "  - TextInput [ref=7] (Search)"
    )
    assert parse(snap.text).children[0].children[0].id_name == "send_button"
    assert snap.find(resource_id="send_button")[0].ref == 1


def test_a_bare_ref_without_an_id_takes_that_of_the_icon_it_holds():
    """The first pruned descendant with a readable id names a bare ref that has none (an
    icon button whose ImageView carries the id); never a labelled ref or one with an id."""
    icon = node(IMG, (10, 10, 90, 90), rid="com.app:id/title_bar_img")
    xml = dump(node(
        FL,
        (0, 0, 1080, 2400),
        node(LL, (0, 0, 100, 100), node(FL, (0, 0, 100, 100),
                                        node(IMG, (5, 5, 95, 95), rid="com.app:id/(x)"), icon),
             clickable=True),
        node(LL, (0, 100, 100, 200), icon.replace("title_bar_img", "inner"), clickable=True,
             rid="com.app:id/own"),
        node(LL, (0, 200, 100, 300), icon.replace("title_bar_img", "star"), clickable=True,
             desc="Favourite"),
        node(LL, (0, 300, 100, 400), node(IMG, (0, 300, 100, 400), clickable=True,
                                          rid="com.app:id/nested")),
        package="com.app",
    ))
    snap = from_xml(xml)
    assert body(snap.text) == (
        "- Group [ref=1] #title_bar_img\n"
        "- Group [ref=2] #own\n"
        "- Group [ref=3] (Favourite)\n"
        "- Image [ref=4] #nested"
    )
    assert snap.refs[1].resource_id == ""  # the line names it; its own id is still none


# --- on the virtual phone and the corpus ---------------------------------------------------


def test_the_virtual_phone_names_its_windows(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as page:
        page.launch("com.android.settings")
        page.tap({"text": "Display"})
        page.scroll_until({"text": "Screen timeout"}, {"role": "List"})
        page.tap({"text": "Screen timeout"})
        snap = page.snapshot()
        headers = [ln for ln in snap.text.split("\n") if ln.startswith("- ")]
        assert snap.text.startswith("# 1080x2400 portrait\n")
        assert [h.split(":")[0] for h in headers] == [
            "- status bar",
            "- app com.android.settings",
            "- dialog com.android.settings",
            "- navigation bar",
        ]
        page.back()  # the dialog goes
        assert "- dialog" not in page.snapshot().text
        page.launch("com.android.settings")
        page.back()
        page.launch("com.android.settings")
        page.tap({"text": "Search Settings"})
        text = page.snapshot().text
        assert "\n- app com.android.settings.intelligence\n" in text
        assert "\n- keyboard\n" in text


CORPUS = {p.name: p for p in corpus_files()}


@pytest.mark.skipif(not CORPUS, reason="the corpus is not there")
@pytest.mark.parametrize(("name", "expected"), [
    ("020_development.xml", ["app", "window", "status bar", "navigation bar"]),
    ("027_adipec.xml", ["keyboard", "app", "status bar"]),
    ("031_global.xml", ["navigation bar", "status bar", "app"]),
    ("059_systemui.xml", ["status bar", "app"]),  # landscape
    ("130_whatsapp.xml", ["status bar", "window", "app", "navigation bar"]),
    ("160_systemui.xml", ["notification shade"]),
    ("167_systemui.xml", ["notification shade"]),  # the lock screen lives there too
])
def test_corpus_windows(name, expected):
    snap = from_xml(CORPUS[name].read_bytes())
    assert [w.kind for w in snap.windows] == expected
    assert corpus_dir().is_dir()


def test_naming_many_windows_is_not_quadratic():
    """Each window was compared with every other (a 4,000-window dump took 15 s): only a
    display's largest windows are candidates for a dialog's container now."""
    import time

    def many(n: int) -> bytes:
        return dump(*(node(TV, (0, i % 2000, 100, i % 2000 + 1), text=f"t{i}",
                           package="p.q") for i in range(n)))

    def best(xml: bytes) -> float:
        times = []
        for _ in range(3):
            t = time.perf_counter()
            from_xml(xml)
            times.append(time.perf_counter() - t)
        return min(times)

    small, large = many(500), many(2000)
    assert len(from_xml(large).windows) == 2000
    assert best(large) / best(small) < 8  # quadratic: ~16


def test_a_dialog_inside_the_largest_of_many_app_windows_is_still_a_dialog():
    tiny = [app((0, i, 10, i + 1), pkg="com.app", label=f"x{i}") for i in range(60)]
    xml = dump(app(), *tiny, app((100, 800, 980, 1600), label="OK"))
    got = kinds(xml)
    assert got[0] == ("app", "com.app") and got[-1] == ("dialog", "com.app")
