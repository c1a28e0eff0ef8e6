"""Canned answers: make a program on the virtual phone print given bytes.

A testing feature (for baremobile's own tests and for yours): teach the phone to answer a
command the way a particular real device does — its ``getprop``, its ``dumpsys window``,
the ``ls -la`` of its odd vendor toolbox — and drive the public API over the real ADB
protocol against it::

    phone.answer(["dumpsys", "window"], stdout=Path("dumpsys-window.txt").read_bytes())
    phone.answer(["pm", "uninstall"], stdout=b"Failure [DELETE_FAILED_INTERNAL_ERROR]\\n",
                 status=1)

An answer replaces the program named by ``argv[0]`` whenever it runs with arguments that
start with ``argv`` (the longest matching answer wins), wherever it runs: alone, in a
pipeline (``dumpsys window | grep -E …`` still filters the canned bytes), in a command
substitution. Everything else on the phone keeps working as before.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Answer", "Answers"]


@dataclass(frozen=True)
class Answer:
    """What one program prints, and its exit status."""

    argv: tuple[str, ...]
    stdout: bytes = b""
    stderr: bytes = b""
    status: int = 0


class Answers:
    """The phone's canned answers (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answers: dict[tuple[str, ...], Answer] = {}

    def add(self, argv: Sequence[str], stdout: bytes | str = b"", stderr: bytes | str = b"",
            status: int = 0) -> Answer:
        """Answer ``argv`` (a program name and the first arguments) with these bytes."""
        if isinstance(argv, str) or not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv is a non-empty list of strings: the program and the "
                             "first arguments, e.g. ['dumpsys', 'window']")
        key = tuple(argv)
        answer = Answer(key, _bytes(stdout), _bytes(stderr), int(status) & 0xFF)
        with self._lock:
            self._answers[key] = answer
        return answer

    def remove(self, argv: Sequence[str] | None = None) -> None:
        """Forget the answer for ``argv`` (every answer when None)."""
        with self._lock:
            if argv is None:
                self._answers.clear()
            else:
                self._answers.pop(tuple(argv), None)

    def match(self, argv: Sequence[str]) -> Answer | None:
        """The answer for a program run with ``argv``, or None."""
        with self._lock:
            if not self._answers:
                return None
            found = [a for k, a in self._answers.items() if tuple(argv[:len(k)]) == k]
        return max(found, key=lambda a: len(a.argv)) if found else None


def _bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)
