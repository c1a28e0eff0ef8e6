"""The one tool table: every tool an agent can call, for every adapter.

Each :class:`ToolSpec` is a name, a description written for an LLM, the JSON-schema of its
parameters, the Page call behind it (``run``) and what it returns. ``schemas()`` turns the
table into OpenAI / Anthropic / plain JSON tool definitions, ``call()`` runs a row, and the
MCP server lists and calls the same rows — so the three front doors cannot drift apart.

Groups: ``core`` (always), ``session`` (``configure``; the MCP server always has it) and the
optional ``apps``, ``files``, ``logs``, ``system``, ``vision`` … behind a switch — the same
switch for ``schemas()`` and ``call()``, which both default to ``core``. ``eval`` (running
JavaScript in the app's page) is gated: ``"all"`` leaves it out, it must be named, and a
call runs only where the operator allowed it (``Session(allow_eval=True)``, a Page with
``allow_eval``, ``baremobile mcp --allow-eval``, a daemon started with ``--allow-eval``).

A runner gets a context (``ctx.page`` — the device's Page, connected on first use;
``ctx.options`` — the session defaults; ``ctx.session``; ``ctx.files_dir`` — the host
directory the operator allowed, or None) and the validated arguments, and
returns a JSON-able dict. Errors are raised as :mod:`baremobile.errors` types; the
dispatcher turns them into ``{"code", "message", "hint"}`` data.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from baremobile.device.files import MAX_READ
from baremobile.errors import InvalidArgument
from baremobile.page.selector import ALIASES, CRITERIA
from baremobile.tools import batch, extras, hostfiles, seed, verbs
from baremobile.tools.targets import target as _target
from baremobile.tools.targets import what as _what
from baremobile.transport.base import check_text

__all__ = ["GATED_GROUPS", "GROUPS", "OPTIONAL_GROUPS", "PARAMS", "TOOLS", "ToolSpec", "get",
           "select"]

#: Every group; ``core`` is always on.
GROUPS = ("core", "session", "apps", "files", "logs", "system", "vision", "gestures",
          "inspect", "batch", "edit", "eval")
#: The groups behind a switch.
OPTIONAL_GROUPS = ("apps", "files", "logs", "system", "vision", "gestures", "inspect",
                   "batch", "edit", "eval")
#: Groups ``"all"`` leaves out: each must be named, and its calls run only where the
#: operator allowed them (``eval`` runs JavaScript with the rights of the user's app).
GATED_GROUPS = ("eval",)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: what an LLM reads about it and what runs when it is called."""

    name: str
    description: str
    properties: Mapping[str, Any]
    run: Callable[[Any, dict[str, Any]], dict[str, Any]]
    required: tuple[str, ...] = ()
    group: str = "core"
    acts: bool = False  #: changes the screen: may return an observation after it
    needs_device: bool = True
    read_only: bool = False
    destructive: bool = False  #: may delete or overwrite something (MCP destructiveHint)
    open_world: bool = False  #: reaches beyond the device's own state (MCP openWorldHint)
    host_paths: tuple[str, ...] = ()  #: arguments naming files of this computer
    returns: str = ""  #: what the result holds (for docs and the description)
    #: the least time (ms) a daemon request for this tool gets, whatever its ``timeoutMs``
    #: says: reading the screen takes 1–3 s on a phone and up to ~10 s on a slow one;
    #: installs and transfers of large files take minutes
    floor_ms: int = 0
    #: the parameter holding the seconds this tool may wait by itself (its own deadline)
    #: — a request for it gets that long and a dump more — and what it is when a call
    #: leaves it out: seconds, ``"session"`` (the session's ``timeout``) or None (no limit)
    waits: str | None = None
    waits_default: float | str | None = None
    #: run on the observation after acting (``observe``), with its snapshot: raises when the
    #: action did not do what it said (``type``: the field does not hold the text)
    check: Callable[[Any, Any], Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  #: more schema keywords
    image: bool = False  #: answers with an image (the CLI saves it; ``-o PATH``)
    #: The CLI command's name (default: the name with dashes, ``list_apps`` → ``list-apps``).
    cli: str = ""
    #: The CLI command's positional words, in order: parameter names (``"text"``), ``?`` for
    #: optional ones, ``"ref?"`` a leading ref (a whole number), ``"selector.FIELD?"`` a field
    #: of the selector. Every parameter is a flag as well (``--path``); see docs/cli.md.
    cli_args: tuple[str, ...] = ()

    @property
    def command(self) -> str:
        """The CLI command that calls this tool."""
        return self.cli or self.name.replace("_", "-")

    def parameters(self, *, device: bool = True) -> dict[str, Any]:
        """The JSON schema of the arguments (an object schema, draft 2020-12 subset)."""
        props = dict(self.properties)
        if device and self.needs_device:
            props["device"] = PARAMS["device"]
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if self.required:
            schema["required"] = list(self.required)
        schema["additionalProperties"] = False
        schema.update(self.extra)
        return schema

    def full_description(self) -> str:
        return f"{self.description} Returns {self.returns}" if self.returns else self.description


# ---------------------------------------------------------------------------------------
# shared parameters: plain names, the same in every adapter
# ---------------------------------------------------------------------------------------

#: clawperator's camelCase spellings the schema names (the Selector takes more:
#: :data:`baremobile.page.selector.ALIASES`)
_ALIASES = {alias: ALIASES[alias] for alias in ("textContains", "descContains", "resourceId")}

SELECTOR: dict[str, Any] = {
    "type": "object",
    "description": (
        "Find an element by what it shows instead of by ref. Every given field must match; "
        "give at least one of text, text_contains, desc, desc_contains, id, role, class_name "
        "(index only picks among several matches). text/desc are exact, *_contains are "
        "case-insensitive substrings. textContains, descContains and resourceId are accepted "
        "for text_contains, desc_contains and id."
    ),
    "properties": {
        "text": {"type": "string", "description": "exact visible text"},
        "text_contains": {"type": "string", "description": "part of the visible text"},
        "desc": {"type": "string", "description": "exact content description (the (…) part)"},
        "desc_contains": {"type": "string", "description": "part of the content description"},
        "id": {"type": "string", "description": "resource id, e.g. 'search_src_text'"},
        "role": {"type": "string", "description": "snapshot role, e.g. Button, TextInput"},
        "class_name": {"type": "string",
                       "description": "Android class, full or short, e.g. "
                                      "android.widget.EditText or EditText"},
        **{alias: {"type": "string", "description": f"the same as {name}"}
           for alias, name in _ALIASES.items()},
        "index": {"type": "integer", "minimum": 0,
                  "description": "which match when several do (0 = first)"},
    },
    "additionalProperties": False,
    "anyOf": [{"required": [c]} for c in (*CRITERIA, *_ALIASES)],
}

PARAMS: dict[str, dict[str, Any]] = {
    "ref": {"type": "integer", "minimum": 1,
            "description": "the N of [ref=N] in the latest snapshot (an element keeps its "
                           "ref while it stays on screen)"},
    "selector": SELECTOR,
    "text": {"type": "string", "description": "the text"},
    "key": {"type": ["string", "integer"],
            "description": "key name (back, home, enter, tab, del, app_switch, menu, search, "
                           "volume_up, volume_down, power, wakeup, camera, media_play_pause, "
                           "dpad_up/down/left/right) or an Android keycode number"},
    "direction": {"type": "string", "enum": ["up", "down", "left", "right"],
                  "description": "which way to look: 'down' shows what is below (like "
                                 "swiping up), 'up' what is above, 'right' what is to the "
                                 "right"},
    "package": {"type": "string", "minLength": 1,
                "description": "Android package name, e.g. com.android.settings"},
    "uri": {"type": "string", "minLength": 1,
            "description": "URI with a scheme: https://…, tel:…, geo:…, market://…"},
    "x": {"type": "number", "minimum": 0, "maximum": 100_000,
          "description": "screen x in pixels"},
    "y": {"type": "number", "minimum": 0, "maximum": 100_000,
          "description": "screen y in pixels"},
    "device": {"type": "string", "minLength": 1,
               "description": "which device: a serial or host:port from the devices tool "
                              "(omit to use the session's device)"},
    "max_chars": {"type": "integer", "minimum": 200, "maximum": 1_000_000,
                  "description": "longest snapshot text to return; longer ones are cut at a "
                                 "line and say how to get the rest (default: the session's, "
                                 "20000)"},
    "timeout": {"type": "number", "minimum": 0, "maximum": 600,
                "description": "seconds to wait at most"},
    "ms": {"type": "integer", "minimum": 1, "maximum": 60_000, "description": "duration in ms"},
    "path": {"type": "string", "minLength": 1, "description": "absolute path on the device"},
}


#: The floor of a tool that acts on a ref: a ref from an older snapshot is read again from the
#: screen first (a dump: 1–3 s on a phone, up to ~10 s on a slow one).
_READ_AGAIN_MS = 10_000


def _p(name: str, description: str | None = None, **more: Any) -> dict[str, Any]:
    """A shared parameter, optionally with a tool-specific description."""
    schema = dict(PARAMS[name])
    if description:
        schema["description"] = description
    schema.update(more)
    return schema


# ---------------------------------------------------------------------------------------
# runners
# ---------------------------------------------------------------------------------------


def observe_snapshot(ctx: Any, *, diff: bool) -> Any:
    """A fresh snapshot of the page; with ``diff``, as a diff against a snapshot the model
    was shown (the last one, or an earlier one the screen came back to), or the whole screen
    after the new-screen note. The page keeps what was shown (one history per page, whatever
    the door)."""
    return ctx.page.snapshot(diff=diff)


def snapshot_result(ctx: Any, snap: Any, max_chars: int | None) -> dict[str, Any]:
    """``{"snapshot", "package", "refs", "truncated"}`` for a snapshot or a diff, cut to
    ``max_chars`` at a line boundary (refs are never renumbered; cut ones stay usable). A
    diff longer than ``max_chars`` gives way to the cut full text, after the new-screen
    note."""
    from baremobile.snapshot import render_report
    from baremobile.snapshot.diff import full_note

    text = snap.text
    truncated = False
    if max_chars is not None and len(text) > max_chars:
        total = len(snap.full_text)
        head = full_note(snap.number) + "\n" if snap.is_diff and full_note(snap.number) else ""
        more = (f" — {total} chars in all: call snapshot with max_chars={total} for "
                "everything, or scroll, or find")
        notes = "".join(f"\n# {n}" for n in snap.notes)  # a page that could not be read
        if len(notes) > max_chars // 2:
            notes = ""
        rendered = render_report(
            snap.tree, max_chars=max(1, max_chars - len(more) - len(head) - len(notes)))
        text = head + rendered.text + (more if rendered.truncation is not None else "") + notes
        truncated = rendered.truncation is not None
    return {"snapshot": text, "package": snap.package, "refs": len(snap.refs),
            "truncated": truncated}


def _snapshot(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    snap = observe_snapshot(ctx, diff=a.get("diff", False))
    return snapshot_result(ctx, snap, a.get("max_chars", ctx.options.max_chars))


def _tap(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = _target(a, xy=True)
    if isinstance(t, tuple):
        ctx.page.tap_xy(*t)
    else:
        ctx.page.tap(t)
    return {"done": f"tapped {_what(t)}"}


def _long_press(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = _target(a, xy=True)
    ms = a.get("ms", 1000)
    if isinstance(t, tuple):
        ctx.page.swipe(t[0], t[1], t[0], t[1], ms)
    else:
        ctx.page.long_press(t, ms)
    return {"done": f"long-pressed {_what(t)} for {ms} ms"}


def _type(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = _target(a, optional=True)
    clear, submit = a.get("clear", False), a.get("submit", False)
    ctx.page.type(t, a["text"], clear=clear, submit=submit)
    where = "the focused field" if t is None else _what(t)
    how = " (emptied first)" if clear else ""
    return {"done": f"typed {len(a['text'])} characters into {where}{how}"
                    + (" and pressed Enter" if submit else "")}


def _check_typed(ctx: Any, snap: Any) -> None:
    ctx.page.verify_typed(snap)


def _press(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.press(a["key"])
    return {"done": f"pressed {a['key']}"}


def _scroll(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    t = _target(a, optional=True)
    ctx.page.scroll(t, a["direction"], a.get("amount", 0.6))
    return {"done": f"scrolled {a['direction']} in {_what(t) if t is not None else 'the screen'}"}


def _swipe(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.swipe(a["x1"], a["y1"], a["x2"], a["y2"], a.get("ms", 300))
    return {"done": f"swiped from ({a['x1']:g}, {a['y1']:g}) to ({a['x2']:g}, {a['y2']:g})"}


def _open_url(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.open_url(a["uri"])
    return {"done": f"opened {a['uri']}"}


def _back(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.back()
    return {"done": "pressed back"}


def _home(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.home()
    return {"done": "pressed home"}


def image_result(png: bytes, width: int, height: int, what: str) -> dict[str, Any]:
    return {"done": f"{what} ({width}x{height} PNG)",
            "image": {"mime_type": "image/png", "width": width, "height": height,
                      "data": base64.b64encode(png).decode("ascii")}}


def _wait_for_text(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return seed.wait_for_text(ctx, a, snapshot_result)


def _wait_stable(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return seed.wait_stable(ctx, a, snapshot_result)


def _devices(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    from baremobile.transport.discovery import devices

    found = [{"serial": d.serial, "state": d.state, "kind": d.kind, "via": d.via,
              **({"model": d.model} if d.model else {})} for d in devices()]
    connected = {spec: p.serial for spec, p in ctx.session.pages().items()}
    out: dict[str, Any] = {"devices": found, "connected": connected,
                           "default": ctx.options.device}
    if not found and not connected:
        out["note"] = ("no device found: connect a phone with USB debugging on, start an "
                       "emulator, or pass device='host:port' (or 'virtual')")
    return out


def _configure(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    device = a.get("device", "unset")
    if device is None or (isinstance(device, str) and not device.strip()):
        raise InvalidArgument("device must name a device, not be blank: a blank device "
                              "would silently drop the session's default",
                              hint="pass a serial or host:port (the devices tool lists them), "
                                   "or 'auto' to go back to discovery")
    if device == "auto":
        a = {**a, "device": ""}  # the session's way of forgetting its default
    return {"session": ctx.session.configure(**a)}


# -- optional groups ------------------------------------------------------------------------


def _stop_app(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.stop_app(a["package"])
    return {"done": f"force-stopped {a['package']}"}


def _clear_app_data(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.clear_app_data(a["package"])
    return {"done": f"cleared the data of {a['package']}"}


def _grant(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.grant_permission(a["package"], a["permission"])
    return {"done": f"granted {a['permission']} to {a['package']}"}


def _revoke(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.revoke_permission(a["package"], a["permission"])
    return {"done": f"revoked {a['permission']} from {a['package']}"}


def _install(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    shown, apk = hostfiles.read_host_file(ctx.files_dir, a["apk"])
    said = ctx.page.install(apk, replace=a.get("replace", True))
    return {"done": f"installed {shown}", "output": said}


def _read_file(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    if "start_line" in a or "line_count" in a:
        if "offset" in a or "max_bytes" in a:
            raise InvalidArgument("read by lines (start_line, line_count) or by bytes "
                                  "(offset, max_bytes), not both")
        return seed.read_lines(ctx, a)
    extras.device_path(a["path"])
    part = ctx.page.read_file(a["path"], offset=a.get("offset", 0),
                              max_bytes=a.get("max_bytes", 20_000))
    return extras.file_part_result(part)


def _write_file(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    check_text("the text", a["text"])
    data = a["text"].encode("utf-8")
    with extras.device_path_hint():
        ctx.page.push(data, extras.device_path(a["path"]))
    return {"done": f"wrote {len(data)} bytes to {a['path']}"}


def _push_file(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    shown, data = hostfiles.read_host_file(ctx.files_dir, a["local_path"])
    with extras.device_path_hint():
        ctx.page.push(data, extras.device_path(a["path"]))
    return {"done": f"copied {shown} to {a['path']} ({len(data)} bytes)"}


def _pull_file(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    shown, size = extras.pull_to_host(ctx.page, a["path"], ctx.files_dir, a["local_path"],
                                      overwrite=a.get("overwrite", False))
    return {"done": f"copied {a['path']} to {shown} ({size} bytes)"}


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


def _logcat(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return verbs.logcat(ctx, a, cut_log)


def _recents(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    ctx.page.recents()
    return {"done": "opened recent apps"}


def _statusbar(what: str, done: str) -> Callable[[Any, dict[str, Any]], dict[str, Any]]:
    def run(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
        ctx.page.statusbar(what)
        return {"done": done}

    return run


def _device_info(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return {"info": ctx.page.device_info()}


def _screen_size(ctx: Any) -> tuple[int, int]:
    snap = ctx.page.last_snapshot
    if snap is not None and snap.width and snap.height:
        return snap.width, snap.height
    return ctx.page.screen_size()


def _grid_screenshot(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    rows, cols = a.get("rows", 12), a.get("cols", 6)
    shot = ctx.page.screenshot()
    png = extras.draw_grid(shot.png, rows, cols)
    out = image_result(png, shot.width, shot.height, f"screenshot with a {cols}x{rows} grid")
    out["grid"] = {"rows": rows, "cols": cols}
    return out


def _tap_grid(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    rows, cols = a.get("rows", 12), a.get("cols", 6)
    w, h = _screen_size(ctx)
    x, y = extras.grid_cell_center(a["cell"], rows, cols, w, h)
    ctx.page.tap_xy(x, y)
    return {"done": f"tapped grid cell {a['cell'].strip().upper()} at ({x}, {y})"}


def _annotated_screenshot(ctx: Any, a: dict[str, Any]) -> dict[str, Any]:
    return seed.annotated_screenshot(ctx, a, snapshot_result)


# ---------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------

_SNAP = ("the screen as text: one element per line, '- Role [ref=N] \"text\" (description) "
         "[states]', indented by nesting, plus the foreground package.")
_ACT = ("'done' saying what happened (plus a fresh snapshot, or what changed, when the "
        "session observes after acting).")
_TARGET = {"ref": PARAMS["ref"], "selector": SELECTOR}
_ERROR_ON_TIMEOUT = {"type": "boolean",
                     "description": "false: when time runs out answer found=false instead "
                                    "of failing with TIMEOUT (default true)"}

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "snapshot",
        "Look at the phone screen. The first line gives the screen size; then each window "
        "(app, dialog, keyboard, status bar, navigation bar…) has a header line, with what it "
        "shows below it, one element per line; elements you can act on carry [ref=N] (one "
        "with nothing else to name it shows its id, #name). Call it first, and again after "
        "anything changes the screen. An element keeps its ref while it stays on screen; a "
        "ref whose element is gone is refused (one that comes back gets its ref back). "
        "diff=true shows only what changed since the previous look, or an earlier one "
        "('# diff 7 from 3'): after '@N' (its line N), plain lines are added, '-K' removes "
        "K lines, '~R rest' is ref R's line now, '=K' a window's new content, '>'/'<' moves "
        "a level. Long screens are cut at max_chars with a note saying how to see the rest.",
        {"diff": {"type": "boolean",
                  "description": "only what changed since the previous snapshot (default "
                                 "false)"},
         "max_chars": PARAMS["max_chars"]},
        _snapshot, read_only=True, returns=_SNAP,
        floor_ms=10_000,
    ),
    ToolSpec(
        "tap",
        "Tap an element: give its ref from the latest snapshot, or a selector (e.g. "
        "{\"text\": \"OK\"}), or screen coordinates x and y. Use it for buttons, list rows, "
        "links, switches and checkboxes.",
        {**_TARGET, "x": PARAMS["x"], "y": PARAMS["y"]},
        _tap, acts=True, returns=_ACT,
        cli_args=("ref?",),
        floor_ms=_READ_AGAIN_MS,
    ),
    ToolSpec(
        "type",
        "Type text into an input field (a TextInput in the snapshot), tapping it first to "
        "focus it. The field ends up holding exactly the text (printable ASCII; spaces and "
        "newlines work; a web page's field takes any Unicode). Without ref or selector it "
        "types into the field that has focus. A search bar that opens a field when tapped "
        "works too; anything that takes no text is refused and nothing is typed. "
        "clear=true empties the field first (any length); submit=true presses Enter "
        "afterwards (search, send).",
        {**_TARGET,
         "text": _p("text", "what to type"),
         "clear": {"type": "boolean", "description": "empty the field first (default false)"},
         "submit": {"type": "boolean", "description": "press Enter after typing (default false)"}},
        _type, required=("text",), acts=True, returns=_ACT,
        floor_ms=10_000, check=_check_typed,
        cli_args=("ref?", "text"),
    ),
    ToolSpec(
        "press",
        "Press a key: a name such as back, home, enter, tab, del, app_switch, volume_up, "
        "power, or an Android keycode number.",
        {"key": PARAMS["key"]},
        _press, required=("key",), acts=True, returns=_ACT,
        cli_args=("key",),
    ),
    ToolSpec(
        "scroll",
        "Scroll a list or page to reveal more. direction is which way to look: 'down' shows "
        "what is below (like swiping up), 'up' what is above. Give the ref (or selector) of "
        "a scrollable element (List, ScrollView), or neither to scroll the middle of the "
        "screen.",
        {"direction": PARAMS["direction"], **_TARGET,
         "amount": {"anyOf": [{"type": "number", "minimum": 0.05, "maximum": 1},
                              {"type": "string", "enum": ["small", "medium", "large"]}],
                    "description": "how far: a fraction of the element's size (default 0.6), "
                                   "or small (0.25), medium (0.5), large (0.75)"}},
        _scroll, required=("direction",), acts=True, returns=_ACT, floor_ms=_READ_AGAIN_MS,
        cli_args=("ref?", "direction"),
    ),
    ToolSpec(
        "swipe",
        "Swipe between two screen points (pixels), for gestures a scroll does not cover: "
        "pulling down the notification shade, dismissing a card, a carousel.",
        {"x1": _p("x", "start x"), "y1": _p("y", "start y"),
         "x2": _p("x", "end x"), "y2": _p("y", "end y"),
         "ms": _p("ms", "duration in ms (default 300)")},
        _swipe, required=("x1", "y1", "x2", "y2"), acts=True, returns=_ACT,
        cli_args=("x1", "y1", "x2", "y2"),
    ),
    ToolSpec(
        "long_press",
        "Press and hold an element (ref, selector, or x and y) to open its context menu or "
        "start selecting.",
        {**_TARGET, "x": PARAMS["x"], "y": PARAMS["y"],
         "ms": _p("ms", "how long to hold in ms (default 1000)")},
        _long_press, acts=True, returns=_ACT, floor_ms=_READ_AGAIN_MS,
        cli_args=("ref?",),
    ),
    ToolSpec(
        "launch",
        "Open an app by its package name (e.g. com.android.settings) or by its label, the "
        "name the launcher shows (e.g. 'Settings'; read from the apps on the device).",
        {"package": PARAMS["package"],
         "label": {"type": "string", "minLength": 1,
                   "description": "the app's name as the launcher shows it (exact, ignoring "
                                  "case, or the one app whose name contains it)"}},
        verbs.launch, acts=True, returns=_ACT + " Also 'package'.",
        floor_ms=10_000,
        cli_args=("package?",),
    ),
    ToolSpec(
        "open_url",
        "Open a URI with the app that handles it: a web page in the browser, tel: in the "
        "dialer, geo: in maps, a deep link in its app.",
        {"uri": PARAMS["uri"]},
        _open_url, required=("uri",), acts=True, open_world=True, returns=_ACT,
        floor_ms=10_000,
        cli_args=("uri",),
    ),
    ToolSpec(
        "back",
        "Press the Back button: close a keyboard, dialog or menu, or go to the previous screen.",
        {}, _back, acts=True, returns=_ACT,
    ),
    ToolSpec(
        "home",
        "Press the Home button: go to the launcher (home screen).",
        {}, _home, acts=True, returns=_ACT,
    ),
    ToolSpec(
        "screenshot",
        "Take a picture of the screen. Use it when the snapshot text is not enough (images, "
        "maps, games, canvas content); act with snapshot refs where you can. By default a "
        "JPEG scaled to 1024 px on its longest side (what a vision model reads well at few "
        "tokens); format, quality and max_side change that.",
        dict(seed.IMAGE_PARAMS), seed.screenshot, read_only=True,
        returns="the image ('image': mime_type, width, height, data), the 'screen' size and "
                "the 'scale' from image to screen pixels.",
        floor_ms=10_000,
        image=True,
    ),
    ToolSpec(
        "find",
        "Find elements on the current screen by text, description, id, role or Android class "
        "(class_name, e.g. EditText; takes a fresh snapshot). Use it to get the ref of a known "
        "element without reading the whole snapshot.",
        {"selector": SELECTOR},
        seed.find, required=("selector",), read_only=True,
        returns="'matches': [{ref, role, text, desc, states, bounds, resource_id, class_name, "
                "clickable, focusable, scrollable, checked, enabled, …}], actionable ones first "
                "(a plain label has ref null and 'inside_ref': the ref of the row or button "
                "it sits in), and 'count'.",
        floor_ms=10_000,
        cli_args=("selector.text_contains?",),
    ),
    ToolSpec(
        "wait_for",
        "Wait until an element matching the selector is on screen — or, with gone=true, "
        "until none is (a spinner or dialog went away). Fails with TIMEOUT otherwise, or "
        "with error_on_timeout=false answers found=false.",
        {"selector": SELECTOR,
         "timeout": _p("timeout", "seconds to wait at most (default: the session's, 10)"),
         "gone": {"type": "boolean",
                  "description": "wait for it to disappear instead (default false)"},
         "error_on_timeout": _ERROR_ON_TIMEOUT},
        verbs.wait_for, required=("selector",), read_only=True,
        returns="'found', and 'match': the element {ref, role, text, desc, bounds} (nothing "
                "when gone).",
        waits="timeout", waits_default="session",
        cli="wait-for-element",
    ),
    ToolSpec(
        "scroll_until",
        "Scroll until an element matching the selector shows up (in the container, or the "
        "screen), optionally tapping it then. Fails with REF_NOT_FOUND at the end of the "
        "list.",
        {"selector": SELECTOR,
         "container": {**SELECTOR, "description": "the scrollable element to scroll "
                                                  "(default: the middle of the screen)"},
         "container_ref": _p("ref", "the scrollable element's ref, instead of container"),
         "direction": PARAMS["direction"],
         "max_swipes": {"type": "integer", "minimum": 0, "maximum": 200,
                        "description": "give up after this many scrolls (default 10)"},
         "click_after": {"type": "boolean",
                         "description": "tap the element once found (default false)"}},
        verbs.scroll_until, required=("selector",), acts=True,
        returns="'match': the element found.",
    ),
    ToolSpec(
        "read",
        "Read the text of the element matching the selector (its description when it has no "
        "text) — or of every match with all=true; regex keeps only texts it matches.",
        {"selector": SELECTOR,
         "all": {"type": "boolean", "description": "every match, not just the first"},
         "regex": {"type": "string", "minLength": 1, "maxLength": 1000,
                   "description": "a regular expression the text must contain a match of"},
         "container": {**SELECTOR, "description": "only elements inside this container (a "
                                                  "list, a dialog, a card)"},
         "container_ref": _p("ref", "the container's ref, instead of container")},
        verbs.read, required=("selector",), read_only=True,
        returns="'text' (or 'texts' and 'count' with all=true).",
    ),
    ToolSpec(
        "wait_for_text",
        "Wait until some text appears on screen (case-insensitive), e.g. after starting a "
        "slow load. Fails with TIMEOUT if it does not appear in time (error_on_timeout=false: "
        "answers found=false).",
        {"text": _p("text", "the text to wait for", minLength=1),
         "timeout": _p("timeout", "seconds to wait at most (default: the session's, 10)"),
         "max_chars": PARAMS["max_chars"],
         "error_on_timeout": _ERROR_ON_TIMEOUT},
        _wait_for_text, required=("text",), read_only=True,
        returns="'found', and the snapshot in which the text appeared.",
        waits="timeout", waits_default="session",
        cli="wait-for", cli_args=("text",),
    ),
    ToolSpec(
        "wait_stable",
        "Wait until the screen stops changing (animations and loading done), then look at it. "
        "match_percentage below 100 tolerates small changes (a clock, a progress bar): the "
        "screen counts as idle when two snapshots in a row are that alike.",
        {"timeout": _p("timeout", "seconds to wait at most, at least 1 (reading the screen "
                                  "twice takes time; default: the session's, 10)", minimum=1),
         "match_percentage": {"type": "number", "minimum": 0, "maximum": 100,
                              "description": "how alike two snapshots in a row must be, in "
                                             "% of their lines (default 100: identical)"},
         "max_chars": PARAMS["max_chars"],
         "error_on_timeout": _ERROR_ON_TIMEOUT},
        _wait_stable, read_only=True,
        returns="the settled snapshot, 'idle' and the 'similarity' (%) of the last two.",
        waits="timeout", waits_default="session",
    ),
    ToolSpec(
        "wait",
        "Wait a fixed time (seconds, e.g. 1.5) without looking: an app loading, an animation, "
        "pacing steps. Prefer wait_for / wait_for_text when you know what to wait for.",
        {"seconds": {"type": "number", "minimum": 0, "maximum": 600,
                     "description": "how long, in seconds (fractions allowed)"}},
        seed.wait, required=("seconds",), read_only=True, returns="'done'.",
        waits="seconds", waits_default=0.0,
    ),
    ToolSpec(
        "devices",
        "List the Android devices baremobile can reach (USB, emulators, network, an adb "
        "server) and the ones this session is connected to. Pass a serial as device to the "
        "other tools when there are several.",
        {}, _devices, needs_device=False, read_only=True,
        returns="'devices': [{serial, state, kind, via, model}], 'connected' and 'default'.",
    ),
    ToolSpec(
        "configure",
        "Set defaults for the rest of the session: the device to use, how long waits last, "
        "the snapshot size, and whether actions return a fresh snapshot (observe) after "
        "settling for 'settle' seconds.",
        {"device": _p("device", "default device (serial, host:port or 'virtual'); 'auto' to "
                                "go back to discovery (a blank device is refused)"),
         "timeout": _p("timeout", "default seconds for waits"),
         "max_chars": PARAMS["max_chars"],
         "observe": {"type": ["boolean", "string"], "enum": [True, False, "diff"],
                     "description": "actions return the screen's snapshot after them "
                                    "(true), or only what changed since the previous one "
                                    "(\"diff\")"},
         "settle": {"type": "number", "minimum": 0, "maximum": 60,
                    "description": "seconds to wait after an action before observing"},
         "busy_wait": {"type": "number", "minimum": 0, "maximum": 600,
                       "description": "seconds to wait for another call on the same "
                                      "device before answering BUSY"}},
        _configure, group="session", needs_device=False,
        returns="'session': every setting now in force.",
    ),
    # -- apps --------------------------------------------------------------------------
    ToolSpec(
        "list_apps",
        "List installed apps: filter by a part of the package name (or label, with "
        "labels=true), by kind (user, system, all); add version names and labels.",
        {"name": {"type": "string", "minLength": 1,
                  "description": "keep apps whose package (or label) contains this, "
                                 "ignoring case"},
         "kind": {"type": "string", "enum": ["all", "user", "system"],
                  "description": "user-installed, system, or all apps (default all)"},
         "third_party": {"type": "boolean",
                         "description": "the same as kind='user' (kept for older callers)"},
         "versions": {"type": "boolean", "description": "add version names (default false)"},
         "labels": {"type": "boolean",
                    "description": "add the launcher labels, read from each app's APK on "
                                   "the device (slower the first time; default false)"}},
        verbs.list_apps, group="apps", read_only=True,
        returns="'packages' (names), 'apps': [{package, system, label, version_name, "
                "version_code}] and 'count'.",
    ),
    ToolSpec(
        "uninstall_app",
        "Uninstall a user-installed app (system apps cannot be uninstalled).",
        {"package": PARAMS["package"],
         "keep_data": {"type": "boolean",
                       "description": "keep the app's data and cache (pm uninstall -k)"}},
        verbs.uninstall_app, required=("package",), group="apps", acts=True, destructive=True,
        returns="'done' and pm's output.",
        cli_args=("package",),
    ),
    ToolSpec(
        "stop_app", "Force-stop an app (it closes; its data stays).",
        {"package": PARAMS["package"]}, _stop_app, required=("package",), group="apps",
        acts=True, returns=_ACT,
        cli_args=("package",),
    ),
    ToolSpec(
        "clear_app_data", "Erase an app's data and cache, as if freshly installed.",
        {"package": PARAMS["package"]}, _clear_app_data, required=("package",),
        group="apps", acts=True, destructive=True, returns=_ACT,
        cli_args=("package",),
    ),
    ToolSpec(
        "grant_permission",
        "Grant an app a runtime permission (e.g. android.permission.CAMERA) without a dialog.",
        {"package": PARAMS["package"],
         "permission": {"type": "string", "minLength": 1,
                        "description": "permission name, e.g. android.permission.CAMERA"}},
        _grant, required=("package", "permission"), group="apps", returns=_ACT,
        cli_args=("package", "permission"),
    ),
    ToolSpec(
        "revoke_permission", "Take a runtime permission away from an app.",
        {"package": PARAMS["package"],
         "permission": {"type": "string", "minLength": 1,
                        "description": "permission name, e.g. android.permission.CAMERA"}},
        _revoke, required=("package", "permission"), group="apps", destructive=True,
        returns=_ACT,
        cli_args=("package", "permission"),
    ),
    ToolSpec(
        "install_app",
        "Install an APK file from the operator's files directory on this computer onto the "
        "device (refused unless the operator set one).",
        {"apk": {"type": "string", "minLength": 1,
                 "description": "the .apk's path relative to the files directory, e.g. "
                                "'app.apk'"},
         "replace": {"type": "boolean",
                     "description": "reinstall over an existing version (default true)"}},
        _install, required=("apk",), group="apps", destructive=True, host_paths=("apk",),
        returns="'done' and pm's output.",
        floor_ms=300_000,
        cli="install", cli_args=("apk",),
    ),
    # -- files -------------------------------------------------------------------------
    ToolSpec(
        "list_files",
        "List a directory on the device: each entry's name, type, size and time, "
        "directories first; long directories come in pages (offset, limit).",
        {"path": _p("path", "directory on the device, e.g. /sdcard/Download"),
         "offset": {"type": "integer", "minimum": 0,
                    "description": "skip this many entries (default 0)"},
         "limit": {"type": "integer", "minimum": 1, "maximum": 1000,
                   "description": "at most this many entries (default 200)"}},
        verbs.list_files, required=("path",), group="files", read_only=True,
        returns="'entries': [{name, type, size, modified (device time), mode}], 'total', "
                "'has_more'.",
        cli_args=("path",),
    ),
    ToolSpec(
        "delete_file", "Delete a file on the device (a folder only with recursive=true).",
        {"path": PARAMS["path"],
         "recursive": {"type": "boolean",
                       "description": "delete a folder with everything in it (default false)"}},
        verbs.delete_file, required=("path",), group="files", destructive=True, returns=_ACT,
        cli_args=("path",),
    ),
    ToolSpec(
        "append_file", "Add text at the end of a file on the device (created if missing).",
        {"path": PARAMS["path"], "text": _p("text", "what to add (UTF-8)")},
        verbs.append_file, required=("path", "text"), group="files", destructive=True,
        returns=_ACT + " Also the file's new 'size'.",
        cli_args=("path", "text"),
    ),
    ToolSpec(
        "read_file",
        "Read a file on the device (or a part of it): by bytes (offset, max_bytes), or a "
        "text file by lines (start_line, line_count: numbered lines).",
        {"path": PARAMS["path"],
         "max_bytes": {"type": "integer", "minimum": 1, "maximum": MAX_READ,
                       "description": "return at most this many bytes (default 20000)"},
         "offset": {"type": "integer", "minimum": 0,
                    "description": "start at this byte (default 0): to read on after a cut "
                                   "result, pass its next_offset"},
         "start_line": {"type": "integer", "minimum": 1,
                        "description": "read lines from this one on (1 = the first)"},
         "line_count": {"type": "integer", "minimum": 1, "maximum": 10_000,
                        "description": "how many lines (default 200)"}},
        _read_file, required=("path",), group="files", read_only=True,
        returns="the content as text (UTF-8) or base64, its 'size', and when cut "
                "'truncated', 'next_offset' and a note; by lines: 'text' with 'N: ' before "
                "each line, 'has_more' and 'next_line'.",
        floor_ms=30_000,
        cli_args=("path",),
    ),
    ToolSpec(
        "replace_in_file",
        "Replace text in a text file on the device: the first occurrence of old_text, or "
        "every one with replace_all. Nothing changes when old_text is not there.",
        {"path": PARAMS["path"],
         "old_text": {"type": "string", "minLength": 1, "description": "the exact text to find"},
         "new_text": {"type": "string", "description": "what replaces it"},
         "replace_all": {"type": "boolean",
                         "description": "replace every occurrence (default: the first)"}},
        seed.replace_in_file, required=("path", "old_text", "new_text"), group="files",
        destructive=True, returns="'done' and how many were 'replaced'.", floor_ms=30_000,
    ),
    ToolSpec(
        "storage_locations",
        "List where files can go on the device: shared storage (/sdcard), removable volumes, "
        "the shell's scratch space (/data/local/tmp), with free and total space.",
        {}, seed.storage_locations, group="files", read_only=True,
        returns="'locations': [{path, name, kind, available_bytes, total_bytes, mount, "
                "writable}].",
    ),
    ToolSpec(
        "write_file", "Write text to a file on the device (replacing it).",
        {"path": PARAMS["path"], "text": _p("text", "the file's new content")},
        _write_file, required=("path", "text"), group="files", destructive=True, returns=_ACT,
        cli_args=("path", "text"),
    ),
    ToolSpec(
        "push_file",
        "Copy a file from the operator's files directory on this computer to the device "
        "(replacing the device file; refused unless the operator set a files directory).",
        {"local_path": {"type": "string", "minLength": 1,
                        "description": "the file's path relative to the files directory"},
         "path": PARAMS["path"]},
        _push_file, required=("local_path", "path"), group="files", destructive=True,
        host_paths=("local_path",),
        returns=_ACT,
        floor_ms=120_000,
        cli="push", cli_args=("local_path", "path"),
    ),
    ToolSpec(
        "pull_file",
        "Copy a file from the device into the operator's files directory on this computer "
        "(refused unless the operator set one). An existing file is kept unless "
        "overwrite=true.",
        {"path": PARAMS["path"],
         "local_path": {"type": "string", "minLength": 1,
                        "description": "where to save it, relative to the files directory"},
         "overwrite": {"type": "boolean",
                       "description": "replace an existing local file (default false)"}},
        _pull_file, required=("path", "local_path"), group="files", destructive=True,
        host_paths=("local_path",),
        returns=_ACT,
        floor_ms=120_000,
        cli="pull", cli_args=("path", "local_path?"),
    ),
    # -- logs --------------------------------------------------------------------------
    ToolSpec(
        "logcat",
        "Read the device log (most recent lines), e.g. to find why an app crashed; filter "
        "by time (since, until), app, process, priority or tag.",
        {"lines": {"type": "integer", "minimum": 1, "maximum": 100_000,
                   "description": "how many recent lines (default 200)"},
         "tag": {"type": "string", "minLength": 1, "maxLength": 100,
                 "pattern": r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*(:[VDIWEFS])?$",
                 "description": "only this log tag: letters, digits, '_', '.', '-' (not "
                                "first), optionally ':PRIORITY' (V D I W E F S), e.g. "
                                "'ActivityManager:W'"},
         "since": {"type": ["string", "number"],
                   "description": "only lines from then on: seconds since the epoch, or an "
                                  "ISO 8601 time (without a zone: the device's time)"},
         "until": {"type": ["string", "number"],
                   "description": "only lines up to then: seconds since the epoch, or an ISO "
                                  "8601 time (without a zone: the device's time)"},
         "package": _p("package", "only this app's processes"),
         "pid": {"type": "integer", "minimum": 1, "description": "only this process"},
         "priority": {"type": "string", "enum": list("VDIWEF"),
                      "description": "minimum priority: V D I W E F"},
         "max_chars": _p("max_chars", "longest log text to return; older lines are cut first "
                                      "(default: the session's, 20000)")},
        _logcat, group="logs", read_only=True,
        returns="the log lines as text (most recent last); 'pids' for a package filter.",
    ),
    # -- system UI ---------------------------------------------------------------------
    ToolSpec("recents", "Open the recent-apps overview.", {}, _recents, group="system",
             acts=True, returns=_ACT),
    ToolSpec("open_notifications", "Pull down the notification shade.", {},
             _statusbar("notifications", "opened the notification shade"), group="system",
             acts=True, returns=_ACT),
    ToolSpec("open_quick_settings", "Open the quick settings panel (Wi-Fi, Bluetooth, …).", {},
             _statusbar("quick_settings", "opened quick settings"), group="system", acts=True,
             returns=_ACT),
    ToolSpec("close_panels", "Close the notification shade or quick settings.", {},
             _statusbar("collapse", "closed the system panels"), group="system", acts=True,
             returns=_ACT),
    ToolSpec("device_info",
             "Describe the device: model, Android version, API level, screen size (as turned "
             "now) and density, orientation, battery level and charging, foreground app.",
             {}, _device_info, group="system", read_only=True, returns="'info': those facts."),
    ToolSpec("rotate",
             "Turn the screen: portrait, landscape, reverse_portrait, reverse_landscape "
             "(locked there), or auto (follow the sensor again).",
             {"orientation": {"type": "string",
                              "enum": ["portrait", "landscape", "reverse_portrait",
                                       "reverse_landscape", "auto"],
                              "description": "how to turn the screen"}},
             verbs.rotate, required=("orientation",), group="system", acts=True,
             returns=_ACT + " Also the 'orientation' now.", cli_args=("orientation",)),
    ToolSpec("get_clipboard",
             "Read the clipboard's text. Stock Android does not allow this over ADB (only "
             "apps may read it): expect UNSUPPORTED with the device's answer.",
             {}, verbs.get_clipboard, group="system", read_only=True,
             returns="'text', where the device allows it."),
    ToolSpec("set_clipboard",
             "Put text on the clipboard. Stock Android does not allow this over ADB (only "
             "apps may set it): expect UNSUPPORTED; type the text with 'type' instead.",
             {"text": _p("text", "the clipboard's new text")}, verbs.set_clipboard,
             required=("text",), group="system", returns=_ACT, cli_args=("text",)),
    # -- vision ------------------------------------------------------------------------
    ToolSpec(
        "grid_screenshot",
        "Take a screenshot with a labelled grid over it (columns A, B, …; rows 1, 2, …). "
        "Use it for things the snapshot does not list; then tap_grid the cell.",
        {"rows": {"type": "integer", "minimum": 2, "maximum": 40,
                  "description": "grid rows (default 12)"},
         "cols": {"type": "integer", "minimum": 2, "maximum": 26,
                  "description": "grid columns (default 6)"}},
        _grid_screenshot, group="vision", read_only=True,
        returns="a PNG with the grid, and the grid's size.",
        floor_ms=10_000,
        image=True,
    ),
    ToolSpec(
        "tap_grid",
        "Tap the center of a grid cell from grid_screenshot (e.g. 'C4'); use the same rows "
        "and cols.",
        {"cell": {"type": "string", "minLength": 2, "maxLength": 3,
                  "description": "column letter and row number, e.g. C4"},
         "rows": {"type": "integer", "minimum": 2, "maximum": 40,
                  "description": "grid rows (default 12)"},
         "cols": {"type": "integer", "minimum": 2, "maximum": 26,
                  "description": "grid columns (default 6)"}},
        _tap_grid, required=("cell",), group="vision", acts=True, returns=_ACT,
        cli_args=("cell",),
    ),
    ToolSpec(
        "annotated_screenshot",
        "Take a screenshot with every ref boxed and numbered, plus the matching snapshot: "
        "see what each ref is, then act by ref. Sized like screenshot (JPEG, 1024 px by "
        "default; format, quality, max_side).",
        {"max_chars": PARAMS["max_chars"], **seed.IMAGE_PARAMS},
        _annotated_screenshot, group="vision", read_only=True,
        returns="the image with numbered boxes (as screenshot's) and the snapshot they match.",
        floor_ms=10_000,
        image=True,
    ),
    # -- editing a field in place -------------------------------------------------------
    ToolSpec(
        "insert_text",
        "Type text into a text field at a character offset (0 = the start), or at the end "
        "when offset is left out, keeping what the field holds (type replaces it). The "
        "caret is moved with the arrow keys; the field is read back to check.",
        {**_TARGET, "text": _p("text", "what to insert", minLength=1),
         "offset": {"type": "integer", "minimum": 0,
                    "description": "where: characters from the start (default: the end)"}},
        seed.insert_text, required=("text",), group="edit", acts=True,
        returns=_ACT + " Also 'field_text': the field's text afterwards.",
        floor_ms=10_000,
    ),
    ToolSpec(
        "replace_text",
        "Replace part of a text field's text: the first occurrence of search, or characters "
        "start to end (0-based, end excluded), with text (empty text deletes them). The "
        "caret is moved with the arrow keys and the part deleted with the delete key; the "
        "field is read back to check.",
        {**_TARGET, "text": _p("text", "the replacement (empty: just delete)"),
         "search": {"type": "string", "minLength": 1, "description": "the text to replace"},
         "start": {"type": "integer", "minimum": 0, "description": "first character to replace"},
         "end": {"type": "integer", "minimum": 0,
                 "description": "the character after the last one to replace"}},
        seed.replace_text, group="edit", acts=True,
        returns=_ACT + " Also 'field_text': the field's text afterwards.",
        floor_ms=10_000,
    ),
    # -- gestures ----------------------------------------------------------------------
    ToolSpec(
        "double_tap",
        "Double-tap an element (ref, selector) or a point (x, y): zoom a map or photo, like "
        "a post. Both taps land inside Android's double-tap window.",
        {**_TARGET, "x": PARAMS["x"], "y": PARAMS["y"]},
        verbs.double_tap, group="gestures", acts=True,
        returns=_ACT + " Also the 'route' and the 'interval_ms' its timing model gives.",
    ),
    ToolSpec(
        "drag",
        "Press an element or point, hold it (long press), move it to another element or "
        "point, let go: drag and drop, reorder a list, move an icon.",
        {"from_ref": _p("ref", "what to drag: its ref"),
         "from_selector": {**SELECTOR, "description": "what to drag: a selector"},
         "from_x": _p("x", "what to drag: x"), "from_y": _p("y", "what to drag: y"),
         "to_ref": _p("ref", "where to drop: a ref"),
         "to_selector": {**SELECTOR, "description": "where to drop: a selector"},
         "to_x": _p("x", "where to drop: x"), "to_y": _p("y", "where to drop: y"),
         "ms": _p("ms", "how long the move takes (default 600)")},
        verbs.drag, group="gestures", acts=True, returns=_ACT,
    ),
    ToolSpec(
        "pinch",
        "Pinch with two fingers on an element, a point or the middle of the screen: scale > "
        "1 spreads them (zoom in), < 1 closes them (zoom out). Needs Android 11+, Android 9 "
        "or older, or root (else UNSUPPORTED, with the device's reason).",
        {**_TARGET, "x": PARAMS["x"], "y": PARAMS["y"],
         "scale": {"type": "number", "exclusiveMinimum": 0, "maximum": 20,
                   "description": "how far apart the fingers end, relative to the start "
                                  "(2 = zoom in twice, 0.5 = zoom out)"},
         "ms": {"type": "integer", "minimum": 50, "maximum": 10_000,
                "description": "duration in ms (default 400)"}},
        verbs.pinch, required=("scale",), group="gestures", acts=True, returns=_ACT,
    ),
    ToolSpec(
        "gesture",
        "Any gesture: one path per finger, each a list of points {x, y, time} (time in ms "
        "from the start, increasing). Several fingers need what pinch needs.",
        {"paths": {"type": "array", "minItems": 1, "maxItems": 10,
                   "description": "one path per finger",
                   "items": {"type": "array", "minItems": 2, "maxItems": 500,
                             "items": {"type": "object",
                                       "properties": {"x": PARAMS["x"], "y": PARAMS["y"],
                                                      "time": {"type": "number",
                                                               "minimum": 0,
                                                               "maximum": 60_000}},
                                       "required": ["x", "y", "time"],
                                       "additionalProperties": False}}}},
        verbs.gesture, required=("paths",), group="gestures", acts=True,
        returns=_ACT + " Also the 'route', 'fingers' and 'duration_ms'.",
    ),
    # -- inspect -----------------------------------------------------------------------
    ToolSpec(
        "ui_xml",
        "The screen's raw hierarchy as uiautomator dumps it (every node and attribute), for "
        "when the snapshot leaves out something you need. Large: prefer snapshot.",
        {"max_chars": _p("max_chars", "longest XML to return (default: the session's)")},
        verbs.ui_xml, group="inspect", read_only=True,
        returns="the XML as 'text', its length in 'chars', 'truncated'.",
    ),
    # -- running JavaScript in the page (gated: see GATED_GROUPS) ---------------------------
    ToolSpec(
        "eval",
        "Run a JavaScript expression in the web page on screen (the foreground app's "
        "WebView, or Chrome's tab) and get its value as JSON (a promise is awaited). It "
        "runs with the page's own rights (its cookies, storage and origin) and can change "
        "the page: read and act with snapshot refs where you can, and use this only for what "
        "they cannot do.",
        {"expression": {"type": "string", "minLength": 1, "maxLength": 100_000,
                        "description": "a JavaScript expression, e.g. document.title"},
         "timeout": _p("timeout", "seconds the page may take (default 10)")},
        verbs.eval_js, required=("expression",), group="eval", acts=True, destructive=True,
        open_world=True,
        returns="'value': the expression's value as JSON data (or, when that is longer "
                "than max_chars, 'text': the JSON cut, with 'truncated').",
        waits="timeout", waits_default=10.0,
        cli_args=("expression",),
    ),
    # -- batches -----------------------------------------------------------------------
    ToolSpec(
        "execute",
        "Run several tool calls in order on one device in one request: steps [{tool, args}]. "
        "The first failing step stops the batch (unless stop_on_error=false); timeout "
        "bounds the whole batch. Other calls to the device wait (BUSY) meanwhile.",
        {"steps": {"type": "array", "minItems": 1, "maxItems": 50,
                   "items": {"type": "object",
                             "properties": {"tool": {"type": "string", "minLength": 1},
                                            "args": {"type": "object"}},
                             "required": ["tool"], "additionalProperties": False},
                   "description": "the calls, each {tool, args}"},
         "stop_on_error": {"type": "boolean",
                           "description": "stop at the first failing step (default true)"},
         "timeout": _p("timeout", "seconds the whole batch may take (default: no limit)")},
        batch.execute, required=("steps",), group="batch", acts=True,
        returns="'steps': each step's result (with its 'ok'), 'completed', 'failed'.",
        waits="timeout", waits_default=None,
    ),
)

_BY_NAME = {t.name: t for t in TOOLS}
assert len(_BY_NAME) == len(TOOLS), "tool names must be unique"


def get(name: str) -> ToolSpec | None:
    """The tool called ``name`` (no prefix), or None."""
    return _BY_NAME.get(name)


def select(groups: Any = ()) -> list[ToolSpec]:
    """The tools of ``core`` plus ``groups`` (names, ``"all"``, or a comma-separated string);
    ``"all"`` is every group but the :data:`GATED_GROUPS`, which must be named."""
    if isinstance(groups, str):
        groups = [g.strip() for g in groups.split(",") if g.strip()]
    chosen = set(groups or ())
    if "all" in chosen:
        chosen = (chosen - {"all"}) | (set(GROUPS) - set(GATED_GROUPS))
    unknown = chosen - set(GROUPS)
    if unknown:
        raise InvalidArgument(f"unknown tool group(s): {', '.join(sorted(unknown))}",
                              hint=f"groups are: {', '.join(GROUPS)} (or 'all')")
    chosen.add("core")
    return [t for t in TOOLS if t.group in chosen]
