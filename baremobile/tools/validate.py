"""Checking tool arguments against a tool's JSON schema — without ``jsonschema``.

Only the subset of JSON Schema the tool table uses is understood: ``type`` (one name or a
list), ``properties``, ``required``, ``additionalProperties: false``, ``enum``,
``minimum``/``maximum``, ``minLength``/``maxLength``, ``pattern``, ``minProperties``,
``minItems``/``maxItems``, ``anyOf`` and ``items``. Types are JSON's, strictly: an object
is a mapping with string keys, an array a list or tuple; any other Python object (bytes, a
set, ``object()``) matches no type.
Every failure is an :class:`~baremobile.errors.InvalidArgument` whose message names the
parameter (``selector.text``, ``x``) and says what was expected, so an LLM can fix its call.

Two forgivenesses for what LLMs commonly send: a string of digits where an integer is
expected (``"3"`` for ``ref``) and a whole-number float (``3.0``) become the integer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from baremobile.errors import InvalidArgument

__all__ = ["validate"]

_INT_STRING = re.compile(r"^\s*-?\d{1,15}\s*$")


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
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(repr(v) for v in schema["enum"])
        raise InvalidArgument(f"{where} must be one of {options}, not {_short(value)}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if lo is not None and value < lo:
            raise InvalidArgument(f"{where} must be ≥ {lo}, not {value!r}",
                                  hint=_hint(where, schema))
        if hi is not None and value > hi:
            raise InvalidArgument(f"{where} must be ≤ {hi}, not {value!r}",
                                  hint=_hint(where, schema))
    if isinstance(value, str):
        lo, hi = schema.get("minLength"), schema.get("maxLength")
        pattern = schema.get("pattern")
        if pattern is not None and not re.search(pattern, value):
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
            raise InvalidArgument(f"{where} needs at least {lo} item{'s' if lo > 1 else ''}",
                                  hint=_hint(where, schema))
        if hi is not None and len(value) > hi:
            raise InvalidArgument(f"{where} has too many items ({len(value)}, at most {hi})",
                                  hint=_hint(where, schema))
    if isinstance(value, (list, tuple)) and "items" in schema:
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
    if schema.get("additionalProperties") is False:
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
    out: dict[str, Any] = {}
    for key, v in value.items():
        if v is None:  # an explicit null means "not given" (LLMs send it for optionals)
            continue
        out[key] = _check(v, props[key], prefix + key) if key in props else v
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
    return _check_object(arguments, schema, "")
