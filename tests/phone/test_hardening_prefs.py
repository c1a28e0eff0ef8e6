"""Hardening, round four (issue 28), items 11 and 13: SharedPreferences edits are checked
before anything is written, a file the API cannot read can still be cleared, and client
input is validated with ``fullmatch`` (a ``$`` also matches before a final newline).

Each test here failed on ``main`` before the fix: ``ide/setKeyValue`` with a control
character wrote a file that every later set, remove or clear refused (``INVALID_PREFERENCES``),
and ``fileName: "prefs\\n"`` reached the device as a path with a newline.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baremobile
from baremobile.android import prefs
from baremobile.errors import InvalidArgument
from baremobile.page import connect
from baremobile.virtual import VirtualPhone
from tests.daemon_helpers import RawClient, running_daemon

NOTES = "org.baremobile.notes"  # the demo's debuggable app


def _on_phone(phone: VirtualPhone, name: str) -> bytes | None:
    """The file as it lies on the phone (None: absent)."""
    fs = phone.model.fs
    home = f"/data/user/0/{NOTES}"
    with fs.acting_as_app(home):
        path = f"{home}/shared_prefs/{name}.xml"
        return fs.read(path) if fs.exists(path) else None


# -- item 11: validate before writing; never leave a file the API cannot repair ------------


@pytest.mark.parametrize("field,value", [
    ("value", "a\x01b"), ("value", "\x00"), ("value", "tab\tok\x1fnot"), ("value", "\ufffe"),
    ("key", "k\x00"), ("key", "k\x07"),
])
def test_set_key_value_refuses_what_xml_cannot_carry_and_writes_nothing(
        phone: VirtualPhone, daemon_socket: str, field: str, value: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        base = {"deviceId": phone.address, "appId": NOTES, "fileName": "hard"}
        assert c.call("ide/setKeyValue", {**base, "key": "kept", "value": "yes",
                                          "type": "STRING"})["success"]
        before = _on_phone(phone, "hard")
        params = {**base, "key": "k", "value": "v", "type": "STRING", field: value}
        bad = c.call("ide/setKeyValue", params, rid="bad")
        assert not bad["success"] and bad["code"] == "INVALID_ARGUMENT", bad
        assert "U+00" in bad["error"] or "U+FFFE" in bad["error"], bad
        assert _on_phone(phone, "hard") == before  # nothing was written
        # the file is as good as before: every later edit works
        for method, extra in (("ide/setKeyValue", {"key": "n", "value": "1", "type": "INT"}),
                              ("ide/removeKeyValue", {"key": "n"}),
                              ("ide/clearKeyValueFile", {})):
            assert c.call(method, {**base, **extra}, rid=method)["success"], method
        c.close()


def test_a_file_the_api_cannot_read_can_still_be_cleared(phone: VirtualPhone):
    """A file an app wrote that this parser refuses (Android's own writer escapes a control
    character as ``&#1;``, which XML 1.0 forbids): set and remove say so, clear repairs it."""
    fs = phone.model.fs
    home = f"/data/user/0/{NOTES}"
    with fs.acting_as_app(home):
        fs.makedirs(f"{home}/shared_prefs")
        fs.write(f"{home}/shared_prefs/broken.xml",
                 b"<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n"
                 b'    <string name="k">a&#1;b</string>\n</map>\n')
    with connect(phone.address) as page:
        with pytest.raises(prefs.PrefsError) as err:
            page.set_preference(NOTES, "broken", "x", "y")
        assert "clear" in err.value.hint
        with pytest.raises(prefs.PrefsError):
            page.remove_preference(NOTES, "broken", "k")
        assert page.clear_preferences(NOTES, "broken") == {}
        assert page.set_preference(NOTES, "broken", "x", "y") == {
            "x": {"type": "STRING", "value": "y"}}


def test_page_set_preference_refuses_before_sending_anything(phone: VirtualPhone):
    with connect(phone.address) as page:
        page.set_preference(NOTES, "p", "k", "v")
        sent = len(phone.events.commands())
        for key, value in (("k", "\x02"), ("k\x00", "v"), ("k", "\ud800"), ("k", ["ok", "\x03"])):
            kind = "STRING_SET" if isinstance(value, list) else "STRING"
            with pytest.raises(InvalidArgument):
                page.set_preference(NOTES, "p", key, value, kind)
        assert len(phone.events.commands()) == sent  # not even the app was stopped
        assert page.preferences(NOTES, "p") == {"k": {"type": "STRING", "value": "v"}}


_XML_TEXT = st.text(st.characters(codec="utf-8"), max_size=30)
_ANY_TEXT = st.text(max_size=30)


@settings(max_examples=300, deadline=None)
@given(key=_ANY_TEXT, value=st.one_of(_ANY_TEXT, st.lists(_ANY_TEXT, max_size=4)),
       kind=st.sampled_from(sorted(prefs.TYPES)))
def test_any_edit_is_refused_or_reads_back_exactly(key: str, value: Any, kind: str):
    """Whatever key, value and type a client sends: a typed refusal, or a file that reads
    back to exactly the entries meant (so it can be edited again)."""
    old = [prefs.Entry("string", "kept", "a\nb\r\tc <&>"), prefs.Entry("int", "n", "3")]
    try:
        new = prefs.set_value(old, key, value, kind)
        text = prefs.render(new)
    except InvalidArgument:
        return
    assert prefs.parse(text) == new
    assert prefs.parse(prefs.render(prefs.remove(prefs.parse(text), key))) == \
        prefs.remove(new, key)


@settings(max_examples=200, deadline=None)
@given(_XML_TEXT)
def test_any_text_xml_carries_is_a_string_preference(text: str):
    allowed = all(c in "\t\n\r" or 0x20 <= ord(c) <= 0xD7FF or 0xE000 <= ord(c) <= 0xFFFD
                  or ord(c) >= 0x10000 for c in text)
    if not allowed:
        with pytest.raises(InvalidArgument):
            prefs.set_value([], "k", text, "STRING")
        return
    new = prefs.set_value([], "k", text, "STRING")
    assert prefs.parse(prefs.render(new))[0].value == text


# -- item 13: fullmatch for client input ---------------------------------------------------


@pytest.mark.parametrize("name", ["prefs\n", "prefs.xml\n", "a\nb", "\n"])
def test_file_names_with_a_newline_are_refused(name: str):
    with pytest.raises(InvalidArgument):
        prefs.check_file_name(name)


def test_ide_refuses_a_file_name_ending_in_a_newline(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        base = {"deviceId": phone.address, "appId": NOTES, "fileName": "prefs\n"}
        for method, extra in (("ide/setKeyValue", {"key": "k", "value": "v", "type": "STRING"}),
                              ("ide/removeKeyValue", {"key": "k"}),
                              ("ide/clearKeyValueFile", {})):
            bad = c.call(method, {**base, **extra}, rid=method)
            assert not bad["success"] and bad["code"] == "INVALID_ARGUMENT", bad
        assert not any("run-as" in " ".join(cmd) for cmd in phone.events.commands())
        c.close()


def test_a_permission_name_ending_in_a_newline_is_refused(phone: VirtualPhone):
    with connect(phone.address) as page, pytest.raises(InvalidArgument):
        page.grant_permission(NOTES, "android.permission.CAMERA\n")
    assert not any(cmd[:2] == ["pm", "grant"] for cmd in phone.events.commands())


@pytest.mark.parametrize("prefix", ["android_\n", "\n"])
def test_a_tool_name_prefix_ending_in_a_newline_is_refused(prefix: str):
    schemas = importlib.import_module("baremobile.tools.schemas")
    with pytest.raises(InvalidArgument):
        schemas.check_prefix(prefix)


def test_a_schema_pattern_anchors_at_the_very_end_as_json_schema_does():
    """JSON Schema's ``pattern`` is an ECMA-262 regular expression, whose ``$`` matches only
    at the end of the input (Python's also before a final newline)."""
    from baremobile.tools.validate import validate

    def check(value: str, pattern: str) -> None:
        validate({"t": value}, {"type": "object", "properties": {
            "t": {"type": "string", "pattern": pattern}}})

    check("ab:V", r"^[a-z]+(:[VDI])?$")
    for bad in ("ab\n", "ab:V\n"):
        with pytest.raises(InvalidArgument):
            check(bad, r"^[a-z]+(:[VDI])?$")
    check("$x]", r"^[$a-z\]]+$")  # a $ in a class is a $
    check("a$", r"^a\$$")  # so is an escaped one


def test_resource_uris_ending_in_a_newline_are_refused(phone: VirtualPhone,
                                                       daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        uri = f"baremobile://device/{phone.address}/info\n"
        bad = c.call("resources/read", {"uri": uri})
        assert not bad["success"], bad
        c.close()


def _dollar_anchored() -> list[tuple[str, int, str]]:
    """Every pattern literal of the package (``re.compile``, ``re.match``, ``re.search``)
    ending in an unescaped ``$`` without MULTILINE."""
    out = []
    root = Path(baremobile.__file__).parent
    for f in sorted(root.rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in ("compile", "match", "search") and node.args):
                continue
            try:
                pattern = ast.literal_eval(node.args[0])
            except ValueError:  # built at run time: the pieces are literals
                pattern = "".join(c.value for c in ast.walk(node.args[0])
                                  if isinstance(c, ast.Constant) and isinstance(c.value, str))
            flags = " ".join(ast.unparse(a) for a in [*node.args[1:], *node.keywords])
            if isinstance(pattern, str) and re.search(r"(?<!\\)\$\Z", pattern) and \
                    "M" not in flags:
                out.append((str(f.relative_to(root)), node.lineno, pattern))
    return out


#: patterns ending in ``$`` that only ever read lines of a device's output (already split,
#: so no final newline is left to slip through)
_DEVICE_OUTPUT = {
    "android/activity.py", "android/battery.py", "android/display.py",
    "android/host_devices.py", "android/input_devices.py", "android/listing.py",
    "android/logs.py", "android/packages.py", "android/props.py", "android/storage.py",
    "android/windows.py", "android/run_as.py", "android/shell_command.py",
}


def test_no_client_input_is_validated_with_a_dollar_anchor():
    """The class of item 13: a pattern validating what a client sent ends in ``\\Z`` or is
    used with ``fullmatch``; ``$`` remains only in parsers of device output lines."""
    left = [(f, line, p) for f, line, p in _dollar_anchored() if f not in _DEVICE_OUTPUT]
    assert left == []

