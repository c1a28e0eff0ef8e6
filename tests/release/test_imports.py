"""The package's imports point down the documented layers, and nothing imports in a circle.

Every module under ``baremobile/`` is read with :mod:`ast` (nothing is imported). What counts
as an import:

* every ``import`` / ``from ... import`` statement **anywhere** in the module — at the top,
  and inside functions too: a lazy import is still a dependency, it only runs later (and an
  import circle closed by a lazy import is still a circle waiting for the wrong call order);
* except those under ``if TYPE_CHECKING:``, which never run.

``from a.b import c`` is a dependency on the module ``a.b.c`` when that is a module, else on
``a.b``; ``import a.b.c`` on ``a.b.c``. Parent packages' ``__init__`` files are not counted
(every import of a submodule runs them; counting that would make every package import its
own facade). Failures name the offending import with its file and line, and a circle by
its modules.

:data:`LAYERS` is the order of ``docs/architecture.md`` ("Modules and the direction of
imports", then the virtual phone's rooms): a module may import modules of its own layer
or of any layer below, never above.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "baremobile"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

def v(*rooms: str) -> list[str]:
    """Modules of the virtual phone (``v("")`` is its package)."""
    return [f"baremobile.virtual.{r}".rstrip(".") for r in rooms]


#: Top to bottom. A module belongs to the layer of the longest name that is it or one of its
#: packages. A module may import its own layer or any layer below, never one above.
LAYERS: list[list[str]] = [
    ["baremobile.__main__"],
    ["baremobile.pytest_plugin"],  # the pytest plugin: fixtures over page and the virtual phone
    ["baremobile.integrations"],  # agent-framework adapters over the tool table
    ["baremobile.cli"],
    ["baremobile.daemon"],  # the session daemon and its client; the CLI's session verbs
    ["baremobile.tools"],
    ["baremobile"],  # the public facade: connect, Page, Snapshot, errors, __version__
    ["baremobile.page.aio"],  # AsyncPage, generated from Page
    ["baremobile.page"],  # Page, assembled from its verb families
    ["baremobile.page.waits", "baremobile.page.editing"],
    ["baremobile.page.actions"],
    ["baremobile.page.web", "baremobile.page.gestures", "baremobile.page.apps",
     "baremobile.page.files", "baremobile.page.system", "baremobile.page.reading",
     "baremobile.page.prefs"],
    ["baremobile.page.base"],  # the state, the per-verb guard, observing, resolving
    ["baremobile.trace"],  # traces: recording (page.tracing), viewing, replaying, graphs
    ["baremobile.page.selector", "baremobile.page.screenshot", "baremobile.page.whynot",
     "baremobile.page.steps", "baremobile.page.freshness"],
    ["baremobile.device"],  # the verb families' commands over a Device
    ["baremobile.device.core"],  # Device: shell verbs and their answers
    ["baremobile.web"],  # web content through the DevTools protocol (the [web] extra)
    ["baremobile.calls"],  # the one sync/async bridge: calls on worker threads, cancellable
    ["baremobile.localfiles"],  # reading and writing files of this computer (page, tools)
    ["baremobile.snapshot"],
    ["baremobile.transport"],
    ["baremobile.android"],  # no I/O: command lines, plans, parsers of command output
    ["baremobile.errors"],
    ["baremobile.hints"],  # how hints name things at each door (no I/O)
    ["baremobile.safetext", "baremobile.suggest", "baremobile.timeouts"],  # stdlib only
    # -- the virtual phone: a peer that imports nothing of the product ---------------------
    v(""),  # its facade: VirtualPhone
    v("phone"),
    v("adbd"),  # listener, connections, handshake
    v("services"),  # shell:, exec:, sync:, localabstract:
    v("devtools"),  # the DevTools sockets' HTTP front and WebSocket tunnel
    v("streams"),  # flow control, faults firing
    v("sync", "auth", "faults"),
    v("protocol"),
    v("model"),
    v("sockets"),  # /proc/net/unix and the DevTools sockets in it
    # the screen model's rooms
    v("screens"),  # its facade: ScreenModel, AppInfo
    v("screens.screen_model"),
    v("screens.web"),  # the real browser behind web screens
    v("screens.web_input"),  # touch, text and keys into a page
    v("screens.touch", "screens.replay"),  # the replay: keys' codes, gestures' timing
    v("screens.gestures"),
    v("screens.keys"),
    v("screens.reactions"),
    v("screens.render", "screens.paint"),
    v("screens.filters", "screens.system_ui", "screens.shade", "screens.installs"),
    v("screens.state"),
    v("screens.display", "screens.clock"),
    # scenario files
    v("scenario"),
    v("scenario.loader"),
    v("scenario.checks"),
    v("scenario.rules"),
    v("scenario.definitions", "scenario.templates"),
    v("scenarios"),  # the demo's dump builder
    # the shell: the interpreter runs programs, programs see only the process interface
    v("shell.interpreter"),
    v("shell.builtins"),
    v("shell.redirect"),
    v("shell.expand"),
    v("commands"),
    v("commands.system"),
    v("commands.activity", "commands.files", "commands.input", "commands.package",
      "commands.text", "commands.ui", "commands.evdev", "commands.dumpsys",
      "commands.logcat"),
    v("commands.toybox", "commands.intents"),
    v("commands.registry", "commands.binder", "commands.surfaceflinger"),
    v("shell"),  # the language's front: syntax, lexer, parser, process interface
    v("shell.arith", "shell.patterns", "shell.conditions"),
    v("shell.parser"),
    v("shell.lexer"),
    v("shell.process", "shell.escapes", "shell.syntax"),
    v("profiles", "answers"),  # device profiles; canned answers a test teaches the phone
    v("fs", "events", "uixml", "png", "inputdev", "apk", "identity", "chromium"),
]


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, skipping the bodies of ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported baremobile module, line) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    found: list[tuple[str, int]] = []
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = []
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                targets.append(sub if sub in modules else mod)
        for t in targets:
            while t and t not in modules:  # "import a.b.c" of a non-module c: a.b
                t = t.rpartition(".")[0]
            if t.startswith("baremobile") and t != name:
                found.append((t, node.lineno))
    return found


def import_graph() -> dict[str, list[tuple[str, int]]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def layer_of(name: str) -> int:
    best, best_len = -1, -1
    for i, layer in enumerate(LAYERS):
        for prefix in layer:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = i, len(prefix)
    return best


def find_cycle(graph: dict[str, list[tuple[str, int]]]) -> list[str] | None:
    """One import circle (its modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m, _line in graph.get(n, []):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


# -- the tests -------------------------------------------------------------------------------


@pytest.mark.fast
def test_every_module_has_a_layer() -> None:
    orphans = [m for m in all_modules() if layer_of(m) < 0]
    assert not orphans, f"modules missing from LAYERS (and docs/architecture.md): {orphans}"


def test_no_import_circles() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_imports_point_down_the_layers() -> None:
    modules = all_modules()
    upward = []
    for name, deps in import_graph().items():
        for dep, line in deps:
            if layer_of(dep) < layer_of(name):
                upward.append(f"{modules[name].relative_to(ROOT)}:{line} imports {dep} "
                              f"(layer {layer_of(name)} imports layer {layer_of(dep)})")
    assert not upward, "imports pointing up:\n" + "\n".join(upward)


def test_the_virtual_phone_imports_nothing_of_the_product() -> None:
    for name, deps in import_graph().items():
        if name.startswith("baremobile.virtual"):
            bad = [d for d, _ in deps if not d.startswith("baremobile.virtual")]
            assert not bad, f"{name} imports {bad}"


#: the product's modules that start the virtual phone (a peer, not a dependency): the
#: ``connect("virtual")`` starter, the daemon's phones of its own, ``baremobile virtual``,
#: the pytest plugin's fixture — never the transports, which speak to any adbd
VIRTUAL_PHONE_STARTERS = {"baremobile.page.phone", "baremobile.daemon.hub", "baremobile.cli",
                          "baremobile.pytest_plugin"}


def test_only_the_starters_import_the_virtual_phone() -> None:
    users = {name for name, deps in import_graph().items()
             if not name.startswith("baremobile.virtual")
             and any(d.startswith("baremobile.virtual") for d, _ in deps)}
    assert users <= VIRTUAL_PHONE_STARTERS, users - VIRTUAL_PHONE_STARTERS


@pytest.mark.fast
def test_the_checker_sees_lazy_imports_and_skips_type_checking(tmp_path: Path) -> None:
    """The reader itself: function-level imports count, TYPE_CHECKING ones do not, relative
    imports resolve, and a circle is found and named."""
    src = (
        "from typing import TYPE_CHECKING\n"
        "from . import b\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import c\n"
        "def f():\n"
        "    from pkg.d import thing\n"
    )
    path = tmp_path / "a.py"
    path.write_text(src.replace("pkg", "baremobile.x"))
    mods = {f"baremobile.x.{m}": path for m in "abcd"}
    got = imports_of("baremobile.x.a", path, mods)
    assert sorted(got) == [("baremobile.x.b", 2), ("baremobile.x.d", 6)]
    graph = {"a": [("b", 1)], "b": [("c", 1)], "c": [("a", 1)], "d": []}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": [("b", 1)], "b": []}) is None


@pytest.mark.fast
def test_architecture_doc_lists_the_layers_in_order() -> None:
    """The product's layers and the virtual phone's modules (not the rooms inside its
    packages, which their package docstrings list) are named in docs/architecture.md in
    this order, top to bottom."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    positions = []
    for layer in LAYERS:
        if layer[0] in ("baremobile", "baremobile.__main__") or layer[0].count(".") > 2:
            continue
        path = layer[0].replace(".", "/")
        # the module itself (`calls.py`, `web/`, `page/__init__.py`), not a longer name
        # (`page_touch.py`) nor a module inside it (`page/aio.py`)
        hits = [m.start() for m in re.finditer(
            re.escape(f"`{path}") + r"(?=\.py`|/`|/__init__\.py`|`)", text)]
        assert hits, f"docs/architecture.md does not name `{path}`"
        positions.append((hits[0], path))
    names = [p for _, p in positions]
    assert [p for _, p in sorted(positions)] == names, "architecture.md order differs"


#: Modules exempt from the size rule: tables (one row per tool) and generated code (one
#: method per Page verb, written by ``python -m baremobile.page.codegen``).
TABLES = {"baremobile/tools/spec.py", "baremobile/page/aio.py"}


@pytest.mark.fast
def test_modules_stay_small() -> None:
    """One job per module: no module of the package grows past ~600 lines, tables apart."""
    big = {rel: n for p in sorted(PACKAGE.rglob("*.py"))
           if (rel := str(p.relative_to(ROOT))) not in TABLES
           and (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert not big, f"split these by job: {big}"


def test_programs_load_without_the_interpreter() -> None:
    """The programs depend on the process interface only: importing every one of them (in a
    fresh interpreter) loads neither the shell's interpreter nor its builtins."""
    import subprocess
    import sys

    code = ("import sys, baremobile.virtual.commands as c; "
            "print(len(c.COMMANDS), sorted(m for m in sys.modules "
            "if m.startswith('baremobile.virtual.shell.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    count, loaded = out.split(" ", 1)
    assert int(count) > 50
    for heavy in ("interpreter", "builtins", "expand", "redirect"):
        assert f"baremobile.virtual.shell.{heavy}'" not in loaded, loaded


def test_tool_runners_reach_the_page_only_through_its_public_verbs():
    """Every fact about what a tool does lives in a Page verb: the tool layer (runners,
    dispatcher, helpers) never touches a private Page member, nor the Page's device or
    transport underneath it — so every door (Python, tools, MCP, daemon, CLI, adapters)
    runs the same code for the same job."""
    from baremobile.page import Page

    public = {n for n in dir(Page) if not n.startswith("_")}
    offences = []
    for path in sorted((PACKAGE / "tools").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            owner = node.value
            # ctx.page.X, page.X, self.page.X
            named_page = (isinstance(owner, ast.Name) and owner.id == "page") or (
                isinstance(owner, ast.Attribute) and owner.attr == "page")
            if not named_page:
                continue
            if node.attr.startswith("_") or node.attr in ("device", "transport") or \
                    node.attr not in public:
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno} page.{node.attr}")
    assert not offences, "tool code reaching past the Page's verbs:\n" + "\n".join(offences)


def test_one_session_type():
    """Every door runs tool calls against one Session class: what differs (connecting on
    demand, one Page its owner holds, the daemon's pool) is the pages it is given
    (``baremobile.tools.pages``), never a subclass overriding its methods."""
    subclasses = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")
                         for b in node.bases}
                if "Session" in bases:
                    subclasses.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not subclasses, "Session subclasses:\n" + "\n".join(subclasses)


def test_one_bridge_between_blocking_calls_and_their_waiters():
    """Every door runs device work through :mod:`baremobile.calls` (a call's own cancel
    token: dropped if not started, its I/O aborted if running, awaitable, cancellable from
    anywhere) — no door keeps a thread pool or an event-loop bridge of its own."""
    own = {"ThreadPoolExecutor", "to_thread", "wrap_future", "run_in_executor"}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "baremobile/calls.py" or rel.startswith("baremobile/virtual/"):
            continue  # the bridge itself; the virtual phone is a peer, not a door
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = node.attr if isinstance(node, ast.Attribute) else \
                node.id if isinstance(node, ast.Name) else None
            if name in own:
                found.append(f"{rel}:{node.lineno} {name}")
    assert not found, "a bridge of its own:\n" + "\n".join(found)


@pytest.mark.fast
def test_device_families_have_one_shape():
    """Every module of ``baremobile/device/`` beside ``core`` is a verb family: a class over a
    ``Device`` (``__init__(self, device)``), with no public function that takes a device —
    one shape for all of them (no free functions beside classes)."""
    odd = []
    for path in sorted((PACKAGE / "device").glob("*.py")):
        if path.name in ("__init__.py", "core.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        families = [n for n in tree.body if isinstance(n, ast.ClassDef) and any(
            isinstance(f, ast.FunctionDef) and f.name == "__init__"
            and [a.arg for a in f.args.args][:2] == ["self", "device"] for f in n.body)]
        if not families:
            odd.append(f"{path.name}: no class over a Device")
        for n in tree.body:
            if isinstance(n, ast.FunctionDef) and n.args.args and \
                    n.args.args[0].arg == "device":
                odd.append(f"{path.name}:{n.lineno} {n.name}(device, …) is a free function")
    assert not odd, "\n".join(odd)
