"""Web content benchmark: the merged snapshot against the native one, and what reading a
page costs, on real headless Chromium behind the virtual phone.

Run from the repository root (needs Chromium and the ``[web]`` extra; ``[bench]`` for the
token columns)::

    python benchmarks/web.py [--reps N]

For each page (the test pages of ``tests/web_pages`` and a generated long page with 400
links and 100 inputs), in Chrome on the virtual phone, over the real ADB protocol:

* **time** — the median of ``--reps`` ``page.snapshot(web=False)`` (native only) and
  ``page.snapshot()`` (merged), interleaved, and their ratio;
* **tokens** (o200k_base, ``bpe-openai``) — the web part of the merged snapshot (its lines
  under the WebView) against the raw DevTools answers it was built from: the accessibility
  tree alone (what a CDP agent would read) and everything read (tree + layout);
* **the choice of domains** — per page, how long ``Accessibility.getFullAXTree`` and
  ``DOMSnapshot.captureSnapshot`` take and how big they are, and what getting boxes node by
  node (``DOM.getBoxModel`` per actionable node) would cost instead of one snapshot.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from baremobile import connect  # noqa: E402
from baremobile.virtual import VirtualPhone  # noqa: E402
from baremobile.virtual.chromium import find_chromium  # noqa: E402

PAGES = ["form.html", "links.html", "list.html", "frame.html", "zoom.html", "long.html"]


def long_page() -> str:
    links = "\n".join(f'<li><a href="#l{i}">Article number {i}</a></li>' for i in range(400))
    inputs = "\n".join(f'<label>Field {i} <input name="f{i}"></label><br>' for i in range(100))
    return ('<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" '
            'content="width=device-width, initial-scale=1"><title>Long page</title></head>'
            f"<body><h1>Long page</h1><form>{inputs}</form><ul>{links}</ul></body></html>")


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def web_part(text: str) -> str:
    """The lines of the merged snapshot inside the WebView (deeper than its line)."""
    lines = text.splitlines()
    out: list[str] = []
    depth = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if depth is not None:
            if indent <= depth:
                depth = None
            else:
                out.append(line)
                continue
        if line.lstrip().startswith("- WebView") and depth is None:
            depth = indent
    return "\n".join(out[1:] if out and out[0].lstrip().startswith("- WebView") else out)


def domain_costs(phone: VirtualPhone) -> dict[str, float]:
    """Time and size of each reading strategy on the page on screen (through the phone's
    own pipe to Chromium, so only Chromium's work is timed)."""
    phone.screens.web_sync()
    web = phone.screens.web
    s = web.visible
    engine = phone.browser

    def call(method: str, params: dict | None = None) -> tuple[dict, float]:
        t = time.perf_counter()
        r = engine.call(method, params or {}, session=s.session)
        return r, (time.perf_counter() - t) * 1e3

    out: dict[str, float] = {}
    for _ in range(2):  # the second round is the one kept (warm)
        ax, out["ax_ms"] = call("Accessibility.getFullAXTree")
        snap, out["snap_ms"] = call("DOMSnapshot.captureSnapshot",
                                    {"computedStyles": [], "includeDOMRects": True})
    out["ax_kb"] = len(json.dumps(ax)) / 1024
    out["snap_kb"] = len(json.dumps(snap)) / 1024
    acting = [n["backendDOMNodeId"] for n in ax["nodes"] if n.get("backendDOMNodeId")
              and n.get("role", {}).get("value") in ("button", "link", "textbox", "checkbox",
                                                     "combobox", "radio")]
    t = time.perf_counter()
    for b in acting:
        engine.call("DOM.getBoxModel", {"backendNodeId": b}, session=s.session)
    out["boxes_ms"] = (time.perf_counter() - t) * 1e3
    out["acting"] = len(acting)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    if find_chromium() is None:
        print("no Chromium here: install chromium (or set $BAREMOBILE_CHROMIUM)")
        return 2
    try:
        import bpe_openai

        encode: Callable[[str], list[int]] | None = bpe_openai.get_encoding("o200k_base").encode
    except ImportError:
        print("bpe-openai not installed: token columns left empty (pip install bpe-openai)")
        encode = None

    def tokens(text: str) -> int:
        """o200k tokens (the encoder takes pieces of bounded size: cut at commas)."""
        if encode is None:
            return 0
        total, start = 0, 0
        while start < len(text):
            end = len(text) if len(text) - start <= 20_000 else text.rfind(",", start,
                                                                              start + 20_000)
            end = start + 20_000 if end <= start else end
            total += len(encode(text[start:end]))
            start = end
        return total

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for p in (REPO / "tests" / "web_pages").glob("*.html"):
            (root / p.name).write_bytes(p.read_bytes())
        (root / "long.html").write_text(long_page(), encoding="utf-8")
        server, base = serve(root)
        with VirtualPhone(port=0) as phone, connect(phone.address) as page:
            print(f"{'page':<11} {'native ms':>9} {'merged ms':>9} {'ratio':>6} {'refs':>5} "
                  f"{'web tok':>8} {'AX tok':>8} {'AX+lay tok':>10} {'AX/web':>7} "
                  f"{'AX ms':>6} {'AX KB':>6} {'lay ms':>6} {'lay KB':>6} "
                  f"{'boxes ms':>8}")
            totals = {"native": 0.0, "merged": 0.0, "web": 0, "ax": 0, "all": 0}
            for name in PAGES:
                page.open_url(base + name)
                page.snapshot()
                native, merged = [], []
                for _ in range(args.reps):
                    t = time.perf_counter()
                    page.snapshot(web=False)
                    native.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    snap = page.snapshot()
                    merged.append(time.perf_counter() - t)
                n_ms = statistics.median(native) * 1e3
                m_ms = statistics.median(merged) * 1e3
                from baremobile.web.reader import read_web, webviews_on_screen

                native_snap = page.snapshot(web=False)
                dump = b"".join(page.device.dump_stream())
                reading = read_web(lambda c: page.transport.shell(c).text,
                                   page.transport.open_stream, native_snap,
                                   webviews_on_screen(dump, native_snap))
                cap = reading.captures[0]
                part = web_part(snap.text)
                ax_json = json.dumps(cap.ax)
                all_json = json.dumps([cap.metrics, cap.snapshot, cap.ax])
                costs = domain_costs(phone)
                w, a, al = tokens(part), tokens(ax_json), tokens(all_json)
                totals["native"] += n_ms
                totals["merged"] += m_ms
                totals["web"] += w
                totals["ax"] += a
                totals["all"] += al
                print(f"{name:<11} {n_ms:9.1f} {m_ms:9.1f} {m_ms / n_ms:6.1f} "
                      f"{len(snap.refs):5d} {w:8d} {a:8d} {al:10d} "
                      f"{(a / w if w else 0):7.1f} {costs['ax_ms']:6.1f} {costs['ax_kb']:6.1f} "
                      f"{costs['snap_ms']:6.1f} {costs['snap_kb']:6.1f} "
                      f"{costs['boxes_ms']:8.1f}")
            print(f"{'all pages':<11} {totals['native']:9.1f} {totals['merged']:9.1f} "
                  f"{totals['merged'] / totals['native']:6.1f} {'':5} {totals['web']:8d} "
                  f"{totals['ax']:8d} {totals['all']:10d} "
                  f"{(totals['ax'] / totals['web'] if totals['web'] else 0):7.1f}")
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
