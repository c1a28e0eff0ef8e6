"""The tool table's schemas: valid JSON Schema in every adapter style, names every framework
accepts, and the built-in argument validator agreeing with a real JSON-schema validator."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile import tools
from baremobile.errors import InvalidArgument
from baremobile.tools import render
from baremobile.tools.schemas import DRAFT_2020_12
from baremobile.tools.spec import PARAMS, TOOLS
from tests import examples

jsonschema = pytest.importorskip("jsonschema")  # installed with the mcp SDK ([test] extra)
from jsonschema import Draft7Validator, Draft202012Validator  # noqa: E402

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # OpenAI's and Anthropic's rule for tool names


def _parameters(style: str, entry: dict) -> dict:
    return {"openai": lambda e: e["function"]["parameters"],
            "openai-responses": lambda e: e["parameters"],
            "anthropic": lambda e: e["input_schema"],
            "json": lambda e: e["parameters"]}[style](entry)


def _name(style: str, entry: dict) -> str:
    return entry["function"]["name"] if style == "openai" else entry["name"]


@pytest.mark.parametrize("style", tools.STYLES)
@pytest.mark.parametrize("groups", [(), "all"])
def test_every_style_is_valid_json_schema(style, groups):
    defs = tools.schemas(style, groups=groups, prefix="android_pixel7_")
    assert len(defs) == len(tools.select(groups))
    for entry in defs:
        params = _parameters(style, entry)
        Draft202012Validator.check_schema(params)  # against the 2020-12 meta-schema
        Draft7Validator.check_schema(params)  # and draft-07, for older consumers
        assert params["type"] == "object"
        assert set(params.get("required", ())) <= set(params["properties"])
        _portable(params)
        name = _name(style, entry)
        assert NAME.match(name) and name.startswith("android_pixel7_")
        desc = entry["function"]["description"] if style == "openai" else entry["description"]
        assert 40 <= len(desc) <= 1024
        json.dumps(entry)  # plain JSON all the way down
    if style == "json":
        assert all(_parameters(style, e)["$schema"] == DRAFT_2020_12 for e in defs)
    else:
        assert all("$schema" not in _parameters(style, e) for e in defs)


#: what a shown schema may hold: the subset every function-calling API and MCP client takes
#: (Gemini refuses type lists, anyOf, additionalProperties and objects without properties)
_PORTABLE = {"type", "description", "enum", "properties", "required", "items", "$schema"}


def _portable(schema: dict, where: str = "") -> None:
    assert set(schema) <= _PORTABLE, f"{where}: {set(schema) - _PORTABLE}"
    assert isinstance(schema.get("type"), str), f"{where}: one type, not {schema.get('type')}"
    if schema["type"] == "object" and where and not where.endswith(".args"):
        # only a batch step's arguments are any object (each step's tool checks them)
        assert schema.get("properties"), f"{where}: an object shown without properties"
    for name, sub in schema.get("properties", {}).items():
        _portable(sub, f"{where}.{name}")
    if "items" in schema:
        _portable(schema["items"], f"{where}[]")
    if "enum" in schema:
        kind = {"string": str, "integer": int, "number": (int, float), "boolean": bool}
        assert all(isinstance(v, kind[schema["type"]]) for v in schema["enum"]), where


def test_every_accepted_schema_is_strict():
    """What is shown is the portable subset; what is accepted keeps every bound: unknown
    arguments are refused, and every shown parameter is accepted."""
    for t in TOOLS:
        accepted = t.parameters()
        Draft202012Validator.check_schema(accepted)
        assert accepted["additionalProperties"] is False
        shown = tools.schemas("json", groups=["all", "eval"])
        mine = next(d for d in shown if d["name"] == t.name)["parameters"]["properties"]
        assert set(mine) <= set(accepted["properties"]), t.name


def test_style_shapes():
    (oa, *_) = tools.schemas("openai")
    assert oa["type"] == "function" and set(oa["function"]) == {"name", "description",
                                                                "parameters"}
    (resp, *_) = tools.schemas("openai-responses")
    assert resp["type"] == "function" and resp["name"] == "snapshot"
    (an, *_) = tools.schemas("anthropic")
    assert set(an) == {"name", "description", "input_schema"}
    with pytest.raises(InvalidArgument):
        tools.schemas("gemini")
    with pytest.raises(InvalidArgument):
        tools.schemas("openai", prefix="bad prefix!")


def test_shared_parameter_names():
    """Plain names, the same in every tool: ref, text, key, direction, package, uri, x, y,
    device, max_chars, selector."""
    seen: dict[str, list[dict]] = {}
    for t in TOOLS:
        for name, schema in t.parameters()["properties"].items():
            seen.setdefault(name, []).append(schema)
    for name in ("ref", "text", "key", "direction", "package", "uri", "x", "y", "device",
                 "max_chars", "selector"):
        assert name in seen, name
        types = {json.dumps(s.get("type")) for s in seen[name]}
        assert len(types) == 1, f"{name} has several types: {types}"
    assert all(s == PARAMS["selector"] for s in seen["selector"])
    sel = PARAMS["selector"]["properties"]
    from baremobile.page.selector import ALIASES as SPELLINGS

    assert set(sel) == {"text", "text_contains", "desc", "desc_contains", "id", "role", "index",
                        "class_name",  # issue 22, and every other spelling the Selector
                        *SPELLINGS}    # takes (clawperator's, Android's), accepted not shown
    assert set(PARAMS["selector"]["x-hidden"]) == set(SPELLINGS)


def test_device_parameter_switch():
    with_device = tools.schemas("anthropic")
    without = tools.schemas("anthropic", device=False)
    assert all("device" in e["input_schema"]["properties"] for e in with_device
               if e["name"] not in ("devices",))
    assert all("device" not in e["input_schema"]["properties"] for e in without)


def test_descriptions_teach_refs():
    snap = next(t for t in TOOLS if t.name == "snapshot")
    assert "kept while it stays on screen" in snap.description
    assert "diff=true" in snap.description and "#id" in snap.description
    find = next(t for t in TOOLS if t.name == "find")
    for field in ("text", "text_contains", "desc", "desc_contains", "id", "role", "class_name",
                  "index"):  # the selector's fields are said once, where it is taught
        assert field in find.description, field
    for t in TOOLS:
        assert t.description.endswith(".") and t.description[0].isupper(), t.name
        assert " Returns " in render.describe(t), t.name


def test_schemas_are_fresh_copies():
    a = tools.schemas("json")
    a[0]["parameters"]["properties"].clear()
    assert tools.schemas("json")[0]["parameters"]["properties"]


# -- the built-in validator agrees with jsonschema ------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2000) | st.floats(-10, 3000, allow_nan=False)
    | st.text(max_size=6),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids,
                                                              max_size=3),
    max_leaves=6,
)


def _arguments(tool):
    props = tool.parameters()["properties"]
    keys = st.sampled_from(sorted(props) + ["bogus"])
    value = _json | st.sampled_from([1, 3, "down", "com.android.settings", "https://x.y",
                                     {"text": "OK"}, {"role": "Button", "index": 1}, {}, 0.5])
    return st.dictionaries(keys, value, max_size=4)


def _forgiven(args: dict, schema: dict) -> bool:
    """Inputs where the validator is deliberately kinder than JSON Schema."""
    for k, v in args.items():
        if v is None:
            return True  # explicit null = not given
        t = schema["properties"].get(k, {}).get("type")
        if isinstance(v, str) and t == "integer" and v.strip().lstrip("-").isdigit():
            return True
        if isinstance(v, float) and v.is_integer():
            return True
        if isinstance(v, dict) and k == "selector" and any(x is None or (
                isinstance(x, float) and x.is_integer()) for x in v.values()):
            return True
    return False


@settings(max_examples=examples(400), deadline=None)
@given(data=st.data())
def test_validator_agrees_with_jsonschema(data):
    tool = data.draw(st.sampled_from(TOOLS))
    schema = tool.parameters()
    args = data.draw(_arguments(tool))
    if _forgiven(args, schema):
        return
    expected = Draft202012Validator(schema).is_valid(args)
    try:
        tools.validate(args, schema)
        got = True
    except InvalidArgument as exc:
        got = False
        assert exc.message
    assert got == expected, (tool.name, args)


def test_validator_messages_name_the_parameter():
    schema = next(t for t in TOOLS if t.name == "tap").parameters()
    cases = {
        "selector.text": {"selector": {"text": 3}},
        "bogus": {"bogus": 1},
        "selector.nope": {"selector": {"nope": "x"}},
        "ref must be ≥ 1": {"ref": 0},
    }
    for fragment, args in cases.items():
        with pytest.raises(InvalidArgument, match=re.escape(fragment)):
            tools.validate(args, schema)
    assert tools.validate({"ref": "7", "selector": None}, schema) == {"ref": 7}


def test_selector_needs_a_criterion_in_the_schema_and_the_validator():
    schema = next(t for t in TOOLS if t.name == "tap").parameters()
    validator = Draft202012Validator(schema)
    for bad in ({"selector": {"index": 5}}, {"selector": {}}):
        assert not validator.is_valid(bad)
        with pytest.raises(InvalidArgument, match="at least one of text"):
            tools.validate(bad, schema)
    with pytest.raises(InvalidArgument, match="at least one of text"):  # null = not given
        tools.validate({"selector": {"index": 0, "text": None}}, schema)
    for good in ({"selector": {"role": "Button", "index": 2}}, {"selector": {"text": ""}}):
        assert validator.is_valid(good)
        assert tools.validate(good, schema) == good


def test_bounds_patterns_and_descriptions():
    tap = next(t for t in TOOLS if t.name == "tap").parameters()
    assert tap["properties"]["x"]["maximum"] == 100_000
    with pytest.raises(InvalidArgument, match="x must be ≤ 100000"):
        tools.validate({"x": 100_001, "y": 1}, tap)
    logcat = next(t for t in TOOLS if t.name == "logcat").parameters()
    for tag in ("-c", "-d", "a b", "tag;rm", ""):
        with pytest.raises(InvalidArgument):
            tools.validate({"tag": tag}, logcat)
        assert not Draft202012Validator(logcat).is_valid({"tag": tag})
    assert tools.validate({"tag": "ActivityManager:W"}, logcat)
    stable = next(t for t in TOOLS if t.name == "wait_stable").parameters()
    assert stable["properties"]["timeout"]["minimum"] == 1
    assert "down: see what is below" in PARAMS["direction"]["description"]


class _Odd:
    pass


@pytest.mark.parametrize("value", [object(), _Odd(), b"text", {1, 2}, {1: "a"}, 1j])
def test_validator_accepts_only_json_types(value):
    tap = next(t for t in TOOLS if t.name == "tap").parameters()
    with pytest.raises(InvalidArgument):
        tools.validate({"selector": value}, tap)
    typ = next(t for t in TOOLS if t.name == "type").parameters()
    with pytest.raises(InvalidArgument):
        tools.validate({"text": value}, typ)


def test_call_answers_invalid_argument_for_non_json_objects():
    r = tools.call(tools.Session(), "find", {"selector": object()})
    assert r["error"]["code"] == "INVALID_ARGUMENT", r
    r = tools.call(tools.Session(), "find", {"selector": {1: "x"}})
    assert r["error"]["code"] == "INVALID_ARGUMENT", r
