"""What every framework adapter shares: which tools, how a call runs, what comes back.

A :class:`Bridge` is made by each adapter's ``tools()``. It renders the tool table with
:func:`baremobile.tools.schemas` (so every framework sees the names, descriptions and JSON
schemas every other front door shows) and runs each call through
:func:`baremobile.tools.call` (validation, errors as data, observe-after-acting):

* **one call at a time, in the order they were made.** Frameworks run the tool calls of one
  model turn concurrently; two calls on one device would race (the second would answer
  ``BUSY``), and "tap, then type" must happen in that order. Calls queue on the bridge's
  own worker thread instead (it ends when the tools are garbage-collected).
* **sync or async**: :meth:`Bridge.call` blocks; :meth:`Bridge.acall` awaits the same
  worker without blocking the event loop.
* **cancellation**: when the framework cancels an async call (a tool timeout, a cancelled
  run) the call is dropped if it has not started; if it is running, its cancel token is
  cancelled (:mod:`baremobile.transport.cancel`, as the MCP server does): its device I/O is
  aborted at once, the device is free, and the Page or Session reconnects on the next call.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from baremobile.calls import Worker
from baremobile.errors import InvalidArgument
from baremobile.safetext import loads
from baremobile.tools.dispatch import call, failure, session_for, shown_name, to_text
from baremobile.tools.schemas import check_prefix, schemas
from baremobile.tools.session import Session
from baremobile.tools.spec import select

__all__ = ["Bridge", "decode_arguments"]

T = TypeVar("T")


def decode_arguments(raw: Any) -> Any:
    """Tool arguments as a framework hands them over: a JSON string becomes a dict (an
    empty string is ``{}``; :func:`baremobile.safetext.loads`: any depth, any text).
    Text that is not JSON raises :class:`~baremobile.errors.InvalidArgument` saying why —
    :meth:`Bridge.call` answers it as data, like every other bad argument."""
    if isinstance(raw, (str, bytes, bytearray)):
        if not raw.strip():
            return {}
        try:
            return loads(raw)
        except ValueError as exc:
            raise InvalidArgument(f"the tool arguments are not JSON: {exc}",
                                  hint="pass the parameters as a JSON object, "
                                       "e.g. {\"ref\": 3}") from None
    return raw


def _target(target: Any) -> Any:
    """The Page or Session tools act on (an AsyncPage stands for its Page)."""
    from baremobile.page import Page
    from baremobile.page.aio import AsyncPage

    if isinstance(target, AsyncPage):
        target = target.page
    if not isinstance(target, (Page, Session)):
        raise InvalidArgument(
            f"tools() needs a Page, an AsyncPage or a tools.Session, not {type(target).__name__}",
            hint="page = baremobile.connect('virtual'), or baremobile.tools.Session()",
        )
    return target


class Bridge:
    """The tools of ``core`` plus ``groups`` for one Page or Session, and how to call them.

    ``target`` is a Page, an AsyncPage or a :class:`baremobile.tools.Session`; ``groups``
    adds optional groups (``["apps", "vision"]``, ``"all"``). ``observe`` (True: action tools
    return the fresh snapshot too), ``settle``, ``max_chars`` and ``files_dir`` are passed to
    every :func:`~baremobile.tools.call` (None: the session's setting). ``prefix`` goes before
    every tool name. ``device`` says whether the schemas carry the ``device`` parameter
    (default: only for a Session, which may drive several devices). Every adapter's
    ``tools()`` takes these same arguments.
    """

    def __init__(
        self,
        target: Any,
        *,
        groups: Any = (),
        prefix: str = "",
        observe: Any = None,
        settle: float | None = None,
        max_chars: int | None = None,
        files_dir: Any = None,
        device: bool | None = None,
    ) -> None:
        self.target = _target(target)
        self.session = session_for(self.target)
        self.groups = groups
        self.tool_specs = select(groups)  # an unknown group raises here, not per call
        self.prefix = check_prefix(prefix)
        self.device = isinstance(self.target, Session) if device is None else device
        self.options = {"observe": observe, "settle": settle, "max_chars": max_chars,
                        "files_dir": files_dir}
        #: the calls, one at a time, in order (baremobile.calls: drop, abort, await); its
        #: thread ends with the tool set
        self._worker = Worker("baremobile-tools")
        weakref.finalize(self, self._worker.stop)

    # -- the table, rendered ----------------------------------------------------------------
    def definitions(self) -> list[dict[str, Any]]:
        """``[{"name", "description", "parameters"}]`` — :func:`baremobile.tools.schemas`'
        rendering of the enabled tools (fresh dicts on every call)."""
        rendered = schemas("openai", groups=self.groups, prefix=self.prefix, device=self.device)
        return [d["function"] for d in rendered]

    def render(self, make: Callable[[Bridge, str, str, dict[str, Any]], T]) -> list[T]:
        """``make(bridge, name, description, parameters)`` for every enabled tool, in table
        order: how each adapter turns the table into its framework's tool objects."""
        return [make(self, d["name"], d["description"], d["parameters"])
                for d in self.definitions()]

    # -- calling ----------------------------------------------------------------------------
    def _run(self, name: str, arguments: Any) -> dict[str, Any]:
        try:
            decoded = decode_arguments(arguments)
        except InvalidArgument as exc:
            return failure(shown_name(name), exc, self.prefix)
        # call() answers only what every writer can encode (tools.answerable); a framework
        # hands the text to a model's API, which would fail the whole run otherwise
        return call(self.target, name, decoded, groups=self.groups, prefix=self.prefix,
                    **self.options)

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        """Run tool ``name`` (with its prefix) and return the result dict; never raises for
        the tool's failure (``{"ok": false, "error": ...}``)."""
        return self._worker.submit(lambda: self._run(name, arguments), name).result()

    async def acall(self, name: str, arguments: Any) -> dict[str, Any]:
        """:meth:`call`, awaitable; see the module docstring for cancellation."""
        call = self._worker.submit(lambda: self._run(name, arguments), name)
        return await call.wait("the framework cancelled the tool call")

    # -- results, rendered ------------------------------------------------------------------
    @staticmethod
    def text(result: dict[str, Any]) -> str:
        """What the model reads: :func:`baremobile.tools.to_text`."""
        return to_text(result)

    @staticmethod
    def image(result: dict[str, Any]) -> tuple[str, str] | None:
        """``(mime_type, base64 data)`` of a screenshot result, or None."""
        image = result.get("image") if result.get("ok") else None
        return (image["mime_type"], image["data"]) if image else None

    @staticmethod
    def facts(result: dict[str, Any]) -> dict[str, Any]:
        """The result for the program (a LangChain artifact, Pydantic AI metadata): all of
        it but the image bytes, which the model gets as an image."""
        image = result.get("image")
        if not isinstance(image, dict):
            return dict(result)
        return {**result, "image": {k: v for k, v in image.items() if k != "data"}}
