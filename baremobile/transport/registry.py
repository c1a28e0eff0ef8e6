"""Virtual phones this user runs with ``baremobile virtual``, where discovery finds them.

``baremobile virtual`` listens on a random free port (the emulator ports 5555–5585 are
left to emulators and to a real adb server, which adopts anything there). So that
``baremobile devices`` — and every call that names no device — finds it anyway, the
command announces its address in a small JSON file while it runs::

    $ANDROID_USER_HOME/baremobile-virtual/<port>.json   (else ~/.android/baremobile-virtual/)
    {"host": "127.0.0.1", "port": 40555, "pid": 12345, "model": "Pixel 8", ...}

(the folder beside ``adbkey``, so ``ANDROID_USER_HOME`` moves both). The file is removed
when the phone stops; a file whose process is gone is stale and removed by the next
reader. :func:`announced` lists the live ones; discovery turns them into ``virtual``
devices reached directly over TCP.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from baremobile.transport.keys import default_key_path

__all__ = ["announce", "announced", "registry_dir"]


def registry_dir() -> Path:
    """The folder holding one file per running ``baremobile virtual``."""
    return default_key_path().parent / "baremobile-virtual"


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name == "nt":  # pragma: no cover - no os.kill(pid, 0) probe on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


@contextlib.contextmanager
def announce(host: str, port: int, **info: Any) -> Iterator[Path]:
    """Announce a virtual phone at ``host:port`` for as long as the block runs (``info``:
    ``model``, ``scenario``, ``api_level`` … shown by ``baremobile devices``)."""
    folder = registry_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / f"{port}.json"
    record = {"host": host, "port": int(port), "pid": os.getpid(), **info}
    tmp = folder / f".{port}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(record), encoding="utf-8")
    os.replace(tmp, path)
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()


def announced() -> list[dict[str, Any]]:
    """The running virtual phones' records (stale files are removed), by port."""
    folder = registry_dir()
    try:
        files = sorted(folder.glob("*.json"))
    except OSError:
        return []
    found = []
    for f in files:
        try:
            record = json.loads(f.read_text(encoding="utf-8"))
            host, port, pid = str(record["host"]), int(record["port"]), int(record["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being written, or not ours: leave it
        if not _alive(pid):
            with contextlib.suppress(OSError):
                f.unlink()
            continue
        found.append({**record, "host": host, "port": port, "pid": pid})
    return found
