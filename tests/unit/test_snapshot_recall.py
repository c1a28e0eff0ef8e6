"""Property: on random dumps, every labelled actionable node stays reachable through a ref.

The checker (``tests/snapshot_helpers.recall``) shares no code with the pruner: its own DOM
walk over the XML, its own reading of the snapshot text.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.snapshot import from_xml
from tests import examples
from tests.snapshot_helpers import dump, node, recall

_CLASSES = [
    "android.widget.FrameLayout",
    "android.widget.LinearLayout",
    "android.widget.TextView",
    "android.widget.Button",
    "android.widget.ImageView",
    "android.widget.EditText",
    "android.view.View",
    "android.widget.CheckBox",
    "androidx.recyclerview.widget.RecyclerView",
]
_LABELS = st.sampled_from(["", "", "", "OK", "Wi-Fi", "•", "  ", "96", "96 Posts", "a_b", "FAQ"])
W, H = 1080, 2400


@st.composite
def _box(draw, parent: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = parent
    kind = draw(st.sampled_from(["in", "in", "in", "same", "zero", "elsewhere"]))
    if kind == "same":
        return parent
    if kind == "zero":
        return (0, 0, 0, 0)
    if kind == "in" and x2 > x1 and y2 > y1:
        ax, bx = sorted(draw(st.integers(x1, x2)) for _ in range(2))
        ay, by = sorted(draw(st.integers(y1, y2)) for _ in range(2))
        return (ax, ay, bx, by)
    # anywhere on screen, possibly outside the parent (clipChildren=false)
    ax, bx = sorted(draw(st.integers(0, W)) for _ in range(2))
    ay, by = sorted(draw(st.integers(0, H)) for _ in range(2))
    return (ax, ay, bx, by)


@st.composite
def _element(draw, parent: tuple[int, int, int, int], depth: int) -> str:
    b = draw(_box(parent))
    kids = draw(st.lists(_element(b, depth + 1), max_size=3)) if depth < 4 else []
    hint = draw(st.sampled_from([None, "OK", "Search"]))
    return node(
        draw(st.sampled_from(_CLASSES)),
        b,
        *kids,
        text=draw(_LABELS),
        desc=draw(_LABELS),
        clickable=draw(st.booleans()),
        long_clickable=draw(st.booleans()),
        checkable=draw(st.booleans()),
        checked=draw(st.booleans()),
        selected=draw(st.booleans()),
        scrollable=draw(st.booleans()),
        enabled=draw(st.booleans()),
        extra={"hint": hint} if hint else None,
    )


_windows = st.lists(
    st.builds(
        lambda kids: node("android.widget.FrameLayout", (0, 0, W, H), *kids),
        st.lists(_element((0, 0, W, H), 1), min_size=1, max_size=4),
    ),
    min_size=1,
    max_size=2,
).map(lambda tops: dump(*tops))


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_windows)
def test_recall_is_total_on_random_dumps(data):
    snap = from_xml(data)
    centers = {r: snap.refs[r].center for r in snap.refs}
    rc = recall(data, snap.text, centers)
    assert not rc.missed, (snap.text, [m.line for m in rc.missed])
