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
