"""What ``uiautomator dump`` prints around the XML: its status text, and its failures as typed
errors.

A dump read from a device comes after what the dump command printed (``UI hierchary dumped
to: …``, or ``ERROR: could not get idle state``). The streaming pruner reads both:
:class:`StatusScan` finds where the XML starts, in one pass over any chunking, and
:func:`dump_error` classifies the text before it. Each error keeps the device's own words in
``device_output`` and its message.
"""

from __future__ import annotations

import re

from baremobile.errors import AutomationBusy, DeviceNotIdle, DumpFailed, NullRootNode
from baremobile.safetext import decode

__all__ = ["MAX_STATUS_BYTES", "StatusScan", "dump_error"]

#: Most status text accepted before the XML (uiautomator prints one line).
MAX_STATUS_BYTES = 1 << 20
#: How much of the status text is kept for classification and ``device_output``.
STATUS_KEEP = 64 * 1024
# Where a dump starts after status text: an XML declaration or a dump's document element, or
# a UTF-16 byte-order mark (0xFE and 0xFF never occur in UTF-8 text, so a BOM is unambiguous).
_MARKERS = (b"\xff\xfe", b"\xfe\xff", b"<?xml", b"<hierarchy", b"<displays")
_XML_START = re.compile(b"|".join(re.escape(m) for m in _MARKERS))
_OVERLAP = max(map(len, _MARKERS)) - 1  # the start of a marker cut by a chunk boundary


class StatusScan:
    """Find where the XML starts in text fed in chunks; each byte is looked at O(1) times.

    ``feed(chunk)`` returns ``None`` while no XML has started, then the bytes from the start
    of the XML on (the rest of that chunk); :attr:`text` is the status text before it (its
    first :data:`STATUS_KEEP` bytes) and :attr:`size` its length.
    """

    __slots__ = ("_kept", "_tail", "size")

    def __init__(self) -> None:
        self._kept = bytearray()
        self._tail = b""  # the last bytes seen, which may be the start of a cut marker
        self.size = 0

    def feed(self, chunk: bytes) -> bytes | None:
        data = self._tail + chunk if self._tail else chunk
        m = _XML_START.search(data)
        if m is None:
            cut = max(0, len(data) - _OVERLAP)
            self._tail = data[cut:]
            self._keep(data[:cut])
            return None
        self._tail = b""
        self._keep(data[: m.start()])
        return data[m.start() :]

    def _keep(self, data: bytes) -> None:
        self.size += len(data)
        room = STATUS_KEEP - len(self._kept)
        if room > 0:
            self._kept += data[:room]

    def end(self) -> None:
        """No more input: the held bytes are status text too."""
        self._keep(self._tail)
        self._tail = b""

    @property
    def pending(self) -> int:
        """Status bytes seen so far, the held ones included."""
        return self.size + len(self._tail)

    @property
    def text(self) -> str:
        """The status text seen so far (its first :data:`STATUS_KEEP` bytes), decoded."""
        return decode(self._kept)


_BOM = "\ufeff"


def _first_line(text: str) -> str:
    line = text.split("\n", 1)[0].strip()
    return line if len(line) <= 300 else line[:297] + "..."


def dump_error(text: str) -> DumpFailed | None:
    """Classify device output ``text``: the matching :class:`DumpFailed` subclass, or ``None``.

    * ``ERROR: could not get idle state`` → :class:`DeviceNotIdle`
    * ``ERROR: null root node returned by UiTestAutomationBridge.`` → :class:`NullRootNode`
    * ``…UiAutomationService … already registered!`` (another automation client) →
      :class:`AutomationBusy`
    * any other ``ERROR:`` line, Java exception or ``Killed`` → :class:`DumpFailed`

    Output that starts like XML, or says nothing recognisable (``UI hierchary dumped to: …``),
    is not an error: ``None``.
    """
    s = text.lstrip(_BOM).strip()
    if not s or s.startswith("<"):
        return None
    low = s.lower()
    line = _first_line(s)
    if "could not get idle state" in low:
        return DeviceNotIdle(f"uiautomator dump failed: {line}", device_output=s)
    if "null root node" in low:
        return NullRootNode(f"uiautomator dump failed: {line}", device_output=s)
    if "already registered" in low and "uiautomation" in low:
        return AutomationBusy(f"uiautomator dump failed: {line}", device_output=s)
    if (
        low.startswith("error")
        or "\nerror:" in low
        or "exception" in low
        or low.startswith("killed")
        or "\nkilled" in low
    ):
        return DumpFailed(f"uiautomator dump failed: {line}", device_output=s)
    return None
