"""Running the documentation's examples as written (issue 31), with Sybil.

Sybil (a well-kept documentation tester: it lexes Markdown's fenced blocks and HTML-comment
directives, keeps a namespace per document and evaluates its examples in order) parses
README.md and docs/*.md with the parsers below:

* a ``python``/``py`` block is executed in the document's namespace, its stdout captured;
  a ``pycon`` block is a doctest (``>>>`` lines run, each answer compared, ``...`` matching
  anything: the standard library's doctest, with ELLIPSIS and NORMALIZE_WHITESPACE);
* a ``bash`` block is run by bash as one script (``set -e``) in the document's own
  directory (the CLI of this interpreter's environment on PATH, a daemon socket of the
  document's own), its output captured;
* a block right after ``<!-- doc: output -->`` is what the block before it printed: each of
  its lines is the printed line (times of day and ports masked), and a line ``...`` stands
  for any number of printed lines;
* ``<!-- doc: serves -->`` marks a block that starts a server (``baremobile virtual``,
  ``baremobile mcp --http``): it is started, must still run after a few seconds (what it
  printed is its output), and is stopped;
* ``<!-- doc: alone -->`` marks a bash block that runs on a machine with nothing attached:
  no phone and no daemon of the document's (``baremobile virtual &`` then commands without
  ``-d`` find exactly the phone it started);
* ``<!-- doc: needs KIND "why" -->`` marks the next block as one this machine cannot run —
  KIND is ``device`` (a real phone), ``key`` (an API key), ``lan`` (another machine),
  ``app`` (another program: Claude Code, Claude Desktop) or ``install`` (it installs
  packages: ``tests/release/test_packaging.py`` runs the install) — and it is counted, not run;
  ``browser`` (the virtual phone's web screens need a Chromium) runs where a Chromium is
  installed and is counted, not run, elsewhere;
* every other block (``text``, ``json``, ``yaml``, diagrams) is a sample or a picture.

:data:`COUNTS` tallies each kind (``tests/conftest.py`` prints it after a run).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer, FencedCodeBlockLexer

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: what each kind of block came to, over the documents run
COUNTS: Counter[str] = Counter()
NEEDS = ("device", "key", "lan", "app", "install", "browser")

_PENDING = "_doc_pending"  # the directive waiting for the next block
_OUTPUT = "_doc_output"  # what the last runnable block printed
_CLOCK = re.compile(r"\b\d{1,2}:\d\d(?::\d\d)?(?:\u202f|\s)?(?:[AP]M)?\b")
_PORT = re.compile(r"(127\.0\.0\.1|localhost):\d{2,5}")


def _directive(example: Example) -> None:
    text = example.parsed.strip()
    m = re.fullmatch(r'(output|serves|alone|needs)(?:\s+(\w+))?(?:\s+"([^"]*)")?', text)
    if m is None or (m.group(1) == "needs" and m.group(2) not in NEEDS):
        raise ValueError(f"unknown doc directive {text!r}: doc: output, doc: serves, doc: "
                         f"alone, or doc: needs {'|'.join(NEEDS)} \"why\"")
    example.namespace[_PENDING] = (m.group(1), m.group(2))


def _take(example: Example) -> tuple[str, str | None] | None:
    pending: tuple[str, str | None] | None = example.namespace.pop(_PENDING, None)
    if pending == ("needs", "browser"):
        from baremobile.virtual.chromium import find_chromium

        if find_chromium() is not None:
            return None  # this machine has what the block needs: it runs
    return pending


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


def _run_doctest(example: Example) -> None:
    import doctest

    pending = _take(example)
    if pending is not None and pending[0] == "needs":
        COUNTS[f"needs {pending[1]}"] += 1
        return
    test = doctest.DocTestParser().get_doctest(example.parsed, example.namespace,
                                               f"{example.path}:{example.line}",
                                               str(example.path), example.line)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                   | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=out.write, clear_globs=False)
    if runner.failures:
        raise AssertionError(out.getvalue())
    COUNTS["doctest run"] += 1


def _shell_env(namespace: dict[str, Any]) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["BAREMOBILE_DAEMON_SOCKET"] = namespace["_doc_socket"]
    env["HOME"] = namespace["_doc_dir"]  # what a block writes under ~ stays in its directory
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _run_shell(example: Example) -> None:
    pending = _take(example)
    if pending is not None and pending[0] == "needs":
        COUNTS[f"needs {pending[1]}"] += 1
        return
    if pending is not None and pending[0] == "output":
        return _check_output(example)
    if pending is not None and pending[0] == "serves":
        return _serve(example)
    env = _shell_env(example.namespace)
    alone = pending is not None and pending[0] == "alone"
    if alone:  # a machine where nothing else is attached: no phone, no daemon of the doc's
        own = tempfile.mkdtemp(prefix="bm-alone-", dir="/tmp")
        env["ANDROID_USER_HOME"] = os.path.join(own, ".android")
        env["BAREMOBILE_DAEMON_SOCKET"] = os.path.join(own, "d.sock")
    try:
        code, out, err = _bash(example.parsed, example.namespace["_doc_dir"], env)
    finally:
        if alone:
            subprocess.run([sys.executable, "-m", "baremobile", "daemon", "stop"], env=env,
                           capture_output=True, timeout=60)
            shutil.rmtree(own, ignore_errors=True)
    if code != 0:
        raise AssertionError(f"{example.path}:{example.line}: the block exited "
                             f"{code}:\n{out}\n{err}")
    example.namespace[_OUTPUT] = out
    COUNTS["shell run"] += 1


def _bash(script: str, cwd: str, env: dict[str, str], timeout: float = 300
          ) -> tuple[int, str, str]:
    """Run ``script`` with ``bash -e`` in a process group of its own: ``(status, stdout,
    stderr)``. What it left running in the background (a ``cmd &`` the script never
    stopped, because a line failed before its ``kill``) is stopped with it, so its output
    pipes close and nothing outlives the block."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(["bash", "-e", "-c", script], cwd=cwd, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err, text=True,
                                start_new_session=True)
        try:
            proc.wait(timeout)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), err.read()


#: how long a server a block starts must keep running to count as started
SERVE_S = 4.0


def _serve(example: Example) -> None:
    lines = _commands(example.parsed)
    line = lines[-1]  # what comes before it sets the scene (an export)
    script = "\n".join([*lines[:-1], f"exec {line}"])
    proc = subprocess.Popen(["bash", "-e", "-c", script], cwd=example.namespace["_doc_dir"],
                            env=_shell_env(example.namespace), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        proc.wait(SERVE_S)
    except subprocess.TimeoutExpired:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
        example.namespace[_OUTPUT] = out
        COUNTS["server started"] += 1
        return
    out = proc.stdout.read() if proc.stdout else ""
    raise AssertionError(f"{example.path}:{example.line}: `{line}` exited "
                         f"{proc.returncode} instead of serving:\n{out}")


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
            evaluator = {"python": _run_python, "py": _run_python, "pycon": _run_doctest,
                         "bash": _run_shell}.get(language, _sample)
            yield Region(region.start, region.end, str(region.lexemes["source"]), evaluator)


def _setup(namespace: dict[str, Any]) -> None:
    """A reader's machine: a directory of its own (the working directory of its blocks),
    its own ``~/.android`` (its key, and the phones ``baremobile virtual`` announces), its
    own daemon socket — and one phone attached: a ``baremobile virtual`` in its own
    process, so ``connect()`` and ``baremobile open`` find exactly one device."""
    directory = tempfile.mkdtemp(prefix="bm-doc-")
    namespace["_doc_dir"] = directory
    namespace["_doc_socket"] = os.path.join(tempfile.mkdtemp(prefix="bmd", dir="/tmp"),
                                            "d.sock")
    namespace["__name__"] = "__doc__"
    home = os.path.join(directory, ".android")
    os.makedirs(home)
    namespace["_doc_saved"] = {k: os.environ.get(k) for k in ("ANDROID_USER_HOME", "HOME")}
    os.environ["ANDROID_USER_HOME"] = home
    namespace["_doc_cwd"] = os.getcwd()
    os.chdir(directory)
    phone = subprocess.Popen([sys.executable, "-m", "baremobile", "virtual", "--port", "0"],
                             env=_shell_env(namespace), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    namespace["_doc_phone"] = phone
    folder = Path(home) / "baremobile-virtual"
    deadline = time.monotonic() + 60
    while not any(folder.glob("*.json")):
        if phone.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the documents' phone did not start")
        time.sleep(0.05)


def _teardown(namespace: dict[str, Any]) -> None:
    subprocess.run([sys.executable, "-m", "baremobile", "daemon", "stop"],
                   env=_shell_env(namespace), capture_output=True, timeout=60)
    phone = namespace.get("_doc_phone")
    if phone is not None:
        phone.terminate()
        phone.wait(30)
    os.chdir(namespace.get("_doc_cwd", os.getcwd()))
    for key, value in namespace.get("_doc_saved", {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
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
