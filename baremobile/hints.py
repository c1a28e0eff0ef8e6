"""How a hint names what it points to, in each front door's words.

A hint that points to another verb names it with a ``{placeholder}`` (``"take a new
snapshot ({snapshot})"``), and whoever shows the error fills it in from its own vocabulary:
``error.hint`` uses the Python API's (``page.snapshot()``), the tool dispatcher the tool
names with their prefix, the CLI its commands, the daemon its methods. A placeholder that
names a tool is worded from the tool table's rows
(:func:`baremobile.tools.render.hint_words`; in Python it is the tool's Page verb); the
rest — things that are not tools — are :data:`HINT_VERBS`' rows. No I/O; standard library
only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["DOORS", "HINT_VERBS", "PYTHON_VERBS", "argument", "cli_flag", "register_verb", "say",
           "vocabulary"]

#: What a hint can point to that is not a tool, in each front door's words: one row per
#: thing, one phrase per door. ``python`` — the Python API; ``tools`` — a model calling tools
#: (``{p}`` is the tool-name prefix); ``cli`` — the ``baremobile`` command; ``daemon`` — a
#: program speaking the daemon's socket protocol (it falls back to the tools' phrase). A hint
#: names a row as ``{key}``; each door renders it with :func:`vocabulary`, so a CLI user never
#: reads a daemon method and a model never reads a shell command it cannot run.
#:
#: A hint names a *tool* as ``{tool_name}`` (``{snapshot}``, ``{list_apps}``): the tool
#: table's renderer (:func:`baremobile.tools.render.hint_words`) words it for each door
#: from the tool's row; in Python it is the tool's verb, ``page.<name>()`` (a test checks
#: that every tool a hint names has a verb of that name).
HINT_VERBS: Mapping[str, Mapping[str, str]] = {
    "last_snapshot": {"python": "page.last_snapshot", "tools": "the last {p}snapshot result",
                      "cli": "the last snapshot printed"},
    "wakeup": {"python": "page.press('wakeup')", "tools": "the {p}press tool with key 'wakeup'",
               "cli": "baremobile press wakeup"},
    "devices": {"python": "baremobile.devices()", "tools": "the {p}devices tool",
                "cli": "baremobile devices"},
    "pick_device": {"python": "connect(device='<serial>')",
                    "tools": "pass device='<serial>' (or set it once with {p}configure)",
                    "cli": "-d <serial>"},
    "reconnect": {"python": "connect() again to get a new page",
                  "tools": "call again: the next call connects afresh",
                  "cli": "run the command again"},
    # the session daemon's own
    "open_session": {"python": "the daemon/openSession method",
                     "tools": "pass device='<serial>' to claim a device",
                     "cli": "baremobile open --session NAME (-d DEVICE)",
                     "daemon": "the daemon/openSession method"},
    "close_session": {"python": "the daemon/releaseSession method",
                      "tools": "end the session that holds it",
                      "cli": "baremobile close --session NAME",
                      "daemon": "the daemon/releaseSession method"},
    "daemon_status": {"python": "baremobile daemon status", "tools": "baremobile daemon status",
                      "cli": "baremobile daemon status", "daemon": "daemon/status"},
    "daemon_stop": {"python": "baremobile daemon stop", "tools": "baremobile daemon stop",
                    "cli": "baremobile daemon stop", "daemon": "daemon/shutdown"},
    "list_methods": {"python": "daemon/methods", "tools": "the tool list",
                     "cli": "baremobile --help", "daemon": "daemon/methods"},
    "list_tools": {"python": "baremobile.tools.TOOLS", "tools": "the tool list",
                   "cli": "baremobile tools", "daemon": "tools/list"},
}
#: The front doors :data:`HINT_VERBS` has words for.
DOORS = ("python", "tools", "cli", "daemon")


def vocabulary(door: str, prefix: str = "") -> dict[str, str]:
    """How hints name things at ``door`` (``tools``: with the tool-name ``prefix``)."""
    if door not in DOORS:
        raise ValueError(f"unknown door {door!r}: one of {', '.join(DOORS)}")
    out = {}
    for key, words in HINT_VERBS.items():
        phrase = words.get(door) or words["tools"]
        out[key] = phrase.replace("{p}", prefix)
    return out


#: The Python API's names for what hints point to (``vocabulary("python")``).
PYTHON_VERBS: Mapping[str, str] = vocabulary("python")

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
#: the Page's verbs (each registers itself: :func:`register_verb`), which a hint may name
_PAGE_VERBS: set[str] = set()


def cli_flag(name: str) -> str:
    """The command line's flag for a tool parameter: ``max_chars`` → ``--max-chars``."""
    return "--" + name.replace("_", "-")


def argument(door: str, name: str, value: object) -> str:
    """How ``door`` passes a parameter: ``--max-chars 9000`` on the command line,
    ``max_chars=9000`` to a tool or a verb."""
    return f"{cli_flag(name)} {value}" if door == "cli" else f"{name}={value}"


def register_verb(name: str) -> None:
    """``name`` is a Page verb: a hint's ``{name}`` is ``page.name()`` in Python (the tool
    of that name, at the tool doors)."""
    _PAGE_VERBS.add(name)


def say(template: str, verbs: Mapping[str, str] | None = None) -> str:
    """``template`` with its ``{verb}`` placeholders named in ``verbs`` (Python's wording
    for any the vocabulary lacks — a Page verb is ``page.<name>()``; unknown placeholders
    stay as written)."""
    if "{" not in template:
        return template

    def name(m: re.Match[str]) -> str:
        key = m.group(1)
        if verbs is not None and key in verbs:
            return verbs[key]
        if key in PYTHON_VERBS:
            return PYTHON_VERBS[key]
        return f"page.{key}()" if key in _PAGE_VERBS else m.group(0)

    return _PLACEHOLDER.sub(name, template)
