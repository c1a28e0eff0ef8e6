"""Recognise what ``uiautomator dump`` prints when it fails, as a typed error.

The device layer runs the dump command and hands its output here; the streaming pruner does
the same with a "dump" that is not XML. Each error keeps the device's own words in
``device_output`` and its message.
"""

from __future__ import annotations

from baremobile.errors import AutomationBusy, DeviceNotIdle, DumpFailed, NullRootNode

__all__ = ["dump_error"]

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
