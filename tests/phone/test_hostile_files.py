"""Hardening, round three (issue 21): host-file confinement holds per path component, and a
race ends in a typed error.

Before the fix a path was resolved and checked, then used by name: swapping an already
resolved folder for a symlink between the two put 15 of 800 ``pull_file`` writes outside
the files directory, and 25 answered an untyped ``INTERNAL_ERROR``. Now the file is reached
from the files directory one folder at a time (``openat`` with ``O_NOFOLLOW``) and written
or read through those descriptors; a swapped folder fails the call, typed.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from baremobile import tools
from baremobile.errors import BaremobileError
from baremobile.page import connect
from baremobile.tools import hostfiles


@pytest.fixture
def places(tmp_path):
    """(files directory with sub/ and a/b/, a directory outside it holding a secret)."""
    root = tmp_path / "files"
    (root / "sub").mkdir(parents=True)
    (root / "a" / "b").mkdir(parents=True)
    (root / "sub" / "x.txt").write_bytes(b"inside")
    (root / "a" / "b" / "x.txt").write_bytes(b"inside")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_bytes(b"secret")
    return root, outside


def swap_after_resolve(monkeypatch, folder: Path, target: Path) -> None:
    """The race, made certain: the folder becomes a symlink to ``target`` right after the
    path was resolved and checked."""
    real = hostfiles.resolve

    def resolve_then_swap(root, given):
        checked = real(root, given)
        if not folder.is_symlink():
            shutil.rmtree(folder)
            folder.symlink_to(target, target_is_directory=True)
        return checked

    monkeypatch.setattr(hostfiles, "resolve", resolve_then_swap)


@pytest.mark.parametrize("folder", ["sub", "a"])
def test_a_folder_swapped_after_the_check_is_not_followed_on_write(places, monkeypatch,
                                                                   folder):
    root, outside = places
    name = "sub/new.txt" if folder == "sub" else "a/b/new.txt"
    if folder == "a":
        (outside / "b").mkdir()
    swap_after_resolve(monkeypatch, root / folder, outside)
    with pytest.raises(BaremobileError) as err:
        hostfiles.write_host_file(str(root), name, b"written", overwrite=False)
    assert err.value.code == "NOT_ALLOWED", err.value
    assert "changed while it was used" in err.value.message
    assert sorted(p.name for p in outside.rglob("*") if p.is_file()) == ["x.txt"]
    assert (outside / "x.txt").read_bytes() == b"secret"


def test_a_folder_swapped_after_the_check_is_not_followed_on_read(places, monkeypatch):
    root, outside = places
    swap_after_resolve(monkeypatch, root / "sub", outside)
    with pytest.raises(BaremobileError) as err:
        hostfiles.read_host_file(str(root), "sub/x.txt")
    assert err.value.code == "NOT_ALLOWED", err.value


def test_a_file_swapped_for_a_symlink_is_not_replaced_through(places, monkeypatch):
    root, outside = places
    real = hostfiles.resolve

    def resolve_then_link(r, given):
        checked = real(r, given)
        (root / "sub" / "x.txt").unlink()
        (root / "sub" / "x.txt").symlink_to(outside / "x.txt")
        return checked

    monkeypatch.setattr(hostfiles, "resolve", resolve_then_link)
    with pytest.raises(BaremobileError) as err:
        hostfiles.write_host_file(str(root), "sub/x.txt", b"written", overwrite=True)
    assert err.value.code == "NOT_ALLOWED"
    assert (outside / "x.txt").read_bytes() == b"secret"
    with pytest.raises(BaremobileError) as err:
        hostfiles.read_host_file(str(root), "sub/x.txt")
    assert err.value.code in ("NOT_ALLOWED", "INVALID_ARGUMENT")


@pytest.mark.fast
def test_in_folder_symlinks_that_stay_inside_still_work(places):
    root, _ = places
    (root / "alias").symlink_to(root / "sub", target_is_directory=True)
    shown = hostfiles.write_host_file(str(root), "alias/via.txt", b"ok", overwrite=False)
    assert shown == os.path.join("sub", "via.txt")
    assert (root / "sub" / "via.txt").read_bytes() == b"ok"
    assert hostfiles.read_host_file(str(root), "alias/via.txt") == (shown, b"ok")


def test_racing_pulls_never_land_outside_and_always_answer_typed(places, phone, adb_key):
    """The attack as it was run: pulls into sub/ while another thread keeps swapping sub/
    for a symlink out of the files directory. Every answer is a success or a typed error;
    nothing is ever written outside."""
    root, outside = places
    stop = threading.Event()

    def swapper() -> None:
        sub = root / "sub"
        while not stop.is_set():
            try:
                if sub.is_symlink():
                    sub.unlink()
                    sub.mkdir()
                else:
                    shutil.rmtree(sub, ignore_errors=True)
                    sub.symlink_to(outside, target_is_directory=True)
            except OSError:
                pass

    with connect(phone.address, keys=[adb_key]) as page:
        assert tools.call(page, "write_file", {"path": "/sdcard/n.txt", "text": "pulled"},
                          groups="all")["ok"]
        t = threading.Thread(target=swapper, daemon=True)
        t.start()
        codes: dict[str, int] = {}
        try:
            for i in range(150):
                r = tools.call(page, "pull_file", {"path": "/sdcard/n.txt",
                                                   "local_path": f"sub/f{i}.txt"},
                               groups="all", files_dir=root)
                code = "ok" if r["ok"] else r["error"]["code"]
                codes[code] = codes.get(code, 0) + 1
        finally:
            stop.set()
            t.join(10)
    assert "INTERNAL_ERROR" not in codes, codes
    assert set(codes) <= {"ok", "NOT_ALLOWED", "INVALID_ARGUMENT"}, codes
    assert sorted(p.name for p in outside.rglob("*")) == ["x.txt"], codes
    assert (outside / "x.txt").read_bytes() == b"secret"
