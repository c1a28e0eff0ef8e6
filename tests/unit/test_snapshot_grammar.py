"""The text grammar: render, escaping, parse, round trips and limits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile.snapshot import Node, parse, render, render_report
from baremobile.snapshot.tree import STATE_ORDER, WINDOW_KINDS, Window
from tests import examples
from tests.snapshot_helpers import read_lines


def tree(*tops: Node) -> Node:
    return Node("", children=list(tops))


def test_line_shapes():
    t = tree(
        Node("Button", 3, "Submit", "submit form", ("checked", "focused")),
        Node("Group", children=[Node("Text", text="Label"), Node("Image", desc="logo")]),
        Node("View", 4),
    )
    assert render(t) == (
        '- Button [ref=3] "Submit" (submit form) [checked, focused]\n'
        "- Group\n"
        '  - Text "Label"\n'
        "  - Image (logo)\n"
        "- View [ref=4]"
    )


def test_desc_equal_to_text_is_omitted():
    assert render(tree(Node("Text", text="Mon", desc="Mon"))) == '- Text "Mon"'


def test_escaping_keeps_one_node_per_line():
    nasty = 'a "quoted"\nline\r\tx\\y\x00\x7f\x85\u2028\u2029\x0b\x0c\x1c'
    t = tree(Node("Text", text=nasty, desc="(paren) \\ )\n"))
    out = render(t)
    assert out.splitlines() == [out]  # str.splitlines breaks on all of these
    assert out == (
        '- Text "a \\"quoted\\"\\nline\\r\\tx\\\\y\\x00\\x7f\\x85\\u2028\\u2029\\x0b\\x0c\\x1c"'
        " ((paren\\) \\\\ \\)\\n)"
    )
    back = parse(out).children[0]
    assert back.text == nasty and back.desc == "(paren) \\ )\n"


def test_screen_line_window_headers_and_ids():
    bare = Node("Image", 4)
    bare.id_name = "send_button"
    t = Node(
        "",
        text="1080x2400 portrait",
        children=[
            Window("status bar", "", "", (), [Node("Text", text="9:41", desc="9:41 PM"),
                                              Node("Group", desc="Wi-Fi")], condensed=True),
            Window("app", "com.example", "Main", ("focused",), [bare, Node("Text", text="Hi")]),
            Window("keyboard", children=[Node("Button", 7, "q")]),
            Window("navigation bar", children=[Node("Image", 8, desc="Back")], condensed=True),
            Window("window", "", "Cast", ("display=2",)),
        ],
    )
    text = render(t)
    assert text == (
        "# 1080x2400 portrait\n"
        '- status bar: "9:41" (9:41 PM), (Wi-Fi)\n'
        '- app com.example "Main" [focused]\n'
        "  - Image [ref=4] #send_button\n"
        '  - Text "Hi"\n'
        "- keyboard\n"
        '  - Button [ref=7] "q"\n'
        "- navigation bar: [ref=8] (Back)\n"
        '- window "Cast" [display=2]'
    )
    back = parse(text)
    assert back.text == "1080x2400 portrait" and render(back) == text
    bar, app, *_ = back.children
    assert isinstance(bar, Window) and bar.kind == "status bar" and bar.condensed
    assert [(n.text, n.desc) for n in bar.children] == [("9:41", "9:41 PM"), ("", "Wi-Fi")]
    assert app.package == "com.example" and app.title == "Main" and app.states == ("focused",)
    assert app.children[0].id_name == "send_button" and app.children[0].ref == 4
    # a condensed header's refs count for the limits and the independent reader
    r = render_report(t, max_nodes=1)
    assert r.truncation is not None and 8 in r.truncation.refs_omitted
    assert {ln.ref for ln in read_lines(text) if ln.ref} == {4, 7, 8}


def test_parse_skips_the_truncation_note_and_blank_lines():
    root = parse('- Text "a"\n\n# truncated (max_nodes): 3 more nodes, refs 4-6 not shown\n')
    assert [n.text for n in root.children] == ["a"]


@pytest.mark.parametrize(
    "bad",
    [
        "Text",
        "- ",
        '- Text "unterminated',
        "    - Text (too deep)",
        "- Text [ref=0]",
        '- Text "bad \\q escape"',
        "- Text [Not-a-state!]",
        "- Image [ref=1] #bad id",
        "- status bar: ",
        '- status bar: "a" "b"',
        "- navigation bar: [ref=1],, [ref=2]",
        '- status bar: "a"\n  - Text "under a condensed header"',
    ],
)
def test_parse_rejects_malformed_lines(bad):
    with pytest.raises(ValueError):
        parse(bad)


# --- limits -----------------------------------------------------------------------------


def big_tree() -> Node:
    items = [
        Node("Group", i * 2 + 1, f"item {i}", children=[Node("Button", i * 2 + 2, "buy")])
        for i in range(20)
    ]
    return tree(Node("List", children=items))


def test_max_nodes_reports_and_keeps_ref_numbers():
    r = render_report(big_tree(), max_nodes=5)
    lines = r.text.split("\n")
    assert len(lines) == 6 and lines[-1].startswith("# truncated (max_nodes)")
    assert '- Group [ref=1] "item 0"' in lines[1]
    assert r.truncation is not None
    assert r.truncation.nodes_omitted == 41 - 5
    assert r.truncation.refs_omitted == tuple(range(5, 41))
    assert "refs 5-40" in lines[-1]


def test_max_depth():
    r = render_report(big_tree(), max_depth=1)
    assert "buy" not in r.text
    assert r.truncation is not None and r.truncation.reason == "max_depth"
    assert r.truncation.refs_omitted == tuple(range(2, 41, 2))
    full = render(big_tree())
    assert render(big_tree(), max_depth=10) == full


@pytest.mark.parametrize("limit", [10, 80, 150, 400, 1000])
def test_max_chars_bounds_the_whole_text(limit):
    r = render_report(big_tree(), max_chars=limit)
    assert len(r.text) <= limit
    assert r.truncation is not None
    shown = {ln.ref for ln in read_lines(r.text) if ln.ref is not None}
    assert shown.isdisjoint(r.truncation.refs_omitted)
    assert shown | set(r.truncation.refs_omitted) == set(range(1, 41))


def test_no_truncation_when_everything_fits():
    full = render(big_tree())
    r = render_report(big_tree(), max_chars=len(full), max_nodes=41, max_depth=2)
    assert r.truncation is None and r.text == full


# --- round trip, property-based ------------------------------------------------------------

_roles = st.sampled_from(["Text", "Button", "Group", "View", "TextInput", "List", "Window"])
_strings = st.text(
    alphabet=st.characters(exclude_categories=("Cs",)), max_size=12
) | st.sampled_from(["", '"', "\\", ")", "(", "\n", " [ref=1]", "- x", '" (', "\u2028"])
_states = st.lists(st.sampled_from(STATE_ORDER), unique=True, max_size=3).map(
    lambda s: tuple(x for x in STATE_ORDER if x in s)
)


def _node(role, ref, text, desc, states, kids, id_name):  # type: ignore[no-untyped-def]
    n = Node(role, ref, text, desc, states, kids)
    n.id_name = id_name
    return n


def _nodes(children: st.SearchStrategy[list[Node]]) -> st.SearchStrategy[Node]:
    return st.builds(
        _node,
        _roles,
        st.none() | st.integers(1, 10_000),
        _strings,
        _strings,
        _states,
        children,
        st.sampled_from(["", "", "send_button", "a.b-c_1"]),
    )


def _window(kind, package, title, states, kids, condensed):  # type: ignore[no-untyped-def]
    return Window(kind, package, title, states, kids, condensed=condensed)


_bodies = st.recursive(
    st.just([]), lambda kids: st.lists(_nodes(kids), max_size=4), max_leaves=25
)
_trees = st.builds(
    lambda screen, tops: Node("", text=screen, children=tops),
    st.sampled_from(["", "1080x2400 portrait", "466x466 square"]),
    st.lists(
        st.one_of(
            _nodes(_bodies),
            st.builds(
                _window,
                st.sampled_from(WINDOW_KINDS),
                st.sampled_from(["", "com.example", "a_b.c9"]),
                _strings,
                st.sampled_from([(), ("focused",), ("display=3",), ("focused", "display=1")]),
                _bodies,
                st.booleans(),
            ),
        ),
        max_size=4,
    ),
)


@settings(max_examples=examples(300), deadline=None)
@given(_trees)
def test_render_parse_render_is_identity(t):
    text = render(t)
    assert render(parse(text)) == text
    assert len(text.split("\n")) == len(text.splitlines()) or text == ""


@settings(max_examples=examples(100), deadline=None)
@given(_trees, st.integers(0, 400), st.integers(0, 6), st.integers(0, 30))
def test_limits_never_break_the_grammar(t, max_chars, max_depth, max_nodes):
    for kw in ({"max_chars": max_chars}, {"max_depth": max_depth}, {"max_nodes": max_nodes}):
        r = render_report(t, **kw)
        parse(r.text)  # still parses
        if "max_chars" in kw:
            assert len(r.text) <= max_chars
