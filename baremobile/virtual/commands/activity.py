"""``am``, ``pm``, ``monkey`` and ``cmd``: starting apps and listing packages.

Outputs follow ``ActivityManagerShellCommand``, ``Intent.toString()``, the ``monkey``
wrapper script plus ``Monkey.java``, and ``PackageManagerShellCommand`` (AOSP).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from baremobile.virtual.commands.binder import binder_tail, java_exception
from baremobile.virtual.commands.registry import COMMANDS, command
from baremobile.virtual.shell.process import Proc, err, out

Gen = Generator[tuple[int, bytes], None, int]

ACTION_MAIN = "android.intent.action.MAIN"
ACTION_VIEW = "android.intent.action.VIEW"
CATEGORY_LAUNCHER = "android.intent.category.LAUNCHER"
CATEGORY_HOME = "android.intent.category.HOME"
FLAG_ACTIVITY_NEW_TASK = 0x10000000
FLAG_RECEIVER_FROM_SHELL = 0x00400000

#: packages every phone has besides the scenario's apps (no launcher activity)
BASE_PACKAGES = (
    "android",
    "com.android.shell",
    "com.android.systemui",
    "com.android.providers.settings",
    "com.android.inputmethod.latin",
    "com.android.packageinstaller",
    "com.android.webview",
)

_ACTIVITY_FLAGS = {
    "--activity-brought-to-front": 0x00400000,
    "--activity-clear-top": 0x04000000,
    "--activity-clear-when-task-reset": 0x00080000,
    "--activity-exclude-from-recents": 0x00800000,
    "--activity-launched-from-history": 0x00100000,
    "--activity-multiple-task": 0x08000000,
    "--activity-no-animation": 0x00010000,
    "--activity-no-history": 0x40000000,
    "--activity-no-user-action": 0x00040000,
    "--activity-previous-is-top": 0x01000000,
    "--activity-reorder-to-front": 0x00020000,
    "--activity-reset-task-if-needed": 0x00200000,
    "--activity-single-top": 0x20000000,
    "--activity-clear-task": 0x00008000,
    "--activity-task-on-home": 0x00004000,
    "--activity-new-task": FLAG_ACTIVITY_NEW_TASK,
    "--receiver-registered-only": 0x40000000,
    "--receiver-replace-pending": 0x20000000,
    "--receiver-foreground": 0x10000000,
    "--grant-read-uri-permission": 0x1,
    "--grant-write-uri-permission": 0x2,
}

_SETTINGS_ACTIONS = re.compile(r"android\.settings\.[A-Z_]+\Z")


# -- apps ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Package:
    name: str
    system: bool
    launcher: str | None
    version_name: str = "1.0"
    version_code: int = 1


def packages(model: Any) -> list[Package]:
    """Installed packages: the scenario's apps, then the base system packages."""
    result = [Package(a.package, a.system, a.launcher_activity,
                      getattr(a, "version_name", "1.0"), getattr(a, "version_code", 1))
              for a in model.screens.apps()]
    known = {p.name for p in result}
    result += [Package(n, True, None) for n in BASE_PACKAGES if n not in known]
    return result


def find_package(model: Any, name: str) -> Package | None:
    return next((p for p in packages(model) if p.name == name), None)


def apk_path(pkg: Package) -> str:
    """Where ``pm path`` says the APK is (stable per package)."""
    if pkg.system:
        leaf = pkg.name.rsplit(".", 1)[-1].capitalize()
        if pkg.name == "android":
            return "/system/framework/framework-res.apk"
        return f"/system/priv-app/{leaf}/{leaf}.apk"
    h = hashlib.sha256(pkg.name.encode()).digest()
    a = base64.urlsafe_b64encode(h[:16]).decode().rstrip("=")[:22]
    b = base64.urlsafe_b64encode(h[16:]).decode().rstrip("=")[:22]
    return f"/data/app/~~{a}==/{pkg.name}-{b}==/base.apk"


def qualify(package: str, cls: str) -> str:
    """``.Settings`` -> ``com.android.settings.Settings``."""
    if cls.startswith("."):
        return package + cls
    if "." not in cls:
        return f"{package}.{cls}"
    return cls


def short_component(package: str, cls: str) -> str:
    """``ComponentName.flattenToShortString``."""
    if cls.startswith(package + ".") and len(cls) > len(package) + 1:
        return f"{package}/{cls[len(package):]}"
    return f"{package}/{cls}"


# -- intents ---------------------------------------------------------------------------


@dataclass
class Intent:
    action: str | None = None
    categories: list[str] = field(default_factory=list)
    data: str | None = None
    mime: str | None = None
    flags: int = 0
    package: str | None = None
    component: tuple[str, str] | None = None  # (package, fully qualified class)
    extras: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        b: list[str] = []
        if self.action:
            b.append(f"act={self.action}")
        if self.categories:
            b.append("cat=[" + ",".join(self.categories) + "]")
        if self.data:
            b.append(f"dat={safe_uri(self.data)}")
        if self.mime:
            b.append(f"typ={self.mime}")
        if self.flags:
            b.append(f"flg=0x{self.flags:x}")
        if self.package:
            b.append(f"pkg={self.package}")
        if self.component:
            b.append("cmp=" + short_component(*self.component))
        if self.extras:
            b.append("(has extras)")
        return "Intent { " + " ".join(b) + " }"


def safe_uri(uri: str) -> str:
    """``Uri.toSafeString``: hide paths of web URIs and digits of tel:/mailto: ..."""
    scheme, colon, ssp = uri.partition(":")
    if not colon:
        return uri
    low = scheme.lower()
    if low in ("tel", "sip", "sms", "smsto", "mailto", "nfc"):
        return scheme + ":" + "".join(c if c in "-@." else "x" for c in ssp)
    if low in ("http", "https", "ftp", "rtsp"):
        m = re.match(r"//([^/?#:]*)(:\d+)?", ssp)
        host = m.group(1) if m else ""
        port = m.group(2) or "" if m else ""
        return f"{scheme}://{host}{port}/..."
    ssp = ssp.split("#", 1)[0]
    return f"{scheme}:{ssp}"


class _IntentError(Exception):
    pass


@dataclass
class StartOptions:
    wait: bool = False
    stop: bool = False
    repeat: int = 1
    user: str = "current"


def parse_intent(args: list[str], opts: StartOptions | None = None) -> Intent:
    """``Intent.parseCommandArgs`` (the subset agents use)."""
    it = Intent()
    has_info = False
    i = 0

    def value() -> str:
        nonlocal i
        i += 1
        if i >= len(args):
            raise _IntentError(f"Argument expected after \"{args[i - 1]}\"")
        return args[i]

    while i < len(args) and args[i].startswith("-"):
        a = args[i]
        if a == "-a":
            it.action = value()
            has_info = True
        elif a == "-d":
            it.data = value()
            has_info = True
        elif a == "-t":
            it.mime = value()
            has_info = True
        elif a == "-c":
            it.categories.append(value())
            has_info = True
        elif a == "-n":
            comp = value()
            pkg, _, cls = comp.partition("/")
            if not cls:
                raise _IntentError(f"Bad component name: {comp}")
            it.component = (pkg, qualify(pkg, cls))
            has_info = True
        elif a == "-p":
            it.package = value()
            has_info = True
        elif a == "-f":
            raw = value()
            it.flags |= int(raw, 0)
            has_info = True
        elif a in ("-e", "--es", "--ez", "--ei", "--el", "--ef", "--eu", "--ecn", "--eia",
                   "--ela", "--efa", "--esa", "--esal", "--eial", "--elal", "--efal", "--ed",
                   "--eda", "--edal"):
            key = value()
            it.extras[key] = value()
            has_info = True
        elif a in ("--esn",):
            it.extras[value()] = ""
            has_info = True
        elif a in _ACTIVITY_FLAGS:
            it.flags |= _ACTIVITY_FLAGS[a]
            has_info = True
        elif a in ("--include-stopped-packages", "--exclude-stopped-packages",
                   "--debug-log-resolution"):
            pass
        elif opts is not None and a == "-W":
            opts.wait = True
        elif opts is not None and a == "-S":
            opts.stop = True
        elif opts is not None and a == "-R":
            opts.repeat = max(1, int(value()))
        elif opts is not None and a == "--user":
            opts.user = value()
        elif opts is not None and a in ("-D", "-N", "--track-allocation", "--task-overlay",
                                        "--lock-task", "--splashscreen-show-icon"):
            pass
        elif opts is not None and a in ("-P", "--start-profiler", "--sampling", "--attach-agent",
                                        "--display", "--windowingMode", "--activityType",
                                        "--task", "--receiver-permission", "--streaming"):
            value()
        else:
            raise _IntentError(f"Unknown option: {a}")
        i += 1
    rest = args[i:]
    base: Intent | None = None
    if rest:
        arg = rest[0]
        if ":" in arg:
            base = Intent(action=ACTION_VIEW, data=arg)
        elif "/" in arg:
            pkg, _, cls = arg.partition("/")
            base = Intent(ACTION_MAIN, [CATEGORY_LAUNCHER], component=(pkg, qualify(pkg, cls)))
        else:
            base = Intent(ACTION_MAIN, [CATEGORY_LAUNCHER], package=arg)
    if base is not None:
        if it.action is not None:
            base.categories = []
        it.action = it.action or base.action
        it.data = it.data or base.data
        it.categories = it.categories or base.categories
        it.package = it.package or base.package
        it.component = base.component or it.component
        has_info = True
    if not has_info:
        raise _IntentError("No intent supplied")
    return it


# -- am ----------------------------------------------------------------------------------

_AM_TAIL = binder_tail("com.android.server.am.ActivityManagerService",
                       "ActivityManagerService.java", 10110,
                       "android.app.IActivityManager$Stub", 2730)


def _am_exception(cmd: str, message: str) -> tuple[int, bytes]:
    frames = ["android.content.Intent.parseCommandArgs(Intent.java:8554)",
              "com.android.server.am.ActivityManagerShellCommand$1.next("
              "ActivityManagerShellCommand.java:444)",
              "com.android.server.am.ActivityManagerShellCommand.makeIntent("
              "ActivityManagerShellCommand.java:438)",
              "com.android.server.am.ActivityManagerShellCommand.onCommand("
              "ActivityManagerShellCommand.java:262)", *_AM_TAIL]
    return err(java_exception(cmd, f"java.lang.IllegalArgumentException: {message}", frames))


def _resolve(model: Any, it: Intent) -> tuple[str, str | None] | str | None:
    """What would handle ``it``: (package, activity), "home", "view:<pkg>", or None."""
    installed = {p.name: p for p in packages(model)}
    if it.component is not None:
        pkg, cls = it.component
        return (pkg, cls) if pkg in installed else ("", cls)
    if CATEGORY_HOME in it.categories:
        return "home"
    if it.data is not None:
        return "view"
    if it.package is not None:
        p = installed.get(it.package)
        if p is None or (p.launcher is None and it.action in (ACTION_MAIN, None)):
            return None
        return (p.name, p.launcher)
    if it.action and _SETTINGS_ACTIONS.match(it.action) and "com.android.settings" in installed:
        return ("com.android.settings", installed["com.android.settings"].launcher)
    return None


def _am_start(p: Proc, args: list[str]) -> Gen:
    opts = StartOptions()
    try:
        it = parse_intent(args, opts)
    except (_IntentError, ValueError) as exc:
        yield _am_exception("start", str(exc))
        return 255
    model = p.model
    target = _resolve(model, it)
    if opts.stop and isinstance(target, tuple) and target[0]:
        yield out(f"Stopping: {target[0]}\n")
        model.force_stop(target[0])
        p.sleep(0.25)
    yield out(f"Starting: {it}\n")
    it.flags |= FLAG_ACTIVITY_NEW_TASK
    report = out if opts.wait else err
    started: tuple[str, str] | None = None
    warning = None
    before = model.screens.current()
    if target == "home":
        model.screens.key(3)
        started = tuple(model.screens.current())  # type: ignore[assignment]
    elif target == "view":
        handled = model.screens.view(it.data)
        if handled is None:
            yield report(f"Error: Activity not started, unable to resolve {it}\n")
            return 0
        started = tuple(model.screens.current())  # type: ignore[assignment]
    elif isinstance(target, tuple):
        pkg, cls = target
        if not pkg:
            yield report("Error type 3\n")
            yield report(f"Error: Activity class {{{it.component[0] if it.component else ''}/"
                         f"{cls}}} does not exist.\n")
            return 0
        if (before[0] == pkg and it.component is None and not opts.stop
                and it.action in (ACTION_MAIN, None)):
            warning = ("Warning: Activity not started, its current task has been brought to "
                       "the front")
            started = tuple(before)  # type: ignore[assignment]
        elif model.screens.launch(pkg, cls):
            started = tuple(model.screens.current())  # type: ignore[assignment]
        else:
            comp = it.component or (pkg, cls or "")
            yield report("Error type 3\n")
            yield report(f"Error: Activity class {{{comp[0]}/{comp[1]}}} does not exist.\n")
            return 0
    else:
        yield report(f"Error: Activity not started, unable to resolve {it}\n")
        return 0
    assert started is not None
    if warning:
        yield report(warning + "\n")
    else:
        model.events.append("start", package=started[0], activity=started[1], action=it.action,
                            data=it.data)
    was_running = started[0] in model.running
    model.mark_running(started[0])
    if opts.wait:
        state = "HOT" if warning else ("WARM" if was_running else "COLD")
        total = 0 if warning else (180 if was_running else 523)
        yield out("Status: ok\n")
        yield out(f"LaunchState: {state}\n")
        yield out(f"Activity: {short_component(*started)}\n")
        if not warning:
            yield out(f"TotalTime: {total}\n")
        yield out(f"WaitTime: {total + 7}\n")
        yield out("Complete\n")
    return 0


def _am_force_stop(p: Proc, args: list[str]) -> Gen:
    names = [a for a in args if not a.startswith("--")]
    if "--user" in args:
        names = [a for i, a in enumerate(args) if not a.startswith("--")
                 and (i == 0 or args[i - 1] != "--user")]
    if not names:
        yield _am_exception("force-stop", "Argument expected after \"force-stop\"")
        return 255
    pkg = names[0]
    p.model.force_stop(pkg)
    try:
        if p.model.screens.current()[0] == pkg:
            p.model.screens.key(3)
    except Exception:  # noqa: BLE001 - a screen model without a current app
        pass
    return 0


def _am_broadcast(p: Proc, args: list[str]) -> Gen:
    try:
        it = parse_intent(args, StartOptions())
    except (_IntentError, ValueError) as exc:
        yield _am_exception("broadcast", str(exc))
        return 255
    it.flags |= FLAG_RECEIVER_FROM_SHELL
    yield out(f"Broadcasting: {it}\n")
    yield out("Broadcast completed: result=0\n")
    return 0


_AM_HELP = """Activity manager (activity) commands:
  help
      Print this help text.
  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>]
          [--sampling INTERVAL] [--streaming] [-R COUNT] [-S]
          [--track-allocation] [--user <USER_ID> | current] <INTENT>
      Start an Activity.  Options are:
      -W: wait for launch to complete
      -S: force stop the target app before starting the activity
  start-service [--user <USER_ID> | current] <INTENT>
      Start a Service.
  broadcast [--user <USER_ID> | all | current] <INTENT>
      Send a broadcast Intent.
  force-stop [--user <USER_ID> | all | current] <PACKAGE>
      Completely stop the given application package.
  kill [--user <USER_ID> | all | current] <PACKAGE>
      Kill all background processes associated with the given application.
  get-current-user
      Returns id of the current foreground user.
"""


@command("am")
def am(p: Proc) -> Gen:
    args = p.argv[1:]
    if not args or args[0] in ("help", "-h"):
        yield out(_AM_HELP)
        return 0
    sub, rest = args[0], args[1:]
    if sub in ("start", "start-activity"):
        return (yield from _am_start(p, rest))
    if sub == "force-stop":
        return (yield from _am_force_stop(p, rest))
    if sub in ("broadcast", "send-broadcast"):
        return (yield from _am_broadcast(p, rest))
    if sub in ("start-service", "startservice", "start-foreground-service"):
        try:
            it = parse_intent(rest, StartOptions())
        except (_IntentError, ValueError) as exc:
            yield _am_exception(sub, str(exc))
            return 255
        yield out(f"Starting service: {it}\n")
        yield err("Error: Not found; no service started.\n")
        return 255
    if sub in ("kill", "kill-all", "stack", "task", "idle-maintenance", "make-uid-idle",
               "set-debug-app", "clear-debug-app", "set-inactive", "send-trim-memory"):
        if sub == "kill" and rest:
            p.model.force_stop(rest[-1])
        return 0
    if sub == "get-current-user":
        yield out("0\n")
        return 0
    if sub == "get-config":
        w, h = p.model.display_size()
        yield out(f"config: en-rUS-ldltr-w{w * 160 // 420}dp-h{h * 160 // 420}dp-port-"
                  "notnight-xxhdpi-finger-keysexposed-nokeys-navhidden-nonav-v35\n")
        return 0
    yield err(f"Unknown command: {sub}\n")
    return 255


# -- pm ----------------------------------------------------------------------------------


def _pm_list(p: Proc, args: list[str]) -> Gen:
    if not args or args[0] != "packages":
        what = args[0] if args else ""
        if what in ("features", "libraries", "users", "permission-groups"):
            if what == "users":
                yield out("Users:\n\tUserInfo{0:Owner:c13} running\n")
            return 0
        yield err(f"Error: unknown list type '{what}'\n")
        return 255
    flags = set()
    filt = None
    it = iter(args[1:])
    for a in it:
        if a == "--user":
            next(it, None)
        elif a.startswith("-"):
            flags.update(a[1:] if not a.startswith("--") else [a])
        else:
            filt = a
    rows: list[str] = []
    for pkg in packages(p.model):
        if "3" in flags and pkg.system:
            continue
        if "s" in flags and not pkg.system:
            continue
        if "d" in flags:
            continue
        if filt is not None and filt not in pkg.name:
            continue
        line = "package:"
        if "f" in flags:
            line += apk_path(pkg) + "="
        line += pkg.name
        if "U" in flags:
            line += f" uid:{10000 + sum(map(ord, pkg.name)) % 900 if not pkg.system else 1000}"
        if "i" in flags:
            line += "  installer=null" if pkg.system else "  installer=com.android.vending"
        rows.append(line)
    yield out("".join(r + "\n" for r in rows))
    return 0


def _pm_resolve(p: Proc, args: list[str]) -> Gen:
    brief = "--brief" in args
    try:
        it = parse_intent([a for a in args if a not in ("--brief", "--components")],
                          StartOptions())
    except (_IntentError, ValueError) as exc:
        yield err(f"Error: {exc}\n")
        return 255
    target = _resolve(p.model, it)
    if not isinstance(target, tuple) or not target[0] or not target[1]:
        yield out("No activity found\n")
        return 0
    comp = short_component(target[0], qualify(target[0], target[1]))
    if brief or "--components" in args:
        if brief:
            yield out("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 "
                      "isDefault=true\n")
        yield out(comp + "\n")
    else:
        yield out(f"Activity Resolver Table:\n  {comp}\n")
    return 0


_PM_TAIL = binder_tail("com.android.server.pm.PackageManagerService$IPackageManagerImpl",
                       "PackageManagerService.java", 6891,
                       "android.content.pm.IPackageManager$Stub", 4341)


@command("pm")
def pm(p: Proc) -> Gen:
    args = p.argv[1:]
    if not args or args[0] in ("help", "-h"):
        yield out("Package manager (package) commands:\n  help\n    Print this help text.\n"
                  "  path [--user USER_ID] PACKAGE\n  list packages [-f] [-d] [-e] [-s] [-3] "
                  "[-i] [-l] [-u] [-U] [--user USER_ID] [FILTER]\n  clear [--user USER_ID] "
                  "PACKAGE\n  grant [--user USER_ID] PACKAGE PERMISSION\n  revoke [--user "
                  "USER_ID] PACKAGE PERMISSION\n  resolve-activity [--brief] INTENT\n")
        return 0
    sub, rest = args[0], [a for a in args[1:]]
    if "--user" in rest:
        k = rest.index("--user")
        del rest[k:k + 2]
    if sub == "list":
        return (yield from _pm_list(p, rest))
    if sub == "path":
        pkg = find_package(p.model, rest[0]) if rest else None
        if pkg is None:
            return 1
        yield out(f"package:{apk_path(pkg)}\n")
        return 0
    if sub == "clear":
        if rest and find_package(p.model, rest[0]) is not None:
            p.model.force_stop(rest[0])
            yield out("Success\n")
            return 0
        yield out("Failed\n")
        return 255
    if sub in ("grant", "revoke"):
        if len(rest) < 2:
            yield err(java_exception(sub, "java.lang.IllegalArgumentException: Argument "
                                     f"expected after \"{args[-1]}\"", _PM_TAIL))
            return 255
        if find_package(p.model, rest[0]) is None:
            yield err(java_exception(sub, "java.lang.IllegalArgumentException: Unknown "
                                     f"package: {rest[0]}", _PM_TAIL))
            return 255
        perms = p.model.granted.setdefault(rest[0], set())
        (perms.add if sub == "grant" else perms.discard)(rest[1])
        return 0
    if sub == "resolve-activity":
        return (yield from _pm_resolve(p, rest))
    if sub in ("install", "install-streaming"):
        yield out("Success\n")
        return 0
    if sub in ("enable", "disable", "disable-user", "hide", "unhide", "trim-caches",
               "set-install-location", "compile", "reset-permissions"):
        if rest and sub in ("enable", "disable", "disable-user"):
            state = "enabled" if sub == "enable" else "disabled-user" if sub.endswith(
                "user") else "disabled"
            yield out(f"Package {rest[-1]} new state: {state}\n")
        return 0
    if sub == "uninstall":
        yield out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
        return 1
    yield err(f"Unknown command: {sub}\n")
    return 255


# -- monkey --------------------------------------------------------------------------------


@command("monkey")
def monkey(p: Proc) -> Gen:
    """The ``monkey`` wrapper script and ``Monkey.java`` (random events not generated)."""
    args = p.argv[1:]
    for a in args:
        yield out(f"  bash arg: {a}\n")
    yield err("args: [" + ", ".join(args) + "]\n")
    for a in args:
        yield err(f" arg: \"{a}\"\n")
    started = p.model.clock.monotonic()
    pkgs: list[str] = []
    cats: list[str] = []
    verbose = 0
    count: int | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-p", "-c", "-s", "--throttle", "--pct-touch", "--pct-motion", "--pct-syskeys",
                 "--pct-appswitch", "--pct-anyevent", "--pct-nav", "--pct-majornav",
                 "--pct-trackball", "--pct-rotation", "--pct-flip", "--pct-pinchzoom",
                 "--pkg-blacklist-file", "--pkg-whitelist-file", "-f", "--setup", "--port"):
            if i + 1 >= len(args):
                yield err(f"** Error: Missing argument for option: {a}\n")
                return 255
            data = args[i + 1]
            if a in ("-p", "-c", "-f", "--setup", "--pkg-blacklist-file",
                     "--pkg-whitelist-file"):
                yield err(f"data=\"{data}\"\n")
            if a == "-p":
                pkgs.append(data)
            elif a == "-c":
                cats.append(data)
            i += 2
            continue
        if a == "-v":
            verbose += 1
        elif a.startswith("-"):
            if a not in ("--ignore-crashes", "--ignore-timeouts", "--ignore-security-exceptions",
                         "--monitor-native-crashes", "--ignore-native-crashes",
                         "--kill-process-after-error", "--hprof", "--randomize-throttle",
                         "--dbg-no-events", "--wait-dbg"):
                yield err(f"** Error: Unknown option: {a}\n")
                return 255
        else:
            try:
                count = int(a)
            except ValueError:
                yield err("** Error: Count is not a number\n")
                return 255
        i += 1
    if count is None:
        yield err("** Error: Count not specified\n")
        return 255
    cats = cats or [CATEGORY_LAUNCHER, "android.intent.category.MONKEY"]
    if verbose:
        yield out(f":Monkey: seed=0 count={count}\n")
        for pk in pkgs:
            yield out(f":AllowPackage: {pk}\n")
        for c in cats:
            yield out(f":IncludeCategory: {c}\n")
    installed = [pk for pk in packages(p.model) if pk.launcher and CATEGORY_LAUNCHER in cats]
    mains = [pk for pk in installed if not pkgs or pk.name in pkgs]
    if not mains:
        yield out("** No activities found to run, monkey aborted.\n")
        return 252
    target = mains[0]
    if count > 0 and p.model.screens.launch(target.name, target.launcher):
        cur = p.model.screens.current()
        p.model.mark_running(target.name)
        p.model.events.append("start", package=cur[0], activity=cur[1], action=ACTION_MAIN,
                              data=None)
        if verbose:
            comp = short_component(target.name, qualify(target.name, target.launcher or ""))
            yield out(f":Switch: #Intent;action={ACTION_MAIN};category={CATEGORY_LAUNCHER};"
                      f"launchFlags=0x10200000;component={comp};end\n")
            yield out(f"    // Allowing start of Intent {{ act={ACTION_MAIN} "
                      f"cat=[{CATEGORY_LAUNCHER}] cmp={comp} }} in package {target.name}\n")
    yield out(f"Events injected: {count}\n")
    if verbose:
        yield out(":Dropped: keys=0 pointers=0 trackballs=0 flips=0 rotations=0\n")
    elapsed = int((p.model.clock.monotonic() - started) * 1000)
    yield out(f"## Network stats: elapsed time={elapsed}ms (0ms mobile, 0ms wifi, "
              f"{elapsed}ms not connected)\n")
    if verbose:
        yield out("// Monkey finished\n")
    return 0


# -- cmd -----------------------------------------------------------------------------------

_CMD_SERVICES = {"package": "pm", "activity": "am", "input": "input", "window": "wm",
                 "settings": "settings"}


@command("cmd")
def cmd(p: Proc) -> Gen:
    """``cmd SERVICE ...``: the binder shell commands behind am/pm/input/wm/settings."""
    args = p.argv[1:]
    if not args:
        yield err("cmd: No service specified; use -l to list all running services. Use -w to "
                  "start and wait for a service.\n")
        return 20
    service, rest = args[0], args[1:]
    if service == "-l":
        yield out("Currently running services:\n" + "".join(
            f"  {s}\n" for s in sorted([*_CMD_SERVICES, "statusbar", "uimode", "power"])))
        return 0
    target = _CMD_SERVICES.get(service)
    if target is not None:
        sub = p.with_argv([target, *rest])
        return (yield from COMMANDS[target](sub))
    if service in ("statusbar", "uimode", "power", "wifi", "connectivity", "notification",
                   "overlay", "media_session", "audio", "role", "jobscheduler"):
        return 0
    yield err(f"cmd: Can't find service: {service}\n")
    return 20


@command("svc")
def svc(p: Proc) -> Gen:
    args = p.argv[1:]
    if len(args) >= 2 and args[0] in ("wifi", "bluetooth") and args[1] in ("enable", "disable"):
        key = "wifi_on" if args[0] == "wifi" else "bluetooth_on"
        with p.model.lock:
            p.model.settings["global"][key] = "1" if args[1] == "enable" else "0"
        return 0
    if args and args[0] in ("power", "data", "usb", "nfc", "wifi", "bluetooth", "system-server"):
        return 0
    yield out("Available commands:\n    help     Show information about the subcommands\n"
              "    power    Control the power manager\n    data     Control mobile data "
              "connectivity\n    wifi     Control the Wi-Fi manager\n    usb      Control Usb "
              "state\n    nfc      Control NFC functions\n    bluetooth Control Bluetooth "
              "service\n")
    return 0
