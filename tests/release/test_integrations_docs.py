"""docs/integrations.md and docs/testing.md: every complete example runs, offline, on the
virtual phone, and prints what the page says it prints; every fragment compiles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

DOCS = Path(__file__).resolve().parents[2] / "docs"
FRAMEWORKS = {"LangChain and LangGraph": "langchain", "Pydantic AI": "pydantic_ai",
              "OpenAI Agents SDK": "agents"}


def fenced(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def part(doc: str, title: str) -> str:
    """The section of ``doc`` under ``## title``."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start: end if end != -1 else None]


@pytest.mark.parametrize("title", FRAMEWORKS)
def test_each_frameworks_example_runs_and_prints_what_the_page_says(title, capsys):
    pytest.importorskip(FRAMEWORKS[title], reason=f"{FRAMEWORKS[title]} is in the [test] extra")
    section = part("integrations.md", title)
    (code,) = fenced(section, "python")
    (expected,) = fenced(section, "text")
    exec(compile(code, f"docs/integrations.md ({title})", "exec"), {"__name__": "doc_example"})
    printed = capsys.readouterr().out.strip().splitlines()
    want = expected.strip().splitlines()
    assert len(printed) == len(want), printed
    for got, line in zip(printed, want, strict=True):
        assert re.fullmatch(re.escape(line).replace("…", ".*"), got), (got, line)


@pytest.mark.parametrize("doc", ["integrations.md", "testing.md"])
def test_fragments_compile(doc):
    text = (DOCS / doc).read_text(encoding="utf-8")
    blocks = fenced(text, "py") + fenced(text, "python")
    assert blocks
    for block in blocks:
        compile(block, doc, "exec")


def test_testing_examples_pass_under_the_plugin(pytester):
    """The first example of docs/testing.md is a test file: the plugin runs it."""
    text = (DOCS / "testing.md").read_text(encoding="utf-8")
    pytester.makepyfile(fenced(text, "python")[0])
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:langsmith_plugin",
                                "-p", "no:xdist", "-p", "no:hypothesispytest")
    result.assert_outcomes(passed=2)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:langsmith_plugin",
                                "-p", "no:xdist", "-p", "no:hypothesispytest",
                                "--virtual-api-level", "30", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
