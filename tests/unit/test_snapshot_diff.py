"""Snapshot diffs: the grammar, and ``apply(diff(old, new), old) == new`` for any change."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile.snapshot import StreamPruner, parse, render
from baremobile.snapshot.diff import (
    FULL_NOTE,
    DiffError,
    History,
    apply,
    diff,
    full_note,
    is_diff,
    is_whole,
)
from baremobile.snapshot.identity import RefTracker
from baremobile.snapshot.tree import STATE_ORDER, WINDOW_KINDS, Node, Window
from tests import examples
from tests.snapshot_helpers import dump, node

OLD = """# 1080x2400 portrait
- status bar: "9:41"
- app com.android.settings
  - Text "Settings"
  - List [ref=2]
    - Group [ref=3]
      - Text "Network & internet"
    - Group [ref=4]
      - Text "Battery"
      - Text "100%"
    - Group [ref=5]
      - Text "Display"
  - TextInput [ref=6] (Search)
- navigation bar: [ref=11] (Back), [ref=12] (Home)"""


def test_a_diff_shows_only_what_changed_under_its_parent():
    new = (
        OLD.replace('    - Group [ref=3]\n      - Text "Network & internet"\n', "")
        .replace('"100%"', '"99%"')
        .replace("(Search)", '"cats"')
        .replace('      - Text "Display"', '      - Text "Display"\n    - Group [ref=14]\n'
                 '      - Text "Sound"')
    )
    d = diff(OLD, new)
    assert d == (
        "# diff; gone: ref 3\n"
        "@6 -2\n"  # the row of ref 3: two lines removed
        '@10 ~      - Text "99%"\n'
        "@13\n"
        "    - Group [ref=14]\n"  # added lines come as they are
        '      - Text "Sound"\n'
        '~6 "cats"'  # ref 6's line: what follows its [ref=6] changed
    )
    assert apply(d, OLD) == new
    assert is_diff(d) and not is_diff(OLD)


def test_no_change_and_a_new_screen():
    assert diff(OLD, OLD) == "# diff: no change"
    assert apply("# diff: no change", OLD) == OLD
    other = "# 1080x2400 portrait\n- app com.example\n  - Button [ref=20] \"Go\"\n" \
            "  - Text \"A whole other screen\""
    d = diff(OLD, other)
    assert d == FULL_NOTE + "\n" + other and apply(d, OLD) == other and is_diff(d)
    assert apply(diff("", OLD), "") == OLD  # nothing before: the full text


def test_a_rotation_changes_one_line():
    turned = OLD.replace("# 1080x2400 portrait", "# 2400x1080 landscape")
    assert diff(OLD, turned) == "# diff\n@1 ~# 2400x1080 landscape"


def test_apply_refuses_a_diff_of_another_text():
    d = diff(OLD, OLD.replace('  - Text "Settings"\n', ""))
    with pytest.raises(DiffError, match="not in the text"):
        apply(d, OLD.replace('"Settings"', '"Other"'))
    assert apply("- Text", OLD) == "- Text"  # no head: a whole text (a first observation)
    with pytest.raises(DiffError, match="neither a snapshot line"):
        apply("# diff\n@1\n*x", OLD)
    with pytest.raises(DiffError, match="does not fit"):
        apply("# diff\n@99\n  - x", OLD)
    with pytest.raises(DiffError, match="does not hold"):
        apply("# diff\n@4 =3\n  - x", OLD)
    with pytest.raises(DiffError, match="no window body"):
        apply("# diff\n@3 =1\n  - x", OLD)
    with pytest.raises(DiffError, match="not ref 9"):
        apply('# diff\n@5 ~9 "x"', OLD)
    with pytest.raises(DiffError, match="names no window"):
        apply("# diff\n@4 -3- dialog", OLD)
    with pytest.raises(DiffError, match="malformed hunk"):
        apply("# diff\n@4 *x", OLD)
    with pytest.raises(DiffError, match="not indented"):
        apply("# diff\n@2\n<- status bar: \"9:41\"", OLD)
    with pytest.raises(DiffError, match="not in the text"):
        apply("# diff\n@3\n>  - app com.other", OLD)
    with pytest.raises(DiffError, match="snapshot 2, which is not among"):
        apply("# diff 5 from 2: no change", {4: OLD})
    with pytest.raises(DiffError, match="snapshot 4, which is not among"):
        apply("# diff 5: no change", {3: OLD})
    assert apply("# diff 5: no change", {4: OLD}) == OLD


BARS = (
    '# 1080x2400 portrait\n- status bar: "9:41"\n{body}\n'
    "- navigation bar: [ref=11] (Back), [ref=12] (Home)"
)


def test_a_new_app_screen_comes_whole_without_the_bars_that_stayed():
    settings = BARS.format(body="\n".join(OLD.split("\n")[2:-1]))
    other = BARS.format(body='- app com.example\n  - Text "Hello"\n  - Button [ref=20] "Go"\n'
                             '  - Button [ref=21] "Stop"')
    d = diff(settings, other)
    assert d == (
        "# diff\n"  # the app's window went whole: its refs with it (no list needed)
        "@3 -11- app\n"
        "- app com.example\n"
        '  - Text "Hello"\n'
        '  - Button [ref=20] "Go"\n'
        '  - Button [ref=21] "Stop"'
    )
    assert apply(d, settings) == other
    # without a window left as it was (a single-window dump), the new screen comes whole
    alone = "\n".join(ln for ln in other.split("\n") if "bar" not in ln)
    assert diff("\n".join(ln for ln in settings.split("\n") if "bar" not in ln), alone) == (
        FULL_NOTE + "\n" + alone
    )


def test_a_window_that_changed_mostly_comes_whole_under_its_header():
    new = OLD.replace(
        OLD[OLD.index('  - Text "Settings"') : OLD.index("- navigation")],
        '  - Text "Network & internet"\n  - List [ref=20]\n    - Group [ref=21] "Internet"\n'
        '    - Group [ref=22] "Calls & SMS"\n',
    )
    d = diff(OLD, new)
    assert d.split("\n")[1:3] == ["@4 =4", '  - Text "Network & internet"']
    assert apply(d, OLD) == new


def test_a_wrapper_that_appears_moves_what_it_holds_one_level():
    panel = OLD.replace("- app com.android.settings\n", "- app com.android.settings\n  - Group\n")
    lines = panel.split("\n")
    for i in range(4, 14):
        lines[i] = "  " + lines[i]
    panel = "\n".join(lines[:14] + ['  - Group', '    - Text [ref=30] "😀" (grinning face)']
                      + lines[14:])
    d = diff(OLD, panel)
    assert d == (
        "# diff\n"
        "@4\n"
        "  - Group\n"
        '>10    - Text "Settings"\n'
        "  - Group\n"
        '    - Text [ref=30] "😀" (grinning face)'
    )
    assert apply(d, OLD) == panel
    back = diff(panel, OLD)
    assert "\n<10  - Text \"Settings\"\n" in back and apply(back, panel) == OLD


def test_a_history_numbers_its_observations_and_finds_a_screen_seen_before():
    h = History()
    assert h.observe(OLD) == (1, OLD)  # the first observation: the text itself
    assert full_note(1) == "" and full_note(2) == "# snapshot 2"
    dialog = OLD + '\n- dialog com.android.settings\n  - Button [ref=30] "OK"'
    n, d = h.observe(dialog)
    assert n == 2 and d == (
        "# diff 2\n@15\n- dialog com.android.settings\n"
        '  - Button [ref=30] "OK"'
    )
    other = OLD.replace('"Settings"', '"Sound"').replace("(Search)", '"loud"')
    n, d = h.observe(other)
    assert n == 3 and d.startswith("# diff 3 from 1\n")
    assert apply(d, h.texts()) == other
    assert h.observe(OLD)[1] == "# diff 4 from 1: no change"
    assert h.observe(OLD)[1] == "# diff 5: no change"
    # a text seen whole outside the history is the next diff's previous text, unnumbered
    h.seen(dialog)
    n, d = h.observe(OLD)
    assert n == 6 and d == "# diff 6\n@15 -2- dialog"  # shorter than "from 5: no change"
    assert apply(d, {**h.texts(), 5: dialog}) == OLD
    assert is_diff(d) and is_diff(full_note(7)) and not is_diff("# 1080x2400 portrait")
    assert is_whole(full_note(7) + "\n" + OLD) and is_whole(OLD) and not is_whole(d)
    h2 = History()
    h2.seen(OLD)
    assert h2.observe(dialog)[1].startswith("# diff 1\n")
    assert apply(h2.observe(dialog)[1], h2.texts()) == dialog
    with pytest.raises(ValueError):
        History(keep=0)


def test_earlier_observations_are_tried_only_on_texts_of_bounded_length(monkeypatch):
    """A diff of thousands of look-alike lines can take seconds: past OLDER_MAX_LINES only
    the previous text is diffed against."""
    from baremobile.snapshot import diff as diff_mod

    other = OLD.replace('"Settings"', '"Sound"')
    for limit, head in ((100, "# diff 3 from 1: no change"), (5, "# diff 3")):
        monkeypatch.setattr(diff_mod, "OLDER_MAX_LINES", limit)
        h = History()
        h.observe(OLD)
        h.observe(other)
        assert h.observe(OLD)[1].split("\n")[0] == head


def test_notes_after_a_diff_or_a_full_text_are_no_change():
    """``# web: …`` lines a snapshot adds about itself (Snapshot.notes) end a diff's text;
    apply skips them, as parse does."""
    other = OLD.replace('"Settings"', '"Sound"')
    d = diff(OLD, other) + "\n# web: the page navigated while it was read"
    assert apply(d, OLD) == other
    whole = full_note(3) + "\n" + other + "\n# web: x"
    assert apply(whole, {}) == other


def test_a_history_keeps_only_the_last_observations():
    h = History(keep=2)
    screens = [OLD.replace('"Settings"', f'"Screen {k}"') for k in range(4)]
    for s in screens:
        h.observe(s)
    assert sorted(h.texts()) == [3, 4]
    n, d = h.observe(screens[0])  # seen as snapshot 1, forgotten: a diff of the previous
    assert d.startswith("# diff 5\n") and apply(d, h.texts()) == screens[0]


# --- property: any change of a snapshot ----------------------------------------------------

_strings = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=6)
_strings |= st.sampled_from(["", "a", "b", '"', ")", "\n", "- x"])
_states = st.lists(st.sampled_from(STATE_ORDER), unique=True, max_size=2).map(
    lambda s: tuple(x for x in STATE_ORDER if x in s)
)
_leaf = st.builds(
    lambda role, ref, text, desc, states: Node(role, ref, text, desc, states),
    st.sampled_from(["Text", "Button", "Group", "Image"]),
    st.none() | st.integers(1, 40),
    _strings,
    _strings,
    _states,
)
_nodes = st.recursive(
    _leaf,
    lambda kids: st.builds(
        lambda n, ks: Node(n.role, n.ref, n.text, n.desc, n.states, ks), _leaf,
        st.lists(kids, max_size=3)
    ),
    max_leaves=12,
)
_windows = st.builds(
    lambda kind, kids, condensed: Window(kind, "com.x" if kind == "app" else "", "", (), kids,
                                         condensed=condensed and bool(kids)),
    st.sampled_from(WINDOW_KINDS),
    st.lists(_nodes, max_size=3),
    st.booleans(),
)
_trees = st.builds(
    lambda screen, wins: Node("", text=screen, children=wins),
    st.sampled_from(["", "1080x2400 portrait", "2400x1080 landscape"]),
    st.lists(_windows, max_size=3),
)


def _edit(tree: Node, ops: list[tuple[int, int, str]]) -> Node:
    """A changed copy of ``tree``: each op deletes, relabels, moves or adds a node."""
    t = copy.deepcopy(tree)
    for op, at, text in ops:
        flat = [n for w in t.children for n in w.walk()]
        if not flat:
            t.children.append(Window("app", "com.x", "", (), [Node("Text", None, text)]))
            continue
        n = flat[at % len(flat)]
        if op == 0:  # delete its children
            n.children = n.children[1:]
        elif op == 1:
            n.text = text
        elif op == 2:
            n.children.insert(0, Node("Button", at % 50 + 1, text))
        elif op == 3:
            n.states = () if n.states else ("checked",)
        elif op == 4:
            n.children.reverse()
        elif op == 5:  # a wrapper appears around its children
            n.children = [Node("Group", None, "", "", (), n.children)] if n.children else []
        else:  # a wrapper goes: its children take its place
            at_ = next((i for i, k in enumerate(n.children) if k.children), None)
            if at_ is not None:
                n.children[at_ : at_ + 1] = n.children[at_].children
    return t


@settings(max_examples=examples(300), deadline=None)
@given(_trees, st.lists(st.tuples(st.integers(0, 6), st.integers(0, 99), _strings), max_size=6))
def test_apply_reproduces_the_new_text_exactly(tree, ops):
    old = render(tree)
    new = render(_edit(tree, ops))
    assert render(parse(old)) == old and render(parse(new)) == new
    d = diff(old, new)
    assert apply(d, old) == new
    assert len(d) <= max(len(FULL_NOTE) + 1 + len(new), len("# diff: no change"))


@settings(max_examples=examples(150), deadline=None)
@given(_trees, st.lists(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 99), _strings),
                                 max_size=4), max_size=6), st.integers(1, 4))
def test_a_history_of_changes_applies_at_every_step(tree, steps, keep):
    """Each observation applies to the kept texts; going back to an earlier screen costs no
    more than a diff from the previous one."""
    h = History(keep=keep)
    texts = {}
    screens = [render(tree)]
    for ops in steps:
        tree = _edit(tree, ops)
        screens.append(render(tree))
    for i, text in enumerate(screens + screens[::-1]):
        before = dict(texts)
        n, d = h.observe(text)
        assert apply(d, before if not is_whole(d) else "") == text
        texts = h.texts()
        assert n == i + 1 and texts[n] == text and len(texts) <= keep


@settings(max_examples=examples(200), deadline=None)
@given(_trees, _trees)
def test_apply_between_unrelated_snapshots(a, b):
    old, new = render(a), render(b)
    assert apply(diff(old, new), old) == new


@st.composite
def _screen_changes(draw):
    labels = st.sampled_from(["", "x", "y", "Wi-Fi", "OK"])
    rows = draw(st.lists(st.tuples(labels, st.booleans()), min_size=1, max_size=8))
    steps = draw(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 7), labels),
                          min_size=1, max_size=5))
    return rows, steps


def _screen(rows: list[tuple[str, bool]], first: int) -> str:
    kids = [
        node("android.widget.Button" if ref else "android.widget.TextView",
             (0, 300 + i * 200, 1080, 500 + i * 200), text=label, clickable=ref)
        for i, (label, ref) in enumerate(rows[first:])
    ]
    return dump(node("android.widget.FrameLayout", (0, 0, 1080, 2400),
                     node("android.widget.TextView", (0, 0, 1080, 100), text="9:41"),
                     package="com.android.systemui"),
                node("android.widget.FrameLayout", (0, 100, 1080, 2400),
                     node("androidx.recyclerview.widget.RecyclerView", (0, 300, 1080, 2400),
                          *kids, scrollable=True), package="com.example"))


@settings(max_examples=examples(150), deadline=None)
@given(_screen_changes())
def test_diffs_between_the_snapshots_of_changing_screens_apply(case):
    """Real dumps through the pruner and a tracker: scrolls, relabels, rows coming and
    going."""
    rows, steps = case
    tracker = RefTracker()
    first = 0
    prev = ""
    for move, at, label in steps:
        first = max(0, min(len(rows) - 1, first + move))
        rows[at % len(rows)] = (label, rows[at % len(rows)][1])
        pruner = StreamPruner(tracker=tracker)
        pruner.feed(_screen(rows, first))
        snap = pruner.close()
        d = snap.diff_from(prev or None)
        assert d.is_diff and d.full_text == snap.text and d.refs is snap.refs
        assert apply(d.text, prev) == snap.text
        prev = snap.text
