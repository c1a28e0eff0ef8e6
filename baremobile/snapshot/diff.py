"""Snapshot diffs: only the lines that changed since the previous snapshot.

Refs are stable within a Page (:mod:`~baremobile.snapshot.identity`), so an element that did
not change prints the same line in both texts and a line diff says exactly what changed.
:func:`diff` writes one, :func:`apply` applies it to the previous text and gives the new text
back, character for character::

    # diff: 6 added, 4 removed, 1 changed; gone: refs 3-4
    @5 - List [ref=2]
    -4    - Group [ref=3]
    +    - Group [ref=14]
    +      - Text "Security & privacy"
    @21 - app com.android.settings
    ~  - TextInput [ref=17] "wifi"

The grammar, line by line:

* the first line, ``# diff: A added, R removed, C changed`` (``# diff: no change`` when
  nothing did) counts the lines, and ends with ``; gone: refs 3-4, 9`` when refs are gone
  (shown in removed lines, and not in the new text);
* ``@N context`` starts a hunk at line ``N`` of the previous text (1-based, the screen line
  is line 1); ``context`` is the parent line of the first line the hunk changes, without
  its indent (nothing for a window header). Lines before ``N`` not covered by an earlier
  hunk are unchanged;
* ``+line`` adds a line; ``~line`` replaces the previous text's line here (the same element,
  shown as it is now); ``-line`` removes the previous text's line here, which is shown;
  ``-N line`` removes ``N`` lines, the first of which is shown. Each marker is followed
  directly by the snapshot line with its indent.

When most of the screen changed — more than half of the new text's lines are added or
changed (a new app, a new screen), or the diff would be no shorter than the text — the
whole text comes instead, after a one-line note ``# new screen (full text)``.
:func:`apply` returns that text as it is.
"""

from __future__ import annotations

import difflib
import re

__all__ = ["DIFF_HEAD", "FULL_NOTE", "DiffError", "apply", "diff", "is_diff"]

#: How a diff's first line starts.
DIFF_HEAD = "# diff: "
#: The first line of a "diff" that is the whole new text.
FULL_NOTE = "# new screen (full text)"
#: When more than this share of the new text's lines are added or changed, the screen is
#: new: the whole text is given instead of a diff.
FALLBACK = 0.5

_REF = re.compile(r" \[ref=([0-9]+)\]")
_REF_ALL = re.compile(r"\[ref=([0-9]+)\]")
_HUNK = re.compile(r"@([1-9][0-9]*)(?: (.*))?")
_REMOVE = re.compile(r"-([1-9][0-9]*)?(.*)", re.DOTALL)


class DiffError(ValueError):
    """A diff that does not apply to the text it was given."""


def _depth(line: str) -> int:
    return (len(line) - len(line.lstrip(" "))) // 2


def _ref(line: str) -> str | None:
    m = _REF.search(line)
    return m.group(1) if m is not None and line.lstrip(" ").startswith("- ") else None


def _role(line: str) -> str:
    """A line's role (a header's kind word; ``#`` for the screen line)."""
    if line.startswith("#"):
        return "#"
    return line.lstrip(" ").split(" ", 2)[1] if line.lstrip(" ").startswith("- ") else line


def _parent(lines: list[str], i: int) -> str:
    """The line above ``lines[i]`` that it is nested in, without indent (``""``: none)."""
    if not lines[i].startswith(" "):
        return ""
    d = _depth(lines[i])
    for k in range(i - 1, -1, -1):
        if _depth(lines[k]) < d and not lines[k].startswith("#"):
            return lines[k].lstrip(" ")
    return ""


def _block(old: list[str], new: list[str]) -> list[tuple[str, str]]:
    """Markers for old lines ``old`` becoming ``new``: pairs of (marker, line)."""
    out: list[tuple[str, str]] = []
    later = {}
    for j, line in enumerate(new):
        r = _ref(line)
        if r is not None:
            later[r] = j
    i = j = 0
    while i < len(old) or j < len(new):
        if i < len(old) and j < len(new):
            o, n = old[i], new[j]
            ro, rn = _ref(o), _ref(n)
            same = ro is not None and ro == rn
            if not same and ro is None and rn is None:
                same = _depth(o) == _depth(n) and _role(o) == _role(n)
            if same:
                out.append(("~", n))
                i += 1
                j += 1
                continue
            if ro is not None and later.get(ro, -1) > j:
                out.append(("+", n))
                j += 1
                continue
            out.append(("-", o))
            i += 1
        elif i < len(old):
            out.append(("-", old[i]))
            i += 1
        else:
            out.append(("+", new[j]))
            j += 1
    return out


def _ranges(refs: list[int]) -> str:
    """``[3, 4, 5, 9]`` → ``"3-5, 9"``."""
    out: list[str] = []
    start = prev = refs[0]
    for r in refs[1:] + [None]:  # type: ignore[list-item]
        if r is not None and r == prev + 1:
            prev = r
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ", ".join(out)


def _write(marks: list[tuple[str, str]], counts: list[int], gone: set[str]) -> list[str]:
    """Body lines; runs of removed lines become ``-N first``; refs they held go to ``gone``."""
    out: list[str] = []
    k = 0
    while k < len(marks):
        m, line = marks[k]
        if m != "-":
            out.append(m + line)
            counts[0 if m == "+" else 2] += 1
            k += 1
            continue
        run = k
        while run < len(marks) and marks[run][0] == "-":
            gone.update(_REF_ALL.findall(marks[run][1]))
            run += 1
        n = run - k
        counts[1] += n
        out.append(("-" if n == 1 else f"-{n}") + line)
        k = run
    return out


def diff(old: str, new: str, *, fallback: float = FALLBACK) -> str:
    """The diff from snapshot text ``old`` to ``new`` (see the module docs).

    When more than ``fallback`` of the lines of ``new`` are added or changed, or the diff
    is no shorter than ``new``, the result is :data:`FULL_NOTE` and the whole of ``new``.
    """
    a = old.split("\n") if old else []
    b = new.split("\n") if new else []
    if any(line[:1].isdigit() for line in a):
        # not snapshot text (its lines start with a space, "-" or "#"): "-N" would be ambiguous
        return FULL_NOTE + ("\n" + new if new else "")
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    body: list[str] = []
    counts = [0, 0, 0]  # added, removed, changed
    gone: set[str] = set()
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        context = _parent(b, j1) if j1 < j2 else _parent(a, i1)
        body.append(f"@{i1 + 1}" + (f" {context}" if context else ""))
        body.extend(_write(_block(a[i1:i2], b[j1:j2]), counts, gone))
    if not body:
        return DIFF_HEAD + "no change"
    head = f"{DIFF_HEAD}{counts[0]} added, {counts[1]} removed, {counts[2]} changed"
    if gone:
        gone -= set(_REF_ALL.findall(new))  # moved, not gone
    if gone:
        head += "; gone: ref" + ("s " if len(gone) > 1 else " ") + _ranges(sorted(map(int, gone)))
    text = head + "\n" + "\n".join(body)
    if counts[0] + counts[2] > fallback * len(b) or len(text) >= len(new):
        return FULL_NOTE + ("\n" + new if new else "")
    return text


def is_diff(text: str) -> bool:
    """Whether ``text`` is a diff (or the full-text fallback) rather than a snapshot."""
    return text.startswith(DIFF_HEAD) or text == FULL_NOTE or text.startswith(FULL_NOTE + "\n")


def apply(patch: str, old: str) -> str:
    """The new text: ``patch`` (from :func:`diff`) applied to the previous text ``old``.

    Raises :class:`DiffError` when the patch is malformed or does not fit ``old``.
    """
    if patch == FULL_NOTE or patch.startswith(FULL_NOTE + "\n"):
        return patch[len(FULL_NOTE) + 1 :]
    lines = patch.split("\n")
    if not lines[0].startswith(DIFF_HEAD):
        raise DiffError("not a snapshot diff: it does not start with '# diff: '")
    a = old.split("\n") if old else []
    out: list[str] = []
    cur = 0
    for no, line in enumerate(lines[1:], 2):
        if line.startswith("@"):
            m = _HUNK.fullmatch(line)
            if m is None:
                raise DiffError(f"line {no}: a malformed hunk line {line[:40]!r}")
            at = int(m.group(1)) - 1
            if at < cur or at > len(a):
                raise DiffError(f"line {no}: hunk at line {at + 1} does not fit the text")
            out.extend(a[cur:at])
            cur = at
        elif line.startswith("+"):
            out.append(line[1:])
        elif line.startswith("~"):
            if cur >= len(a):
                raise DiffError(f"line {no}: changes a line past the end of the text")
            out.append(line[1:])
            cur += 1
        elif line.startswith("-"):
            m = _REMOVE.fullmatch(line)
            assert m is not None
            n = int(m.group(1) or 1)
            if cur + n > len(a) or a[cur] != m.group(2):
                raise DiffError(f"line {no}: removes lines that are not in the text")
            cur += n
        else:
            raise DiffError(f"line {no}: a line that starts with none of @ + ~ -: {line[:40]!r}")
    out.extend(a[cur:])
    return "\n".join(out)
