"""Scenario templates: ``{name}`` / ``{name:format}`` placeholders in a dump's text, filled
from a screen's variables, the clock, the node that was tapped, the URI that was viewed."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["render_template", "placeholders"]

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")


def _format_phone(value: str) -> str:
    digits = re.sub(r"\D", "", value)
    if len(digits) == 10:
        return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
    if len(digits) == 11 and digits[0] == "1":
        return f"+1 {digits[1:4]}-{digits[4:7]}-{digits[7:]}"
    return value


_FORMATTERS: dict[str, Callable[[str], str]] = {
    "phone": _format_phone,
    "upper": str.upper,
    "lower": str.lower,
    "strip": str.strip,
}


def render_template(template: str, context: dict[str, str]) -> str:
    """Replace ``{name}`` / ``{name:format}`` with values from ``context``.

    Names missing from ``context`` are left as written, so text of a real dump that
    happens to contain braces is never touched. Formats: ``phone``, ``upper``, ``lower``,
    ``strip``.
    """
    if "{" not in template:
        return template

    def sub(m: re.Match[str]) -> str:
        name, fmt = m.group(1), m.group(2)
        if name not in context:
            return m.group(0)
        value = context[name]
        if fmt:
            f = _FORMATTERS.get(fmt)
            if f is None:
                return m.group(0)
            value = f(value)
        return value

    return _PLACEHOLDER.sub(sub, template)


def placeholders(template: str) -> set[str]:
    """Names used as ``{name}`` in a string."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(template)}
