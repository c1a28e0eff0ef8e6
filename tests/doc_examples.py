"""Running the documentation's examples as written (issue 31), with Sybil.

Sybil (a well-kept documentation tester: it lexes Markdown's fenced blocks and HTML-comment
directives, keeps a namespace per document and evaluates its examples in order) parses
README.md and docs/*.md with the parsers below:

* a ``python``/``py`` block is executed in the document's namespace, its stdout captured;
* a ``bash`` block is run line by line by bash in the document's own directory (the CLI of
  this interpreter's environment on PATH, a daemon socket of the document's own), its
  output captured;
* a block right after ``<!-- doc: output -->`` is what the block before it printed: each of
  its lines is the printed line (times of day and ports masked), and a line ``...`` stands
  for any number of printed lines;
* ``<!-- doc: needs KIND "why" -->`` marks the next block as one this machine cannot run —
  KIND is ``device`` (a real phone), ``key`` (an API key), ``lan`` (another machine),
  ``install`` (it installs packages: ``tests/test_packaging.py`` runs the install) or
  ``browser`` — and it is counted, not run;
* every other block (``text``, ``json``, ``yaml``, diagrams) is a sample or a picture.

:data:`COUNTS` tallies each kind (``tests/conftest.py`` prints it after a run).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, FencedCodeBlockLexer

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: what each kind of block came to, over the documents run
COUNTS: Counter[str] = Counter()
NEEDS = ("device", "key", "lan", "install", "browser")

_PENDING = "_doc_pending"  # the directive waiting for the next block
_OUTPUT = "_doc_output"  # what the last runnable block printed
_CLOCK = re.compile(r"\b\d{1,2}:\d\d(?::\d\d)?(?:\u202f|\s)?(?:[AP]M)?\b")
_PORT = re.compile(r"(127\.0\.0\.1|localhost):\d{2,5}")


def _directive(example: Example) -> None:
    text = example.parsed.strip()
    m = re.fullmatch(r'(output|needs)(?:\s+(\w+))?(?:\s+"([^"]*)")?', text)
    if m is None or (m.group(1) == "needs" and m.group(2) not in NEEDS):
        raise ValueError(f"unknown doc directive {text!r}: doc: output, or doc: needs "
                         f"{'|'.join(NEEDS)} \"why\"")
    example.namespace[_PENDING] = (m.group(1), m.group(2))


def _take(example: Example) -> tuple[str, str | None] | None:
    return example.namespace.pop(_PENDING, None)


def _run_python(example: Example) -> None:
    pending = _take(example)
    if pending is not None and pending[0] == "needs":
        COUNTS[f"needs {pending[1]}"] += 1
        return
    if pending is not None and pending[0] == "output":
        return _check_output(example)
    source = example.parsed
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, f"{example.path}:{example.line}", "exec"), example.namespace)
    example.namespace[_OUTPUT] = out.getvalue()
    COUNTS["python run"] += 1


def _shell_env(namespace: dict[str, Any]) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["BAREMOBILE_DAEMON_SOCKET"] = namespace["_doc_socket"]
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _run_shell(example: Example) -> None:
    pending = _take(example)
    if pending is not None and pending[0] == "needs":
        COUNTS[f"needs {pending[1]}"] += 1
        return
    if pending is not None and pending[0] == "output":
        return _check_output(example)
    out = []
    for line in _commands(example.parsed):
        done = subprocess.run(["bash", "-c", line], cwd=example.namespace["_doc_dir"],
                              env=_shell_env(example.namespace), capture_output=True,
                              text=True, timeout=300, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise AssertionError(f"{example.path}:{example.line}: `{line}` exited "
                                 f"{done.returncode}:\n{done.stdout}\n{done.stderr}")
        out.append(done.stdout)
    example.namespace[_OUTPUT] = "".join(out)
    COUNTS["shell run"] += 1


def _commands(source: str) -> list[str]:
    """The block's commands: lines joined at a trailing backslash, comments dropped."""
    lines, current = [], ""
    for raw in source.splitlines():
        line = raw.rstrip()
        if current:
            line = current + " " + line.lstrip()
            current = ""
        if line.endswith("\\"):
            current = line[:-1]
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            lines.append(line.strip())
    return lines


def _mask(line: str) -> str:
    return _PORT.sub(r"\1:PORT", _CLOCK.sub("TIME", line.rstrip()))


def _check_output(example: Example) -> None:
    printed = example.namespace.get(_OUTPUT)
    if printed is None:
        raise AssertionError(f"{example.path}:{example.line}: an output sample with no "
                             "runnable block before it")
    got = [_mask(x) for x in printed.splitlines()]
    want = [_mask(x) for x in example.parsed.rstrip("\n").splitlines()]
    i = 0
    for j, line in enumerate(want):
        if line.strip() in ("...", "…"):
            if j == len(want) - 1:
                i = len(got)
                break
            nxt = want[j + 1]
            while i < len(got) and got[i] != nxt:
                i += 1
            continue
        if i >= len(got) or got[i] != line:
            shown = got[i] if i < len(got) else "(nothing more)"
            raise AssertionError(f"{example.path}:{example.line}: the sample's line "
                                 f"{j + 1} is {line!r}, the code printed {shown!r}\n--- "
                                 f"printed:\n{printed}")
        i += 1
    COUNTS["output checked"] += 1


def _sample(example: Example) -> None:
    pending = _take(example)
    if pending is not None and pending[0] == "output":
        return _check_output(example)
    if pending is not None:
        COUNTS[f"needs {pending[1]}"] += 1
        return
    COUNTS["sample"] += 1


class _Blocks:
    """Every fenced block, evaluated by its language."""

    def __init__(self) -> None:
        self.lexer = FencedCodeBlockLexer(language=r"[\w-]*")
        self.directives = DirectiveInHTMLCommentLexer(directive="doc")

    def __call__(self, document: Document) -> Any:
        for region in self.directives(document):
            yield Region(region.start, region.end, region.lexemes["arguments"], _directive)
        for region in self.lexer(document):
            language = (region.lexemes.get("language") or "").strip()
            evaluator = {"python": _run_python, "py": _run_python,
                         "bash": _run_shell}.get(language, _sample)
            yield Region(region.start, region.end, str(region.lexemes["source"]), evaluator)


def _setup(namespace: dict[str, Any]) -> None:
    directory = tempfile.mkdtemp(prefix="bm-doc-")
    namespace["_doc_dir"] = directory
    namespace["_doc_socket"] = os.path.join(tempfile.mkdtemp(prefix="bmd", dir="/tmp"),
                                            "d.sock")
    namespace["__name__"] = "__doc__"


def _teardown(namespace: dict[str, Any]) -> None:
    subprocess.run([sys.executable, "-m", "baremobile", "daemon", "stop"],
                   env=_shell_env(namespace), capture_output=True, timeout=60)
    for value in list(namespace.values()):
        close = getattr(value, "close", None)
        if callable(close) and type(value).__module__.startswith("baremobile"):
            with contextlib.suppress(Exception):
                close()
    shutil.rmtree(namespace["_doc_dir"], ignore_errors=True)
    shutil.rmtree(os.path.dirname(namespace["_doc_socket"]), ignore_errors=True)


SYBIL = Sybil(parsers=[_Blocks()], setup=_setup, teardown=_teardown)


def run(path: Path) -> list[str]:
    """Evaluate every example of the document at ``path`` in order; the failures."""
    document = SYBIL.parse(path)
    namespace = document.namespace
    _setup(namespace)
    failures = []
    try:
        for example in document:
            try:
                example.evaluate()
            except Exception as exc:  # report each block, run the rest
                failures.append(f"line {example.line}: {type(exc).__name__}: {exc}")
                namespace.pop(_PENDING, None)
    finally:
        _teardown(namespace)
    return failures
