"""Where the real device outputs are (``shared/real-outputs``: captured by other people on
real phones, tablets, head units and emulators), and reading them.

They stay in ``shared/``: tests read them from there (``$BAREMOBILE_REAL_OUTPUTS``, else the
first ``shared/real-outputs`` beside the repository or one of its parent folders) and skip,
saying so, where the folder is absent. Nothing of them is copied into the repository.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def real_outputs_dir() -> Path:
    env = os.environ.get("BAREMOBILE_REAL_OUTPUTS")
    if env:
        return Path(env)
    for parent in REPO.parents:
        candidate = parent / "shared" / "real-outputs"
        if (candidate / "MANIFEST.tsv").is_file():
            return candidate
    return REPO.parent / "shared" / "real-outputs"


def manifest() -> dict[str, dict[str, str]]:
    """file → its MANIFEST row (empty when the folder is absent)."""
    path = real_outputs_dir() / "MANIFEST.tsv"
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as fh:
        return {row["file"]: row for row in csv.DictReader(fh, delimiter="\t")}


def sample(name: str) -> bytes:
    """The bytes of one real output (``COMMAND-SLUG/NNN_source.txt``); skips the test when
    the shared folder is not there."""
    path = real_outputs_dir() / name
    if not path.is_file():
        pytest.skip(f"the real outputs are not here ({real_outputs_dir()}): they live in "
                    "shared/real-outputs beside the repository")
    return path.read_bytes()


def samples(command: str) -> list[str]:
    """The files of one command folder (``getprop``, ``ls-la`` …), by name."""
    folder = real_outputs_dir() / command
    return sorted(f"{command}/{p.name}" for p in folder.glob("*.txt")) if folder.is_dir() else []
