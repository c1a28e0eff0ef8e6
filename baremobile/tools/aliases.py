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
  whether a call has that shape. At a door that speaks the alias's system (``vocabulary``),
  a name both use is theirs (AutoMobile's ``rotate``).

What an alias may also say: that the part of their system the call needs is **absent** here
(:attr:`Alias.absent`: AutoMobile's on-device service, iOS — the call answers their own
words, ``UNSUPPORTED``, and nothing runs); **alternatives** (:attr:`Alias.args` returning a
list: the first whose element is on screen runs — AutoMobile's ``text`` is a text or a
content description); their **output schema** (:attr:`Alias.output`); their **floor**
(:attr:`Alias.floor`: the least time a request for it needs, seconds, or a function reading
it from their environment variable); and a **result read from the page**
(:attr:`Alias.page`: their result built from the page's last snapshot — no device I/O).

The aliases themselves live beside the rows, one module per system
(:mod:`baremobile.tools.table.clawperator`, …); :func:`resolve` is the one lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from baremobile.errors import InvalidArgument, Unsupported

__all__ = ["Alias", "PARAMETERS", "Resolved", "alias_for", "listed", "named", "resolve",
           "with_parameter_aliases"]

Args = dict[str, Any]


@dataclass(frozen=True)
class Alias:
    """Another system's name (and argument shape) for a call of one of our rows."""

    name: str  #: their tool name
    system: str  #: whose: ``automobile``, ``clawperator``, ``arc``
    #: our row's name, or a chooser by their arguments (None: only with ``absent``)
    tool: str | Callable[[Args], str] | None
    #: their arguments → ours (None: as they are); raises InvalidArgument for a bad shape.
    #: A list is alternatives: each is tried in turn while its element is not on screen
    #: (``REF_NOT_FOUND``, nothing sent), the first found runs
    args: Callable[[Args], Args | list[Args]] | None = None
    #: our result (and their arguments) → theirs, at a door that speaks their vocabulary
    #: (or, with ``adds``, at every door: the result keeps ours and gains their keys; with
    #: ``everywhere``, theirs at every door); with ``page``, also given the call's page
    #: (None when it used none)
    result: Callable[..., dict[str, Any]] | None = None
    #: for a name we use too: whether a call has their shape (else it is our tool's call)
    when: Callable[[Args], bool] | None = None
    description: str = ""  #: what their clients are shown (where their names are listed)
    schema: Mapping[str, Any] = field(default_factory=dict)  #: their input schema, shown
    #: their per-tool floor where larger than ours: seconds, or a function of nothing
    #: giving them (read when a call asks: an environment variable may raise it)
    floor: float | Callable[[], float] | None = None
    #: the arguments their tools all take that say nothing to ours (e.g. AutoMobile's
    #: ``platform``, ``sessionUuid``): dropped before ours are validated
    ignored: tuple[str, ...] = ()
    adds: bool = False
    #: their words for a call that needs a part of their system absent here (their
    #: on-device service, iOS): it answers ``UNSUPPORTED`` with them, and nothing runs
    absent: str = ""
    #: their output schema: a door speaking their vocabulary lists it and hands the result
    #: as structured content too (MCP's ``outputSchema`` / ``structuredContent``)
    output: Mapping[str, Any] | None = None
    #: ``result`` reads the call's page too (its last snapshot: no device I/O):
    #: ``result(ours, their_args, page)`` — their answer drawn from what we saw
    page: bool = False
    #: one of our failures (``{ok: false, error, …}``, what a batch did beside) → their
    #: answer, at their door: a system that answers some failures as results (AutoMobile's
    #: ``executePlan``: ``{success: false, failedStep}``); None keeps the failure as ours
    failure: Callable[[dict[str, Any], Args], dict[str, Any] | None] | None = None

    #: their names may carry a device slug after this beginning: ARC's ``android_tap`` is
    #: also ``android_<slug>_tap`` (a slug of letters, digits and ``_``, at most 20)
    slugged: str = ""
    #: their result at every door: a name only their clients use (ARC's ``android_…``)
    #: says whose words the caller reads
    everywhere: bool = False

    def __post_init__(self) -> None:
        if (self.tool is None) != bool(self.absent):
            raise TypeError(f"alias {self.name}: a tool, or the words saying it is absent")

    def answer(self, result: dict[str, Any], args: Args, vocabulary: str | None,
               page: Any = None) -> dict[str, Any]:
        """``result`` (ours) as the caller reads it: theirs at their door (or everywhere,
        for a name only they use), ours elsewhere (with their keys beside, for an alias
        that ``adds``)."""
        if self.result is None or not (self.adds or self.everywhere
                                       or vocabulary == self.system):
            return result
        if self.page:
            return self.result(result, args, page)
        return self.result(result, args)

    def answer_failure(self, failure: dict[str, Any], args: Args, vocabulary: str | None
                       ) -> dict[str, Any]:
        """``failure`` (ours) as the caller reads it: theirs where their door answers it as
        a result, else as it is."""
        if self.failure is None or vocabulary != self.system:
            return failure
        theirs = self.failure(failure, args)
        return failure if theirs is None else theirs

    def row_name(self, args: Args) -> str:
        if self.tool is None:
            raise Unsupported(self.absent, hint=f"this needs a part of {self.system} that "
                              "baremobile does not have: it drives the device over ADB "
                              "alone (no on-device service, no app SDK, no emulator images)")
        return self.tool(args) if callable(self.tool) else self.tool

    def floor_s(self) -> float:
        """Their floor now (seconds; 0 when they have none)."""
        floor = self.floor() if callable(self.floor) else self.floor
        return float(floor or 0.0)


@dataclass(frozen=True)
class Resolved:
    """A call as our table runs it: the row's name, our arguments, and the alias it came
    through (None: our own name)."""

    name: str
    args: Args
    alias: Alias | None = None
    #: more arguments to try, in turn, while the element is not on screen (an alias's
    #: alternatives after the first)
    alternatives: tuple[Args, ...] = ()


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


def alias_for(name: str, args: Mapping[str, Any], rows: Mapping[str, Any],
              aliases: Iterable[Alias], prefer: str | None = None) -> Alias | None:
    """The alias a call ``name(args)`` goes through, or None (our own row's call, or a name
    nothing knows). A name we use too is ours unless the call has the alias's shape
    (:attr:`Alias.when`), or the door speaks the alias's system (``prefer``): there the name
    is theirs."""
    row = rows.get(name)
    for alias in named(name, aliases):
        if row is not None and alias.system != prefer and \
                (alias.when is None or not alias.when(dict(args))):
            continue  # our own tool's call
        return alias
    return None


def resolve(name: str, args: Args, rows: Mapping[str, Any],
            aliases: Iterable[Alias], prefer: str | None = None) -> Resolved | None:
    """The call ``name(args)`` in our table's terms: our row (its arguments' camelCase
    spellings taken), or an alias's row and arguments; None when nothing knows the name.
    An alias whose part is absent here raises its words (``UNSUPPORTED``); ``prefer`` is the
    system the door speaks (:func:`alias_for`)."""
    alias = alias_for(name, args, rows, aliases, prefer)
    if alias is not None:
        theirs = {k: v for k, v in args.items() if k not in alias.ignored}
        target = alias.row_name(theirs)
        ours = alias.args(theirs) if alias.args is not None else theirs
        if target not in rows:
            raise InvalidArgument(f"{name} maps to {target!r}, which is not a tool")
        accepted = _accepted(rows[target])
        tries = [with_parameter_aliases(a, accepted)
                 for a in (ours if isinstance(ours, list) else [ours])]
        if not tries:
            raise InvalidArgument(f"{name}: nothing to try")
        return Resolved(target, tries[0], alias, tuple(tries[1:]))
    if name not in rows:
        return None
    return Resolved(name, with_parameter_aliases(args, _accepted(rows[name])))


def _accepted(row: Any) -> Iterable[str]:
    """The parameters a row accepts, ``device`` included where it has one."""
    parameters = getattr(row, "parameters", None)
    return parameters()["properties"] if callable(parameters) else row.properties


def listed(aliases: Iterable[Alias], system: str, *,
           hidden: Callable[[Alias], bool] | None = None) -> list[dict[str, Any]]:
    """A system's names as its clients' ``tools/list`` shows them (``hidden``: aliases a
    door leaves out, e.g. debug-only tools)."""
    out = []
    for alias in aliases:
        if alias.system != system or (hidden is not None and hidden(alias)):
            continue
        schema = dict(alias.schema) or {"type": "object"}
        tool: dict[str, Any] = {"name": alias.name, "description": alias.description,
                                "inputSchema": schema}
        if alias.output is not None:
            tool["outputSchema"] = dict(alias.output)
        out.append(tool)
    return out
