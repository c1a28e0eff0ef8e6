"""The notebook runs top to bottom (the Markdown documents' examples:
``tests/release/test_doc_examples.py``)."""

from __future__ import annotations

import json
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
README = Path(__file__).resolve().parents[2] / "README.md"


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
