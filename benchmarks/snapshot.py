"""Snapshot pipeline benchmark over the real-dump corpus, against the JS original in the same run.

Run from the repository root::

    python benchmarks/snapshot.py [--reps N] [--corpus DIR] [--js-src DIR] [--profile]

Side by side, in one run, on every dump of ``../shared/corpus/dumps``:

(a) ``from_xml`` — this package on a dump held in memory (what the JS figures measure too):
    ``StreamPruner`` (expat callbacks prune while parsing) + render; and again fed in 4 KiB
    chunks, as bytes arrive from a device (``Page.snapshot()`` streams them);
(b) ``dom`` — a naive full-DOM baseline: ``defusedxml.ElementTree.fromstring`` builds the whole
    tree, then a walk over it drives the *same* rule callbacks, the same finishing step
    (screen, windows on top) and render;
(c) ``js`` — the JS baremobile 0.10.0 pipeline (``parseXml`` → ``prune`` → ``formatTree``),
    run here under Node.js when ``--js-src`` (or ``$BAREMOBILE_JS_SRC``) names the ``src/``
    folder of its 0.10.0 release (never part of this repository): one JS run after each
    round of Python runs, so both see the same machine load; and the fixed figures
    ``BASELINE.tsv`` recorded when the corpus was made (``--reps 200`` is its protocol);
and the floors no expat pipeline in CPython can go under: expat with no handlers, and expat
calling no-op start/end handlers with the cheapest attribute objects (``ordered_attributes``).

Per file, each Python pipeline runs ``--reps`` times, interleaved, with the garbage collector
off while timing (as ``timeit`` does); the per-file median is kept, and "total" sums those
medians over the corpus (how ``BASELINE.tsv``'s 56 ms is computed). The JS runs are timed
inside one Node.js process, input as a string (as BASELINE.tsv measured it; the Python
pipelines take bytes and decode them inside expat).
Tokens are o200k_base (PyPI ``bpe-openai``, offline; a benchmark-only dependency). Recall uses
the independent checker in ``tests/snapshot_helpers.py``. ``--profile`` adds where the time
goes per node (cProfile over the corpus).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import pyexpat  # noqa: E402

from defusedxml import ElementTree as SafeET  # noqa: E402

from baremobile.snapshot import Snapshot, StreamPruner, from_xml  # noqa: E402
from baremobile.snapshot.prune import PruneState  # noqa: E402
from baremobile.snapshot.screen import build_snapshot  # noqa: E402
from tests.snapshot_helpers import corpus_dir, corpus_missing, recall  # noqa: E402

# The JS side: parse + prune + format of one dump per request, timed inside Node.js. It reads
# "path" (load the dump, as a string, as BASELINE.tsv measured it) or "run" (time one run) per
# line on stdin and answers each with a line, so its runs interleave with the Python ones.
_JS_HARNESS = r"""
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
const src = process.argv[2];
const { parseXml } = await import(join(src, 'xml.js'));
const { prune } = await import(join(src, 'prune.js'));
const { formatTree } = await import(join(src, 'aria.js'));
let xml = '';
const run = () => { try { formatTree(prune(parseXml(xml)).tree); } catch { } };
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'run') {
    const t0 = process.hrtime.bigint();
    run();
    console.log(Number(process.hrtime.bigint() - t0) / 1e9);
  } else {
    xml = readFileSync(line, 'utf8');
    run();
    console.log('ok');
  }
}
"""


class JsPipeline:
    """The JS original under Node.js, driven one run at a time (None when it cannot run)."""

    def __init__(self, src: Path) -> None:
        node = shutil.which("node")
        if node is None or not (src / "xml.js").is_file():
            raise FileNotFoundError(f"node, or {src / 'xml.js'}")
        self._tmp = tempfile.TemporaryDirectory()
        harness = Path(self._tmp.name) / "harness.mjs"
        harness.write_text(_JS_HARNESS, encoding="utf-8")
        self._proc = subprocess.Popen(
            [node, str(harness), str(src.resolve())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def _ask(self, line: str) -> str:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        return self._proc.stdout.readline().strip()

    def load(self, path: Path) -> None:
        if self._ask(str(path.resolve())) != "ok":
            raise RuntimeError("the JS harness did not load the dump")

    def run(self) -> float:
        """Seconds one parse + prune + format took, measured inside Node.js."""
        return float(self._ask("run"))

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)
        self._tmp.cleanup()


def stream_pipeline(data: bytes) -> Snapshot:
    """(a) this package on a dump in memory."""
    return from_xml(data)


def stream_chunked(data: bytes, size: int = 4096) -> Snapshot:
    """(a) again, fed in 4 KiB pieces the way bytes arrive from the device."""
    pruner = StreamPruner()
    for i in range(0, len(data), size):
        pruner.feed(data[i : i + size])
    return pruner.close()


def _flat(attrib: dict[str, str]) -> list[str]:
    """ElementTree's attribute dict as expat's ``ordered_attributes`` list."""
    return [x for kv in attrib.items() for x in kv]


def dom_pipeline(data: bytes) -> Snapshot:
    """(b) parse to a full DOM first, then walk it through the same rule callbacks."""
    root = SafeET.fromstring(data)
    st = PruneState()
    start, end = st.start, st.end
    start(root.tag, _flat(root.attrib))
    stack = [iter(root)]
    tags = [root.tag]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            end(tags.pop())
            continue
        start(child.tag, _flat(child.attrib))
        stack.append(iter(child))
        tags.append(child.tag)
    return build_snapshot(st, {})  # the same finishing step (screen, windows on top, render)


def expat_floor(data: bytes) -> None:
    """pyexpat over the same bytes with no handlers: what any expat pipeline pays at least."""
    pyexpat.ParserCreate().Parse(data, True)


def _noop(*_: object) -> None:
    pass


def handler_floor(data: bytes) -> None:
    """pyexpat calling Python no-op start/end handlers with attribute lists: the least any
    pipeline pays that looks at elements from Python (CPython has no JIT to go below)."""
    p = pyexpat.ParserCreate()
    p.ordered_attributes = True
    p.StartElementHandler = _noop
    p.EndElementHandler = _noop
    p.Parse(data, True)


def load_baseline(path: Path) -> dict[str, dict[str, str]]:
    """BASELINE.tsv's rows by file (empty, said once, when the corpus came without it: a
    fetched corpus has no JS baseline, which was measured where the corpus was made)."""
    if not path.is_file():
        print(f"no {path.name} beside the corpus: the JS 0.10 figures are left out "
              "(--js-src runs the JS pipeline here instead)")
        return {}
    rows = path.read_text(encoding="utf-8").splitlines()
    head = rows[0].split("\t")
    return {
        r.split("\t")[0]: dict(zip(head, r.split("\t"), strict=False))
        for r in rows[1:]
        if r.strip()
    }


def profile(files: list[Path]) -> None:
    """Where the time goes, per node of the corpus (cProfile; its overhead inflates calls)."""
    import cProfile
    import pstats

    datas = [p.read_bytes() for p in files]
    nodes = sum(d.count(b"<node") for d in datas)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        for d in datas:
            from_xml(d)
    prof.disable()
    stats = pstats.Stats(prof)
    print(f"\nprofile: 3 passes over {nodes} nodes; own time per node (µs, cProfile-inflated):")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:12]  # type: ignore[attr-defined]
    for (fname, line, func), (_, ncalls, tottime, _, _) in rows:
        where = f"{Path(fname).name}:{line}({func})" if line else func
        print(f"  {tottime / 3 / nodes * 1e6:6.2f}  {ncalls // 3:>7} calls  {where}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=21, help="timed runs per file and pipeline")
    ap.add_argument("--corpus", type=Path, default=None, help="corpus dir (has dumps/)")
    js_env = os.environ.get("BAREMOBILE_JS_SRC")
    ap.add_argument(
        "--js-src",
        type=Path,
        default=Path(js_env) if js_env else None,
        help="src/ of the JS baremobile 0.10.0 release, to run it here side by side",
    )
    ap.add_argument("--profile", action="store_true", help="also print a per-node profile")
    args = ap.parse_args()
    corpus = args.corpus or corpus_dir()
    files = sorted((corpus / "dumps").glob("*.xml"))
    if not files:
        print(corpus_missing() if args.corpus is None else f"no corpus at {corpus}",
              file=sys.stderr)
        return 2
    base = load_baseline(corpus / "BASELINE.tsv")
    try:
        import bpe_openai

        encode: Callable[[str], list[int]] | None = bpe_openai.get_encoding("o200k_base").encode
    except ImportError:  # the table still prints, without token counts
        print("bpe-openai not installed: token columns left empty (pip install bpe-openai)")
        encode = None

    js: JsPipeline | None = None
    if args.js_src is not None:
        try:
            js = JsPipeline(args.js_src)
        except FileNotFoundError as exc:
            print(f"no {exc}: the live JS row is left out")

    pipes: dict[str, Callable[[bytes], object]] = {
        "stream": stream_pipeline,
        "chunked": stream_chunked,
        "dom": dom_pipeline,
        "expat": expat_floor,
        "handlers": handler_floor,
    }
    medians: dict[str, list[float]] = {k: [] for k in [*pipes, "js_here"]}
    stats = {
        k: {"chars": 0, "tokens": 0, "tok_full": 0, "act": 0, "rec": 0} for k in ("stream", "dom")
    }
    js_full_tokens = js_tokens = js_act = js_rec = 0
    js_ms: list[float] = []
    total_bytes = nodes = 0
    mismatches = []
    for path in files:
        data = path.read_bytes()
        total_bytes += len(data)
        nodes += data.count(b"<node")
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
        times: dict[str, list[float]] = {k: [] for k in medians}
        if js is not None:
            js.load(path)
        gc.collect()
        gc.disable()
        try:
            for _ in range(args.reps):
                for name, fn in pipes.items():
                    t0 = time.perf_counter()
                    fn(data)
                    times[name].append(time.perf_counter() - t0)
                if js is not None:  # one JS run between the Python ones, never beside them
                    times["js_here"].append(js.run())
        finally:
            gc.enable()
        for name, got in times.items():
            if got:
                medians[name].append(statistics.median(got) * 1000)
    if js is not None:
        js.close()

    mb = total_bytes / 1e6
    total = {k: sum(v) for k, v in medians.items() if v}
    if js_ms and sum(js_ms) > 0:  # (none for a fetched corpus: no BASELINE.tsv beside it)
        total["js"] = sum(js_ms)
    med = {k: statistics.median(v) for k, v in medians.items() if v}
    med["js"] = statistics.median(js_ms) if js_ms else float("nan")

    print(
        f"corpus: {len(files)} dumps, {nodes} nodes, {mb:.2f} MB; {args.reps} runs per file, "
        "per-file medians"
    )
    print()
    hdr = (
        f"{'pipeline':<30}{'total ms':>9}{'median ms':>10}{'MB/s':>7}{'chars':>9}"
        f"{'tokens':>9}{'recall':>18}{'tok@JS-full':>13}"
    )
    print(hdr)
    print("-" * len(hdr))

    def timing(label: str, key: str) -> str:
        return f"{label:<30}{total[key]:>9.1f}{med[key]:>10.3f}{mb / (total[key] / 1000):>7.1f}"

    labels = {"stream": "(a) from_xml (this)", "dom": "(b) full-DOM baseline"}
    for k in ("stream", "dom"):
        st = stats[k]
        rec = f"{st['rec']}/{st['act']} {100 * st['rec'] / max(1, st['act']):.1f}%"
        cols = f"{st['chars']:>9}{st['tokens']:>9}{rec:>18}{st['tok_full']:>13}"
        print(timing(labels[k], k) + cols)
        if k == "stream":
            print(timing("    same, 4 KiB chunks", "chunked") + f"{'(identical output)':>27}")
    js_chars = sum(int(r.get("js_chars") or 0) for r in base.values())
    rec = f"{js_rec}/{js_act} {100 * js_rec / max(1, js_act):.1f}%"
    js_cols = f"{js_chars:>9}{js_tokens:>9}{rec:>18}{js_full_tokens:>13}"
    if "js_here" in total:
        print(timing("(c) JS 0.10, here, interleaved", "js_here") + js_cols)
    if "js" in total:
        print(timing("(c) JS 0.10 (BASELINE.tsv)", "js")
              + ("" if "js_here" in total else js_cols))
    print(timing("expat + no-op handlers", "handlers"))
    print(timing("expat alone", "expat"))
    print()
    a = stats["stream"]
    print("ratios:")
    print(f"  time   (a)/(b)  = {total['stream'] / total['dom']:.2f}x   (target < 1)")
    for key, what in (
        ("js_here", "JS here (same run, same protocol)"),
        ("js", "JS in BASELINE.tsv (fixed figures)"),
    ):
        if key in total:
            print(f"  time   (a)/{what} = {total['stream'] / total[key]:.2f}x   (target <= 1)")
    floor_js = (f" that floor/JS here = {total['handlers'] / total['js_here']:.2f}x"
                if "js_here" in total else
                f" that floor/JS = {total['handlers'] / total['js']:.2f}x (BASELINE.tsv)"
                if "js" in total else "")
    print(f"  time   (a)/no-op-handler floor = {total['stream'] / total['handlers']:.2f}x;"
          + floor_js)
    per_node = {k: total[k] / nodes * 1000 for k in ("stream", "handlers", "expat")}
    print(
        f"  per node: (a) {per_node['stream']:.2f} µs = expat {per_node['expat']:.2f}"
        f" + handler calls {per_node['handlers'] - per_node['expat']:.2f}"
        f" + pruning/render {per_node['stream'] - per_node['handlers']:.2f}"
    )
    if encode and js_full_tokens:
        print(
            f"  tokens (a)/JS on the files where JS has full recall = "
            f"{a['tok_full'] / js_full_tokens:.2f}x   (target <= 0.6)"
        )
        print(f"  tokens (a)/JS on all files = {a['tokens'] / max(1, js_tokens):.2f}x")
    print(f"  recall (a) = {100 * a['rec'] / max(1, a['act']):.1f}%   (target 100%)")
    if mismatches:
        print(f"WARNING: (a) and (b) disagree on {len(mismatches)} files: {mismatches[:5]}")
    if args.profile:
        profile(files)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
