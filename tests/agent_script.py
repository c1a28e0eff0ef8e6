"""The agent run every framework test replays on the virtual phone, and its checks.

The scripted "model" reads tool results as an LLM would (by text): it takes a snapshot,
makes one stale guess (an error it must read as data), taps the Settings ref it read,
opens the search, types, and answers with what the final snapshot shows.
"""

from __future__ import annotations

import re
from typing import Any

TASK = "Search the phone's settings for wifi and tell me the first result."
FINAL = "The first result is Wi-Fi."


def ref_on_line(text: str, needle: str) -> int:
    """The N of ``[ref=N]`` on the first line of ``text`` that holds ``needle``."""
    line = next(line for line in text.splitlines() if needle in line and "[ref=" in line)
    return int(re.search(r"\[ref=(\d+)\]", line).group(1))


def next_call(results: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The next tool call, given the texts of all tool results so far (None: done)."""
    step = len(results)
    if step == 0:
        return "snapshot", {}
    if step == 1:
        return "tap", {"ref": 99}  # a stale guess: the answer is an error, as data
    if step == 2:
        assert results[1].startswith("error REF_NOT_FOUND"), results[1]
        return "tap", {"ref": ref_on_line(results[0], '"Settings"')}
    if step == 3:
        return "tap", {"selector": {"text": "Search Settings"}}
    if step == 4:
        return "type", {"text": "wifi"}
    if step == 5:
        return "snapshot", {}
    assert '"Wi-Fi"' in results[5], results[5]
    return None


#: The calls :func:`next_call` makes on the demo phone (for models scripted in advance).
CALLS = [("snapshot", {}), ("tap", {"ref": 99}), ("tap", {"ref": 7}),
         ("tap", {"selector": {"text": "Search Settings"}}), ("type", {"text": "wifi"}),
         ("snapshot", {})]


def check_phone(phone: Any) -> None:
    """What the device saw: two taps (the failed call sent nothing), the typed text."""
    taps = phone.events.list("tap")
    assert len(taps) == 2, taps
    assert [e.detail["text"] for e in phone.events.list("text")] == ["wifi"]


def check_results(results: list[str]) -> None:
    """What the model read back: the launcher with Settings' ref, the error with its hint,
    the acts, and the search results."""
    assert len(results) == len(CALLS), results
    assert '[ref=7] "Settings"' in results[0]
    assert results[1].startswith("error REF_NOT_FOUND: ref 99")
    assert "hint: take a new snapshot" in results[1]
    assert results[2].startswith("tapped ref 7")
    assert results[3].startswith("tapped {text='Search Settings'}")
    assert results[4].startswith("typed 4 characters")
    assert re.search(r'TextInput \[ref=\d+\] "wifi" \[focused\]', results[5])
    assert '"Wi-Fi hotspot"' in results[5]
