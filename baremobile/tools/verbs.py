"""Runners of the tools issue 12 added (selector waits and reads, the raw hierarchy,
gestures, rotation, the clipboard, apps, files, logs). Each takes the dispatcher's context
and the validated arguments and returns a JSON-able dict, like the runners in
:mod:`.spec`, whose table lists them."""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument, WebError
from baremobile.safetext import problem
from baremobile.tools.targets import node_data, target, what

__all__ = [
    "wait_for", "scroll_until", "read", "ui_xml", "double_tap", "drag", "pinch", "gesture",
    "rotate", "get_clipboard", "set_clipboard", "uninstall_app", "list_apps", "launch",
    "list_files", "delete_file", "append_file", "logcat", "eval_js",
]


def _seconds(ctx: Any, a: dict[str, Any]) -> float:
    return float(a.get("timeout", ctx.options.timeout))


def wait_for(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    timeout = _seconds(ctx, a)
    interval = min(0.5, max(0.05, timeout / 10))
    sel = dict(a["selector"])
    fail = a.get("error_on_timeout", True)
    if a.get("gone"):
        left = ctx.page.wait_for(sel, timeout=timeout, interval=interval, gone=True, fail=fail)
        if left is not None:
            return {"found": True, "gone": False, "match": node_data(left),
                    "done": f"{what(sel)} is still on screen after {timeout:g} s"}
        return {"found": False, "gone": True, "done": f"{what(sel)} is gone"}
    node = ctx.page.wait_for(sel, timeout=timeout, interval=interval, fail=fail)
    if node is None:
        return {"found": False, "done": f"{what(sel)} did not appear within {timeout:g} s"}
    return {"found": True, "done": f"{what(sel)} is on screen", "match": node_data(node)}


def scroll_until(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    sel = dict(a["selector"])
    container = dict(a["container"]) if "container" in a else a.get("container_ref")
    node = ctx.page.scroll_until(sel, container, direction=a.get("direction", "down"),
                                 max_scrolls=a.get("max_swipes", 10),
                                 click_after=a.get("click_after", False))
    tapped = " and tapped it" if a.get("click_after") else ""
    return {"done": f"found {what(sel)}{tapped}", "match": node_data(node)}


def read(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    sel = dict(a["selector"])
    if "container" in a and "container_ref" in a:
        raise InvalidArgument("give container or container_ref, not both")
    within = dict(a["container"]) if "container" in a else a.get("container_ref")
    got = ctx.page.read(sel, all=a.get("all", False), regex=a.get("regex"), within=within)
    if isinstance(got, list):
        return {"texts": got, "count": len(got)}
    return {"text": got}


def ui_xml(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    xml = ctx.page.ui_xml()
    limit = a.get("max_chars", ctx.options.max_chars)
    out: dict[str, Any] = {"chars": len(xml), "truncated": False}
    if limit is not None and len(xml) > limit:
        xml = xml[:limit]
        out["truncated"] = True
        out["note"] = (f"cut at {limit} of {out['chars']} characters: pass a larger max_chars, "
                       "or use snapshot (pruned, with refs)")
    out["text"] = xml
    return out


def _point(a: dict[str, Any], prefix: str = "") -> Any:
    keys = {k: a[prefix + k] for k in ("ref", "selector", "x", "y") if prefix + k in a}
    t = target(keys, xy=True)
    return tuple(t) if isinstance(t, tuple) else t


def double_tap(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = _point(a)
    r = ctx.page.double_tap(t)
    return {"done": f"double-tapped {what(t)} (via {r['route']})", **r}


def drag(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    src, dst = _point(a, "from_"), _point(a, "to_")
    r = ctx.page.drag(src, dst, a.get("ms", 600))
    return {"done": f"dragged {what(src)} to {what(dst)} (via {r['route']})", **r}


def pinch(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = target({k: a[k] for k in ("ref", "selector", "x", "y") if k in a}, xy=True,
               optional=True)
    r = ctx.page.pinch(t, a["scale"], a.get("ms", 400))
    where = what(t) if t is not None else "the middle of the screen"
    way = "in" if a["scale"] > 1 else "out"
    return {"done": f"pinched {way} ×{a['scale']:g} on {where} (via {r['route']})", **r}


def gesture(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    r = ctx.page.gesture(a["paths"])
    return {"done": f"performed a {r['fingers']}-finger gesture of {r['duration_ms']:g} ms "
                    f"(via {r['route']})", **r}


def rotate(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    now = ctx.page.rotate(a["orientation"])
    note = {}
    if a["orientation"] != "auto" and now["orientation"] != a["orientation"]:
        note = {"note": "the screen did not turn: the app in front fixes its orientation"}
    return {"done": f"the screen is {now['orientation']}"
                    + (" (following the sensor)" if now["auto"] else ""),
            "orientation": now, **note}


def get_clipboard(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return {"text": ctx.page.get_clipboard()}


def set_clipboard(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.set_clipboard(a["text"])
    return {"done": "set the clipboard"}


def uninstall_app(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    said = ctx.page.uninstall(a["package"], keep_data=a.get("keep_data", False))
    return {"done": f"uninstalled {a['package']}", "output": said}


def list_apps(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    kind = a.get("kind", "user" if a.get("third_party") else "all")
    apps = ctx.page.list_apps(a.get("name"), kind=kind, versions=a.get("versions", False),
                              labels=a.get("labels", False))
    return {"packages": [x.package for x in apps], "apps": [x.to_dict() for x in apps],
            "count": len(apps)}


def launch(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    if ("package" in a) == ("label" in a):
        raise InvalidArgument("give package or label (one of them)",
                              hint="labels are what the launcher shows, e.g. 'Settings'")
    pkg = ctx.page.launch(a.get("package"), label=a.get("label"))
    via = f" (labelled {a['label']!r})" if "label" in a else ""
    return {"done": f"launched {pkg}{via}", "package": pkg}


def list_files(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return ctx.page.list_files(a["path"], offset=a.get("offset", 0), limit=a.get("limit", 200))


def delete_file(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.delete_file(a["path"], recursive=a.get("recursive", False))
    return {"done": f"deleted {a['path']}"}


def append_file(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    size = ctx.page.append_file(a["path"], a["text"])
    return {"done": f"appended {len(a['text'].encode('utf-8'))} bytes to {a['path']}",
            "size": size}


def logcat(ctx: Any, a: dict[str, Any], cut: Any) -> dict[str, Any]:
    got = ctx.page.read_log(lines=a.get("lines", 200), tag=a.get("tag"), since=a.get("since"),
                            package=a.get("package"), pid=a.get("pid"),
                            priority=a.get("priority"), until=a.get("until"))
    out = cut(got["log"], a.get("max_chars", ctx.options.max_chars))
    if got.get("pids"):
        out["pids"] = got["pids"]
    if got.get("note"):
        out["note"] = got["note"]
    return out


def eval_js(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    """The ``eval`` tool: only where the operator allowed it (``session.allow_eval``)."""
    import json

    from baremobile.tools.session import NotAllowed

    if not ctx.session.allow_eval:
        raise NotAllowed(
            "running JavaScript in the app's page is not allowed here",
            hint="the operator can allow it: baremobile mcp --allow-eval (with --daemon, the "
                 "daemon too: baremobile daemon start --allow-eval), Session(allow_eval=True) "
                 "or page.allow_eval = True; snapshots and refs read and act on pages "
                 "without it")
    # the operator allowed it for this session: for this call only (the page's own
    # allow_eval, which its Python owner may use directly, is left as it is)
    value = ctx.page.eval_js(a["expression"], timeout=float(a.get("timeout", 10.0)),
                             allowed=True)
    why = problem(value)
    if why is not None:
        raise WebError(f"the script's value cannot be answered: {why}",
                       hint="return plainer data (JSON.stringify it, or a part of it)")
    text = json.dumps(value, ensure_ascii=False)
    limit = ctx.options.max_chars
    if limit is not None and len(text) > limit:
        return {"text": text[:limit], "truncated": True, "chars": len(text)}
    return {"value": value}
