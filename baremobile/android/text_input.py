"""What to send so a field holds exactly some text: the typing plan and the clear plan.

``input text`` cannot type spaces on API 35+, turns ``%s`` into a space, and fails on
anything outside printable ASCII: :func:`typing_plan` types word by word with
KEYCODE_SPACE between words, splits every ``%``/``s`` pair across two commands, and
rejects untypable characters before anything is sent. No I/O here.
"""

from __future__ import annotations

from baremobile.android.keycodes import KEYCODES
from baremobile.errors import InvalidArgument, UnsupportedText

__all__ = [
    "CLEAR_MARGIN",
    "HIDDEN_PASSWORD_DELETES",
    "KEY_CHARS",
    "MAX_PIECE",
    "TYPABLE",
    "clear_plan",
    "typing_plan",
    "untypable",
]

#: Characters ``input text`` can type (the virtual keyboard map): printable ASCII.
TYPABLE = frozenset(chr(c) for c in range(0x20, 0x7F))
#: Characters typed as keys instead of text.
KEY_CHARS = {" ": KEYCODES["SPACE"], "\n": KEYCODES["ENTER"], "\t": KEYCODES["TAB"]}


def untypable(text: str) -> list[str]:
    """The characters of ``text`` that ``input text`` cannot produce (in order, unique)."""
    return list(dict.fromkeys(c for c in text if c not in TYPABLE and c not in KEY_CHARS))


#: Longest piece of a word typed by one ``input text`` (old adbd caps a command at 4 KiB).
MAX_PIECE = 1000


def _text_pieces(word: str) -> list[str]:
    """Split a word so no piece contains ``%`` directly followed by ``s``.

    ``input text`` turns every ``%s`` into a space; typing ``%`` and ``s…`` in two
    commands is the only way to produce a literal ``%s``. Long words are also cut into
    pieces of at most :data:`MAX_PIECE` characters, so every command line stays small.
    """
    pieces, start = [], 0
    for i in range(len(word) - 1):
        if (word[i] == "%" and word[i + 1] == "s") or i + 1 - start >= MAX_PIECE:
            pieces.append(word[start : i + 1])
            start = i + 1
    pieces.append(word[start:])
    return [p for p in pieces if p]


def typing_plan(text: str) -> list[list[str]]:
    """The ``input`` commands (argv lists) that make a field hold exactly ``text``.

    Words go through ``input text``; spaces, newlines and tabs become key events
    (consecutive ones share one ``input keyevent``). Raises :class:`UnsupportedText`
    naming every character that cannot be typed — before anything is sent.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"text must be a string, not {type(text).__name__}")
    bad = untypable(text)
    if bad:
        raise UnsupportedText(bad)
    plan: list[list[str]] = []
    word: list[str] = []
    keys: list[str] = []

    def flush_word() -> None:
        if word:
            plan.extend(["input", "text", p] for p in _text_pieces("".join(word)))
            word.clear()

    def flush_keys() -> None:
        if keys:
            plan.append(["input", "keyevent", *keys])
            keys.clear()

    for ch in text:
        if ch in KEY_CHARS:
            flush_word()
            keys.append(str(KEY_CHARS[ch]))
        else:
            flush_keys()
            word.append(ch)
    flush_word()
    flush_keys()
    return plan


#: DELs sent beyond the field's length (characters that arrive while clearing).
CLEAR_MARGIN = 8
#: DELs for a password field whose dump hides its text (Android before 8 leaves ``text``
#: empty for passwords; later versions show one bullet per character).
HIDDEN_PASSWORD_DELETES = 128


def clear_plan(api_level: int, length: int) -> list[list[str]]:
    """The ``input`` commands that empty the focused field holding ``length`` characters.

    Android 13+ (API 33): select all (``keycombination CTRL_LEFT A``) and delete — any
    length. Older Android has no key combinations: the caret goes to the end and
    ``length`` + :data:`CLEAR_MARGIN` DELs follow, so ``length`` must be the field's length
    *now* (read from the device, never from an older snapshot).
    """
    if api_level >= 33:
        return [
            ["input", "keycombination", str(KEYCODES["CTRL_LEFT"]), str(KEYCODES["A"])],
            ["input", "keyevent", str(KEYCODES["DEL"])],
        ]
    dels = [str(KEYCODES["DEL"])] * (max(length, 0) + CLEAR_MARGIN)
    return [["input", "keyevent", str(KEYCODES["MOVE_END"])], ["input", "keyevent", *dels]]
