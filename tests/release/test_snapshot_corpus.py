"""Every real dump of the shared corpus: no exception, 100% actionable recall, exact round trip.

The corpus lives at ``$BAREMOBILE_CORPUS``, ``<repo>/../shared/corpus`` or the cache that
``benchmarks/fetch_corpus.py`` fills from the dumps' public sources; without it these tests
skip, saying how to fetch it (the only skip in the snapshot suite).
"""

from __future__ import annotations

import random

import pytest

from baremobile.snapshot import StreamPruner, from_xml, parse, render
from tests.snapshot_helpers import corpus_dir, corpus_files, corpus_missing, recall

FILES = corpus_files()
pytestmark = pytest.mark.skipif(not FILES, reason=corpus_missing())


def _sources() -> dict[str, str]:
    path = corpus_dir() / "SOURCES.tsv"
    if not path.exists():
        return {}
    rows = path.read_text(encoding="utf-8").splitlines()[1:]
    return {r.split("\t")[0]: r.split("\t")[-1] for r in rows if r}


@pytest.fixture(scope="module")
def snapshots():
    return {p.name: (p.read_bytes(), from_xml(p.read_bytes())) for p in FILES}


@pytest.mark.fast
def test_corpus_is_complete():
    assert len(FILES) >= 175


def test_actionable_recall_is_total(snapshots):
    total = recalled = 0
    missed = []
    for name, (data, snap) in snapshots.items():
        centers = {r: snap.refs[r].center for r in snap.refs}
        rc = recall(data, snap.text, centers)
        total += rc.actionable
        recalled += rc.recalled
        missed += [f"{name}: {m.line}" for m in rc.missed]
    assert total > 2600
    assert not missed, "\n".join(missed[:20])


@pytest.mark.fast
def test_round_trip(snapshots):
    for name, (_, snap) in snapshots.items():
        assert render(parse(snap.text)) == snap.text, name
        assert render(snap.tree) == snap.text, name


def test_refs_dense_unique_and_tappable(snapshots):
    for name, (_, snap) in snapshots.items():
        refs = list(snap.refs)
        assert refs == list(range(1, len(refs) + 1)), name
        shown = [n.ref for n in parse(snap.text).walk() if n.ref is not None]
        assert shown == refs, name
        for r in refs:
            ref = snap.refs[r]
            x1, y1, x2, y2 = ref.bounds
            cx, cy = ref.center
            assert x1 <= cx < x2 and y1 <= cy < y2, (name, r)
            rx1, ry1, rx2, ry2 = ref.raw_bounds
            assert rx1 <= cx < rx2 and ry1 <= cy < ry2, (name, r)
            assert 0 <= cx < snap.width and 0 <= cy < snap.height, (name, r)


def test_every_line_is_one_node(snapshots):
    for name, (_, snap) in snapshots.items():
        lines = snap.text.split("\n") if snap.text else []
        assert snap.text.splitlines() == lines, name
        if snap.width and snap.height:  # the first line gives the screen when it is known
            assert lines[0] == f"# {snap.width}x{snap.height} " + (
                "portrait" if snap.height > snap.width else "landscape"
                if snap.width > snap.height else "square"
            ), name
            lines = lines[1:]
        assert all(line.lstrip(" ").startswith("- ") for line in lines), name


def test_random_chunking_matches(snapshots):
    rng = random.Random(1234)
    for name, (data, snap) in snapshots.items():
        cuts = sorted(rng.sample(range(len(data)), min(25, len(data))))
        pruner = StreamPruner()
        prev = 0
        for cut in cuts + [len(data)]:
            pruner.feed(data[prev:cut])
            prev = cut
        again = pruner.close()
        assert again.text == snap.text, name
        assert [again.refs[r].center for r in again.refs] == [
            snap.refs[r].center for r in snap.refs
        ], name


def test_screen_size_and_package_match_the_sources(snapshots):
    notes = _sources()
    if not notes:
        pytest.skip("SOURCES.tsv not present")
    for name, (_, snap) in snapshots.items():
        note = notes[name]
        if "screen " in note:
            size = note.split("screen ", 1)[1].split(";", 1)[0]
            w, h = (int(v) for v in size.split("x"))
            if w and h:
                assert (snap.width, snap.height) == (w, h), name
        if "main package " in note and snap.package:
            main = note.split("main package ", 1)[1].split(";", 1)[0]
            also = note.split("also: ", 1)[1].split(";", 1)[0] if "also: " in note else ""
            # the foreground app is the main package, unless the keyboard was counted as main
            assert snap.package == main or "inputmethod" in main or snap.package in also, (
                name,
                snap.package,
                main,
            )


def test_limits_on_real_dumps(snapshots):
    for name, (data, snap) in list(snapshots.items())[::7]:
        cut = from_xml(data, max_chars=800)
        assert len(cut.text) <= 800, name
        assert cut.truncated == (len(snap.text) > 800), name
        assert list(cut.refs) == list(snap.refs), name  # refs never renumbered
        if cut.truncated:
            assert cut.truncation is not None
            shown = {n.ref for n in parse(cut.text).walk() if n.ref is not None}
            assert shown | set(cut.truncation.refs_omitted) == set(snap.refs), name
