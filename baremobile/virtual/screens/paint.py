"""How the screen is painted: ``screencap -p``'s PNG, drawn from the same windows as the dump."""

from __future__ import annotations

from baremobile.virtual.png import Canvas
from baremobile.virtual.uixml import Node

__all__ = ["paint"]

_PALETTE = [
    (248, 249, 250),  # 0 background
    (255, 255, 255),  # 1 surface
    (32, 33, 36),  # 2 text
    (95, 99, 104),  # 3 secondary text
    (26, 115, 232),  # 4 accent
    (210, 227, 252),  # 5 accent container
    (218, 220, 224),  # 6 divider / outline
    (154, 160, 166),  # 7 icon
    (236, 238, 241),  # 8 system bars
    (226, 229, 233),  # 9 keyboard
    (189, 193, 198),  # 10 switch track off
    (0, 0, 0),  # 11 black
    (232, 240, 254),  # 12 field fill
]


def paint(windows: list[Node], width: int, height: int, on: bool) -> bytes:
    """A PNG of the drawn ``windows``: flat shapes where text, fields, switches, buttons,
    icons and bars are, so a screenshot shows what the dump says (dimmed under a dialog,
    black with the clock when the screen is off)."""
    c = Canvas(width, height, _PALETTE, 0 if on else 11)
    if not on:
        for w in windows:
            for n in w.iter():
                if n.text:
                    _text_bar(c, n, 10, centre=True)
        return c.png()
    order = {"app": 0, "dialog": 1, "ime": 2, "status": 3, "nav": 3}
    dimmed = False
    for w in sorted(windows, key=lambda w: order.get(w.meta.get("kind", "app"), 0)):
        kind = w.meta.get("kind", "app")
        b = w.bounds
        if kind == "dialog" and not dimmed:
            c.dim(0, 0, width, height)
            dimmed = True
        if kind in ("status", "nav"):
            c.fill(*b, 8)
        elif kind == "ime":
            c.fill(*b, 9)
            _keys(c, b)
        elif kind == "dialog":
            c.fill(*b, 1)
        for n in w.iter():
            _paint_node(c, n)
    return c.png()


def _keys(c: Canvas, b: tuple[int, int, int, int]) -> None:
    x1, y1, x2, y2 = b
    top = y1 + (y2 - y1) // 6
    rows = (10, 9, 9, 5)
    rh = (y2 - top) // 4
    for r, n in enumerate(rows):
        kw = (x2 - x1) // 10
        off = x1 + ((x2 - x1) - kw * n) // 2
        for k in range(n):
            c.fill(off + k * kw + 6, top + r * rh + 8, off + (k + 1) * kw - 6,
                   top + (r + 1) * rh - 8, 1)


def _text_bar(c: Canvas, n: Node, colour: int, centre: bool = False) -> None:
    x1, y1, x2, y2 = n.bounds
    h = y2 - y1
    if h <= 4 or x2 - x1 <= 4:
        return
    bar = max(4, min(h // 2, 34))
    length = min(x2 - x1 - 16, max(bar, len(n.text) * bar * 11 // 20))
    top = y1 + (h - bar) // 2
    left = x1 + ((x2 - x1 - length) // 2 if centre else 8)
    c.fill(left, top, left + length, top + bar, colour)


def _paint_node(c: Canvas, n: Node) -> None:
    cls = n.cls.rsplit(".", 1)[-1]
    x1, y1, x2, y2 = n.bounds
    if x2 <= x1 or y2 <= y1:
        return
    src = n.src
    if src is not None and src.editable:
        c.fill(x1, y1, x2, y2, 12)
        c.fill(x1, y2 - 4, x2, y2, 4 if n.flag("focused") else 7)
        if n.text:
            _text_bar(c, n, 2 if (src.value or "") else 3)
        return
    if cls in ("Switch", "SwitchCompat", "SwitchMaterial", "MaterialSwitch"):
        cy = (y1 + y2) // 2
        tw = min(x2 - x1, 140)
        tx = x2 - tw
        on = n.flag("checked")
        c.fill(tx, cy - 30, x2, cy + 30, 4 if on else 10)
        knob = x2 - 60 if on else tx
        c.fill(knob + 8, cy - 22, knob + 52, cy + 22, 1)
        return
    if cls in ("CheckBox", "RadioButton", "CheckedTextView"):
        cy = (y1 + y2) // 2
        c.frame(x1 + 8, cy - 24, x1 + 56, cy + 24, 4 if n.flag("checked") else 7, 5)
        if n.flag("checked"):
            c.fill(x1 + 18, cy - 14, x1 + 46, cy + 14, 4)
        if n.text:
            c.fill(x1 + 80, cy - 14, min(x2 - 8, x1 + 80 + len(n.text) * 18), cy + 14, 2)
        return
    if cls in ("ImageView", "ImageButton") or cls.endswith("TaskView"):
        if cls.endswith("TaskView"):
            c.fill(x1, y1, x2, y2, 1)
            c.frame(x1, y1, x2, y2, 6, 4)
            return
        s = min(x2 - x1, y2 - y1) * 3 // 5
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        c.fill(cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2, 7)
        return
    if cls.endswith("Button") and cls not in ("ImageButton", "RadioButton"):
        c.fill(x1 + 4, y1 + 8, x2 - 4, y2 - 8, 5 if not n.flag("enabled") else 4)
        if n.text:
            _text_bar(c, n, 1, centre=True)
        return
    if n.text and n.flag("clickable") and (y2 - y1) >= 200 and (x2 - x1) < 0.4 * c.width:
        s = min(x2 - x1, y2 - y1) // 2  # a launcher icon: the icon, then its label
        cx = (x1 + x2) // 2
        c.fill(cx - s // 2, y1 + 20, cx + s // 2, y1 + 20 + s, 4)
        c.fill(cx - s // 2, y2 - 60, cx + s // 2, y2 - 30, 2)
        return
    if n.desc and not n.text and n.flag("long-clickable") and cls.endswith("Layout"):
        c.fill(x1, y1, x2, y2, 5)  # a message bubble or card
        return
    if n.text:
        _text_bar(c, n, 2 if (y2 - y1) >= 60 else 3)
    elif n.flag("clickable") and (x2 - x1) >= 0.6 * c.width:
        c.fill(x1 + 32, y2 - 2, x2 - 32, y2, 6)
    if n.flag("selected"):
        c.frame(x1, y1, x2, y2, 4, 3)

