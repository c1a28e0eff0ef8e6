"""Snapshot pipeline benchmark over the real-dump corpus.

Run from the repository root::

    python benchmarks/snapshot.py [--reps N] [--corpus DIR]

Side by side, in one run, on every dump of ``../shared/corpus/dumps``:

(a) ``stream``  — this package: ``StreamPruner`` (expat callbacks prune while parsing) + render,
    fed the whole buffer, and again in 4 KiB chunks as bytes arrive from a device;
(b) ``dom``     — a naive full-DOM baseline: ``defusedxml.ElementTree.fromstring`` builds the
    whole tree, then a walk over it drives the *same* rule callbacks, then the same finishing
    step (screen, windows on top) and render;
(c) ``js``      — the JS baremobile 0.10 figures recorded in ``BASELINE.tsv``;
and, as a floor for context, ``expat``: pyexpat parsing the same bytes with no handlers at all.

Per file, each pipeline runs ``--reps`` times, interleaved, with the garbage collector off
while timing (as ``timeit`` does); the per-file median is kept. "total" sums those medians
over the corpus (how ``BASELINE.tsv``'s 56 ms is computed). Tokens are o200k_base
(PyPI ``bpe-openai``, offline; a benchmark-only dependency). Recall uses the independent
checker in ``tests/snapshot_helpers.py``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pyexpat  # noqa: E402

from defusedxml import ElementTree as SafeET  # noqa: E402

from baremobile.snapshot import Snapshot, StreamPruner  # noqa: E402
from baremobile.snapshot.prune import PruneState  # noqa: E402
from baremobile.snapshot.screen import build_snapshot  # noqa: E402
from tests.snapshot_helpers import corpus_dir, recall  # noqa: E402


def stream_pipeline(data: bytes) -> Snapshot:
    """(a) this package, exactly as the Page uses it."""
    pruner = StreamPruner()
    pruner.feed(data)
    return pruner.close()


def stream_chunked(data: bytes, size: int = 4096) -> Snapshot:
    """(a) again, fed in 4 KiB pieces the way bytes arrive from the device."""
    pruner = StreamPruner()
    for i in range(0, len(data), size):
        pruner.feed(data[i : i + size])
    return pruner.close()


def dom_pipeline(data: bytes) -> Snapshot:
    """(b) parse to a full DOM first, then walk it through the same rule callbacks."""
    root = SafeET.fromstring(data)
    st = PruneState()
    start, end = st.start, st.end
    start(root.tag, root.attrib)
    stack = [iter(root)]
    tags = [root.tag]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            end(tags.pop())
            continue
        start(child.tag, child.attrib)
        stack.append(iter(child))
        tags.append(child.tag)
    return build_snapshot(st, {})  # the same finishing step (screen, windows on top, render)


def expat_floor(data: bytes) -> None:
    """pyexpat over the same bytes with no handlers: what any expat pipeline pays at least."""
    pyexpat.ParserCreate().Parse(data, True)


def load_baseline(path: Path) -> dict[str, dict[str, str]]:
    rows = path.read_text(encoding="utf-8").splitlines()
    head = rows[0].split("\t")
    return {
        r.split("\t")[0]: dict(zip(head, r.split("\t"), strict=False))
        for r in rows[1:]
        if r.strip()
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=21, help="timed runs per file and pipeline")
    ap.add_argument("--corpus", type=Path, default=None, help="corpus dir (has dumps/)")
    args = ap.parse_args()
    corpus = args.corpus or corpus_dir()
    files = sorted((corpus / "dumps").glob("*.xml"))
    if not files:
        print(f"no corpus at {corpus} (set BAREMOBILE_CORPUS)", file=sys.stderr)
        return 2
    base = load_baseline(corpus / "BASELINE.tsv")
    try:
        import bpe_openai

        encode: Callable[[str], list[int]] | None = bpe_openai.get_encoding("o200k_base").encode
    except ImportError:  # the table still prints, without token counts
        print("bpe-openai not installed: token columns left empty (pip install bpe-openai)")
        encode = None

    pipes: dict[str, Callable[[bytes], object]] = {
        "stream": stream_pipeline,
        "chunked": stream_chunked,
        "dom": dom_pipeline,
        "expat": expat_floor,
    }
    medians: dict[str, list[float]] = {k: [] for k in pipes}
    stats = {
        k: {"chars": 0, "tokens": 0, "tok_full": 0, "act": 0, "rec": 0} for k in ("stream", "dom")
    }
    js_full_tokens = js_tokens = js_act = js_rec = 0
    js_ms: list[float] = []
    total_bytes = 0
    mismatches = []
    for path in files:
        data = path.read_bytes()
        total_bytes += len(data)
        row = base.get(path.name, {})
        js_ok = bool(row) and not row.get("js_error")
        js_full = js_ok and row["actionable"] == row["js_recalled"]
        if row:
            js_tokens += int(row["js_tokens_o200k"] or 0)
            js_act += int(row["actionable"] or 0)
            js_rec += int(row["js_recalled"] or 0)
            if row.get("js_median_ms"):
                js_ms.append(float(row["js_median_ms"]))
            if js_full:
                js_full_tokens += int(row["js_tokens_o200k"])
        outs = {}
        for name in ("stream", "dom"):
            snap = pipes[name](data)
            assert isinstance(snap, Snapshot)
            outs[name] = snap
            st = stats[name]
            st["chars"] += len(snap.text)
            toks = len(encode(snap.text)) if encode else 0
            st["tokens"] += toks
            if js_full:
                st["tok_full"] += toks
            centers = {r: snap.refs[r].center for r in snap.refs}
            rc = recall(data, snap.text, centers)
            st["act"] += rc.actionable
            st["rec"] += rc.recalled
        chunked = stream_chunked(data)
        if (
            outs["stream"].text != outs["dom"].text
            or chunked.text != outs["stream"].text
            or [chunked.refs[r].center for r in chunked.refs]
            != [outs["stream"].refs[r].center for r in outs["stream"].refs]
        ):
            mismatches.append(path.name)
        times: dict[str, list[float]] = {k: [] for k in pipes}
        gc.collect()
        gc.disable()
        try:
            for _ in range(args.reps):
                for name, fn in pipes.items():
                    t0 = time.perf_counter()
                    fn(data)
                    times[name].append(time.perf_counter() - t0)
        finally:
            gc.enable()
        for name in pipes:
            medians[name].append(statistics.median(times[name]) * 1000)

    mb = total_bytes / 1e6
    total = {k: sum(v) for k, v in medians.items()}
    total["js"] = sum(js_ms)
    med = {k: statistics.median(v) for k, v in medians.items()}
    med["js"] = statistics.median(js_ms) if js_ms else float("nan")

    print(f"corpus: {len(files)} dumps, {mb:.2f} MB; {args.reps} runs per file, per-file medians")
    print()
    hdr = (
        f"{'pipeline':<26}{'total ms':>9}{'median ms':>10}{'MB/s':>7}{'chars':>9}"
        f"{'tokens':>9}{'recall':>18}{'tok@JS-full':>13}"
    )
    print(hdr)
    print("-" * len(hdr))
    labels = {
        "stream": "(a) stream (this)",
        "dom": "(b) full-DOM baseline",
    }
    for k in ("stream", "dom"):
        st = stats[k]
        rec = f"{st['rec']}/{st['act']} {100 * st['rec'] / max(1, st['act']):.1f}%"
        print(
            f"{labels[k]:<26}{total[k]:>9.1f}{med[k]:>10.3f}{mb / (total[k] / 1000):>7.1f}"
            f"{st['chars']:>9}{st['tokens']:>9}{rec:>18}{st['tok_full']:>13}"
        )
        if k == "stream":
            print(
                f"{'    same, 4 KiB chunks':<26}{total['chunked']:>9.1f}{med['chunked']:>10.3f}"
                f"{mb / (total['chunked'] / 1000):>7.1f}{'(identical output)':>27}"
            )
    js_chars = sum(int(r.get("js_chars") or 0) for r in base.values())
    rec = f"{js_rec}/{js_act} {100 * js_rec / max(1, js_act):.1f}%"
    print(
        f"{'(c) JS 0.10 (BASELINE.tsv)':<26}{total['js']:>9.1f}{med['js']:>10.3f}"
        f"{mb / (total['js'] / 1000):>7.1f}{js_chars:>9}{js_tokens:>9}{rec:>18}"
        f"{js_full_tokens:>13}"
    )
    print(
        f"{'expat alone (floor)':<26}{total['expat']:>9.1f}{med['expat']:>10.3f}"
        f"{mb / (total['expat'] / 1000):>7.1f}"
    )
    print()
    a, b = stats["stream"], stats["dom"]
    print("ratios (same run):")
    print(f"  time   (a)/(b)  = {total['stream'] / total['dom']:.2f}x   (target < 1)")
    print(f"  time   (a)/JS   = {total['stream'] / total['js']:.2f}x   (target <= 1)")
    print(f"  time   (a)/expat floor = {total['stream'] / total['expat']:.2f}x")
    if encode and js_full_tokens:
        print(
            f"  tokens (a)/JS on the files where JS has full recall = "
            f"{a['tok_full'] / js_full_tokens:.2f}x   (target <= 0.8)"
        )
        print(f"  tokens (a)/JS on all files = {a['tokens'] / max(1, js_tokens):.2f}x")
    print(f"  recall (a) = {100 * a['rec'] / max(1, a['act']):.1f}%   (target 100%)")
    if mismatches:
        print(f"WARNING: (a) and (b) disagree on {len(mismatches)} files: {mismatches[:5]}")
    del b
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
