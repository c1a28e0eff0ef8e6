"""The trace file: how a recording is laid out, written step by step, packed, and read back.

A trace is **one zip file** (``session.zip``)::

    trace.json              what was recorded: format, baremobile version, device, door,
                            options, start and end, the outcome (a failed test's error)
    steps/000001.json …     one file per step: the call, its arguments (secrets hidden), the
                            element it acted on, what it sent to the screen, timings, the
                            result or the error, the text the caller was shown, the dumps
                            and screenshot it saw
    dumps/<sha>.xml         each distinct raw dump once, as the device wrote the XML
                            (content-addressed: a screen seen ten times is stored once;
                            uiautomator's status line before it, which names a per-call
                            file, is left out)
    shots/<sha>.png         screenshots, likewise
    logcat.json             the device log of the session (``{"skew", "lines"}``)

While recording, the same layout is written **as a directory** beside the target
(``session.zip.recording/``): each file is written to a temporary name and renamed, a step
as soon as it ends, so a crash leaves a readable trace. ``stop()`` packs the directory into
the zip (written beside it, then renamed) and removes it. The directory is created anew
(never over another one: :class:`RecordingExists`) and locked while it is written.

**Reading is reading data.** Every reader here accepts either form, and a target whose zip
is missing but whose ``.recording`` directory exists is read from that directory (what a
crashed run left). Whatever the file holds: each record passes :mod:`.fields` (types
checked, sizes bounded); only files named as a recording names them are read, from inside
the trace (a directory's files must be regular files there, never links, FIFOs or devices);
each member is bounded (:data:`MAX_JSON`, :data:`MAX_BLOB`) and so is everything one trace
reads (:data:`MAX_TOTAL`); dumps and screenshots are read when asked for, not up front.
What cannot be read is an :class:`~baremobile.errors.InvalidArgument` naming the trace.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import shutil
import stat
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from baremobile.errors import InvalidArgument, LocalIOError
from baremobile.localfiles import atomic_writer, os_error
from baremobile.safetext import UntrustedJSON, loads
from baremobile.trace import fields

__all__ = ["FORMAT", "MAX_BLOB", "MAX_JSON", "MAX_TOTAL", "RECORDING", "RecordingExists",
           "Trace", "TraceWriter", "call_text", "json_numbers", "open_trace", "xml_of"]

#: The layout's version (``trace.json``'s ``format``): 2 added ``sent``, ``sent_before``,
#: ``on`` and ``logcat.json``; version 1 traces read as before.
FORMAT = 2
#: What a recording directory's name ends with.
RECORDING = ".recording"
#: The largest ``trace.json``, step or ``logcat.json`` read.
MAX_JSON = 8 * 2**20
#: The largest dump or screenshot read.
MAX_BLOB = 64 * 2**20
#: The most one trace reads in all (its steps, dumps, screenshots, log).
MAX_TOTAL = 2 * 2**30
#: The most steps (and zip members) a trace may have.
MAX_STEPS = 100_000
_STEP_FILE = re.compile(r"steps/\d{1,9}\.json")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: zip members that cannot be read: damaged, encrypted, an unknown compression
_ZIP_TROUBLE = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
                RuntimeError, ValueError)


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
    """``obj`` as strict JSON (what :func:`open_trace` reads back): a number JSON has no
    spelling for (``inf``, ``nan`` — a ``timeout=float("inf")``) is written as its name,
    ``"Infinity"``, ``"-Infinity"`` or ``"NaN"``."""
    return json.dumps(json_numbers(obj), ensure_ascii=False, indent=1, sort_keys=False,
                      allow_nan=False).encode("utf-8")


def json_numbers(obj: Any) -> Any:
    """``obj`` with every non-finite float replaced by its JSON-less name (a string)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "NaN" if obj != obj else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {k: json_numbers(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_numbers(v) for v in obj]
    return obj


class RecordingExists(InvalidArgument):
    """A recording directory is already where a new recording would go: another tracing is
    writing it (in this process or another), or a run that never stopped left it. Nothing
    is removed: a trace never replaces another."""


#: recording directories this process is writing
_LIVE: set[str] = set()
_LIVE_LOCK = threading.Lock()


def _locked_by_someone(folder: Path) -> bool:
    """Whether another process holds the lock of a recording directory."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return False
    try:
        fd = os.open(folder / ".lock", os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


class TraceWriter:
    """Writes one recording into its directory (see the module's docs); thread-safe callers
    hold their own lock."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.folder = target.with_name(target.name + RECORDING)
        key = str(self.folder)
        with _LIVE_LOCK:
            if key in _LIVE:
                raise RecordingExists(
                    f"{str(target)!r} is being recorded by another tracing of this process",
                    hint="record into another file")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                self.folder.mkdir()  # never over another recording
            except FileExistsError:
                live = _locked_by_someone(self.folder)
                raise RecordingExists(
                    f"{str(self.folder)!r} already exists: "
                    + ("another process is recording into it" if live else
                       "a recording that was never stopped left it (a crash?)"),
                    hint=("record into another file" if live else
                          f"read it (baremobile trace summary {target}), then remove it, "
                          "or record into another file")) from None
            except OSError as exc:
                raise os_error(exc, f"trace folder {str(self.folder)!r}") from None
            _LIVE.add(key)
        self._lock_fd: int | None = None
        try:
            for sub in ("steps", "dumps", "shots"):
                (self.folder / sub).mkdir()
            self._lock_fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
            with contextlib.suppress(ImportError, OSError):
                import fcntl

                fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self._release()
            raise os_error(exc, f"trace folder {str(self.folder)!r}") from None
        self.bytes = 0  #: what the blobs and steps take so far

    def _release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None
        with _LIVE_LOCK:
            _LIVE.discard(str(self.folder))

    def _write(self, rel: str, data: bytes) -> None:
        try:
            _write_atomic(self.folder / rel, data)
        except FileNotFoundError:
            raise LocalIOError(f"the recording directory {str(self.folder)!r} is gone "
                               "(removed while recording)",
                               hint="record again; keep the .recording directory until "
                                    "the recording stops") from None

    def meta(self, meta: dict[str, Any]) -> None:
        self._write("trace.json", _json(meta))

    def blob(self, kind: str, data: bytes) -> str:
        """Store ``data`` once (``kind``: ``dumps`` or ``shots``); returns its name in the
        trace (``dumps/<sha>.xml``)."""
        name = f"{kind}/{_digest(data)}.{'xml' if kind == 'dumps' else 'png'}"
        if not (self.folder / name).exists():
            self._write(name, data)
            self.bytes += len(data)
        return name

    def step(self, record: dict[str, Any]) -> None:
        data = _json(record)
        self._write(f"steps/{record['n']:06d}.json", data)
        self.bytes += len(data)

    def logcat(self, log: dict[str, Any]) -> None:
        self._write("logcat.json", _json(log))

    def rewrite(self, records: Any, dumps: Any) -> None:
        """Pass every step through ``records`` (a record in, a record out) and every dump
        through ``dumps`` (bytes in, bytes out), and write back what they changed (secrets
        found after they were first written)."""
        for sub, change in (("steps", records), ("dumps", dumps)):
            for path in sorted((self.folder / sub).iterdir()):
                if path.name.startswith("."):
                    continue
                old = path.read_bytes()
                new = _json(change(json.loads(old))) if sub == "steps" else change(old)
                if new != old:
                    _write_atomic(path, new)

    def pack(self) -> Path:
        """The directory as the zip ``target`` (atomically), the directory removed. A
        directory removed meanwhile is a :class:`~baremobile.errors.LocalIOError`."""
        try:
            if not self.folder.is_dir():
                raise FileNotFoundError(self.folder)
            self.target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_writer(self.target, overwrite=True, what=f"trace {str(self.target)!r}",
                               mode=0o600) as f, \
                    zipfile.ZipFile(f, "w") as z:
                for path in sorted(self.folder.rglob("*")):
                    if path.is_file() and not path.name.startswith("."):
                        rel = path.relative_to(self.folder).as_posix()
                        method = zipfile.ZIP_STORED if rel.endswith(".png") else \
                            zipfile.ZIP_DEFLATED
                        z.write(path, rel, compress_type=method)
        except FileNotFoundError:
            self._release()
            raise LocalIOError(f"the recording directory {str(self.folder)!r} is gone "
                               "(removed while recording): no trace written",
                               hint="record again") from None
        except OSError as exc:
            self._release()
            raise os_error(exc, f"trace {str(self.target)!r}") from None
        self._release()
        shutil.rmtree(self.folder, ignore_errors=True)
        return self.target

    def abandon(self) -> None:
        """Stop writing without packing (the directory stays, as a crash leaves it)."""
        self._release()


class Trace:
    """A trace read back: :attr:`meta` (``trace.json``) and :attr:`steps` (in order), both
    checked (:mod:`.fields`); the stored dumps and screenshots by name (:meth:`blob`), read
    when asked for. A context manager (closes the zip)."""

    def __init__(self, path: Path, meta: dict[str, Any], steps: list[dict[str, Any]],
                 reader: _Reader) -> None:
        self.path = path
        self.meta = meta
        self.steps = steps
        self._reader = reader
        self._dumps: dict[str, bytes | None] = {}
        self._dump_bytes = 0

    def blob(self, name: str | None) -> bytes | None:
        """The stored file ``name`` (``dumps/…``, ``shots/…``), None when absent or
        unreadable; a name a recording does not write is never read."""
        if fields.blob(name) is None:
            return None
        assert name is not None
        if name in self._dumps:
            return self._dumps[name]
        data = self._reader.read(name, MAX_BLOB, missing_ok=True)
        if name.startswith("dumps/") and self._dump_bytes < 256 * 2**20:
            self._dumps[name] = data  # dumps are read again and again; screenshots once
            self._dump_bytes += len(data or b"")
        return data

    def dump(self, name: str | None) -> bytes | None:
        """The XML of stored dump ``name``."""
        if not (isinstance(name, str) and name.startswith("dumps/")):
            return None
        data = self.blob(name)
        return xml_of(data) if data is not None else None

    def logcat(self) -> dict[str, Any]:
        """The device log recorded with the trace: ``{"skew": s, "lines": [[t, line], …]}``
        (``t``: when the device logged it, on this computer's clock; empty when none)."""
        try:
            data = self._reader.read("logcat.json", MAX_JSON, missing_ok=True)
            value = loads(data) if data else {}
        except (UntrustedJSON, InvalidArgument):
            value = {}
        lines = []
        for item in value.get("lines", [])[:100_000] if isinstance(value, dict) and \
                isinstance(value.get("lines"), list) else []:
            if isinstance(item, list) and len(item) == 2:
                t = fields.number(item[0])
                lines.append([t, fields.text(item[1], 4_000)])
        return {"skew": fields.number(value.get("skew") if isinstance(value, dict) else None),
                "lines": lines}

    @property
    def complete(self) -> bool:
        """Whether the recording was stopped (not what a crash left)."""
        return bool(self.meta.get("ended"))

    def acting(self) -> Iterator[dict[str, Any]]:
        """The steps that may have changed the screen."""
        return (s for s in self.steps if s.get("acts"))

    def close(self) -> None:
        """Release the zip (reading a blob afterwards answers None)."""
        self._reader.close()

    def __enter__(self) -> Trace:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def call_text(step: dict[str, Any], limit: int = 80) -> str:
    """A step's call as one line: ``tap(4) "Network & internet"``, ``type(9, "wifi")``."""
    args: dict[str, Any] = step["args"] if isinstance(step.get("args"), dict) else {}
    parts = []
    for k, v in args.items():
        if k == "hidden":
            continue
        text = json.dumps(v, ensure_ascii=False) if not isinstance(v, (int, float)) or \
            isinstance(v, bool) else str(v)
        if len(text) > limit:
            text = text[:limit - 1] + "…"
        parts.append(text if k in ("target", "package", "key", "uri", "text") else f"{k}={text}")
    line = f"{step.get('verb', '?')}({', '.join(parts)})"
    target: dict[str, Any] = step["target"] if isinstance(step.get("target"), dict) else {}
    label = target.get("label") or target.get("desc") or target.get("text")
    if target:
        line += f" → {target.get('role') or 'element'}" + \
            (f" {json.dumps(label, ensure_ascii=False)}" if label else "")
    tool = step.get("tool")
    if isinstance(tool, dict) and tool:
        line = f"[{tool.get('name')}] {line}"
    return line


class _Reader:
    """Bounded reads of a trace's files, from its zip or its directory."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.total = 0
        self._zip: zipfile.ZipFile | None = None
        self._members: dict[str, zipfile.ZipInfo] = {}

    def _spend(self, n: int) -> None:
        self.total += n
        if self.total > MAX_TOTAL:
            raise InvalidArgument(f"{str(self.where)!r} holds more than a trace may "
                                  f"({MAX_TOTAL // 2**20} MiB read)")

    def _within(self, name: str, size: int, limit: int) -> None:
        """Refuse a file whose stated size (a zip member's header, a file's ``stat``) is
        over ``limit``, before reading it."""
        if size > limit:
            raise InvalidArgument(f"{name} in {str(self.where)!r} is {size} bytes, "
                                  f"more than a trace's file may be ({limit})")

    def _took(self, name: str, data: bytes, limit: int) -> bytes:
        """``data``, read as at most ``limit + 1`` bytes, within ``limit`` (the stated size
        may understate it) and counted against the whole trace's bound."""
        if len(data) > limit:
            raise InvalidArgument(f"{name} in {str(self.where)!r} is larger than a trace's "
                                  f"file may be ({limit})")
        self._spend(len(data))
        return data

    def names(self) -> list[str]:
        raise NotImplementedError

    def read(self, name: str, limit: int, *, missing_ok: bool = False) -> bytes | None:
        raise NotImplementedError

    def close(self) -> None:
        pass


class _ZipReader(_Reader):
    def __init__(self, where: Path) -> None:
        super().__init__(where)
        try:
            z = zipfile.ZipFile(where)
        except _ZIP_TROUBLE as exc:
            raise InvalidArgument(f"{str(where)!r} is not a trace (not a readable zip: "
                                  f"{type(exc).__name__})",
                                  hint="give the .zip that page.tracing.stop() wrote") from None
        infos = z.infolist()
        if len(infos) > 3 * MAX_STEPS:
            z.close()
            raise InvalidArgument(f"{str(where)!r} has {len(infos)} members, more than a "
                                  "trace may")
        self._zip = z
        self._members = {i.filename: i for i in infos}

    def names(self) -> list[str]:
        return list(self._members)

    def read(self, name: str, limit: int, *, missing_ok: bool = False) -> bytes | None:
        info = self._members.get(name)
        if info is None or self._zip is None:
            if missing_ok:
                return None
            raise InvalidArgument(f"{str(self.where)!r} has no {name}")
        self._within(name, info.file_size, limit)
        try:
            with self._zip.open(info) as f:
                data = f.read(limit + 1)
        except _ZIP_TROUBLE as exc:
            if missing_ok:
                return None
            raise InvalidArgument(f"{name} in {str(self.where)!r} cannot be read "
                                  f"({type(exc).__name__})") from None
        return self._took(name, data, limit)

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
            self._zip = None


class _DirReader(_Reader):
    """A recording directory: only regular files inside it, never through a link."""

    def names(self) -> list[str]:
        out: list[str] = []
        steps = self.where / "steps"
        try:
            if not stat.S_ISDIR(os.lstat(steps).st_mode):
                return []
            with os.scandir(steps) as it:
                for entry in it:
                    if len(out) > MAX_STEPS:
                        raise InvalidArgument(f"{str(self.where)!r} has more steps than a "
                                              "trace may")
                    out.append(f"steps/{entry.name}")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise os_error(exc, f"trace folder {str(self.where)!r}") from None
        return out

    def read(self, name: str, limit: int, *, missing_ok: bool = False) -> bytes | None:
        parent, _, leaf = name.rpartition("/")
        if parent:
            try:
                if not stat.S_ISDIR(os.lstat(self.where / parent).st_mode):
                    return None  # a link where a folder should be: not followed
            except OSError:
                return None
        path = self.where / name
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        except FileNotFoundError:
            if missing_ok:
                return None
            raise InvalidArgument(f"{str(self.where)!r} has no {name}") from None
        except OSError as exc:  # a link (ELOOP), no permission
            if missing_ok:
                return None
            raise os_error(exc, f"{name} in {str(self.where)!r}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                if missing_ok:
                    return None
                raise InvalidArgument(f"{name} in {str(self.where)!r} is not a regular file")
            self._within(name, st.st_size, limit)
            chunks, got = [], 0
            while got <= limit:
                chunk = os.read(fd, min(1 << 20, limit + 1 - got))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
        finally:
            os.close(fd)
        return self._took(name, b"".join(chunks), limit)


def open_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a trace: its zip, its recording directory, or — when the zip is missing — the
    ``.recording`` directory a crashed run left beside it (see the module's docs)."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        alt = p.with_name(p.name + RECORDING)
        if not alt.is_dir():
            raise InvalidArgument(f"no trace at {str(p)!r}",
                                  hint="give the .zip that page.tracing.stop() wrote") from None
        p, st = alt, os.stat(alt)
    except OSError as exc:
        raise os_error(exc, f"trace {str(p)!r}") from None
    if stat.S_ISDIR(st.st_mode):
        reader: _Reader = _DirReader(p)
    elif stat.S_ISREG(st.st_mode):
        reader = _ZipReader(p)
    else:
        raise InvalidArgument(f"{str(p)!r} is not a trace (not a file or a directory)",
                              hint="give the .zip that page.tracing.stop() wrote")
    try:
        meta = fields.meta(_load(reader.read("trace.json", MAX_JSON, missing_ok=True), p,
                                 "trace.json"))
        names = sorted((n for n in reader.names() if _STEP_FILE.fullmatch(n)),
                       key=lambda n: (int(n[6:-5]), n))
        if len(names) > MAX_STEPS:
            raise InvalidArgument(f"{str(p)!r} has {len(names)} steps, more than a trace may "
                                  f"({MAX_STEPS})")
        steps = [fields.step(_load(reader.read(n, MAX_JSON), p, n), i)
                 for i, n in enumerate(names, 1)]
    except BaseException:
        reader.close()
        raise
    return Trace(p, meta, steps, reader)


def _load(data: bytes | None, where: Path, name: str) -> Any:
    if not data:
        raise InvalidArgument(f"{str(where)!r} is not a trace (no {name})",
                              hint="give the .zip that page.tracing.stop() wrote")
    try:
        value = loads(data)
    except UntrustedJSON as exc:
        raise InvalidArgument(f"{str(where)!r} holds a damaged file ({name}: {exc})") from None
    if not isinstance(value, dict):
        raise InvalidArgument(f"{str(where)!r} holds a damaged file ({name} is not an object)")
    return value
