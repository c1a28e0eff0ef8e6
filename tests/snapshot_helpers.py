"""Shared helpers for the snapshot tests and benchmark.

The recall checker here is deliberately written without any code from
``baremobile.snapshot``: its own DOM walk over the raw XML (ElementTree) and its own reading
of the snapshot lines, so a pruner or parser bug cannot hide itself.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from defusedxml import ElementTree as SafeET

REPO = Path(__file__).resolve().parent.parent
#: The highest folder the ``shared/corpus`` lookup climbs to from :data:`REPO` (None: the
#: filesystem's root). A test of the lookup names its own tmp folders here, so nothing
#: above them — a ``shared/`` of this machine — can answer it.
TOP: Path | None = None


def corpus_cache() -> Path:
    """Where ``benchmarks/fetch_corpus.py`` puts the corpus: ``$BAREMOBILE_CORPUS``, else
    ``~/.cache/baremobile/corpus`` (``$XDG_CACHE_HOME`` moves ``~/.cache``)."""
    env = os.environ.get("BAREMOBILE_CORPUS")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "baremobile" / "corpus"


def corpus_dir() -> Path:
    """Where the real-dump corpus lives.

    ``$BAREMOBILE_CORPUS``, else the first ``shared/corpus`` beside the repository or beside
    one of its parent folders (the repository is normally checked out next to ``shared/``),
    else the cache ``benchmarks/fetch_corpus.py`` fills (:func:`corpus_cache`).
    """
    env = os.environ.get("BAREMOBILE_CORPUS")
    if env:
        return Path(env)
    shared = shared_corpus()
    if (shared / "dumps").is_dir():
        return shared
    if (corpus_cache() / "dumps").is_dir():
        return corpus_cache()
    return shared


def shared_corpus() -> Path:
    """The first ``shared/corpus`` beside the repository or one of its parent folders (up to
    :data:`TOP`)."""
    for parent in REPO.parents:
        candidate = parent / "shared" / "corpus"
        if candidate.is_dir():
            return candidate
        if parent == TOP:
            break
    return REPO.parent / "shared" / "corpus"


def corpus_missing() -> str:
    """Why the corpus tests skip, and how to fill the corpus."""
    return (f"no corpus at {shared_corpus()} nor in {corpus_cache()}: "
            "fetch it from its public sources with 'python benchmarks/fetch_corpus.py' "
            "(or set BAREMOBILE_CORPUS to a corpus folder)")


def corpus_files() -> list[Path]:
    """The corpus dumps, sorted; empty when the corpus is not there."""
    d = corpus_dir() / "dumps"
    return sorted(d.glob("*.xml")) if d.is_dir() else []


# --- an independent reading of the snapshot grammar -------------------------------------

_REF = re.compile(r"- [^ ]+ \[ref=(\d+)\]")  # only right after the role


def _read_quoted(s: str, i: int, close: str) -> tuple[str, int]:
    """Read an escaped string starting after its opening delimiter; return (value, end)."""
    out = []
    while i < len(s):
        c = s[i]
        if c == "\\":
            nxt = s[i + 1]
            if nxt == "x":
                out.append(chr(int(s[i + 2 : i + 4], 16)))
                i += 4
                continue
            if nxt == "u":
                out.append(chr(int(s[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(nxt, nxt))
            i += 2
            continue
        if c == close:
            return "".join(out), i + 1
        out.append(c)
        i += 1
    raise AssertionError(f"unterminated string in line {s!r}")


@dataclass
class Line:
    depth: int
    ref: int | None
    strings: list[str] = field(default_factory=list)


def _read_line(stripped: str, depth: int) -> Line:
    """One ``- Role [ref=N] #id "text" (desc) [states]`` line (indent already stripped)."""
    m = _REF.match(stripped)
    ref = int(m.group(1)) if m else None
    strings = []
    i = stripped.find(' "')
    j = stripped.find(" (")
    if i >= 0 and (j < 0 or i < j):
        value, end = _read_quoted(stripped, i + 2, '"')
        strings.append(value)
        rest = stripped[end:]
    else:
        rest = stripped
    k = rest.find(" (")
    if k >= 0:
        value, _ = _read_quoted(rest, k + 2, ")")
        strings.append(value)
    return Line(depth, ref, strings)


def _read_items(s: str, depth: int) -> list[Line]:
    """The inline items of a condensed window header (``[ref=N] "text" (desc), …``)."""
    out = []
    i = 0
    while i < len(s):
        ref = None
        strings = []
        while i < len(s) and not s.startswith(", ", i):
            c = s[i]
            if s.startswith("[ref=", i):
                end = s.index("]", i)
                ref = int(s[i + 5 : end])
                i = end + 1
            elif c == '"':
                value, i = _read_quoted(s, i + 1, '"')
                strings.append(value)
            elif c == "(":
                value, i = _read_quoted(s, i + 1, ")")
                strings.append(value)
            elif c == "[":
                i = s.index("]", i) + 1
            else:
                i += 1  # a space or a #id
        out.append(Line(depth, ref, strings))
        i += 2
    return out


_KINDS = ("app", "dialog", "keyboard", "window", "status bar", "navigation bar")


def read_lines(text: str) -> list[Line]:
    """Each node of snapshot text: its depth, ref and shown strings (unescaped). A condensed
    window header's inline items count as lines one level below it."""
    lines = []
    for raw in text.split("\n"):
        if not raw or raw.startswith("#"):
            continue
        stripped = raw.lstrip(" ")
        depth = (len(raw) - len(stripped)) // 2
        assert stripped.startswith("- "), raw
        kind = next((k for k in _KINDS + ("notification shade",) if stripped[2:].startswith(k)),
                    None)
        if kind is not None and depth == 0:
            head, sep, items = stripped.partition(": ")
            # a header's title is quoted; items only follow ": " outside the title
            if sep and head.count('"') % 2 == 0:
                lines.append(Line(depth, None, []))
                lines.extend(_read_items(items, depth + 1))
                continue
        lines.append(_read_line(stripped, depth))
    return lines


def ref_subtree_strings(text: str) -> dict[int, list[str]]:
    """ref → every string shown on its line and on the lines of its subtree."""
    lines = read_lines(text)
    out: dict[int, list[str]] = {}
    for i, line in enumerate(lines):
        if line.ref is None:
            continue
        strings = list(line.strings)
        for nxt in lines[i + 1 :]:
            if nxt.depth <= line.depth:
                break
            strings.extend(nxt.strings)
        out[line.ref] = strings
    return out


_HEADER = re.compile(
    r"- (app|dialog|keyboard|window|status bar|navigation bar|notification shade)\b[^:]*"
)


def body(text: str) -> str:
    """The lines under the window headers, dedented one level; the screen line and the
    headers themselves dropped. What the pruning rules made of the windows' contents, for
    the tests of those rules (tests of the headers look at the whole text)."""
    out = []
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if not line.startswith(" "):
            assert _HEADER.fullmatch(line), f"not an uncondensed window header: {line!r}"
            continue
        out.append(line[2:])
    return "\n".join(out)


def bare_refs(snap) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(refs with no text, desc or labelled descendant; those of them with no ``#id``
    either) in a snapshot: what an agent has nothing to read for."""
    before = after = 0
    for r in snap.refs:
        n = snap.refs.node(r)
        if n.text or n.desc or any(d.text or d.desc for d in n.walk() if d is not n):
            continue
        before += 1
        after += not n.id_name
    return before, after


# --- the raw dump, walked on its own ----------------------------------------------------

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_EDIT = ("EditText", "AutoCompleteTextView")


def _bounds(el) -> tuple[int, int, int, int] | None:
    m = _BOUNDS.fullmatch(el.get("bounds", ""))
    return tuple(int(g) for g in m.groups()) if m else None  # type: ignore[return-value]


@dataclass
class Actionable:
    bounds: tuple[int, int, int, int]
    labels: list[str]
    cls: str
    line: str  # a short description for failure messages


def actionable_nodes(xml: bytes) -> list[Actionable]:
    """On-screen clickable/long-clickable/checkable/scrollable/editable nodes with a label.

    A label is a non-blank text or content-desc of the node or of any descendant. On-screen
    means its bounds overlap the screen (the union of the top-level windows) with positive
    area and it is not marked ``visible-to-user="false"``.
    """
    root = SafeET.fromstring(xml)
    hierarchies = [root] if root.tag == "hierarchy" else list(root.iter("hierarchy"))
    tops = []  # the window roots: the first nodes below a hierarchy, through unknown elements
    for h in hierarchies:
        stack = list(h)
        while stack:
            el = stack.pop()
            if el.tag == "node":
                tops.append(el)
            elif el.tag not in ("hierarchy", "window", "display", "displays"):
                stack.extend(el)
    sx2 = sy2 = 0
    for t in tops:
        b = _bounds(t)
        if b and b[2] > b[0] and b[3] > b[1]:
            sx2, sy2 = max(sx2, b[2]), max(sy2, b[3])
    out = []
    for el in root.iter("node"):
        cls = el.get("class", "")
        acts = (
            el.get("clickable") == "true"
            or el.get("long-clickable") == "true"
            or el.get("checkable") == "true"
            or el.get("scrollable") == "true"
            or el.get("password") == "true"
            or cls.endswith(_EDIT)
        )
        if not acts or el.get("visible-to-user") == "false":
            continue
        b = _bounds(el)
        if b is None:
            continue
        x1, y1 = max(b[0], 0), max(b[1], 0)
        x2, y2 = min(b[2], sx2), min(b[3], sy2)
        if x2 <= x1 or y2 <= y1:
            continue
        labels = []
        for d in el.iter("node"):
            for key in ("text", "content-desc"):
                v = (d.get(key) or "").strip()
                if v and v not in labels:
                    labels.append(v)
        if labels:
            out.append(Actionable(b, labels, cls, f"{cls} {el.get('bounds')} {labels[:2]}"))
    return out


@dataclass
class Recall:
    actionable: int
    recalled: int
    missed: list[Actionable]

    @property
    def ratio(self) -> float:
        return self.recalled / self.actionable if self.actionable else 1.0


def recall(xml: bytes, text: str, centers: dict[int, tuple[int, int]]) -> Recall:
    """Actionable recall of snapshot ``text`` (with ref tap points ``centers``) on ``xml``.

    A node is recalled when some ref's tap point lies inside the node's bounds and one of the
    node's labels appears (as a substring, whitespace-trimmed) on that ref's line or subtree.
    """
    shown = ref_subtree_strings(text)
    nodes = actionable_nodes(xml)
    missed = []
    for node in nodes:
        x1, y1, x2, y2 = node.bounds
        ok = False
        for ref, strings in shown.items():
            c = centers.get(ref)
            if c is None or not (x1 <= c[0] < x2 and y1 <= c[1] < y2):
                continue
            if any(label in s for label in node.labels for s in strings):
                ok = True
                break
        if not ok:
            missed.append(node)
    return Recall(len(nodes), len(nodes) - len(missed), missed)


# --- building small dumps for unit tests --------------------------------------------------


def esc_attr(value: str) -> str:
    """Escape ``value`` for a double-quoted XML attribute (newlines as char refs, as Android)."""
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
        .replace("\t", "&#9;")
    )


_FLAGS = (
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
)


def node(
    cls: str = "android.widget.FrameLayout",
    bounds: tuple[int, int, int, int] = (0, 0, 1080, 2400),
    *children: str,
    text: str = "",
    desc: str = "",
    rid: str = "",
    package: str = "com.example",
    extra: dict[str, str] | None = None,
    **flags: bool,
) -> str:
    """One ``<node>`` element with the 17 standard attributes, uiautomator-style."""
    values = {f: "false" for f in _FLAGS}
    values["enabled"] = "true"
    for k, v in flags.items():
        values[k.replace("_", "-")] = "true" if v else "false"
    x1, y1, x2, y2 = bounds
    attrs = (
        f'index="0" text="{esc_attr(text)}" resource-id="{esc_attr(rid)}" class="{cls}" '
        f'package="{package}" content-desc="{esc_attr(desc)}" '
        + " ".join(f'{f}="{values[f]}"' for f in _FLAGS)
        + f' bounds="[{x1},{y1}][{x2},{y2}]"'
    )
    if extra:
        attrs += "".join(f' {k}="{esc_attr(v)}"' for k, v in extra.items())
    if children:
        return f"<node {attrs}>{''.join(children)}</node>"
    return f"<node {attrs} />"


def dump(*tops: str, rotation: int = 0, decl: bool = True) -> bytes:
    """A whole dump around top-level window nodes."""
    head = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" if decl else ""
    return f'{head}<hierarchy rotation="{rotation}">{"".join(tops)}</hierarchy>'.encode()


def best_times(*fns: Callable[[], object], rounds: int = 3) -> list[float]:
    """The best wall time of each of ``fns`` over ``rounds`` rounds, run interleaved: on a
    loaded machine a stall hits one run of one function, and no function gets the quiet
    moments alone (timing one function's runs, then the other's, compared two different
    loads)."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best
