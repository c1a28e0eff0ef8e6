"""toybox's conventions (option parsing, reading inputs, identity) and its process and
identity programs: ``true``, ``sleep``, ``id``, ``uname``, ``date``, ``env``, ``sh``,
``which``, ``test`` ...

The file programs are in :mod:`.files`, the text programs in :mod:`.text`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator

from baremobile.virtual.commands.registry import command
from baremobile.virtual.shell.conditions import evaluate_test
from baremobile.virtual.shell.process import Gen, Proc, decode, err, out, strerror

UID_LINE = (
    "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),"
    "1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),"
    "3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) "
    "context=u:r:shell:s0"
)
KERNEL = "6.1.99-android15-8-gbaremobile"
KERNEL_VERSION = "#1 SMP PREEMPT Mon Jan  6 00:00:00 UTC 2025"


def split_opts(argv: list[str], flags: str, with_value: str = "") -> tuple[
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


def read_inputs(p: Proc, names: list[str], prog: str) -> Generator[
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
    opts, _ = split_opts(p.argv[1:], "asnrvmpo")
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
        opts, words = split_opts(p.argv[1:], "", "tp")
        prio = str(opts.get("p", "i"))[:1].upper() or "I"
        p.model.log(prio, str(opts.get("t", "log")), " ".join(words), pid=2000)
    return 0
    yield  # pragma: no cover
