"""Other systems' words for our tools: their clients call us unchanged (issue 29).

An :class:`Alias` is another system's name for a call of one of our rows (``tapOn`` →
``tap``, clawperator's ``click`` → ``tap``), with what turns their arguments into ours and —
at a door that speaks their vocabulary (the AutoMobile socket) — our result into theirs.
Aliases are accepted at every door and never shown in our menu (the menu's budget holds); a
door speaking a system's vocabulary lists that system's names (:func:`listed`).

Two smaller kinds of alias, for our own tools:

* a **parameter alias** (:data:`PARAMETERS`): clawperator's camelCase spellings
  (``timeoutMs``, ``maxChars``, ``clickAfter``, ``deviceId``, ``validatorPattern``) are taken
  for the parameter a row has (milliseconds become seconds);
* an alias with the **name of one of our tools** and a foreign shape (clawperator's ``wait``
  with a ``selector`` waits for it; ours with ``seconds`` sleeps): :attr:`Alias.when` says
  whether a call has that shape.

The aliases themselves live beside the rows, one module per system
(:mod:`baremobile.tools.table.clawperator`, …); :func:`resolve` is the one lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from baremobile.errors import InvalidArgument

__all__ = ["Alias", "PARAMETERS", "Resolved", "listed", "named", "resolve",
           "with_parameter_aliases"]

Args = dict[str, Any]


@dataclass(frozen=True)
class Alias:
    """Another system's name (and argument shape) for a call of one of our rows."""

    name: str  #: their tool name
    system: str  #: whose: ``automobile``, ``clawperator``, ``arc``
    tool: str | Callable[[Args], str]  #: our row's name, or a chooser by their arguments
    #: their arguments → ours (None: as they are); raises InvalidArgument for a bad shape
    args: Callable[[Args], Args] | None = None
    #: our result (and their arguments) → theirs, at a door that speaks their vocabulary
    #: (or, with ``adds``, at every door: the result keeps ours and gains their keys)
    result: Callable[..., dict[str, Any]] | None = None
    #: for a name we use too: whether a call has their shape (else it is our tool's call)
    when: Callable[[Args], bool] | None = None
    description: str = ""  #: what their clients are shown (where their names are listed)
    schema: Mapping[str, Any] = field(default_factory=dict)  #: their input schema, shown
    floor: float | None = None  #: their per-tool floor (seconds), where larger than ours
    #: the arguments their tools all take that say nothing to ours (e.g. AutoMobile's
    #: ``platform``, ``sessionUuid``): dropped before ours are validated
    ignored: tuple[str, ...] = ()
    adds: bool = False
    #: their names may carry a device slug after this beginning: ARC's ``android_tap`` is
    #: also ``android_<slug>_tap`` (a slug of letters, digits and ``_``, at most 20)
    slugged: str = ""
    #: their result at every door: a name only their clients use (ARC's ``android_…``)
    #: says whose words the caller reads
    everywhere: bool = False
    #: ``result`` also takes the screen the row read (the page's latest snapshot, or None):
    #: ``result(ours, their_args, snapshot)`` — their answer drawn from what we saw
    reads_screen: bool = False

    def answer(self, result: dict[str, Any], args: Args, vocabulary: str | None,
               screen: Any = None) -> dict[str, Any]:
        """``result`` (ours) as the caller reads it: theirs at their door (or everywhere,
        for a name only they use), ours elsewhere (with their keys beside, for an alias
        that ``adds``); ``screen`` is the snapshot the row read, for an alias that
        ``reads_screen``."""
        if self.result is None or not (self.adds or self.everywhere
                                       or vocabulary == self.system):
            return result
        if self.reads_screen:
            return self.result(result, args, screen)
        return self.result(result, args)

    def row_name(self, args: Args) -> str:
        return self.tool(args) if callable(self.tool) else self.tool


@dataclass(frozen=True)
class Resolved:
    """A call as our table runs it: the row's name, our arguments, and the alias it came
    through (None: our own name)."""

    name: str
    args: Args
    alias: Alias | None = None


def _ms(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value / 1000
    return value


#: clawperator's camelCase parameters → (ours, how the value changes)
PARAMETERS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "timeoutMs": ("timeout", _ms),
    "maxChars": ("max_chars", lambda v: max(v, 200) if isinstance(v, int)
                 and not isinstance(v, bool) else v),  # ours cuts at a line, from 200 up
    "clickAfter": ("click_after", lambda v: v),
    "deviceId": ("device", lambda v: v),
    "validatorPattern": ("regex", lambda v: v),
}


def with_parameter_aliases(args: Mapping[str, Any], accepted: Iterable[str]) -> Args:
    """``args`` with each camelCase spelling (:data:`PARAMETERS`) renamed to the parameter
    the row accepts; two spellings of one parameter are refused. clawperator's
    ``validator: "regex"`` (which ``validatorPattern`` goes with), its ``operatorPackage``
    (its on-device app: baremobile has none) and, on a tool that does not wait by itself,
    its ``timeoutMs`` (an execution timeout: ours bounds each device command) are
    dropped."""
    accepted = set(accepted)
    out = dict(args)
    for theirs, (ours, convert) in PARAMETERS.items():
        if theirs not in out or theirs in accepted or ours not in accepted:
            continue
        if ours in out:
            raise InvalidArgument(f"give {ours} or {theirs}, not both")
        out[ours] = convert(out.pop(theirs))
    if out.get("validator") == "regex" and "regex" in out and "validator" not in accepted:
        del out["validator"]
    if "operatorPackage" not in accepted:  # clawperator's on-device app: none here
        out.pop("operatorPackage", None)
    if "timeoutMs" in out and "timeoutMs" not in accepted:
        # clawperator's execution timeout, on a tool that does not wait by itself: ours
        # bounds each device command on its own
        ms = out.pop("timeoutMs")
        if isinstance(ms, bool) or not isinstance(ms, int) or ms < 1:
            raise InvalidArgument(f"timeoutMs must be a positive integer, not {ms!r}")
    return out


_SLUG = re.compile(r"[A-Za-z0-9_]{1,20}")


def named(name: str, aliases: Iterable[Alias]) -> list[Alias]:
    """The aliases called ``name``: by their own name, else with a device slug taken out of
    it (:attr:`Alias.slugged`; the longest of their names that fits: ``android_double_tap``
    is not ``tap`` with the slug ``double``)."""
    aliases = list(aliases)
    exact = [a for a in aliases if a.name == name]
    if exact:
        return exact
    best: Alias | None = None
    for alias in aliases:
        start = alias.slugged
        if not start or not name.startswith(start) or not alias.name.startswith(start):
            continue
        base = alias.name[len(start):]
        if not name.endswith("_" + base):
            continue
        slug = name[len(start):len(name) - len(base) - 1]
        if _SLUG.fullmatch(slug) and (best is None or len(alias.name) > len(best.name)):
            best = alias
    return [best] if best is not None else []


def resolve(name: str, args: Args, rows: Mapping[str, Any],
            aliases: Iterable[Alias], vocabulary: str | None = None) -> Resolved | None:
    """The call ``name(args)`` in our table's terms: our row (its arguments' camelCase
    spellings taken), or an alias's row and arguments; None when nothing knows the name.
    A name we use too is theirs when :attr:`Alias.when` says the call has their shape, or —
    for an alias without that test — at a door speaking ``vocabulary`` (clawperator's
    ``snapshot`` there answers its XML)."""
    row = rows.get(name)
    for alias in named(name, aliases):
        if row is not None and not (alias.when(args) if alias.when is not None
                                    else alias.system == vocabulary):
            continue  # our own tool's call
        theirs = {k: v for k, v in args.items() if k not in alias.ignored}
        ours = alias.args(theirs) if alias.args is not None else theirs
        target = alias.row_name(theirs)
        if target not in rows:
            raise InvalidArgument(f"{name} maps to {target!r}, which is not a tool")
        return Resolved(target, with_parameter_aliases(ours, _accepted(rows[target])), alias)
    if row is None:
        return None
    return Resolved(name, with_parameter_aliases(args, _accepted(row)))


def _accepted(row: Any) -> Iterable[str]:
    """The parameters a row accepts (``device`` too, on every device tool)."""
    return row.parameters()["properties"]


def listed(aliases: Iterable[Alias], system: str) -> list[dict[str, Any]]:
    """A system's names as its clients' ``tools/list`` shows them."""
    out = []
    for alias in aliases:
        if alias.system != system:
            continue
        schema = dict(alias.schema) or {"type": "object"}
        out.append({"name": alias.name, "description": alias.description,
                    "inputSchema": schema})
    return out
