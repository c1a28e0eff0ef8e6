"""toybox's text programs: ``echo``, ``printf``, ``grep``, ``head``, ``tail``, ``wc``,
``base64``, checksums, ``sort``, ``uniq``, ``tr``, ``cut``, ``tee``, ``seq``."""

from __future__ import annotations

import base64 as _b64
import hashlib
import re

from baremobile.virtual.commands.registry import command
from baremobile.virtual.commands.toybox import read_inputs, split_opts
from baremobile.virtual.shell.escapes import mksh_print_escapes
from baremobile.virtual.shell.process import Gen, Proc, decode, err, out, strerror

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
    opts, args = split_opts(p.argv[1:], "EFivcqnoxwlLhHsrRz", "em")
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
    inputs, status = yield from read_inputs(p, args, "grep")
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
                for regex in regexes:
                    for m in regex.finditer(line):
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
    inputs, status = yield from read_inputs(p, names, "head")
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
    inputs, status = yield from read_inputs(p, names, "tail")
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
    opts, names = split_opts(p.argv[1:], "lcwm")
    inputs, status = yield from read_inputs(p, names, "wc")
    picked = [c for c in "lwcm" if opts.get(c)] or ["l", "w", "c"]
    for name, data in inputs:
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
                  "m": len(decode(data))}
        text = " ".join(str(counts[c]) for c in picked)
        yield out(text + ("" if name == "(standard input)" else f" {name}") + "\n")
    return status


@command("base64")
def base64(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "di", "w")
    inputs, status = yield from read_inputs(p, names[:1], "base64")
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
    inputs, status = yield from read_inputs(p, p.argv[1:], p.argv[0])
    for name, data in inputs:
        shown = "-" if name == "(standard input)" else name
        yield out(f"{hashlib.new(algo, data).hexdigest()}  {shown}\n")
    return status


@command("sort")
def sort(p: Proc) -> Gen:
    opts, names = split_opts(p.argv[1:], "rnu")
    inputs, status = yield from read_inputs(p, names, "sort")
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
    opts, names = split_opts(p.argv[1:], "c")
    inputs, status = yield from read_inputs(p, names[:1], "uniq")
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
    opts, args = split_opts(p.argv[1:], "ds")
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
    opts, names = split_opts(p.argv[1:], "s", "dfc")
    inputs, status = yield from read_inputs(p, names, "cut")
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
    opts, names = split_opts(p.argv[1:], "a")
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
