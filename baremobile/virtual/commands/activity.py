"""``am``, ``monkey``, ``cmd`` and ``svc``: starting apps, sending intents, reaching the
binder services from the shell.

Outputs follow ``ActivityManagerShellCommand``, ``Intent.toString()``, and the ``monkey``
wrapper script plus ``Monkey.java`` (AOSP). Intents and packages: :mod:`.intents`.
"""

from __future__ import annotations

from baremobile.virtual.commands.binder import binder_tail, java_exception
from baremobile.virtual.commands.intents import (
    ACTION_MAIN,
    CATEGORY_LAUNCHER,
    FLAG_ACTIVITY_NEW_TASK,
    FLAG_RECEIVER_FROM_SHELL,
    IntentError,
    StartOptions,
    packages,
    parse_intent,
    qualify,
    resolve,
    short_component,
)
from baremobile.virtual.commands.registry import COMMANDS, command
from baremobile.virtual.shell.process import Gen, Proc, err, out

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


def _am_start(p: Proc, args: list[str]) -> Gen:
    opts = StartOptions()
    try:
        it = parse_intent(args, opts)
    except (IntentError, ValueError) as exc:
        yield _am_exception("start", str(exc))
        return 255
    model = p.model
    target = resolve(model, it)
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
    recorded = model.screens.recorded_intent({
        "action": it.action, "data": it.data, "package": it.package,
        "component": f"{it.component[0]}/{it.component[1]}" if it.component else None,
        "categories": sorted(it.categories)})
    if recorded:  # a recorded scenario played the recording's rule for this intent
        started = tuple(model.screens.current())
    elif target == "home":
        model.screens.key(3)
        started = tuple(model.screens.current())
    elif target == "view":
        handled = model.screens.view(it.data)
        if handled is None:
            yield report(f"Error: Activity not started, unable to resolve {it}\n")
            return 0
        started = tuple(model.screens.current())
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
            started = tuple(before)
        elif (model.screens.launch(pkg, cls, data=it.data) if it.data is not None
              else model.screens.launch(pkg, cls)):
            started = tuple(model.screens.current())
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
    p.model.force_stop(names[0])  # its process and its activities (the launcher shows)
    return 0


def _am_broadcast(p: Proc, args: list[str]) -> Gen:
    try:
        it = parse_intent(args, StartOptions())
    except (IntentError, ValueError) as exc:
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
        except (IntentError, ValueError) as exc:
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
            f"  {s}\n" for s in sorted([*_CMD_SERVICES, "statusbar", "uimode", "power",
                                        "clipboard"])))
        return 0
    target = _CMD_SERVICES.get(service)
    if target is not None:
        sub = p.with_argv([target, *rest])
        return (yield from COMMANDS[target](sub))
    if service == "statusbar" and rest:  # StatusBarShellCommand: the shade opens or closes
        p.model.screens.statusbar(rest[0])
        return 0
    if service in ("statusbar", "uimode", "power", "wifi", "connectivity", "notification",
                   "overlay", "media_session", "audio", "role", "jobscheduler"):
        return 0
    if service == "clipboard":
        # ClipboardService implements no shell command: Binder.onShellCommand's default
        # answers on the error stream and reports success (AOSP, every release so far)
        yield err("No shell command implementation.\n")
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
