"""What the session verbs print and save: text for people and agents, JSON for programs.

* ``.baremobile/page-<n>.yml`` — every snapshot a command shows, and
  ``.baremobile/screenshot-<n>.jpg`` — every screenshot (``<n>`` counts up per directory;
  ``.png`` / ``.webp`` when the call asked for that format);
  agents read them with their file tools;
* errors are one line on stderr, ``error [CODE]: message — hint``; with ``--json`` the
  error object goes to stdout instead;
* the exit status says the error's family (:data:`EXIT_CODES`), so a shell script can
  branch without parsing;
* long transfers draw a progress line on stderr — only when stderr is a terminal.

Imports nothing beyond the standard library (the CLI's fast path).
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from collections.abc import Mapping

from baremobile.errors import vocabulary
from baremobile.safetext import clean_data, escape_desc, escape_text, problem

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["EXIT_CODES", "NO_DEVICES_HINT", "OUT_DIR", "Progress", "cli_words", "devices_text",
           "exit_code", "print_error", "iso_time", "print_result", "save_next", "session_text"]

OUT_DIR = ".baremobile"

_CLI_WORDS: dict[str, str] = {}


def cli_words() -> dict[str, str]:
    """How error hints name other verbs when the CLI shows them: the session mode's commands
    — the ``cli`` door of :data:`baremobile.errors.HINT_VERBS`, and each tool as the one
    renderer words it (``commands.json``). The daemon renders its answers to the CLI in the
    same words (the CLI's requests say ``"door": "cli"``)."""
    if not _CLI_WORDS:
        from baremobile.cli.commands import hint_words

        _CLI_WORDS.update(vocabulary("cli"))
        _CLI_WORDS.update(hint_words())
    return dict(_CLI_WORDS)

#: exit status per error category (0: success)
EXIT_CODES: dict[str, int] = {
    "INTERNAL_ERROR": 1,
    "INVALID_ARGUMENT": 2,  # also argparse's usage errors
    "REF_NOT_FOUND": 3,
    "DEVICE_UNAVAILABLE": 4,
    "DEVICE_DISCONNECTED": 4,
    "SESSION_CLOSED": 4,
    "TIMEOUT": 5,
    "CANCELLED": 5,
    "BUSY": 6,
    "COMMAND_FAILED": 7,
    "DUMP_FAILED": 7,
    "WEB_ERROR": 7,  # a page could not be read or driven (a script threw)
    "MISSING_DEPENDENCY": 8,
    "DAEMON": 9,
    "NOT_ACTIONABLE": 10,  # disabled, takes no text, typed text not held
}


def exit_code(category: str) -> int:
    return EXIT_CODES.get(category, 1)


def save_next(kind: str, suffix: str, data: bytes, directory: str = OUT_DIR) -> str:
    """Write ``data`` to ``<directory>/<kind>-<n><suffix>`` with the next free ``n``
    (an OS error — a read-only or full disk — is a typed error)."""
    try:
        return _save_next(kind, suffix, data, directory)
    except OSError as exc:
        from baremobile.localfiles import os_error

        raise os_error(exc, f"{directory}/{kind}-N{suffix}") from None


def _save_next(kind: str, suffix: str, data: bytes, directory: str) -> str:
    os.makedirs(directory, exist_ok=True)
    taken = 0
    prefix = f"{kind}-"
    for name in os.listdir(directory):
        if name.startswith(prefix) and name.endswith(suffix):
            number = name[len(prefix):len(name) - len(suffix)]
            if number.isdigit():
                taken = max(taken, int(number))
    n = taken + 1
    while True:  # another process may take the same number: O_EXCL decides
        path = os.path.join(directory, f"{kind}-{n}{suffix}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            n += 1
            continue
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return path


def _say(text: str, stream: Any = None) -> None:
    stream = stream or sys.stdout
    stream.write(text if text.endswith("\n") else text + "\n")


def print_error(error: Mapping[str, Any], *, as_json: bool) -> int:
    """Show an error (``{code, message, hint, category}``); returns the exit status."""
    error = clean_data(dict(error))  # an error of this process may quote anything
    code = str(error.get("code") or "ERROR")
    category = str(error.get("category") or code)
    if as_json:
        _say(json.dumps({"ok": False, "error": dict(error)}, ensure_ascii=False))
    else:
        message = str(error.get("message") or "").replace("\n", " ")
        hint = str(error.get("hint") or "").replace("\n", " ")
        _say(f"error [{code}]: {message}" + (f" — {hint}" if hint else ""), sys.stderr)
    return exit_code(category)


#: result keys shown on their own (or too plain to repeat) rather than as JSON facts
_SHOWN_APART = frozenset({"ok", "tool", "device", "done", "image", "snapshot", "log", "text",
                          "base64", "matches", "count", "package", "refs", "truncated"})


def _snapshot_text(result: Mapping[str, Any]) -> str | None:
    text = result.get("snapshot")
    return text if isinstance(text, str) else None


def _node_line(node: Mapping[str, Any]) -> str:
    """One match, one line, in the snapshot's grammar: text and desc escaped as the snapshot
    escapes them (a newline in a desc cannot print a line that looks like another match)."""
    ref = node.get("ref")
    inside = node.get("inside_ref")
    where = f"[ref={_number(ref)}]" if ref is not None else \
        f"(inside ref {_number(inside)})" if inside else "(no ref)"
    parts = [where, escape_text(str(node.get("role", "")))]
    if node.get("text"):
        parts.append(f'"{escape_text(str(node["text"]))}"')
    if node.get("desc"):
        parts.append(f"({escape_desc(str(node['desc']))})")
    states = node.get("states")
    if isinstance(states, list) and states:
        parts.append(" ".join(f"[{escape_desc(str(s))}]" for s in states))
    return " ".join(parts)


def _number(value: Any) -> str:
    return str(value) if isinstance(value, int) else escape_text(str(value))


def print_result(result: Mapping[str, Any], *, as_json: bool, output: str | None = None) -> int:
    """Show a tool's result; save its snapshot / image under ``.baremobile/`` (or ``output``
    for an image). With ``as_json`` the result goes out whole, plus ``"saved"`` paths.
    Returns the exit status: 0, or — for a result that could not be written
    (:func:`baremobile.safetext.problem`) — an ``INTERNAL_ERROR`` shown instead."""
    why = problem(dict(result))
    if why is not None:
        return print_error({"code": "INTERNAL_ERROR", "category": "INTERNAL_ERROR",
                            "message": f"the answer could not be printed: {why}",
                            "hint": "this is a bug in baremobile; take a snapshot and try "
                                    "another way"}, as_json=as_json)
    _print_result(result, as_json=as_json, output=output)
    return 0


def _print_result(result: Mapping[str, Any], *, as_json: bool, output: str | None) -> None:
    saved: dict[str, str] = {}
    text = _snapshot_text(result)
    if text is not None:
        saved["snapshot"] = save_next("page", ".yml", text.encode("utf-8"))
    image = result.get("image")
    if isinstance(image, Mapping) and isinstance(image.get("data"), str):
        png = base64.b64decode(image["data"])
        if output:
            from baremobile.localfiles import write_atomically

            write_atomically(output, png, overwrite=True, what=f"the screenshot {output!r}")
            saved["image"] = output
        else:
            ext = {"image/jpeg": ".jpg", "image/webp": ".webp"}.get(
                str(image.get("mime_type")), ".png")
            saved["image"] = save_next("screenshot", ext, png)
    if as_json:
        out = {k: v for k, v in result.items() if k != "image"}
        if isinstance(image, Mapping):
            out["image"] = {k: v for k, v in image.items() if k != "data"}
        if saved:
            out["saved"] = saved
        _say(json.dumps(out, ensure_ascii=False))
        return
    if result.get("done"):
        _say(str(result["done"]))
    facts = {k: v for k, v in result.items() if k not in _SHOWN_APART}
    if facts:  # what else the tool answered (device_info's info, list_apps' packages …)
        _say(json.dumps(facts, ensure_ascii=False, separators=(", ", ": ")))
    if "image" in saved:
        _say(saved["image"])
    if isinstance(result.get("matches"), list):
        for node in result["matches"]:
            _say(_node_line(node))
        _say(f"{result.get('count', len(result['matches']))} match(es)")
    for key in ("log", "text", "base64"):
        if isinstance(result.get(key), str):
            _say(result[key])
    if text is not None:
        _say(text)
        _say(f"(saved {saved['snapshot']})", sys.stderr)


#: what to do when no device is there (``devices`` with an empty pool or no discovery)
NO_DEVICES_HINT = ("connect a phone with USB debugging on, start an emulator, or run "
                   "'baremobile virtual' in another terminal; or open a fresh virtual phone "
                   "for this session: baremobile open -d virtual:new")


def iso_time(ms: Any) -> str:
    """An epoch-milliseconds time as ISO 8601, in this computer's time zone."""
    if not isinstance(ms, (int, float)):
        return "-"
    from datetime import datetime

    return datetime.fromtimestamp(ms / 1000).astimezone().isoformat(timespec="seconds")


def _word(value: Any) -> str:
    """A value as a person reads it: JSON's words (true, null), plain strings."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def session_text(info: Mapping[str, Any]) -> str:
    """``baremobile session``: a daemon session's state, for people."""
    device = info.get("assignedDevice")
    lines = [f"session {info.get('sessionId')}: "
             + (f"device {device}" if device else "no device yet (baremobile open -d DEVICE)")
             + (f" (serial {info['serial']})" if info.get("serial") else "")]
    others = [d for d in info.get("devices") or () if d != device]
    if others:
        lines.append(f"  also holds: {', '.join(others)}")
    refs = info.get("refs") or 0
    lines.append(f"  last snapshot: {refs} refs" + (f", app {info['package']}"
                                                    if info.get("package") else "")
                 if refs else "  last snapshot: none yet (baremobile snapshot)")
    lines.append(f"  calls: {info.get('calls', 0)} ({info.get('inFlight', 0)} running); "
                 f"created {iso_time(info.get('createdAt'))}, last used "
                 f"{iso_time(info.get('lastUsedAt'))}")
    settings = info.get("settings") or {}
    if settings:
        lines.append("  settings: " + ", ".join(f"{k}={_word(v)}" for k, v in settings.items()
                                                 if k != "device"))
    return "\n".join(lines)


def devices_text(info: Mapping[str, Any]) -> str:
    """``baremobile devices``: the daemon's pool, for people (a hint when it is empty)."""
    devices = info.get("devices") or []
    if not devices:
        return f"the pool has no devices — {NO_DEVICES_HINT}"
    lines = [f"{d['device']:32} {d['state']:9} {d.get('kind', ''):9}"
             + (f" via {d['via']}" if d.get("via") else "")
             + (f"  model:{d['model']}" if d.get("model") else "")
             + (f"  session:{d['session']}" if d.get("session") else "")
             + (f"  {d['error']['code']}: {d['error'].get('message', '')}"
                if d.get("error") else "") for d in devices]
    lines.append(f"{info.get('availableDevices', 0)} idle, "
                 f"{info.get('assignedDevices', 0)} assigned, "
                 f"{info.get('errorDevices', 0)} in error")
    return "\n".join(lines)


class Progress:
    """A transfer's progress line on stderr, drawn only when stderr is a terminal."""

    def __init__(self, what: str, stream: Any = None) -> None:
        self.what = what
        self.stream = stream or sys.stderr
        self.enabled = _isatty(self.stream)
        self._last = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and (total is None or done < total):
            return
        self._last = now
        if total:
            line = f"{self.what}: {_size(done)} / {_size(total)} ({done * 100 // total}%)"
        else:
            line = f"{self.what}: {_size(done)}"
        self.stream.write("\r" + line.ljust(60))
        self.stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1024 or unit == "MB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover
