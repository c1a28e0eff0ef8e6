"""The Snapshot object, RefMap/RefNode and the selector helpers."""

from __future__ import annotations

import dataclasses

import pytest

from baremobile.snapshot import RefNode, Snapshot, StreamPruner, from_xml
from tests.snapshot_helpers import dump, node

FL = "android.widget.FrameLayout"
TV = "android.widget.TextView"
SCREEN = (0, 0, 1080, 2400)

XML = dump(
    node(
        FL,
        SCREEN,
        node(TV, (0, 0, 1080, 100), text="Settings", rid="android:id/title"),
        node(
            "android.widget.EditText",
            (40, 200, 1040, 300),
            text="",
            rid="com.app:id/search",
            focused=True,
            clickable=True,
            focusable=True,
            extra={"hint": "Search settings"},
        ),
        node(
            "android.widget.LinearLayout",
            (0, 400, 1080, 550),
            node(TV, (40, 400, 800, 550), text="Wi-Fi"),
            node(
                "android.widget.Switch",
                (900, 420, 1040, 530),
                checkable=True,
                checked=True,
                clickable=True,
            ),
            clickable=True,
            long_clickable=True,
        ),
        node(
            "android.widget.Button", (0, 600, 500, 700), text="Save", clickable=True, enabled=False
        ),
        node(
            "android.widget.EditText",
            (0, 800, 1080, 900),
            text="••••",
            password=True,
            clickable=True,
        ),
        package="com.android.settings",
    )
)


@pytest.fixture
def snap() -> Snapshot:
    return from_xml(XML)


def test_text_and_str(snap):
    assert (
        str(snap)
        == snap.text
        == (
            "# 1080x2400 portrait\n"
            "- app com.android.settings\n"
            '  - Text "Settings"\n'
            "  - TextInput [ref=1] (Search settings) [focused]\n"
            "  - Group [ref=2]\n"
            '    - Text "Wi-Fi"\n'
            "    - Switch [ref=3] [checked]\n"
            '  - Button [ref=4] "Save" [disabled]\n'
            '  - TextInput [ref=5] "••••" [password]'
        )
    )
    assert snap.package == "com.android.settings"
    assert snap.size == (1080, 2400) and snap.rotation == 0
    assert not snap.truncated and snap.truncation is None


def test_refnode_fields(snap):
    search = snap.refs[1]
    assert isinstance(search, RefNode)
    assert search.role == "TextInput" and search.editable and search.focused
    assert search.cls == "android.widget.EditText"
    assert search.resource_id == "com.app:id/search"
    assert search.text == "" and search.hint == "Search settings"
    assert search.bounds == (40, 200, 1040, 300) and search.center == (540, 250)
    assert search.states == ("focused",)
    assert search.package == "com.example"  # each node keeps its own package
    row = snap.refs[2]
    assert row.clickable and row.long_clickable and not row.editable and row.enabled
    sw = snap.refs[3]
    assert sw.checkable and sw.checked and sw.role == "Switch"
    save = snap.refs[4]
    assert not save.enabled and save.states == ("disabled",)
    pw = snap.refs[5]
    assert pw.password and pw.editable
    with pytest.raises(dataclasses.FrozenInstanceError):
        search.text = "x"  # type: ignore[misc]


def test_refmap_mapping_behaviour(snap):
    assert len(snap.refs) == 5 and list(snap.refs) == [1, 2, 3, 4, 5]
    assert 3 in snap.refs and 9 not in snap.refs
    assert snap.refs[3] is snap.refs[3]  # built once
    with pytest.raises(KeyError):
        snap.refs[9]
    assert snap.refs.node(2).children[0].text == "Wi-Fi"
    assert "5 refs" in repr(snap.refs)


def test_find(snap):
    assert [n.ref for n in snap.find(role="TextInput")] == [1, 5]
    assert [n.text for n in snap.find(text="Wi-Fi")] == ["Wi-Fi"]
    assert [n.text for n in snap.find(text_contains="wi-")] == ["Wi-Fi"]
    assert [n.ref for n in snap.find(desc="Search settings")] == [1]
    assert [n.ref for n in snap.find(desc_contains="search")] == [1]
    assert [n.text for n in snap.find(resource_id="title")] == ["Settings"]
    assert [n.ref for n in snap.find(resource_id="com.app:id/search")] == [1]
    assert [n.ref for n in snap.find(ref_only=True, role="Switch")] == [3]
    assert snap.find(text="nothing") == []
    # nodes() covers refs and plain labels alike, in line order
    assert [n.role for n in snap.nodes()] == [
        "Text",
        "TextInput",
        "Group",
        "Text",
        "Switch",
        "Button",
        "TextInput",
    ]


def test_node_helpers(snap):
    wifi = snap.find(text="Wi-Fi")[0]
    assert wifi.cls == TV and wifi.bounds == (40, 400, 800, 550) and wifi.center == (420, 475)
    assert wifi.package == "com.example" and wifi.resource_id == ""
    assert wifi.to_dict() == {"role": "Text", "text": "Wi-Fi"}
    assert "Wi-Fi" in repr(wifi)


def test_jupyter_reprs(snap):
    md = snap._repr_markdown_()
    assert snap.text in md and md.count("```") == 2
    assert "com.android.settings" in md

    class Printer:
        def __init__(self) -> None:
            self.out = ""

        def text(self, s: str) -> None:
            self.out += s

    p = Printer()
    snap._repr_pretty_(p, False)
    assert p.out == snap.text
    assert repr(snap).startswith("<Snapshot 1080x2400 com.android.settings: 5 refs")


def test_markdown_fence_survives_backticks_in_the_screen():
    s = from_xml(dump(node(TV, (0, 0, 10, 10), text="code: ```x```")))
    md = s._repr_markdown_()
    assert "````\n" in md


def test_limits_through_the_pruner():
    pruner = StreamPruner(max_nodes=3)
    pruner.feed(XML)
    cut = pruner.close()
    assert cut.truncated and cut.truncation is not None
    assert cut.truncation.reason == "max_nodes"
    assert cut.text.split("\n")[-1].startswith("# truncated")
    assert cut.truncation.refs_omitted == (2, 3, 4, 5)
    assert list(cut.refs) == [1, 2, 3, 4, 5]  # every ref still resolves
    assert "truncated" in repr(cut)


def test_close_twice_and_feed_after_close():
    pruner = StreamPruner()
    pruner.feed(XML)
    pruner.close()
    with pytest.raises(Exception, match="close"):
        pruner.close()


def test_find_does_not_match_a_hint_shown_as_text():
    # Android reports an empty field's hint as its text; the line shows it empty (rule 10)
    xml = dump(
        node(
            FL,
            SCREEN,
            node(
                "android.widget.EditText",
                (0, 0, 1080, 100),
                text="Search",
                clickable=True,
                extra={"hint": "Search"},
            ),
            node(TV, (0, 200, 1080, 300), text="Search results"),
        )
    )
    snap = from_xml(xml)
    assert snap.text == (
        '# 1080x2400 portrait\n- app com.example\n  - TextInput [ref=1] (Search)\n'
        '  - Text "Search results"'
    )
    assert snap.find(text="Search") == []
    assert [n.text for n in snap.find(text_contains="search")] == ["Search results"]
    assert [n.ref for n in snap.find(desc="Search")] == [1]  # as the line shows it


def test_refnode_display_and_covered_defaults(snap):
    ref = snap.refs[1]
    assert ref.display == 0 and ref.covered is False
    assert snap.refs.node(1).display == 0 and snap.refs.node(1).tap is None
