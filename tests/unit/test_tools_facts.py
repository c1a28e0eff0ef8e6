"""Each fact about a call is kept once (issue 27): whether it acts, which arguments are secret
and what it waits by are facts of the Page verb; a tool's row points at its verbs and adds
only door facts. A side list keyed by verb or tool names is how such facts drifted before
(``SECRET_ARGUMENTS`` named a tool that did not exist; a trace list hid one verb of five)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import baremobile
from baremobile import Page
from baremobile.page.steps import VerbFacts, facts
from baremobile.tools.row import ToolSpec
from baremobile.tools.spec import TOOLS

PACKAGE = Path(baremobile.__file__).parent

#: collections whose strings only look like verb or tool names: (file, assigned name) → what
#: they hold
_NOT_FACTS = {
    ("baremobile/tools/table/__init__.py", "_ORDER"): "the table itself: the menu's order",
    ("baremobile/__init__.py", "_LAZY"): "public names (``devices()``) and their modules",
    ("baremobile/__init__.py", "__all__"): "public names",
    ("baremobile/android/keycodes.py", "ALIASES"): "key names (the back key, not a verb)",
    ("baremobile/cli/session.py", "DAEMON_COMMANDS"): "the CLI's own commands",
    ("baremobile/hints.py", "HINT_VERBS"): "how each door words what a hint points to",
    # the replay's own vocabulary: which recorded calls it can rebuild into a scenario, and
    # how (its code's cases, keyed by the verb a recording names) — not a fact of the call
    ("baremobile/trace/scenario.py", "ACTING"): "the recorded calls the replay rebuilds",
    ("baremobile/trace/scenario.py", "_KEYS"): "the key the replay presses for a button verb",
    ("baremobile/trace/scenario.py", "_WHY_NOT"): "why the replay leaves a recorded call out",
    ("baremobile/trace/timeline.py", "TOUCHING"): "recorded calls replayed touch by touch",
    ("baremobile/trace/fields.py", "MOVES"): "the kinds of touch a recording holds",
    ("baremobile/tools/spec.py", "GROUPS"): "tool groups (the apps group, the eval group)",
    # other systems' vocabularies: their words, which only look like our names
    ("baremobile/tools/table/clawperator.py", "_ACTION_ALIASES"):
        "clawperator's other spellings of its execute action types",
    ("baremobile/tools/table/automobile_calls.py", "TAP_ACTIONS"):
        "AutoMobile's tapOn actions (tap, doubleTap …) and the rows they map to",
    ("baremobile/tools/table/automobile_calls.py", "BUTTONS"):
        "AutoMobile's hardware button names (keys: the back key, not a verb)",
}


def _names() -> set[str]:
    verbs = {name for name, _ in inspect.getmembers(Page) if facts(getattr(Page, name))}
    return verbs | {t.name for t in TOOLS}


_JSON_TYPES = {"string", "integer", "number", "boolean", "object", "array", "null"}


def _schema(node: ast.Dict) -> bool:
    """Whether a dict literal is a JSON schema (``{"type": "string", …}``)."""
    for key, value in zip(node.keys, node.values, strict=True):
        if isinstance(key, ast.Constant) and key.value == "type":
            return isinstance(value, ast.Constant) and value.value in _JSON_TYPES or \
                isinstance(value, ast.List)
    return False


def _side_lists() -> list[str]:
    names = _names()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith("baremobile/virtual/"):
            continue  # the virtual phone is a phone: it knows no verbs
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]
        for scope in scopes:
            for stmt in scope.body:
                if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
                    continue
                value = stmt.value
                if isinstance(value, ast.Call) and value.args:  # frozenset({...}) and the like
                    value = value.args[0]
                if isinstance(value, ast.Dict):
                    elts, least = value.keys, 1
                elif isinstance(value, (ast.Set, ast.Tuple, ast.List)):
                    elts, least = value.elts, 2
                else:
                    continue
                named = [e.value for e in elts
                         if isinstance(e, ast.Constant) and e.value in names]
                if named == ["type"] and isinstance(value, ast.Dict) and _schema(value):
                    continue  # a JSON schema
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                if (rel, getattr(target, "id", "")) in _NOT_FACTS:
                    continue
                if len(named) >= least:
                    found.append(f"{rel}:{stmt.lineno} {named}")
    return found


def test_no_fact_about_a_call_is_kept_beside_the_verbs_and_rows():
    assert not _side_lists(), "keep it on the verb (@verb) or the row (ToolSpec)"


def test_a_row_cannot_restate_its_verbs_facts():
    row = TOOLS[0]
    with pytest.raises(TypeError, match="its verbs' facts"):
        ToolSpec("x", "X.", {}, row.run, verbs=(Page.tap,), acts_without_verb=True)
    with pytest.raises(TypeError, match="secret parameter"):
        ToolSpec("x", "X.", {"words": {"type": "string"}}, row.run, verbs=(Page.type,))
    ToolSpec("x", "X.", {"words": {"type": "string"}}, row.run, verbs=(Page.type,),
             passes={"text": "words"})


def test_every_row_reads_its_facts_from_its_verbs():
    for row in TOOLS:
        if not row.verbs:
            assert row.name in ("devices", "configure", "execute"), row.name
            continue
        known = [facts(v) for v in row.verbs]
        assert all(isinstance(f, VerbFacts) for f in known), row.name
        assert row.acts == any(f.acts for f in known if f), row.name
    by_name = {t.name: t for t in TOOLS}
    # what drifted before issue 27, now read from the verbs
    assert by_name["eval"].acts and facts(Page.eval_js).acts  # a script may change the screen
    for name, secret in (("type", {"text"}), ("insert_text", {"text"}),
                         ("replace_text", {"text", "search"}), ("set_clipboard", {"text"}),
                         ("write_file", {"text"}), ("append_file", {"text"}),
                         ("replace_in_file", {"old_text", "new_text"})):
        assert set(by_name[name].secret) == secret, name
    assert by_name["wait_for"].waits == "timeout" and by_name["wait"].waits == "seconds"
    assert by_name["execute"].waits == "timeout" and by_name["execute"].calls_in == "steps"


def test_the_daemons_floor_table_says_what_the_rows_say():
    """docs/daemon.md's floor table is the rows' time facts, in words: every tool with a
    floor of its own, every tool naming an element, every tool waiting by itself."""
    text = (PACKAGE.parent / "docs" / "daemon.md").read_text(encoding="utf-8")
    table = text[text.index("| tool | floor |"):]
    table = table[:table.index("\n\n")]
    rows = [(line.rsplit("|", 2)[-2].strip(), line) for line in table.splitlines()[2:]]

    def row(floor: str) -> str:
        return next(line for label, line in rows if label.startswith(floor)
                    and "ref or selector" not in line)

    for t in TOOLS:
        if t.floor:
            assert f"`{t.name}`" in row(f"{t.floor:g} s"), t.name
        if t.targets:
            assert f"`{t.name}`" in next(v for _, v in rows if "ref or selector" in v), t.name
        if t.waits:
            assert f"`{t.name}`" in row("its wait"), t.name
