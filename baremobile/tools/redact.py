"""Tool arguments as logs and errors may show them: what a verb marks secret (typed text, a
file's or the clipboard's content — :attr:`~baremobile.page.steps.VerbFacts.secret`, read
through each row) is shown as its length only, in a call and in every call a batch holds
(:attr:`~baremobile.tools.row.ToolSpec.calls_in`), and in another system's words for a call
(:mod:`baremobile.tools.aliases`). Nothing here keeps a list of tools.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from baremobile.tools.spec import get

__all__ = ["hidden", "redacted", "scrub", "secrets_of"]

#: Secrets shorter than this are not searched for inside other text (they would blank
#: every "a"); they are still never shown where they were given.
SCRUB_MIN = 3


def hidden(value: Any) -> str:
    """What a log shows instead of a secret value."""
    return f"<{len(value)} characters>" if isinstance(value, str) else "<hidden>"


def _row(name: Any, prefix: str) -> Any:
    if not isinstance(name, str):
        return None
    bare = name[len(prefix):] if prefix and name.startswith(prefix) else name
    return get(bare)


def _theirs(name: Any, arguments: Any, prefix: str) -> tuple[Any, Any] | None:
    """Another system's call (:mod:`baremobile.tools.aliases`: ARC's ``android_…``,
    clawperator's ``execute`` with ``actions``) as our row and arguments; None when the call
    is ours, nothing knows the name, or it needs a part of their system absent here (it
    answers their words, and nothing runs). A call that cannot be turned into ours is
    ``(None, None)``: all its text counts as secret."""
    from baremobile.errors import BaremobileError
    from baremobile.tools.aliases import alias_for, resolve
    from baremobile.tools.spec import TOOLS
    from baremobile.tools.table import ALIASES

    if not isinstance(name, str) or not isinstance(arguments, Mapping):
        return None
    rows = {t.name: t for t in TOOLS}
    bare = name[len(prefix):] if prefix and name.startswith(prefix) else name
    alias = alias_for(bare, arguments, rows, ALIASES) or alias_for(name, arguments, rows, ALIASES)
    if alias is not None and alias.absent:
        return None  # a part of their system absent here: nothing runs, nothing to hide
    try:
        found = resolve(bare, dict(arguments), rows, ALIASES)
        if found is None and bare != name:  # another system's name (ARC's android_<slug>_…)
            found = resolve(name, dict(arguments), rows, ALIASES)
    except BaremobileError:
        return (None, None) if _row(name, prefix) is None else None
    if found is None or found.alias is None:
        return None
    return rows[found.name], found.args


def _blanked(value: Any, secrets: set[str] | None) -> Any:
    """``value`` with every string that is one of ``secrets`` (None: every string) hidden."""
    if isinstance(value, str):
        return hidden(value) if secrets is None or value in secrets else value
    if isinstance(value, Mapping):
        return {k: _blanked(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_blanked(v, secrets) for v in value]
    return value


def redacted(name: Any, arguments: Any, prefix: str = "") -> Any:
    """``arguments`` of tool ``name`` as a log may show them: each secret argument as its
    length; a batch's calls each by their own tool's facts; everything else as it is.
    Another system's call (an alias) is shown in its words, with what our row takes as
    secret hidden wherever it sits in them."""
    theirs = _theirs(name, arguments, prefix)
    if theirs is not None:
        row, ours = theirs
        secret = None if row is None else {
            s for s in secrets_of(row.name, ours) if isinstance(s, str)}
        return {k: _blanked(v, secret) for k, v in arguments.items()}
    row = _row(name, prefix)
    if row is None or not isinstance(arguments, Mapping):
        return arguments
    secret = set(row.secret)
    out: dict[Any, Any] = {}
    for key, value in arguments.items():
        if key in secret:
            out[key] = hidden(value)
        elif key == row.calls_in and isinstance(value, list):
            out[key] = [{**step, "args": redacted(step.get("tool"), step.get("args"), prefix)}
                        if isinstance(step, Mapping) else step for step in value]
        else:
            out[key] = value
    return out


def secrets_of(name: Any, arguments: Any, prefix: str = "") -> Iterator[str]:
    """The secret text values in a call of ``name`` (a batch's calls' included; another
    system's call by what it becomes)."""
    theirs = _theirs(name, arguments, prefix)
    if theirs is not None:
        row, ours = theirs
        if row is None:  # not understood: every text in it
            yield from (v for v in _strings(arguments))
        else:
            yield from secrets_of(row.name, ours)
        return
    row = _row(name, prefix)
    if row is None or not isinstance(arguments, Mapping):
        return
    for key in row.secret:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            yield value
    steps = arguments.get(row.calls_in) if row.calls_in else None
    if isinstance(steps, list):
        for step in steps:
            if isinstance(step, Mapping):
                yield from secrets_of(step.get("tool"), step.get("args"), prefix)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def scrub(text: str, secrets: list[str]) -> str:
    """``text`` with every secret of :data:`SCRUB_MIN` characters or more replaced by its
    length — as given, and as the snapshot grammar and JSON escape it."""
    import json

    from baremobile.safetext import escape_desc, escape_text

    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) < SCRUB_MIN:
            continue
        forms = {secret, escape_text(secret), escape_desc(secret), repr(secret)[1:-1],
                 json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
        for form in sorted(forms, key=len, reverse=True):
            if form and form in text:
                text = text.replace(form, hidden(secret))
    return text
