"""Android Remote Control's words for our tools (its MCP server's 39 ``android_…`` tools, as
its ``docs/MCP_TOOLS.md`` documents them), so an ARC client works against ours unchanged —
accepted at every door, never shown in our menu (:mod:`baremobile.tools.aliases`).

Each name answers in ARC's words wherever it is called (nobody else uses ``android_…``
names): the text ARC's tool answers (``Tap executed at (500, 1000)``, the screen as ARC's
TSV, its JSON for elements, logs, files and apps); a failure is ours (``isError``, code,
message and hint), as ARC's failures are ``isError`` results too. A name may carry a device
slug, as ARC's do (``android_pixel7_tap``): on a server without ``--prefix``/``--slug``
every slug is taken; with ``--slug pixel7`` the names after it are ours first.

What maps to what, where the two differ:

* **element ids**: ``node_<ref>`` is the element with ``[ref=N]`` in our snapshot;
  ``node_<ref>_<k>`` the k-th label inside it (acting on a label acts on its element, as a
  touch on it would), ``node_0_<k>`` the k-th label outside any element (nothing there
  takes a touch: acting on it is refused). Ids stay valid while the element stays on
  screen, as refs do. Every element we list is on screen (ARC's ``on`` flag), so
  ``scroll_to_element`` finds it already visible;
* **directions**: ARC's ``android_scroll`` names the way the finger moves (``up`` shows
  what is below): ours names what comes into view, so the direction is turned round;
* **times**: ARC's milliseconds (``duration``, ``timeout``) become our seconds or ``ms``;
* **files**: a storage location's id is its path (``/storage/emulated/0``), and ARC's
  paths are relative to it (no ``..``);
* **n/a** over ADB alone (each answers ``UNSUPPORTED`` or says so): ``download_from_url``
  (the phone has no downloader to run: download on the computer and ``push_file``), the
  clipboard (stock Android answers no shell command for it), typing speed (``input text``
  types at once), a screen's density in ``get_screen_state`` (shown as 0: a snapshot does
  not read it; ``device_info`` does).
"""

from __future__ import annotations

import json
import mimetypes
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from baremobile.errors import (
    InvalidArgument,
    NotActionable,
    RefNotFound,
    Unsupported,
)
from baremobile.tools.aliases import Alias, Args
from baremobile.tools.table.arc_screen import (
    cell,
    element,
    elements,
    matching,
    screen_text,
    seen,
)

__all__ = ["ALIASES"]

SYSTEM = "arc"
#: every ARC tool name starts so (then, optionally, a device slug and ``_``)
PREFIX = "android_"

Result = dict[str, Any]


# -- arguments ----------------------------------------------------------------------------


def _known(name: str, allowed: Iterable[str], convert: Callable[[Args], Args]
           ) -> Callable[[Args], Args]:
    """``convert``, after refusing an argument ARC's tool ``name`` does not take."""
    allowed = tuple(allowed)

    def run(a: Args) -> Args:
        unknown = sorted(set(a) - set(allowed))
        if unknown:
            raise InvalidArgument(
                f"{PREFIX}{name} takes no {', '.join(map(repr, unknown))}",
                hint=f"its arguments: {', '.join(allowed) or 'none'}")
        return convert(a)

    return run


def _need(a: Args, key: str) -> Any:
    if key not in a:
        raise InvalidArgument(f"missing required argument {key!r}")
    return a[key]


def _int(a: Args, key: str, default: int | None, lo: int, hi: int) -> int | None:
    """An integer argument within ARC's bounds (``default`` when not given)."""
    value = a.get(key, default)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidArgument(f"{key} must be an integer from {lo} to {hi}, not {value!r}")
    return value


def _required_int(a: Args, key: str, lo: int, hi: int) -> int:
    _need(a, key)
    value = _int(a, key, None, lo, hi)
    assert value is not None
    return value


def _ms(a: Args, key: str, default: int | None) -> int | None:
    """A duration in milliseconds (1–60000, ARC's bound)."""
    return _int(a, key, default, 1, 60_000)


_ID = re.compile(r"node_(\d+)(?:_(\d+))?\Z")


def _parse_id(element_id: Any) -> tuple[int, int | None]:
    m = _ID.match(element_id) if isinstance(element_id, str) else None
    if m is None:
        raise InvalidArgument(
            f"element_id {element_id!r} is not an element id of this server",
            hint="ids are node_<ref> as android_get_screen_state and android_find_elements "
                 "give them")
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None


def _ref(a: Args) -> int:
    """The ref an ARC element id names: its element's, or (a label) the element it is in."""
    eid = _need(a, "element_id")
    ref, _ = _parse_id(eid)
    if ref == 0:
        raise NotActionable(f"{eid} is a label outside any element: nothing there takes a "
                            "touch or text",
                            hint="act on an element with an id node_<N> (N > 0): "
                                 "take a new look with android_get_screen_state")
    return ref


def _point(a: Args) -> Args:
    return {"x": _need(a, "x"), "y": _need(a, "y")}


def _num(v: Any) -> str:
    """A number as ARC prints it (``500``, ``2.5``)."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


#: ARC's scroll names the finger's way; ours what comes into view
_TURNED = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _scroll(a: Args) -> Args:
    direction = _need(a, "direction")
    if direction not in _TURNED:
        raise InvalidArgument(f"direction is up, down, left or right, not {direction!r}")
    amount = a.get("amount", "medium")
    if amount not in ("small", "medium", "large"):
        raise InvalidArgument(f"amount is small, medium or large, not {amount!r}")
    return {"direction": _TURNED[direction], "amount": amount}


#: ARC's find criteria → (our selector field when exact, when it contains)
_BY = {"text": ("text", "text_contains"), "content_desc": ("desc", "desc_contains"),
       "resource_id": ("id", "id"), "class_name": ("class_name", "class_name")}


def _by(a: Args) -> tuple[str, str]:
    by, value = _need(a, "by"), _need(a, "value")
    if by not in _BY:
        raise InvalidArgument(f"by is text, content_desc, resource_id or class_name, not "
                              f"{by!r}")
    if not isinstance(value, str) or not value:
        raise InvalidArgument("value must be a non-empty string")
    return by, value


def _criterion(a: Args) -> Args:
    """A find by ARC's criteria: checked here, matched on the screen the row reads."""
    _by(a)
    return {}


def _selector(a: Args) -> Args:
    by, value = _by(a)
    return {_BY[by][0 if a.get("exact_match") else 1]: value}


_KEYS = ("ENTER", "BACK", "DEL", "HOME", "TAB", "SPACE")


def _key(a: Args) -> Args:
    key = _need(a, "key")
    if key not in _KEYS:
        raise InvalidArgument(f"key is one of {', '.join(_KEYS)}, not {key!r}")
    return {"key": key.lower()}


def _location(a: Args) -> str:
    """The device path an ARC location and relative path name (``..`` refused)."""
    root = _need(a, "location_id")
    path = a.get("path", "")
    if not isinstance(root, str) or not root.startswith("/"):
        raise InvalidArgument(f"location_id {root!r} is not a storage location of this server",
                              hint="the ids android_list_storage_locations gives are paths, "
                                   "e.g. /storage/emulated/0")
    if not isinstance(path, str) or path.startswith("/") or ".." in path.split("/"):
        raise InvalidArgument(f"path {path!r} must be relative to the location, without '..'")
    inside = path.strip("/")
    return (root.rstrip("/") + "/" + inside) if inside else (root.rstrip("/") or "/")


def _file(a: Args) -> str:
    """The device path of the file an ARC call names (its ``path`` is required)."""
    _need(a, "path")
    return _location(a)


def _typing(a: Args) -> None:
    """ARC's typing speed: checked, then unused (``input text`` types at once)."""
    _int(a, "typing_speed", 70, 10, 5000)
    _int(a, "typing_speed_variance", 15, 0, 1_000_000)


def _speed_checked(build: Callable[[Args], Args]) -> Callable[[Args], Args]:
    """``build``, after ARC's typing speed is checked (:func:`_typing`)."""
    def args(a: Args) -> Args:
        _typing(a)
        return build(a)
    return args


def _text_arg(a: Args, key: str = "text") -> str:
    text = _need(a, key)
    if not isinstance(text, str) or not text or len(text) > 2000:
        raise InvalidArgument(f"{key} must be 1 to 2000 characters")
    return text


# -- answers ------------------------------------------------------------------------------


def _answer(ours: Result, text: str, **more: Any) -> Result:
    """An answer whose text is ARC's (our renderer prints ``text`` as it is)."""
    return {"ok": True, "tool": ours.get("tool"), "text": text, **more}


def _says(make: Callable[[Args, Result], str]) -> Callable[[Result, Args], Result]:
    return lambda ours, a: _answer(ours, make(a, ours))


def _json(make: Callable[[Args, Result], Any]) -> Callable[[Result, Args], Result]:
    return lambda ours, a: _answer(ours, json.dumps(make(a, ours), ensure_ascii=False,
                                                    separators=(",", ":")))


def _screen_state(ours: Result, a: Args, page: Any) -> Result:
    more = {"image": ours["image"]} if "image" in ours else {}
    return _answer(ours, screen_text(seen(page)), **more)


def _found(ours: Result, a: Args, page: Any) -> Result:
    hits = matching(seen(page), *_by(a), bool(a.get("exact_match", False)))
    return _answer(ours, json.dumps({"elements": [element(e, n) for e, n in hits]},
                                    ensure_ascii=False, separators=(",", ":")))


def _waited(ours: Result, a: Args, page: Any) -> Result:
    if not ours.get("found"):
        data: dict[str, Any] = {"found": False, "elapsedMs": a["timeout"]}
    else:
        hits = matching(seen(page), *_by(a), False)
        data = {"found": True}
        if hits:
            data["element"] = element(*hits[0])
    return _answer(ours, json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _details(ours: Result, a: Args, page: Any) -> Result:
    known = {eid: node for eid, node, _ in elements(seen(page))}
    rows = ["id\ttext\tdesc"]
    for eid in a["ids"]:
        node = known.get(eid)
        rows.append(f"{eid}\tnot_found\tnot_found" if node is None else
                    f"{eid}\t{cell(node.text, None)}\t{cell(node.desc, None)}")
    return _answer(ours, "\n".join(rows))


def _visible(ours: Result, a: Args, page: Any) -> Result:
    eid = a["element_id"]
    if not any(e == eid for e, _, _ in elements(seen(page))):
        raise RefNotFound(f"Element '{eid}' not found: it is not on the screen now",
                          hint="take a new look with android_get_screen_state")
    return _answer(ours, f"Element '{eid}' is already visible")


def _element_named(a: Args) -> Args:
    """An element id, checked here and looked for on the screen the row reads."""
    _parse_id(_need(a, "element_id"))
    return {}


def _ids(a: Args) -> Args:
    ids = _need(a, "ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise InvalidArgument("ids is a non-empty array of element ids")
    for eid in ids:
        _parse_id(eid)
    return {}


def _field(ours: Result) -> str:
    return str(ours.get("field_text", ""))


def _logs(a: Args, ours: Result) -> dict[str, Any]:
    text = ours.get("log", "")
    return {"logs": text, "line_count": len(text.splitlines()),
            "truncated": bool(ours.get("truncated"))}


def _lines(a: Args, ours: Result) -> str:
    """Our numbered lines (``3: text``) as ARC numbers them (``3| text``), and where to
    read on."""
    out = []
    for line in str(ours.get("text", "")).split("\n"):
        if line:
            number, _, rest = line.partition(": ")
            out.append(f"{number}| {rest}")
    if ours.get("has_more"):
        out.append(f"--- More lines available. Use offset={ours.get('next_line')} to "
                   "continue reading. ---")
    return "\n".join(out)


def _modified(value: Any) -> int | None:
    """``ls``'s ``YYYY-MM-DD HH:MM`` (the device's local time) as epoch milliseconds."""
    try:
        return int(time.mktime(time.strptime(str(value), "%Y-%m-%d %H:%M")) * 1000)
    except (ValueError, OverflowError):
        return None


def _files(a: Args, ours: Result) -> dict[str, Any]:
    base = str(a.get("path", "")).strip("/")
    files = []
    for e in ours.get("entries", []):
        folder = e.get("type") == "directory"
        files.append({"name": e["name"], "path": f"{base}/{e['name']}" if base else e["name"],
                      "is_directory": folder, "size": e.get("size", 0),
                      "last_modified": _modified(e.get("modified")),
                      "mime_type": None if folder else mimetypes.guess_type(e["name"])[0]})
    return {"files": files, "total_count": ours.get("total", len(files)),
            "has_more": bool(ours.get("has_more"))}


def _places(a: Args, ours: Result) -> list[dict[str, Any]]:
    return [{"id": p["path"], "name": p.get("name", p["path"]), "path": p["path"],
             "description": p.get("kind", ""), "available_bytes": p.get("available_bytes"),
             "allow_read": True, "allow_write": bool(p.get("writable")),
             "allow_delete": bool(p.get("writable"))} for p in ours.get("locations", [])]


def _apps(a: Args, ours: Result) -> list[dict[str, Any]]:
    return [{"package_id": x["package"], "name": x.get("label") or x["package"],
             "version_name": x.get("version_name"), "version_code": x.get("version_code"),
             "is_system": bool(x.get("system"))} for x in ours.get("apps", [])]


def _idle(a: Args, ours: Result) -> dict[str, Any]:
    elapsed = ours.get("elapsed_ms")
    if ours.get("idle"):
        message = "UI is idle"
    else:
        message = (f"Operation timed out after {a['timeout']}ms waiting for UI idle. Retry "
                   "if the operation is long-running.")
    return {"message": message, "elapsedMs": elapsed, "similarity": ours.get("similarity")}


def _download(a: Args) -> Args:
    raise Unsupported("android_download_from_url: a phone reached over ADB alone has no "
                      "downloader to run (ARC downloads inside its own app)",
                      hint="download the file on the computer and copy it with the "
                           "push_file tool (files group; --files-dir)")


# -- the aliases --------------------------------------------------------------------------


def _arc(name: str, tool: str | Callable[[Args], str], allowed: Iterable[str],
         args: Callable[[Args], Args], result: Callable[..., Result] | None = None, *,
         screen: bool = False) -> Alias:
    return Alias(PREFIX + name, SYSTEM, tool, _known(name, allowed, args), result,
                 slugged=PREFIX, everywhere=True, page=screen)


def _none(a: Args) -> Args:
    return {}


_SPEED = ("typing_speed", "typing_speed_variance")
_FILE = ("location_id", "path")

ALIASES = (
    # screen introspection
    _arc("get_screen_state",
         lambda a: "annotated_screenshot" if a.get("include_screenshot") else "snapshot",
         ("include_screenshot",),
         lambda a: {"format": "jpeg", "max_side": 700, "quality": 80}
         if a.get("include_screenshot") else {},
         _screen_state, screen=True),
    # system actions
    _arc("press_back", "back", (), _none,
         _says(lambda a, r: "Back button press executed successfully")),
    _arc("press_home", "home", (), _none,
         _says(lambda a, r: "Home button press executed successfully")),
    _arc("press_recents", "recents", (), _none,
         _says(lambda a, r: "Recents button press executed successfully")),
    _arc("open_notifications", "open_notifications", (), _none,
         _says(lambda a, r: "Open notifications executed successfully")),
    _arc("open_quick_settings", "open_quick_settings", (), _none,
         _says(lambda a, r: "Open quick settings executed successfully")),
    _arc("get_device_logs", "logcat",
         ("last_lines", "since", "until", "tag", "level", "package_name"),
         lambda a: {"lines": _int(a, "last_lines", 100, 1, 1000),
                    "priority": a.get("level", "D"), "max_chars": 1_000_000,
                    **{ours: a[theirs] for theirs, ours in (
                        ("since", "since"), ("until", "until"), ("tag", "tag"),
                        ("package_name", "package")) if theirs in a}},
         _json(_logs)),
    # touch actions
    _arc("tap", "tap", ("x", "y"), _point,
         _says(lambda a, r: f"Tap executed at ({_num(a['x'])}, {_num(a['y'])})")),
    _arc("long_press", "long_press", ("x", "y", "duration"),
         lambda a: {**_point(a), "ms": _ms(a, "duration", 1000)},
         _says(lambda a, r: f"Long press executed at ({_num(a['x'])}, {_num(a['y'])}) for "
                            f"{a.get('duration', 1000)}ms")),
    _arc("double_tap", "double_tap", ("x", "y"), _point,
         _says(lambda a, r: f"Double tap executed at ({_num(a['x'])}, {_num(a['y'])})")),
    _arc("swipe", "swipe", ("x1", "y1", "x2", "y2", "duration"),
         lambda a: {k: _need(a, k) for k in ("x1", "y1", "x2", "y2")}
         | {"ms": _ms(a, "duration", 300)},
         _says(lambda a, r: f"Swipe executed from ({_num(a['x1'])}, {_num(a['y1'])}) to "
                            f"({_num(a['x2'])}, {_num(a['y2'])}) over "
                            f"{a.get('duration', 300)}ms")),
    _arc("scroll", "scroll", ("direction", "amount"), _scroll,
         _says(lambda a, r: f"Scroll {a['direction']} ({a.get('amount', 'medium')}) "
                            "executed")),
    # gestures
    _arc("pinch", "pinch", ("center_x", "center_y", "scale", "duration"),
         lambda a: {"x": _need(a, "center_x"), "y": _need(a, "center_y"),
                    "scale": _need(a, "scale"),
                    "ms": min(10_000, max(50, _ms(a, "duration", 300) or 300))},
         _says(lambda a, r: f"Pinch (zoom {'in' if a['scale'] > 1 else 'out'}) executed at "
                            f"({_num(a['center_x'])}, {_num(a['center_y'])}) with scale "
                            f"{float(a['scale'])} over {a.get('duration', 300)}ms")),
    _arc("custom_gesture", "gesture", ("paths",), lambda a: {"paths": _need(a, "paths")},
         _says(lambda a, r: f"Custom gesture executed with {len(a['paths'])} path(s), total "
                            f"{sum(len(p) for p in a['paths'])} point(s)")),
    # elements
    _arc("find_elements", "snapshot", ("by", "value", "exact_match"),
         _criterion, _found, screen=True),
    _arc("click_element", "tap", ("element_id",), lambda a: {"ref": _ref(a)},
         _says(lambda a, r: f"Click performed on element '{a['element_id']}'")),
    _arc("long_click_element", "long_press", ("element_id",), lambda a: {"ref": _ref(a)},
         _says(lambda a, r: f"Long-click performed on element '{a['element_id']}'")),
    _arc("scroll_to_element", "snapshot", ("element_id",),
         _element_named, _visible, screen=True),
    # text input
    _arc("type_append_text", "insert_text", ("element_id", "text", *_SPEED),
         _speed_checked(lambda a: {"ref": _ref(a), "text": _text_arg(a)}),
         _says(lambda a, r: f"Typed {len(a['text'])} characters at end of element "
                            f"'{a['element_id']}'.\nField content: {_field(r)}")),
    _arc("type_insert_text", "insert_text", ("element_id", "text", "offset", *_SPEED),
         _speed_checked(lambda a: {"ref": _ref(a), "text": _text_arg(a),
                                  "offset": _required_int(a, "offset", 0, 1_000_000)}),
         _says(lambda a, r: f"Typed {len(a['text'])} characters at offset {a['offset']} in "
                            f"element '{a['element_id']}'.\nField content: {_field(r)}")),
    _arc("type_replace_text", "replace_text", ("element_id", "search", "new_text", *_SPEED),
         _speed_checked(lambda a: {"ref": _ref(a), "search": _need(a, "search"),
                                  "text": _need(a, "new_text")}),
         _says(lambda a, r: f"Replaced {len(a['search'])} characters with "
                            f"{len(a['new_text'])} characters in element "
                            f"'{a['element_id']}'.\nField content: {_field(r)}")),
    _arc("type_clear_text", "type", ("element_id",),
         lambda a: {"ref": _ref(a), "text": "", "clear": True},
         _says(lambda a, r: f"Text cleared from element '{a['element_id']}'.\n"
                            "Field content: ")),
    _arc("press_key", "press", ("key",), _key,
         _says(lambda a, r: f"Key '{a['key']}' pressed successfully")),
    # utilities
    _arc("get_clipboard", "get_clipboard", (), _none,
         _json(lambda a, r: {"text": r.get("text") or None})),
    _arc("set_clipboard", "set_clipboard", ("text",), lambda a: {"text": _need(a, "text")},
         _says(lambda a, r: f"Clipboard set successfully ({len(a['text'])} characters)")),
    _arc("wait_for_element", "wait_for", ("by", "value", "timeout"),
         lambda a: {"selector": _selector(a),
                    "timeout": _required_int(a, "timeout", 1, 30_000) / 1000,
                    "error_on_timeout": False},
         _waited, screen=True),
    _arc("wait_for_idle", "wait_stable", ("timeout", "match_percentage"),
         lambda a: {"timeout": max(1.0, _required_int(a, "timeout", 1, 30_000) / 1000),
                    "match_percentage": _int(a, "match_percentage", 100, 0, 100),
                    "error_on_timeout": False},
         _json(_idle)),
    _arc("get_element_details", "snapshot", ("ids",), _ids, _details, screen=True),
    # files
    _arc("list_storage_locations", "storage_locations", (), _none, _json(_places)),
    _arc("list_files", "list_files", (*_FILE, "offset", "limit"),
         lambda a: {"path": _location(a), "offset": _int(a, "offset", 0, 0, 1_000_000),
                    "limit": _int(a, "limit", 200, 1, 200)},
         _json(_files)),
    _arc("read_file", "read_file", (*_FILE, "offset", "limit"),
         lambda a: {"path": _file(a),
                    "start_line": _int(a, "offset", 1, 1, 10_000_000),
                    "line_count": _int(a, "limit", 200, 1, 200)},
         _says(_lines)),
    _arc("write_file", "write_file", (*_FILE, "content"),
         lambda a: {"path": _file(a),
                    "text": _need(a, "content")},
         _says(lambda a, r: f"File written successfully: {a['path']}")),
    _arc("append_file", "append_file", (*_FILE, "content"),
         lambda a: {"path": _file(a),
                    "text": _need(a, "content")},
         _says(lambda a, r: f"Content appended successfully to: {a['path']}")),
    _arc("file_replace", "replace_in_file",
         (*_FILE, "old_string", "new_string", "replace_all"),
         lambda a: {"path": _file(a),
                    "old_text": _need(a, "old_string"), "new_text": _need(a, "new_string"),
                    "replace_all": bool(a.get("replace_all", False))},
         _says(lambda a, r: f"Replaced {r.get('replaced')} occurrence(s) in: {a['path']}")),
    _arc("download_from_url", "write_file", (*_FILE, "url"), _download),
    _arc("delete_file", "delete_file", _FILE,
         lambda a: {"path": _file(a)},
         _says(lambda a, r: f"File deleted successfully: {a['path']}")),
    # apps
    _arc("open_app", "launch", ("package_id",), lambda a: {"package": _need(a, "package_id")},
         _says(lambda a, r: f"App opened successfully: {a['package_id']}")),
    _arc("list_apps", "list_apps", ("filter", "name_query"),
         lambda a: {"kind": a.get("filter", "all"), "labels": True, "versions": True,
                    **({"name": a["name_query"]} if a.get("name_query") else {})},
         _json(_apps)),
    _arc("close_app", "stop_app", ("package_id",), lambda a: {"package": _need(a, "package_id")},
         _says(lambda a, r: f"App closed successfully: {a['package_id']}")),
)
