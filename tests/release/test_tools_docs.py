"""docs/agents.md: the complete agent loop runs (scripted model, virtual phone) and prints
what the page says it prints; every other Python block there at least compiles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


def blocks(lang: str) -> list[tuple[int, str]]:
    text = DOC.read_text(encoding="utf-8")
    return [(text[: m.start()].count("\n") + 1, m.group(1))
            for m in re.finditer(rf"```{lang}\n(.*?)```", text, re.S)]


def section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start: end if end != -1 else None]


@pytest.mark.fast
def test_agent_loop_runs_and_prints_what_the_doc_says(capsys):
    part = section("A complete agent loop")
    (code,) = re.findall(r"```python\n(.*?)```", part, re.S)
    (expected,) = re.findall(r"```text\n(.*?)```", part, re.S)
    namespace: dict = {"__name__": "agents_doc"}
    exec(compile(code, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out.strip().splitlines()
    want = expected.strip().splitlines()
    assert len(printed) == len(want)
    for got, line in zip(printed, want, strict=True):
        pattern = re.escape(line).replace("…", ".*")
        assert re.fullmatch(pattern, got), (got, line)


@pytest.mark.fast
@pytest.mark.parametrize(("line", "code"), blocks("python"))
def test_python_blocks_compile(line, code):
    if code.lstrip().startswith(">>>"):
        return  # an interactive transcript
    compile(code, f"{DOC}:{line}", "exec")
