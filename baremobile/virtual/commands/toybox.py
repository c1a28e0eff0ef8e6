"""toybox programs: files, text and process basics, with toybox's messages."""

from __future__ import annotations

import base64 as _b64
import hashlib
import math
import posixpath
import re
import stat as _stat
import time
from collections.abc import Generator
from typing import Any

from baremobile.virtual.commands import command
from baremobile.virtual.shell import Proc, decode, err, mksh_print_escapes, out, strerror

Gen = Generator[tuple[int, bytes], None, int]

UID_LINE = (
    "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),"
    "1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),"
    "3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) "
    "context=u:r:shell:s0"
)
KERNEL = "6.1.99-android15-8-gbaremobile"
KERNEL_VERSION = "#1 SMP PREEMPT Mon Jan  6 00:00:00 UTC 2025"


def _split_opts(argv: list[str], flags: str, with_value: str = "") -> tuple[
        dict[str, str | bool], list[str]]:
    """Tiny getopt: combined short flags, ``--`` ends options, options anywhere."""
    opts: dict[str, str | bool] = {}
    rest: list[str] = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--":
            rest.extend(args)
            break
        # "-5" is a number (head -5) unless the digit is one of the flags (ls -1)
        if a.startswith("-") and len(a) > 1 and not (a[1].isdigit() and a[1] not in flags):
            i = 1
            while i < len(a):
                c = a[i]
                if c in with_value:
                    val = a[i + 1:] or (args.pop(0) if args else "")
                    opts[c] = val
                    break
                if c in flags:
                    opts[c] = True
                else:
                    opts.setdefault("?", c)
                i += 1
            continue
        rest.append(a)
    return opts, rest


def _read_inputs(p: Proc, names: list[str], prog: str) -> Generator[
        tuple[int, bytes], None, tuple[list[tuple[str, bytes]], int]]:
    """Contents of each named file (``-`` or none = stdin) plus an error status."""
    result: list[tuple[str, bytes]] = []
    status = 0
    for name in names or ["-"]:
        if name == "-":
            result.append(("(standard input)", p.stdin.read()))
            continue
        try:
            result.append((name, p.fs.read(p.path(name))))
        except OSError as exc:
            yield err(f"{prog}: {name}: {strerror(exc)}\n")
            status = 1
    return result, status


# -- echo printf -----------------------------------------------------------------------


@command("echo")
def echo(p: Proc) -> Gen:
    """toybox echo (``/system/bin/echo``): no escapes unless ``-e``."""
    args = p.argv[1:]
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for c in args[0][1:]:
            if c == "n":
                newline = False
            else:
                escapes = c == "e"
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = mksh_print_escapes(text, stop_at_c=True)
        newline = newline and not stop
    yield out(text + ("\n" if newline else ""))
    return 0


_PRINTF_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([diouxXeEfFgGcsb%])")


def _printf_escapes(text: str) -> tuple[str, bool]:
    out_: list[str] = []
    i = 0
    simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
              "\\": "\\", '"': '"', "'": "'", "e": "\x1b"}
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out_.append(c)
            i += 1
            continue
        n = text[i + 1]
        if n == "c":
            return "".join(out_), True
        if n in simple:
            out_.append(simple[n])
            i += 2
        elif n in "01234567":
            m = re.match(r"0?[0-7]{1,3}", text[i + 1:])
            assert m
            out_.append(chr(int(m.group(0), 8) & 0xFF))
            i += 1 + len(m.group(0))
        elif n == "x" and re.match(r"[0-9a-fA-F]", text[i + 2:i + 3]):
            m = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2:])
            assert m
            out_.append(chr(int(m.group(0), 16)))
            i += 2 + len(m.group(0))
        else:
            out_.append("\\" + n)
            i += 2
    return "".join(out_), False


def _printf_number(arg: str, errors: list[str]) -> int | float:
    if arg[:1] in ("'", '"'):
        return ord(arg[1]) if len(arg) > 1 else 0
    try:
        return int(arg, 0) if arg.strip() else 0
    except ValueError:
        try:
            return float(arg)
        except ValueError:
            errors.append(f"printf: invalid number '{arg}'\n")
            return 0


@command("printf")
def printf(p: Proc) -> Gen:
    """toybox printf: ``%s %b %c %d %i %o %u %x %X %e %f %g``, escapes, format reuse."""
    if len(p.argv) < 2:
        yield err("printf: Needs 1 argument\n")
        return 1
    fmt, args = p.argv[1], p.argv[2:]
    errors: list[str] = []
    chunks: list[str] = []
    while True:
        consumed = 0
        pos = 0

        def take(pending: list[str] = args) -> str | None:
            nonlocal consumed
            if consumed < len(pending):
                consumed += 1
                return pending[consumed - 1]
            return None

        for m in _PRINTF_SPEC.finditer(fmt):
            text, stop = _printf_escapes(fmt[pos:m.start()])
            chunks.append(text)
            if stop:
                yield out("".join(chunks))
                return 0
            pos = m.end()
            flags, width, prec, conv = m.groups()
            if conv == "%":
                chunks.append("%")
                continue

            if width == "*":
                width = str(int(_printf_number(take() or "0", errors)))
            if prec == "*":
                prec = str(int(_printf_number(take() or "0", errors)))
            arg = take()
            spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
            if conv == "s":
                chunks.append((spec + "s") % (arg or ""))
            elif conv == "b":
                text, stop = mksh_print_escapes(arg or "", stop_at_c=True)
                chunks.append((spec + "s") % text)
                if stop:
                    yield out("".join(chunks))
                    return 0
            elif conv == "c":
                chunks.append((spec + "s") % ((arg or "")[:1]))
            elif conv in "diouxX":
                num = int(_printf_number(arg or "0", errors))
                c = "d" if conv in "iu" else conv
                chunks.append((spec + c) % num)
            else:
                chunks.append((spec + conv) % float(_printf_number(arg or "0", errors)))
        text, stop = _printf_escapes(fmt[pos:])
        chunks.append(text)
        if stop or consumed == 0 or consumed >= len(args):
            break
        args = args[consumed:]
    yield out("".join(chunks))
    for e in errors:
        yield err(e)
    return 1 if errors else 0


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
    opts, names = _split_opts(p.argv[1:], "frRdiv")
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
    opts, names = _split_opts(p.argv[1:], "pv", "m")
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
    opts, names = _split_opts(p.argv[1:], "acmh", "dtr")
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
    opts, names = _split_opts(p.argv[1:], "laAdR1htrSsFin")
    status = 0
    files: list[tuple[str, str]] = []
    dirs: list[tuple[str, str]] = []
    for name in names or ["."]:
        path = p.path(name)
        entry = p.fs.stat(path)
        if entry is None:
            yield err(f"ls: {name}: No such file or directory\n")
            status = 1
        elif entry.is_dir and not opts.get("d"):
            dirs.append((name, path))
        else:
            files.append((name, path))
    listing: list[str] = [_ls_line(p, name, path, opts) for name, path in files]
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
        if opts.get("l"):
            blocks = sum(math.ceil(e.size / 4096) * 4 for _, full in rows
                         if (e := p.fs.stat(full)) is not None)
            lines.insert(0, f"total {blocks}")
        if lines:
            yield out("\n".join(lines) + "\n")
    return status


def _ls_line(p: Proc, name: str, path: str, opts: dict[str, str | bool]) -> str:
    entry = p.fs.stat(path)
    if entry is None:
        return name
    if opts.get("F"):
        name += "/" if entry.is_dir else ("*" if entry.mode & 0o111 else "")
    if not opts.get("l"):
        return name
    owner, group = _owner(path)
    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime(entry.mtime))
    links = 2 if entry.is_dir else 1
    return f"{_mode_string(entry.mode)} {links} {owner} {group} {entry.size} {stamp} {name}"


@command("cp")
def cp(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "rRfpav")
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
    _, names = _split_opts(p.argv[1:], "fivn")
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
    _, args = _split_opts(p.argv[1:], "Rfv")
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


@command("stat")
def stat(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "Lf", "c")
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
            text = re.sub(r"%(.)", lambda m, f=fields: f.get(m.group(1), m.group(0)), fmt)
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


# -- text --------------------------------------------------------------------------------


def _bre_to_ere(pattern: str) -> str:
    out_: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            n = pattern[i + 1]
            out_.append(n if n in "(){}|+?" else "\\" + n)
            i += 2
            continue
        out_.append("\\" + c if c in "(){}|+?" else c)
        i += 1
    return "".join(out_)


@command("grep", "egrep", "fgrep")
def grep(p: Proc) -> Gen:
    opts, args = _split_opts(p.argv[1:], "EFivcqnoxwlLhHsrRz", "em")
    if p.argv[0].endswith("egrep"):
        opts["E"] = True
    if p.argv[0].endswith("fgrep"):
        opts["F"] = True
    patterns = [str(opts["e"])] if "e" in opts else []
    if not patterns:
        if not args:
            yield err("grep: no pattern\n")
            return 2
        patterns, args = [args[0]], args[1:]
    regexes = []
    for pat in patterns:
        for line_pat in pat.split("\n"):
            rx = re.escape(line_pat) if opts.get("F") else (
                line_pat if opts.get("E") else _bre_to_ere(line_pat))
            if opts.get("w"):
                rx = rf"\b(?:{rx})\b"
            if opts.get("x"):
                rx = rf"(?:{rx})\Z"
            try:
                regexes.append(re.compile(rx, re.I if opts.get("i") else 0))
            except re.error:
                yield err(f"grep: bad regex '{line_pat}'\n")
                return 2
    inputs, status = yield from _read_inputs(p, args, "grep")
    multi = len(args) > 1 and not opts.get("h") or bool(opts.get("H"))
    matched_any = False
    for name, data in inputs:
        count = 0
        lines = decode(data).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for no, line in enumerate(lines, 1):
            hits = [m for rx in regexes for m in ([rx.search(line)] if not opts.get("x")
                                                   else [rx.match(line)]) if m]
            if bool(hits) == bool(opts.get("v")):
                continue
            count += 1
            matched_any = True
            if opts.get("q"):
                return 0
            if opts.get("c") or opts.get("l") or opts.get("L"):
                continue
            prefix = (f"{name}:" if multi else "") + (f"{no}:" if opts.get("n") else "")
            if opts.get("o") and not opts.get("v"):
                for rx in regexes:
                    for m in rx.finditer(line):
                        if m.group(0):
                            yield out(f"{prefix}{m.group(0)}\n")
            else:
                yield out(f"{prefix}{line}\n")
        if opts.get("c"):
            yield out((f"{name}:" if multi else "") + f"{count}\n")
        if opts.get("l") and count:
            yield out(f"{name}\n")
        if opts.get("L") and not count:
            yield out(f"{name}\n")
    if status and not opts.get("s"):
        return 2
    return 0 if matched_any else 1


def _count_opt(argv: list[str], default: int) -> tuple[int, bool, bool, list[str]]:
    """``-n N`` / ``-N`` / ``-c N`` / ``-n +N``: (count, bytes mode, from-start, rest)."""
    count, use_bytes, plus = default, False, False
    rest: list[str] = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("-n", "-c") and args:
            v = args.pop(0)
            use_bytes = a == "-c"
            plus = v.startswith("+")
            count = int(v.lstrip("+-") or 0)
        elif re.fullmatch(r"-[nc]\+?\d+", a):
            use_bytes = a[1] == "c"
            plus = "+" in a
            count = int(a[2:].lstrip("+"))
        elif re.fullmatch(r"-\d+", a):
            count = int(a[1:])
        else:
            rest.append(a)
    return count, use_bytes, plus, rest


@command("head")
def head(p: Proc) -> Gen:
    count, use_bytes, _, names = _count_opt(p.argv[1:], 10)
    inputs, status = yield from _read_inputs(p, names, "head")
    for k, (name, data) in enumerate(inputs):
        if len(inputs) > 1:
            yield out(("\n" if k else "") + f"==> {name} <==\n")
        if use_bytes:
            yield out(data[:count])
        else:
            yield out(b"".join(data.splitlines(keepends=True)[:count]))
    return status


@command("tail")
def tail(p: Proc) -> Gen:
    count, use_bytes, plus, names = _count_opt(p.argv[1:], 10)
    inputs, status = yield from _read_inputs(p, names, "tail")
    for name, data in inputs:
        if len(inputs) > 1:
            yield out(f"==> {name} <==\n")
        if use_bytes:
            yield out(data[count - 1:] if plus else (data[-count:] if count else b""))
        else:
            lines = data.splitlines(keepends=True)
            yield out(b"".join(lines[count - 1:] if plus else (lines[-count:] if count else [])))
    return status


@command("wc")
def wc(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "lcwm")
    inputs, status = yield from _read_inputs(p, names, "wc")
    picked = [c for c in "lwcm" if opts.get(c)] or ["l", "w", "c"]
    for name, data in inputs:
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
                  "m": len(decode(data))}
        text = " ".join(str(counts[c]) for c in picked)
        yield out(text + ("" if name == "(standard input)" else f" {name}") + "\n")
    return status


@command("base64")
def base64(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "di", "w")
    inputs, status = yield from _read_inputs(p, names[:1], "base64")
    if status:
        return status
    data = inputs[0][1]
    if opts.get("d"):
        text = re.sub(rb"[^A-Za-z0-9+/=]", b"", data) if opts.get("i") else re.sub(
            rb"\s", b"", data)
        try:
            yield out(_b64.b64decode(text + b"=" * (-len(text) % 4)))
        except ValueError:
            yield err("base64: bad input\n")
            return 1
        return 0
    width = int(str(opts.get("w", "76")) or 76)
    enc = _b64.b64encode(data)
    if width > 0:
        enc = b"\n".join(enc[i:i + width] for i in range(0, len(enc), width))
    yield out(enc + b"\n")
    return 0


@command("md5sum", "sha1sum", "sha256sum")
def digest(p: Proc) -> Gen:
    algo = p.argv[0].rsplit("/", 1)[-1].replace("sum", "")
    inputs, status = yield from _read_inputs(p, p.argv[1:], p.argv[0])
    for name, data in inputs:
        shown = "-" if name == "(standard input)" else name
        yield out(f"{hashlib.new(algo, data).hexdigest()}  {shown}\n")
    return status


@command("sort")
def sort(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "rnu")
    inputs, status = yield from _read_inputs(p, names, "sort")
    lines = [ln for _, d in inputs for ln in decode(d).splitlines()]
    if opts.get("n"):
        def key(s: str) -> float:
            m = re.match(r"\s*-?\d+(\.\d+)?", s)
            return float(m.group(0)) if m else 0.0
        lines.sort(key=key, reverse=bool(opts.get("r")))
    else:
        lines.sort(reverse=bool(opts.get("r")))
    if opts.get("u"):
        lines = list(dict.fromkeys(lines))
    yield out("".join(ln + "\n" for ln in lines))
    return status


@command("uniq")
def uniq(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "c")
    inputs, status = yield from _read_inputs(p, names[:1], "uniq")
    prev: str | None = None
    n = 0
    lines_out: list[str] = []
    for line in [*decode(inputs[0][1] if inputs else b"").splitlines(), None]:
        if line == prev:
            n += 1
            continue
        if prev is not None:
            lines_out.append(f"{n:7d} {prev}" if opts.get("c") else prev)
        prev, n = line, 1
    yield out("".join(s + "\n" for s in lines_out))
    return status


@command("tr")
def tr(p: Proc) -> Gen:
    opts, args = _split_opts(p.argv[1:], "ds")
    data = decode(p.stdin.read())

    def expand(s: str) -> str:
        return re.sub(r"(.)-(.)", lambda m: "".join(
            chr(c) for c in range(ord(m.group(1)), ord(m.group(2)) + 1)), s)

    if opts.get("d") and args:
        gone = set(expand(args[0]))
        data = "".join(c for c in data if c not in gone)
    elif len(args) >= 2:
        src, dst = expand(args[0]), expand(args[1])
        dst = dst + dst[-1:] * max(0, len(src) - len(dst))
        data = data.translate(str.maketrans(src, dst[: len(src)]))
    yield out(data)
    return 0


@command("cut")
def cut(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "s", "dfc")
    inputs, status = yield from _read_inputs(p, names, "cut")
    delim = str(opts.get("d", "\t"))
    spec = str(opts.get("f") or opts.get("c") or "1")
    picks: set[int] = set()
    for part in spec.split(","):
        a, _, b = part.partition("-")
        lo = int(a) if a else 1
        hi = int(b) if b else (lo if not _ else 10_000)
        picks.update(range(lo, hi + 1))
    result: list[str] = []
    for _, data in inputs:
        for line in decode(data).splitlines():
            if "c" in opts:
                result.append("".join(c for i, c in enumerate(line, 1) if i in picks))
            elif delim not in line:
                if not opts.get("s"):
                    result.append(line)
            else:
                cols = line.split(delim)
                result.append(delim.join(c for i, c in enumerate(cols, 1) if i in picks))
    yield out("".join(r + "\n" for r in result))
    return status


@command("tee")
def tee(p: Proc) -> Gen:
    opts, names = _split_opts(p.argv[1:], "a")
    data = p.stdin.read()
    for n in names:
        try:
            p.fs.write(p.path(n), data, append=bool(opts.get("a")))
        except OSError as exc:
            yield err(f"tee: {n}: {strerror(exc)}\n")
    yield out(data)
    return 0


@command("seq")
def seq(p: Proc) -> Gen:
    nums = [int(a) for a in p.argv[1:] if re.fullmatch(r"-?\d+", a)]
    if not nums:
        yield err("seq: Needs 1 argument (see \"seq --help\")\n")
        return 1
    first, step, last = (1, 1, nums[0]) if len(nums) == 1 else (
        (nums[0], 1, nums[1]) if len(nums) == 2 else (nums[0], nums[1], nums[2]))
    yield out("".join(f"{i}\n" for i in range(first, last + (1 if step > 0 else -1), step)))
    return 0


# -- processes and identity ----------------------------------------------------------------


@command("true")
def true(p: Proc) -> Gen:
    return 0
    yield  # pragma: no cover


@command("false")
def false(p: Proc) -> Gen:
    return 1
    yield  # pragma: no cover


_TIME_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


@command("sleep")
def sleep(p: Proc) -> Gen:
    """toybox sleep: fractions and s/m/h/d suffixes; runs on the model's clock."""
    if len(p.argv) < 2:
        yield err("sleep: Needs 1 argument (see \"sleep --help\")\n")
        return 1
    total = 0.0
    for a in p.argv[1:]:
        m = re.fullmatch(r"(\d*\.?\d*)([smhd]?)", a)
        if not m or m.group(1) in ("", "."):
            yield err(f"sleep: bad '{a}'\n")
            return 1
        total += float(m.group(1)) * _TIME_UNITS[m.group(2)]
    p.sleep(total)
    return 0


@command("id")
def id_(p: Proc) -> Gen:
    args = p.argv[1:]
    if "-u" in args or "-g" in args:
        yield out("shell\n" if "-n" in args else "2000\n")
    else:
        yield out(UID_LINE + "\n")
    return 0


@command("whoami")
def whoami(p: Proc) -> Gen:
    yield out("shell\n")
    return 0


@command("uname")
def uname(p: Proc) -> Gen:
    fields = {"s": "Linux", "n": "localhost", "r": KERNEL, "v": KERNEL_VERSION,
              "m": "aarch64", "o": "Toybox"}
    opts, _ = _split_opts(p.argv[1:], "asnrvmpo")
    if opts.get("a"):
        picked = "snrvmo"
    else:
        picked = "".join(c for c in "snrvmo" if opts.get(c)) or "s"
        if opts.get("p"):
            picked += "m"
    yield out(" ".join(fields[c] for c in picked) + "\n")
    return 0


@command("date")
def date(p: Proc) -> Gen:
    now = p.model.clock.time()
    fmt = "%a %b %e %H:%M:%S %Z %Y"
    for a in p.argv[1:]:
        if a.startswith("+"):
            fmt = a[1:]
    t = time.gmtime(now)
    text = fmt.replace("%s", str(int(now))).replace("%N", f"{int((now % 1) * 1e9):09d}")
    text = text.replace("%Z", "UTC").replace("%z", "+0000").replace("%e", f"{t.tm_mday:2d}")
    yield out(time.strftime(text, t) + "\n")
    return 0


@command("env", "printenv")
def env(p: Proc) -> Gen:
    if p.argv[0].endswith("printenv") and len(p.argv) > 1:
        vals = [p.env[n] for n in p.argv[1:] if n in p.env]
        yield out("".join(v + "\n" for v in vals))
        return 0 if len(vals) == len(p.argv) - 1 else 1
    yield out("".join(f"{k}={v}\n" for k, v in sorted(p.env.items())))
    return 0


@command("sh", "mksh")
def sh(p: Proc) -> Gen:
    """``sh -c CMD [ARG0 [ARGS]]`` / ``sh FILE [ARGS]`` / ``sh`` (script on stdin)."""
    args = p.argv[1:]
    while args and args[0] in ("-e", "-x", "-u", "-l", "-i", "-s"):
        args = args[1:]
    if args and args[0] == "-c":
        if len(args) < 2:
            yield err(f"{p.argv[0]}: -c: option requires an argument\n")
            return 1
        argv0 = args[2] if len(args) > 2 else p.argv[0]
        return (yield from p.run_script(args[1], argv0, args[3:]))
    if args:
        try:
            src = decode(p.fs.read(p.path(args[0])))
        except OSError as exc:
            yield err(f"{p.argv[0]}: {args[0]}: {strerror(exc)}\n")
            return 127
        return (yield from p.run_script(src, args[0], args[1:]))
    return (yield from p.run_script(decode(p.stdin.read()), p.argv[0], []))


@command("which")
def which(p: Proc) -> Gen:
    status = 0
    for name in [a for a in p.argv[1:] if not a.startswith("-")]:
        found = p.which(name)
        if found:
            yield out(found + "\n")
        else:
            status = 1
    return status


@command("test", "[")
def test(p: Proc) -> Gen:
    """toybox test (``/system/bin/test``)."""
    args = p.argv[1:]
    if p.argv[0].endswith("["):
        if not args or args[-1] != "]":
            yield err("[: missing ]\n")
            return 2
        args = args[:-1]
    status, problem = evaluate_test(args, p.fs, p.cwd)
    if problem:
        yield err(f"test: {problem}\n")
    return status


@command("kill", "killall", "sync", "sum", "setenforce", "chown", "chgrp", "log")
def accept(p: Proc) -> Gen:
    if p.argv[0] == "log":
        opts, words = _split_opts(p.argv[1:], "", "tp")
        prio = str(opts.get("p", "i"))[:1].upper() or "I"
        p.model.log(prio, str(opts.get("t", "log")), " ".join(words), pid=2000)
    return 0
    yield  # pragma: no cover


# -- test(1) ---------------------------------------------------------------------------------


def evaluate_test(args: list[str], fs: Any, cwd: str) -> tuple[int, str | None]:
    """POSIX ``test``: returns ``(status, error message or None)``; status 2 on errors."""
    try:
        value, rest = _test_or(list(args), fs, cwd)
        if rest:
            return 2, f"{rest[0]}: unexpected operator"
        return (0 if value else 1), None
    except _TestError as exc:
        return 2, str(exc)


class _TestError(Exception):
    pass


def _test_or(a: list[str], fs: Any, cwd: str) -> tuple[bool, list[str]]:
    if not a:
        return False, []
    v, a = _test_and(a, fs, cwd)
    while a and a[0] == "-o":
        w, a = _test_and(a[1:], fs, cwd)
        v = v or w
    return v, a


def _test_and(a: list[str], fs: Any, cwd: str) -> tuple[bool, list[str]]:
    v, a = _test_not(a, fs, cwd)
    while a and a[0] == "-a":
        w, a = _test_not(a[1:], fs, cwd)
        v = v and w
    return v, a


_BIN_OPS = ("=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "<", ">", "-nt", "-ot")


def _test_not(a: list[str], fs: Any, cwd: str) -> tuple[bool, list[str]]:
    if not a:
        raise _TestError("argument expected")
    if a[0] == "!" and not (len(a) >= 3 and a[1] in _BIN_OPS):
        v, rest = _test_not(a[1:], fs, cwd)
        return not v, rest
    if a[0] == "(" and len(a) > 1 and not (len(a) >= 3 and a[1] in _BIN_OPS):
        v, rest = _test_or(a[1:], fs, cwd)
        if not rest or rest[0] != ")":
            raise _TestError("')' expected")
        return v, rest[1:]
    if len(a) >= 3 and a[1] in _BIN_OPS:
        return _test_binary(a[0], a[1], a[2]), a[3:]
    if len(a) == 2 and a[1] in _BIN_OPS:
        raise _TestError(f"{a[1]}: missing second argument")
    if len(a) >= 2 and re.fullmatch(r"-[a-zA-Z]", a[0]) and a[0] not in ("-a", "-o"):
        return _test_unary(a[0], a[1], fs, cwd), a[2:]
    return a[0] != "", a[1:]


def _int(s: str) -> int:
    try:
        return int(s.strip())
    except ValueError:
        raise _TestError(f"{s}: bad number") from None


def _test_binary(x: str, op: str, y: str) -> bool:
    if op in ("=", "=="):
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == ">":
        return x > y
    if op in ("-nt", "-ot"):
        return False
    a, b = _int(x), _int(y)
    return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b,
            "-ge": a >= b}[op]


def _test_unary(op: str, x: str, fs: Any, cwd: str) -> bool:
    if op == "-z":
        return x == ""
    if op == "-n":
        return x != ""
    if op == "-t":
        return False
    entry = fs.stat(fs.normalize(x, cwd)) if x else None
    if op in ("-e", "-a"):
        return entry is not None
    if entry is None:
        return False
    return {
        "-f": not entry.is_dir and _stat.S_ISREG(entry.mode),
        "-d": entry.is_dir,
        "-s": entry.size > 0 and not entry.is_dir or entry.is_dir,
        "-r": True,
        "-w": True,
        "-x": bool(entry.mode & 0o111),
        "-L": False,
        "-h": False,
        "-c": _stat.S_ISCHR(entry.mode),
        "-b": False,
        "-p": False,
        "-S": False,
    }.get(op, False)
