"""System state: ``getprop``/``setprop``, ``settings``, ``wm``, ``dumpsys``, ``logcat``,
``ime``, ``pidof``, ``ps``."""

from __future__ import annotations

import time
import zlib
from collections.abc import Generator
from typing import Any

from baremobile.virtual.commands.intents import packages, qualify, short_component
from baremobile.virtual.commands.registry import command
from baremobile.virtual.shell.process import Proc, err, out

Gen = Generator[tuple[int, bytes], None, int]

#: property prefixes the ``shell`` user may set (SELinux property contexts, simplified)
SHELL_SETTABLE = ("debug.", "log.tag", "persist.log.tag", "persist.debug.", "service.adb.",
                  "ctl.start", "ctl.stop", "persist.sys.test.")


# -- properties ------------------------------------------------------------------------------


@command("getprop")
def getprop(p: Proc) -> Gen:
    args = [a for a in p.argv[1:] if not a.startswith("-")]
    with p.model.lock:
        props = dict(p.model.props)
    if not args:
        yield out("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))
        return 0
    default = args[1] if len(args) > 1 else ""
    yield out(props.get(args[0], default) + "\n")
    return 0


@command("setprop")
def setprop(p: Proc) -> Gen:
    args = p.argv[1:]
    if len(args) != 2:
        yield err("setprop: Need 2 arguments\n")
        return 1
    key, value = args
    with p.model.lock:
        ro_taken = key.startswith("ro.") and key in p.model.props
        allowed = key.startswith(SHELL_SETTABLE)
        if allowed and not ro_taken and len(value) < 92:
            p.model.props[key] = value
            return 0
    yield err(f"Failed to set property '{key}' to '{value}'.\nSee dmesg for error reason.\n")
    return 1


# -- settings -------------------------------------------------------------------------------


@command("settings")
def settings(p: Proc) -> Gen:
    args = [a for a in p.argv[1:]]
    if "--user" in args:
        k = args.index("--user")
        del args[k:k + 2]
    if len(args) < 2 or args[0] not in ("get", "put", "delete", "list", "reset"):
        yield err("Invalid command: " + (args[0] if args else "") + "\n" if args else
                  "Settings provider (settings) commands:\n  help\n  get [--user <USER_ID> | "
                  "current] NAMESPACE KEY\n  put [--user <USER_ID> | current] NAMESPACE KEY "
                  "VALUE [TAG] [default]\n  delete [--user <USER_ID> | current] NAMESPACE KEY\n"
                  "  list [--user <USER_ID> | current] NAMESPACE\n")
        return 255
    verb, ns = args[0], args[1]
    if ns not in ("system", "secure", "global"):
        yield err(f"Invalid namespace '{ns}'\n")
        return 255
    with p.model.lock:
        table = p.model.settings[ns]
        if verb == "list":
            rows = sorted(table.items())
            yield out("".join(f"{k}={v}\n" for k, v in rows))
            return 0
        if len(args) < 3:
            yield err("Missing key argument\n")
            return 255
        key = args[2]
        if verb == "get":
            yield out(table.get(key, "null") + "\n")
        elif verb == "put":
            if len(args) < 4:
                yield err("Missing value argument\n")
                return 255
            table[key] = args[3]
        elif verb == "delete":
            yield out(f"Deleted {1 if table.pop(key, None) is not None else 0} rows\n")
    return 0


# -- wm ---------------------------------------------------------------------------------------


@command("wm")
def wm(p: Proc) -> Gen:
    args = p.argv[1:]
    if not args:
        yield out("Window manager (window) commands:\n  help\n      Print this help text.\n"
                  "  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n    Return or override display "
                  "size.\n  density [reset|DENSITY] [-d DISPLAY_ID]\n    Return or override "
                  "display density.\n")
        return 0
    sub, rest = args[0], [a for a in args[1:]]
    if "-d" in rest:
        k = rest.index("-d")
        del rest[k:k + 2]
    model = p.model
    if sub == "size":
        if not rest:
            w, h = model.display_size()
            yield out(f"Physical size: {w}x{h}\n")
            if model.wm_size_override:
                ow, oh = model.wm_size_override
                yield out(f"Override size: {ow}x{oh}\n")
            return 0
        if rest[0] == "reset":
            model.wm_size_override = None
            return 0
        try:
            w_s, h_s = rest[0].lower().split("x")
            model.wm_size_override = (int(w_s.rstrip("dp")), int(h_s.rstrip("dp")))
        except ValueError:
            yield err(f"Error: bad size {rest[0]}\n")
            return 255
        return 0
    if sub == "density":
        if not rest:
            yield out(f"Physical density: {int(getattr(model.screens, 'density', 420))}\n")
            if model.wm_density_override:
                yield out(f"Override density: {model.wm_density_override}\n")
            return 0
        if rest[0] == "reset":
            model.wm_density_override = None
            return 0
        if not rest[0].isdigit():
            yield err(f"Error: bad number {rest[0]}\n")
            return 255
        model.wm_density_override = int(rest[0])
        return 0
    if sub in ("dismiss-keyguard", "overscan", "scaling", "user-rotation", "fixed-to-user-"
               "rotation", "set-ignore-orientation-request"):
        return 0
    yield err(f"Unknown command: {sub}\n")
    return 255


# -- dumpsys ----------------------------------------------------------------------------------


def _hash8(text: str) -> str:
    return format(zlib.crc32(text.encode()) & 0xFFFFFFF, "07x")


def _focus(model: Any) -> tuple[str, str]:
    pkg, act = model.screens.current()
    return pkg, qualify(pkg, act) if act else act


def _dumpsys_window(p: Proc, what: str) -> str:
    model = p.model
    pkg, act = _focus(model)
    w, h = model.display_size()
    density = int(getattr(model.screens, "density", 420))
    short = short_component(pkg, act)
    win = f"Window{{{_hash8(pkg + act)} u0 {pkg}/{act}}}"
    record = f"ActivityRecord{{{_hash8(act)} u0 {short} t{_task(pkg)}}}"
    rot = int(getattr(model.screens, "rotation", 0))
    display = [
        "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
        "  Display: mDisplayId=0 rootTasks=1",
        f"    init={w}x{h} {density}dpi cur={w}x{h} app={w}x{h - 63} rng={w}x{w - 63}-{h}x{h - 63}",
        f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))",
        "",
        f"    mCurrentFocus={win}",
        f"    mFocusedApp={record}",
        f"    mRotation={rot} mAltOrientation=false",
        "    mLastOrientation=-1",
    ]
    if what == "displays":
        return "\n".join(display) + "\n"
    windows = [
        "WINDOW MANAGER WINDOWS (dumpsys window windows)",
        f"  Window #0 {win}:",
        f"    mDisplayId=0 rootTaskId={_task(pkg)} mSession=Session{{{_hash8(pkg)} 1234:u0a10123}}",
        f"    mOwnerUid=10123 showForAllUsers=false package={pkg} appop=NONE",
        "    mAttrs={(0,0)(fillxfill) sim={adjust=pan} ty=BASE_APPLICATION}",
        f"    mActivityRecord={record}",
        "    isOnScreen=true",
        "    isVisible=true",
        "",
        f"  mCurrentFocus={win}",
        f"  mFocusedApp={record}",
        "  mInputMethodWindow=null",
        "  mHoldScreenWindow=null",
    ]
    if what == "windows":
        return "\n".join(windows) + "\n"
    policy = ["WINDOW MANAGER POLICY STATE (dumpsys window policy)",
              "    mScreenOnEarly=true mScreenOnFully=true",
              "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true",
              "    isKeyguardShowing=false"]
    display = [ln for ln in display if "mCurrentFocus" not in ln and "mFocusedApp" not in ln]
    return "\n".join(windows + [""] + display + [""] + policy) + "\n"


def _task(pkg: str) -> int:
    return 10 + zlib.crc32(pkg.encode()) % 90


def _dumpsys_activity(p: Proc, what: str) -> str:
    pkg, act = _focus(p.model)
    short = short_component(pkg, act)
    record = f"ActivityRecord{{{_hash8(act)} u0 {short} t{_task(pkg)}}}"
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
        f"  * Task{{{_hash8(pkg)} #{_task(pkg)} type=standard A=10123:{pkg} U=0 visible=true "
        f"visibleRequested=true mode=fullscreen translucent=false sz=1}}",
        f"    mResumedActivity: {record}",
        f"    * Hist  #0: {record}",
        f"        packageName={pkg} processName={pkg}",
        "        launchedFromUid=2000 launchedFromPackage=com.android.shell userId=0",
        f"        intent={{act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER]"
        f" flg=0x10200000 cmp={short}}}",
        "",
        f"  ResumedActivity: {record}",
        "",
        f"  topResumedActivity={record}",
        f"  mFocusedApp={record}",
    ]
    if what == "top":
        return (f"TASK {pkg} id={_task(pkg)} userId=0\n  ACTIVITY {short} {_hash8(act)} "
                f"pid={p.model.mark_running(pkg)}\n")
    return "\n".join(lines) + "\n"


def _dumpsys_battery() -> str:
    return (
        "Current Battery Service state:\n"
        "  AC powered: false\n"
        "  USB powered: true\n"
        "  Wireless powered: false\n"
        "  Dock powered: false\n"
        "  Max charging current: 500000\n"
        "  Max charging voltage: 5000000\n"
        "  Charge counter: 3853000\n"
        "  status: 2\n"
        "  health: 2\n"
        "  present: true\n"
        "  level: 85\n"
        "  scale: 100\n"
        "  voltage: 4213\n"
        "  temperature: 250\n"
        "  technology: Li-ion\n"
        "  Charging state: 1\n"
        "  Charging policy: 1\n"
        "  Capacity level: 4\n"
    )


def _dumpsys_package(p: Proc, name: str | None) -> str:
    rows = [pk for pk in packages(p.model) if name is None or pk.name == name]
    if not rows:
        return f"Unable to find package: {name}\n" if name else ""
    lines = ["Packages:"]
    for pk in rows:
        lines += [
            f"  Package [{pk.name}] ({_hash8(pk.name)}):",
            f"    versionCode={pk.version_code} minSdk=28 targetSdk={p.api_level}",
            f"    versionName={pk.version_name}",
            f"    flags=[ {'SYSTEM ' if pk.system else ''}HAS_CODE ALLOW_CLEAR_USER_DATA ]",
        ]
        if pk.launcher:
            comp = short_component(pk.name, qualify(pk.name, pk.launcher))
            lines += ["    Activity Resolver Table:", f"      {_hash8(comp)} {comp} filter"]
    return "\n".join(lines) + "\n"


@command("dumpsys")
def dumpsys(p: Proc) -> Gen:
    args = p.argv[1:]
    if not args:
        yield out("Currently running services:\n  activity\n  battery\n  input_method\n"
                  "  package\n  power\n  window\n")
        return 0
    service, rest = args[0], args[1:]
    what = rest[0] if rest and not rest[0].startswith("-") else ""
    if service == "window":
        yield out(_dumpsys_window(p, what))
    elif service == "activity":
        yield out(_dumpsys_activity(p, what))
    elif service == "battery":
        yield out(_dumpsys_battery())
    elif service == "package":
        yield out(_dumpsys_package(p, what or None))
    elif service == "input_method":
        yield out("  mCurInputMethodId=com.android.inputmethod.latin/.LatinIME\n"
                  "  mInputShown=false\n  mServedView=null\n")
    elif service == "power":
        yield out("POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n"
                  "  mWakefulnessChanging=false\n  mIsPowered=true\n  mHoldingDisplaySuspendBlocker"
                  "=true\n  Display Power: state=ON\n")
    elif service == "display":
        w, h = p.model.display_size()
        yield out(f"DISPLAY MANAGER (dumpsys display)\n  mDefaultDisplayId=0\n"
                  f"  mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real "
                  f"{w} x {h}, largest app {w} x {h}, state ON}}\n")
    elif service in ("meminfo", "cpuinfo", "gfxinfo", "notification", "audio", "wifi",
                     "connectivity", "SurfaceFlinger", "alarm", "usagestats"):
        yield out(f"(dumpsys {service}: not simulated by the virtual phone)\n")
    else:
        yield err(f"Can't find service: {service}\n")
    return 0


# -- logcat -----------------------------------------------------------------------------------

_PRIORITIES = "VDIWEFS"


def _format(row: tuple[float, str, str, str, int, Any], fmt: str) -> str:
    t, prio, tag, msg, pid, ev = row
    if fmt == "threadtime" and ev is not None:
        return ev.logcat_line()
    lt = time.localtime(t)
    stamp = time.strftime("%m-%d %H:%M:%S", lt) + f".{int((t % 1) * 1000):03d}"
    if fmt == "brief":
        return f"{prio}/{tag}({pid:5d}): {msg}"
    if fmt == "tag":
        return f"{prio}/{tag}: {msg}"
    if fmt == "raw":
        return msg
    if fmt == "time":
        return f"{stamp} {prio}/{tag}({pid:5d}): {msg}"
    if fmt == "process":
        return f"{prio}({pid:5d}) {msg}  ({tag})"
    return f"{stamp} {pid:5d} {pid:5d} {prio} {tag}: {msg}"


def _filter(specs: list[str], silent_default: bool) -> Any:
    rules: dict[str, str] = {}
    default = "S" if silent_default else "V"
    for spec in specs:
        tag, _, prio = spec.partition(":")
        prio = (prio or "V")[:1].upper()
        if tag == "*":
            default = prio
        else:
            rules[tag] = prio

    def keep(tag: str, prio: str) -> bool:
        need = rules.get(tag, default)
        if need == "S":
            return False
        return _PRIORITIES.index(prio) >= _PRIORITIES.index(need)

    return keep


@command("logcat")
def logcat(p: Proc) -> Gen:
    args = p.argv[1:]
    dump = clear = silent = False
    fmt = "threadtime"
    tail: int | None = None
    specs: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-d":
            dump = True
        elif a == "-c":
            clear = True
        elif a == "-s":
            silent = True
        elif a in ("-v", "-b", "-t", "-T", "-e", "--pid", "-m"):
            val = args[i + 1] if i + 1 < len(args) else ""
            i += 1
            if a == "-v":
                fmt = val
            elif a in ("-t", "-T") and val.isdigit():
                tail = int(val)
                dump = dump or a == "-t"
        elif a.startswith("-v") and len(a) > 2:
            fmt = a[2:]
        elif a.startswith("-"):
            pass
        else:
            specs.append(a)
        i += 1
    if clear:
        p.model.logcat_clear()
        return 0
    keep = _filter(specs, silent)
    rows = [r for r in p.model.logcat_entries() if keep(r[2], r[1])]
    if tail is not None:
        rows = rows[-tail:]
    yield out("--------- beginning of main\n")
    yield out("".join(_format(r, fmt) + "\n" for r in rows))
    if dump:
        return 0
    seen = p.model.events.last_seq
    while True:  # follow mode: stream new events until the client leaves
        p.check_cancel()
        p.cancel_event.wait(0.2)
        p.check_cancel()
        new = p.model.events.list(since=seen)
        seen = p.model.events.last_seq
        for ev in new:
            row = (ev.time, "I", "VirtualPhone", "", 1000, ev)
            if keep("VirtualPhone", "I"):
                yield out(_format(row, fmt if fmt != "threadtime" else "threadtime") + "\n")


# -- misc ----------------------------------------------------------------------------------------


@command("ime")
def ime(p: Proc) -> Gen:
    args = p.argv[1:]
    if args[:1] == ["list"]:
        yield out("com.android.inputmethod.latin/.LatinIME\n")
        return 0
    if args[:1] in (["set"], ["enable"], ["disable"]) and len(args) > 1:
        yield out(f"Input method {args[1]} selected for user #0\n" if args[0] == "set" else "")
        return 0
    yield out("ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n"
              "  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n")
    return 0


@command("pidof")
def pidof(p: Proc) -> Gen:
    names = p.argv[1:]
    pids = []
    with p.model.lock:
        for n in names:
            if n in p.model.running:
                pids.append(str(p.model.running[n]))
    if not pids:
        return 1
    yield out(" ".join(pids) + "\n")
    return 0


@command("ps")
def ps(p: Proc) -> Gen:
    rows = ["USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME",
            "root             1     0   10918552  11520 0                   0 S init",
            "shell         4100     1   10772532   3584 0                   0 S adbd"]
    with p.model.lock:
        running = sorted(p.model.running.items(), key=lambda kv: kv[1])
    for name, pid in running:
        rows.append(f"u0_a123      {pid:5d}   700   14929396 112640 0                   0 S "
                    f"{name}")
    yield out("".join(r + "\n" for r in rows))
    return 0
