"""Reading verbs of :class:`~baremobile.page.Page`: ``read`` (the text of the elements a
selector matches, optionally filtered by a regular expression — clawperator's ``read``)
and ``ui_xml`` (the raw ``uiautomator dump``, every attribute, for tools that want it)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from baremobile.errors import DumpFailed, InvalidArgument, RefNotFound
from baremobile.page.base import PageBase, verb
from baremobile.safetext import decode
from baremobile.snapshot.dump_errors import StatusScan, dump_error

__all__ = ["ReadVerbs"]


def _text(node: Any) -> str:
    return node.text or node.desc or ""


class ReadVerbs(PageBase):
    """``read`` and ``ui_xml`` (see the module's docs)."""

    @verb()
    def read(self, selector: Any, *, all: bool = False, regex: str | None = None,  # noqa: A002
             fresh: bool = True) -> str | list[str]:
        """The text (or, when it has none, the description) of the first element matching
        ``selector`` — or of every match with ``all=True``. ``regex`` keeps only texts it
        finds a match in (``re.search``); with nothing left: ``REF_NOT_FOUND``. Reads a
        fresh snapshot unless ``fresh=False``."""
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
        texts = [_text(n) for n in self.find(selector)]
        if pattern is not None:
            texts = [t for t in texts if pattern.search(t)]
        if all:
            return texts
        if len(texts) <= index:
            what = f"{dict(selector) if isinstance(selector, Mapping) else selector}" + (
                f" with text matching /{regex}/" if regex else "")
            raise RefNotFound(f"nothing on screen matches {what}",
                              hint="take a snapshot and check the element's text, desc or id")
        return texts[index]

    @verb()
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
