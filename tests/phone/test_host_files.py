"""Files of this computer: a failure never costs the old file, odd files are refused
without being opened, big device files stream, and only what is asked is read.

Driven through the tools and the Page over TCP into the virtual phone.
"""

from __future__ import annotations

import errno
import os
import threading
import tracemalloc

import pytest

from baremobile import connect, tools
from baremobile.errors import InvalidArgument, LocalIOError
from baremobile.localfiles import atomic_writer
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

MiB = 1 << 20


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def files(page, tool, args, root):
    return tools.call(page, tool, args, groups="files", files_dir=root)


def leftovers(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(".part"))


@pytest.fixture
def full_disk(monkeypatch):
    """Writes to new files fail with ENOSPC after ``limit`` bytes, as on a full disk."""
    import baremobile.localfiles as lf

    real_fdopen = os.fdopen

    class Full:
        def __init__(self, f, limit):
            self.f, self.left = f, limit

        def write(self, data):
            if len(data) > self.left:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.left -= len(data)
            return self.f.write(data)

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    def arm(limit: int = 1000) -> None:
        monkeypatch.setattr(lf.os, "fdopen", lambda fd, *a, **k: Full(real_fdopen(fd, *a, **k),
                                                                      limit))

    return arm


# -- 12. written beside, renamed into place ------------------------------------------------


def test_a_pull_cut_off_midway_keeps_the_old_file(page, phone, tmp_path):
    page.push(os.urandom(MiB), "/sdcard/big.bin")
    (tmp_path / "big.bin").write_bytes(b"the old content")
    phone.faults.add("drop", service="sync:", after_bytes=200_000)
    r = files(page, "pull_file", {"path": "/sdcard/big.bin", "local_path": "big.bin",
                                  "overwrite": True}, tmp_path)
    assert r["error"]["category"] == "DEVICE_DISCONNECTED", r
    assert (tmp_path / "big.bin").read_bytes() == b"the old content"
    assert leftovers(tmp_path) == []
    r = files(page, "pull_file", {"path": "/sdcard/big.bin", "local_path": "big.bin",
                                  "overwrite": True}, tmp_path)
    assert r["ok"], r
    assert (tmp_path / "big.bin").read_bytes() == phone.fs.read("/sdcard/big.bin")


def test_a_full_disk_is_a_local_io_error_and_keeps_the_old_file(page, tmp_path, full_disk):
    page.push(b"x" * 50_000, "/sdcard/data.txt")
    (tmp_path / "data.txt").write_bytes(b"the old content")
    full_disk(1000)
    r = files(page, "pull_file", {"path": "/sdcard/data.txt", "local_path": "data.txt",
                                  "overwrite": True}, tmp_path)
    assert r["error"]["code"] == "LOCAL_IO_ERROR", r
    assert r["error"]["category"] == "LOCAL_IO_ERROR"
    assert "disk is full" in r["error"]["message"]
    assert (tmp_path / "data.txt").read_bytes() == b"the old content"
    assert leftovers(tmp_path) == []
    page.tap_xy(1, 1)  # the device was never at fault: the page works on


_PULL_IN_CHILD = """
import json, sys
from baremobile import connect, tools
address, root = sys.argv[1:3]
with connect(address) as page:
    print(json.dumps(tools.call(page, "pull_file", {"path": "/sdcard/big.bin",
          "local_path": "old.txt", "overwrite": True}, groups="files", files_dir=root)))
"""


def test_a_really_full_disk_keeps_the_old_file(page, tmp_path):
    """On a 256 KiB tmpfs in a private mount namespace (``unshare -rm``), a 1 MiB pull."""
    import json
    import shutil
    import subprocess
    import sys

    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) here to mount a small tmpfs")
    page.push(os.urandom(MiB), "/sdcard/big.bin")
    root = tmp_path / "small"
    root.mkdir()
    script = (f"mount -t tmpfs -o size=256k tmpfs {root} && printf 'the old content' > "
              f"{root}/old.txt && {sys.executable} -c \"$0\" {page.serial} {root} && "
              f"echo --- && cat {root}/old.txt && echo && ls -a {root}")
    r = subprocess.run(["unshare", "-rm", "sh", "-c", script, _PULL_IN_CHILD],
                       capture_output=True, text=True, timeout=60)
    if "---" not in r.stdout and ("unshare" in r.stderr or "mount" in r.stderr):
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    result, after = r.stdout.split("---\n")
    err = json.loads(result)["error"]
    assert err["code"] == "LOCAL_IO_ERROR" and "disk is full" in err["message"], err
    content, listing = after.split("\n", 1)
    assert content == "the old content"
    assert listing.split() == [".", "..", "old.txt"]  # no temporary file left


def test_a_screenshot_save_that_fails_keeps_the_old_file(page, tmp_path, full_disk):
    target = tmp_path / "screen.png"
    target.write_bytes(b"the old screenshot")
    shot = page.screenshot()
    full_disk(100)
    with pytest.raises(LocalIOError, match="disk is full"):
        shot.save(target)
    assert target.read_bytes() == b"the old screenshot"
    assert leftovers(tmp_path) == []


def test_screenshot_save_replaces_atomically_and_keeps_a_private_mode(page, tmp_path):
    target = tmp_path / "screen.png"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    shot = page.screenshot()
    assert shot.save(target) == target
    assert target.read_bytes() == shot.png and (target.stat().st_mode & 0o777) == 0o600
    with pytest.raises(InvalidArgument, match="already exists"):
        shot.save(target, overwrite=False)
    with pytest.raises(InvalidArgument, match="does not exist"):
        shot.save(tmp_path / "missing-folder" / "x.png")


def test_an_exception_inside_the_writer_leaves_nothing_behind(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_writer(target, overwrite=True) as f:
        f.write(b"new, half")
        raise RuntimeError("the source failed")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f"]


def test_any_name_the_file_system_takes_is_written(page, tmp_path):
    """The temporary file beside the target is named after it: a long name of multi-byte
    characters (within the file system's 255 bytes) made that name too long, and a valid
    target was refused as "has a name that is too long"."""
    shot = page.screenshot()
    for name in ("é" * 125 + ".png", "画" * 83 + ".p", "x" * 251 + ".png"):
        assert len(name.encode()) <= 255
        target = tmp_path / name
        assert shot.save(target) == target and target.read_bytes() == shot.png
        root = tmp_path / "files"
        root.mkdir(exist_ok=True)
        page.push(b"pulled", "/sdcard/x.txt")
        r = files(page, "pull_file", {"path": "/sdcard/x.txt", "local_path": name}, root)
        assert r["ok"], r
        assert (root / name).read_bytes() == b"pulled"
    assert leftovers(tmp_path) == [] and leftovers(tmp_path / "files") == []


# -- 13. hard links and FIFOs in the files directory -------------------------------------------


def test_pull_onto_a_hard_link_never_writes_the_file_outside(page, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not yours")
    root = tmp_path / "files"
    root.mkdir()
    os.link(outside, root / "linked.txt")
    page.push(b"overwritten!", "/sdcard/x.txt")
    r = files(page, "pull_file", {"path": "/sdcard/x.txt", "local_path": "linked.txt",
                                  "overwrite": True}, root)
    assert r["error"]["code"] == "INVALID_ARGUMENT" and "hard links" in r["error"]["message"]
    assert outside.read_bytes() == b"not yours"
    # nor can it carry the linked file to the device
    r = files(page, "push_file", {"local_path": "linked.txt", "path": "/sdcard/y.txt"}, root)
    assert r["error"]["code"] == "INVALID_ARGUMENT" and "hard links" in r["error"]["message"]
    assert phone_has(page, "/sdcard/y.txt") is False


def phone_has(page, path: str) -> bool:
    return page.transport.shell(f"test -e {path}").exit_code == 0


def test_a_fifo_in_the_files_directory_never_blocks(page, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    page.push(b"data", "/sdcard/x.txt")
    results: dict[str, dict] = {}

    def run() -> None:
        results["push"] = files(page, "push_file", {"local_path": "pipe",
                                                    "path": "/sdcard/y.txt"}, tmp_path)
        results["pull"] = files(page, "pull_file", {"path": "/sdcard/x.txt",
                                                    "local_path": "pipe", "overwrite": True},
                                tmp_path)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(20)
    if t.is_alive():  # unblock the thread before failing
        with open(tmp_path / "pipe", "wb"):
            pass
        pytest.fail("a FIFO blocked push_file or pull_file")
    for verb in ("push", "pull"):
        assert results[verb]["error"]["code"] == "INVALID_ARGUMENT", results[verb]
        assert "not a regular file" in results[verb]["error"]["message"]
    assert os.path.exists(tmp_path / "pipe")  # left alone


# -- 8. read only what is asked; pull streams to disk --------------------------------------


def _count_reads(page) -> list[int]:
    """Bytes read off the socket, per read (the transport's socket layer)."""
    counts: list[int] = []
    sock = page.transport._transport
    real = sock.bulk_read

    def counted(n, timeout):
        data = real(n, timeout)
        counts.append(len(data))
        return data

    sock.bulk_read = counted
    return counts


@pytest.mark.parametrize("api_level", [35, 23])
def test_read_file_reads_only_the_bytes_asked_for(adb_key, api_level):
    with VirtualPhone(port=free_port(), api_level=api_level) as phone, \
            connect(phone.address, keys=[adb_key]) as page:
        blob = bytes(range(256)) * (32 * 1024)  # 8 MiB
        phone.fs.write("/sdcard/big.bin", blob)
        page.device.props()
        counts = _count_reads(page)
        since = phone.events.last_seq
        r = tools.call(page, "read_file", {"path": "/sdcard/big.bin", "max_bytes": 100,
                                           "offset": 1000}, groups="files")
        assert r["ok"], r
        import base64

        assert base64.b64decode(r["base64"]) == blob[1000:1100]
        assert r["truncated"] and r["next_offset"] == 1100 and r["size"] == len(blob)
        if api_level >= 28:  # toybox head -c: only those bytes cross the wire
            assert sum(counts) < 8 * 1024, sum(counts)
            assert phone.events.list("pull", since=since) == []
        # either way the host never held the file: the page works on
        page.tap_xy(1, 1)


@pytest.fixture
def phone_process():
    """A virtual phone in its own process (``baremobile virtual``), so that this process's
    memory is the host's alone."""
    import subprocess
    import sys

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "baremobile", "virtual", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "listening on" in line:
                break
        else:
            pytest.fail("baremobile virtual did not start")
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


def test_pull_file_streams_to_disk(phone_process, adb_key, tmp_path):
    with connect(phone_process, keys=[adb_key]) as page:
        blob = os.urandom(32 * MiB)
        page.push(blob, "/sdcard/big.bin")
        page.device.props()
        tracemalloc.start()
        try:
            r = files(page, "pull_file", {"path": "/sdcard/big.bin", "local_path": "big.bin"},
                      tmp_path)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert r["ok"], r
    assert (tmp_path / "big.bin").read_bytes() == blob
    # adb-shell's own buffers are ~2 MiB whatever the size; the file is never held
    assert peak < 8 * MiB, f"peak {peak / MiB:.1f} MiB while pulling 32 MiB"
