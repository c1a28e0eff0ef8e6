"""The package type-checks: ``python -m mypy`` (pyproject's ``[tool.mypy]``: the package,
Python 3.10, unused ``# type: ignore`` and redundant casts are errors) finds nothing, and
``# type: ignore`` stays rare outside the virtual phone — each with its error code and a
reason."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "baremobile"
#: the most ``# type: ignore`` comments allowed outside ``baremobile/virtual/``
MAX_IGNORES = 10

_IGNORE = re.compile(r"type:\s*ignore\b")
_WITH_CODE = re.compile(r"type:\s*ignore\[[a-z-]+(?:,\s*[a-z-]+)*\]")


def test_mypy_finds_no_error_in_the_package():
    pytest.importorskip("mypy", reason="mypy is in the [test] extra")
    # a process of its own (mypy raises the interpreter's recursion limit for good), run as
    # a developer runs it: the configuration is pyproject's, the cache the default one
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"mypy found errors:\n{done.stdout}{done.stderr}"
    assert "Success: no issues found" in done.stdout, done.stdout + done.stderr


@pytest.mark.fast
def test_the_mypy_configuration_checks_the_package_as_documented():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in Python 3.11+")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["baremobile"]
    assert config["python_version"] == "3.10"  # the oldest Python the package supports
    assert config["warn_unused_ignores"] is True and config["warn_redundant_casts"] is True
    # missing imports are ignored only per module that ships no types, never wholesale
    assert "ignore_missing_imports" not in config
    for override in config.get("overrides", []):
        modules = override["module"]
        assert all(m.split(".")[0] in ("adb_shell", "usb1") for m in modules), modules


def _ignores(path: Path) -> list[tuple[int, str, bool]]:
    """(line, comment, has a reason) of each ``# type: ignore`` comment in ``path``: the
    reason is a comment after it on its line, or one on the line above (not another
    ``type: ignore``)."""
    source = path.read_text(encoding="utf-8")
    comments = {tok.start[0]: tok.string
                for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                if tok.type == tokenize.COMMENT}
    found = []
    for line, text in sorted(comments.items()):
        m = _IGNORE.search(text)
        if m is None:
            continue
        after = text[m.end():].lstrip()
        after = after[after.index("]") + 1:] if after.startswith("[") and "]" in after else after
        reason = after.strip().startswith("#") and len(after.strip("# ")) > 0
        above = comments.get(line - 1, "")
        found.append((line, text, reason or bool(above and not _IGNORE.search(above))))
    return found


def test_type_ignores_outside_the_virtual_phone_are_few_coded_and_explained():
    found = [(path.relative_to(ROOT), line, text, reason)
             for path in sorted(PACKAGE.rglob("*.py"))
             if "virtual" not in path.relative_to(PACKAGE).parts[:1]
             for line, text, reason in _ignores(path)]
    shown = "\n".join(f"{p}:{line}: {text}" for p, line, text, _ in found)
    assert len(found) <= MAX_IGNORES, f"{len(found)} type: ignore (at most {MAX_IGNORES}):\n{shown}"
    uncoded = [f"{p}:{line}" for p, line, text, _ in found if not _WITH_CODE.search(text)]
    assert not uncoded, f"a type: ignore names its error code ([attr-defined]): {uncoded}"
    unexplained = [f"{p}:{line}" for p, line, _, reason in found if not reason]
    assert not unexplained, ("a type: ignore says why, in a comment after it or on the line "
                             f"above: {unexplained}")


@pytest.mark.fast
def test_the_ignore_counter_reads_comments_only(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        'TEXT = "# type: ignore[attr-defined]"  # a string is no comment\n'
        "x = 1  # type: ignore[assignment]  # the reason\n"
        "# the reason, above\n"
        "y = 2  # type: ignore[assignment]\n"
        "z = 3  # type: ignore\n", encoding="utf-8")
    assert [(line, reason) for line, _, reason in _ignores(sample)] == [
        (2, True), (4, True), (5, False)]
