"""One row of the tool table (:class:`ToolSpec`) and what its runner is given (:class:`Ctx`).

A row points at the Page verb(s) its runner calls and adds only what is a fact of the
*door*: the name a model calls, the words it reads, the parameters it may pass, the group
that enables it, how the CLI spells it, the least time a request for it needs. What is a
fact of the *call* — whether it acts (may change the screen), which arguments are secret,
which one it waits by — is the verb's (:class:`~baremobile.page.steps.VerbFacts`), read
from it here; a row that calls no verb (``devices``, ``configure``, ``execute``) states
those itself, and only then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from baremobile.page.steps import VerbFacts, facts
from baremobile.timeouts import CallTime, Facts

if TYPE_CHECKING:
    from baremobile.page import Page
    from baremobile.tools.session import Options, Session

__all__ = ["Args", "Ctx", "Resource", "Runner", "ToolSpec"]

#: A call's arguments, validated against the row's schema.
Args = dict[str, Any]


class Ctx(Protocol):
    """What a runner is given beside the arguments (the dispatcher's call context)."""

    @property
    def page(self) -> Page:
        """The device's Page (connected on first use)."""

    @property
    def session(self) -> Session: ...

    @property
    def options(self) -> Options:
        """The session's defaults, with this call's overrides."""

    @property
    def files_dir(self) -> str | None:
        """The operator's files directory (real path), or None: host files are refused."""

    @property
    def time(self) -> CallTime:
        """This call's time, resolved once: ``time.wait`` is what the tool waits by itself."""

    @property
    def door(self) -> str:
        """The front door the call came through (:data:`baremobile.hints.DOORS`), whose
        words what the result says to the caller uses."""

    def error(self, exc: BaseException) -> dict[str, str]:
        """``exc`` as data, its hint in this door's words."""

    def run_step(self, name: Any, arguments: Any, *, time_left: float | None = None
                 ) -> tuple[str, dict[str, Any]]:
        """One step of a batch on this call's device: ``(tool name, result)``."""


#: A row's runner: the context and the validated arguments → a JSON-able result.
Runner = Callable[[Ctx, Args], dict[str, Any]]


@dataclass(frozen=True)
class Resource:
    """A row also served as an MCP resource of each device
    (``baremobile://device/{serial}/{kind}``), read fresh through the tool: ``mime`` is
    what its contents are, ``args`` what the read passes the tool, ``result`` the key of
    the result the contents come from (JSON-encoded unless text or an image)."""

    kind: str
    mime: str
    title: str
    result: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: what a model reads about it, what it may pass, and what runs.

    ``verbs``: the Page verbs the runner calls (their facts are the call's facts);
    ``passes``: ``{verb parameter: tool parameter}`` where the names differ (None: this tool
    never passes that parameter) — how a verb's secret parameter is found among the tool's;
    ``properties``: the JSON schema of each parameter, as accepted (bounds and all);
    ``hidden``: parameters accepted but not advertised (aliases); ``returns``: what the
    result holds (nothing said: ``'done'``, the sentence saying what was done); ``floor``:
    the least seconds a request for it needs (see :mod:`baremobile.timeouts`);
    ``waits_default``: the tool's wait when a call leaves it out (seconds, ``"session"``, or
    None: no limit); ``check``: run on the observation after acting (``type``: the field
    holds the text); ``cli``/``cli_args``: the CLI command's name and positional words (see
    docs/cli.md); ``acts``/``secret``/``waits``:
    only for a row with no verb."""

    name: str
    description: str
    properties: Mapping[str, Any]
    run: Runner
    verbs: tuple[Callable[..., Any], ...] = ()
    required: tuple[str, ...] = ()
    group: str = "core"
    passes: Mapping[str, str | None] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()
    needs_device: bool = True
    read_only: bool = False
    destructive: bool = False  #: may delete or overwrite something (MCP destructiveHint)
    open_world: bool = False  #: reaches beyond the device's own state (MCP openWorldHint)
    host_paths: tuple[str, ...] = ()  #: arguments naming files of this computer
    returns: str = ""
    floor: float = 0.0
    waits_default: float | str | None = None
    check: Callable[[Ctx, Any], Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  #: more schema keywords
    image: bool = False  #: answers with an image (the CLI saves it; ``-o PATH``)
    cli: str = ""
    cli_args: tuple[str, ...] = ()
    resource: Resource | None = None  #: also a resource of each device (MCP, the daemon)
    #: the parameter holding tool calls (``[{tool, args}]``) this tool runs: each call's own
    #: row says what is secret in it
    calls_in: str | None = None
    acts_without_verb: bool = False
    secret_without_verb: tuple[str, ...] = ()
    waits_without_verb: str | None = None

    def __post_init__(self) -> None:
        known = [facts(v) for v in self.verbs]
        if any(f is None for f in known):
            raise TypeError(f"tool {self.name}: verbs must be Page verbs")
        if self.verbs and (self.acts_without_verb or self.secret_without_verb
                           or self.waits_without_verb):
            raise TypeError(f"tool {self.name}: acts, secret and waits are its verbs' facts")
        for verb_facts in known:
            assert verb_facts is not None
            for p in verb_facts.secret:
                q = self.passes.get(p, p)
                if q is not None and q not in self.properties:
                    raise TypeError(
                        f"tool {self.name}: verb {verb_facts.name}'s secret parameter {p!r} "
                        "is no parameter of the tool: say which one carries it (passes)")
        for p in (*self.required, *self.hidden, *self.host_paths):
            if p not in self.properties:
                raise TypeError(f"tool {self.name}: no parameter {p!r}")

    # -- the call's facts, from the verbs ------------------------------------------------
    @property
    def verb_facts(self) -> tuple[VerbFacts, ...]:
        """The facts of the Page verbs this row calls (what they act on, keep secret, wait for)."""
        return tuple(f for f in (facts(v) for v in self.verbs) if f is not None)

    @property
    def acts(self) -> bool:
        """It may change the screen (refs are read again; a session may observe after)."""
        if not self.verbs:
            return self.acts_without_verb
        return any(f.acts for f in self.verb_facts)

    @property
    def secret(self) -> tuple[str, ...]:
        """The tool's parameters that carry a verb's secret argument."""
        if not self.verbs:
            return self.secret_without_verb
        out: list[str] = []
        for f in self.verb_facts:
            for p in f.secret:
                q = self.passes.get(p, p)
                if q is not None and q in self.properties and q not in out:
                    out.append(q)
        return tuple(out)

    @property
    def waits(self) -> str | None:
        """The tool parameter holding the seconds it waits by itself, or None."""
        if not self.verbs:
            return self.waits_without_verb
        for f in self.verb_facts:
            if f.waits is not None:
                q = self.passes.get(f.waits, f.waits)
                if q is not None and q in self.properties:
                    return q
        return None

    @property
    def targets(self) -> bool:
        """It may name an element by ref or selector."""
        return any(p in self.properties for p in ("ref", "selector", "container_ref",
                                                  "from_ref", "to_ref"))

    @property
    def time_facts(self) -> Facts:
        """What decides this tool's time (:func:`baremobile.timeouts.call_time`)."""
        return Facts(self.floor, self.waits, self.waits_default, self.acts, self.targets)

    # -- door facts ------------------------------------------------------------------------
    @property
    def command(self) -> str:
        """The CLI command that calls this tool."""
        return self.cli or self.name.replace("_", "-")

    @property
    def verb_name(self) -> str | None:
        """The Page verb that is this tool's Python twin (its first verb), or None."""
        return self.verb_facts[0].name if self.verbs else None

    def parameters(self, *, device: bool = True) -> dict[str, Any]:
        """The JSON schema of the arguments as accepted (what the validator checks)."""
        from baremobile.tools.params import PARAMS

        props = dict(self.properties)
        if device and self.needs_device:
            props["device"] = PARAMS["device"]
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if self.required:
            schema["required"] = list(self.required)
        schema["additionalProperties"] = False
        schema.update(self.extra)
        return schema
