"""toybox's file programs: ``cat``, ``rm``, ``mkdir``, ``touch``, ``ls``, ``cp``, ``mv``,
``chmod``, ``stat``, ``basename``, ``dirname`` (with toybox's messages)."""

from __future__ import annotations

import math
import posixpath
import re
import stat as _stat
import time

from baremobile.virtual.commands.registry import command
from baremobile.virtual.commands.toybox import split_opts
from baremobile.virtual.shell.process import Gen, Proc, err, out, strerror

# -- files -----------------------------------------------------------------------------


@command("cat")
def cat(p: Proc) -> Gen:
    names = [a for a in p.argv[1:] if a == "-" or not a.startswith("-")]
    status = 0
    for name in names or ["-"]:
        if name == "-":
            while True:
                chunk = p.stdin.read_chunk()
                if not chunk:
                    break
                yield out(chunk)
                p.check_cancel()
            continue
        path = p.path(name)
        if path in ("/dev/null",):
            continue
        try:
            data = p.fs.read(path)
        except OSError as exc:
            yield err(f"cat: {name}: {strerror(exc)}\n")
            status = 1
            continue
        for i in range(0, len(data), 65536):
            yield out(data[i:i + 65536])
    return status


@command("rm")
def rm(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "frRdiv")
    force = bool(opts.get("f"))
    recursive = bool(opts.get("r") or opts.get("R"))
    if not names:
        if force:
            return 0
        yield err("rm: Needs 1 argument (see \"rm --help\")\n")
        return 1
    status = 0
    for name in names:
        try:
            p.fs.remove(p.path(name), recursive=recursive)
        except OSError as exc:
            if force and exc.errno == 2:
                continue
            yield err(f"rm: {name}: {strerror(exc)}\n")
            status = 1
    return status


@command("mkdir")
def mkdir(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "pv", "m")
    if not names:
        yield err("mkdir: Needs 1 argument (see \"mkdir --help\")\n")
        return 1
    status = 0
    for name in names:
        try:
            if opts.get("p"):
                p.fs.makedirs(p.path(name))
            else:
                p.fs.mkdir(p.path(name))
        except OSError as exc:
            yield err(f"mkdir: '{name}': {strerror(exc)}\n")
            status = 1
    return status


@command("touch")
def touch(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "acmh", "dtr")
    status = 0
    for name in names:
        path = p.path(name)
        try:
            entry = p.fs.stat(path)
            if entry is None:
                if opts.get("c"):
                    continue
                p.fs.write(path, b"")
            elif not entry.is_dir:
                p.fs.write(path, b"", append=True)
        except OSError as exc:
            yield err(f"touch: '{name}': {strerror(exc)}\n")
            status = 1
    return status


def _owner(path: str) -> tuple[str, str]:
    if path.startswith("/storage/"):
        return "root", "sdcard_rw"
    if path.startswith("/data/local/tmp"):
        return "shell", "shell"
    return "root", "root"


def _mode_string(mode: int) -> str:
    return _stat.filemode(mode)


@command("ls")
def ls(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "laAdR1htrSsFinL")
    status = 0
    files: list[tuple[str, str]] = []
    dirs: list[tuple[str, str]] = []
    for name in names or ["."]:
        path = p.path(name)
        entry = p.fs.stat(path)
        link = _link_target(p, name)
        if link is not None and opts.get("l") and not opts.get("L"):
            files.append((name, path))  # `ls -l /sdcard` shows the link, not the folder
        elif entry is None:
            yield err(f"ls: {name}: No such file or directory\n")
            status = 1
        elif entry.is_dir and not opts.get("d"):
            dirs.append((name, path))
        else:
            files.append((name, path))
    listing: list[str] = [_ls_line(p, name, path, opts, top=True) for name, path in files]
    if listing:
        yield out("\n".join(listing) + "\n")
    for k, (name, path) in enumerate(dirs):
        if len(names) > 1:
            yield out(("\n" if listing or k else "") + f"{name}:\n")
        try:
            children = p.fs.listdir(path)
        except OSError as exc:
            yield err(f"ls: {name}: {strerror(exc)}\n")
            status = 1
            continue
        rows = [(n, posixpath.join(path, n)) for n, _ in children
                if opts.get("a") or opts.get("A") or not n.startswith(".")]
        if opts.get("a"):
            rows = [(".", path), ("..", posixpath.dirname(path)), *rows]
        lines = [_ls_line(p, n, full, opts) for n, full in rows]
        if opts.get("l") and not p.model.profile.toolbox:
            blocks = sum(math.ceil(e.size / 4096) * 4 for _, full in rows
                         if (e := p.fs.stat(full)) is not None)
            lines.insert(0, f"total {blocks}")
        if lines:
            yield out("\n".join(lines) + "\n")
    return status


#: the links of Android's storage layout (Android 6+: ``/sdcard`` → ``/storage/self/primary``)
_LINKS = {"/sdcard": "/storage/self/primary", "/mnt/sdcard": "/storage/self/primary",
          "/storage/self/primary": "/storage/emulated/0"}


def _link_target(p: Proc, name: str, path: str | None = None) -> str | None:
    """Where ``name`` (at ``path``) points when it is one of the storage links (without a
    trailing slash: with one, the kernel resolves the link and ``ls`` lists the folder)."""
    if name.endswith("/"):
        return None
    raw = path or posixpath.normpath(posixpath.join(p.cwd, name))
    return _LINKS.get(raw)


def _ls_line(p: Proc, name: str, path: str, opts: dict[str, str | bool], *,
             top: bool = False) -> str:
    """One ``ls -l`` line: toybox's ``MODE LINKS OWNER GROUP SIZE DATE TIME NAME``, or
    toolbox's (``listfile_long``: no link count, a size for regular files only, names
    padded to 8) on a toolbox profile."""
    entry = p.fs.stat(path)
    link = _link_target(p, name, None if top else path) \
        if opts.get("l") and not opts.get("L") else None
    if entry is None and link is None:
        return name
    is_dir = entry is not None and entry.is_dir and link is None
    if opts.get("F"):
        name += "/" if is_dir else ("*" if entry and entry.mode & 0o111 else "")
    if not opts.get("l"):
        return name
    owner, group = _owner(path) if link is None else ("root", "root")
    mtime = entry.mtime if entry is not None else 1230796800
    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime(mtime))
    toolbox = p.model.profile.toolbox
    if link is not None:
        mode = "lrwxrwxrwx" if toolbox else "lrw-r--r--"
        if toolbox:
            return f"{mode} {owner:<8} {group:<8}          {stamp} {name} -> {link}"
        return f"{mode} 1 {owner} {group} {len(link)} {stamp} {name} -> {link}"
    assert entry is not None
    if toolbox:
        size = f"{entry.size:>8} " if not entry.is_dir else " " * 9
        return f"{_mode_string(entry.mode)} {owner:<8} {group:<8} {size}{stamp} {name}"
    links = 2 if entry.is_dir else 1
    return f"{_mode_string(entry.mode)} {links} {owner} {group} {entry.size} {stamp} {name}"


@command("cp")
def cp(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "rRfpav")
    if len(names) < 2:
        yield err("cp: Needs 2 arguments (see \"cp --help\")\n")
        return 1
    *sources, dest = names
    status = 0
    dpath = p.path(dest)
    for s in sources:
        try:
            data = p.fs.read(p.path(s))
            target = posixpath.join(dpath, posixpath.basename(s)) if p.fs.is_dir(dpath) else dpath
            p.fs.write(target, data)
        except OSError as exc:
            yield err(f"cp: {s}: {strerror(exc)}\n")
            status = 1
    return status


@command("mv")
def mv(p: Proc) -> Gen:
    _, names = split_opts(p.argv[1:], "fivn")
    if len(names) < 2:
        yield err("mv: Needs 2 arguments (see \"mv --help\")\n")
        return 1
    *sources, dest = names
    status = 0
    dpath = p.path(dest)
    for s in sources:
        try:
            spath = p.path(s)
            data = p.fs.read(spath)
            target = posixpath.join(dpath, posixpath.basename(s)) if p.fs.is_dir(dpath) else dpath
            p.fs.write(target, data)
            p.fs.remove(spath)
        except OSError as exc:
            yield err(f"mv: {s}: {strerror(exc)}\n")
            status = 1
    return status


@command("chmod")
def chmod(p: Proc) -> Gen:
    _, args = split_opts(p.argv[1:], "Rfv")
    if len(args) < 2:
        yield err("chmod: Needs 2 arguments (see \"chmod --help\")\n")
        return 1
    mode, names = args[0], args[1:]
    status = 0
    for name in names:
        entry = p.fs.stat(p.path(name))
        if entry is None:
            yield err(f"chmod: {name}: No such file or directory\n")
            status = 1
            continue
        if re.fullmatch(r"[0-7]{1,4}", mode):
            entry.mode = (entry.mode & ~0o7777) | int(mode, 8)
        elif "+x" in mode:
            entry.mode |= 0o111
        elif "-x" in mode:
            entry.mode &= ~0o111
    return status


def _expand(fmt: str, fields: dict[str, str]) -> str:
    """``stat -c``'s format with its ``%X`` sequences replaced (unknown ones kept)."""
    return re.sub(r"%(.)", lambda m: fields.get(m.group(1), m.group(0)), fmt)


@command("stat")
def stat(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "Lf", "c")
    fmt = opts.get("c")
    status = 0
    for name in names:
        path = p.path(name)
        entry = p.fs.stat(path)
        if entry is None:
            yield err(f"stat: '{name}': No such file or directory\n")
            status = 1
            continue
        kind = "directory" if entry.is_dir else (
            "regular empty file" if entry.size == 0 else "regular file")
        owner, group = _owner(path)
        fields = {"s": str(entry.size), "n": name, "a": format(entry.mode & 0o7777, "o"),
                  "A": _mode_string(entry.mode), "F": kind, "Y": str(entry.mtime),
                  "U": owner, "G": group, "u": "2000", "g": "2000", "%": "%"}
        if isinstance(fmt, str):
            text = _expand(fmt, fields)
            yield out(text + "\n")
        else:
            yield out(f"  File: {name}\n  Size: {entry.size}\t {kind}\n"
                      f"Access: ({fields['a']:0>4}/{fields['A']})\n")
    return status


@command("basename")
def basename(p: Proc) -> Gen:
    if len(p.argv) < 2:
        yield err("basename: Needs 1 argument (see \"basename --help\")\n")
        return 1
    name = posixpath.basename(p.argv[1].rstrip("/")) or "/"
    if len(p.argv) > 2 and name.endswith(p.argv[2]) and name != p.argv[2]:
        name = name[: -len(p.argv[2])]
    yield out(name + "\n")
    return 0


@command("dirname")
def dirname(p: Proc) -> Gen:
    if len(p.argv) < 2:
        yield err("dirname: Needs 1 argument (see \"dirname --help\")\n")
        return 1
    yield out((posixpath.dirname(p.argv[1].rstrip("/")) or ".") + "\n")
    return 0


# -- df -------------------------------------------------------------------------------------

#: the mounts ``df`` reports, like a 128 GB phone's: (mount point, device, size in KiB,
#: KiB used when the phone is new). Shared storage (``/storage/emulated``, FUSE over
#: ``/data/media``) and ``/data`` are one partition: what is written to either uses both.
_MOUNTS = (
    ("/", "/dev/block/dm-0", 1_016_616, 1_011_528),
    ("/data", "/dev/block/dm-48", 115_658_204, 21_402_972),
    ("/storage/emulated", "/dev/fuse", 115_658_204, 21_402_972),
)


def _mount_of(path: str) -> tuple[str, str, int, int]:
    best = _MOUNTS[0]
    for m in _MOUNTS:
        inside = path == m[0] or path.startswith(m[0].rstrip("/") + "/")
        if inside and len(m[0]) > len(best[0]):
            best = m
    return best


@command("df")
def df(p: Proc) -> Gen:
    """toybox ``df [-k|-h] [PATH…]``: each path's file system (the mount holding it),
    1K blocks; files the shell wrote under ``/data`` or shared storage count as used."""
    from baremobile.virtual.fs import tree_bytes

    args = [a for a in p.argv[1:] if not a.startswith("-")]
    human = "-h" in p.argv[1:]
    written = (tree_bytes(p.fs, "/storage/emulated") + tree_bytes(p.fs, "/data")) // 1024
    rows, status = [], 0
    targets = [p.path(a) for a in args] or [m[0] for m in _MOUNTS]
    for path, shown in zip(targets, args or targets, strict=False):
        if not p.fs.exists(path):
            yield err(f"df: {shown}: No such file or directory\n")
            status = 1
            continue
        mount, dev, size, used = _mount_of(path)
        if mount != "/":
            used += written
        rows.append((dev, size, used, size - used, mount))

    def fmt(kib: int) -> str:
        if not human:
            return str(kib)
        for unit, n in (("T", 1 << 30), ("G", 1 << 20), ("M", 1 << 10)):
            if kib >= n:
                return f"{kib / n:.1f}{unit}"
        return f"{kib}K"

    head = "Size" if human else "1K-blocks"
    lines = [f"{'Filesystem':<16} {head:>10} {'Used':>10} {'Available':>10} Use% Mounted on"]
    for dev, size, used, avail, mount in rows:
        pct = math.ceil(100 * used / size) if size else 0
        lines.append(f"{dev:<16} {fmt(size):>10} {fmt(used):>10} {fmt(avail):>10} "
                     f"{pct:>3}% {mount}")
    yield out("\n".join(lines) + "\n")
    return status
