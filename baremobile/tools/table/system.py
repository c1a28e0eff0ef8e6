"""Rows of the system verbs (``page/system.py``): the log, the system panels, the device's
facts, rotation and the clipboard."""

from __future__ import annotations

from typing import Any

from baremobile.page import Page
from baremobile.tools.params import PARAMS, p
from baremobile.tools.row import Args, Ctx, Resource, Runner, ToolSpec

__all__ = ["ROWS", "cut_log"]


def cut_log(text: str, max_chars: int | None) -> dict[str, Any]:
    """``{"log", "truncated"}``: the most recent lines that fit in ``max_chars``, with a
    first line saying how many earlier ones were cut."""
    if max_chars is None or len(text) <= max_chars:
        return {"log": text, "truncated": False}
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    size = 0
    budget = max_chars - 120  # room for the note
    for line in reversed(lines):
        if size + len(line) > budget:
            break
        kept.append(line)
        size += len(line)
    kept.reverse()
    note = (f"# cut (max_chars): {len(lines) - len(kept)} earlier lines not shown — ask for "
            "fewer lines, a tag, or a larger max_chars\n")
    return {"log": note + "".join(kept), "truncated": True}


def _logcat(ctx: Ctx, a: Args) -> dict[str, Any]:
    got = ctx.page.read_log(lines=a.get("lines", 200), tag=a.get("tag"), since=a.get("since"),
                            package=a.get("package"), pid=a.get("pid"),
                            priority=a.get("priority"), until=a.get("until"))
    out = cut_log(got["log"], a.get("max_chars", ctx.options.max_chars))
    if got.get("pids"):
        out["pids"] = got["pids"]
    if got.get("note"):
        out["note"] = got["note"]
    return out


def _statusbar(what: str, done: str) -> Runner:
    def run(ctx: Ctx, a: Args) -> dict[str, Any]:
        ctx.page.statusbar(what)
        return {"done": done}

    return run


def _device_info(ctx: Ctx, a: Args) -> dict[str, Any]:
    return {"info": ctx.page.device_info()}


def _rotate(ctx: Ctx, a: Args) -> dict[str, Any]:
    now = ctx.page.rotate(a["orientation"])
    note = {}
    if a["orientation"] != "auto" and now["orientation"] != a["orientation"]:
        note = {"note": "the screen did not turn: the app in front fixes its orientation"}
    return {"done": f"the screen is {now['orientation']}"
                    + (" (following the sensor)" if now["auto"] else ""),
            "orientation": now, **note}


def _get_clipboard(ctx: Ctx, a: Args) -> dict[str, Any]:
    return {"text": ctx.page.get_clipboard()}


def _set_clipboard(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.set_clipboard(a["text"])
    return {"done": "set the clipboard"}


_TIME = {"type": ["string", "number"], "description": "ISO 8601 (device time) or epoch s"}

ROWS = (
    ToolSpec(
        "logcat",
        "Read the device log's recent lines, e.g. why an app crashed; filter by time, app, "
        "process, priority or tag.",
        {"lines": {"type": "integer", "minimum": 1, "maximum": 100_000,
                   "description": "default 200"},
         "tag": {"type": "string", "minLength": 1, "maxLength": 100,
                 "pattern": r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*(:[VDIWEFS])?$",
                 "description": "e.g. ActivityManager or ActivityManager:W"},
         "since": _TIME, "until": _TIME,
         "package": PARAMS["package"],
         "pid": {"type": "integer", "minimum": 1},
         "priority": {"type": "string", "enum": list("VDIWEF"), "description": "minimum"},
         "max_chars": PARAMS["max_chars"]},
        _logcat, verbs=(Page.read_log,), group="logs", read_only=True,
        returns="the lines as text, most recent last; 'pids' for a package.",
    ),
    ToolSpec("open_notifications", "Pull down the notification shade.", {},
             _statusbar("notifications", "opened the notification shade"), group="system",
             verbs=(Page.statusbar,)),
    ToolSpec("open_quick_settings", "Open quick settings (Wi-Fi, Bluetooth…).", {},
             _statusbar("quick_settings", "opened quick settings"), group="system",
             verbs=(Page.statusbar,)),
    ToolSpec("close_panels", "Close the notification shade or quick settings.", {},
             _statusbar("collapse", "closed the system panels"), group="system",
             verbs=(Page.statusbar,)),
    ToolSpec("device_info",
             "The device's model, Android version, API level, screen, orientation, battery "
             "and foreground app.",
             {}, _device_info, verbs=(Page.device_info,), group="system", read_only=True,
             returns="'info'.",
             resource=Resource("info", "application/json", "device info", "info")),
    ToolSpec("rotate",
             "Turn the screen and lock it there, or auto to follow the sensor.",
             {"orientation": {"type": "string",
                              "enum": ["portrait", "landscape", "reverse_portrait",
                                       "reverse_landscape", "auto"]}},
             _rotate, verbs=(Page.rotate,), required=("orientation",), group="system",
             returns="the 'orientation' now.", cli_args=("orientation",)),
    ToolSpec("get_clipboard",
             "Read the clipboard. Stock Android refuses this over ADB: expect UNSUPPORTED.",
             {}, _get_clipboard, verbs=(Page.get_clipboard,), group="system", read_only=True,
             returns="'text'."),
    ToolSpec("set_clipboard",
             "Set the clipboard. Stock Android refuses this over ADB: expect UNSUPPORTED; "
             "type the text instead.",
             {"text": p("text")}, _set_clipboard, verbs=(Page.set_clipboard,),
             required=("text",), group="system", cli_args=("text",)),
)
