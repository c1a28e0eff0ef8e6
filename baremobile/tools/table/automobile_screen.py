"""AutoMobile's screen, from ours: the ``observe`` result of one of our snapshots, and the
output schemas of AutoMobile's structured results (``observe``, ``tapOn``, ``swipeOn``,
``executePlan``), for :mod:`baremobile.tools.table.automobile`.

AutoMobile's observe result (its ``outputSchema``, ``schemas/tool-definitions.json``):
``updatedAt``, ``screenSize``, ``systemInsets``, ``rotation``, ``activeWindow``,
``elements.{clickable, scrollable, text}`` — each ``Element`` its ``bounds`` and the dump's
attributes under their names — and ``focusedElement``. Built from the snapshot the call
read: the pruned tree keeps each node's dump attributes; no more device I/O.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["ACTION_OUT", "DRAFT", "OBSERVE_OUT", "PLAN_OUT", "SWIPE_OUT", "bounds",
           "observation", "observed", "screen_of"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _flag(attrs: dict[str, str], key: str) -> bool | None:
    value = attrs.get(key)
    return None if value is None else value == "true"


def bounds(box: tuple[int, int, int, int]) -> dict[str, int]:
    left, top, right, bottom = box
    return {"left": left, "top": top, "right": right, "bottom": bottom,
            "centerX": (left + right) // 2, "centerY": (top + bottom) // 2}


def _raw_bounds(attrs: dict[str, str]) -> tuple[int, int, int, int] | None:
    raw = attrs.get("bounds", "")
    try:
        a, b = raw.strip("[]").split("][")
        left, top = (int(v) for v in a.split(","))
        right, bottom = (int(v) for v in b.split(","))
    except ValueError:
        return None
    return left, top, right, bottom


def _element(node: Any) -> dict[str, Any] | None:
    """One node of our snapshot as AutoMobile's ``Element`` (``bounds`` and the dump's
    attributes under their names), or None when it has no bounds."""
    attrs = dict(node.attrs or {})
    box = _raw_bounds(attrs) or node.vis
    if box is None:
        return None
    out: dict[str, Any] = {"bounds": bounds(box)}
    text = node.text or attrs.get("text", "")
    if text:
        out["text"] = text
    for key in ("resource-id", "content-desc", "class", "package"):
        if attrs.get(key):
            out[key] = attrs[key]
    for key in ("checkable", "checked", "clickable", "enabled", "focusable", "focused",
                "scrollable", "selected", "long-clickable", "password"):
        flag = _flag(attrs, key)
        if flag is not None:
            out[key] = flag
    if node.ref is not None:
        out["ref"] = node.ref  # ours: what our own tools take (tap {ref})
    return out


def _insets(snap: Any) -> dict[str, int]:
    """The system bars' extent, from the windows the snapshot shows (no I/O)."""
    top = bottom = 0
    for window in snap.tree.children:
        boxes = [n.vis for n in window.walk() if n.vis]
        if not boxes:
            continue
        if window.role == "status bar":
            top = max(top, max(b[3] for b in boxes))
        elif window.role == "navigation bar" and snap.height:
            bottom = max(bottom, snap.height - min(b[1] for b in boxes))
    return {"top": top, "right": 0, "bottom": bottom, "left": 0}


def observation(snap: Any, *, now_ms: int | None = None) -> dict[str, Any]:
    """AutoMobile's observe result of one of our snapshots: ``updatedAt``, ``screenSize``,
    ``systemInsets``, ``rotation``, ``activeWindow`` (the app in front), ``elements``
    (``clickable``, ``scrollable``, ``text``) and ``focusedElement``; ``screen`` is our
    snapshot's text (what our own tools read)."""
    clickable: list[dict[str, Any]] = []
    scrollable: list[dict[str, Any]] = []
    texts: list[dict[str, Any]] = []
    focused = None
    for node in snap.nodes():
        element = _element(node)
        if element is None:
            continue
        if element.get("clickable") or element.get("long-clickable") or node.ref is not None \
                and element.get("focusable") and element.get("class", "").endswith("EditText"):
            clickable.append(element)
        if element.get("scrollable"):
            scrollable.append(element)
        if element.get("text"):
            texts.append(element)
        if element.get("focused") and focused is None:
            focused = element
    out: dict[str, Any] = {
        "updatedAt": now_ms if now_ms is not None else int(time.time() * 1000),
        "screenSize": {"width": snap.width, "height": snap.height},
        "systemInsets": _insets(snap),
        "rotation": snap.rotation,  # the dump's: 0-3, quarter turns
        "activeWindow": {"appId": snap.package or "", "type": "application"},
        "elements": {"clickable": clickable, "scrollable": scrollable, "text": texts},
        "screen": snap.full_text,
    }
    if focused is not None:
        out["focusedElement"] = focused
    return out


def screen_of(page: Any) -> Any:
    return getattr(page, "last_snapshot", None) if page is not None else None


def observed(ours: dict[str, Any], page: Any) -> dict[str, Any]:
    """``observation``: the screen after the action, when the session observed it (an
    acting call's result holds ``snapshot`` then); AutoMobile's clients read it."""
    snap = screen_of(page)
    if "snapshot" not in ours or snap is None:
        return {}
    return {"observation": observation(snap)}



OBSERVE_OUT = {
    "$schema": DRAFT, "type": "object",
    "properties": {
        "updatedAt": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        "screenSize": {"type": "object", "properties": {"width": {"type": "integer"},
                                                        "height": {"type": "integer"}},
                       "required": ["width", "height"]},
        "systemInsets": {"type": "object",
                         "properties": {k: {"type": "integer"}
                                        for k in ("top", "right", "bottom", "left")},
                         "required": ["top", "right", "bottom", "left"]},
        "rotation": {"type": "integer"},
        "activeWindow": {"type": "object", "properties": {"appId": {"type": "string"},
                                                          "activityName": {"type": "string"},
                                                          "type": {"type": "string"}}},
        "elements": {"type": "object", "properties": {
            k: {"type": "array", "items": {"type": "object", "required": ["bounds"]}}
            for k in ("clickable", "scrollable", "text")}},
        "focusedElement": {"type": "object"},
        "awaitedElement": {"type": "object"},
        "awaitTimeout": {"type": "number"},
        "screen": {"type": "string"},
    },
    "required": ["updatedAt", "screenSize", "systemInsets"],
}
ACTION_OUT = {"$schema": DRAFT, "type": "object",
               "properties": {"success": {"type": "boolean"}, "action": {"type": "string"},
                              "message": {"type": "string"}, "observation": OBSERVE_OUT,
                              "error": {"type": "string"}},
               "required": ["success", "action"]}
SWIPE_OUT = {"$schema": DRAFT, "type": "object",
              "properties": {"success": {"type": "boolean"}, "targetType":
                             {"type": "string", "enum": ["screen", "element"]},
                             "message": {"type": "string"}, "found": {"type": "boolean"},
                             "observation": OBSERVE_OUT, "error": {"type": "string"}},
              "required": ["success", "targetType"]}
PLAN_OUT = {"$schema": DRAFT, "type": "object",
             "properties": {"success": {"type": "boolean"},
                            "executedSteps": {"type": "integer"},
                            "totalSteps": {"type": "integer"},
                            "failedStep": {"type": "object", "properties": {
                                "stepIndex": {"type": "integer"},
                                "tool": {"type": ["string", "null"]},
                                "error": {"type": ["string", "null"]}}},
                            "error": {"type": "string"}, "platform": {"type": "string"},
                            "deviceId": {"type": "string"}},
             "required": ["success", "executedSteps", "totalSteps"]}
