"""Checking tool arguments against a tool's JSON schema — without ``jsonschema``.

Only the subset of JSON Schema the tool table uses is understood, and all of it is
enforced (:data:`KEYWORDS`; a test walks every tool's schema and fails on a keyword
missing here): ``type`` (one name or a list), ``properties``, ``required``,
``additionalProperties`` (``false`` or a schema), ``minProperties``/``maxProperties``,
``enum``, ``minimum``/``maximum``, ``exclusiveMinimum``/``exclusiveMaximum``,
``minLength``/``maxLength``, ``pattern``, ``anyOf``, ``items``,
``minItems``/``maxItems``; ``description``, ``title``, ``default`` and ``examples`` are
annotations. Types are JSON's, strictly: an object is a mapping with string keys, an
array a list or tuple; any other Python object (bytes, a set, ``object()``) matches no
type.

Before the schema, the arguments as a whole must be data JSON can carry
(:func:`baremobile.safetext.problem`): nested at most :data:`MAX_ARGUMENT_DEPTH` levels,
no lone surrogate in any string or name, no NaN or infinity — so what no front door could
encode is refused here, once, for every tool (``INVALID_ARGUMENT``, nothing sent), and
nothing downstream ever walks a pathological structure.

Every failure is an :class:`~baremobile.errors.InvalidArgument` whose message names the
parameter (``selector.text``, ``x``) and says what was expected, so an LLM can fix its call.

Two forgivenesses for what LLMs commonly send: a string of digits where an integer is
expected (``"3"`` for ``ref``) and a whole-number float (``3.0``) become the integer.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.safetext import problem

__all__ = ["ANNOTATIONS", "KEYWORDS", "MAX_ARGUMENT_DEPTH", "unsupported_keywords", "validate"]

#: the schema keywords this validator enforces
KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "minProperties",
    "maxProperties", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "pattern", "anyOf", "items", "minItems", "maxItems",
})
#: keywords that say something to the reader and nothing to the validator
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "x-shown", "x-hidden"})
#: how deep tool arguments may nest (the deepest schema, ``execute``'s steps, needs 5)
MAX_ARGUMENT_DEPTH = 32

_INT_STRING = re.compile(r"^\s*-?\d{1,15}\s*\Z")
#: no parameter takes an integer this large (refs, pixels, counts, milliseconds)
_INT_LIMIT = 2 ** 63


@functools.lru_cache(maxsize=64)
def _ecma(pattern: str) -> re.Pattern[str]:
    """``pattern`` as JSON Schema means it (ECMA-262): an ``$`` outside a character class
    is the end of the text — Python's ``$`` would also match before a final newline, so
    ``"tag\\n"`` would pass ``^[a-z]+$``; it becomes ``\\Z``."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        out.append("\\Z" if c == "$" and not in_class else c)
        i += 1
    return re.compile("".join(out))


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        if all(isinstance(k, str) for k in value):
            return "object"
        return "mapping with non-string keys"
    if isinstance(value, (list, tuple)):
        return "array"
    return f"Python {type(value).__name__} (not a JSON value)"


def _coerce(value: Any, types: list[str]) -> Any:
    """The value as one of ``types`` if a forgiving conversion exists, else unchanged."""
    if "integer" in types and not isinstance(value, bool):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INT_STRING.match(value) and "string" not in types:
            return int(value)
    return value


def _matches(value: Any, types: list[str]) -> bool:
    name = _type_name(value)
    if name in types:
        return True
    return name == "integer" and "number" in types


def _check(value: Any, schema: Mapping[str, Any], where: str) -> Any:
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else list(types)
        value = _coerce(value, types)
        if not _matches(value, types):
            want = " or ".join(types)
            raise InvalidArgument(
                f"{where} must be {'an' if want[0] in 'aeiou' else 'a'} {want}, "
                f"not {_type_name(value)} {_short(value)}",
                hint=_hint(where, schema),
            )
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidArgument(f"{where} must be a finite number, not {value!r}")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _INT_LIMIT:
        raise InvalidArgument(f"{where} is out of range ({_short(value)})",
                              hint=_hint(where, schema))
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(repr(v) for v in schema["enum"])
        raise InvalidArgument(f"{where} must be one of {options}, not {_short(value)}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if lo is not None and value < lo:
            raise InvalidArgument(f"{where} must be ≥ {lo}, not {_short(value)}",
                                  hint=_hint(where, schema))
        if hi is not None and value > hi:
            raise InvalidArgument(f"{where} must be ≤ {hi}, not {_short(value)}",
                                  hint=_hint(where, schema))
        lo, hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if lo is not None and value <= lo:
            raise InvalidArgument(f"{where} must be > {lo}, not {_short(value)}",
                                  hint=_hint(where, schema))
        if hi is not None and value >= hi:
            raise InvalidArgument(f"{where} must be < {hi}, not {_short(value)}",
                                  hint=_hint(where, schema))
    if isinstance(value, str):
        lo, hi = schema.get("minLength"), schema.get("maxLength")
        pattern = schema.get("pattern")
        if pattern is not None and not _ecma(pattern).search(value):
            raise InvalidArgument(f"{where} {_short(value)} has the wrong form",
                                  hint=_hint(where, schema))
        if lo is not None and len(value) < lo:
            raise InvalidArgument(
                f"{where} must not be empty" if lo == 1
                else f"{where} needs at least {lo} characters",
                hint=_hint(where, schema),
            )
        if hi is not None and len(value) > hi:
            raise InvalidArgument(f"{where} is too long ({len(value)} characters, at most {hi})")
    if isinstance(value, Mapping):
        value = _check_object(value, schema, where)
    if "anyOf" in schema:
        _check_any_of(value, schema, where)
    if isinstance(value, (list, tuple)):
        lo, hi = schema.get("minItems"), schema.get("maxItems")
        if lo is not None and len(value) < lo:
            raise InvalidArgument(
                f"{where} must not be empty" if lo == 1
                else f"{where} needs at least {lo} items, not {len(value)}",
                hint=_hint(where, schema))
        if hi is not None and len(value) > hi:
            raise InvalidArgument(f"{where} holds {len(value)} items, at most {hi}",
                                  hint=_hint(where, schema))
        if "items" in schema:
            value = [_check(v, schema["items"], f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def _check_object(
    value: Mapping[str, Any], schema: Mapping[str, Any], where: str
) -> dict[str, Any]:
    props: Mapping[str, Any] = schema.get("properties", {})
    prefix = f"{where}." if where else ""
    bad = [k for k in value if not isinstance(k, str)]
    if bad:
        raise InvalidArgument(f"parameter names must be strings, not {bad[0]!r}")
    extra = schema.get("additionalProperties")
    if extra is False:
        unknown = sorted(set(value) - set(props))
        if unknown:
            known = ", ".join(props) or "none"
            raise InvalidArgument(
                f"unknown parameter{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(prefix + u for u in unknown)}",
                hint=f"{where or 'this tool'} accepts: {known}",
            )
    missing = [k for k in schema.get("required", ()) if value.get(k) is None]
    if missing:
        raise InvalidArgument(
            f"missing required parameter{'s' if len(missing) > 1 else ''} "
            f"{', '.join(prefix + m for m in missing)}",
            hint=_hint(prefix + missing[0], props.get(missing[0], {})),
        )
    n = schema.get("minProperties")
    present = {k: v for k, v in value.items() if v is not None}
    if n is not None and len(present) < n:
        raise InvalidArgument(
            f"{where or 'the arguments'} need at least {n} field{'s' if n > 1 else ''}",
            hint=f"give one of: {', '.join(props)}",
        )
    n = schema.get("maxProperties")
    if n is not None and len(present) > n:
        raise InvalidArgument(
            f"{where or 'the arguments'} may have at most {n} field{'s' if n > 1 else ''}, "
            f"not {len(present)}", hint=_hint(where, schema))
    out: dict[str, Any] = {}
    for key, v in value.items():
        if v is None:  # an explicit null means "not given" (LLMs send it for optionals)
            continue
        if key in props:
            out[key] = _check(v, props[key], prefix + key)
        elif isinstance(extra, Mapping):
            out[key] = _check(v, extra, prefix + key)
        else:
            out[key] = v
    return out


def _check_any_of(value: Any, schema: Mapping[str, Any], where: str) -> None:
    branches = schema["anyOf"]
    first: InvalidArgument | None = None
    for branch in branches:
        try:
            _check(value, branch, where)
            return
        except InvalidArgument as exc:
            first = first or exc
    needs = [b["required"][0] for b in branches
             if set(b) == {"required"} and len(b["required"]) == 1]
    if len(needs) == len(branches):  # "at least one of these fields"
        raise InvalidArgument(
            f"{where or 'the arguments'} needs at least one of {', '.join(needs)}",
            hint=_hint(where, schema))
    assert first is not None
    raise first


def _short(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 30:
        # (str() of an integer over 4,300 digits raises: count its digits from its bits)
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, (list, tuple, dict)):  # never repr a whole (deep, huge) container
        return f"{_type_name(value)} of {len(value)} item{'s' if len(value) != 1 else ''}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _hint(where: str, schema: Mapping[str, Any]) -> str:
    desc = schema.get("description")
    if desc:
        return f"{where}: {desc}"
    return ""


def validate(arguments: Any, schema: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` checked against an object ``schema``; returns them (nulls dropped,
    digit strings and whole floats made integers where integers are expected).

    Raises :class:`~baremobile.errors.InvalidArgument` naming the first bad parameter.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise InvalidArgument(
            f"tool arguments must be a JSON object, not {_type_name(arguments)}",
            hint="pass the parameters as an object, e.g. {\"ref\": 3}",
        )
    why = problem(dict(arguments), max_depth=MAX_ARGUMENT_DEPTH)
    if why is not None:
        raise InvalidArgument(
            f"the arguments cannot be used: {why}; nothing was sent",
            hint="pass well-formed JSON data: text as itself (a character outside the BMP "
                 "whole, not one half of a UTF-16 surrogate pair), finite numbers, at most "
                 f"{MAX_ARGUMENT_DEPTH} levels of nesting")
    return _check_object(arguments, schema, "")


def unsupported_keywords(schema: Any) -> set[str]:
    """The keywords of ``schema`` (and of every schema inside it) that this validator
    neither enforces nor knows as annotations."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        s = stack.pop()
        if not isinstance(s, Mapping):
            continue
        found.update(k for k in s if k not in KEYWORDS and k not in ANNOTATIONS)
        stack.extend(s.get("properties", {}).values())
        stack.extend(s.get("anyOf", ()))
        for key in ("items", "additionalProperties"):
            if isinstance(s.get(key), Mapping):
                stack.append(s[key])
    return found
