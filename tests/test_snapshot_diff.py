"""Snapshot diffs: the grammar, and ``apply(diff(old, new), old) == new`` for any change."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile.snapshot import StreamPruner, parse, render
from baremobile.snapshot.diff import FULL_NOTE, DiffError, apply, diff, is_diff
from baremobile.snapshot.identity import RefTracker
from baremobile.snapshot.tree import STATE_ORDER, WINDOW_KINDS, Node, Window
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
        "# diff: 2 added, 2 removed, 2 changed; gone: ref 3\n"
        "@6 - List [ref=2]\n"
        "-2    - Group [ref=3]\n"
        "@10 - Group [ref=4]\n"
        '~      - Text "99%"\n'
        "@13 - List [ref=2]\n"
        "+    - Group [ref=14]\n"
        '+      - Text "Sound"\n'
        '~  - TextInput [ref=6] "cats"'
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
    assert diff(OLD, turned) == "# diff: 0 added, 0 removed, 1 changed\n@1\n~# 2400x1080 landscape"


def test_apply_refuses_a_diff_of_another_text():
    d = diff(OLD, OLD.replace('  - Text "Settings"\n', ""))
    with pytest.raises(DiffError, match="not in the text"):
        apply(d, OLD.replace('"Settings"', '"Other"'))
    with pytest.raises(DiffError, match="does not start"):
        apply("- Text", OLD)
    with pytest.raises(DiffError, match="none of"):
        apply("# diff: 1 added, 0 removed, 0 changed\n@1\n*x", OLD)
    with pytest.raises(DiffError, match="does not fit"):
        apply("# diff: 1 added, 0 removed, 0 changed\n@99\n+x", OLD)


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
        else:
            n.children.reverse()
    return t


@settings(max_examples=300, deadline=None)
@given(_trees, st.lists(st.tuples(st.integers(0, 4), st.integers(0, 99), _strings), max_size=6))
def test_apply_reproduces_the_new_text_exactly(tree, ops):
    old = render(tree)
    new = render(_edit(tree, ops))
    assert render(parse(old)) == old and render(parse(new)) == new
    d = diff(old, new)
    assert apply(d, old) == new
    assert len(d) <= len(FULL_NOTE) + 1 + len(new) or d.startswith("# diff: ")


@settings(max_examples=200, deadline=None)
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


@settings(max_examples=150, deadline=None)
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
