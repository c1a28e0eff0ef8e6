"""Recording a page's session: ``page.tracing`` (Playwright's ``context.tracing`` shape).

>>> with connect("virtual") as page:                                   # doctest: +SKIP
...     with page.tracing.start("session.zip", screenshots=True):
...         page.launch("com.android.settings")
...         page.tap(page.find(text="Network & internet")[0])

:class:`Tracing` watches the page through its observers (:meth:`~baremobile.page.base.
PageBase.observe`: every outermost verb as a :class:`~baremobile.page.steps.Step`) and the
base's dump hook (each raw dump a verb reads). Per step it writes the call (door, verb or
tool, arguments), what it acted on — resolved when it ran: the element its ref or selector
resolved to (bounds, ref when it has one, label), the screen it acted on and each touch it
sent (points, duration, scale, finger paths; ``Step.sent``) —, the result or error, the
timings, the raw dumps the step read (and how many touches had been sent when each was
read), the text the caller was shown and, with ``screenshots``, a screenshot (before an
acting verb, so its element can be outlined; after a snapshot). When it stops it adds the
device log of the session (``logcat.json``). The layout and its crash safety are
:mod:`baremobile.trace.format`'s.

**Secrets** are :mod:`baremobile.trace.redact`'s one model: a verb's secret parameters
(a fact of the verb) are hidden into a password field, inside ``tracing.sensitive()``, and
always when the tracing was started with ``typed_text=False`` (what the tool doors — MCP,
the daemon, the CLI — do; ``BAREMOBILE_TRACE_TYPED=1`` keeps them); a hidden value is then
blanked wherever it shows, in every escaping.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import inspect
import logging
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from baremobile.errors import InvalidArgument
from baremobile.trace.format import FORMAT, RecordingExists, TraceWriter, xml_of
from baremobile.trace.redact import Redactor, hidden_as

if TYPE_CHECKING:
    from baremobile.page.base import PageBase
    from baremobile.page.steps import Step

__all__ = ["AsyncTracing", "Tracing", "tool_call", "trace_door", "TRACE_ENV", "TYPED_ENV"]

#: A directory: the pages the tool doors (MCP, the daemon, so the CLI) open record there.
TRACE_ENV = "BAREMOBILE_TRACE"
#: Which door they are (``mcp``, ``daemon``; default ``tools``).
DOOR_ENV = "BAREMOBILE_TRACE_DOOR"
#: Set to 1 to keep typed text in the traces the tool doors write.
TYPED_ENV = "BAREMOBILE_TRACE_TYPED"
#: Set to 1 for screenshots in them.
SHOTS_ENV = "BAREMOBILE_TRACE_SCREENSHOTS"
#: Acting verbs whose last dump shows the screen after they acted (format 1's rule).
_LOOKS_AFTER = frozenset({"scroll_until"})
#: A focused password field in a dump (uiautomator writes focused before password).
_FOCUSED_PASSWORD = re.compile(rb'<node [^>]*focused="true"[^>]*password="true"')

log = logging.getLogger("baremobile.trace")

_TOOL: contextvars.ContextVar[tuple[str, Any] | None] = contextvars.ContextVar(
    "baremobile_trace_tool", default=None)


@contextlib.contextmanager
def tool_call(name: str, arguments: Any) -> Iterator[None]:
    """The page verbs run inside are one tool call ``name(arguments)`` (the dispatcher
    says so; traces show the tool beside each verb)."""
    token = _TOOL.set((name, arguments))
    try:
        yield
    finally:
        _TOOL.reset(token)


def trace_door(page: PageBase, door: str = "tools") -> Path | None:
    """Start recording ``page`` into ``$BAREMOBILE_TRACE`` when it is set (what the tool
    doors call for each page they open); returns the trace's path. Never raises: a trace
    that cannot be started is logged, and the page works on.

    Each trace gets a name no other has: ``<door>-<serial>-<time>-<pid>[-<n>].zip``, the
    first ``n`` whose zip and recording directory do not exist (the directory is created
    exclusively: two sessions in one second never share a file)."""
    folder = os.environ.get(TRACE_ENV, "").strip()
    if not folder or page.tracing.recording:
        return None
    door = os.environ.get(DOOR_ENV, "").strip() or door
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", page.serial).strip("-.") or "device"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(folder).expanduser()
    try:
        base.mkdir(parents=True, exist_ok=True)
        for n in range(1, 10_000):
            path = base / (f"{door}-{name}-{stamp}-{os.getpid()}"
                           + (f"-{n}" if n > 1 else "") + ".zip")
            if path.exists():
                continue
            try:
                page.tracing.start(path, door=door,
                                   typed_text=os.environ.get(TYPED_ENV) == "1",
                                   screenshots=os.environ.get(SHOTS_ENV) == "1")
            except RecordingExists:
                continue
            break
        else:  # pragma: no cover - ten thousand traces in one second
            raise InvalidArgument(f"no free trace name in {folder}")
    except Exception as exc:
        log.warning("cannot record a trace into %s: %s", folder, exc)
        return None
    log.info("recording %s into %s", page.serial, path)
    return path


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("baremobile")
    except Exception:  # pragma: no cover - not installed as a distribution
        return "unknown"


class Tracing:
    """Records the page's steps into a trace file (see the module's docs). One recording
    at a time per page; thread-safe."""

    def __init__(self, page: PageBase) -> None:
        self._page = page
        self._lock = threading.RLock()
        self._writer: TraceWriter | None = None
        self._options: dict[str, Any] = {}
        self._meta: dict[str, Any] = {}
        self._unobserve: Callable[[], None] | None = None
        self._n = 0
        self._current: dict[str, Any] | None = None
        self._screen: str | None = None  # the last dump seen (its name in the trace)
        self._screen_xml = b""  # and its XML (secrets already blanked)
        self._shows_secret = False  # whether the screen may show a hidden value
        self._acted_since_dump = False
        self._shots = 0
        self._redactor = Redactor()
        self._sensitive = 0
        self._failed: dict[str, Any] | None = None

    # -- the API ----------------------------------------------------------------------
    @property
    def recording(self) -> bool:
        """Whether a recording is running."""
        return self._writer is not None

    @property
    def path(self) -> Path | None:
        """Where the running recording goes (its zip)."""
        w = self._writer
        return w.target if w is not None else None

    @property
    def failed_step(self) -> dict[str, Any] | None:
        """The first step of the running recording that raised: ``{"n", "call", "error"}``
        (None when none has) — what the pytest plugin names in a failure's report."""
        return self._failed

    def start(self, path: str | os.PathLike[str], *, screenshots: bool = False,
              typed_text: bool = True, title: str | None = None, door: str = "python",
              max_screenshots: int = 200, screenshot_width: int = 540,
              max_screenshot_bytes: int = 2_000_000, logcat: bool = True) -> Tracing:
        """Start recording into ``path`` (a zip, written when :meth:`stop` is called; until
        then the steps go to ``path.recording/``). Returns the tracing, a context manager
        that stops it.

        ``screenshots``: a screenshot per step (before an acting verb, after a snapshot),
        downscaled by a whole factor to at most ``screenshot_width`` pixels when Pillow is
        installed (else kept as the device sent it); at most ``max_screenshots`` of at most
        ``max_screenshot_bytes`` each — the rest are skipped, and the step says so.
        ``typed_text``: write the verbs' secret arguments (typed text …; see the module's
        docs for what is hidden anyway). ``door``: who drives the page (``python``,
        ``mcp``, ``daemon``, ``pytest``). ``logcat``: keep the device log of the session
        (read once, when the recording stops).

        The recording first reads the screen (a raw dump: the screen before the first
        step, so a replay knows where it starts). A recording already being written at
        ``path`` (by another page, another process, or left by a crash) is never replaced:
        :class:`~baremobile.trace.format.RecordingExists`.
        """
        target = Path(path)
        with self._lock:
            if self._writer is not None:
                raise InvalidArgument(f"tracing is already recording into {self._writer.target}",
                                      hint="stop it first (page.tracing.stop())")
            if target.suffix.lower() != ".zip":
                target = target.with_name(target.name + ".zip")
            self._writer = TraceWriter(target.resolve())
            self._options = {"screenshots": bool(screenshots), "typed_text": bool(typed_text),
                             "max_screenshots": max_screenshots,
                             "screenshot_width": screenshot_width,
                             "max_screenshot_bytes": max_screenshot_bytes,
                             "logcat": bool(logcat)}
            self._n, self._shots, self._current, self._failed = 0, 0, None, None
            self._screen, self._shows_secret, self._acted_since_dump = None, False, False
            self._screen_xml = b""
            self._redactor = Redactor()
            page = self._page
            self._meta = {"format": FORMAT, "baremobile": _version(), "title": title or "",
                          "door": door, "serial": page.serial,
                          "transport": getattr(page.transport, "kind", ""),
                          "started": time.time(), "ended": None, "options": self._options,
                          "start_dump": None, "end_dump": None, "api_level": None}
            page._dump_sink = self._on_dump
            self._unobserve = page.observe(self)
        with contextlib.suppress(Exception):  # the device may not answer: it still records
            self._meta["api_level"] = page.device.api_level
        with contextlib.suppress(Exception):
            page._raw_dump()  # the screen before the first step (through _on_dump)
        with self._lock:
            if self._writer is not None:
                self._meta["start_dump"] = self._screen
                self._writer.meta(self._meta)
        return self

    def stop(self, *, outcome: Mapping[str, Any] | None = None,
             logcat: bool | None = None) -> Path | None:
        """Stop recording and write the trace file; returns its path (None when nothing
        was recording). ``outcome`` is kept in the trace (the pytest plugin puts a failed
        test's error and source lines there). When the last step acted and nothing read
        the screen since, the screen is read once more, so the trace knows where it ended.
        The device log of the session is read (one round trip) unless the recording was
        started without ``logcat`` or ``logcat=False`` is given here. Raises only typed
        errors (a recording directory removed meanwhile: ``LOCAL_IO_ERROR``)."""
        if self._writer is None:
            return None
        if self._acted_since_dump:
            with contextlib.suppress(Exception):
                self._page._raw_dump()
                self._meta["end_dump"] = self._screen  # where the session ended
        if self._options.get("logcat") and logcat is not False:
            with contextlib.suppress(Exception):  # the log is a courtesy: never fails a stop
                self._read_log()
        return self._finish(outcome)

    def _finish(self, outcome: Mapping[str, Any] | None = None) -> Path | None:
        with self._lock:
            writer = self._writer
            if writer is None:
                return None
            if self._unobserve is not None:
                self._unobserve()
            self._page._dump_sink = None
            self._writer, self._unobserve, self._current = None, None, None
            self._meta.update(ended=time.time(), steps=self._n)
            if outcome is not None:
                self._meta["outcome"] = self._plain(dict(outcome))
            try:
                writer.meta(self._redactor.value(self._meta))
                if self._redactor:  # what was written before a value was hidden
                    writer.rewrite(self._redactor.value, self._redactor.data)
            except BaseException:
                writer.abandon()
                raise
            return writer.pack()

    def closing(self) -> None:
        """The page is closing: write what was recorded, without asking the device."""
        with contextlib.suppress(Exception):
            self._finish()

    @contextlib.contextmanager
    def sensitive(self) -> Iterator[None]:
        """Secret arguments of the verbs called inside are never written (see the module's
        docs)."""
        with self._lock:
            self._sensitive += 1
        try:
            yield
        finally:
            with self._lock:
                self._sensitive -= 1

    def graph(self) -> dict[str, Any]:
        """The navigation graph of what is recorded so far
        (:func:`baremobile.trace.graph.navigation_graph`)."""
        from baremobile.trace.format import open_trace
        from baremobile.trace.graph import navigation_graph

        with self._lock:
            if self._writer is None:
                raise InvalidArgument("nothing is being recorded",
                                      hint="start a recording (page.tracing.start(path))")
            self._writer.meta(self._redactor.value(self._meta))
            folder = self._writer.folder
        with open_trace(folder) as trace:
            return navigation_graph(trace)

    def __enter__(self) -> Tracing:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- what the page tells ------------------------------------------------------------
    def _on_dump(self, data: bytes) -> None:
        with self._lock:
            if self._writer is None:
                return
            data = xml_of(data)  # the status text names a per-call file: not the screen
            red = self._redactor
            self._shows_secret = red.shows(data)
            data = red.data(data)
            name = self._writer.blob("dumps", data)
            self._screen, self._screen_xml = name, data
            self._acted_since_dump = False
            cur = self._current
            if cur is not None:
                cur["dumps"].append(name)
                cur["sent_before"].append(len(cur["step"].sent))

    def step_started(self, page: PageBase, step: Step) -> None:
        """A verb began on ``page``: its step is recorded from here (a no-op when not recording)."""
        with self._lock:
            if self._writer is None:
                return
            self._n += 1
            self._current = {"n": self._n, "dumps": [], "sent_before": [],
                             "before": self._screen, "before_xml": self._screen_xml,
                             "step": step}
            if step.acts and self._options["screenshots"]:
                self._current["screenshot"] = self._screenshot(page, "before")

    def step_ended(self, page: PageBase, step: Step) -> None:
        """A verb ended: its step (result or error, what it sent and read) goes into the
        trace."""
        with self._lock:
            writer, cur = self._writer, self._current
            if writer is None or cur is None:
                return
            self._current = None
            args, hid = self._arguments(page, step, cur)
            from_snapshot = self._shown(step.result)
            sent, on = self._sent(step, cur)
            record: dict[str, Any] = {
                "n": cur["n"], "door": "tool" if _TOOL.get() is not None else
                self._meta["door"], "verb": step.verb, "args": args,
                "tool": None, "acts": step.acts, "started": step.started,
                "seconds": round(step.seconds, 6), "target": _target(step.target),
                "before": cur["before"], "on": on if step.acts else None,
                "dumps": cur["dumps"], "sent_before": cur["sent_before"], "sent": sent,
                "screen": cur["dumps"][-1] if cur["dumps"] else None,
                "result": from_snapshot or self._plain(step.result),
                "error": _error(step.error) if step.error is not None else None,
            }
            tool = _TOOL.get()
            if tool is not None:
                record["tool"] = {"name": tool[0],
                                  "arguments": _hide_equal(self._plain(tool[1]), hid)}
            if hid and step.acts:
                self._shows_secret = True  # on screen until a dump shows it gone
            if "screenshot" in cur:
                record["screenshot"] = cur["screenshot"]
            elif from_snapshot and self._options["screenshots"]:
                record["screenshot"] = self._screenshot(page, "after")
            if step.acts and step.verb not in _LOOKS_AFTER:
                # an acting verb's own dumps (a focused field read) come before it acts
                self._acted_since_dump = True
            record = self._redactor.value(record)
            if record["error"] is not None and self._failed is None:
                from baremobile.trace.format import call_text

                self._failed = {"n": record["n"], "call": call_text(record),
                                "error": record["error"]}
            writer.step(record)

    # -- making a step's record -----------------------------------------------------------
    def _arguments(self, page: PageBase, step: Step, cur: dict[str, Any]
                   ) -> tuple[dict[str, Any], list[Any]]:
        """(the call's arguments by name, secrets hidden; the values hidden)."""
        from baremobile.page.steps import facts, secret_values  # (page/ imports tracing)

        fn = getattr(type(page), step.verb, None)
        try:
            if fn is None:
                raise AttributeError(step.verb)
            sig = inspect.signature(fn)
            bound = sig.bind(page, *step.args, **step.kwargs)
            args = dict(list(bound.arguments.items())[1:])
        except (TypeError, ValueError, AttributeError):
            args = {"args": list(step.args), **step.kwargs}
        secret = secret_values(fn, step.args, step.kwargs) if facts(fn) is not None else {}
        hid: list[Any] = []
        if secret and self._hides(step, cur):
            for name, value in secret.items():
                if value is None:
                    continue
                hid.append(value)
                self._redactor.add(value)
                if name in args:
                    args[name] = hidden_as(value)
                elif name.startswith("#") and "args" in args:  # a call the verb refused
                    i = int(name[1:])
                    if i < len(args["args"]):
                        args["args"][i] = hidden_as(value)
            if hid:
                args["hidden"] = True
        return {k: self._plain(v) for k, v in args.items()}, hid

    def _hides(self, step: Step, cur: dict[str, Any]) -> bool:
        """Whether this call's secret arguments are hidden (see the module's docs)."""
        if not self._options["typed_text"] or self._sensitive > 0:
            return True
        if step.target is not None:
            return bool(getattr(step.target, "password", False))
        screens = [cur["before_xml"], *(self._screens(cur))]
        return any(_FOCUSED_PASSWORD.search(xml) for xml in screens if xml)

    def _screens(self, cur: dict[str, Any]) -> list[bytes]:
        """The XML of the dumps the current step read (the last one only: the screen it
        acted on, for ``type(None, …)``)."""
        return [self._screen_xml] if cur["dumps"] else []

    def _sent(self, step: Step, cur: dict[str, Any]
              ) -> tuple[list[dict[str, Any]], str | None]:
        """(each touch the step sent, with the screen it was sent on; the screen the step
        acted on: the last dump before its first touch, or — for a verb without touches —
        the last it read)."""
        dumps, counts = cur["dumps"], cur["sent_before"]
        out = []
        for k, touch in enumerate(step.sent):
            seen = [d for d, c in zip(dumps, counts, strict=True) if c <= k]
            out.append({**_plain_touch(touch), "screen": seen[-1] if seen else cur["before"]})
        if out:
            return out, out[0]["screen"]
        return out, dumps[-1] if dumps else cur["before"]

    def _shown(self, result: Any) -> dict[str, Any] | None:
        """What the caller was shown, when the result is a snapshot."""
        if not (hasattr(result, "full_text") and hasattr(result, "refs")):
            return None
        out: dict[str, Any] = {"kind": "snapshot", "text": result.text,
                               "is_diff": bool(result.is_diff), "number": result.number,
                               "package": result.package,
                               "size": [result.width, result.height]}
        if result.is_diff or result.truncated:
            out["full_text"] = result.full_text
        return out

    def _plain(self, v: Any, depth: int = 0) -> Any:
        """``v`` as JSON (secrets are blanked when the record is written)."""
        if v is None or isinstance(v, (bool, int, float)):
            return v
        if isinstance(v, str):
            return v if len(v) <= 20_000 else v[:20_000] + "…"
        if depth > 6:
            return repr(v)[:200]
        if isinstance(v, (bytes, bytearray)):
            return f"<{len(v)} bytes>"
        if isinstance(v, Path):
            return str(v)
        if hasattr(v, "ref") and hasattr(v, "center"):
            return {"ref": v.ref}
        if isinstance(v, Mapping):
            return {str(k): self._plain(x, depth + 1) for k, x in v.items()}
        if isinstance(v, (list, tuple, set, frozenset)):
            items = list(v)
            return [self._plain(x, depth + 1) for x in items[:200]] + \
                (["…"] if len(items) > 200 else [])
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {f.name: self._plain(getattr(v, f.name), depth + 1)
                    for f in dataclasses.fields(v) if getattr(v, f.name) is not None}
        if hasattr(v, "png") and hasattr(v, "save"):  # a Screenshot
            return {"kind": "screenshot", "bytes": len(getattr(v, "png", b"") or b"")}
        return repr(v)[:500]

    def _screenshot(self, page: PageBase, when: str) -> dict[str, Any]:
        """A screenshot for the step, or why there is none."""
        opts = self._options
        if self._shots >= opts["max_screenshots"]:
            return {"skipped": f"the trace's limit of {opts['max_screenshots']} screenshots"}
        if self._shows_secret:
            return {"skipped": "the screen may show text typed as sensitive"}
        try:
            png = page.device.screencap()
        except Exception as exc:
            return {"skipped": f"the device gave none ({type(exc).__name__}: {exc})"[:300]}
        from baremobile.page.screenshot import shrink_png  # the one image gate

        try:
            png, size, scaled = shrink_png(png, opts["screenshot_width"])
        except Exception as exc:  # the one image gate refused it (too large, damaged)
            return {"skipped": f"{getattr(exc, 'message', exc)}"[:300]}
        if len(png) > opts["max_screenshot_bytes"]:
            return {"skipped": f"{len(png)} bytes, over the limit of "
                               f"{opts['max_screenshot_bytes']} (install Pillow to downscale)"}
        assert self._writer is not None
        self._shots += 1
        return {"file": self._writer.blob("shots", png), "when": when, "size": size,
                "scaled": scaled}

    def _read_log(self) -> None:
        """The device log of the session into the trace (``logcat.json``;
        :func:`baremobile.trace.devicelog.session_log`)."""
        from baremobile.trace.devicelog import session_log

        log = session_log(self._page.transport, float(self._meta["started"]))
        with self._lock:
            if self._writer is not None:
                self._writer.logcat(self._redactor.value(log))
                self._meta["logcat"] = True


def _plain_touch(touch: Any) -> Any:
    """A touch as the step sent it (``Step.sent``) as JSON (tuples become lists)."""
    if isinstance(touch, Mapping):
        return {str(k): _plain_touch(v) for k, v in touch.items()}
    if isinstance(touch, (list, tuple)):
        return [_plain_touch(v) for v in touch]
    return touch


def _hide_equal(value: Any, hidden: list[Any]) -> Any:
    """``value`` with every string equal to a value hidden in this call written as hidden
    (a tool's arguments hold the verb's: short ones are not blanked elsewhere)."""
    if not hidden:
        return value
    texts = {h if isinstance(h, str) else None for h in hidden} - {None}
    if isinstance(value, str):
        return hidden_as(value) if value in texts else value
    if isinstance(value, dict):
        return {k: _hide_equal(v, hidden) for k, v in value.items()}
    if isinstance(value, list):
        return [_hide_equal(v, hidden) for v in value]
    return value


def _target(node: Any) -> dict[str, Any] | None:
    """The element a call resolved to (a selector that matched plain text: ref None)."""
    if node is None:
        return None
    return {"ref": node.ref or None, "role": node.role, "label": node.label, "text": node.text,
            "desc": node.desc, "id": node.resource_id, "cls": node.cls,
            "bounds": list(node.bounds), "raw_bounds": list(node.raw_bounds),
            "center": list(node.center), "password": bool(node.password),
            "editable": bool(node.editable), "focused": bool(node.focused),
            "package": node.package}


def _error(exc: BaseException) -> dict[str, Any]:
    return {"type": type(exc).__name__, "code": getattr(exc, "code", None),
            "message": getattr(exc, "message", None) or str(exc),
            "hint": getattr(exc, "hint", None) or None}


class AsyncTracing:
    """``AsyncPage.tracing``: the same recording, its device I/O on the page's worker."""

    def __init__(self, tracing: Tracing,
                 run: Callable[[Callable[[], Any], str], Awaitable[Any]]) -> None:
        self._tracing = tracing
        self._run = run

    @property
    def recording(self) -> bool:
        """Whether a recording is running."""
        return self._tracing.recording

    async def start(self, path: str | os.PathLike[str], **options: Any) -> AsyncTracing:
        """See :meth:`Tracing.start`; an async context manager that stops it."""
        await self._run(lambda: self._tracing.start(path, **options), "tracing.start")
        return self

    async def stop(self, *, outcome: Mapping[str, Any] | None = None,
                   logcat: bool | None = None) -> Path | None:
        """See :meth:`Tracing.stop`."""
        result: Path | None = await self._run(
            lambda: self._tracing.stop(outcome=outcome, logcat=logcat), "tracing.stop")
        return result

    def sensitive(self) -> contextlib.AbstractContextManager[None]:
        """See :meth:`Tracing.sensitive`."""
        return self._tracing.sensitive()

    async def graph(self) -> dict[str, Any]:
        """See :meth:`Tracing.graph`."""
        result: dict[str, Any] = await self._run(self._tracing.graph, "tracing.graph")
        return result

    async def __aenter__(self) -> AsyncTracing:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.stop()
