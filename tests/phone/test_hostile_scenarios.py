"""Hardening, round four (issue 28), items 9 and 12: a scenario names files of this
computer, and every one of them is read as untrusted — bounded before it is read, bounded
as it is parsed, and never quoted in an error.

Each of these failed on ``main`` before the fix: a ~300-byte YAML alias bomb in ``name``,
``version``, ``vars`` or ``nav_bar`` ran for a minute at 842 MB; ``xml: /dev/zero`` (or a
link to it) ran out of memory; a FIFO hung; a 600 MB dump took a minute; deep YAML or XML
raised ``RecursionError``; and a host file's root tag was quoted in the error.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.errors import InvalidScenario
from baremobile.page import connect
from baremobile.virtual.scenario import ScenarioError, load_scenario, loader
from tests.scenario_helpers import bare_app, node

BODY = node("android.widget.FrameLayout", "[0,0][1080,2400]",
            children=node("android.widget.TextView", "[0,0][1080,200]", text="Hello"))


def bounded(fn: Callable[[], Any], seconds: float = 20.0) -> Any:
    """``fn()`` in a thread that must end within ``seconds`` (a hang guard)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(("value", fn()))
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out.append(("raised", exc))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s"
    return out[0]


def refused(path: Path, seconds: float = 20.0) -> str:
    """``load_scenario(path)`` refuses with a ScenarioError within ``seconds``: its text."""
    kind, value = bounded(lambda: load_scenario(path), seconds)
    assert kind == "raised" and isinstance(value, ScenarioError), value
    return str(value)


def _bomb(levels: int = 9) -> str:
    """A flow sequence whose str() is 9**levels items: ~300 bytes of YAML."""
    names = "abcdefghijklmnopqrstuvwxyz"
    parts = ["&a [x,x,x,x,x,x,x,x,x]"]
    parts += [f"&{names[i]} [" + ",".join([f"*{names[i - 1]}"] * 9) + "]"
              for i in range(1, levels)]
    return "[" + ",".join(parts) + "]"


def _scenario(tmp_path: Path, **overrides: str) -> Path:
    """The bare one-app scenario, with lines swapped in (``name``, ``version``, ``vars``,
    ``nav_bar``)."""
    path = bare_app(tmp_path, {"main": BODY})
    text = path.read_text()
    if "name" in overrides:
        text = f"name: {overrides['name']}\n" + text
    if "nav_bar" in overrides:
        text = text.replace("  nav_bar: none", f"  nav_bar: {overrides['nav_bar']}")
    if "version" in overrides:
        text = text.replace("    activity: .Main",
                            f"    activity: .Main\n    version: {overrides['version']}")
    if "vars" in overrides:
        text = text.replace("        xml: main.xml",
                            f"        xml: main.xml\n        vars: {{v: {overrides['vars']}}}")
    if "xml" in overrides:
        text = text.replace("        xml: main.xml", f"        xml: {overrides['xml']}")
    path.write_text(text)
    return path


# -- item 9: aliases, sizes and file types, bounded before reading ---------------------------


def test_the_bomb_is_small():
    assert len(_bomb()) < 350


@pytest.mark.parametrize("where", ["name", "version", "vars", "nav_bar"])
def test_an_alias_bomb_is_refused_at_once(tmp_path: Path, where: str):
    path = _scenario(tmp_path, **{where: _bomb()})
    started = time.monotonic()
    said = refused(path)
    assert "expands to more than" in said and str(path) in said, said
    assert time.monotonic() - started < 5


def test_aliases_within_the_bound_still_work(tmp_path: Path):
    """Anchors and aliases are YAML: a scenario may share a block between screens."""
    path = bare_app(tmp_path, {"main": BODY, "next": BODY},
                    on={"main": "- tap: {text: Hello}\n  goto: next"})
    text = path.read_text().replace("        xml: main.xml",
                                    "        xml: main.xml\n        vars: &shared {a: 1}")
    text = text.replace("        xml: next.xml", "        xml: next.xml\n        vars: *shared")
    path.write_text(text)
    sc = load_scenario(path)
    assert sc.screens["main"].vars == sc.screens["next"].vars == {"a": "1"}


def test_an_alias_inside_its_own_anchor_is_refused(tmp_path: Path):
    said = refused(_scenario(tmp_path, vars="&loop [1, *loop]"))
    assert "alias inside the node it names" in said


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "link", "fifo", "dir"])
def test_a_dump_that_is_no_regular_file_is_refused_before_reading(tmp_path: Path, target):
    special = {"link": tmp_path / "zero.xml", "fifo": tmp_path / "pipe.xml",
               "dir": tmp_path / "folder.xml"}.get(target, Path(target))
    if target == "link":
        special.symlink_to("/dev/zero")
    elif target == "fifo":
        os.mkfifo(special)
    elif target == "dir":
        special.mkdir()
    said = refused(_scenario(tmp_path, xml=str(special)), seconds=10)
    assert "not a regular file" in said, said


@pytest.mark.parametrize("target", ["/dev/zero", "fifo", "link"])
def test_a_scenario_file_that_is_no_regular_file_is_refused(tmp_path: Path, target: str):
    path = Path(target)
    if target == "fifo":
        path = tmp_path / "s.yaml"
        os.mkfifo(path)
    elif target == "link":
        path = tmp_path / "s.yaml"
        path.symlink_to("/dev/zero")
    said = refused(path, seconds=10)
    assert "not a regular file" in said, said


def test_a_huge_dump_is_refused_by_its_size_before_reading(tmp_path: Path):
    big = tmp_path / "big.xml"
    with open(big, "wb") as f:
        f.truncate(600 * 1024 * 1024)  # sparse: 600 MB that take no disk
    started = time.monotonic()
    said = refused(_scenario(tmp_path, xml="big.xml"))
    assert f"more than the {loader.MAX_DUMP_BYTES} read" in said, said
    assert time.monotonic() - started < 5


def test_a_huge_scenario_file_is_refused_by_its_size(tmp_path: Path):
    path = tmp_path / "s.yaml"
    with open(path, "wb") as f:
        f.truncate(loader.MAX_YAML_BYTES + 1)
    assert "more than the" in refused(path)


def test_all_dumps_together_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = bare_app(tmp_path, {"a": BODY, "b": BODY, "c": BODY})
    one = (tmp_path / "a.xml").stat().st_size
    monkeypatch.setattr(loader, "MAX_DUMPS_BYTES", 2 * one + one // 2)
    said = refused(path)
    assert "screen 'c'" in said and "dumps are at most" in said, said


def test_a_recorded_scenario_plays_the_bytes_it_checked(tmp_path: Path):
    """Playback shows the dump read (and checked) at loading: a dump swapped afterwards —
    for a FIFO here — is never opened again."""
    path = bare_app(tmp_path, {"main": BODY})
    path.write_text("recorded: true\n" + path.read_text())
    with connect(f"virtual:{path}") as page:
        (tmp_path / "main.xml").unlink()
        os.mkfifo(tmp_path / "main.xml")
        kind, snap = bounded(page.snapshot, 20)
        assert kind == "value" and "Hello" in snap.text, snap


# -- item 12: deep files are typed errors; errors quote nothing of a file -------------------


@pytest.mark.parametrize("shape", ["flow", "block", "mapping"])
def test_deep_yaml_is_a_scenario_error(tmp_path: Path, shape: str):
    depth = 50_000
    text = {"flow": "apps: " + "[" * depth + "]" * depth + "\n",
            "block": "apps:\n" + "".join(" " * i + "-\n" for i in range(1, 2000)),
            "mapping": "apps:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 2000))}
    path = tmp_path / "s.yaml"
    path.write_text(text[shape])
    said = refused(path)
    assert "nests deeper than" in said, said


def test_deep_xml_is_a_scenario_error(tmp_path: Path):
    depth = 100_000
    deep = "<node bounds='[0,0][1,1]'>" * depth + "</node>" * depth
    (tmp_path / "main.xml").write_text(f"<hierarchy>{deep}</hierarchy>")
    path = bare_app(tmp_path, {"main": BODY})
    (tmp_path / "main.xml").write_text(f"<hierarchy>{deep}</hierarchy>")
    said = refused(path)
    assert "nest deeper than" in said, said


def test_a_dump_at_the_depth_allowed_plays(tmp_path: Path):
    """What the bound allows, the phone serves and the snapshot reads: no walk over the
    trees runs out of stack."""
    depth = 200
    deep = node("android.widget.TextView", "[0,0][1080,200]", text="Deep")
    for _ in range(depth):
        deep = node("android.widget.FrameLayout", "[0,0][1080,2400]", children=deep)
    path = bare_app(tmp_path, {"main": deep})
    with connect(f"virtual:{path}") as page:
        assert "Deep" in page.snapshot().text


SECRET = "hunter2-s3cr3t"


@pytest.mark.parametrize("content", [
    f"<{SECRET}><x/></{SECRET}>",
    f'<!DOCTYPE x [<!ENTITY e "{SECRET}">]><hierarchy>&e;</hierarchy>',
    f"<?xml version='1.0'?>\n<{SECRET} a='1'",
])
def test_a_host_file_named_as_a_dump_is_not_quoted(tmp_path: Path, content: str):
    (tmp_path / "host.conf").write_text(content)
    said = refused(_scenario(tmp_path, xml="host.conf"))
    assert SECRET not in said and "host.conf" in said, said


@pytest.mark.parametrize("content", [
    f"password: {SECRET}: here\n",
    f"{SECRET}: 1\n",
    f"{SECRET}: 1\n{SECRET}: 2\n",
    f"token: {SECRET}\nuser: ada\n",
    f"- {SECRET}\n",
    f"[{SECRET}, {{\n",
    f"key: *{SECRET}\n",
])
def test_a_host_file_named_as_a_scenario_is_not_quoted(tmp_path: Path, content: str):
    path = tmp_path / "secrets.yaml"
    path.write_text(content)
    said = refused(path)
    assert SECRET not in said, said
    with pytest.raises(InvalidScenario) as err:  # the door every client uses
        connect(f"virtual:{path}")
    assert SECRET not in str(err.value) and err.value.code


_YAMLISH = st.lists(st.sampled_from([*"[]{}:&*-, \n\tab1!|>'\"#%@`?\\", "apps", "&a ", "*a"]),
                    max_size=120).map("".join)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_YAMLISH)
def test_any_yaml_text_loads_or_is_a_scenario_error(tmp_path: Path, text: str):
    path = tmp_path / "fuzz.yaml"
    path.write_text(text)
    with contextlib.suppress(ScenarioError):
        load_scenario(path)


_XMLISH = st.lists(st.sampled_from([*"<>/='\" !?[]&;#x", "node", "hierarchy", "bounds",
                                   "[0,0][9,9]", "DOCTYPE"]), max_size=120).map("".join)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_XMLISH)
def test_any_dump_text_loads_or_is_a_scenario_error(tmp_path: Path, text: str):
    path = _scenario(tmp_path)
    (tmp_path / "main.xml").write_text(text)
    with contextlib.suppress(ScenarioError):
        load_scenario(path)
