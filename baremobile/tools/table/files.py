"""Rows of the file verbs (``page/files.py``): listing, reading, writing and copying device
files, and copying between the device and the operator's files directory."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Iterator
from typing import Any

from baremobile.android.shell_words import absolute_path
from baremobile.device.files import MAX_READ, FilePart
from baremobile.errors import CommandFailed, InvalidArgument
from baremobile.page import Page
from baremobile.timeouts import FILE_S, TRANSFER_S
from baremobile.tools import hostfiles
from baremobile.tools.params import PARAMS
from baremobile.tools.row import Args, Ctx, ToolSpec

__all__ = ["ROWS", "device_path_hint", "file_part_result"]


@contextlib.contextmanager
def device_path_hint() -> Iterator[None]:
    """A device's refusal of a path (sync FAIL: no such file, read-only) says what to do."""
    try:
        yield
    except CommandFailed as exc:
        if not exc.hint:
            exc.hint = "check the device path: list its folder ({list_files})"
        raise


def _utf8(data: bytes, cut: bool) -> str | None:
    """``data`` as UTF-8 (when ``cut``, a character split at the end is dropped); None if
    it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut and exc.reason == "unexpected end of data" and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8", "strict")
        return None


def file_part_result(part: FilePart) -> dict[str, Any]:
    """What ``read_file`` answers for bytes of a device file: text when they are UTF-8 (a
    character cut at the end is left for the next read), else base64; where to read on."""
    path, offset, data, size, more = part.path, part.offset, part.data, part.size, part.more
    text = _utf8(data, more)
    out: dict[str, Any] = {"path": path, "offset": offset}
    if text is not None:
        out["encoding"] = "utf-8"
        out["text"] = text
        got = len(text.encode("utf-8"))
    else:
        out["encoding"] = "base64"
        out["base64"] = base64.b64encode(data).decode("ascii")
        got = len(data)
    end = offset + got
    # stat's size, unless the file is a virtual one (/proc) that reports 0 but has content
    out["size"] = size if size >= end or not got else None
    if more:
        out["truncated"] = True
        out["next_offset"] = end
        out["note"] = (f"cut: bytes {offset}–{end} of {size if out['size'] else 'more'}"
                       f" — read on with offset={end}, or pass a larger max_bytes")
    elif offset and not got and size and offset >= size:
        out["note"] = f"offset {offset} is past the end of the file ({size} bytes)"
    return out


def _read_lines(ctx: Ctx, a: Args) -> dict[str, Any]:
    got = ctx.page.read_lines(a["path"], start=a.get("start_line", 1),
                              count=a.get("line_count", 200))
    first = got["start"]
    numbered = "".join(f"{first + i}: {line}\n" for i, line in enumerate(got["lines"]))
    out = {"path": got["path"], "start_line": first, "lines": len(got["lines"]),
           "text": numbered, "has_more": got["has_more"]}
    if got["has_more"]:
        out["next_line"] = got["next_line"]
    if got.get("cut"):  # one line longer than a read returns: its first part
        out.update(cut=True, next_offset=got["next_offset"], note=f"line {first} is cut: "
                   "read the rest by bytes from next_offset (offset, max_bytes)")
    return out


def _read_file(ctx: Ctx, a: Args) -> dict[str, Any]:
    absolute_path(a["path"])
    if "start_line" in a or "line_count" in a:
        if "offset" in a or "max_bytes" in a:
            raise InvalidArgument("read by lines (start_line, line_count) or by bytes "
                                  "(offset, max_bytes), not both")
        return _read_lines(ctx, a)
    part = ctx.page.read_file(a["path"], offset=a.get("offset", 0),
                              max_bytes=a.get("max_bytes", 20_000))
    return file_part_result(part)


def _write_file(ctx: Ctx, a: Args) -> dict[str, Any]:
    data = a["text"].encode("utf-8")
    with device_path_hint():
        ctx.page.push(data, absolute_path(a["path"]))
    return {"done": f"wrote {len(data)} bytes to {a['path']}"}


def _push_file(ctx: Ctx, a: Args) -> dict[str, Any]:
    shown, data = hostfiles.read_host_file(ctx.files_dir, a["local_path"])
    with device_path_hint():
        ctx.page.push(data, absolute_path(a["path"]))
    return {"done": f"copied {shown} to {a['path']} ({len(data)} bytes)"}


def _pull_file(ctx: Ctx, a: Args) -> dict[str, Any]:
    path = absolute_path(a["path"])
    page = ctx.page

    def fill(f: Any) -> int:
        with device_path_hint():
            return int(page.pull_into(path, f))

    shown, size = hostfiles.pull_to_host_file(ctx.files_dir, a["local_path"], fill,
                                              overwrite=a.get("overwrite", False))
    return {"done": f"copied {a['path']} to {shown} ({size} bytes)"}


def _list_files(ctx: Ctx, a: Args) -> dict[str, Any]:
    return ctx.page.list_files(a["path"], offset=a.get("offset", 0), limit=a.get("limit", 200))


def _delete_file(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.delete_file(a["path"], recursive=a.get("recursive", False))
    return {"done": f"deleted {a['path']}"}


def _append_file(ctx: Ctx, a: Args) -> dict[str, Any]:
    size = ctx.page.append_file(a["path"], a["text"])
    return {"done": f"appended {len(a['text'].encode('utf-8'))} bytes to {a['path']}",
            "size": size}


def _replace_in_file(ctx: Ctx, a: Args) -> dict[str, Any]:
    path = absolute_path(a["path"])
    with device_path_hint():
        n = ctx.page.replace_in_file(path, a["old_text"], a["new_text"],
                                     replace_all=a.get("replace_all", False))
    return {"done": f"replaced {n} occurrence{'s' if n != 1 else ''} in {path}",
            "replaced": n}


def _storage_locations(ctx: Ctx, a: Args) -> dict[str, Any]:
    return {"locations": ctx.page.storage_locations()}


_LOCAL = {"type": "string", "minLength": 1, "description": "path in the files directory"}

ROWS = (
    ToolSpec(
        "list_files",
        "List a device folder: name, type, size, time; folders first, in pages.",
        {"path": PARAMS["path"],
         "offset": {"type": "integer", "minimum": 0},
         "limit": {"type": "integer", "minimum": 1, "maximum": 1000,
                   "description": "default 200"}},
        _list_files, verbs=(Page.list_files,), required=("path",), group="files",
        read_only=True,
        returns="'entries' [{name, type, size, modified, mode}], 'total', 'has_more'.",
        cli_args=("path",),
    ),
    ToolSpec(
        "delete_file", "Delete a device file (a folder only with recursive).",
        {"path": PARAMS["path"], "recursive": {"type": "boolean"}},
        _delete_file, verbs=(Page.delete_file,), required=("path",), group="files",
        destructive=True,
        cli_args=("path",),
    ),
    ToolSpec(
        "append_file", "Add text at the end of a device file (created if missing).",
        {"path": PARAMS["path"], "text": PARAMS["text"]},
        _append_file, verbs=(Page.append_file,), passes={"data": "text"},
        required=("path", "text"), group="files", destructive=True,
        returns="the new 'size'.",
        cli_args=("path", "text"),
    ),
    ToolSpec(
        "read_file",
        "Read a device file, by bytes (offset, max_bytes) or as numbered lines (start_line, "
        "line_count).",
        {"path": PARAMS["path"],
         "max_bytes": {"type": "integer", "minimum": 1, "maximum": MAX_READ,
                       "description": "default 20000"},
         "offset": {"type": "integer", "minimum": 0},
         "start_line": {"type": "integer", "minimum": 1},
         "line_count": {"type": "integer", "minimum": 1, "maximum": 10_000,
                        "description": "default 200"}},
        _read_file, verbs=(Page.read_file, Page.read_lines), required=("path",),
        group="files", read_only=True,
        returns="'text' (UTF-8) or 'base64', 'size'; when cut 'next_offset' (or "
                "'next_line').",
        floor=FILE_S,
        cli_args=("path",),
    ),
    ToolSpec(
        "replace_in_file",
        "Replace old_text with new_text in a device text file: the first one, or all.",
        {"path": PARAMS["path"],
         "old_text": {"type": "string", "minLength": 1},
         "new_text": {"type": "string"},
         "replace_all": {"type": "boolean"}},
        _replace_in_file, verbs=(Page.replace_in_file,),
        passes={"old": "old_text", "new": "new_text"},
        required=("path", "old_text", "new_text"), group="files", destructive=True,
        returns="how many were 'replaced'.", floor=FILE_S,
    ),
    ToolSpec(
        "storage_locations",
        "Where files can go: shared storage, removable volumes, /data/local/tmp, with free "
        "space.",
        {}, _storage_locations, verbs=(Page.storage_locations,), group="files",
        read_only=True,
        returns="'locations' [{path, name, kind, available_bytes, total_bytes, writable}].",
    ),
    ToolSpec(
        "write_file", "Write text to a device file, replacing it.",
        {"path": PARAMS["path"], "text": PARAMS["text"]},
        _write_file, verbs=(Page.push,), passes={"data": "text", "device_path": "path"},
        required=("path", "text"), group="files", destructive=True,
        cli_args=("path", "text"),
    ),
    ToolSpec(
        "push_file",
        "Copy a file of the operator's files directory to the device (refused if none is "
        "set).",
        {"local_path": _LOCAL, "path": PARAMS["path"]},
        _push_file, verbs=(Page.push,), passes={"data": None, "device_path": "path"},
        required=("local_path", "path"), group="files", destructive=True,
        host_paths=("local_path",),
        floor=TRANSFER_S,
        cli="push", cli_args=("local_path", "path"),
    ),
    ToolSpec(
        "pull_file",
        "Copy a device file into the operator's files directory (refused if none is set); "
        "an existing file stays unless overwrite.",
        {"path": PARAMS["path"], "local_path": _LOCAL, "overwrite": {"type": "boolean"}},
        _pull_file, verbs=(Page.pull_into,), required=("path", "local_path"),
        group="files", destructive=True, host_paths=("local_path",),
        floor=TRANSFER_S,
        cli="pull", cli_args=("path", "local_path?"),
    ),
)
