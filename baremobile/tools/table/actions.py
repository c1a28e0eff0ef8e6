"""Rows of the acting verbs (``page/actions.py``): touching, typing, keys, starting apps."""

from __future__ import annotations

from typing import Any

from baremobile.page import Page
from baremobile.timeouts import DUMP_S, START_S
from baremobile.tools import images
from baremobile.tools.params import PARAMS, POINT, TARGET, p
from baremobile.tools.row import Args, Ctx, Resource, ToolSpec
from baremobile.tools.targets import target, what

__all__ = ["ROWS"]


def _tap(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = target(a, xy=True)
    if isinstance(t, tuple):
        ctx.page.tap_xy(*t)
    else:
        ctx.page.tap(t)
    return {"done": f"tapped {what(t)}"}


def _long_press(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = target(a, xy=True)
    ms = a.get("ms", 1000)
    if isinstance(t, tuple):
        ctx.page.swipe(t[0], t[1], t[0], t[1], ms)
    else:
        ctx.page.long_press(t, ms)
    return {"done": f"long-pressed {what(t)} for {ms} ms"}


def _type(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = target(a, optional=True)
    clear, submit = a.get("clear", True), a.get("submit", False)
    ctx.page.type(t, a["text"], clear=clear, submit=submit)
    where = "the focused field" if t is None else what(t)
    how = "" if clear else " (keeping what it held)"
    return {"done": f"typed {len(a['text'])} characters into {where}{how}"
                    + (" and pressed Enter" if submit else "")}


def _check_typed(ctx: Ctx, snap: Any) -> None:
    ctx.page.verify_typed(snap)


def _press(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.press(a["key"])
    return {"done": f"pressed {a['key']}"}


def _scroll(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = target(a, optional=True)
    ctx.page.scroll(t, a["direction"], a.get("amount", 0.6))
    return {"done": f"scrolled {a['direction']} in {what(t) if t is not None else 'the screen'}"}


def _swipe(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.swipe(a["x1"], a["y1"], a["x2"], a["y2"], a.get("ms", 300))
    return {"done": f"swiped from ({a['x1']:g}, {a['y1']:g}) to ({a['x2']:g}, {a['y2']:g})"}


def _launch(ctx: Ctx, a: Args) -> dict[str, Any]:
    from baremobile.errors import InvalidArgument

    if ("package" in a) == ("label" in a):
        raise InvalidArgument("give package or label (one of them)",
                              hint="labels are what the launcher shows, e.g. 'Settings'")
    pkg = ctx.page.launch(a.get("package"), label=a.get("label"))
    via = f" (labelled {a['label']!r})" if "label" in a else ""
    return {"done": f"launched {pkg}{via}", "package": pkg}


def _open_url(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.open_url(a["uri"])
    return {"done": f"opened {a['uri']}"}


def _back(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.back()
    return {"done": "pressed back"}


def _home(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.home()
    return {"done": "pressed home"}


def _recents(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.recents()
    return {"done": "opened recent apps"}


def _screenshot(ctx: Ctx, a: Args) -> dict[str, Any]:
    img, note = images.encoded(ctx.page.screenshot().png, a)
    return images.image_result(img, "screenshot", note)


ROWS = (
    ToolSpec(
        "tap",
        "Tap an element (button, row, link, switch) by ref or selector, or a point x, y.",
        POINT, _tap, verbs=(Page.tap, Page.tap_xy),
        cli_args=("ref?",),
    ),
    ToolSpec(
        "type",
        "Type text into a field (ref or selector; none: the focused one), tapping it first: "
        "it then holds exactly the text (clear=false keeps what it held). A search bar that "
        "opens a field works; anything else is refused. submit presses Enter. ASCII, or any "
        "Unicode in a web page.",
        {**TARGET, "text": PARAMS["text"], "clear": {"type": "boolean"},
         "submit": {"type": "boolean"}},
        _type, verbs=(Page.type,), required=("text",), check=_check_typed,
        cli_args=("ref?", "text"),
    ),
    ToolSpec(
        "press",
        "Press a key by name or keycode.",
        {"key": PARAMS["key"]},
        _press, verbs=(Page.press,), required=("key",),
        cli_args=("key",),
    ),
    ToolSpec(
        "scroll",
        "Scroll a list (ref or selector; none: the screen) to see more.",
        {"direction": PARAMS["direction"], **TARGET,
         "amount": {"anyOf": [{"type": "number", "minimum": 0.05, "maximum": 1},
                              {"type": "string", "enum": ["small", "medium", "large"]}],
                    "x-shown": {"type": "number",
                                "description": "fraction of the list, default 0.6"}}},
        _scroll, verbs=(Page.scroll,), required=("direction",),
        cli_args=("ref?", "direction"),
    ),
    ToolSpec(
        "swipe",
        "Swipe from x1, y1 to x2, y2 (pixels): the notification shade, a card, a carousel.",
        {"x1": PARAMS["x"], "y1": PARAMS["y"], "x2": PARAMS["x"], "y2": PARAMS["y"],
         "ms": p("ms", "default 300")},
        _swipe, verbs=(Page.swipe,), required=("x1", "y1", "x2", "y2"),
        cli_args=("x1", "y1", "x2", "y2"),
    ),
    ToolSpec(
        "long_press",
        "Touch and hold an element (ref, selector, or x, y): context menus, selection.",
        {**POINT, "ms": p("ms", "default 1000")},
        _long_press, verbs=(Page.long_press, Page.swipe),
        cli_args=("ref?",),
    ),
    ToolSpec(
        "launch",
        "Open an app by package or by the label the launcher shows (e.g. Settings).",
        {"package": PARAMS["package"], "label": {"type": "string", "minLength": 1}},
        _launch, verbs=(Page.launch,), returns="'package'.",
        floor=START_S,
        cli_args=("package?",),
    ),
    ToolSpec(
        "open_url",
        "Open a URI in the app that handles it: https: page, tel:, geo:, a deep link.",
        {"uri": PARAMS["uri"]},
        _open_url, verbs=(Page.open_url,), required=("uri",), open_world=True,
        floor=START_S,
        cli_args=("uri",),
    ),
    ToolSpec("back", "Press Back: close a keyboard, dialog or menu, or go back.", {}, _back,
             verbs=(Page.back,)),
    ToolSpec("home", "Press Home: the launcher.", {}, _home, verbs=(Page.home,)),
    ToolSpec("recents", "Open the recent-apps overview.", {}, _recents, group="system",
             verbs=(Page.recents,)),
    ToolSpec(
        "screenshot",
        "A picture of the screen (JPEG, 1024 px longest side unless asked), for what the "
        "snapshot cannot show: images, maps, canvas.",
        dict(images.IMAGE_PARAMS), _screenshot, verbs=(Page.screenshot,), read_only=True,
        returns="the image, 'screen' size and 'scale' to screen pixels.",
        floor=DUMP_S,
        image=True,
        resource=Resource("screenshot", "image/png", "screen (screenshot)", "image",
                          {"format": "png"}),
    ),
)
