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
* size limits are checked on the raw bytes as each chunk arrives, before expat sees them:
  ``max_bytes`` in all and ``max_token_bytes`` between two ``>`` (one tag, one text run), so
  a 50 MB text node is refused after a few MB, in milliseconds;
* the encoding is forced: UTF-8, or UTF-16 when the dump starts with its BOM. uiautomator
  writes nothing else, and an ``encoding`` in the XML declaration is ignored (expat would
  otherwise look it up among Python's codecs and raise ``LookupError``/``ValueError``);
* expat 2.5 re-scans an unfinished token from its start on every ``Parse`` call, so feeding
  a long tag in small chunks costs O(token x chunks). ``feed`` therefore holds chunks back
  while expat still holds an unfinished token at least as long as what is pending: each
  byte is then scanned O(1) times in all, whatever the chunking;
* ``max_nesting`` bounds the element depth; nothing here recurses, so deep input can never
  raise :class:`RecursionError`; ``max_elements`` and ``max_refs`` bound the work and the
  memory a dump may cost whatever its size (each kept node holds its attributes);
* text before the XML (what ``uiautomator dump`` prints, then ``cat`` of its file) is read
  past in one pass over any chunking (:class:`~baremobile.snapshot.dump_errors.StatusScan`),
  and a failure it names raises its typed error: the Page feeds the device's output
  untouched, so it and :func:`from_xml` take one path;
* ``feed(chunk, last=True)`` lets expat know the input ends: expat 2.5 otherwise re-walks
  every byte of a non-final ``Parse`` to count lines.

Every failure is an :class:`~baremobile.errors.InvalidDump` (:class:`DumpTooLarge` for a
limit; for device output such as ``ERROR: could not get idle state``, the matching
:class:`~baremobile.errors.DumpFailed`), never a raw ``ExpatError``.
"""

from __future__ import annotations

import contextlib
import pyexpat
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypedDict

from baremobile.errors import DumpFailed, DumpTooLarge, InvalidArgument, InvalidDump
from baremobile.safetext import decode
from baremobile.snapshot.dump_errors import MAX_STATUS_BYTES, StatusScan, dump_error
from baremobile.snapshot.identity import RefTracker
from baremobile.snapshot.prune import (
    DEFAULT_ELEMENTS,
    DEFAULT_NESTING,
    DEFAULT_REFS,
    PruneState,
)
from baremobile.snapshot.result import Snapshot
from baremobile.snapshot.screen import build_snapshot

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ELEMENTS",
    "DEFAULT_MAX_NESTING",
    "DEFAULT_MAX_REFS",
    "DEFAULT_MAX_TOKEN_BYTES",
    "StreamPruner",
    "from_xml",
]

#: Largest dump accepted, in bytes (real dumps are well under 1 MB).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: Largest run of bytes between two ``>`` (one tag with its attributes, or one text run).
DEFAULT_MAX_TOKEN_BYTES = 4 * 1024 * 1024
#: Deepest element nesting accepted (real dumps stay under 100).
DEFAULT_MAX_NESTING = DEFAULT_NESTING
#: Most elements accepted (the largest dump of the real-dump corpus has 504 nodes).
DEFAULT_MAX_ELEMENTS = DEFAULT_ELEMENTS
#: Most refs accepted (the corpus has at most 74 on one screen).
DEFAULT_MAX_REFS = DEFAULT_REFS



class Limits(TypedDict, total=False):
    """:class:`StreamPruner`'s limits, as keyword arguments (:func:`from_xml` takes them)."""

    max_chars: int | None
    max_depth: int | None
    max_nodes: int | None
    max_bytes: int
    max_token_bytes: int
    max_nesting: int
    max_elements: int
    max_refs: int


_BOM8 = b"\xef\xbb\xbf"
_BOM16 = (b"\xff\xfe", b"\xfe\xff")
_WS = b" \t\r\n"
_WS16 = frozenset(" \t\r\n")
_DECLARED = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']""")
_ERR = pyexpat.errors.codes
_TRUNCATED = frozenset(
    _ERR[e]
    for e in (
        pyexpat.errors.XML_ERROR_NO_ELEMENTS,
        pyexpat.errors.XML_ERROR_UNCLOSED_TOKEN,
        pyexpat.errors.XML_ERROR_PARTIAL_CHAR,
        pyexpat.errors.XML_ERROR_UNCLOSED_CDATA_SECTION,
    )
)


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
    text = decode(data[:limit])
    return text + ("…" if len(data) > limit else "")


class StreamPruner:
    """Feed a dump's bytes as they arrive; :meth:`close` returns the :class:`Snapshot`.

    Keyword limits: ``max_chars``, ``max_depth``, ``max_nodes`` bound the rendered text (cut
    nodes are reported in :attr:`Snapshot.truncation`, refs are never renumbered);
    ``tracker`` (a Page's :class:`~baremobile.snapshot.identity.RefTracker`) keeps refs
    stable across snapshots; without one they are ``1..N`` in line order.
    ``max_bytes``, ``max_token_bytes``, ``max_nesting``, ``max_elements`` and ``max_refs``
    bound what input is accepted at all (:class:`~baremobile.errors.DumpTooLarge` names the
    one exceeded). A UTF-8 BOM, a missing XML declaration and leading whitespace are fine;
    so is the text the dump command prints before the XML (``UI hierchary dumped to: …``),
    which is checked for its known failures (:func:`dump_error`). ``feed`` takes bytes-like
    chunks, or ``str`` (encoded as UTF-8). A pruner that raised stays failed: every later
    call raises the same error (an argument of the wrong type is refused with
    :class:`InvalidArgument` before anything is read, and does not count).
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
        max_elements: int = DEFAULT_MAX_ELEMENTS,
        max_refs: int = DEFAULT_MAX_REFS,
        tracker: RefTracker | None = None,
        splice: Callable[[PruneState], tuple[Callable[[str, list[str]], None],
                                             Callable[[str], None]]] | None = None,
    ) -> None:
        self._tracker = tracker
        #: wraps the pruner's element handlers (the merged snapshot splices a page's nodes
        #: into a WebView this way): ``splice(state)`` → ``(start, end)``
        self._splice = splice
        self._limits = {"max_chars": max_chars, "max_depth": max_depth, "max_nodes": max_nodes}
        self._max_bytes = max_bytes
        self._max_token = max_token_bytes
        self._state = PruneState(max_nesting, max_elements, max_refs)
        self._parser: pyexpat.XMLParserType | None = None
        self._head = b""  # bytes seen before the first '<' (BOM, whitespace)
        self._status: StatusScan | None = None  # device text before the XML, being scanned
        self._excerpt = b""  # the first bytes of the dump, for error messages
        self._total = 0
        self._run = 0  # bytes since the last '>'
        self._pending: list[bytes] = []  # chunks held back from expat (see _push)
        self._pending_len = 0
        self._fed = 0  # bytes handed to expat
        self._held = 0  # bytes of an unfinished token expat holds from the last Parse
        self._finished = False  # document element closed: ignore what follows
        self._last = False  # the caller said the last chunk has come
        self._parsed_final = False  # expat was told the input ended
        self._failure: DumpFailed | None = None
        self._closed = False

    # -- feeding -------------------------------------------------------------------------

    def feed(self, chunk: bytes | bytearray | memoryview | str, *, last: bool = False) -> None:
        """Parse and prune the next piece of the dump (any size, any boundary).

        ``chunk`` is bytes-like, or a ``str`` (encoded as UTF-8, like :func:`from_xml`).
        ``last=True`` says no more chunks follow (``close()`` is still needed): expat is
        then told the input ends, which spares it a pass over the bytes to count lines.
        """
        if self._failure is not None:
            raise self._failure
        if self._closed:
            raise InvalidDump("feed() after close(): start a new StreamPruner")
        if self._last:
            raise InvalidDump("feed() after the last chunk: start a new StreamPruner")
        if not isinstance(chunk, bytes):
            if isinstance(chunk, str):
                chunk = chunk.encode("utf-8", "surrogatepass")
            elif isinstance(chunk, (bytearray, memoryview)):
                chunk = bytes(chunk)
            else:
                raise InvalidArgument(
                    f"feed() takes bytes (or str), not {type(chunk).__name__}"
                ).with_traceback(None)
        if self._finished or not (chunk or last):
            return
        with self._sticky_failure():
            self._last = last
            if chunk:
                self._check_sizes(chunk)
            if self._parser is not None:
                self._push(chunk)
            elif self._status is not None:
                self._scan(chunk)
            elif chunk:
                self._prelude(chunk)

    def _check_sizes(self, chunk: bytes) -> None:
        n = len(chunk)
        self._total += n
        if self._total > self._max_bytes:
            raise DumpTooLarge(
                f"the dump is larger than {self._max_bytes} bytes (max_bytes); refused",
                limit="max_bytes",
                value=self._max_bytes,
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
        if self._run > limit:  # the run after the last '>' is already too long
            raise self._too_long()

    def _too_long(self) -> InvalidDump:
        return DumpTooLarge(
            f"the dump has a single tag or text run longer than {self._max_token} bytes "
            "(max_token_bytes); refused",
            limit="max_token_bytes",
            value=self._max_token,
            device_output=_excerpt(self._excerpt),
        )

    def _prelude(self, chunk: bytes) -> None:
        data = self._head + chunk
        if data.startswith(_BOM16):
            self._prelude16(data)
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
        else:  # text before the XML (the dump command's status line), or no dump at all
            self._status = StatusScan()
            self._scan(body)

    def _scan(self, chunk: bytes) -> None:
        """Status text: find where the XML starts; a known failure there raises at once."""
        status = self._status
        assert status is not None
        rest = status.feed(chunk)
        if rest is None:
            if status.pending > MAX_STATUS_BYTES:
                text = status.text.strip()
                raise dump_error(text) or InvalidDump(
                    f"not a uiautomator dump: {MAX_STATUS_BYTES} bytes of text and no "
                    f"hierarchy; it starts with {text[:80]!r}",
                    device_output=text,
                )
            if self._last:
                self._status_only()
            return
        err = dump_error(status.text)
        if err is not None:
            raise err
        self._status = None
        self._prelude(rest)

    def _status_only(self) -> None:
        """The input ended in status text: the device's error, or no dump at all."""
        status = self._status
        assert status is not None
        status.end()
        text = status.text.strip()
        err = dump_error(text)
        if err is not None:
            raise err
        raise InvalidDump(
            f"not a uiautomator dump: no hierarchy, only the text {text[:80]!r}",
            device_output=text,
        )

    def _prelude16(self, data: bytes) -> None:
        """UTF-16 with a BOM: skip leading whitespace; only a BOM and whitespace is empty."""
        bom, rest = data[:2], data[2:]
        even = len(rest) & ~1
        text = decode(rest[:even], "utf-16-le" if bom == b"\xff\xfe" else "utf-16-be")
        skip = 0
        while skip < len(text) and text[skip] in _WS16:
            skip += 1
        if skip == len(text):
            self._head = bom + rest[even:]  # wait for more (an odd byte at most)
            return
        self._head = b""
        self._start_parser(bom + rest[2 * skip :], "UTF-16")

    def _start_parser(self, data: bytes, encoding: str = "UTF-8") -> None:
        p = pyexpat.ParserCreate(encoding)
        # attributes as one list [name, value, ...]: cheaper for expat to build than a dict,
        # and read through one getter per attribute layout (see prune._layout)
        p.ordered_attributes = True
        if self._splice is not None:
            p.StartElementHandler, p.EndElementHandler = self._splice(self._state)
        else:
            p.StartElementHandler = self._state.start
            p.EndElementHandler = self._state.end
        p.StartDoctypeDeclHandler = _forbid_dtd
        p.EntityDeclHandler = _forbid_entity
        p.UnparsedEntityDeclHandler = _forbid_entity
        p.ExternalEntityRefHandler = _forbid_external
        p.SetParamEntityParsing(pyexpat.XML_PARAM_ENTITY_PARSING_NEVER)
        self._parser = p
        self._excerpt = data[:300]
        self._push(data)

    def _push(self, chunk: bytes) -> None:
        """Hand ``chunk`` to expat, or hold it back while expat holds a longer unfinished token.

        Expat re-scans an unfinished token from its start on every ``Parse``. Calling
        ``Parse`` only once the pending bytes are at least as many as expat holds makes the
        held token at least double between re-scans, so the re-scanning costs O(bytes) in
        all. Usually expat holds a few hundred bytes at most and every chunk goes straight
        through. Expat's results do not depend on where its input is cut, so neither do ours.
        """
        self._pending.append(chunk)
        self._pending_len += len(chunk)
        if self._last:
            self._flush(True)
        elif self._pending_len >= self._held:
            self._flush(False)

    def _flush(self, final: bool) -> None:
        pending = self._pending
        data = pending[0] if len(pending) == 1 else b"".join(pending)
        pending.clear()
        self._pending_len = 0
        self._parsed_final = final
        self._parse(data, final)
        if not final and not self._finished:
            assert self._parser is not None
            self._fed += len(data)
            done = self._parser.CurrentByteIndex  # where the unfinished token starts
            self._held = self._fed - done if done >= 0 else self._fed

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
            if final and code in _TRUNCATED:
                raise InvalidDump(
                    f"the dump is truncated: it ends before its last element closes ({msg})",
                    device_output=_excerpt(self._excerpt),
                ) from None
            raise InvalidDump(
                f"the dump is not well-formed XML: {msg} at {where}{self._encoding_note()}",
                device_output=_excerpt(self._excerpt),
            ) from None
        except (LookupError, ValueError) as exc:  # codec trouble; cannot happen when forced
            raise InvalidDump(
                f"the dump cannot be decoded: {exc}", device_output=_excerpt(self._excerpt)
            ) from None
        if self._state.done:
            self._finished = True

    def _encoding_note(self) -> str:
        m = _DECLARED.match(self._excerpt)
        if m is None or m.group(1).lower().replace(b"_", b"-") in (b"utf-8", b"utf8", b"utf-16"):
            return ""
        name = m.group(1).decode("ascii")
        return f" (it declares encoding {name!r}; dumps are read as UTF-8, or UTF-16 with a BOM)"

    # -- closing -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _sticky_failure(self) -> Iterator[None]:
        """A failure is remembered: every later feed()/close() raises the same error."""
        try:
            yield
        except DumpFailed as exc:
            self._failure = exc
            raise exc.with_traceback(None) from None
        except Exception as exc:
            self._failure = InvalidDump(
                f"the pruner broke on this dump ({type(exc).__name__}: {exc}); "
                "start a new StreamPruner"
            )
            raise

    def close(self) -> Snapshot:
        """Finish parsing and return the snapshot (raises :class:`DumpFailed` subclasses)."""
        if self._failure is not None:
            raise self._failure
        if self._closed:
            raise InvalidDump("close() called twice: start a new StreamPruner")
        self._closed = True
        with self._sticky_failure():
            return self._finish()
        raise AssertionError("unreachable")  # pragma: no cover - for type checkers

    def _finish(self) -> Snapshot:
        if self._status is not None:
            self._status_only()
        if self._parser is None:
            if self._head and self._head not in _BOM16:  # a partial BOM, an odd byte
                raise InvalidDump(
                    "not a uiautomator dump: it is only a few stray bytes",
                    device_output=_excerpt(self._head),
                )
            raise InvalidDump("the dump is empty", device_output="")
        if not (self._finished or self._parsed_final):
            self._flush(True)
        if not self._state.done:
            raise InvalidDump(
                "the dump is truncated: it ends before its last element closes",
                device_output=_excerpt(self._excerpt),
            )
        return self._snapshot()

    def _snapshot(self) -> Snapshot:
        return build_snapshot(self._state, self._limits, self._tracker)


def from_xml(xml: bytes | str, **limits: Unpack[Limits]) -> Snapshot:
    """Prune a whole dump already in memory (tests, notebooks, tools holding a dump).

    ``xml`` is the dump's bytes, or its text (encoded as UTF-8). Any encoding in the XML
    declaration is ignored: dumps are read as UTF-8, or as UTF-16 when they start with its
    BOM. ``limits`` are :class:`StreamPruner`'s keyword arguments.
    """
    pruner = StreamPruner(**limits)
    pruner.feed(xml, last=True)
    return pruner.close()
