"""The tools' commands, made from the tool table alone (its compact copy, ``commands.json``).

Every row of :mod:`baremobile.tools.spec` is a command: its name is the row's ``command``
(``list_apps`` → ``list-apps``; ``wait_for_text`` → ``wait-for``), its help the row's
description, its positional words the row's ``cli_args`` (``tap [REF]``, ``type [REF]
TEXT``, ``push LOCAL_PATH PATH``), and every parameter is a flag as well (``--diff``,
``--max-chars``, ``--path``), typed and bounded as the schema says. Around that, a few
rules that hold for every command:

* a ``selector`` parameter is the flags ``--text``, ``--text-contains``, ``--desc``,
  ``--desc-contains``, ``--id``, ``--role``, ``--index`` (or ``--selector JSON``); where a
  parameter has a selector field's name (``type``'s text) it is a positional word only;
* ``x`` and ``y`` can be given together as ``--at X Y``; ``device`` is ``-d/--device``;
* a tool that answers with an image takes ``-o/--output PATH``;
* a file of this computer (the row's ``host_paths``) is named as a path from here: the
  daemon is handed its folder as the one files directory of that call; an optional one is a
  destination (``pull``): it defaults to the device file's name, here, and an existing
  folder gets the file inside it.

This module is on the CLI's fast path: it imports only the standard library, and builds
only the parser of the command being run (``baremobile --help`` builds them all).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from baremobile.errors import InvalidArgument
from baremobile.hints import cli_flag

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["SELECTOR_FIELDS", "add_tool_command", "by_command", "by_name", "device_flag",
           "suggest", "tool_request", "tools"]

TABLE = Path(__file__).with_name("commands.json")
#: the selector's fields as flags (--text, --class-name …; clawperator's camelCase aliases
#: are for JSON callers, not flags)
SELECTOR_FIELDS = ("text", "text_contains", "desc", "desc_contains", "id", "role", "class_name",
                   "index")

_table: dict[str, Any] | None = None


def _read() -> dict[str, Any]:
    global _table
    if _table is None:
        _table = json.loads(TABLE.read_text(encoding="utf-8"))
    return _table


def tools() -> list[dict[str, Any]]:
    """Every tool as the CLI knows it (the table's order)."""
    return _read()["tools"]


def hint_words() -> dict[str, str]:
    """How a hint names each tool on the command line (``baremobile list-apps``)."""
    return dict(_read()["hint_words"])


def by_command() -> dict[str, dict[str, Any]]:
    return {t["command"]: t for t in tools()}


def by_name() -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in tools()}


def suggest(word: str, known: list[str]) -> str | None:
    """The known command closest to a mistyped ``word`` (None: nothing is close)."""
    from baremobile.suggest import closest

    return closest(word, known)


# ---------------------------------------------------------------------------------------
# the parser of one command
# ---------------------------------------------------------------------------------------


class _Formatter(argparse.HelpFormatter):
    """Wraps the description's prose, keeps the indented lines (the positional words) as
    written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        fill = super()._fill_text
        return "\n".join(textwrap.fill(line, width, subsequent_indent=" " * 15)
                         if line.startswith("  ") else fill(line, width, indent)
                         for line in text.split("\n"))


def _slot_name(slot: str) -> str:
    return slot.rstrip("?").partition(".")[0]


def _metavar(slot: str) -> str:
    word = slot.rstrip("?")
    word = word.partition(".")[2] if "." in word else word
    word = "TEXT" if word == "text_contains" else word.upper()
    return f"[{word}]" if slot.endswith("?") else word


def _kinds(info: dict[str, Any]) -> list[str]:
    return list(info.get("type") or ["string"])


def _converter(name: str, info: dict[str, Any]) -> Any:
    """An argparse ``type`` for parameter ``name``: the schema's type and bounds."""
    kinds = _kinds(info)
    low, high = info.get("minimum", info.get("exclusiveMinimum")), info.get("maximum")

    def bounded(value: float) -> float:
        if low is not None and (value < low or ("exclusiveMinimum" in info and value == low)):
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value:g}"
                                             if "exclusiveMinimum" not in info else
                                             f"must be more than {low}, not {value:g}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high}, not {value:g}")
        return value

    def convert(text: str) -> Any:
        if "object" in kinds or "array" in kinds:
            try:
                return json.loads(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{text!r} is not JSON") from None
        if kinds == ["integer"]:
            try:
                return bounded(int(text))
            except ValueError:
                raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if kinds == ["number"]:
            try:
                return bounded(float(text))
            except ValueError:
                raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if "boolean" in kinds and text.lower() in ("true", "false", "yes", "no"):
            return text.lower() in ("true", "yes")
        if "integer" in kinds and text.lstrip("-").isdigit():
            return int(text)  # a keycode number
        if "number" in kinds:
            try:
                return float(text)
            except ValueError:
                pass
        return text

    convert.__name__ = name  # argparse names the type in its messages
    return convert


def _help(info: dict[str, Any], positional: bool) -> str:
    text = info.get("help", "").replace("%", "%%")
    if info.get("required") and not positional:
        text += " (required)"
    elif positional:
        text += " (or the positional word)"
    return text


def _describe_words(tool: dict[str, Any]) -> str:
    lines = []
    for slot in tool["args"]:
        name = _slot_name(slot)
        info = tool["params"][name]
        if "." in slot:
            field = slot.rstrip("?").partition(".")[2]
            what = info.get("fields", {}).get(field, field)
        else:
            what = info.get("help", "")
        lines.append(f"  {_metavar(slot).strip('[]'):12} {what}")
    return "\n".join(lines)


def add_tool_command(sub: Any, common: argparse.ArgumentParser, tool: dict[str, Any],
                     **defaults: Any) -> argparse.ArgumentParser:
    """Add ``tool``'s command to the sub-parsers ``sub``; ``defaults`` go on its namespace."""
    words = " ".join(_metavar(s) for s in tool["args"])
    description = tool["description"]
    if tool["args"]:
        description += "\n\npositional words:\n" + _describe_words(tool)
    p = sub.add_parser(tool["command"], help=tool["summary"], description=description,
                       parents=[common], formatter_class=_Formatter,
                       usage=f"baremobile {tool['command']} [options]"
                             + (f" {words}" if words else ""))
    p.set_defaults(words=[], tool=tool["name"], parser=p, **defaults)
    if tool["args"]:
        p.add_argument("words", nargs="*", help=argparse.SUPPRESS)
    params = tool["params"]
    positional = {_slot_name(s) for s in tool["args"] if "." not in s}
    fields = params.get("selector", {}).get("fields", {})
    if "device" in params or tool["device"]:
        device_flag(p, (params.get("device") or {}).get("help"))
    for name, info in params.items():
        if name in ("device", "selector") or name in fields:
            continue
        flag = cli_flag(name)
        kinds = _kinds(info)
        if kinds == ["boolean"]:
            p.add_argument(flag, dest="p_" + name, action=argparse.BooleanOptionalAction,
                           default=None, help=_help(info, False))
            continue
        kw: dict[str, Any] = {"metavar": name.upper(), "type": _converter(flag, info)}
        if "enum" in info and all(isinstance(v, str) for v in info["enum"]):
            kw = {"choices": info["enum"]}
        if "object" in kinds or "array" in kinds:
            kw["metavar"] = "JSON"
        p.add_argument(flag, dest="p_" + name, default=None,
                       help=_help(info, name in positional), **kw)
    if "x" in params and "y" in params:
        p.add_argument("--at", nargs=2, type=float, metavar=("X", "Y"), default=None,
                       help="a screen point, instead of --x and --y")
    if fields:
        g = p.add_argument_group("or pick the element by what it shows")
        for name, what in fields.items():
            g.add_argument(cli_flag(name), dest="sel_" + name, default=None,
                           type=int if name == "index" else str,
                           metavar="N" if name == "index" else "TEXT", help=what)
        g.add_argument("--selector", dest="p_selector", type=_converter("--selector", {
            "type": ["object"]}), default=None, metavar="JSON",
                       help="the whole selector as JSON, e.g. '{\"text\": \"OK\"}'")
    if tool["image"]:
        p.add_argument("-o", "--output", default=None, metavar="PATH",
                       help="save the image here (default: .baremobile/screenshot-N.png)")
    return p


# ---------------------------------------------------------------------------------------
# a command line → the tool's arguments
# ---------------------------------------------------------------------------------------


def _assign(parser: argparse.ArgumentParser, slots: list[str], words: list[str]
            ) -> dict[str, str]:
    """The positional words on their slots (usage errors name the command's usage)."""
    out: dict[str, str] = {}
    i = 0
    for k, slot in enumerate(slots):
        needed_after = sum(1 for s in slots[k + 1:] if not s.endswith("?"))
        left = len(words) - i
        if slot.endswith("?"):
            if left <= needed_after:
                continue
            if slot == "ref?" and not words[i].isdigit():
                parser.error(f"{words[i]!r} is not a ref (the N of [ref=N] in the snapshot); "
                             "quote text that has spaces, or pick the element with --text, "
                             "--desc, --id")
        elif left == 0:
            missing = " ".join(_metavar(s) for s in slots[k:] if not s.endswith("?"))
            parser.error(f"the following arguments are required: {missing}")
        out[slot] = words[i]
        i += 1
    if i < len(words):
        extra = " ".join(words[i:])
        parser.error(f"unrecognized arguments: {extra} (quote text that has spaces)")
    return out


def device_flag(p: argparse.ArgumentParser, help: str | None = None) -> None:  # noqa: A002
    """``-d/--device`` on a command (``help``: the tool's own words for it)."""
    p.add_argument("-d", "--device", default=argparse.SUPPRESS, metavar="DEVICE",
                   help=help or "the device (serial, host:port, virtual, virtual:new …); "
                                "default: the session's")


def _host_file(path: str) -> tuple[str, str]:
    """(directory, name) of a file of this computer: the one directory the daemon's host-file
    tools may use for this call is the file's own."""
    full = os.path.abspath(os.path.expanduser(path))
    return os.path.dirname(full), os.path.basename(full)


def tool_request(args: argparse.Namespace) -> tuple[str, dict[str, Any], str | None]:
    """(tool, arguments, files directory) of a tool's command line."""
    tool = by_name()[args.tool]
    params = tool["params"]
    parser = args.parser
    a: dict[str, Any] = {}
    for name in params:
        value = getattr(args, "p_" + name, None)
        if value is not None:
            a[name] = value
    given = {s for s in tool["args"] if "." not in s and _slot_name(s) in a}
    slots = [s for s in tool["args"] if s not in given]
    selector: dict[str, Any] = {}
    for slot, word in _assign(parser, slots, list(args.words)).items():
        name = _slot_name(slot)
        if slot == "ref?":
            a["ref"] = int(word)
        elif "." in slot:
            selector[slot.rstrip("?").partition(".")[2]] = word
        else:
            try:
                a[name] = _converter(_metavar(slot), params[name])(word)
            except argparse.ArgumentTypeError as exc:
                parser.error(f"argument {_metavar(slot)}: {exc}")
    for field in SELECTOR_FIELDS:
        value = getattr(args, "sel_" + field, None)
        if value is not None:
            selector[field] = value
    if selector:
        if not isinstance(a.get("selector", {}), dict):
            parser.error("--selector is a JSON object")
        a["selector"] = {**a.get("selector", {}), **selector}
    if getattr(args, "at", None):
        a["x"], a["y"] = args.at
    if tool["image"] and "format" in params:  # a person's screenshot: full size, PNG
        out = (getattr(args, "output", None) or "").lower()  # unless -o names a format
        named = next((f for ext, f in ((".jpg", "jpeg"), (".jpeg", "jpeg"),
                                       (".webp", "webp"), (".png", "png"))
                      if out.endswith(ext)), None)
        a.setdefault("format", named or "png")
        if "max_side" in params:
            a.setdefault("max_side", params["max_side"].get("maximum", 10_000))
    files_dir = None
    for name in tool["host_paths"]:
        destination = f"{name}?" in tool["args"]
        if name not in a and destination and isinstance(a.get("path"), str):
            a[name] = os.path.basename(a["path"].rstrip("/")) or "pulled"
        if isinstance(a.get(name), str):
            local = a[name]
            if destination and os.path.isdir(local) and isinstance(a.get("path"), str):
                local = os.path.join(local, os.path.basename(a["path"].rstrip("/")))
            files_dir, a[name] = _host_file(local)
    return tool["name"], a, files_dir


def call_request(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """``baremobile call TOOL JSON``: any tool with raw arguments."""
    try:
        a = json.loads(args.arguments)
    except ValueError as exc:
        raise InvalidArgument(f"call {args.tool_name}: the arguments are not JSON ({exc})",
                              hint="""e.g. baremobile call logcat '{"lines": 50}'""") from None
    if not isinstance(a, dict):
        raise InvalidArgument("call: the arguments are a JSON object",
                              hint="""e.g. baremobile call logcat '{"lines": 50}'""")
    return args.tool_name.replace("-", "_"), a
