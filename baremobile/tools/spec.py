"""The one tool table: every tool an agent can call, for every door.

Each row (:class:`ToolSpec`, :mod:`baremobile.tools.row`) is a name, a description written
for a model, the JSON schema of the parameters it accepts, the Page verbs its runner calls
(their facts — acts, secret arguments, what it waits by — are the call's) and what it
returns. The rows live beside their Page family (:mod:`baremobile.tools.table`); every
door's view of them — MCP tools, function-calling schemas, ``cli/commands.json``, hint
words — is written by one renderer (:mod:`baremobile.tools.render`), and every call goes
through one dispatcher (:func:`baremobile.tools.call`).

Groups: ``core`` (always), ``session`` (``configure``; the MCP server always has it) and the
optional ``apps``, ``files``, ``logs``, ``system``, ``vision`` … behind a switch — the same
switch for ``schemas()`` and ``call()``, which both default to ``core``. ``eval`` (running
JavaScript in the app's page) is gated: ``"all"`` leaves it out, it must be named, and a
call runs only where the operator allowed it (``Session(allow_eval=True)``, a Page with
``allow_eval``, ``baremobile mcp --allow-eval``, a daemon started with ``--allow-eval``).

A runner gets a context (:class:`~baremobile.tools.row.Ctx`: ``ctx.page`` — the device's
Page, connected on first use; ``ctx.options`` — the session defaults; ``ctx.time`` — the
call's time, resolved once; ``ctx.session``; ``ctx.files_dir``) and the validated
arguments, and returns a JSON-able dict. Errors are raised as :mod:`baremobile.errors`
types; the dispatcher turns them into ``{"code", "message", "hint"}`` data.
"""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools.params import PARAMS, SELECTOR
from baremobile.tools.row import ToolSpec
from baremobile.tools.table import TOOLS
from baremobile.tools.table.observing import observe_snapshot, snapshot_result
from baremobile.tools.table.system import cut_log

__all__ = ["GATED_GROUPS", "GROUPS", "OPTIONAL_GROUPS", "PARAMS", "SELECTOR", "TOOLS",
           "ToolSpec", "cut_log", "get", "observe_snapshot", "select", "snapshot_result"]

#: Every group; ``core`` is always on.
GROUPS = ("core", "session", "apps", "files", "logs", "system", "vision", "gestures",
          "inspect", "batch", "edit", "eval")
#: The groups behind a switch.
OPTIONAL_GROUPS = GROUPS[2:]
#: Groups ``"all"`` leaves out: each must be named, and its calls run only where the
#: operator allowed them (``eval`` runs JavaScript with the rights of the user's app).
GATED_GROUPS = ("eval",)

_BY_NAME = {t.name: t for t in TOOLS}
assert len(_BY_NAME) == len(TOOLS), "tool names must be unique"
assert {t.group for t in TOOLS} <= set(GROUPS), "every row's group is a group"


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
