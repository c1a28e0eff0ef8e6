"""The pruning rules, one small hand-built dump at a time."""

from __future__ import annotations

from baremobile.snapshot import from_xml, role_for_class
from baremobile.snapshot.prune import ECHO_LABEL_MAX
from tests.snapshot_helpers import best_times, body, dump, node, recall

TV = "android.widget.TextView"
FL = "android.widget.FrameLayout"
LL = "android.widget.LinearLayout"
BTN = "android.widget.Button"
IMG = "android.widget.ImageView"
EDIT = "android.widget.EditText"
VIEW = "android.view.View"
SCREEN = (0, 0, 1080, 2400)


def snap_text(*tops: str) -> str:
    """The rules' output: the window's lines under its header."""
    return body(from_xml(dump(*tops)).text)


def test_single_child_wrappers_collapse():
    xml = node(FL, SCREEN, node(LL, SCREEN, node(FL, SCREEN, node(TV, (0, 0, 100, 50), text="Hi"))))
    assert snap_text(xml) == '- Text "Hi"'


def test_empty_leaves_are_dropped():
    xml = node(FL, SCREEN, node(IMG, (0, 0, 10, 10)), node(TV, (0, 10, 10, 20), text="x"))
    assert snap_text(xml) == '- Text "x"'


def test_a_multi_child_group_stays():
    xml = node(
        FL,
        SCREEN,
        node(
            LL,
            (0, 0, 1080, 100),
            node(TV, (0, 0, 500, 100), text="a"),
            node(TV, (500, 0, 1080, 100), text="b"),
        ),
        node(TV, (0, 200, 100, 300), text="c"),
    )
    # the root FrameLayout says nothing: its window's header stands for it
    assert snap_text(xml) == '- Group\n  - Text "a"\n  - Text "b"\n- Text "c"'


def test_refs_for_every_kind_of_actionable_node_in_document_order():
    xml = node(
        FL,
        SCREEN,
        node(BTN, (0, 0, 10, 10), text="click", clickable=True),
        node(VIEW, (0, 10, 10, 20), desc="long", long_clickable=True),
        node("android.widget.CheckBox", (0, 20, 10, 30), text="check", checkable=True),
        node(
            "android.widget.ScrollView",
            (0, 30, 10, 40),
            node(TV, (0, 30, 10, 35), text="in"),
            scrollable=True,
        ),
        node(EDIT, (0, 40, 10, 50), text="typed"),
        node(VIEW, (0, 50, 10, 60), password=True),
    )
    snap = from_xml(dump(xml))
    assert body(snap.text) == (
        '- Button [ref=1] "click"\n'
        "- View [ref=2] (long)\n"
        '- CheckBox [ref=3] "check"\n'
        '- ScrollView [ref=4] "in"\n'
        '- TextInput [ref=5] "typed"\n'
        "- View [ref=6] [password]"
    )
    assert sorted(snap.refs) == [1, 2, 3, 4, 5, 6]
    assert snap.refs[4].scrollable and snap.refs[5].editable and snap.refs[6].editable
    assert snap.refs[1].clickable and snap.refs[2].long_clickable and snap.refs[3].checkable


def test_unlabelled_actionable_nodes_keep_their_ref():
    xml = node(FL, SCREEN, node(VIEW, (0, 0, 100, 100), clickable=True))
    assert snap_text(xml) == "- View [ref=1]"


def test_zero_area_and_offscreen_nodes_get_no_ref_and_no_line():
    xml = node(
        FL,
        SCREEN,
        node(BTN, (0, 0, 0, 0), text="zero", clickable=True),
        node(BTN, (2000, 3000, 2100, 3100), text="off", clickable=True),
        node(BTN, (5, 5, 50, 5), text="flat", clickable=True),
        node(BTN, (0, 0, 100, 100), text="on", clickable=True),
    )
    snap = from_xml(dump(xml))
    assert body(snap.text) == '- Button [ref=1] "on"'
    assert list(snap.refs) == [1]


def test_children_of_a_zero_area_node_survive():
    xml = node(
        FL, SCREEN, node(LL, (0, 0, 0, 0), node(BTN, (0, 0, 100, 100), text="ok", clickable=True))
    )
    assert snap_text(xml) == '- Button [ref=1] "ok"'


def test_invisible_to_user_nodes_are_dropped():
    xml = node(
        FL,
        SCREEN,
        node(
            BTN, (0, 0, 100, 100), text="hidden", clickable=True, extra={"visible-to-user": "false"}
        ),
        node(
            BTN, (0, 100, 100, 200), text="shown", clickable=True, extra={"visible-to-user": "true"}
        ),
    )
    assert snap_text(xml) == '- Button [ref=1] "shown"'


def test_sibling_dedup_of_identical_label_leaves_only():
    row = (0, 0, 1080, 100)
    xml = node(
        LL,
        row,
        node(TV, row, text="•"),
        node(TV, row, text="a"),
        node(TV, row, text="•"),
        node(BTN, row, text="•", clickable=True),
        node(BTN, row, text="•", clickable=True),
    )
    assert snap_text(xml) == (
        '- Text "•"\n- Text "a"\n- Button [ref=1] "•"\n- Button [ref=2] "•"'
    )


def test_label_folding_into_a_bare_ref():
    xml = node(
        LL,
        (0, 0, 500, 100),
        node(IMG, (0, 0, 50, 100)),
        node(TV, (50, 0, 500, 100), text="Wi-Fi"),
        clickable=True,
    )
    snap = from_xml(dump(xml))
    assert body(snap.text) == '- Group [ref=1] "Wi-Fi"'
    # the RefNode keeps the node's own (empty) text; the label is what the line shows
    assert snap.refs[1].text == "" and snap.refs[1].label == "Wi-Fi"


def test_no_folding_when_it_would_lose_something():
    xml = node(
        LL,
        (0, 0, 500, 100),
        node(TV, (0, 0, 250, 100), text="Wi-Fi"),
        node(TV, (250, 0, 500, 100), text="On"),
        clickable=True,
    )
    assert snap_text(xml) == '- Group [ref=1]\n  - Text "Wi-Fi"\n  - Text "On"'


def test_children_repeating_the_parent_label_go():
    xml = node(
        VIEW,
        (0, 0, 500, 100),
        node(TV, (0, 0, 100, 100), text="96"),
        node(TV, (100, 0, 500, 100), text="Posts"),
        desc="96 Posts",
        clickable=True,
    )
    assert snap_text(xml) == "- View [ref=1] (96 Posts)"


def test_anonymous_groups_inside_a_ref_flatten():
    xml = node(
        LL,
        (0, 0, 1080, 200),
        node(
            LL,
            (0, 0, 1080, 100),
            node(TV, (0, 0, 500, 100), text="Title"),
            node(TV, (500, 0, 1080, 100), text="12:00"),
        ),
        node(TV, (0, 100, 1080, 200), text="Body"),
        clickable=True,
    )
    assert snap_text(xml) == '- Group [ref=1]\n  - Text "Title"\n  - Text "12:00"\n  - Text "Body"'


def test_a_hidden_title_names_a_bare_tab():
    # tabs whose title view is collapsed to [0,0][0,0] (seen in the corpus)
    xml = node(
        LL,
        (0, 2200, 200, 2260),
        node(IMG, (60, 2200, 140, 2260)),
        node(TV, (0, 0, 0, 0), text="Home"),
        clickable=True,
    )
    assert snap_text(xml) == "- Group [ref=1] (Home)"


def test_states():
    xml = node(
        FL,
        SCREEN,
        node("android.widget.Switch", (0, 0, 10, 10), text="A", checkable=True, checked=True),
        node(TV, (0, 10, 10, 20), text="B", selected=True),
        node(EDIT, (0, 20, 10, 30), text="C", focused=True),
        node(BTN, (0, 30, 10, 40), text="D", clickable=True, enabled=False),
        node(TV, (0, 40, 10, 50), text="E", enabled=False),
        node(VIEW, (0, 50, 10, 60), text="F", scrollable=True),
        node("android.widget.ListView", (0, 60, 10, 70), text="G", scrollable=True),
    )
    assert snap_text(xml) == (
        '- Switch [ref=1] "A" [checked]\n'
        '- Text "B" [selected]\n'
        '- TextInput [ref=2] "C" [focused]\n'
        '- Button [ref=3] "D" [disabled]\n'
        '- Text "E"\n'
        '- View [ref=4] "F" [scrollable]\n'
        '- List [ref=5] "G"'
    )


def test_a_stateful_wrapper_repeating_its_child_state_collapses():
    tab = node(
        LL,
        (0, 0, 100, 100),
        node(IMG, (0, 0, 100, 100), desc="Grid", clickable=True, selected=True),
        selected=True,
    )
    assert snap_text(tab) == "- Image [ref=1] (Grid) [selected]"


def test_a_selected_node_shows_it_once_for_its_children():
    """ViewGroup.dispatchSetSelected selects every child of a selected view: under a line
    that shows [selected], the children's say nothing more (a tab's icon and title)."""
    tab = node(
        LL,
        (0, 0, 100, 100),
        node(IMG, (0, 0, 100, 50), selected=True),
        node(TV, (0, 50, 100, 100), text="首页", selected=True),
        clickable=True,
        selected=True,
    )
    # the icon was kept only for its state: it goes, and the title folds into the tab
    assert snap_text(tab) == '- Group [ref=1] "首页" [selected]'
    row = node(
        LL,
        (0, 0, 1080, 100),
        node(TV, (0, 0, 500, 100), text="Inbox", selected=True),
        node(TV, (500, 0, 1080, 100), text="3", selected=True),
        selected=True,
    )
    assert snap_text(row) == '- Group [selected]\n  - Text "Inbox"\n  - Text "3"'
    # not under a selected line: a selected label still says which one is chosen (a
    # segmented control whose current choice is not clickable)
    seg = node(
        LL,
        (0, 0, 1080, 100),
        node(TV, (0, 0, 500, 100), text="日程", selected=True),
        node(TV, (500, 0, 1080, 100), text="重要日", clickable=True),
    )
    assert snap_text(seg) == '- Text "日程" [selected]\n- Text [ref=1] "重要日"'


def test_desc_omitted_when_equal_to_text():
    xml = node(BTN, (0, 0, 10, 10), text="OK", desc="OK", clickable=True)
    assert snap_text(xml) == '- Button [ref=1] "OK"'


def test_hint_shown_as_desc_of_an_empty_field():
    hint = {"hint": "Search"}
    xml = node(
        FL,
        SCREEN,
        node(EDIT, (0, 0, 10, 10), text="Search", extra=hint),  # showing its hint
        node(EDIT, (0, 10, 10, 20), text="", extra=hint),  # empty, hint apart
        node(EDIT, (0, 20, 10, 30), text="cats", extra=hint),  # filled
    )
    assert snap_text(xml) == (
        "- TextInput [ref=1] (Search)\n- TextInput [ref=2] (Search)\n"
        '- TextInput [ref=3] "cats"'
    )


def test_blank_labels_count_as_none():
    xml = node(
        FL, SCREEN, node(TV, (0, 0, 10, 10), text="   "), node(TV, (0, 10, 10, 20), text=" x ")
    )
    assert snap_text(xml) == '- Text " x "'


def test_every_top_level_window_is_kept():
    status = node(
        FL,
        (0, 0, 1080, 80),
        node(TV, (10, 0, 100, 80), text="9:41"),
        package="com.android.systemui",
    )
    app = node(
        FL, SCREEN, node(BTN, (0, 500, 1080, 600), text="Go", clickable=True), package="com.app"
    )
    ime = node(
        FL,
        (0, 1600, 1080, 2400),
        node(VIEW, (0, 1600, 100, 1700), desc="q", clickable=True),
        package="com.google.android.inputmethod.latin",
    )
    snap = from_xml(dump(status, app, ime))
    assert snap.text == (
        "# 1080x2400 portrait\n"
        '- status bar: "9:41"\n'
        "- app com.app\n"
        '  - Button [ref=1] "Go"\n'
        "- keyboard\n"
        "  - View [ref=2] (q)"
    )
    assert snap.package == "com.app"
    assert (snap.width, snap.height) == (1080, 2400)


def test_tap_point_is_inside_bounds_clipped_to_parent():
    # a list row scrolled half out of its list: the tap point stays in the visible half
    row = node(LL, (0, 900, 1080, 1300), node(TV, (0, 900, 1080, 1300), text="row"), clickable=True)
    lst = node("androidx.recyclerview.widget.RecyclerView", (0, 200, 1080, 1000), row)
    snap = from_xml(dump(node(FL, SCREEN, lst)))
    ref = snap.refs[1]
    assert ref.raw_bounds == (0, 900, 1080, 1300)
    assert ref.bounds == (0, 900, 1080, 1000)
    x, y = ref.center
    assert 0 <= x < 1080 and 900 <= y < 1000


def test_child_drawn_outside_its_parent_is_clipped_to_the_window_instead():
    # Android views with clipChildren=false report children outside their parent
    xml = node(
        FL,
        SCREEN,
        node(FL, (0, 0, 1080, 100), node(BTN, (0, 200, 500, 300), text="out", clickable=True)),
    )
    snap = from_xml(dump(xml))
    assert body(snap.text) == '- Button [ref=1] "out"'
    assert snap.refs[1].bounds == (0, 200, 500, 300)


def test_roles():
    assert role_for_class("android.widget.TextView") == "Text"
    assert role_for_class("androidx.appcompat.widget.AppCompatEditText") == "TextInput"
    assert role_for_class("com.google.android.material.button.MaterialButton") == "Button"
    assert role_for_class("androidx.recyclerview.widget.RecyclerView") == "List"
    assert role_for_class("cn.futu.uikit.widget.textview.FtTextView") == "Text"
    assert role_for_class("com.example.MyFancyEditText") == "TextInput"
    assert role_for_class("androidx.appcompat.app.ActionBar.Tab") == "Tab"
    assert role_for_class("android.view.NotificationHeaderView$2") == "NotificationHeaderView"
    assert role_for_class("android.widget.SearchView$SearchAutoComplete") == "TextInput"
    assert role_for_class("X.joV") == "View"
    assert role_for_class("d9.k") == "View"
    assert role_for_class("") == "View"
    assert role_for_class("com.example.widget.StarRating") == "StarRating"


def test_role_names_never_break_the_grammar():
    for cls in ("a b.c d", 'x."q"', "a.(b)", "a.[c]", "a.Foo Bar"):
        role = role_for_class(cls)
        assert role.isidentifier(), (cls, role)


def test_hidden_labels_travel_through_stateful_nodes_and_skip_blank_text():
    # found by the random-dump recall property: a blank text must not hide a real desc,
    # and a kept (stateful) node between the hidden label and its ref must pass it on
    xml = node(
        "android.widget.FrameLayout",
        (0, 0, 10, 10),
        node(LL, (0, 0, 10, 10), node(FL, (0, 0, 0, 0), text="  ", desc="FAQ"), selected=True),
        checkable=True,
    )
    assert snap_text(xml) == "- Group [ref=1] (FAQ)\n  - Group [selected]"


def test_a_hidden_label_beats_the_hint_of_an_unlabelled_field():
    xml = node(EDIT, (0, 0, 100, 10), node(FL, (0, 0, 0, 0), desc="Amount"), extra={"hint": "0.00"})
    assert snap_text(xml) == "- TextInput [ref=1] (Amount)"


def test_echoes_are_only_looked_for_under_labels_of_bounded_length():
    def card(desc: str) -> str:
        return node(
            VIEW,
            (0, 0, 100, 100),
            node(TV, (0, 0, 50, 50), text="96"),
            node(TV, (50, 0, 100, 50), text="Posts"),
            desc=desc,
        )

    assert snap_text(card("96 Posts")) == "- View (96 Posts)"
    long_desc = "96 Posts " + "x" * ECHO_LABEL_MAX
    assert snap_text(card(long_desc)) == f'- View ({long_desc})\n  - Text "96"\n  - Text "Posts"'


def test_a_huge_label_over_many_children_is_not_quadratic():
    """A 3 MB parent label over 20k leaf children took 42 s (substring test per child).

    Compared with the same bytes where the 3 MB text sits on a sibling leaf instead.
    """
    big = "a" * 3_000_000
    kids = "".join(node(TV, (0, 0, 10, 10), text=f"a{i}b") for i in range(20_000))
    patho = dump(node(TV, (0, 0, 10, 10), kids, text=big))
    plain = dump(node(FL, (0, 0, 10, 10), node(TV, (0, 0, 10, 10), text=big), kids))
    assert abs(len(patho) - len(plain)) < 600
    base, took = best_times(lambda: from_xml(plain), lambda: from_xml(patho), rounds=2)
    assert took < 5 * base  # about 1x; the quadratic rule cost 140x


# --- unknown elements are transparent ---------------------------------------------------------


def test_an_unknown_element_inside_a_node_is_transparent():
    xml = (
        b'<hierarchy><node class="android.widget.FrameLayout" bounds="[0,0][100,100]" '
        b'clickable="true"><foo><node class="android.widget.TextView" bounds="[0,0][0,0]" '
        b'text="Lbl"/></foo></node></hierarchy>'
    )
    snap = from_xml(xml)
    assert body(snap.text) == "- Group [ref=1] (Lbl)"
    assert snap.text == from_xml(xml.replace(b"<foo>", b"").replace(b"</foo>", b"")).text
    assert not recall(xml, snap.text, {1: snap.refs[1].center}).missed
    assert len(snap.refs) == 1 and snap.size == (100, 100)


def test_unknown_elements_anywhere_change_nothing():
    def screen(meta: str = "", wrap: tuple[str, str] = ("", "")) -> bytes:
        row = node(
            LL,
            (0, 0, 1080, 200),
            node(TV, (0, 0, 500, 100), meta, text="Wi-Fi"),
            wrap[0] + node(VIEW, (900, 0, 1080, 100), checkable=True, clickable=True) + wrap[1],
            meta,
            clickable=True,
        )
        app = node(FL, SCREEN, row, node(BTN, (0, 500, 100, 600), text="Go", clickable=True))
        return dump(wrap[0] + app + wrap[1])

    plain = from_xml(screen())
    odd = from_xml(screen('<meta k="v"/>', ("<x:a xmlns:x='u'><b>", "</b></x:a>")))
    assert odd.text == plain.text
    assert (odd.size, odd.package) == (plain.size, plain.package) == ((1080, 2400), "com.example")
    assert [odd.refs[r].center for r in odd.refs] == [plain.refs[r].center for r in plain.refs]
