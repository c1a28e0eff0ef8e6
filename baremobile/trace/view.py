"""A trace as one self-contained HTML page (``baremobile trace show TRACE``).

No server, no network: the CSS and the few lines of script are inline, screenshots are
``data:`` URIs, so the file opens from ``file://`` in any current browser and can be
attached to a bug report as it is. The page holds:

* a **timeline** of the steps (call, time, outcome; failures in red), each a link;
* per step: the **call** and its result or error, door and tool, timings; the
  **screenshot** with the acted-on element outlined; the **snapshot text** the caller was
  shown (for an acting step, the one its ref came from) with the ref's line highlighted;
  the **diff** from the previous screen (:mod:`baremobile.snapshot.diff`);
* the **navigation graph** (:mod:`baremobile.trace.graph`) drawn as inline SVG.
"""

from __future__ import annotations

import base64
import html
import json
import math
from typing import Any

from baremobile.snapshot.diff import diff
from baremobile.trace.format import Trace, call_text
from baremobile.trace.graph import navigation_graph
from baremobile.trace.summary import failing_step

__all__ = ["render_html"]

_CSS = """
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#1d1d1f;
background:#f5f5f7;display:flex;height:100vh}nav{width:340px;overflow:auto;background:#fff;
border-right:1px solid #ddd;flex:none}nav h1{font-size:15px;margin:12px}nav a{display:block;
padding:6px 12px;color:inherit;text-decoration:none;border-left:3px solid transparent;
font-size:13px}nav a:hover,nav a.on{background:#eef3ff;border-left-color:#2f6fed}
nav a.err{color:#b00020}nav .meta{font-size:12px;color:#666;margin:0 12px 8px}
main{flex:1;overflow:auto;padding:16px 24px}section{background:#fff;border:1px solid #ddd;
border-radius:8px;margin:0 0 16px;padding:12px 16px}section.err{border-color:#e4a0a8}
h2{font-size:15px;margin:0 0 8px;font-family:ui-monospace,monospace}.row{display:flex;
gap:16px;align-items:flex-start;flex-wrap:wrap}.shot{position:relative;flex:none;
width:270px;border:1px solid #ccc}.shot img{display:block;width:100%}.box{position:absolute;
border:3px solid #ff2d55;box-shadow:0 0 0 2px #fff}pre{margin:0;font:12px/1.35
ui-monospace,monospace;white-space:pre-wrap;word-break:break-word;max-height:420px;
overflow:auto;background:#fafafa;border:1px solid #eee;padding:6px;min-width:320px;flex:1}
mark{background:#ffe066}.k{color:#666;font-size:12px}.error{color:#b00020;font-weight:600}
.col{flex:1;min-width:320px}h3{font-size:12px;margin:8px 0 4px;color:#444;
text-transform:uppercase}svg text{font:11px system-ui,sans-serif}
"""

_JS = """
document.addEventListener('click',function(e){var a=e.target.closest('nav a');if(!a)return;
document.querySelectorAll('nav a.on').forEach(function(x){x.classList.remove('on')});
a.classList.add('on');});
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _highlight(text: str, ref: int | None) -> str:
    """Snapshot text as HTML, the line of ``[ref=N]`` marked."""
    if ref is None:
        return _e(text)
    needle = f"[ref={ref}]"
    return "\n".join(f'<mark id="hl">{_e(line)}</mark>' if needle in line else _e(line)
                     for line in text.split("\n"))


def _shot(trace: Trace, step: dict[str, Any]) -> str:
    shot = step.get("screenshot") or {}
    if not shot.get("file"):
        return f'<div class="k">{_e(shot.get("skipped") or "no screenshot")}</div>' \
            if shot else ""
    png = trace.blob(shot["file"])
    if png is None:
        return '<div class="k">screenshot missing from the trace</div>'
    uri = "data:image/png;base64," + base64.b64encode(png).decode()
    box = ""
    target = step.get("target") or {}
    w, h = (shot.get("size") or [0, 0])[:2]
    if target.get("bounds") and shot.get("when") == "before" and w and h:
        x1, y1, x2, y2 = target["bounds"]
        box = (f'<div class="box" title="ref {_e(target.get("ref"))}" style="left:'
               f'{100 * x1 / w:.3f}%;top:{100 * y1 / h:.3f}%;width:{100 * (x2 - x1) / w:.3f}%;'
               f'height:{100 * (y2 - y1) / h:.3f}%"></div>')
    return (f'<div class="shot"><img alt="screen {_e(shot.get("when"))} step '
            f'{step["n"]}" src="{uri}">{box}</div>')


def _graph_svg(graph: dict[str, Any]) -> str:
    """The navigation graph as SVG: nodes in columns by distance from the start."""
    nodes = graph["nodes"]
    if not nodes:
        return '<div class="k">no screens recorded</div>'
    out_of: dict[str, list[str]] = {}
    for e in graph["edges"]:
        out_of.setdefault(e["from"], []).append(e["to"])
    depth = {graph["start"]: 0} if graph["start"] else {}
    queue = [graph["start"]] if graph["start"] else []
    while queue:
        n = queue.pop(0)
        for m in out_of.get(n, []):
            if m not in depth:
                depth[m] = depth[n] + 1
                queue.append(m)
    for n in nodes:
        depth.setdefault(n["id"], max(depth.values(), default=-1) + 1)
    columns: dict[int, list[str]] = {}
    for n in nodes:
        columns.setdefault(depth[n["id"]], []).append(n["id"])
    bw, bh, gx, gy = 150, 44, 70, 26
    pos = {nid: (20 + c * (bw + gx), 20 + r * (bh + gy))
           for c, ids in columns.items() for r, nid in enumerate(ids)}
    width = 40 + (max(columns) + 1) * (bw + gx)
    height = 40 + max(len(v) for v in columns.values()) * (bh + gy)
    parts = [f'<svg width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="navigation graph">',
             '<defs><marker id="arr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#555"/></marker>'
             '</defs>']
    for e in graph["edges"]:
        (x1, y1), (x2, y2) = pos[e["from"]], pos[e["to"]]
        tip = _e(f'{e["action"]} (×{e["count"]}, steps {", ".join(map(str, e["steps"]))})')
        if e["from"] == e["to"]:
            parts.append(f'<path d="M{x1 + bw - 30},{y1} C{x1 + bw},{y1 - 30} {x1 + bw + 30},'
                         f'{y1 + 10} {x1 + bw},{y1 + 14}" fill="none" stroke="#555" '
                         f'marker-end="url(#arr)"><title>{tip}</title></path>')
            continue
        ax, ay = x1 + bw / 2, y1 + bh / 2
        bx, by = x2 + bw / 2, y2 + bh / 2
        dx, dy = bx - ax, by - ay
        dist = math.hypot(dx, dy) or 1
        # stop at the target box's edge
        t = min((bw / 2) / abs(dx) if dx else math.inf, (bh / 2) / abs(dy) if dy else math.inf)
        ex, ey = bx - dx * min(t, 1), by - dy * min(t, 1)
        bend = 18 if any(f["from"] == e["to"] and f["to"] == e["from"]
                         for f in graph["edges"]) else 0
        mx, my = (ax + ex) / 2 - dy / dist * bend, (ay + ey) / 2 + dx / dist * bend
        parts.append(f'<path d="M{ax:.0f},{ay:.0f} Q{mx:.0f},{my:.0f} {ex:.0f},{ey:.0f}" '
                     f'fill="none" stroke="#555" marker-end="url(#arr)"><title>{tip}</title>'
                     '</path>')
    for n in nodes:
        x, y = pos[n["id"]]
        here = n["id"] == graph.get("current")
        label = n["title"] or n["package"] or n["id"]
        label = label if len(label) <= 22 else label[:21] + "…"
        pkg = (n["package"] or "").rsplit(".", 1)[-1]
        parts.append(f'<g><title>{_e(n["id"])}: {_e(n["package"])} — {_e(n["title"])} '
                     f'(visits {n["visits"]})</title><rect x="{x}" y="{y}" width="{bw}" '
                     f'height="{bh}" rx="6" fill="{"#eef3ff" if here else "#fff"}" '
                     f'stroke="{"#2f6fed" if n["id"] == graph["start"] else "#888"}"/>'
                     f'<text x="{x + 8}" y="{y + 18}">{_e(label)}</text>'
                     f'<text x="{x + 8}" y="{y + 34}" fill="#666">{_e(n["id"])} · '
                     f'{_e(pkg)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def render_html(trace: Trace) -> str:
    """The page (see the module's docs)."""
    m = trace.meta
    t0 = m.get("started") or (trace.steps[0]["started"] if trace.steps else 0)
    nav, sections = [], []
    shown_text = ""  # the last whole screen the caller was shown (and the diffs' base)
    for s in trace.steps:
        err = s.get("error")
        cls = ' class="err"' if err else ""
        call = call_text(s)
        nav.append(f'<a href="#step-{s["n"]}"{cls}>{s["n"]}. {_e(call)}</a>')
        result = s.get("result")
        body = [f'<h2 id="step-{s["n"]}">{s["n"]}. {_e(call)}</h2>',
                f'<div class="k">+{s.get("started", t0) - t0:.2f} s · '
                f'{1000 * s.get("seconds", 0):.0f} ms · door {_e(s.get("door"))}'
                + (f' · tool {_e(s["tool"]["name"])} {_e(json.dumps(s["tool"]["arguments"]))}'
                   if s.get("tool") else "") + "</div>"]
        if err:
            body.append(f'<p class="error">{_e(err.get("code") or err.get("type"))}: '
                        f'{_e(err.get("message"))}</p>'
                        + (f'<p class="k">hint: {_e(err["hint"])}</p>' if err.get("hint")
                           else ""))
        cols = []
        target = s.get("target") or {}
        if isinstance(result, dict) and result.get("kind") == "snapshot":
            full = result.get("full_text") or result.get("text") or ""
            cols.append(f'<div class="col"><h3>snapshot shown</h3><pre>'
                        f'{_e(result.get("text") or "")}</pre></div>')
            if shown_text:
                cols.append(f'<div class="col"><h3>diff from the previous screen</h3><pre>'
                            f'{_e(diff(shown_text, full))}</pre></div>')
            shown_text = full
        else:
            if result is not None:
                body.append(f'<p>result: <code>{_e(json.dumps(result, ensure_ascii=False))}'
                            '</code></p>')
            if target:
                label = target.get("label")
                body.append(f'<p class="k">element: {_e(target.get("role"))} '
                            + (f'{_e(json.dumps(label, ensure_ascii=False))} ' if label else "")
                            + f'[ref={_e(target.get("ref"))}] bounds {_e(target.get("bounds"))}'
                            '</p>')
            if shown_text and (target or s.get("acts")):
                cols.append(f'<div class="col"><h3>snapshot the call acted on</h3><pre>'
                            f'{_highlight(shown_text, target.get("ref"))}</pre></div>')
        body.append(f'<div class="row">{_shot(trace, s)}{"".join(cols)}</div>')
        sections.append(f'<section{cls}>{"".join(body)}</section>')
    failed = failing_step(trace)
    head = [f'<div class="meta">{_e(m.get("serial"))} · API {_e(m.get("api_level") or "?")} · '
            f'door {_e(m.get("door"))} · {len(trace.steps)} steps'
            + ("" if trace.complete else " · INCOMPLETE (not stopped)") + "</div>"]
    if failed is not None:
        head.append(f'<div class="meta error">failing step: #{failed["n"]}</div>')
    outcome = m.get("outcome")
    if isinstance(outcome, dict) and outcome:
        head.append(f'<div class="meta">{_e(json.dumps(outcome, ensure_ascii=False))}</div>')
    graph = navigation_graph(trace)
    sections.append(f'<section><h2 id="graph">navigation graph</h2>{_graph_svg(graph)}'
                    '</section>')
    nav.append('<a href="#graph">navigation graph</a>')
    title = _e(f"baremobile trace — {m.get('title') or trace.path.name}")
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}'
            '</title><meta name="viewport" content="width=device-width,initial-scale=1">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
            f"<style>{_CSS}</style></head><body><nav><h1>{title}</h1>{''.join(head)}"
            f"{''.join(nav)}</nav><main>{''.join(sections)}</main><script>{_JS}</script>"
            "</body></html>")
