"""``call(page, name, arguments)``: run one tool and answer with data, never a traceback.

A result is a JSON-able dict. Success::

    {"ok": true, "tool": "tap", "device": "emulator-5554", "done": "tapped ref 3"}

(plus ``snapshot``/``package``/``refs``/``truncated`` when the tool observes, ``image`` for
screenshots, tool-specific keys otherwise). Failure::

    {"ok": false, "tool": "tap", "error": {"code": "REF_NOT_FOUND", "message": "…",
                                           "hint": "take a new snapshot …"}}

``error.category`` is added when the precise code belongs to a wider family (for example
``UNSUPPORTED_TEXT`` → ``INVALID_ARGUMENT``, ``DEVICE_NOT_IDLE`` → ``DUMP_FAILED``).
:func:`to_text` renders a result for an LLM; :func:`to_anthropic` makes Anthropic
``tool_result`` content blocks (text, plus the image for screenshots).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any

from baremobile.errors import BaremobileError, InvalidArgument
from baremobile.tools import spec as _spec
from baremobile.tools.session import Options, Session
from baremobile.tools.validate import validate

__all__ = ["call", "error_data", "session_for", "to_anthropic", "to_text"]

log = logging.getLogger("baremobile.tools")


# ---------------------------------------------------------------------------------------
# errors as data
# ---------------------------------------------------------------------------------------


def _category(exc: BaremobileError) -> str | None:
    """The code of the widest error family ``exc`` belongs to, when it differs from its own."""
    widest = None
    for cls in type(exc).__mro__:
        if cls is BaremobileError:
            break
        if isinstance(cls, type) and issubclass(cls, BaremobileError) and "code" in cls.__dict__:
            widest = cls.code
    return widest if widest and widest != exc.code else None


def error_data(exc: BaseException) -> dict[str, str]:
    """``{"code", "message", "hint"[, "category"]}`` for any exception."""
    if isinstance(exc, BaremobileError):
        data = exc.to_dict()
        cat = _category(exc)
        if cat:
            data["category"] = cat
        return data
    return {
        "code": "INTERNAL_ERROR",
        "message": f"{type(exc).__name__}: {exc}",
        "hint": "this is a bug in baremobile or the device answered something unexpected; "
                "take a snapshot and try another way (details are in the server log)",
    }


def _failure(name: str, exc: BaseException) -> dict[str, Any]:
    return {"ok": False, "tool": name, "error": error_data(exc)}


# ---------------------------------------------------------------------------------------
# sessions for a bare Page
# ---------------------------------------------------------------------------------------


class _PageSession(Session):
    """A session bound to one Page the caller owns (closing the session leaves it open)."""

    def __init__(self, page: Any) -> None:
        super().__init__(connect=self._refuse)
        self._page = page
        self._pages["bound"] = page

    def _refuse(self, spec: str | None, **_: Any) -> Any:  # pragma: no cover - never reached
        raise InvalidArgument("this session is bound to one page")

    def page(self, device: str | None = None) -> Any:
        device = self.spec(device)
        if device and device not in (self._page.serial, "virtual"):
            raise InvalidArgument(
                f"this tool set drives {self._page.serial}, not {device!r}",
                hint="omit device, or use baremobile.tools.Session() to drive several devices",
            )
        return self._page

    def close(self) -> None:  # the caller owns the page
        self._closed = True


_BOUND: weakref.WeakKeyDictionary[Any, _PageSession] = weakref.WeakKeyDictionary()
_BOUND_LOCK = threading.Lock()


def session_for(target: Any) -> Session:
    """The :class:`Session` behind ``target``: itself, or one remembered per Page."""
    if isinstance(target, Session):
        return target
    if target is None:
        raise InvalidArgument("call() needs a Page or a Session")
    with _BOUND_LOCK:
        s = _BOUND.get(target)
        if s is None:
            s = _BOUND[target] = _PageSession(target)
        return s


# ---------------------------------------------------------------------------------------
# calling
# ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class _Ctx:
    session: Session
    options: Options
    device: str | None
    _page: Any = None

    @property
    def page(self) -> Any:
        if self._page is None:
            self._page = self.session.page(self.device)
        return self._page


def _lookup(name: Any, groups: Any, prefix: str) -> _spec.ToolSpec:
    if not isinstance(name, str):
        raise InvalidArgument(f"a tool name is a string, not {name!r}")
    # with a prefix, only prefixed names exist
    bare = "" if prefix and not name.startswith(prefix) else name[len(prefix):]
    tool = _spec.get(bare)
    enabled = _spec.select(groups)
    if tool is None or tool not in enabled:
        names = ", ".join(prefix + t.name for t in enabled)
        err = InvalidArgument(
            f"there is no tool {name!r}" if tool is None else
            f"tool {name!r} is in the {tool.group!r} group, which is not enabled",
            hint=f"tools are: {names}" if tool is None else
            f"enable it with groups=[{tool.group!r}] (MCP: --groups {tool.group})",
        )
        err.code = "UNKNOWN_TOOL"
        raise err
    return tool


def call(
    target: Any,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    groups: Any = ("session", *_spec.OPTIONAL_GROUPS),
    prefix: str = "",
    observe: bool | None = None,
    settle: float | None = None,
    max_chars: int | None = None,
) -> dict[str, Any]:
    """Run tool ``name`` with ``arguments`` on ``target`` (a Page or a :class:`Session`).

    Arguments are checked against the tool's schema first (an ``INVALID_ARGUMENT`` result
    names the parameter). ``observe=True`` makes action tools wait ``settle`` seconds and
    return a fresh snapshot too (one call, one observation); by default the session's
    setting applies (off). ``groups`` limits which tools may be called (all by default),
    ``prefix`` is stripped from ``name`` (``android_tap`` → ``tap``). Never raises for a
    tool's failure: errors come back as ``{"ok": false, "error": {code, message, hint}}``.
    """
    shown = name if isinstance(name, str) else repr(name)
    try:
        session = session_for(target)
        tool = _lookup(name, groups, prefix)
        args = validate(arguments, tool.parameters())
        options = session.options
        overrides = {k: v for k, v in (("observe", observe), ("settle", settle),
                                       ("max_chars", max_chars)) if v is not None}
        if overrides:
            options = dataclasses.replace(options, **overrides)
        device = args.pop("device", None) if tool.needs_device else None
        ctx = _Ctx(session, options, device)
        if not tool.needs_device:
            result = tool.run(ctx, args)
        else:
            page = ctx.page
            with session.acting(page):
                result = tool.run(ctx, args)
                if tool.acts and options.observe:
                    if options.settle > 0:
                        time.sleep(options.settle)
                    snap = page.snapshot()
                    result.update(_spec.snapshot_result(ctx, snap, options.max_chars))
            result = {"device": page.serial, **result}
        return {"ok": True, "tool": tool.name, **result}
    except BaremobileError as exc:
        log.info("%s failed: %s %s", shown, exc.code, exc.message)
        return _failure(shown, exc)
    except Exception as exc:  # a bug or an unexpected answer: data, and the log has the rest
        log.exception("%s raised an unexpected error", shown)
        return _failure(shown, exc)


# ---------------------------------------------------------------------------------------
# rendering results for an LLM
# ---------------------------------------------------------------------------------------

_SHOWN_APART = ("ok", "tool", "done", "snapshot", "image")


def to_text(result: Mapping[str, Any]) -> str:
    """The result as text for an LLM: the error with its hint, or what was done, the
    other facts as compact JSON, and the snapshot text as-is (not JSON-escaped)."""
    if not result.get("ok"):
        err = result.get("error", {})
        lines = [f"error {err.get('code', 'ERROR')}: {err.get('message', '')}"]
        if err.get("hint"):
            lines.append(f"hint: {err['hint']}")
        return "\n".join(lines)
    lines = []
    if result.get("done"):
        lines.append(str(result["done"]))
    rest = {k: v for k, v in result.items() if k not in _SHOWN_APART}
    if rest:
        lines.append(json.dumps(rest, ensure_ascii=False, separators=(", ", ": ")))
    if "snapshot" in result:
        lines.append(result["snapshot"])
    if not lines:
        lines.append("ok")
    return "\n".join(lines)


def to_anthropic(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Anthropic ``tool_result`` content: a text block, plus an image block for screenshots."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": to_text(result)}]
    image = result.get("image")
    if result.get("ok") and image:
        blocks.append({"type": "image", "source": {"type": "base64",
                                                   "media_type": image["mime_type"],
                                                   "data": image["data"]}})
    return blocks


def image_bytes(result: Mapping[str, Any]) -> bytes | None:
    """The PNG of a screenshot result (None for other results)."""
    image = result.get("image")
    return base64.b64decode(image["data"]) if result.get("ok") and image else None
