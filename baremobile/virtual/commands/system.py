"""System state: ``getprop``/``setprop``, ``settings``, ``wm``, ``ime``, ``pidof``, ``ps``,
``service`` (``dumpsys`` is in :mod:`.dumpsys`, ``logcat`` in :mod:`.logcat`)."""

from __future__ import annotations

from collections.abc import Generator

from baremobile.virtual.commands import surfaceflinger
from baremobile.virtual.commands.binder import binder_tail, java_exception
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
            allowed = _VALIDATED.get((ns, key))
            if allowed is not None and args[3] not in allowed:
                yield err(java_exception("put", "java.lang.IllegalArgumentException: Invalid "
                                         f"value: {args[3]} for setting: {key}", _SETTINGS_TAIL))
                return 255
            table[key] = args[3]
        elif verb == "delete":
            yield out(f"Deleted {1 if table.pop(key, None) is not None else 0} rows\n")
    if ns == "system" and key in ("accelerometer_rotation", "user_rotation"):
        p.model.apply_rotation()  # WindowManager observes both (DisplayRotation)
    return 0


#: settings whose validators (SettingsValidators) reject other values
_VALIDATED = {("system", "accelerometer_rotation"): ("0", "1"),
              ("system", "user_rotation"): ("0", "1", "2", "3")}
_SETTINGS_TAIL = [
    "com.android.providers.settings.SettingsProvider.validateSystemSettingValue("
    "SettingsProvider.java:2410)",
    "com.android.providers.settings.SettingsProvider.mutateSystemSetting("
    "SettingsProvider.java:2003)",
    "com.android.providers.settings.SettingsProvider.insertSystemSetting("
    "SettingsProvider.java:1960)",
    "com.android.providers.settings.SettingsService$MyShellCommand.putForUser("
    "SettingsService.java:383)",
    "com.android.providers.settings.SettingsService$MyShellCommand.onCommand("
    "SettingsService.java:279)",
    *binder_tail("com.android.providers.settings.SettingsService", "SettingsService.java", 49,
                 "android.os.Binder", 1068)[:2],
]


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
    if sub == "user-rotation" and p.api_level >= 29:
        return (yield from _user_rotation(p, args[1:]))
    if sub in ("dismiss-keyguard", "overscan", "scaling", "fixed-to-user-rotation",
               "set-ignore-orientation-request"):
        return 0
    yield err(f"Unknown command: {sub}\n")
    return 255


def _user_rotation(p: Proc, args: list[str]) -> Gen:
    """``wm user-rotation [-d DISPLAY_ID] [free|lock [ROTATION]]``
    (``WindowManagerShellCommand.runDisplayUserRotation``): thaw or freeze the default
    display's rotation, which writes the two settings WindowManager reads."""
    if args[:1] == ["-d"]:
        args = args[2:]
    system = p.model.settings["system"]
    if not args:
        if system.get("accelerometer_rotation", "1") != "0":
            yield out("free\n")
        else:
            yield out(f"lock {system.get('user_rotation', '0')}\n")
        return 0
    if args[0] == "free":
        with p.model.lock:
            system["accelerometer_rotation"] = "1"
    elif args[0] != "lock":
        yield err("Error: argument needs to be either -d, free or lock.\n")
        return 255
    else:
        rotation = p.model.surface_rotation()  # what the display shows now
        if len(args) > 1:
            try:
                rotation = int(args[1])
            except ValueError:
                yield err(f"Error: For input string: \"{args[1]}\"\n")
                return 255
            if not 0 <= rotation <= 3:
                yield err(f"Error: Rotation value must be within [0, 3] range: {rotation}\n")
                return 255
        with p.model.lock:
            system["accelerometer_rotation"] = "0"
            system["user_rotation"] = str(rotation)
    p.model.apply_rotation()
    return 0


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
    """``ps``: toybox's ``USER PID PPID VSZ RSS WCHAN ADDR S NAME`` (``toys/posix/ps.c``:
    columns padded, wider values overflowing them) — or, on a toolbox profile, toolbox's
    (``system/core/toolbox/ps.c``: ``VSIZE … PC`` and an unnamed state column before
    ``NAME``), which takes any argument that is not an option for a name filter: ``ps -A``
    prints the header alone."""
    with p.model.lock:
        running = sorted(p.model.running.items(), key=lambda kv: kv[1])
    procs = [("root", 1, 0, 10918552, 11520, "init"), ("shell", 4100, 1, 10772532, 3584, "adbd"),
             *(("u0_a123", pid, 700, 14929396, 112640, name) for name, pid in running)]
    if p.model.profile.toolbox:
        names = [a for a in p.argv[1:] if not a.startswith("-") or a in ("-A", "-e")]
        if names:  # toolbox: the first non-option argument filters by name
            procs = [r for r in procs if r[5] == names[0]]
        rows = ["USER      PID   PPID  VSIZE  RSS   WCHAN              PC  NAME"]
        rows += [f"{u:<9} {pid:<5} {ppid:<5} {vsz:<6} {rss:<5} "
                 f"{'SyS_epoll_':>10} {0:016x} S {name}" for u, pid, ppid, vsz, rss, name in procs]
    else:
        rows = ["USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME"]
        rows += [f"{u:<12} {pid:>5} {ppid:>5} {vsz:>7} {rss:>6} {'0':<16} {'0':>4} S {name}"
                 for u, pid, ppid, vsz, rss, name in procs]
    yield out("".join(r + "\n" for r in rows))
    return 0


# -- service (frameworks/native/cmds/service) --------------------------------------------------

#: the services ``service call`` reaches here, and what their transaction codes do
#: (``IStatusBarService.aidl``: 1 expandNotificationsPanel, 2 collapsePanels, Android 4.2+)
_STATUSBAR_CALLS = {1: "expand-notifications", 2: "collapse"}


@command("service")
def service(p: Proc) -> Gen:
    """``service call SERVICE CODE`` (the statusbar's panels, SurfaceFlinger's frame count:
    :mod:`.surfaceflinger`), ``service check``; a reply prints as ``service`` prints a
    ``Parcel``."""
    args = p.argv[1:]
    if len(args) >= 2 and args[0] in ("call", "check"):
        name = args[1]
        known = name in ("statusbar", "activity", "package", "window", "input", "power",
                         "SurfaceFlinger")
        if args[0] == "check":
            yield out(f"Service {name}: {'found' if known else 'not found'}\n")
            return 0
        if not known:
            yield err(f"service: Service {name} does not exist\n")
            return 10
        code = int(args[2]) if len(args) > 2 and args[2].isdigit() else 0
        if name == "SurfaceFlinger":  # the display's frame count, and nothing else
            yield out(surfaceflinger.transact(p, code))
            return 0
        if name == "statusbar" and code in _STATUSBAR_CALLS:
            p.model.screens.statusbar(_STATUSBAR_CALLS[code])
        yield out("Result: Parcel(00000000    '....')\n")
        return 0
    yield err("usage: service [-h|-?]\n       service list\n       service check SERVICE\n"
              "       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR ] ...\n")
    return 0 if args and args[0] in ("-h", "-?") else 10
