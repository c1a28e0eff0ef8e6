"""Snapshot diffs: only the lines that changed since a snapshot the reader has seen.

Refs are stable within a Page (:mod:`~baremobile.snapshot.identity`), so an element that did
not change prints the same line in both texts and a line diff says exactly what changed.
:func:`diff` writes one, :func:`apply` applies it to the text it was taken against and gives
the new text back, character for character; :class:`History` numbers a reader's
observations and takes each against the text it is most like::

    # diff 5; gone: refs 3-4
    @5 -4
        - Group [ref=14]
          - Text "Security & privacy"
    @21 ~17 "wifi" [focused]
    @23 =2
      - Text "Network & internet"
      - List [ref=20]

The grammar (``# diff N [from M]``, ``# snapshot N``, ``@N``, added lines as they are,
``@N =K``, ``~line`` / ``~R rest``, ``-line`` / ``-K`` / ``-K- kind``, ``>``/``<``, notes)
and how windows are compared are described once, in ``docs/snapshot.md`` ("Diffs"). It is
written to cost few tokens: every marker is a character or a number, the lines are as the
snapshot prints them.
"""

from __future__ import annotations

import difflib
import re
from collections import deque
from collections.abc import Mapping

__all__ = [
    "DIFF_HEAD",
    "FALLBACK",
    "FULL_NOTE",
    "KEEP",
    "OLDER_MAX_LINES",
    "TRIES",
    "DiffError",
    "History",
    "apply",
    "diff",
    "full_note",
    "is_diff",
    "is_whole",
    "whole",
]

#: How an unnumbered diff's first line starts.
DIFF_HEAD = "# diff"
#: The first line of an unnumbered "diff" that is the whole new text.
FULL_NOTE = "# new screen"
#: A window that keeps (equal, or moved a level) less than this share of the lines of its
#: smaller side, old or new, is new: it comes whole.
FALLBACK = 1 / 3
#: Observations a :class:`History` keeps as bases for later diffs.
KEEP = 8
#: Earlier observations actually diffed against, at most (those most like the new text,
#: and more like it than the previous text is).
TRIES = 3
#: Texts longer than this (in lines) are diffed against the previous text only: a diff of
#: look-alike lines can take seconds at 5,000 lines; the corpus' longest screen has 139.
OLDER_MAX_LINES = 2000

_REF = re.compile(r" \[ref=([0-9]+)\]")
_REF_ALL = re.compile(r"\[ref=([0-9]+)\]")
_HUNK = re.compile(r"@([1-9][0-9]*)(?: (.*))?")
_MARK = re.compile(r"([-<>])([1-9][0-9]*)?(.*)", re.DOTALL)
_BODY = re.compile(r"=([1-9][0-9]*)")
#: a line's own ref: ``  - Role [ref=N]`` and what follows it (nothing, or after a space)
_OWN_REF = re.compile(r"( *- [A-Za-z0-9_]+ \[ref=([0-9]+)\])((?: .*)?)", re.DOTALL)
_JOINABLE = re.compile(r"@[1-9][0-9]*")
#: an added top-level line: a window header (``- app …``, ``- keyboard``) — a removed line
#: is ``-`` and the line, so ``-- app …`` or ``-  - Text …``
_ADDED_HEADER = re.compile(r"- [a-z]")
_SHORT = re.compile(r"~([1-9][0-9]*)((?: .*)?)", re.DOTALL)
_HEAD = re.compile(
    r"# (?:(diff)(?: ([1-9][0-9]*)(?: from ([1-9][0-9]*))?)?(?:$|[:;] )|new screen$"
    r"|snapshot ([1-9][0-9]*)$)"
)
_BARS = ("- status bar", "- navigation bar")


class DiffError(ValueError):
    """A diff that does not apply to the text it was given."""


def full_note(number: int | None = None) -> str:
    """The first line of a "diff" that is the whole new text (numbered by a History):
    ``# snapshot 3`` — no ``diff`` in it. The first observation of a History has none (it
    is number 1, and whole): ``""``."""
    if number is None:
        return FULL_NOTE
    return "" if number == 1 else f"# snapshot {number}"


def whole(text: str, number: int | None = None) -> str:
    """An observation that is the whole ``text``: after :func:`full_note` (the first
    observation is the text itself)."""
    note = full_note(number)
    return note + ("\n" + text if text else "") if note else text


def _head(number: int | None, base: int | None) -> str:
    if number is None:
        return DIFF_HEAD
    if base is None:
        return f"# diff {number}"
    return f"# diff {number} from {base}"


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


# --- what changed: operations on line ranges -----------------------------------------------
# (tag, i1, i2, j1, j2): old lines a[i1:i2] become new lines b[j1:j2]. Tags: "replace",
# "insert", "delete" (paired line by line), "whole" (all removed, all added), ">" and "<"
# (the same lines, one level deeper / shallower).

Op = tuple[str, int, int, int, int]


def _windows(lines: list[str]) -> list[tuple[int, int]]:
    """``[(start, end)]``: each top-level line with the indented lines under it."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        j = i + 1
        while j < len(lines) and lines[j].startswith(" "):
            j += 1
        out.append((i, j))
        i = j
    return out


def _identity(line: str) -> str:
    """What names a window across snapshots: its header, without a condensed bar's items."""
    if line.startswith("#"):
        return "#"
    if line.startswith(_BARS):
        return line.split(": ", 1)[0]
    return line


def _shifted(a: list[str], b: list[str], i: int, j: int, n: int) -> list[Op]:
    """Split a run of lines equal but for their indent into equal and moved pieces."""
    out: list[Op] = []
    k = 0
    while k < n:
        delta = _depth(b[j + k]) - _depth(a[i + k])
        e = k + 1
        while e < n and _depth(b[j + e]) - _depth(a[i + e]) == delta:
            e += 1
        tag = "=" if delta == 0 else ">" if delta == 1 else "<" if delta == -1 else "replace"
        out.append((tag, i + k, i + e, j + k, j + e))
        k = e
    return out


def _line_ops(a: list[str], b: list[str], x1: int, x2: int, y1: int, y2: int) -> list[Op]:
    """Line operations turning ``a[x1:x2]`` into ``b[y1:y2]``, lines compared without their
    indent (a run that only moved a level is one ``>``/``<``). Equal runs are ``"="``."""
    ka = [s.lstrip(" ") for s in a[x1:x2]]
    kb = [s.lstrip(" ") for s in b[y1:y2]]
    sm = difflib.SequenceMatcher(None, ka, kb, autojunk=False)
    out: list[Op] = []
    i = j = 0
    for bi, bj, n in sm.get_matching_blocks():
        if i < bi or j < bj:
            tag = "replace" if i < bi and j < bj else "delete" if i < bi else "insert"
            out.append((tag, x1 + i, x1 + bi, y1 + j, y1 + bj))
        if n:
            out.extend(_shifted(a, b, x1 + bi, y1 + bj, n))
        i, j = bi + n, bj + n
    merged: list[Op] = []
    for op in out:  # "replace" pieces of moved runs join their neighbours
        if merged and op[0] == "replace" and merged[-1][0] in ("replace", "insert", "delete"):
            p = merged.pop()
            op = ("replace", p[1], op[2], p[3], op[4])
        merged.append(op)
    return merged


def _ops(a: list[str], b: list[str], fallback: float) -> tuple[list[Op], bool]:
    """The operations turning ``a`` into ``b``, and whether any window is kept in part or
    whole (False: a new screen)."""
    wa, wb = _windows(a), _windows(b)
    sm = difflib.SequenceMatcher(
        None, [_identity(a[s]) for s, _ in wa], [_identity(b[s]) for s, _ in wb], autojunk=False
    )
    ops: list[Op] = []
    kept = False
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            x1 = wa[i1][0] if i1 < len(wa) else len(a)
            x2 = wa[i2 - 1][1] if i2 > i1 else x1
            y1 = wb[j1][0] if j1 < len(wb) else len(b)
            y2 = wb[j2 - 1][1] if j2 > j1 else y1
            ops.append(("whole", x1, x2, y1, y2))
            continue
        for (x1, x2), (y1, y2) in zip(wa[i1:i2], wb[j1:j2], strict=True):
            window = b[y1:y2]
            if a[x1:x2] == window:
                kept = kept or not window[0].startswith("#")
                continue
            local = _line_ops(a, b, x1, x2, y1, y2)
            same = sum(o[4] - o[3] for o in local if o[0] in ("=", ">", "<"))
            if same >= fallback * min(x2 - x1, y2 - y1) or y2 - y1 == 1:
                kept = kept or (not window[0].startswith("#") and same > 0)
                ops.extend(o for o in local if o[0] != "=")
            elif a[x1] == b[y1]:  # the same header: the body comes whole
                ops.append(("body", x1 + 1, x2, y1 + 1, y2))
            else:
                ops.append(("whole", x1, x2, y1, y2))
    return ops, kept


# --- writing and reading the hunks ---------------------------------------------------------


def _kind(header: str) -> str:
    """A window header shortened to its kind (``- dialog``, ``- app``): what a removal run
    that starts with it shows (the reader has the old text)."""
    if not header.startswith("- "):
        return header
    kind = header[2:].split(":", 1)[0]
    words = kind.split(" ")
    return "- " + (" ".join(words[:2]) if words[:2] in (["status", "bar"], ["navigation", "bar"],
                                                       ["notification", "shade"])
                   else words[0])


def _changed(old: str, new: str) -> str:
    """What a ``~`` line shows for ``old`` becoming ``new``: ``N rest`` when both are the
    line of ref N up to its ``[ref=N]`` (only the rest changed: label, id, states), else the
    new line."""
    m = _OWN_REF.fullmatch(new)
    if m is not None and old.startswith(m.group(1)) and \
            old[len(m.group(1)):][:1] in ("", " "):
        return m.group(2) + m.group(3)
    return new


def _pair(old: list[str], new: list[str]) -> list[tuple[str, str]]:
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
                out.append(("~", _changed(o, n)))
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
    for r in refs[1:] + [None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ", ".join(out)


class _Writer:
    """Body lines, and the refs that went (for the head line)."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.gone: set[str] = set()

    def marks(self, marks: list[tuple[str, str]], *, whole: bool = False) -> None:
        """Runs of removed lines become ``-K`` (``-K- kind`` for a window), added lines are
        written as they are."""
        out = self.out
        k = 0
        while k < len(marks):
            m, line = marks[k]
            run = k
            while run < len(marks) and marks[run][0] == m and m != "~":
                run += 1
            n = max(1, run - k)
            if m == "~":
                out.append("~" + line)
            elif m == "-":  # one line shown; a run by its count (and header: a window)
                if not whole:  # a whole window's refs go with it: no need to list them
                    for _, gone in marks[k : k + n]:
                        self.gone.update(_REF_ALL.findall(gone))
                out.append("-" + line if n == 1 else f"-{n}" + (
                    _kind(line) if not line.startswith(" ") else ""))
            else:  # added lines are shown as they are, with no marker (but "+" before a
                # screen line, which would read as a note)
                out.extend(("+" + line if line.startswith("#") else line)
                           for _, line in marks[k : k + n])
            k += n

    def op(self, a: list[str], b: list[str], op: Op) -> None:
        tag, i1, i2, j1, j2 = op
        if tag in (">", "<"):
            n = i2 - i1
            self.out.append(tag + ("" if n == 1 else str(n)) + b[j1])
        elif tag == "body" and i2 > i1 and j2 > j1:  # a window's body, all new: "=K"
            self.out[-1] += f" ={j2 - j1}"  # on the hunk line: "@N =K"
            self.out.extend(b[j1:j2])
        elif tag in ("whole", "body"):  # a window (or its body) whose lines are all new
            self.marks([("-", s) for s in a[i1:i2]] + [("+", s) for s in b[j1:j2]],
                       whole=True)
        else:
            self.marks(_pair(a[i1:i2], b[j1:j2]))


def diff(
    old: str,
    new: str,
    *,
    fallback: float = FALLBACK,
    number: int | None = None,
    base: int | None = None,
) -> str:
    """The diff from snapshot text ``old`` to ``new`` (see the module docs).

    ``number`` is the new observation's number (the head says ``# snapshot N``), ``base``
    that of the observation ``old`` is (``None``: the previous snapshot). A window that
    keeps less than ``fallback`` of the lines of its smaller side comes whole; when no window
    is kept in part or whole, or the diff is no shorter than ``new``, the result is the
    new-screen note and the whole of ``new``.
    """
    everything = whole(new, number)
    a = old.split("\n") if old else []
    b = new.split("\n") if new else []
    if any(line[:1].isdigit() for line in a) or any(line[:1].isdigit() for line in b):
        # not snapshot text (its lines start with a space, "-" or "#"): "-K", "+K" would be
        # ambiguous
        return everything
    ops, kept = _ops(a, b, fallback)
    if not ops:
        return _head(number, base) + ": no change"
    if not kept:
        return everything
    w = _Writer()
    end = -1
    for op in ops:
        if op[1] != end or op[0] == "body":  # a new hunk (ops that touch continue one)
            w.out.append(f"@{op[1] + 1}")
        w.op(a, b, op)
        end = op[2]
    head = _head(number, base)
    gone = w.gone - set(_REF_ALL.findall(new))  # moved, not gone
    if gone:
        head += "; gone: ref" + ("s " if len(gone) > 1 else " ") + _ranges(sorted(map(int, gone)))
    out: list[str] = []
    for line in w.out:  # "@N" and a one-line op after it share a line: "@7 ~15 …", "@9 -3"
        if out and _JOINABLE.fullmatch(out[-1]) and line[:1] in ("~", "-", ">", "<") \
                and not _ADDED_HEADER.match(line):
            out[-1] += " " + line
        else:
            out.append(line)
    text = head + "\n" + "\n".join(out)
    return everything if len(text) >= len(new) else text


def is_whole(text: str) -> bool:
    """Whether an observation is the whole new text (after ``# snapshot 3`` or ``# new
    screen``, or — the first observation — the text itself) rather than a diff."""
    m = _HEAD.match(text.split("\n", 1)[0])
    return m is None or not m.group(1)


def is_diff(text: str) -> bool:
    """Whether ``text`` is a diff (or the full-text fallback) rather than a snapshot."""
    return _HEAD.match(text.split("\n", 1)[0]) is not None


def _base_text(m: re.Match[str], old: str | Mapping[int, str]) -> str:
    if isinstance(old, str):
        return old
    number, base = m.group(2), m.group(3)
    want = int(base) if base else int(number) - 1 if number else None
    if want is None or want not in old:
        which = f"snapshot {want}" if want else "the previous snapshot"
        raise DiffError(f"the diff is taken against {which}, which is not among the texts given")
    return old[want]


def apply(patch: str, old: str | Mapping[int, str]) -> str:
    """The new text: ``patch`` (from :func:`diff`) applied to the text it was taken against.

    ``old`` is that text, or the texts of earlier observations by number (a
    :class:`History`'s :meth:`~History.texts`): a diff ``from snapshot M`` takes ``old[M]``,
    one of the previous snapshot ``old[N - 1]``. Raises :class:`DiffError` when the patch is
    malformed or does not fit.
    """
    first, _, rest = patch.partition("\n")
    m = _HEAD.match(first)
    if m is None:  # no head: the first observation, the whole text itself
        rest = patch
    if m is None or not m.group(1):  # "# snapshot N" / "# new screen": the whole text
        lines = rest.split("\n")
        while len(lines) > 1 and lines[-1].startswith("#"):
            lines.pop()  # notes after the text (``# web: …``), not part of the screen
        return "\n".join(lines)
    base = _base_text(m, old)
    a = base.split("\n") if base else []
    lines = patch.split("\n")
    out: list[str] = []
    cur = 0
    no = 1
    while no < len(lines):
        line = lines[no]
        no += 1
        if line.startswith("@"):
            h = _HUNK.fullmatch(line)
            if h is None:
                raise DiffError(f"line {no}: a malformed hunk line {line[:40]!r}")
            at = int(h.group(1)) - 1
            if at < cur or at > len(a):
                raise DiffError(f"line {no}: hunk at line {at + 1} does not fit the text")
            out.extend(a[cur:at])
            cur = at
            body = _BODY.fullmatch(h.group(2) or "")
            if h.group(2) and body is None:
                if h.group(2)[:1] not in ("~", "-", ">", "<"):
                    raise DiffError(f"line {no}: a malformed hunk line {line[:40]!r}")
                no -= 1  # the op after "@N " is read as the next line
                lines[no] = h.group(2)
                continue
            if body is not None:  # "@N =K": the window's body from line N, K new lines
                if cur >= len(a) or not a[cur].startswith(" "):
                    raise DiffError(f"line {no}: '=' where no window body starts")
                while cur < len(a) and a[cur].startswith(" "):
                    cur += 1
                n = int(body.group(1))
                if no + n > len(lines):
                    raise DiffError(f"line {no}: a body of {n} lines the diff does not hold")
                out.extend(lines[no : no + n])
                no += n
        elif line.startswith(" ") or _ADDED_HEADER.match(line):
            out.append(line)  # an added line (a snapshot line: indented, or a window's)
        elif line.startswith("+"):
            out.append(line[1:])  # an added screen line ("+# 1080x2400 portrait")
        elif line.startswith("~"):
            if cur >= len(a):
                raise DiffError(f"line {no}: changes a line past the end of the text")
            short = _SHORT.fullmatch(line)
            if short is not None:  # "~N rest": the line of ref N, its rest changed
                m = _OWN_REF.fullmatch(a[cur])
                if m is None or m.group(2) != short.group(1):
                    raise DiffError(f"line {no}: line {cur + 1} is not ref {short.group(1)}'s")
                out.append(m.group(1) + short.group(2))
            else:
                out.append(line[1:])
            cur += 1
        elif line.startswith("#"):
            continue  # a note the snapshot says about itself (``# web: …``), not a change
        elif line[:1] in ("-", ">", "<"):  # "- x" (a window header) was matched above
            r = _MARK.fullmatch(line)
            assert r is not None
            mark, n, shown = r.group(1), int(r.group(2) or 1), r.group(3)
            if cur + n > len(a):
                raise DiffError(f"line {no}: {mark} past the end of the text")
            if mark == "-" and r.group(2) and (not shown or shown.startswith("- ")):
                # "-K" or "-K- kind": the K lines (a window's, named by its kind), unchecked
                if shown and not a[cur].startswith(shown):
                    raise DiffError(f"line {no}: {line[:40]!r} names no window at line "
                                    f"{cur + 1}")
                cur += n
                continue
            run = a[cur : cur + n]
            if mark == ">":
                run = ["  " + s for s in run]
            elif mark == "<":
                if not all(s.startswith("  ") for s in run):
                    raise DiffError(f"line {no}: '<' on lines that are not indented")
                run = [s[2:] for s in run]
            if (a[cur] if mark == "-" else run[0]) != shown:
                raise DiffError(f"line {no}: {mark} names lines that are not in the text")
            if mark != "-":
                out.extend(run)
            cur += n
        else:
            raise DiffError(f"line {no}: a line that is neither a snapshot line nor starts with "
                            f"one of @~-><: {line[:40]!r}")
    out.extend(a[cur:])
    return "\n".join(out)


class History:
    """What one reader was shown, so that each observation can be a diff.

    Every :meth:`observe` gets the next number, ``1, 2, …``, which its first line shows; the
    last :data:`KEEP` observed texts are kept. An observation is a diff against the previous
    text the reader saw (an observation, or a whole text :meth:`seen` outside the history) or
    against an earlier observation when that gives a shorter diff (the screen came back):
    the :data:`TRIES` kept ones most like the new text (lines kept, less lines removed), and
    more like it than the previous text, are tried, for texts up to
    :data:`OLDER_MAX_LINES` lines.
    """

    def __init__(self, keep: int = KEEP, *, fallback: float = FALLBACK) -> None:
        if keep < 1:
            raise ValueError(f"keep must be at least 1, not {keep}")
        #: the number of the last observation (0: none yet)
        self.number = 0
        self.fallback = fallback
        self._texts: deque[tuple[int, str]] = deque(maxlen=keep)
        self._previous: str | None = None
        self._previous_number: int | None = None

    def seen(self, text: str) -> None:
        """The reader was shown ``text`` whole, outside the history (a plain snapshot): the
        next diff is taken against it, or against an earlier observation."""
        self._previous = text
        self._previous_number = None

    def texts(self) -> dict[int, str]:
        """The kept observations' texts by number (what :func:`apply` needs)."""
        return dict(self._texts)

    def observe(self, text: str) -> tuple[int, str]:
        """The next observation of the screen whose whole text is ``text``: its number and
        what to show (a diff, or the whole text after the new-screen note)."""
        n = self.number + 1
        best: str | None = None
        lines = text.split("\n")
        distinct = set(lines)

        def likeness(old: str) -> int:  # lines kept, less lines to remove: a diff's size
            other = set(old.split("\n"))
            return len(distinct & other) - len(other - distinct)

        score = None
        if self._previous is not None:
            d = diff(self._previous, text, fallback=self.fallback, number=n)
            if not is_whole(d):
                best = d
            score = likeness(self._previous)
        # an earlier observation is worth a diff when it looks more like the new text than
        # the previous text does (the screen came back to it); not on huge texts, where each
        # diff can take seconds (hostile dumps)
        older: list[tuple[int, int, str]] = []
        if len(lines) <= OLDER_MAX_LINES:
            for m, t in reversed(self._texts):
                if m != self._previous_number:
                    like = likeness(t)
                    if score is None or like > score:
                        older.append((like, m, t))
        older.sort(key=lambda o: -o[0])
        for _, m, t in older[:TRIES]:
            d = diff(t, text, fallback=self.fallback, number=n, base=m)
            if not is_whole(d) and (best is None or len(d) < len(best)):
                best = d
        if best is None:
            best = whole(text, n)
        self._texts.append((n, text))
        self._previous = text
        self._previous_number = n
        self.number = n
        return n, best
