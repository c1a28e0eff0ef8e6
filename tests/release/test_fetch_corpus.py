"""benchmarks/fetch_corpus.py: the corpus fetched by manifest from its sources, each file's
SHA-1 checked before it is written, into the cache the corpus tests and the snapshot
benchmark read when ``../shared/corpus`` is absent.

The sources here are a web server on 127.0.0.1 that serves the shared corpus's files at
GitHub's raw-file paths (this machine reaches no other host): the script is the same, only
``--source`` differs. The corpus itself stays in ``../shared``: these tests read it there,
and skip without it.
"""

from __future__ import annotations

import hashlib
import http.server
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest

from tests import snapshot_helpers

SHARED = snapshot_helpers.shared_corpus()
pytestmark = pytest.mark.skipif(not (SHARED / "SOURCES.tsv").is_file(),
                                reason=f"no corpus manifest at {SHARED} to serve from")

sys.path.insert(0, str(snapshot_helpers.REPO / "benchmarks"))
import fetch_corpus  # noqa: E402


@pytest.fixture
def source():
    """A server answering ``/<repo>/<commit>/<path>`` with the shared corpus's bytes; a
    path listed in ``tampered`` gets other bytes. Yields (address template, tampered)."""
    entries = {(e.repo, e.commit, e.path): e.file
               for e in fetch_corpus.read_manifest(SHARED / "SOURCES.tsv")}
    tampered: set[str] = set()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            parts = urllib.parse.unquote(self.path).lstrip("/").split("/")
            key = ("/".join(parts[:2]), parts[2], "/".join(parts[3:]))
            name = entries.get(key)
            if name is None:
                self.send_error(404)
                return
            data = (SHARED / "dumps" / name).read_bytes()
            if name in tampered:
                data = data.replace(b"node", b"nodE", 1)
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/{{repo}}/{{commit}}/{{path}}", tampered
    finally:
        server.shutdown()
        server.server_close()


def _manifest(tmp_path: Path, rows: int) -> Path:
    """The first ``rows`` rows of the shared manifest (a copy in the test's folder)."""
    lines = (SHARED / "SOURCES.tsv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "SOURCES.tsv"
    path.write_text("\n".join(lines[:rows + 1]) + "\n", encoding="utf-8")
    return path


def test_fetch_verifies_every_file_and_resumes(source, tmp_path, capsys):
    template, tampered = source
    manifest = _manifest(tmp_path, 6)
    entries = fetch_corpus.read_manifest(manifest)
    cache = tmp_path / "cache"
    tampered.add(entries[2].file)
    argv = ["--manifest", str(manifest), "--into", str(cache), "--source", template]
    assert fetch_corpus.main(argv) == 1  # one file's bytes are not what the manifest says
    out = capsys.readouterr()
    assert f"failed: {entries[2].file}" in out.err and "not written" in out.err
    assert not (cache / "dumps" / entries[2].file).exists()
    for e in entries[:2] + entries[3:]:
        data = (cache / "dumps" / e.file).read_bytes()
        assert hashlib.sha1(data).hexdigest() == e.sha1
        assert data == (SHARED / "dumps" / e.file).read_bytes()
    assert (cache / "SOURCES.tsv").read_bytes() == manifest.read_bytes()
    tampered.clear()
    assert fetch_corpus.main(argv) == 0  # the rest are there already: only one is fetched
    assert "6 of 6 files verified (1 fetched, 5 already there, 0 failed)" in \
        capsys.readouterr().out
    leftovers = [p.name for p in (cache / "dumps").iterdir() if p.name.startswith(".")]
    assert not leftovers  # no temporary file is left behind


@pytest.mark.fast
def test_a_bad_manifest_is_refused(tmp_path):
    bad = tmp_path / "m.tsv"
    bad.write_text("file\trepo\tpath\tcommit\tnotes\n../evil.xml\ta/b\tx.xml\t" + "0" * 40
                   + "\tsha1:" + "1" * 40 + "\n")
    with pytest.raises(ValueError, match="plain .xml file name"):
        fetch_corpus.read_manifest(bad)
    assert fetch_corpus.main(["--manifest", str(bad), "--into", str(tmp_path / "c")]) == 2
    assert fetch_corpus.main(["--manifest", str(tmp_path / "none.tsv")]) == 2


def test_the_tests_and_the_benchmark_use_the_cache_when_shared_is_absent(
        source, tmp_path, monkeypatch, capsys):
    """Hermetic: the clone is in the test's folder, and the lookup of ``shared/corpus``
    climbs no higher than the folder it is given — a ``shared/`` above it (here a full one,
    elsewhere whatever the machine has) is not seen."""
    template, _ = source
    cache_home = tmp_path / "xdg"
    monkeypatch.delenv("BAREMOBILE_CORPUS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    given = tmp_path / "given"
    monkeypatch.setattr(snapshot_helpers, "REPO", given / "clone" / "repo")  # no shared/
    monkeypatch.setattr(snapshot_helpers, "TOP", given)
    above = tmp_path / "shared" / "corpus" / "dumps"  # outside what the lookup was given
    above.mkdir(parents=True)
    (above / "stray.xml").write_text("<hierarchy/>", encoding="utf-8")
    assert snapshot_helpers.shared_corpus() == given / "clone" / "shared" / "corpus"
    assert "fetch_corpus.py" in snapshot_helpers.corpus_missing()  # both absent: how to fill
    assert snapshot_helpers.corpus_files() == []
    cache = cache_home / "baremobile" / "corpus"
    manifest = _manifest(tmp_path, 3)
    assert fetch_corpus.main(["--manifest", str(manifest), "--source", template,
                              "--into", str(snapshot_helpers.corpus_cache())]) == 0
    assert snapshot_helpers.corpus_dir() == cache
    assert [p.name for p in snapshot_helpers.corpus_files()] == \
        [e.file for e in fetch_corpus.read_manifest(manifest)]
    # the benchmark runs on the fetched corpus (no JS baseline beside it: said, not fatal)
    bench = Path(fetch_corpus.__file__).with_name("snapshot.py")
    r = subprocess.run([sys.executable, str(bench), "--corpus", str(cache), "--reps", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "no BASELINE.tsv beside the corpus" in r.stdout


@pytest.mark.fast
def test_the_shipped_pointers_name_the_same_files_as_the_corpus_manifest():
    """``benchmarks/corpus_sources.tsv`` (what a clone fetches by) holds the corpus
    manifest's pointers — file, repository, path, commit, SHA-1 — and nothing else."""
    shipped = fetch_corpus.read_manifest(fetch_corpus.POINTERS)
    shared = fetch_corpus.read_manifest(SHARED / "SOURCES.tsv")
    key = lambda e: (e.file, e.repo, e.path, e.commit, e.sha1)  # noqa: E731
    assert sorted(map(key, shipped)) == sorted(map(key, shared))
    header = fetch_corpus.POINTERS.read_text(encoding="utf-8").splitlines()[0]
    assert header.split("\t") == ["file", "repo", "path", "commit", "sha1"]
