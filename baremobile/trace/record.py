"""Recording a page's session: ``page.tracing`` (Playwright's ``context.tracing`` shape).

>>> with connect("virtual") as page:                                   # doctest: +SKIP
...     with page.tracing.start("session.zip", screenshots=True):
...         page.launch("com.android.settings")
...         page.tap(page.find(text="Network & internet")[0])

:class:`Tracing` watches the page through its observers (:meth:`~baremobile.page.base.
PageBase.observe`: every outermost verb as a :class:`~baremobile.page.base.Step`) and the
base's dump hook (each raw dump a verb reads). Per step it writes the call (door, verb or
tool, arguments, the element the ref or selector resolved to), the result or error, the
timings, the raw dumps the step read, the text the caller was shown and, with
``screenshots``, a screenshot (before an acting verb, so its element can be outlined;
after a snapshot). The layout and its crash safety are :mod:`baremobile.trace.format`'s.

**Secrets.** Text typed with ``type`` is written as it was typed, except:

* into a password field (the element's ``password`` state) — always hidden;
* inside ``with page.tracing.sensitive():`` — hidden;
* when the tracing was started with ``typed_text=False`` (what the tool doors — MCP, the
  daemon, the CLI — do, as the tools' log does; ``BAREMOBILE_TRACE_TYPED=1`` keeps it).

Hidden text is written as ``"<N characters>"``, and a hidden text of 3 characters or more
is blanked (``•``) wherever it shows later — snapshot texts, dumps, results, tool
arguments. Screenshots are pixels: one whose screen's dump shows a hidden text is not
taken.
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
from baremobile.trace.format import FORMAT, TraceWriter, xml_of

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
#: Verbs whose argument is typed text: (verb, parameter).
_TYPED = {"type": "text"}
#: Acting verbs whose last dump shows the screen after they acted.
_LOOKS_AFTER = frozenset({"scroll_until"})
#: A hidden text shorter than this is not blanked elsewhere (it would blank every "a").
_SCRUB_MIN = 3

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
    that cannot be started is logged, and the page works on."""
    folder = os.environ.get(TRACE_ENV, "").strip()
    if not folder or page.tracing.recording:
        return None
    door = os.environ.get(DOOR_ENV, "").strip() or door
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", page.serial).strip("-.") or "device"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path(folder).expanduser() / f"{door}-{name}-{stamp}-{os.getpid()}.zip"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        page.tracing.start(path, door=door, typed_text=os.environ.get(TYPED_ENV) == "1",
                           screenshots=os.environ.get(SHOTS_ENV) == "1")
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
        self._shows_secret = False  # whether that dump showed hidden typed text
        self._acted_since_dump = False
        self._shots = 0
        self._secrets: set[str] = set()
        self._sensitive = 0

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

    def start(self, path: str | os.PathLike[str], *, screenshots: bool = False,
              typed_text: bool = True, title: str | None = None, door: str = "python",
              max_screenshots: int = 200, screenshot_width: int = 540,
              max_screenshot_bytes: int = 2_000_000) -> Tracing:
        """Start recording into ``path`` (a zip, written when :meth:`stop` is called; until
        then the steps go to ``path.recording/``). Returns the tracing, a context manager
        that stops it.

        ``screenshots``: a screenshot per step (before an acting verb, after a snapshot),
        downscaled by a whole factor to at most ``screenshot_width`` pixels when Pillow is
        installed (else kept as the device sent it); at most ``max_screenshots`` of at most
        ``max_screenshot_bytes`` each — the rest are skipped, and the step says so.
        ``typed_text``: write typed text (see the module's docs for what is hidden).
        ``door``: who drives the page (``python``, ``mcp``, ``daemon``, ``pytest``).

        The recording first reads the screen (a raw dump: the screen before the first
        step, so a replay knows where it starts).
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
                             "max_screenshot_bytes": max_screenshot_bytes}
            self._n, self._shots, self._current = 0, 0, None
            self._screen, self._shows_secret, self._acted_since_dump = None, False, False
            self._secrets = set()
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

    def stop(self, *, outcome: Mapping[str, Any] | None = None) -> Path | None:
        """Stop recording and write the trace file; returns its path (None when nothing
        was recording). ``outcome`` is kept in the trace (the pytest plugin puts a failed
        test's error there). When the last step acted and nothing read the screen since,
        the screen is read once more, so the trace knows where it ended."""
        if self._writer is None:
            return None
        if self._acted_since_dump:
            with contextlib.suppress(Exception):
                self._page._raw_dump()
                self._meta["end_dump"] = self._screen  # where the session ended
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
            writer.meta(self._meta)
            return writer.pack()

    def closing(self) -> None:
        """The page is closing: write what was recorded, without asking the device."""
        with contextlib.suppress(Exception):
            self._finish()

    @contextlib.contextmanager
    def sensitive(self) -> Iterator[None]:
        """Text typed inside is never written (see the module's docs)."""
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
            self._writer.meta(self._meta)
            folder = self._writer.folder
        return navigation_graph(open_trace(folder))

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
            self._shows_secret = any(form.encode() in data for s in self._secrets
                                     for form in _xml_forms(s))
            data = self._scrub_bytes(data)
            name = self._writer.blob("dumps", data)
            self._screen = name
            self._acted_since_dump = False
            if self._current is not None:
                self._current["dumps"].append(name)

    def step_started(self, page: PageBase, step: Step) -> None:
        with self._lock:
            if self._writer is None:
                return
            self._n += 1
            self._current = {"n": self._n, "dumps": [], "before": self._screen}
            if step.acts and self._options["screenshots"]:
                self._current["screenshot"] = self._screenshot(page, "before")

    def step_ended(self, page: PageBase, step: Step) -> None:
        with self._lock:
            writer, cur = self._writer, self._current
            if writer is None or cur is None:
                return
            self._current = None
            args = self._arguments(page, step)
            from_snapshot = self._shown(step.result)
            record: dict[str, Any] = {
                "n": cur["n"], "door": "tool" if _TOOL.get() is not None else
                self._meta["door"], "verb": step.verb, "args": args,
                "tool": None, "acts": step.acts, "started": step.started,
                "seconds": round(step.seconds, 6), "target": _target(step.target),
                "before": cur["before"], "dumps": cur["dumps"],
                "screen": cur["dumps"][-1] if cur["dumps"] else None,
                "result": from_snapshot or self._plain(step.result),
                "error": _error(step.error) if step.error is not None else None,
            }
            tool = _TOOL.get()
            if tool is not None:
                record["tool"] = {"name": tool[0], "arguments": self._plain(tool[1])}
            if "screenshot" in cur:
                record["screenshot"] = cur["screenshot"]
            elif from_snapshot and self._options["screenshots"]:
                record["screenshot"] = self._screenshot(page, "after")
            if step.acts and step.verb not in _LOOKS_AFTER:
                # an acting verb's own dumps (a focused field read) come before it acts
                self._acted_since_dump = True
            writer.step(record)

    # -- making a step's record -----------------------------------------------------------
    def _arguments(self, page: PageBase, step: Step) -> dict[str, Any]:
        try:
            sig = inspect.signature(getattr(type(page), step.verb))
            bound = sig.bind(page, *step.args, **step.kwargs)
            args = dict(list(bound.arguments.items())[1:])
        except (TypeError, ValueError, AttributeError):
            args = {"args": list(step.args), **step.kwargs}
        secret = _TYPED.get(step.verb)
        if secret is not None and isinstance(args.get(secret), str):
            text = args[secret]
            hide = (not self._options["typed_text"] or self._sensitive > 0
                    or (step.target is not None and getattr(step.target, "password", False)))
            if hide:
                args[secret] = f"<{len(text)} characters>"
                if len(text) >= _SCRUB_MIN:
                    self._secrets.add(text)
                args["hidden"] = True
        return {k: self._plain(v) for k, v in args.items()}

    def _shown(self, result: Any) -> dict[str, Any] | None:
        """What the caller was shown, when the result is a snapshot."""
        if not (hasattr(result, "full_text") and hasattr(result, "refs")):
            return None
        out: dict[str, Any] = {"kind": "snapshot", "text": self._scrub(result.text),
                               "is_diff": bool(result.is_diff), "number": result.number,
                               "package": result.package,
                               "size": [result.width, result.height]}
        if result.is_diff or result.truncated:
            out["full_text"] = self._scrub(result.full_text)
        return out

    def _plain(self, v: Any, depth: int = 0) -> Any:
        """``v`` as JSON (secrets blanked)."""
        if v is None or isinstance(v, (bool, int, float)):
            return v
        if isinstance(v, str):
            return self._scrub(v if len(v) <= 20_000 else v[:20_000] + "…")
        if depth > 6:
            return self._scrub(repr(v)[:200])
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
        return self._scrub(repr(v)[:500])

    def _scrub(self, text: str) -> str:
        for s in self._secrets:
            text = text.replace(s, "•" * len(s))
        return text

    def _scrub_bytes(self, data: bytes) -> bytes:
        for s in self._secrets:
            for form in _xml_forms(s):
                data = data.replace(form.encode("utf-8"), "•".encode() * len(s))
        return data

    def _screenshot(self, page: PageBase, when: str) -> dict[str, Any]:
        """A screenshot for the step, or why there is none."""
        opts = self._options
        if self._shots >= opts["max_screenshots"]:
            return {"skipped": f"the trace's limit of {opts['max_screenshots']} screenshots"}
        if self._shows_secret:
            return {"skipped": "the screen shows text typed as sensitive"}
        try:
            png = page.device.screencap()
        except Exception as exc:
            return {"skipped": f"the device gave none ({type(exc).__name__}: {exc})"[:300]}
        png, size, scaled = _shrink(png, opts["screenshot_width"])
        if len(png) > opts["max_screenshot_bytes"]:
            return {"skipped": f"{len(png)} bytes, over the limit of "
                               f"{opts['max_screenshot_bytes']} (install Pillow to downscale)"}
        assert self._writer is not None
        self._shots += 1
        return {"file": self._writer.blob("shots", png), "when": when, "size": size,
                "scaled": scaled}


def _xml_forms(s: str) -> set[str]:
    """``s`` as a dump can hold it: as it is, and escaped as an attribute — the way the
    device's serializer does (an apostrophe left as it is) and with ``&apos;`` (other
    dumpers)."""
    escaped = (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
               .replace('"', "&quot;").replace("\n", "&#10;"))
    return {s, escaped, escaped.replace("'", "&apos;")}


def _shrink(png: bytes, width: int) -> tuple[bytes, list[int], float]:
    """(PNG, its device size [w, h], the scale it was stored at): downscaled to ``width``
    with Pillow when it is installed, else as it came."""
    import struct

    w, h = struct.unpack(">II", png[16:24]) if len(png) >= 24 else (0, 0)
    try:
        from PIL import Image
    except ImportError:
        return png, [w, h], 1.0
    import io

    try:
        img = Image.open(io.BytesIO(png))
        if img.width <= width:
            return png, [w, h], 1.0
        factor = -(-img.width // width)  # a whole factor: box reduction, the fast way
        small = img.convert("RGB").reduce(factor)
        out = io.BytesIO()
        small.save(out, "PNG")
        return out.getvalue(), [w, h], round(small.width / img.width, 6)
    except Exception:  # a PNG Pillow cannot read: keep it as it is
        return png, [w, h], 1.0


def _target(node: Any) -> dict[str, Any] | None:
    if node is None:
        return None
    return {"ref": node.ref, "role": node.role, "label": node.label, "text": node.text,
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

    async def stop(self, *, outcome: Mapping[str, Any] | None = None) -> Path | None:
        """See :meth:`Tracing.stop`."""
        result: Path | None = await self._run(lambda: self._tracing.stop(outcome=outcome),
                                              "tracing.stop")
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
