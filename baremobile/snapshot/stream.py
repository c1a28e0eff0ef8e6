"""Incremental, hardened parsing of a ``uiautomator dump``: bytes in, :class:`Snapshot` out.

:class:`StreamPruner` is a sans-I/O state machine: ``feed(chunk)`` as bytes arrive (any chunk
boundaries — inside a tag, inside a UTF-8 sequence), then ``close()``. Parsing and pruning
happen in one pass on expat's callbacks (:mod:`~baremobile.snapshot.prune`); nothing builds a
DOM.

Safety, the way defusedxml does it, but with its hooks set on a raw expat parser: going
through ``defusedxml.expatreader`` would add the SAX layer's Python call and attributes
object per element on top of our callbacks.

* any ``<!DOCTYPE`` is refused (uiautomator never writes one, and every entity attack — billion
  laughs, quadratic blowup, external entities — needs one); entity declarations, unparsed
  entities and external references are refused too, and parameter-entity parsing is off;
* size limits are checked on the raw bytes before expat sees them: ``max_bytes`` in all and
  ``max_token_bytes`` between two ``>`` (one tag, one text run), so a 50 MB text node is
  refused after a few MB, in milliseconds;
* ``max_nesting`` bounds the element depth; nothing here recurses, so deep input can never
  raise :class:`RecursionError`.

Every failure is an :class:`~baremobile.errors.InvalidDump` (or, for device output such as
``ERROR: could not get idle state``, the matching :class:`~baremobile.errors.DumpFailed`),
never a raw ``ExpatError``.
"""

from __future__ import annotations

import pyexpat

from baremobile.errors import DumpFailed, InvalidDump
from baremobile.snapshot.dump_errors import dump_error
from baremobile.snapshot.prune import PruneState, WindowInfo
from baremobile.snapshot.refs import RefMap
from baremobile.snapshot.render import render_report
from baremobile.snapshot.result import Snapshot
from baremobile.snapshot.tree import Node

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_NESTING",
    "DEFAULT_MAX_TOKEN_BYTES",
    "StreamPruner",
    "from_xml",
]

#: Largest dump accepted, in bytes (real dumps are well under 1 MB).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: Largest run of bytes between two ``>`` (one tag with its attributes, or one text run).
DEFAULT_MAX_TOKEN_BYTES = 4 * 1024 * 1024
#: Deepest element nesting accepted (real dumps stay under 100).
DEFAULT_MAX_NESTING = 512

_BOM8 = b"\xef\xbb\xbf"
_BOM16 = (b"\xff\xfe", b"\xfe\xff")
_WS = b" \t\r\n"
_ERROR_TEXT_CAP = 64 * 1024
_SYSTEM_PACKAGES = frozenset({"com.android.systemui", "android"})


def _forbid_dtd(name: str, *_: object) -> None:
    raise InvalidDump(
        f"the dump declares a DTD (<!DOCTYPE {name[:40]}>); uiautomator never does and DTDs "
        "carry entity attacks, so it is refused"
    )


def _forbid_entity(name: str, *_: object) -> None:
    raise InvalidDump(f"the dump declares an entity ({name[:40]!r}); refused")


def _forbid_external(*_: object) -> int:
    raise InvalidDump("the dump references an external entity; refused")


def _excerpt(data: bytes, limit: int = 300) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return text + ("…" if len(data) > limit else "")


class StreamPruner:
    """Feed a dump's bytes as they arrive; :meth:`close` returns the :class:`Snapshot`.

    Keyword limits: ``max_chars``, ``max_depth``, ``max_nodes`` bound the rendered text (cut
    nodes are reported in :attr:`Snapshot.truncation`, refs are never renumbered);
    ``max_bytes``, ``max_token_bytes``, ``max_nesting`` bound what input is accepted at all.
    A UTF-8 BOM, a missing XML declaration and leading whitespace are fine. A pruner that
    raised stays failed: every later call raises the same error.
    """

    def __init__(
        self,
        *,
        max_chars: int | None = None,
        max_depth: int | None = None,
        max_nodes: int | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_token_bytes: int = DEFAULT_MAX_TOKEN_BYTES,
        max_nesting: int = DEFAULT_MAX_NESTING,
        _encoding: str | None = None,
    ) -> None:
        self._limits = {"max_chars": max_chars, "max_depth": max_depth, "max_nodes": max_nodes}
        self._max_bytes = max_bytes
        self._max_token = max_token_bytes
        self._encoding = _encoding
        self._state = PruneState(max_nesting)
        self._parser: pyexpat.XMLParserType | None = None
        self._head = b""  # bytes seen before the first '<' (BOM, whitespace)
        self._error_text: bytearray | None = None  # device output that is not XML
        self._excerpt = b""  # the first bytes of the dump, for error messages
        self._total = 0
        self._run = 0  # bytes since the last '>'
        self._finished = False  # document element closed: ignore what follows
        self._failure: DumpFailed | None = None
        self._closed = False

    # -- feeding -------------------------------------------------------------------------

    def feed(self, chunk: bytes) -> None:
        """Parse and prune the next piece of the dump (any size, any boundary)."""
        if self._failure is not None:
            raise self._failure
        if self._closed:
            raise InvalidDump("feed() after close(): start a new StreamPruner")
        if not chunk or self._finished:
            return
        if not isinstance(chunk, bytes):
            chunk = bytes(chunk)  # bytearray, memoryview
        try:
            self._check_sizes(chunk)
            if self._parser is not None:
                self._parse(chunk, False)
            elif self._error_text is not None:
                self._error_text += chunk[: _ERROR_TEXT_CAP - len(self._error_text)]
            else:
                self._prelude(chunk)
        except DumpFailed as exc:
            self._failure = exc
            raise exc.with_traceback(None) from None

    def _check_sizes(self, chunk: bytes) -> None:
        n = len(chunk)
        self._total += n
        if self._total > self._max_bytes:
            raise InvalidDump(
                f"the dump is larger than {self._max_bytes} bytes; refused",
                device_output=_excerpt(self._excerpt or chunk),
            )
        limit = self._max_token
        first = chunk.find(b">")
        if first < 0:
            self._run += n
            if self._run > limit:
                raise self._too_long()
            return
        if self._run + first > limit:
            raise self._too_long()
        last = chunk.rfind(b">")
        pos = first
        # Walk the '>'s in strides of `limit`: a window without one is an over-long run.
        while last - pos > limit + 1:
            nxt = chunk.rfind(b">", pos + 1, pos + limit + 2)
            if nxt < 0:
                raise self._too_long()
            pos = nxt
        self._run = n - last - 1

    def _too_long(self) -> InvalidDump:
        return InvalidDump(
            f"the dump has a single tag or text run longer than {self._max_token} bytes; refused",
            device_output=_excerpt(self._excerpt),
        )

    def _prelude(self, chunk: bytes) -> None:
        data = self._head + chunk
        if data.startswith(_BOM16):
            self._start_parser(data)
            return
        if len(data) < 3 and any(bom.startswith(data) for bom in (_BOM8, *_BOM16)):
            self._head = data  # maybe the first bytes of a BOM
            return
        if data.startswith(_BOM8):
            data = data[3:]
        body = data.lstrip(_WS)
        if not body:
            self._head = b""
            return
        self._head = b""
        if body[:1] == b"<":
            self._start_parser(body)
        else:
            self._error_text = bytearray(body[:_ERROR_TEXT_CAP])

    def _start_parser(self, data: bytes) -> None:
        p = pyexpat.ParserCreate(self._encoding)
        p.StartElementHandler = self._state.start
        p.EndElementHandler = self._state.end
        p.StartDoctypeDeclHandler = _forbid_dtd
        p.EntityDeclHandler = _forbid_entity
        p.UnparsedEntityDeclHandler = _forbid_entity
        p.ExternalEntityRefHandler = _forbid_external
        p.SetParamEntityParsing(pyexpat.XML_PARAM_ENTITY_PARSING_NEVER)
        self._parser = p
        self._excerpt = data[:300]
        self._parse(data, False)

    def _parse(self, data: bytes, final: bool) -> None:
        assert self._parser is not None
        try:
            self._parser.Parse(data, final)
        except pyexpat.ExpatError as exc:
            if self._state.done:
                # Text after the document element (e.g. a status line) is not ours to judge.
                self._finished = True
                return
            code = getattr(exc, "code", None)
            msg = pyexpat.ErrorString(code) if code is not None else str(exc)
            where = f"line {getattr(exc, 'lineno', '?')}, column {getattr(exc, 'offset', '?')}"
            if final and code in (
                pyexpat.errors.codes[pyexpat.errors.XML_ERROR_NO_ELEMENTS],
                pyexpat.errors.codes[pyexpat.errors.XML_ERROR_UNCLOSED_TOKEN],
                pyexpat.errors.codes[pyexpat.errors.XML_ERROR_PARTIAL_CHAR],
                pyexpat.errors.codes[pyexpat.errors.XML_ERROR_UNCLOSED_CDATA_SECTION],
            ):
                raise InvalidDump(
                    f"the dump is truncated: it ends before its last element closes ({msg})",
                    device_output=_excerpt(self._excerpt),
                ) from None
            raise InvalidDump(
                f"the dump is not well-formed XML: {msg} at {where}",
                device_output=_excerpt(self._excerpt),
            ) from None
        if self._state.done:
            self._finished = True

    # -- closing -------------------------------------------------------------------------

    def close(self) -> Snapshot:
        """Finish parsing and return the snapshot (raises :class:`DumpFailed` subclasses)."""
        if self._failure is not None:
            raise self._failure
        if self._closed:
            raise InvalidDump("close() called twice: start a new StreamPruner")
        self._closed = True
        try:
            return self._finish()
        except DumpFailed as exc:
            self._failure = exc
            raise exc.with_traceback(None) from None

    def _finish(self) -> Snapshot:
        if self._error_text is not None:
            text = bytes(self._error_text).decode("utf-8", "replace").strip()
            err = dump_error(text)
            if err is not None:
                raise err
            raise InvalidDump(
                f"not a uiautomator dump: it starts with {text[:80]!r}", device_output=text
            )
        if self._parser is None:
            if self._head:  # a lone partial BOM
                raise InvalidDump(
                    "not a uiautomator dump: it is only a few stray bytes",
                    device_output=_excerpt(self._head),
                )
            raise InvalidDump("the dump is empty", device_output="")
        if not self._finished:
            self._parse(b"", True)
        if not self._state.done:
            raise InvalidDump(
                "the dump is truncated: it ends before its last element closes",
                device_output=_excerpt(self._excerpt),
            )
        return self._snapshot()

    def _snapshot(self) -> Snapshot:
        st = self._state
        tree = Node("", children=st.roots)
        rendered = render_report(tree, **self._limits)
        width, height = _screen_size(st.windows)
        return Snapshot(
            rendered.text,
            RefMap(dict(sorted(st.refs.items()))),
            tree,
            width=width,
            height=height,
            rotation=st.rotation,
            package=_foreground_package(st.windows),
            truncation=rendered.truncation,
        )


def _screen_size(windows: list[WindowInfo]) -> tuple[int, int]:
    w = h = 0
    for win in windows:
        b = win.bounds
        if b[2] > b[0] and b[3] > b[1]:
            w = max(w, b[2])
            h = max(h, b[3])
    return w, h


def _is_secondary(win: WindowInfo) -> bool:
    """System UI, keyboards and overlays: windows that are not the app in front."""
    kind = win.kind
    if kind and kind != "TYPE_APPLICATION":
        return True
    pkg = win.package
    return pkg in _SYSTEM_PACKAGES or "inputmethod" in pkg or pkg.endswith(".ime")


def _foreground_package(windows: list[WindowInfo]) -> str:
    best: WindowInfo | None = None
    for win in windows:
        if not win.package:
            continue
        if best is None:
            best = win
            continue
        # prefer app windows over system/IME ones, then the larger window, then the earlier
        if (not _is_secondary(win), win.area) > (not _is_secondary(best), best.area):
            best = win
    return best.package if best is not None else ""


def from_xml(xml: bytes | str, **limits: int | None) -> Snapshot:
    """Prune a whole dump already in memory (tests, notebooks, tools holding a dump).

    ``xml`` is the dump's bytes, or its text (then any encoding in its XML declaration is
    ignored). ``limits`` are :class:`StreamPruner`'s keyword arguments.
    """
    if isinstance(xml, str):
        pruner = StreamPruner(**limits, _encoding="utf-8")  # type: ignore[arg-type]
        data = xml.encode("utf-8", "surrogatepass")
    else:
        pruner = StreamPruner(**limits)  # type: ignore[arg-type]
        data = bytes(xml)
    pruner.feed(data)
    return pruner.close()
