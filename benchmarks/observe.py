"""Observation benchmark: what an agent reads per step, diffs against full snapshots.

Run from the repository root::

    python benchmarks/observe.py [--corpus DIR]

1. **The blueprint's Verified Flows** (``tests/verified_flows.py``) on the virtual phone:
   after every step the agent observes with ``page.snapshot(diff=True)``. Per flow, the
   summed o200k tokens of those observations against the summed tokens of the full
   snapshots of the same steps (``Snapshot.full_text``); "new" counts the observations
   that came whole (each flow's first look: a new Page). Every diff is applied to the
   texts seen before and must give the new text back (checked here, counted). The
   **floor** is what any line-based observation must cost at least: the tokens of the
   lines no earlier observation of the flow showed (at any indent), with no diff markup.
2. **The corpus** (``../shared/corpus``): actionable recall (the independent checker in
   ``tests/snapshot_helpers.py``), bare refs (no text, desc, labelled descendant or
   ``#id``) before and after ``#id``, and tokens against the JS original's on the files it
   fully recalls, with the cost of the screen line and window headers shown apart, and a
   **floor** for the grammar: the tokens left if every part outside an element line's
   ``- Role [ref=N] #id "text" (desc)`` were dropped (states, lines of anonymous
   ``Group``/``View`` wrappers, the screen line, window headers).

Tokens are o200k_base (PyPI ``bpe-openai``, the ``bench`` extra): without it the script
says so and stops.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from baremobile import connect  # noqa: E402
from baremobile.snapshot import Snapshot, from_xml  # noqa: E402
from baremobile.snapshot.diff import apply, is_whole  # noqa: E402
from tests.snapshot_helpers import bare_refs, corpus_dir, corpus_missing, recall  # noqa: E402
from tests.verified_flows import FLOWS  # noqa: E402


def flows(count) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Print the flow table; return the totals."""
    print("Verified Flows on the virtual phone, observing with snapshot(diff=True)")
    print()
    head = f"{'flow':<36}{'steps':>6}{'new':>5}{'full tok':>10}{'diff tok':>10}{'ratio':>7}"
    print(head)
    print("-" * len(head))
    tot = {"steps": 0, "new": 0, "full": 0, "diff": 0, "later_full": 0, "later_diff": 0,
           "applied": 0, "floor": 0}
    for name, flow in FLOWS.items():
        steps: list[tuple[int, int, bool]] = []
        with connect("virtual") as page:
            texts: dict[int, str] = {}  # what the agent was shown, by observation number
            shown: set[str] = set()  # every line shown so far, without its indent

            def look() -> Snapshot:
                snap = page.snapshot(diff=True)
                if apply(snap.text, texts) == snap.full_text:  # noqa: B023
                    tot["applied"] += 1
                texts[snap.number] = snap.full_text  # noqa: B023
                lines = snap.full_text.split("\n")
                fresh = [ln for ln in lines if ln.lstrip(" ") not in shown]  # noqa: B023
                tot["floor"] += count("\n".join(fresh)) if fresh else 0
                shown.update(ln.lstrip(" ") for ln in lines)  # noqa: B023
                new = is_whole(snap.text)
                steps.append((count(snap.full_text), count(snap.text), new))  # noqa: B023
                return snap

            flow(page, look)
        full = sum(s[0] for s in steps)
        diff = sum(s[1] for s in steps)
        new = sum(1 for s in steps if s[2])
        tot["steps"] += len(steps)
        tot["new"] += new
        tot["full"] += full
        tot["diff"] += diff
        tot["later_full"] += sum(s[0] for s in steps[1:])
        tot["later_diff"] += sum(s[1] for s in steps[1:])
        print(f"{name:<36}{len(steps):>6}{new:>5}{full:>10}{diff:>10}{diff / full:>7.2f}")
    print("-" * len(head))
    print(
        f"{'all flows':<36}{tot['steps']:>6}{tot['new']:>5}{tot['full']:>10}{tot['diff']:>10}"
        f"{tot['diff'] / tot['full']:>7.2f}"
    )
    print()
    print(f"  diff tokens / full tokens, all observations   = {tot['diff'] / tot['full']:.3f}x"
          "   (target <= 0.55)")
    print(f"  … after each flow's first look ({tot['steps'] - len(FLOWS)} observations) "
          f"= {tot['later_diff'] / max(1, tot['later_full']):.2f}x")
    print(f"  floor: lines no earlier observation of the flow showed = {tot['floor']} tokens "
          f"= {tot['floor'] / tot['full']:.2f}x")
    print(f"  apply(diff, texts seen before) == full text on {tot['applied']}/{tot['steps']} "
          "steps")
    return tot


class _ToolAgent:
    """A flow's Page calls made as an agent makes them through the tool table, observing
    with ``observe="diff"``: each acting call answers what was done and what changed."""

    def __init__(self, page, count) -> None:  # type: ignore[no-untyped-def]
        self.page, self.count = page, count
        self.results: list[int] = []  # tokens of each result's text
        self.fulls: list[int] = []  # tokens of the full snapshot of the same step
        self.done = 0  # tokens of the "done" lines and facts (what results add)

    def _call(self, name: str, args: dict) -> None:  # type: ignore[type-arg]
        from baremobile import tools

        r = tools.call(self.page, name, args, observe="diff", settle=0)
        assert r["ok"], r
        text = tools.to_text(r)
        tokens = self.count(text)
        self.results.append(tokens)
        self.fulls.append(self.count(self.page.last_snapshot.full_text))
        self.done += tokens - self.count(r["snapshot"])

    def tap(self, ref: int) -> None:
        self._call("tap", {"ref": ref})

    def type(self, ref: int, text: str) -> None:
        self._call("type", {"ref": ref, "text": text})

    def scroll(self, ref: int, direction: str) -> None:
        self._call("scroll", {"ref": ref, "direction": direction})

    def launch(self, package: str) -> None:
        self._call("launch", {"package": package})

    def back(self) -> None:
        self._call("back", {})

    def home(self) -> None:
        self._call("home", {})

    def recents(self) -> None:
        self._call("press", {"key": "app_switch"})


def tool_flows(count) -> None:  # type: ignore[no-untyped-def]
    """The same flows through the tool table: what an agent reads after each action (the
    result's text: what was done, and the diff observed after it)."""
    print("The same flows through the tools, observe='diff': each action's result text")
    print()
    head = f"{'flow':<36}{'steps':>6}{'full tok':>10}{'result tok':>11}{'ratio':>7}"
    print(head)
    print("-" * len(head))
    full = res = done = steps = 0
    for name, flow in FLOWS.items():
        with connect("virtual") as page:
            agent = _ToolAgent(page, count)
            flow(agent, lambda page=page: page.last_snapshot)  # type: ignore[misc]
        f, r = sum(agent.fulls), sum(agent.results)
        full, res, done, steps = full + f, res + r, done + agent.done, steps + len(agent.results)
        print(f"{name:<36}{len(agent.results):>6}{f:>10}{r:>11}{r / f:>7.2f}")
    print("-" * len(head))
    print(f"{'all flows':<36}{steps:>6}{full:>10}{res:>11}{res / full:>7.2f}")
    print()
    print(f"  result tokens / full tokens = {res / full:.2f}x; of which what results add "
          f"beside the observation (the 'done' lines) = {done} tokens ({done / full:.3f}x)")


_STATES = re.compile(r" \[(?:checked|selected|focused|disabled|password|scrollable|covered)"
                     r"(?:, [a-z]+)*\]$")
_WRAPPER = re.compile(r" *- (?:Group|View)")


def _identity_only(text: str) -> str:
    """``text`` with only what makes an element line: no states, no line of an anonymous
    wrapper, no screen line, no window header (a condensed bar keeps its items)."""
    out = []
    for ln in text.split("\n"):
        if ln.startswith("# ") or _WRAPPER.fullmatch(ln):
            continue
        if ln.startswith("- ") and ln[2:3].islower():  # a window header
            if ": " not in ln:
                continue
            ln = ln.split(": ", 1)[1]
        out.append(_STATES.sub("", ln))
    return "\n".join(out)


def _bare_in_labelled_ref(snap) -> int:  # type: ignore[no-untyped-def]
    """Bare refs (as ``bare_refs`` counts them, after ``#id``) whose nearest enclosing ref
    has a label of its own (the file row a Flutter "more" button sits in)."""
    n = 0
    stack = [(top, False) for top in snap.tree.children]
    while stack:
        node, labelled_above = stack.pop()
        if node.ref is not None and not node.id_name and labelled_above and not (
            node.text or node.desc or any(d.text or d.desc for d in node.walk() if d is not node)
        ):
            n += 1
        here = labelled_above if node.ref is None else bool(node.text or node.desc)
        stack.extend((k, here) for k in node.children)
    return n


def corpus(count, root: Path) -> None:  # type: ignore[no-untyped-def]
    files = sorted((root / "dumps").glob("*.xml"))
    rows = (root / "BASELINE.tsv").read_text(encoding="utf-8").splitlines()
    head = rows[0].split("\t")
    base = {r.split("\t")[0]: dict(zip(head, r.split("\t"), strict=False)) for r in rows[1:]}
    refs = bare_before = bare_after = act = rec = 0
    ours = js = frame = floor = inside = 0
    kinds: dict[str, int] = {}
    for path in files:
        data = path.read_bytes()
        snap = from_xml(data)
        r = recall(data, snap.text, {k: snap.refs[k].center for k in snap.refs})
        act += r.actionable
        rec += r.recalled
        refs += len(snap.refs)
        b, a = bare_refs(snap)
        bare_before += b
        bare_after += a
        inside += _bare_in_labelled_ref(snap)
        for w in snap.windows:
            kinds[w.kind] = kinds.get(w.kind, 0) + 1
        row = base.get(path.name, {})
        if row and not row.get("js_error") and row["actionable"] == row["js_recalled"]:
            ours += count(snap.text)
            js += int(row["js_tokens_o200k"])
            # the first line and the window headers (condensed bars with their contents)
            frame += count("\n".join(ln for ln in snap.text.split("\n")
                                     if ln.startswith("# ") or ln[:3].startswith("- ")
                                     and ln[2:3].islower()))
            floor += count(_identity_only(snap.text))
    print(f"Corpus: {len(files)} dumps")
    print()
    print(f"  recall                       {rec}/{act} = {100 * rec / max(1, act):.1f}%"
          "   (target 100%)")
    print(f"  bare refs without #id        {bare_before}/{refs} = "
          f"{100 * bare_before / max(1, refs):.1f}%")
    print(f"  bare refs with #id           {bare_after}/{refs} = "
          f"{100 * bare_after / max(1, refs):.1f}%   (target <= 5%)")
    print(f"    of which the nearest enclosing ref has a label: {inside}")
    print(f"  tokens / JS, files JS fully recalls = {ours}/{js} = {ours / max(1, js):.2f}x"
          "   (target <= 0.6)")
    print(f"    of which screen lines and window headers (condensed bars included): {frame} "
          f"tokens ({frame / max(1, js):.2f}x of JS)")
    print(f"    floor: element lines without states, anonymous wrappers, screen line and "
          f"headers = {floor}/{js} = {floor / max(1, js):.2f}x")
    print(f"  windows named: {', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=None, help="corpus dir (has dumps/)")
    args = ap.parse_args()
    try:
        import bpe_openai
    except ImportError:
        print("bpe-openai is not installed (pip install -e '.[bench]'): no tokens to count",
              file=sys.stderr)
        return 2
    encode = bpe_openai.get_encoding("o200k_base").encode

    def count(text: str) -> int:
        return len(encode(text))

    flows(count)
    print()
    tool_flows(count)
    print()
    root = args.corpus or corpus_dir()
    if (root / "dumps").is_dir():
        corpus(count, root)
    else:
        print(f"{corpus_missing()}: corpus part skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
