"""Reading verbs of :class:`~baremobile.page.Page`: ``read`` (the text of the elements a
selector matches, optionally filtered by a regular expression — clawperator's ``read``)
and ``ui_xml`` (the raw ``uiautomator dump``, every attribute, for tools that want it)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from baremobile.errors import DumpFailed, InvalidArgument, RefNotFound
from baremobile.page.base import PageBase
from baremobile.page.selector import Selector
from baremobile.page.steps import verb
from baremobile.safetext import decode
from baremobile.snapshot.dump_errors import StatusScan, dump_error

__all__ = ["ReadVerbs"]


def _text(node: Any) -> str:
    return node.text or node.desc or ""


class ReadVerbs(PageBase):
    """``read`` and ``ui_xml`` (see the module's docs)."""

    @verb()
    def read(self, selector: Any, *, all: bool = False, regex: str | None = None,  # noqa: A002
             fresh: bool = True, within: Any = None) -> str | list[str]:
        """The text (or, when it has none, the description) of the first element matching
        ``selector`` — or of every match with ``all=True``. ``regex`` keeps only texts it
        finds a match in (``re.search``); with nothing left: ``REF_NOT_FOUND``. ``within``
        (a ref or a selector: a list, a dialog, a card) keeps only elements inside that
        container. Reads a fresh snapshot unless ``fresh=False``."""
        index = selector.get("index", 0) if isinstance(selector, Mapping) else \
            getattr(selector, "index", 0)
        pattern = None
        if regex is not None:
            if not isinstance(regex, str):
                raise InvalidArgument(f"regex must be a string, not {regex!r}")
            try:
                pattern = re.compile(regex)
            except re.error as exc:
                raise InvalidArgument(f"regex {regex!r} is not valid: {exc}") from None
        if fresh:
            self.snapshot()
        nodes = self.find(selector)
        if within is not None:
            inside = self._inside(within)
            nodes = [n for n in nodes if id(n) in inside]
        texts = [_text(n) for n in nodes]
        if pattern is not None:
            texts = [t for t in texts if pattern.search(t)]
        if all:
            return texts
        if len(texts) <= index:
            what = f"{dict(selector) if isinstance(selector, Mapping) else selector}" + (
                f" with text matching /{regex}/" if regex else "") + (
                f" inside {within!r}" if within is not None else "")
            raise RefNotFound(f"nothing on screen matches {what}",
                              hint="take a snapshot and check the element's text, desc or id")
        return texts[index]

    def _inside(self, within: Any) -> set[int]:
        """``id()`` of every node below the container ``within`` (a ref or a selector) in
        the last snapshot."""
        snap = self._last if self._last is not None else self.snapshot()
        if isinstance(within, int) and not isinstance(within, bool):
            if within not in snap.refs:
                raise RefNotFound(f"ref {within} is not in the last snapshot",
                                  hint="take a new snapshot and use a ref from it")
            box = snap.refs.node(within)
        else:
            sel = Selector.of(within)
            found = sel.matches(snap)
            if len(found) <= sel.position:
                raise RefNotFound(f"no container matches {sel}",
                                  hint="take a snapshot and check the container's text, "
                                       "desc, id or role")
            box = found[sel.position]
        return {id(node) for node in box.walk() if node is not box}

    @verb(waits="timeout")
    def ui_xml(self, *, timeout: float = 30.0) -> str:
        """The screen's hierarchy exactly as ``uiautomator dump`` writes it (every node,
        every attribute), without the status line the dump command prints before it.
        Prefer :meth:`snapshot` for acting: refs come from it. A failed dump raises the same
        typed errors as :meth:`snapshot` (``DeviceNotIdle``, ``NullRootNode`` …)."""
        scan = StatusScan()
        xml = bytearray()
        for chunk in self.device.dump_stream(timeout=timeout):
            if xml:
                xml += chunk
            elif (rest := scan.feed(chunk)) is not None:
                xml += rest
        if not xml:
            scan.end()
            raise dump_error(scan.text) or DumpFailed(
                "uiautomator dump printed no hierarchy: " + (scan.text.strip()[:300] or
                                                            "no output"),
                device_output=scan.text,
            )
        data = bytes(xml)
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with its byte-order mark
            return decode(data, "utf-16")
        return decode(data)
