"""Search-as-you-type lists: a screen's ``filter`` (see ``docs/scenarios.md``) shows the rows
of a list that match what is typed in a field, as a settings search or an app drawer does.
"""

from __future__ import annotations

import unicodedata

from .state import ScreenInstance

__all__ = ["apply_filters"]


def _norm(s: str) -> str:
    """Lower-case alphanumerics only: how search fields compare text."""
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s.lower() if c.isalnum())


def apply_filters(inst: ScreenInstance) -> None:
    """Show the rows of each filtered list that match its field's text, stacked (a list)
    or packed into the first cells (a grid)."""
    if not inst.sd.filters:
        return
    if inst.filter_nodes is None:
        inst.filter_nodes = [(f, inst.find(f.field), inst.find(f.list))
                              for f in inst.sd.filters]
    for f, field, lst in inst.filter_nodes:
        if field is None or lst is None:
            continue
        q = field.value or ""
        inst.vars[f.var] = q
        nq = _norm(q)
        if lst.meta.get("q") != q:
            lst.meta["q"] = q
            lst.scroll_y = lst.scroll_x = 0
        items = lst.children
        if not items:
            continue
        if "layout" not in lst.meta:
            gap = max(0, items[1].bounds[1] - items[0].bounds[3]) if len(items) > 1 else 0
            kinds = []
            for it in items:
                texts = [s for d in it.iter() for s in (d.text, d.desc) if s]
                if any("{" + f.var in s for s in texts):
                    kinds.append(("echo", ""))
                elif f.no_results is not None and any(
                    f.no_results.matches(d) for d in it.iter()
                ):
                    kinds.append(("none", ""))
                else:
                    extra = " ".join(f.keywords.get(s, "") for s in texts)
                    kinds.append(("item", _norm(" ".join(texts) + " " + extra)))
            lst.meta["layout"] = (gap, kinds)
        gap, kinds = lst.meta["layout"]
        shown = []
        any_match = False
        for kind, label in kinds:
            if kind == "item":
                ok = (nq in label) if nq else f.empty == "all"
                any_match = any_match or (ok and bool(nq))
                shown.append(ok)
            else:
                shown.append(kind == "echo" and bool(nq))
        for i, (kind, _label) in enumerate(kinds):
            if kind == "none":
                shown[i] = bool(nq) and not any_match
        column = len({it.bounds[0] for it in items}) == 1
        cursor = items[0].bounds[1]
        k = 0
        for it, ok in zip(items, shown, strict=True):
            it.meta["hidden"] = not ok
            if not ok:
                continue
            if column:  # a list: stack the visible rows, each keeping its height
                it.dy = cursor - it.bounds[1]
                cursor += it.bounds[3] - it.bounds[1] + gap
            else:  # a grid: the k-th visible item takes the k-th cell
                slot = items[k].bounds
                it.dx, it.dy = slot[0] - it.bounds[0], slot[1] - it.bounds[1]
            k += 1
