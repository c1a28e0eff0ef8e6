"""Which element a tool call names: a ref, a selector, or x and y (shared by the tool
runners of :mod:`.spec` and :mod:`.verbs`)."""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument

__all__ = ["target", "what", "node_data"]


def target(args: dict[str, Any], *, xy: bool = False, optional: bool = False) -> Any:
    """The one target the arguments name: a ref, a selector or (x, y)."""
    given: list[str] = [k for k in ("ref", "selector") if k in args]
    has_xy = "x" in args or "y" in args
    if has_xy:
        if not xy:
            raise InvalidArgument("this tool takes ref or selector, not x/y")
        if "x" not in args or "y" not in args:
            raise InvalidArgument("x and y go together: give both", hint="or give a ref")
        given.append("x/y")
    if len(given) > 1:
        raise InvalidArgument(f"give only one of {', '.join(given)}",
                              hint="a ref from the latest snapshot is the most precise")
    if not given:
        if optional:
            return None
        choices = "ref, selector or x and y" if xy else "ref or selector"
        raise InvalidArgument(f"say which element: give {choices}",
                              hint="take a snapshot and use the [ref=N] of the element")
    if given[0] == "ref":
        return args["ref"]
    if given[0] == "selector":
        return dict(args["selector"])
    return (args["x"], args["y"])


def what(target: Any) -> str:
    if isinstance(target, int):
        return f"ref {target}"
    if isinstance(target, tuple):
        return f"({target[0]:g}, {target[1]:g})"
    return "{" + ", ".join(f"{k}={v!r}" for k, v in target.items()) + "}"


def node_data(n: Any, inside_ref: int | None = None) -> dict[str, Any]:
    """An element as data: its ref (None for a plain label — then ``inside_ref``, the ref
    of the row or button it sits in, when known), role, text, desc, states, bounds."""
    out: dict[str, Any] = {"ref": n.ref, "role": n.role}
    if n.ref is None and inside_ref is not None:
        out["inside_ref"] = inside_ref
    if n.text:
        out["text"] = n.text
    if n.desc and n.desc != n.text:
        out["desc"] = n.desc
    if n.states:
        out["states"] = list(n.states)
    if n.vis:
        out["bounds"] = list(n.vis)
    return out
