"""Every runnable block of README.md and docs/*.md runs as written, on the virtual phone, and
every output sample is what the code prints (issue 31). How: ``tests/doc_examples.py``."""

from __future__ import annotations

import pytest

from tests.doc_examples import DOCUMENTS, run


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_the_document_runs_as_written(path):
    failures = run(path)
    assert not failures, f"{path.name}:\n" + "\n".join(failures)
