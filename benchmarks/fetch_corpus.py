"""Fetch the real-dump corpus from its public sources, by manifest, into a cache folder.

    python benchmarks/fetch_corpus.py [--manifest SOURCES.tsv] [--into DIR] [--jobs 4]

The corpus the snapshot tests and ``benchmarks/snapshot.py`` read (175 ``uiautomator dump``
files that authors committed to public GitHub repositories) is not part of this repository:
its files stay under their repositories' terms. Its manifest names each one — ``file``,
``repo``, ``path``, ``commit`` and, in ``notes``, ``sha1:<hex>`` of the bytes — so anyone
with a network can fetch the same bytes from where they are published and check them:

* each file is downloaded from ``https://raw.githubusercontent.com/<repo>/<commit>/<path>``
  (``--source`` changes the address template), its SHA-1 compared with the manifest's, and
  only then written (under a temporary name, then renamed) to ``<DIR>/dumps/<file>``;
* a file already there with the right SHA-1 is not fetched again, so an interrupted run
  resumes; one with other bytes is fetched again;
* the manifest is copied beside the dumps (``<DIR>/SOURCES.tsv``): the corpus tests read it.

``DIR`` is ``$BAREMOBILE_CORPUS`` when set, else ``~/.cache/baremobile/corpus``
(``$XDG_CACHE_HOME`` moves ``~/.cache``), where the tests and the benchmark look when
``../shared/corpus`` is absent. The manifest is ``../shared/corpus/SOURCES.tsv`` where it
exists, else ``benchmarks/corpus_sources.tsv`` — the pointers only (file, repository, path,
commit, SHA-1; none of the files' content), shipped so that a clone alone can fetch the
corpus (``--manifest`` or ``$BAREMOBILE_CORPUS_MANIFEST`` to name another). Exit status: 0
when every file is there and verified, 1 when some could not be fetched or did not match
(each is named), 2 for a bad manifest or command line.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.snapshot_helpers import corpus_cache, shared_corpus  # noqa: E402

SOURCE = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
#: the corpus's pointers, shipped in the repository (no content of the files)
POINTERS = Path(__file__).resolve().with_name("corpus_sources.tsv")
_SHA1 = re.compile(r"\bsha1:([0-9a-f]{40})\b")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.xml$")


@dataclass(frozen=True)
class Entry:
    """One file of the manifest."""

    file: str
    repo: str
    path: str
    commit: str
    sha1: str
    size: int | None


def default_manifest() -> Path | None:
    env = os.environ.get("BAREMOBILE_CORPUS_MANIFEST")
    if env:
        return Path(env)
    shared = shared_corpus() / "SOURCES.tsv"
    return shared if shared.is_file() else POINTERS


def read_manifest(path: Path) -> list[Entry]:
    """The manifest's rows (tab-separated, a header naming the columns)."""
    rows = path.read_text(encoding="utf-8").splitlines()
    if not rows:
        raise ValueError(f"{path} is empty")
    head = rows[0].split("\t")
    for column in ("file", "repo", "path", "commit"):
        if column not in head:
            raise ValueError(f"{path}: no {column!r} column (columns: {', '.join(head)})")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not row.strip():
            continue
        cells = dict(zip(head, row.split("\t"), strict=False))
        sha1 = cells.get("sha1") or next(iter(_SHA1.findall(cells.get("notes", ""))), "")
        name = cells["file"]
        if not _SAFE_NAME.match(name):  # the name becomes a path: no folders, no dot-files
            raise ValueError(f"{path}:{n}: {name!r} is not a plain .xml file name")
        if not re.fullmatch(r"[0-9a-f]{40}", sha1):
            raise ValueError(f"{path}:{n}: no sha1 for {name}")
        if not re.fullmatch(r"[0-9a-f]{7,40}", cells["commit"]):
            raise ValueError(f"{path}:{n}: {cells['commit']!r} is not a commit")
        size = cells.get("bytes", "")
        out.append(Entry(name, cells["repo"], cells["path"], cells["commit"], sha1,
                         int(size) if size.isdigit() else None))
    return out


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def url_of(entry: Entry, source: str = SOURCE) -> str:
    return source.format(repo=entry.repo, commit=entry.commit,
                         path=urllib.parse.quote(entry.path, safe="/"))


def fetch_one(entry: Entry, dumps: Path, source: str, timeout: float) -> str:
    """``"ok"`` (already there), ``"fetched"``, or raises ``RuntimeError`` saying why."""
    target = dumps / entry.file
    if target.is_file() and _sha1(target.read_bytes()) == entry.sha1:
        return "ok"
    url = url_of(entry, source)
    last: Exception | None = None
    for _ in range(3):
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
                data = response.read(4 * 1024 * 1024 + 1)
            break
        except OSError as exc:  # URLError, HTTPError, timeouts
            last = exc
    else:
        raise RuntimeError(f"{entry.file}: {url}: {last}")
    got = _sha1(data)
    if got != entry.sha1:
        raise RuntimeError(f"{entry.file}: {url} has sha1 {got}, the manifest says "
                           f"{entry.sha1}: not written")
    fd, tmp = tempfile.mkstemp(dir=dumps, prefix=f".{entry.file}.")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, target)
    return "fetched"


def fetch(entries: list[Entry], into: Path, *, source: str = SOURCE, jobs: int = 4,
          timeout: float = 30.0) -> tuple[int, int, list[str]]:
    """Fetch every entry into ``into/dumps``: (already there, fetched, failures)."""
    dumps = into / "dumps"
    dumps.mkdir(parents=True, exist_ok=True)
    have = fetched = 0
    failures: list[str] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(fetch_one, e, dumps, source, timeout) for e in entries]
        for future in futures:
            try:
                if future.result() == "ok":
                    have += 1
                else:
                    fetched += 1
            except RuntimeError as exc:
                failures.append(str(exc))
    return have, fetched, failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", type=Path, default=default_manifest(),
                    help="the manifest (default: ../shared/corpus/SOURCES.tsv, or "
                         "$BAREMOBILE_CORPUS_MANIFEST)")
    ap.add_argument("--into", type=Path, default=corpus_cache(),
                    help=f"the corpus folder to fill (default: {corpus_cache()})")
    ap.add_argument("--source", default=SOURCE,
                    help="address template with {repo}, {commit}, {path} (default: GitHub's "
                         "raw files)")
    ap.add_argument("--jobs", type=int, default=4, help="downloads at a time (default 4)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per download")
    args = ap.parse_args(argv)
    if args.manifest is None or not args.manifest.is_file():
        print("no manifest: pass --manifest SOURCES.tsv (the corpus's list of files: "
              "file, repo, path, commit, sha1)", file=sys.stderr)
        return 2
    try:
        entries = read_manifest(args.manifest)
    except (OSError, ValueError) as exc:
        print(f"bad manifest: {exc}", file=sys.stderr)
        return 2
    have, fetched, failures = fetch(entries, args.into, source=args.source, jobs=args.jobs,
                                    timeout=args.timeout)
    if args.manifest.resolve() != (args.into / "SOURCES.tsv").resolve():
        shutil.copyfile(args.manifest, args.into / "SOURCES.tsv")
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)
    print(f"{args.into}: {have + fetched} of {len(entries)} files verified "
          f"({fetched} fetched, {have} already there, {len(failures)} failed)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
