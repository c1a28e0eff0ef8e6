"""``call(page, name, arguments)``: run one tool and answer with data, never a traceback.

A result is a JSON-able dict. Success::

    {"ok": true, "tool": "tap", "device": "emulator-5554", "done": "tapped ref 3"}

(plus ``snapshot``/``package``/``refs``/``truncated`` when the tool observes, ``image`` for
screenshots, tool-specific keys otherwise). Failure::

    {"ok": false, "tool": "tap", "error": {"code": "REF_NOT_FOUND", "message": "…",
                                           "hint": "take a new snapshot …",
                                           "category": "REF_NOT_FOUND"}}

``error.category`` is the wider family of the precise code (:data:`ERROR_CODES`: for
example ``UNSUPPORTED_TEXT`` → ``INVALID_ARGUMENT``, ``DEVICE_NOT_IDLE`` → ``DUMP_FAILED``;
a family's own code is its own category).
:func:`to_text` renders a result for an LLM; :func:`to_anthropic` makes Anthropic
``tool_result`` content blocks (text, plus the image for screenshots).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any

from baremobile.errors import DOORS, BaremobileError, InvalidArgument, PageClosed
from baremobile.safetext import clean, problem
from baremobile.timeouts import CallTime, call_time
from baremobile.tools import hostfiles, render
from baremobile.tools import spec as _spec
from baremobile.tools.aliases import Alias, resolve
from baremobile.tools.pages import OnePage
from baremobile.tools.redact import redacted, scrub, secrets_of
from baremobile.tools.render import TEXT_PAYLOADS, image_bytes, to_anthropic, to_text
from baremobile.tools.session import Options, Session, files_root
from baremobile.tools.table import ALIASES
from baremobile.tools.validate import validate
from baremobile.trace.record import tool_call

__all__ = ["ERROR_CODES", "TEXT_PAYLOADS", "answerable", "call", "error_data", "failure",
           "hint_words", "image_bytes", "redacted", "session_for", "shown_name", "to_anthropic",
           "to_text", "tool_verbs"]

log = logging.getLogger("baremobile.tools")


# ---------------------------------------------------------------------------------------
# errors as data
# ---------------------------------------------------------------------------------------


#: Every error code a tool call can answer: ``code → (category, what it means)``. The
#: category is the wider family an agent can branch on (it equals the code for a family's
#: own code); docs/mcp.md lists the same table.
ERROR_CODES: dict[str, tuple[str, str]] = {
    # the arguments
    "INVALID_ARGUMENT": ("INVALID_ARGUMENT", "a parameter is wrong (the message names it)"),
    "UNSUPPORTED_TEXT": ("INVALID_ARGUMENT", "text 'type' cannot type (non-ASCII, emoji)"),
    "UNKNOWN_TOOL": ("INVALID_ARGUMENT", "no such tool, or its group is not enabled"),
    "NOT_ALLOWED": ("INVALID_ARGUMENT", "the operator has not allowed it (host files, "
                                        "scenario files, devices outside the allow-list)"),
    "RESOURCE_NOT_FOUND": ("INVALID_ARGUMENT", "a resource URI no door serves"),
    "REF_NOT_FOUND": ("REF_NOT_FOUND", "a ref not in the latest snapshot, or nothing "
                                       "matches the selector"),
    "REF_COVERED": ("REF_NOT_FOUND", "the element lies under the keyboard or a dialog: "
                                     "hide or close it first"),
    "REF_CHANGED": ("REF_NOT_FOUND", "the screen changed since the ref's snapshot and "
                                     "another element is where the ref's was"),
    # the element is there but cannot take the action, or did not take it
    "NOT_ACTIONABLE": ("NOT_ACTIONABLE", "the element cannot take this action"),
    "ELEMENT_DISABLED": ("NOT_ACTIONABLE", "the element is disabled: a touch would do "
                                           "nothing (nothing was sent)"),
    "NOT_EDITABLE": ("NOT_ACTIONABLE", "'type' on something that takes no text and opens "
                                       "no text field: nothing was typed"),
    "TEXT_MISMATCH": ("NOT_ACTIONABLE", "the text was typed but the field shows something "
                                        "else afterwards"),
    # reaching a device
    "NO_DEVICES": ("DEVICE_UNAVAILABLE", "discovery (or the named spec) found no device"),
    "MULTIPLE_DEVICES_DEVICE_ID_REQUIRED": ("DEVICE_UNAVAILABLE",
                                            "several devices and none named"),
    "DEVICE_UNAUTHORIZED": ("DEVICE_UNAVAILABLE", "the phone has not accepted this "
                                                  "computer's key"),
    "DEVICE_BUSY": ("DEVICE_UNAVAILABLE", "another program (an adb server) holds the "
                                          "phone's USB interface"),
    "PERMISSION_DENIED": ("DEVICE_UNAVAILABLE", "the OS refused access to the USB device"),
    "ADB_KEY_ERROR": ("DEVICE_UNAVAILABLE", "this computer's ADB key cannot be read, created "
                                            "or used"),
    "DEVICE_DISCONNECTED": ("DEVICE_DISCONNECTED", "the connection dropped"),
    "PROTOCOL_ERROR": ("DEVICE_DISCONNECTED", "the device sent invalid ADB data; dropped"),
    "PAGE_CLOSED": ("DEVICE_DISCONNECTED", "the device's page was closed (a cancelled "
                                           "call, shutdown); the next call reconnects"),
    "SESSION_CLOSED": ("SESSION_CLOSED", "the session (server) is shutting down"),
    # running
    "BUSY": ("BUSY", "another call is acting on the same device"),
    "CANCELLED": ("CANCELLED", "the call was cancelled before it finished; its device I/O "
                               "was aborted and the next call reconnects"),
    "TIMEOUT": ("TIMEOUT", "a wait or a device command ran out of time"),
    "COMMAND_FAILED": ("COMMAND_FAILED", "a command on the device reported failure"),
    "UNSUPPORTED": ("UNSUPPORTED", "Android does not allow it over ADB without an installed "
                                   "app (the message says why, in the device's words)"),
    "NOT_DEBUGGABLE": ("UNSUPPORTED", "the app is not a debuggable build: run-as may not "
                                      "read or write its private data"),
    "INVALID_PREFERENCES": ("INVALID_ARGUMENT", "an app's SharedPreferences file is not the "
                                                "XML map Android writes"),
    "SERVICE_REFUSED": ("COMMAND_FAILED", "the device does not offer this service "
                                          "(old Android, missing feature)"),
    "ADB_SERVER_FAIL": ("COMMAND_FAILED", "the adb server refused a request"),
    "DUMP_FAILED": ("DUMP_FAILED", "the screen could not be read"),
    "DEVICE_NOT_IDLE": ("DUMP_FAILED", "the screen never went idle (animation, video)"),
    "NULL_ROOT_NODE": ("DUMP_FAILED", "no window to read (screen off, locked, secure)"),
    "AUTOMATION_BUSY": ("DUMP_FAILED", "another automation tool holds UiAutomation"),
    "INVALID_DUMP": ("DUMP_FAILED", "the screen dump was malformed"),
    "DUMP_TOO_LARGE": ("DUMP_FAILED", "the screen dump exceeds an element, ref or size limit"),
    "MISSING_DEPENDENCY": ("MISSING_DEPENDENCY", "an optional package is not installed"),
    "WEB_ERROR": ("WEB_ERROR", "a page could not be read or driven through the DevTools "
                               "protocol (the native snapshot is unaffected)"),
    "WEB_UNAVAILABLE": ("WEB_ERROR", "web content cannot be read here (no [web] extra, a "
                                     "WebView that is not debuggable, script eval off)"),
    "PAGE_NAVIGATED": ("WEB_ERROR", "the page navigated while it was read"),
    "LOCAL_IO_ERROR": ("LOCAL_IO_ERROR", "a file of this computer could not be written or "
                                         "read (full disk, read-only file system)"),
    "INTERNAL_ERROR": ("INTERNAL_ERROR", "a bug, or an answer nobody expected"),
}


@functools.lru_cache(maxsize=32)
def _words(door: str, prefix: str) -> dict[str, str]:
    return render.hint_words(_spec.TOOLS, door, prefix)


def hint_words(door: str = "tools", prefix: str = "") -> dict[str, str]:
    """How hints name tools and other things at ``door`` (:data:`baremobile.errors.DOORS`;
    ``tools``: tools named ``prefix + name``) — :func:`baremobile.tools.render.hint_words`."""
    if door not in DOORS:
        door = "tools"
    return dict(_words(door, prefix))


def tool_verbs(prefix: str = "") -> dict[str, str]:
    """How hints name other verbs when a model calls tools named ``prefix + name``."""
    return hint_words("tools", prefix)


def _category(exc: BaremobileError) -> str:
    """The family ``exc`` belongs to (see :data:`ERROR_CODES`)."""
    known = ERROR_CODES.get(exc.code)
    if known:
        return known[0]
    widest = None  # an unlisted code: the widest listed family it derives from
    for cls in type(exc).__mro__:
        if cls is BaremobileError:
            break
        if isinstance(cls, type) and issubclass(cls, BaremobileError) and \
                cls.__dict__.get("code") in ERROR_CODES:
            widest = ERROR_CODES[cls.__dict__["code"]][0]
    return widest or "INTERNAL_ERROR"


def error_data(exc: BaseException, verbs: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{"code", "message", "hint", "category"}`` for any exception; the hint names other
    verbs in ``verbs``' words (default: the tools', :func:`tool_verbs`)."""
    if isinstance(exc, BaremobileError):
        data = exc.to_dict(tool_verbs() if verbs is None else verbs)
        if data["code"] == "ERROR":  # the bare base class: nothing more precise was meant
            data["code"] = "INTERNAL_ERROR"
        data["category"] = _category(exc) if data["code"] != "INTERNAL_ERROR" \
            else "INTERNAL_ERROR"
        return data
    return {
        "code": "INTERNAL_ERROR",
        "message": f"{type(exc).__name__}: {exc}",
        "hint": "this is a bug in baremobile or the device answered something unexpected; "
                "take a snapshot and try another way (details are in the server log)",
        "category": "INTERNAL_ERROR",
    }


def answerable(result: dict[str, Any], tool: Any = None) -> dict[str, Any]:
    """``result`` when every front door can encode it (:func:`baremobile.safetext.problem`),
    else an ``INTERNAL_ERROR`` answer saying what could not be encoded — never a result a
    writer would choke on. Text from outside is made safe where it enters; reaching the
    error here means a boundary was missed (it is logged)."""
    why = problem(result)
    if why is None:
        return result
    name = clean(tool if isinstance(tool, str) else str(result.get("tool", "?")))
    log.error("%s: the answer cannot be encoded (%s); answering INTERNAL_ERROR instead",
              name, why)
    return {"ok": False, "tool": name, "error": {
        "code": "INTERNAL_ERROR",
        "message": f"the answer could not be encoded, so it was withheld: {why}",
        "hint": "this is a bug in baremobile (text from outside that was not made safe): "
                "take a snapshot and try another way; details are in the log",
        "category": "INTERNAL_ERROR"}}


def shown_name(name: object) -> str:
    """A tool's name as a result shows it (text made safe; anything else as its repr)."""
    return clean(name) if isinstance(name, str) else repr(name)


def failure(name: str, exc: BaseException, prefix: str = "", *, door: str = "tools",
            secrets: list[str] | None = None) -> dict[str, Any]:
    """The result of a call of ``name`` that failed with ``exc``: ``{"ok": false, "tool",
    "error"}`` (the hint in ``door``'s words; no ``secrets`` of the call in its message or
    hint), plus what a batch did before it stopped."""
    error = error_data(exc, hint_words(door, prefix))
    if secrets:
        error = {k: scrub(v, secrets) if isinstance(v, str) else v for k, v in error.items()}
    out = {"ok": False, "tool": name, "error": error}
    data = getattr(exc, "data", None)  # what a batch did before it stopped
    if isinstance(data, dict):
        out.update({k: v for k, v in data.items() if k not in out})
    return out


# ---------------------------------------------------------------------------------------
# sessions for a bare Page
# ---------------------------------------------------------------------------------------


_BOUND: weakref.WeakKeyDictionary[Any, Session] = weakref.WeakKeyDictionary()
_BOUND_LOCK = threading.Lock()


def session_for(target: Any) -> Session:
    """The :class:`Session` behind ``target``: itself, or one remembered per Page (for as
    long as the Page lives)."""
    if isinstance(target, Session):
        return target
    if target is None:
        raise InvalidArgument("call() needs a Page or a Session")
    with _BOUND_LOCK:
        s = _BOUND.get(target)
        if s is None:
            s = _BOUND[target] = Session(pages=OnePage(target))
        return s


# ---------------------------------------------------------------------------------------
# calling
# ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class _Ctx:
    """A call's context (:class:`~baremobile.tools.row.Ctx`)."""

    session: Session
    options: Options
    device: str | None
    time: CallTime
    files_dir: str | None = None
    _page: Any = None
    groups: Any = ()
    prefix: str = ""
    door: str = "tools"
    vocabulary: str | None = None  #: whose tool words the door speaks (their results)

    @property
    def page(self) -> Any:
        if self._page is None:
            self._page = self.session.page(self.device)
        return self._page

    def error(self, exc: BaseException) -> dict[str, str]:
        """``exc`` as data, its hint in this front door's words."""
        return error_data(exc, hint_words(self.door, self.prefix))

    def run_step(self, name: Any, arguments: Any, *, time_left: float | None = None
                 ) -> tuple[str, dict[str, Any]]:
        """One step of a batch (``execute``), on this call's device, under the lock this
        call already holds: ``(tool name, result)``; raises the step's error. A step that
        waits gets at most ``time_left`` seconds."""
        theirs = arguments
        found = _lookup(name, self.groups, self.prefix, arguments, self.vocabulary)
        tool, alias = found.tool, found.alias
        if tool.calls_in is not None or not tool.needs_device:
            raise InvalidArgument(f"{tool.name!r} cannot be a step of a batch",
                                  hint="steps are tools acting on the batch's device")
        tries = [validate(a if a is not None else {}, tool.parameters()) for a in found.tries]
        for args in tries:
            asked = args.pop("device", None)
            if asked and asked not in (self.device, self.page.serial):
                raise InvalidArgument(f"a batch acts on one device; this step names "
                                      f"{asked!r}", hint="run a batch per device")
            for key in tool.host_paths:
                hostfiles.resolve(self.files_dir, args[key])
        time = time_of(tool, tries[0], self.options)
        if time_left is not None and time.wait is not None:
            time = CallTime(max(0.0, min(time.wait, time_left)), time.floor)
        result = _run_first(tool, dataclasses.replace(self, time=time), tries)
        if alias is not None:
            result = alias.answer(result, dict(theirs or {}), self.vocabulary, self._page)
        return tool.name, result


def time_of(tool: _spec.ToolSpec, arguments: Mapping[str, Any] | None,
            options: Options) -> CallTime:
    """The time of one call of ``tool`` in a session with ``options``, resolved once
    (:func:`baremobile.timeouts.call_time`)."""
    return call_time(tool.time_facts, arguments, session_timeout=options.timeout,
                     observe=options.observe, settle=options.settle)


@dataclasses.dataclass(frozen=True)
class _Found:
    """What :func:`_lookup` found: the row, the arguments to try in turn (an alias's
    alternatives; one for every other call) and the alias it came through."""

    tool: _spec.ToolSpec
    tries: tuple[Any, ...]
    alias: Alias | None = None


def _run_first(tool: _spec.ToolSpec, ctx: Any, tries: list[dict[str, Any]]
               ) -> dict[str, Any]:
    """Run ``tool`` with the first of ``tries`` whose element is on screen: a try that
    finds nothing (``REF_NOT_FOUND``, nothing sent) gives way to the next; the first try's
    error is the one answered when none is found."""
    first: BaremobileError | None = None
    for args in tries:
        try:
            return tool.run(ctx, args)
        except BaremobileError as exc:
            if exc.code != "REF_NOT_FOUND":
                raise
            first = first or exc
    assert first is not None, "no arguments to try"  # _lookup gives at least one
    raise first


def _lookup(name: Any, groups: Any, prefix: str, arguments: Any = None,
            vocabulary: str | None = None) -> _Found:
    """The row a call of ``name`` runs, its arguments in our terms (another system's words
    taken: :mod:`baremobile.tools.aliases`; at a door speaking ``vocabulary``, its meaning of
    a shared name), and the alias it came through."""
    if not isinstance(name, str):
        raise InvalidArgument(f"a tool name is a string, not {name!r}")
    # with a prefix, only prefixed names exist (ours; another system's names carry their
    # own, e.g. ARC's android_<slug>_…)
    bare = "" if prefix and not name.startswith(prefix) else name[len(prefix):]
    alias = None
    tries: tuple[Any, ...] = (arguments,)
    if isinstance(arguments, Mapping):
        found = resolve(bare, dict(arguments), _BY_NAME, _ALIASES, prefer=vocabulary)
        if found is None and bare != name:  # another system's name, never one of ours
            found = resolve(name, dict(arguments), _BY_NAME, _ALIASES, prefer=vocabulary)
            if found is not None and found.alias is None:
                found = None
        if found is not None:
            bare, alias = found.name, found.alias
            tries = (found.args, *found.alternatives)
    tool = _spec.get(bare)
    enabled = _spec.select(groups)
    if tool is None or tool not in enabled:
        names = ", ".join(prefix + t.name for t in enabled)
        err = InvalidArgument(
            f"there is no tool {name!r}" if tool is None else
            f"tool {name!r} is in the {tool.group!r} group, which is not enabled",
            hint=f"tools are: {names}" if tool is None else
            f"enable it with groups=[{tool.group!r}] (MCP: --groups {tool.group})"
            if tool.group not in _spec.GATED_GROUPS else
            f"it runs JavaScript in the app's page: only where the operator allows it "
            f"(groups=[{tool.group!r}] with Session(allow_eval=True); MCP: --allow-eval; "
            "the CLI: a daemon started with --allow-eval)",
        )
        err.code = "UNKNOWN_TOOL"
        raise err
    return _Found(tool, tries, alias)


_BY_NAME = {t.name: t for t in _spec.TOOLS}
_ALIASES = ALIASES


def call(
    target: Any,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    groups: Any = (),
    prefix: str = "",
    observe: bool | str | None = None,
    settle: float | None = None,
    max_chars: int | None = None,
    files_dir: str | os.PathLike[str] | None = None,
    door: str = "tools",
    vocabulary: str | None = None,
) -> dict[str, Any]:
    """Run tool ``name`` with ``arguments`` on ``target`` (a Page or a :class:`Session`).

    Arguments are checked against the tool's schema first (an ``INVALID_ARGUMENT`` result
    names the parameter). ``groups`` says which tools may be called: ``core`` plus these
    groups, exactly like :func:`~baremobile.tools.schemas` — pass the same ``groups`` to
    both, so the model can call only what it was shown. ``prefix`` is stripped from
    ``name`` (``android_tap`` → ``tap``). ``observe=True`` makes action tools wait
    ``settle`` seconds and return a fresh snapshot too, ``observe="diff"`` only what
    changed since the snapshot the model was last shown; by default the session's setting
    applies (off). ``files_dir`` is the one host directory ``push_file`` / ``pull_file`` /
    ``install_app`` may use (default: the session's, None — those tools are refused).
    ``door`` is whose words an error's hint uses (``tools``, ``cli``, ``python``,
    ``daemon``). Another system's tool names and argument shapes are taken
    (:mod:`baremobile.tools.aliases`: clawperator's ``click``, AutoMobile's ``tapOn`` …);
    ``vocabulary`` names the system whose result shapes the door answers in. Never raises
    for a tool's failure: errors come back as ``{"ok": false, "error": {code, message,
    hint, category}}``, never quoting an argument the tool's verb marks secret.
    """
    shown = shown_name(name)
    session: Session | None = None
    ctx: _Ctx | None = None
    alias: Alias | None = None
    secrets = list(secrets_of(name, arguments, prefix))
    try:
        session = session_for(target)
        found = _lookup(name, groups, prefix, arguments if arguments is not None else {},
                        vocabulary)
        tool, alias = found.tool, found.alias
        tries = [validate(theirs, tool.parameters()) for theirs in found.tries]
        args = tries[0]
        options = session.options
        if observe is not None and not (isinstance(observe, bool) or observe == "diff"):
            raise InvalidArgument(f"observe must be True, False or 'diff', not {observe!r}")
        options = options.overridden(observe=observe, settle=settle, max_chars=max_chars)
        root = files_root(files_dir) if files_dir is not None else session.files_dir
        for key in tool.host_paths:  # refused before any device is reached
            for each in tries:
                hostfiles.resolve(root, each[key])
        device = args.pop("device", None) if tool.needs_device else None
        for each in tries[1:]:
            each.pop("device", None)  # an alternative acts where the first would
        ctx = _Ctx(session, options, device, time_of(tool, args, options), root,
                   groups=groups, prefix=prefix, door=door, vocabulary=vocabulary)
        if not tool.needs_device:
            result = tool.run(ctx, args)
        else:
            page = ctx.page
            # traces name the tool, its arguments as a log shows them (the verb's own record
            # keeps what the tracing keeps: typed text with typed_text=True)
            with session.acting(page), tool_call(tool.name, redacted(tool.name, args)):
                result = _run_first(tool, ctx, tries)
                if tool.acts and options.observe:
                    if options.settle > 0:
                        time.sleep(options.settle)
                    snap = _spec.observe_snapshot(ctx, diff=options.observe == "diff")
                    result.update(_spec.snapshot_result(ctx, snap, options.max_chars))
                    if tool.check is not None:
                        try:
                            tool.check(ctx, snap)
                        except BaremobileError as exc:
                            # the observation comes with the error: the model is shown it
                            # (later diffs are taken against it)
                            exc.data = {k: v for k, v in result.items() if k != "done"}
                            raise
            result = {"device": page.serial, **result}
        answer = {"ok": True, "tool": tool.name, **result}
        if alias is not None:
            answer = alias.answer(answer, dict(arguments or {}), vocabulary, ctx._page)
        return answerable(answer, shown)
    except BaremobileError as exc:
        log.info("%s failed: %s %s", shown, exc.code, scrub(exc.message, secrets))
        if isinstance(exc, PageClosed) and session is not None and ctx is not None \
                and ctx._page is not None:
            session.forget(ctx._page)  # the next call connects afresh
        out = failure(shown, exc, prefix, door=door, secrets=secrets)
        if alias is not None:
            out = alias.answer_failure(out, dict(arguments or {}), vocabulary)
        return answerable(out, shown)
    except Exception as exc:  # a bug or an unexpected answer: data, and the log has the rest
        log.error("%s raised an unexpected error: %s", shown,
                  scrub(f"{type(exc).__name__}: {exc}", secrets),
                  exc_info=not secrets)
        return answerable(failure(shown, exc, prefix, door=door, secrets=secrets), shown)
