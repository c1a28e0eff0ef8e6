"""The one redaction model of a recording: which arguments are hidden, and how a hidden
value is found again wherever it shows.

**Which.** The secret parameters of a verb are a fact of the verb
(:class:`~baremobile.page.steps.VerbFacts`: ``type``'s and ``edit_text``'s text, a file's,
the clipboard's, a preference's content; :func:`~baremobile.page.steps.secret_values`). A
recording writes them as given only when it keeps them (``typed_text=True``) and the call is
not inside ``tracing.sensitive()`` and does not go into a password field; otherwise they are
written as ``"<N characters>"`` (``"<N bytes>"``) with ``"hidden": true``.

**Where.** A hidden value of :data:`MIN_LENGTH` characters or more is then blanked (``•``)
in everything the recording writes afterwards — every string of every step (arguments,
tool arguments, the element a call resolved to, results, errors, snapshot texts), the
trace's own record (a test's outcome), the dumps — in each form it can take there: as
typed; escaped by the snapshot grammar (``\\"``, ``\\\\``, ``\\n``; :mod:`baremobile.safetext`);
escaped as JSON and as a Python ``repr``; escaped as an XML attribute, the way the device's
serializer writes it and with ``&apos;`` — and so is each of its words of 4 characters or
more (text is typed word by word, and a device may log each). When the recording stops,
what it wrote before a value was hidden is passed through again. Screenshots are pixels:
none is taken while the screen may show a hidden value (from the moment it is typed until a
dump shows it gone).
"""

from __future__ import annotations

import json
from typing import Any

from baremobile.safetext import escape_desc, escape_text

__all__ = ["MIN_LENGTH", "Redactor", "forms", "hidden_as"]

#: A hidden value shorter than this is not blanked elsewhere (it would blank every "a").
MIN_LENGTH = 3
#: Nor is a word of a hidden value shorter than this (it would blank every "the").
MIN_WORD = 4
BLANK = "•"


def forms(s: str) -> set[str]:
    """Every way ``s`` is written in what a recording keeps (see the module's docs)."""
    xml = (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
           .replace('"', "&quot;").replace("\n", "&#10;").replace("\r", "&#13;")
           .replace("\t", "&#9;"))
    out = {s, escape_text(s), escape_desc(s), xml, xml.replace("'", "&apos;"),
           json.dumps(s, ensure_ascii=False)[1:-1], json.dumps(s)[1:-1], repr(s)[1:-1]}
    return {f for f in out if f}


def hidden_as(value: Any) -> str:
    """What a hidden value is written as."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(value)} bytes>"
    return f"<{len(str(value))} characters>"


class Redactor:
    """The hidden values of one recording, and blanking them (not thread-safe: the
    recording's lock is held)."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._forms: list[tuple[str, str]] = []  # (form, its blank), longest first
        self._bforms: list[tuple[bytes, bytes]] = []

    def __bool__(self) -> bool:
        return bool(self._values)

    def add(self, value: Any) -> None:
        """Hide ``value`` (text, or bytes holding UTF-8 text) from now on."""
        if isinstance(value, (bytes, bytearray, memoryview)):
            try:
                value = bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                return
        if not isinstance(value, str):
            value = str(value)
        if len(value) < MIN_LENGTH or value in self._values:
            return
        self._values.add(value)
        for part in value.split():  # typed word by word: a device may log each word
            if part != value and len(part) >= MIN_WORD:
                self.add(part)
        blank = BLANK * len(value)
        pairs = {(f, blank) for f in forms(value)}
        self._forms = sorted(set(self._forms) | pairs, key=lambda p: -len(p[0]))
        self._bforms = [(f.encode("utf-8"), b.encode("utf-8")) for f, b in self._forms]

    def text(self, s: str) -> str:
        """``s`` with every hidden value blanked."""
        for form, blank in self._forms:
            if form in s:
                s = s.replace(form, blank)
        return s

    def data(self, b: bytes) -> bytes:
        """Bytes (a dump, a written record) with every hidden value blanked."""
        for form, blank in self._bforms:
            if form in b:
                b = b.replace(form, blank)
        return b

    def shows(self, b: bytes) -> bool:
        """Whether bytes hold a hidden value in any of its forms."""
        return any(form in b for form, _ in self._bforms)

    def value(self, v: Any) -> Any:
        """A JSON value with every string blanked (not the keys: a record's field names)."""
        if not self._forms:
            return v
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {k: self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v
