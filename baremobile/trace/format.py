"""The trace file: how a recording is laid out, written step by step, packed, and read back.

A trace is **one zip file** (``session.zip``)::

    trace.json              what was recorded: format, baremobile version, device, door,
                            options, start and end, the outcome (a failed test's error)
    steps/000001.json …     one file per step: the call, its arguments (secrets hidden), the
                            element its ref resolved to, timings, the result or the error,
                            the text the caller was shown, the dumps and screenshot it saw
    dumps/<sha>.xml         each distinct raw dump once, as the device wrote the XML
                            (content-addressed: a screen seen ten times is stored once;
                            uiautomator's status line before it, which names a per-call
                            file, is left out)
    shots/<sha>.png         screenshots, likewise

While recording, the same layout is written **as a directory** beside the target
(``session.zip.recording/``): each file is written to a temporary name and renamed, a step
as soon as it ends, so a crash leaves a readable trace. ``stop()`` packs the directory into
the zip (written beside it, then renamed) and removes it. Every reader here accepts either
form, and a target whose zip is missing but whose ``.recording`` directory exists is read
from that directory (what a crashed run left).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.localfiles import atomic_writer

__all__ = ["FORMAT", "RECORDING", "Trace", "TraceWriter", "call_text", "open_trace", "xml_of"]

#: The layout's version (``trace.json``'s ``format``).
FORMAT = 1
#: What a recording directory's name ends with.
RECORDING = ".recording"


def xml_of(dump: bytes) -> bytes:
    """The XML of a raw dump (what the device printed: uiautomator's status text, then the
    XML document)."""
    for mark in (b"<?xml", b"<hierarchy"):
        i = dump.find(mark)
        if i >= 0:
            return dump[i:]
    return dump


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:24]


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _json(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=False).encode("utf-8")


class TraceWriter:
    """Writes one recording into its directory (see the module's docs); thread-safe callers
    hold their own lock."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.folder = target.with_name(target.name + RECORDING)
        if self.folder.exists():
            shutil.rmtree(self.folder)
        for sub in ("steps", "dumps", "shots"):
            (self.folder / sub).mkdir(parents=True)
        self.bytes = 0  #: what the blobs and steps take so far

    def meta(self, meta: dict[str, Any]) -> None:
        _write_atomic(self.folder / "trace.json", _json(meta))

    def blob(self, kind: str, data: bytes) -> str:
        """Store ``data`` once (``kind``: ``dumps`` or ``shots``); returns its name in the
        trace (``dumps/<sha>.xml``)."""
        name = f"{kind}/{_digest(data)}.{'xml' if kind == 'dumps' else 'png'}"
        path = self.folder / name
        if not path.exists():
            _write_atomic(path, data)
            self.bytes += len(data)
        return name

    def step(self, record: dict[str, Any]) -> None:
        data = _json(record)
        _write_atomic(self.folder / "steps" / f"{record['n']:06d}.json", data)
        self.bytes += len(data)

    def pack(self) -> Path:
        """The directory as the zip ``target`` (atomically), the directory removed."""
        self.target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(self.target, overwrite=True, what=f"trace {str(self.target)!r}",
                           mode=0o600) as f, \
                zipfile.ZipFile(f, "w") as z:
            for path in sorted(self.folder.rglob("*")):
                if path.is_file() and not path.name.startswith("."):
                    rel = path.relative_to(self.folder).as_posix()
                    method = zipfile.ZIP_STORED if rel.endswith(".png") else zipfile.ZIP_DEFLATED
                    z.write(path, rel, compress_type=method)
        shutil.rmtree(self.folder, ignore_errors=True)
        return self.target


@dataclass
class Trace:
    """A trace read back: :attr:`meta` (``trace.json``) and :attr:`steps` (in order); the
    stored dumps and screenshots by name (:meth:`blob`)."""

    path: Path
    meta: dict[str, Any]
    steps: list[dict[str, Any]]
    _blobs: dict[str, bytes] = field(default_factory=dict, repr=False)
    _open: Any = field(default=None, repr=False)

    def blob(self, name: str | None) -> bytes | None:
        """The stored file ``name`` (``dumps/…``, ``shots/…``), None when absent."""
        if not name:
            return None
        if name not in self._blobs:
            try:
                self._blobs[name] = self._open(name)
            except (KeyError, OSError):
                return None
        return self._blobs[name]

    def dump(self, name: str | None) -> bytes | None:
        """The XML of stored dump ``name``."""
        data = self.blob(name)
        return xml_of(data) if data is not None else None

    @property
    def complete(self) -> bool:
        """Whether the recording was stopped (not what a crash left)."""
        return bool(self.meta.get("ended"))

    def acting(self) -> Iterator[dict[str, Any]]:
        """The steps that may have changed the screen."""
        return (s for s in self.steps if s.get("acts"))

    def transitions(self) -> Iterator[tuple[dict[str, Any], str | None]]:
        """Each acting step with the last dump read after it acted and before the next
        acting step acted (None when the screen was not read in between). An acting
        verb's own dumps come before it acts (a field read before typing), except
        ``scroll_until``'s, which look after each scroll."""
        acting = [i for i, s in enumerate(self.steps) if s.get("acts")]
        for k, i in enumerate(acting):
            step = self.steps[i]
            seen: list[str] = list(step.get("dumps") or []) \
                if step.get("verb") == "scroll_until" else []
            end = acting[k + 1] if k + 1 < len(acting) else len(self.steps)
            for s in self.steps[i + 1:end]:
                seen += s.get("dumps") or []
            if end < len(self.steps) and self.steps[end].get("verb") != "scroll_until":
                seen += self.steps[end].get("dumps") or []
            if end == len(self.steps) and self.meta.get("end_dump"):
                seen.append(self.meta["end_dump"])
            yield step, (seen[-1] if seen else None)


def call_text(step: dict[str, Any], limit: int = 80) -> str:
    """A step's call as one line: ``tap(4) "Network & internet"``, ``type(9, "wifi")``."""
    args = step.get("args") or {}
    parts = []
    for k, v in args.items():
        if k == "hidden":
            continue
        text = json.dumps(v, ensure_ascii=False) if not isinstance(v, (int, float)) else str(v)
        if len(text) > limit:
            text = text[:limit - 1] + "…"
        parts.append(text if k in ("target", "package", "key", "uri", "text") else f"{k}={text}")
    line = f"{step.get('verb', '?')}({', '.join(parts)})"
    target = step.get("target") or {}
    label = target.get("label") or target.get("desc") or target.get("text")
    if target:
        line += f" → {target.get('role') or 'element'}" + \
            (f" {json.dumps(label, ensure_ascii=False)}" if label else "")
    tool = step.get("tool")
    if tool:
        line = f"[{tool.get('name')}] {line}"
    return line


def open_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a trace: its zip, its recording directory, or — when the zip is missing — the
    ``.recording`` directory a crashed run left beside it."""
    p = Path(path)
    if not p.exists():
        alt = p.with_name(p.name + RECORDING)
        if alt.is_dir():
            p = alt
        else:
            raise InvalidArgument(f"no trace at {str(p)!r}",
                                  hint="give the .zip that page.tracing.stop() wrote")
    if p.is_dir():
        return _from_dir(p)
    try:
        z = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InvalidArgument(f"{str(p)!r} is not a trace (not a readable zip: {exc})",
                              hint="give the .zip that page.tracing.stop() wrote") from None
    with z:
        names = z.namelist()
        meta = _load(z.read("trace.json") if "trace.json" in names else b"", p)
        steps = [_load(z.read(n), p) for n in sorted(names)
                 if n.startswith("steps/") and n.endswith(".json")]
        blobs = {n: z.read(n) for n in names if n.startswith(("dumps/", "shots/"))}
    return Trace(p, meta, steps, blobs, blobs.__getitem__)


def _from_dir(p: Path) -> Trace:
    meta_file = p / "trace.json"
    meta = _load(meta_file.read_bytes() if meta_file.exists() else b"", p)
    steps = [_load(f.read_bytes(), p) for f in sorted((p / "steps").glob("*.json"))]
    return Trace(p, meta, steps, {}, lambda name: (p / name).read_bytes())


def _load(data: bytes, where: Path) -> dict[str, Any]:
    if not data:
        raise InvalidArgument(f"{str(where)!r} is not a trace (no trace.json)")
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise InvalidArgument(f"{str(where)!r} holds a damaged file: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidArgument(f"{str(where)!r} holds a damaged file (not an object)")
    return value
