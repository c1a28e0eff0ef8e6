"""The per-verb guard's parts (:class:`~baremobile.page.base.PageBase` runs it): the
:func:`verb` decorator every public verb wears, the :class:`Step` each outermost call is to
the page's observers (tracing), and how a verb says it sent nothing (:func:`refused`)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from baremobile.errors import BaremobileError, InvalidArgument, register_verb
from baremobile.snapshot import RefNode, Snapshot

if TYPE_CHECKING:
    from baremobile.page.base import PageBase

__all__ = ["Step", "StepObserver", "Typed", "VerbFacts", "facts", "refused", "secret_values",
           "sent_nothing", "verb"]

F = TypeVar("F", bound=Callable[..., Any])
E = TypeVar("E", bound=BaremobileError)


@dataclass
class Step:
    """One outermost verb call, as the page's observers see it (:meth:`PageBase.observe`).

    ``before`` is handed to observers when the verb starts (``result``/``error`` unset),
    then the same object, completed, when it ends."""

    verb: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    acts: bool
    started: float  #: ``time.time()`` when the verb began
    seconds: float = 0.0  #: how long it took (set when it ends)
    result: Any = None
    error: BaseException | None = None
    #: the element the call's ref or selector resolved to (set by target resolution; a
    #: selector that matched an element without a ref gives it with ``ref`` 0)
    target: RefNode | None = None
    #: what the verb sent to the screen, in order (:meth:`PageBase._sent`): ``{"kind":
    #: "tap" | "long_press" | "double_tap" | "swipe" | "drag" | "pinch" | "gesture",
    #: "points": [[x, y], …], "ms", "scale", "paths"}`` — what a recording keeps so a
    #: replay can be matched against it
    sent: list[dict[str, Any]] = field(default_factory=list)


class StepObserver(Protocol):
    """What :meth:`PageBase.observe` takes: called when an outermost verb starts and ends."""

    def step_started(self, page: PageBase, step: Step) -> None:
        """An outermost verb began on ``page`` (``step`` holds its name and arguments)."""

    def step_ended(self, page: PageBase, step: Step) -> None:
        """That verb ended: ``step`` now holds its result or error, what it sent and read."""


def refused(exc: E) -> E:
    """Mark an error raised before the verb sent anything (a ref that cannot be acted on, a
    disabled element): the verb did not change the screen, so it does not make the last
    snapshot stale (:attr:`PageBase.actions` does not count it)."""
    exc.nothing_sent = True
    return exc


def sent_nothing(exc: BaseException) -> bool:
    """Whether ``exc`` says its verb refused before acting: its arguments were rejected
    (:class:`~baremobile.errors.InvalidArgument`) or it was :func:`refused`. The guard
    believes it only when no acting command went out during the verb
    (:attr:`~baremobile.device.core.Device.sent`): an error after a tap or a swipe still
    leaves a changed screen."""
    return isinstance(exc, InvalidArgument) or bool(getattr(exc, "nothing_sent", False))


@dataclass(frozen=True)
class VerbFacts:
    """What a verb says about its calls — the one place each of these facts is kept; every
    door (the tool rows, traces, logs, the daemon's deadlines) reads them from here.

    ``acts``: the verb may change the screen (refs taken before it are read again);
    ``secret``: the parameters whose values are never logged or recorded as given (typed
    text, a file's or the clipboard's content, a preference's value), only their length;
    ``waits``: the parameter holding the seconds the verb may wait by itself (its own
    deadline), or None."""

    name: str
    acts: bool = False
    secret: tuple[str, ...] = ()
    waits: str | None = None


#: every verb's facts by its name (filled as the verb families are defined)
_VERBS: dict[str, VerbFacts] = {}


def facts(fn: Any) -> VerbFacts | None:
    """The :class:`VerbFacts` of a Page verb (a function, bound method or the name of one on
    :class:`~baremobile.page.Page`), or None for anything that is not a verb."""
    if isinstance(fn, str):
        return _VERBS.get(fn)
    fn = getattr(fn, "__func__", fn)
    found = getattr(fn, "__baremobile_verb__", None)
    return found if isinstance(found, VerbFacts) else None


def secret_values(fn: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]
                  ) -> dict[str, Any]:
    """``{parameter: value}`` of the secret parameters (:attr:`VerbFacts.secret`) given in
    one call of verb ``fn`` with ``args`` (after ``self``) and ``kwargs``."""
    known = facts(fn)
    if known is None or not known.secret:
        return {}
    fn = getattr(fn, "__func__", fn)
    try:
        bound = inspect.signature(fn).bind_partial(None, *args, **kwargs)
    except TypeError:  # a call the verb itself refuses: hide every argument that may be one
        return {k: v for k, v in kwargs.items() if k in known.secret} | \
            {f"#{i}": v for i, v in enumerate(args) if isinstance(v, (str, bytes))}
    return {k: v for k, v in bound.arguments.items() if k in known.secret}


def verb(*, acts: bool = False, secret: tuple[str, ...] = (),
         waits: str | None = None) -> Callable[[F], F]:
    """Make a method a verb of the page: it runs under the page's guard
    (:meth:`PageBase._using`), is shown to the page's observers when it is the outermost
    call, and — with ``acts`` — counts as something that may have changed the screen
    (unless it raised before sending anything: :func:`refused`, invalid arguments).
    ``secret`` and ``waits`` are facts of its calls (:class:`VerbFacts`).

    A whole screen an outermost verb returns (a :class:`Snapshot` that is not a diff) is
    what its caller was shown: later ``snapshot(diff=True)`` calls may be diffs against it.
    Snapshots a verb takes for itself (``find`` with no snapshot yet, a wait's polling) are
    not: a diff is only ever taken against a screen the caller saw."""

    def wrap(fn: F) -> F:
        name = fn.__name__
        params = inspect.signature(fn).parameters
        for p in (*secret, *((waits,) if waits else ())):
            if p not in params:
                raise TypeError(f"verb {name}: no parameter {p!r} to mark")
        known = VerbFacts(name, acts, tuple(secret), waits)
        if _VERBS.get(name, known) != known:
            raise TypeError(f"two verbs named {name} with different facts")
        _VERBS[name] = known
        register_verb(name)

        @functools.wraps(fn)
        def run(self: PageBase, *args: Any, **kwargs: Any) -> Any:
            with self._using(name, args, kwargs, acts=acts) as frame:
                result = fn(self, *args, **kwargs)
                if frame.outermost:
                    if isinstance(result, Snapshot) and result.number is None:
                        self._seen.seen(result.full_text)
                    if frame.step is not None:
                        frame.step.result = result
                return result

        # the function's own attribute (what facts() and the codegen read): no type has it
        run.__baremobile_verb__ = known  # type: ignore[attr-defined]
        return cast(F, run)

    return wrap


@dataclass(frozen=True)
class Typed:
    """What the last ``type`` did, for ``verify_typed``."""

    ref: int | None  #: the field's ref (None: whatever field had or took focus)
    text: str
    clear: bool
    submit: bool
    at: int  #: :attr:`~PageBase.actions` right after it
    #: what the field held before, when it was kept (``clear=False``) and known
    before: str | None = None


@dataclass(frozen=True)
class _Frame:
    """What :meth:`PageBase._using` tells the verb it guards."""

    outermost: bool
    step: Step | None = None


_NESTED = _Frame(False)


