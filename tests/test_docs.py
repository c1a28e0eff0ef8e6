"""The documentation runs: the notebook top to bottom, and the README's Python example."""

from __future__ import annotations

import json
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
README = Path(__file__).resolve().parent.parent / "README.md"


def test_explore_notebook_runs_top_to_bottom():
    """Executed as a script (nbclient would need a Jupyter kernel stack in the test extras)."""
    nb = json.loads((DOCS / "explore.ipynb").read_text())
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(cells) >= 8
    ns: dict = {"__name__": "__notebook__"}
    for i, cell in enumerate(cells):
        code = "".join(cell["source"])
        exec(compile(code, f"explore.ipynb[cell {i}]", "exec"), ns)
    assert ns["page"]._closed
    assert ns["shot"].png.startswith(b"\x89PNG")
    assert "Wi-Fi hotspot" in ns["results"].text


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    first, second = blocks[0], blocks[1]
    code = first + "\n" + "\n".join(line for line in second.splitlines())
    code = code.replace('page.screenshot().save("screen.png")', "page.screenshot()")
    exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})


def test_readme_sample_output_is_what_the_example_prints(capsys):
    """The output block after the first example is what it prints (the clock aside), line
    for line up to its "..."."""
    text = README.read_text()
    first = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    shown = re.search(re.escape(first) + r"```\n\n```\n(.*?)```", text, re.S)
    assert shown, "the example is followed by its output"
    exec(compile(first, "README.md", "exec"), {"__name__": "__readme__"})
    printed = capsys.readouterr().out.splitlines()
    expected = shown.group(1).splitlines()
    assert expected[-1].strip() == "..."
    clock = re.compile(r'"\d{1,2}:\d\d" \(\d{1,2}:\d\d\u202f?[AP]M\)')
    for want, got in zip(expected[:-1], printed, strict=False):
        assert clock.sub("CLOCK", want.replace(" PM", "\u202fPM")) == clock.sub("CLOCK", got)
    assert len(printed) >= len(expected) - 1


def test_readme_virtual_phone_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    (block,) = [b for b in blocks if "VirtualPhone()" in b]
    assert block.startswith("from baremobile import connect\n")  # complete as shown
    ns: dict = {"__name__": "__readme__"}
    exec(compile(block, "README.md", "exec"), ns)
    assert ns["page"]._closed
    assert "monkey" in capsys.readouterr().out


def test_license_file_matches_the_package_metadata():
    root = README.parent
    pyproject = (root / "pyproject.toml").read_text()
    assert re.search(r'^license = "MIT"$', pyproject, re.M)  # an SPDX expression (PEP 639)
    assert re.search(r'^license-files = \["LICENSE"\]$', pyproject, re.M)
    assert "License ::" not in pyproject  # classifiers would repeat it (and are deprecated)
    text = (root / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "baremobile developers" in text
