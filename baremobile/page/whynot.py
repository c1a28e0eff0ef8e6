"""Why a ref cannot be acted on, in words an agent can act on (no I/O).

:class:`~baremobile.page.base.PageBase` resolves a ref against the screen as it is (read
again when it may have changed); when the ref is not there, :func:`why_not` compares the
last snapshot that had it with the screen now: another element where it was (changed beyond
recognition), its list still on screen but moved (off screen), or nothing (gone);
:func:`guessed` when it is one of identical elements whose number changed.
:func:`dialog_over` says when a dialog takes the touches meant for an app's element.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from baremobile.errors import RefChanged, RefNotFound
from baremobile.snapshot import RefNode, Snapshot
from baremobile.snapshot.identity import RefTracker, element_keys
from baremobile.snapshot.tree import Node, Window

__all__ = ["around_changed", "describe", "dialog_over", "guessed", "why_not"]


def why_not(ref: int, now: Snapshot, recent: Iterable[Snapshot], tracker: RefTracker
            ) -> RefNotFound:
    """Why ``ref`` is not on the screen ``now`` shows: what it was in the most recent of
    the ``recent`` snapshots (newest first) that had it and what is there now — another
    element where it was (changed beyond recognition), its list still on screen but moved
    (scrolled out of view), or nothing (gone); ``tracker`` names refs no snapshot here has."""

    before = next((s for s in recent if ref in s.refs), None)
    hint = "take a new snapshot ({snapshot}) and pick the element from what it shows now"
    if before is None:
        hint = (
            "take a new snapshot ({snapshot}) and use a ref from it (an element keeps its "
            "ref while it stays on screen)"
        )
        if tracker.issued(ref):
            what = tracker.gone.get(ref)
            return RefNotFound(
                f"ref {ref}{f' ({what})' if what else ''} is gone: its element is not on "
                "the screen any more; nothing was sent", hint=hint)
        return RefNotFound(
            f"ref {ref} was never given on this page"
            + (f" (refs so far: 1–{tracker.next - 1})" if tracker.next > 1 else ""),
            hint=hint)
    old = before.refs[ref]
    what = describe(old, before.refs.node(ref))
    boxes = _containers(before)
    box = boxes.get(ref)
    if box is not None and box in now.refs:
        # the element's list is still on screen: did the list move?
        moves = [(now.refs[r].center[0] - before.refs[r].center[0],
                  now.refs[r].center[1] - before.refs[r].center[1])
                 for r, b in boxes.items() if b == box and r in now.refs]
        if not moves or any(abs(statistics.median(m[i] for m in moves)) > 8 for i in (0, 1)):
            return RefNotFound(
                f"ref {ref} ({what}) is off screen: it scrolled out of view in ref {box} "
                f"({describe(now.refs[box], now.refs.node(box))}), or left it; nothing "
                "was sent",
                hint=f"scroll ref {box} to bring it back (or take a new snapshot, "
                     "{snapshot})")
    # another element, new since that snapshot, where the ref's was: changed beyond
    # recognition (a button "Follow" that is "Following" now), or replaced
    for r, n in now.refs.items():
        if r in before.refs or n.package != old.package or n.display != old.display:
            continue
        if n.role == old.role and _overlap(old.bounds, n.bounds) >= 0.5:
            return RefChanged(
                f"ref {ref} ({what}) changed since the snapshot it came from: where it "
                f"was, the screen now shows {describe(n, now.refs.node(r))} [ref={r}] — "
                "the same element changed beyond recognition, or another one; nothing "
                "was sent",
                hint=hint)
    return RefNotFound(
        f"ref {ref} ({what}) is gone: its element is not on the screen any more; nothing "
        "was sent", hint=hint)


#: Roles of ancestors that place an element even without a ref or a label: containers.
_CONTAINERS = frozenset({"List", "ScrollView", "Pager", "TabList", "Grid"})


def _ancestry(snap: Snapshot, ref: int) -> tuple[list[Node], Node | None]:
    """The lines above ``ref``'s (window header first) and its parent line."""
    target = snap.refs.node(ref)
    stack: list[tuple[Node, tuple[Node, ...]]] = [(top, ()) for top in snap.tree.children]
    while stack:
        node, above = stack.pop()
        if node is target:
            return list(above), (above[-1] if above else None)
        stack.extend((kid, (*above, node)) for kid in node.children)
    return [], None


def _place(snap: Snapshot, ref: int) -> tuple[tuple[object, ...], tuple[str, ...]]:
    """Where ``ref`` sits: the lines above it that say something (a ref, a label, a list:
    not anonymous wrappers, which come and go when a panel opens beside the content), and
    the labels around it — its parent line's and those of the label-only lines beside it
    (a toolbar's title next to its "Navigate up")."""
    above, parent = _ancestry(snap, ref)
    lineage = tuple((type(n).__name__, n.role, n.ref, n.text, n.desc) for n in above
                    if isinstance(n, Window) or n.ref is not None or n.text or n.desc
                    or n.role in _CONTAINERS)
    around: list[str] = []
    if parent is not None:
        target = snap.refs.node(ref)
        around = [] if isinstance(parent, Window) else [parent.text, parent.desc]
        around += [x for kid in parent.children
                   if kid is not target and kid.ref is None and not kid.children
                   for x in (kid.text, kid.desc)]
    return lineage, tuple(x for x in around if x)


def around_changed(ref: int, before: Snapshot, now: Snapshot) -> RefChanged | None:
    """``ref`` is in both snapshots (the tracker matched its element by how it looks), but
    it sits somewhere else in the screen's structure, or nothing around it is the same:
    a look-alike on another screen (the "Navigate up" of an app's next page, the "Notes"
    icon of the all-apps list for the home screen's). An error naming both, or None."""
    (old_line, old_around), (new_line, new_around) = _place(before, ref), _place(now, ref)
    if old_line == new_line and (not old_around or not new_around
                                 or set(old_around) & set(new_around)):
        return None
    node = now.refs[ref]
    if old_line != new_line:
        why = "it sits elsewhere in the screen now"
    else:
        why = (f"what is around it changed ({', '.join(map(repr, old_around[:2]))} then, "
               f"{', '.join(map(repr, new_around[:2]))} now)")
    return RefChanged(
        f"ref {ref} ({describe(node, now.refs.node(ref))}) may be another element now: the "
        f"screen changed since the snapshot it came from and {why}; nothing was sent",
        hint="take a new snapshot ({snapshot}) and pick the element from what it shows now")


def guessed(ref: int, before: Snapshot, now: Snapshot) -> RefChanged:
    """``ref`` is one of several identical elements whose number changed between ``before``
    (the snapshot it came from) and ``now``, where the tracker could only guess which one
    it is (:meth:`~baremobile.snapshot.identity.RefTracker.doubted_since`)."""
    old, new = element_keys(before.tree.children), element_keys(now.tree.children)
    key = new.get(ref)
    then, count = (sum(1 for k in keys.values() if k == key) for keys in (old, new))
    return RefChanged(
        f"ref {ref} ({describe(now.refs[ref], now.refs.node(ref))}) is one of several "
        f"identical elements ({then} in the snapshot it came from, {count} now): the screen "
        f"changed since, and which of them ref {ref} is now cannot be told; nothing was sent",
        hint="take a new snapshot ({snapshot}) and pick the element from what it shows now")


def dialog_over(snap: Snapshot | None, node: RefNode) -> str:
    """The dialog (``dialog com.android.settings``) open over the app window ``node`` is in,
    on its display — a dialog lies inside an app window and is modal: it takes every touch
    — or ``""``."""
    if snap is None or node.ref not in snap.refs:
        return ""
    wins = [w for w in snap.tree.children if isinstance(w, Window) and w.display == node.display]
    dialog = next((w for w in wins if w.kind == "dialog"), None)
    if dialog is None:  # most screens: no walk of the windows
        return ""
    target = snap.refs.node(node.ref)
    mine = next((w for w in wins if any(n is target for n in w.walk())), None)
    if mine is None or mine.kind != "app":
        return ""
    return f"dialog {dialog.package_name}".strip()


def describe(node: RefNode, line: Node | None = None) -> str:
    """``Button "OK"``: how a message names an element (a row by the first label inside
    it when ``line``, its node in the tree, is given)."""
    label = node.label
    if not label and line is not None and not node.scrollable:  # a list's rows come and go
        label = next((n.text or n.desc for n in line.walk()
                      if n is not line and n.ref is None and (n.text or n.desc)), "")
    if not label and ":id/" in node.resource_id:
        return f"{node.role} #{node.resource_id.rpartition(':id/')[2]}"
    if len(label) > 60:
        label = label[:59] + "…"
    return f'{node.role} "{label}"' if label else node.role


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """How much of the smaller of two rectangles they share (0–1)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / smaller if smaller > 0 else 0.0


def _containers(snap: Snapshot) -> dict[int, int]:
    """ref → the ref of the nearest scrollable element around it in ``snap`` (refs in none
    are left out)."""
    out: dict[int, int] = {}
    stack: list[tuple[Node, int | None]] = [(top, None) for top in snap.tree.children]
    while stack:
        node, box = stack.pop()
        inner = box
        if node.ref is not None:
            if box is not None:
                out[node.ref] = box
            if snap.refs[node.ref].scrollable:
                inner = node.ref
        stack.extend((kid, inner) for kid in node.children)
    return out
