"""The package as a user gets it: a wheel built from this checkout, installed into fresh
virtual environments — the core plus ``[mcp]``, and one per framework with only the extra
``docs/integrations.md`` names for it — and run from there, never from the checkout.

The suite otherwise runs from the checkout (an editable install), where a file missing from
the wheel (``SKILL.md`` once was) or an extra missing a dependency (``[langchain]`` once
was) cannot show. The wheel is built once per test session, without build isolation (the
``[test]`` extra brings the setuptools it needs); each fresh environment is made without
pip (``venv --without-pip``) and filled by this interpreter's pip (``pip --python``) from
the indexes pip is configured with, its download cache warm from installing the suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FRAMEWORKS = {  # docs/integrations.md's sections → the extra each one names
    "LangChain and LangGraph": "langchain",
    "Pydantic AI": "pydantic-ai",
    "OpenAI Agents SDK": "openai-agents",
}


def _run(argv: list[str | Path], *, timeout: float = 300, cwd: Path | None = None,
         env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                       cwd=cwd, env=env, stdin=subprocess.DEVNULL)
    if check and r.returncode != 0:
        pytest.fail(f"{' '.join(map(str, argv))} -> {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout (built from a copy: nothing is written into the tree)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "baremobile", src / "baremobile",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    isolation: list[str] = []
    try:
        from importlib.metadata import version

        if int(version("setuptools").split(".")[0]) < 77:
            isolation = []  # too old for PEP 639 metadata: let pip fetch a build backend
        else:
            isolation = ["--no-build-isolation"]
    except Exception:  # no setuptools here
        isolation = []
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *isolation, "-w", out, src])
    (built,) = out.glob("baremobile-*.whl")
    return built


def _env(home: Path) -> dict[str, str]:
    """The test's environment (its private daemon socket and adb key folder), minus anything
    that could make the fresh interpreter import this checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    env["HOME"] = str(home)
    return env


class Installed:
    """A fresh virtual environment holding the wheel with some extras."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home
        self.python = root / "bin" / "python"
        self.bin = root / "bin"

    def run(self, *argv: str | Path, **kw: object) -> subprocess.CompletedProcess:
        kw.setdefault("cwd", self.home)
        kw.setdefault("env", _env(self.home))
        return _run(list(argv), **kw)  # type: ignore[arg-type]

    def python_code(self, code: str, **kw: object) -> subprocess.CompletedProcess:
        return self.run(self.python, "-c", code, **kw)


def _install(tmp_path_factory: pytest.TempPathFactory, wheel: Path, extras: str) -> Installed:
    root = tmp_path_factory.mktemp(f"venv-{extras or 'core'}")
    _run([sys.executable, "-m", "venv", "--without-pip", root], timeout=120)
    target = f"{wheel}[{extras}]" if extras else str(wheel)
    _run([sys.executable, "-m", "pip", "--python", root / "bin" / "python", "install", "-q",
          "--disable-pip-version-check", target], timeout=600)
    home = tmp_path_factory.mktemp(f"home-{extras or 'core'}")
    env = Installed(root, home)
    where = env.python_code("import baremobile; print(baremobile.__file__)").stdout.strip()
    assert where.startswith(str(root)), f"imported {where}, not the installed wheel"
    return env


@pytest.fixture(scope="session")
def core(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Installed:
    """The wheel with the MCP server's extra (the README's commands need nothing more)."""
    return _install(tmp_path_factory, wheel, "mcp")


# -- what the wheel holds ------------------------------------------------------------------


def test_the_wheel_holds_every_file_of_the_package(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    here = [p.relative_to(ROOT).as_posix() for p in (ROOT / "baremobile").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    missing = sorted(set(here) - names)
    assert not missing, f"not in the wheel: {missing} (pyproject's package-data)"
    assert "baremobile/cli/SKILL.md" in names and "baremobile/cli/commands.json" in names


def test_the_wheels_metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    urls = dict(line[len("Project-URL: "):].split(", ", 1) for line in text.splitlines()
                if line.startswith("Project-URL: "))
    assert {"Source", "Issues", "Changelog", "Documentation"} <= set(urls)
    classifiers = [line[len("Classifier: "):] for line in text.splitlines()
                   if line.startswith("Classifier: ")]
    assert "Operating System :: POSIX" in classifiers
    assert "Operating System :: OS Independent" not in classifiers
    low = int(re.search(r"Requires-Python: >=3\.(\d+)", text).group(1))
    versions = {int(c.rsplit(".", 1)[1]) for c in classifiers
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    assert min(versions) == low and versions == set(range(low, max(versions) + 1))
    extras = set(re.findall(r"^Provides-Extra: (.+)$", text, re.M))
    assert {"notebook", "langchain", "mcp", *FRAMEWORKS.values()} <= extras
    assert re.search(r"^Requires-Dist: notebook.*extra == \"notebook\"", text, re.M)
    # the README points at the notebook's extra
    assert "baremobile[notebook]" in (ROOT / "README.md").read_text(encoding="utf-8")


# -- from a fresh environment ---------------------------------------------------------------


def test_the_readme_commands_from_the_installed_wheel(core: Installed):
    baremobile = core.bin / "baremobile"
    skill = core.run(baremobile, "skill").stdout
    assert skill == (ROOT / "baremobile" / "cli" / "SKILL.md").read_text(encoding="utf-8")
    demo = core.run(baremobile, "demo", timeout=120).stdout
    assert "the virtual phone received:" in demo  # the built-in scenario: package data
    r = core.run(baremobile, "tapp", "3", check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "'baremobile tap'" in r.stderr
    assert core.run(baremobile, "--version").stdout.startswith("baremobile ")


def test_every_commands_help_from_the_installed_wheel(core: Installed):
    """Every command's --help, in one process of the installed package (each would be a
    process of ~0.1 s); the daemon's subcommands too."""
    code = """
import contextlib, io, json, sys
from baremobile.cli import command_names, main
out = {}
for argv in [[c, "--help"] for c in command_names()] + [
        ["daemon", a, "--help"] for a in ("start", "stop", "status")]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            main(argv)
            status = 0
        except SystemExit as exc:
            status = exc.code or 0
    out[" ".join(argv[:-1])] = [status, buf.getvalue()]
print(json.dumps(out))
"""
    helps = json.loads(core.python_code(code).stdout)
    assert len(helps) > 60
    for command, (status, text) in helps.items():
        assert status == 0 and text.startswith(f"usage: baremobile {command}"), command
        assert len(text.splitlines()) > 5, f"{command} --help says almost nothing"


def _readme_example() -> str:
    """The README's Python example under "## Use it": its two blocks, one after the other
    (the second goes on from the first's import)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Use it\n"):text.index("\n### Devices")]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert len(blocks) == 2 and blocks[0].startswith("from baremobile import connect")
    return blocks[0] + "\n" + blocks[1]


def test_the_readme_python_example_from_the_installed_wheel(core: Installed):
    out = core.python_code(_readme_example(), timeout=120).stdout
    assert out.startswith("# 1080x2400") and "[ref=" in out
    assert (core.home / "screen.png").read_bytes()[:4] == b"\x89PNG"


def test_the_mcp_server_from_the_installed_wheel_with_the_sdks_client(core: Installed):
    code = f"""
import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    server = StdioServerParameters(command={str(core.bin / "baremobile")!r},
                                   args=["mcp", "--device", "virtual"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            print(len(tools.tools), "tools")
            result = await session.call_tool("snapshot", {{}})
            print(result.content[0].text)

anyio.run(main)
"""
    out = core.python_code(code, timeout=120).stdout
    assert re.match(r"\d+ tools\n", out) and int(out.split()[0]) >= 10
    assert "[ref=" in out


def _part(title: str) -> str:
    text = (DOCS / "integrations.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start: end if end != -1 else None]


@pytest.mark.parametrize("title", list(FRAMEWORKS))
def test_each_integration_example_runs_with_only_its_extra(title: str, wheel: Path,
                                                           tmp_path_factory):
    extra = FRAMEWORKS[title]
    assert f"pip install 'baremobile[{extra}]'" in (DOCS / "integrations.md").read_text()
    env = _install(tmp_path_factory, wheel, extra)
    section = _part(title)
    (code,) = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    (expected,) = re.findall(r"^```text\n(.*?)^```", section, re.S | re.M)
    printed = env.python_code(code, timeout=180).stdout.strip().splitlines()
    want = expected.strip().splitlines()
    assert len(printed) == len(want), printed
    for got, line in zip(printed, want, strict=True):
        assert re.fullmatch(re.escape(line).replace("…", ".*"), got), (got, line)
