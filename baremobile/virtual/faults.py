"""Fault injection for the virtual adbd: what a test can make go wrong on the next
stream(s) — a dropped connection, a stalled or hung service, a corrupt message, a refusal,
a slow link.
``VirtualPhone.faults`` is a :class:`Faults`."""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = ["FaultRule", "Faults"]


@dataclass
class FaultRule:
    """One injected fault, applied to the next stream(s) whose service matches."""

    kind: str  # "drop" | "stall" | "corrupt" | "refuse" | "hang" | "slow"
    service: str = ""  # substring of the OPEN destination ("" matches every service)
    after_bytes: int = 0  # for drop/corrupt: stream output bytes sent before the fault
    count: int = 1  # how many streams it applies to (-1: forever)
    hits: int = 0
    delay_s: float = 0.0  # for slow: how long each message of the stream is held back


class Faults:
    """Faults a test can arm on the phone's connections.

    * ``drop``: after ``after_bytes`` of the stream's output, the TCP connection is cut
      (as when a cable is pulled or Wi-Fi drops mid-transfer);
    * ``stall``: the stream opens (OKAY) but never sends anything — a hung command;
    * ``hang``: the OPEN is never answered — a wedged adbd;
    * ``corrupt``: after ``after_bytes``, a message with a broken header is sent;
    * ``refuse``: the OPEN fails (``CLSE``), as for a service adbd does not offer;
    * ``slow``: a slow link — every message the stream sends (its data, and the OKAY
      for each message the host writes) is held back ``delay_s`` seconds.
    """

    KINDS = ("drop", "stall", "corrupt", "refuse", "hang", "slow")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []

    def add(
        self,
        kind: str,
        *,
        service: str = "",
        after_bytes: int = 0,
        count: int = 1,
        delay_s: float = 0.0,
    ) -> FaultRule:
        """Arm a fault; returns the rule (its ``hits`` counts how often it fired)."""
        if kind not in self.KINDS:
            raise ValueError(f"fault kind must be one of {', '.join(self.KINDS)}, not {kind!r}")
        rule = FaultRule(kind, service, after_bytes, count, delay_s=delay_s)
        with self._lock:
            self._rules.append(rule)
        return rule

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def take(self, service: str) -> FaultRule | None:
        with self._lock:
            for rule in self._rules:
                if rule.service in service and (rule.count < 0 or rule.hits < rule.count):
                    rule.hits += 1
                    if rule.count >= 0 and rule.hits >= rule.count:
                        self._rules.remove(rule)
                    return rule
        return None
