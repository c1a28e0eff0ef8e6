"""``pm``: listing and resolving packages, as ``PackageManagerShellCommand`` (AOSP) answers."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from baremobile.virtual.commands.binder import binder_tail, java_exception
from baremobile.virtual.commands.intents import (
    IntentError,
    StartOptions,
    apk_path,
    find_package,
    packages,
    parse_intent,
    qualify,
    resolve,
    short_component,
)
from baremobile.virtual.commands.registry import command
from baremobile.virtual.identity import app_uid
from baremobile.virtual.shell.process import Gen, Proc, decode, err, out

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
            line += f" uid:{app_uid(pkg.name) if not pkg.system else 1000}"
        if "--show-versioncode" in flags and p.api_level >= 28:
            line += f" versionCode:{pkg.version_code}"
        if "i" in flags:
            line += "  installer=null" if pkg.system else "  installer=com.android.vending"
        rows.append(line)
    yield out("".join(r + "\n" for r in rows))
    return 0


def _intent(args: list[str]) -> Generator[tuple[int, bytes], None, Any]:
    """The intent of ``resolve-activity``/``query-activities`` (their flags left out), or
    None after printing pm's error."""
    try:
        return parse_intent([a for a in args if a not in ("--brief", "--components")],
                            StartOptions())
    except (IntentError, ValueError) as exc:
        yield err(f"Error: {exc}\n")
        return None


def _pmresolve(p: Proc, args: list[str]) -> Gen:
    brief = "--brief" in args
    it = yield from _intent(args)
    if it is None:
        return 255
    target = resolve(p.model, it)
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


def _pm_uninstall(p: Proc, args: list[str]) -> Gen:
    """``pm uninstall [-k] [--user USER_ID] [--versionCode V] PACKAGE``: a third-party app
    goes (its process, tasks and APK); a system app cannot be removed (``--user 0`` would
    only hide it for that user, which the virtual phone does not model)."""
    names = []
    it = iter(args)
    user = None
    for a in it:
        if a in ("--user", "--versionCode"):
            v = next(it, None)
            if a == "--user":
                user = v
        elif not a.startswith("-"):
            names.append(a)
    if not names:
        yield err("Error: package name not specified\n")
        return 1
    pkg = find_package(p.model, names[0])
    if pkg is not None and not pkg.system:
        path = apk_path(pkg)
        p.model.force_stop(pkg.name)
        uninstall = getattr(p.model.screens, "uninstall", None)
        if uninstall is not None:
            uninstall(pkg.name)
        p.model.fs.uninstall(path)
        yield out("Success\n")
        return 0
    if pkg is None and user is not None:
        yield out(f"Failure [not installed for {user}]\n")
    else:
        yield out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
    return 1


def _pmquery(p: Proc, args: list[str]) -> Gen:
    """``query-activities [--brief|--components] INTENT``: every activity the intent
    resolves to (``PackageManagerShellCommand.runQueryIntentActivities``); the launcher
    intent lists every app with a launcher activity."""
    brief, components = "--brief" in args, "--components" in args
    it = yield from _intent(args)
    if it is None:
        return 255
    if it.action == "android.intent.action.MAIN" and it.categories == [
            "android.intent.category.LAUNCHER"]:
        found = [(pk.name, qualify(pk.name, pk.launcher)) for pk in packages(p.model)
                 if pk.launcher]
    else:
        target = resolve(p.model, it)
        found = [(target[0], qualify(target[0], target[1]))] if isinstance(
            target, tuple) and target[0] and target[1] else []
    if not found:
        yield out("No activities found\n")
        return 0
    if not (brief or components):
        yield out(f"{len(found)} activities found:\n")
    for k, (pkg, cls) in enumerate(found):
        comp = short_component(pkg, cls)
        if components:
            yield out(comp + "\n")
        elif brief:
            yield out(f"  Activity #{k}:\n    priority=0 preferredOrder=0 match=0x108000 "
                      f"specificIndex=-1 isDefault=false\n    {comp}\n")
        else:
            yield out(f"  Activity #{k}:\n    ActivityInfo:\n      name={cls}\n"
                      f"      packageName={pkg}\n      labelRes=0x7f010000 "
                      "nonLocalizedLabel=null icon=0x7f020000 banner=0x0\n")
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
        return (yield from _pmresolve(p, rest))
    if sub == "query-activities":
        return (yield from _pmquery(p, rest))
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
        return (yield from _pm_uninstall(p, args[1:]))
    yield err(f"Unknown command: {sub}\n")
    return 255


# -- run-as --------------------------------------------------------------------------------

#: the C library's ``error()`` prefix: run-as prints every refusal as ``run-as: …``
_RUN_AS = "run-as: "


@command("run-as")
def run_as(p: Proc) -> Gen:
    """``run-as PACKAGE [--user N] [COMMAND [ARGS]]``, as AOSP ``system/core/run-as/run-as.cpp``
    does it: only a debuggable application may be entered (``package not debuggable: …``,
    ``unknown package: …``, ``package not an application: …``, each exit status 1); the
    command then runs in the package's data directory (``$HOME``), the shell when none is
    given (reading its script from stdin)."""
    args = p.argv[1:]
    if not args:
        yield err(_RUN_AS + "usage: run-as <package-name> [--user <uid>] <command> [<args>]\n\n")
        return 1
    name, rest = args[0], args[1:]
    user = 0
    if len(rest) >= 2 and rest[0] == "--user":
        try:
            user = int(rest[1])
        except ValueError:
            user = 0
        rest = rest[2:]
        if user < 0:
            yield err(_RUN_AS + f"negative user id: {user}\n")
            return 1
    pkg = find_package(p.model, name)
    if pkg is None:
        yield err(_RUN_AS + f"unknown package: {name}\n")
        return 1
    if pkg.system and pkg.name in ("android",):
        yield err(_RUN_AS + f"package not an application: {name}\n")
        return 1
    if not pkg.debuggable:
        yield err(_RUN_AS + f"package not debuggable: {name}\n")
        return 1
    home = f"/data/user/{user}/{pkg.name}"
    env = {**p.env, "HOME": home, "PATH": "/product/bin:/apex/com.android.runtime/bin:"
           "/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:"
           "/vendor/bin:/vendor/xbin"}
    env.pop("IFS", None)
    with p.fs.acting_as_app(home):  # the app's uid: its data and nothing else of others'
        if rest:
            script = 'cd "$HOME" || exit 1\n"$@"'
            return (yield from p.shell.run_script(script, rest[0], rest, env, p.io))
        script = 'cd "$HOME" || exit 1\n' + decode(p.stdin.read())
        return (yield from p.shell.run_script(script, "sh", [], env, p.io))
