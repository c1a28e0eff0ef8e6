"""``pm``: listing and resolving packages, as ``PackageManagerShellCommand`` (AOSP) answers."""

from __future__ import annotations

import zlib
from collections.abc import Generator
from typing import Any

from baremobile.virtual.apk import read_apk
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
    flags: set[str] = set()
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


def _pm_grant(p: Proc, sub: str, rest: list[str], args: list[str]) -> Gen:
    """``pm grant|revoke PACKAGE PERMISSION``. Android 7+ runs it in the system server
    (``PackageManagerShellCommand.runGrantRevokePermission``): an unknown package throws
    ``IllegalArgumentException("Unknown package: …")``, printed as the release prints a
    shell command's exception (:func:`~.binder.java_exception`). Android ≤ 6 runs
    ``Pm.java``, which catches it: ``Bad argument: java.lang.IllegalArgumentException: …``
    and the usage, exit status 1."""
    old = p.api_level < 24
    if len(rest) < 2:
        if old:
            yield err(f"Error: no {'package' if not rest else 'permission'} specified\n"
                      + _PM_USAGE)
            return 1
        yield err(java_exception(sub, "java.lang.IllegalArgumentException: Argument "
                                 f"expected after \"{args[-1]}\"", _PM_TAIL, p.api_level))
        return 255
    if find_package(p.model, rest[0]) is None:
        thrown = f"java.lang.IllegalArgumentException: Unknown package: {rest[0]}"
        if old:
            yield err(f"Bad argument: {thrown}\n" + _PM_USAGE)
            return 1
        yield err(java_exception(sub, thrown, _PM_TAIL, p.api_level))
        return 255
    perms = p.model.granted.setdefault(rest[0], set())
    (perms.add if sub == "grant" else perms.discard)(rest[1])
    return 0


#: ``Pm.showUsage``'s first lines (Android ≤ 6), what follows its usage errors
_PM_USAGE = ("usage: pm list packages [-f] [-d] [-e] [-s] [-3] [-i] [-u] [--user USER_ID] "
             "[FILTER]\n       pm path PACKAGE\n       pm install [-lrtsfd] [-i PACKAGE] "
             "[--user USER_ID] [PATH]\n       pm uninstall [-k] [--user USER_ID] PACKAGE\n"
             "       pm grant [--user USER_ID] PACKAGE PERMISSION\n"
             "       pm revoke [--user USER_ID] PACKAGE PERMISSION\n")

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
        return (yield from _pm_grant(p, sub, rest, args))
    if sub == "resolve-activity":
        return (yield from _pmresolve(p, rest))
    if sub == "query-activities":
        return (yield from _pmquery(p, rest))
    if sub in ("install", "install-streaming"):
        return (yield from _pm_install(p, args[1:]))
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


# -- pm install ----------------------------------------------------------------------------

#: ``pm install``'s options that take a value
_INSTALL_VALUED = {"-i", "--user", "--install-location", "-S", "--originating-uri",
                   "--referrer", "--abi", "-p", "--pkg", "--install-reason", "--force-uuid",
                   "--apex", "--staged-ready-timeout", "--dexopt-compiler-filter"}


def _pm_install(p: Proc, args: list[str]) -> Gen:
    """``pm install [-r] [-t] … [-S SIZE] [PATH]``: the file read as the package manager
    reads it (:func:`~baremobile.virtual.apk.read_apk`); an APK installs — its package
    joins ``pm list packages``, ``pm path`` finds its ``base.apk``, the launcher shows it —
    and anything else is refused in the words of the release:

    * Android ≤ 6 (``Pm.runInstall``, ``DefaultContainerService``): ``\tpkg: PATH`` then
      ``Failure [INSTALL_FAILED_INVALID_APK]`` (a missing file: ``…_INVALID_URI``);
    * Android 7+ given a path (``PackageManagerShellCommand.setParamsSize`` parses it
      before the session): ``Error: Failed to parse APK file: PATH`` and the thrown
      ``IllegalArgumentException`` (Android 11+: ``…: PATH: Failed to parse PATH``, the
      ``ParseResult``'s message) — a missing file: ``Error: Can't open file: PATH``;
    * Android 7+ streaming (``-S SIZE``, stdin: what ``adb install`` runs), refused at the
      session's commit: ``Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse
      /data/app/vmdlN.tmp/base.apk]``, with ``: Failed to load asset path …`` on Android 11+.
    """
    api, old = p.api_level, p.api_level < 24
    replace, size, path = not old, None, None
    it = iter(args)
    for a in it:
        if a == "-r":
            replace = True
        elif a in _INSTALL_VALUED:
            value = next(it, "")
            if a == "-S" and value.isdigit():
                size = int(value)
        elif not a.startswith("-") and path is None:
            path = a
    if old:
        yield err(f"\tpkg: {path}\n")
    if path is None and size is None:
        yield err("Error: no package specified\n" if old else
                  "Error: must either specify a package size or an APK file\n")
        return 1
    if size is not None and path in (None, "-"):
        data = p.stdin.read(size)
    else:
        assert path is not None
        try:
            data = p.fs.read(p.path(path))
        except OSError:
            if old:
                yield err("Failure [INSTALL_FAILED_INVALID_URI]\n")
                return 1
            yield err(f"Error: Unable to open file: {path}\nConsider using a file under "
                      f"/data/local/tmp/\nError: Can't open file: {path}\n")
            yield err(java_exception("install", "java.lang.IllegalArgumentException: Error: "
                                     f"Can't open file: {path}", _INSTALL_FRAMES, api))
            return 255
    info = read_apk(data)
    if info is None:
        if old:
            yield err("Failure [INSTALL_FAILED_INVALID_APK]\n")
            return 1
        if size is None:  # parsed before the session, to size it
            why = f"Failed to parse APK file: {path}" + (f": Failed to parse {path}"
                                                         if api >= 30 else "")
            if api < 30:
                yield err(f"Error: Failed to parse APK file: {path}\n")
            yield err(java_exception("install", f"java.lang.IllegalArgumentException: Error: "
                                     f"{why}", _INSTALL_FRAMES, api))
            return 255
        base = f"/data/app/vmdl{zlib.crc32(data) & 0x7FFFFFFF}.tmp/base.apk"
        detail = f"Failed to parse {base}" + (f": Failed to load asset path {base}"
                                              if api >= 30 else "")
        yield out(f"Failure [INSTALL_PARSE_FAILED_NOT_APK: {detail}]\n")
        return 1
    have = find_package(p.model, info.package)
    if have is not None and have.system:
        yield (err if old else out)("Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE" + (
            "" if old else f": Existing package {info.package} signatures do not match "
            "newer version; ignoring!") + "]\n")
        return 1
    if have is not None and not replace:
        yield err("Failure [INSTALL_FAILED_ALREADY_EXISTS]\n")
        return 1
    p.model.force_stop(info.package)
    p.model.screens.install(info.package, info.label, info.launcher, info.version_name,
                            info.version_code, info.debuggable)
    installed = find_package(p.model, info.package)
    assert installed is not None
    p.model.fs.install(apk_path(installed), data)
    yield out("Success\n")
    return 0


_INSTALL_FRAMES = [
    "com.android.server.pm.PackageManagerShellCommand.setParamsSize("
    "PackageManagerShellCommand.java:616)",
    "com.android.server.pm.PackageManagerShellCommand.doRunInstall("
    "PackageManagerShellCommand.java:1548)",
    "com.android.server.pm.PackageManagerShellCommand.runInstall("
    "PackageManagerShellCommand.java:1514)",
    "com.android.server.pm.PackageManagerShellCommand.onCommand("
    "PackageManagerShellCommand.java:220)",
    "com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)",
    "android.os.ShellCommand.exec(ShellCommand.java:38)",
]


# -- run-as --------------------------------------------------------------------------------

#: the C library's ``error()`` prefix: run-as prints every refusal as ``run-as: …``
_RUN_AS = "run-as: "


@command("run-as")
def run_as(p: Proc) -> Gen:
    """``run-as PACKAGE [--user N] [COMMAND [ARGS]]``, as AOSP ``system/core/run-as/run-as.cpp``
    does it: only a debuggable application may be entered (``package not debuggable: …``,
    ``unknown package: …``, ``package not an application: …``, each exit status 1) — before
    Android 8 ``run-as.c`` words it ``Package 'X' is unknown`` (exit status 254), ``Package
    'X' is not debuggable`` …; the command then runs in the package's data directory
    (``$HOME``), the shell when none is given (reading its script from stdin)."""
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
    old = p.api_level < 26  # run-as.c's panic() wording, Android ≤ 7.1
    if pkg is None:  # run-as.c exits with -errno: the lookup set ENOENT
        yield err(_RUN_AS + (f"Package '{name}' is unknown\n" if old else
                             f"unknown package: {name}\n"))
        return 254 if old else 1
    if pkg.system and pkg.name in ("android",):
        yield err(_RUN_AS + (f"Package '{name}' is not an application\n" if old else
                             f"package not an application: {name}\n"))
        return 1
    if not pkg.debuggable:
        yield err(_RUN_AS + (f"Package '{name}' is not debuggable\n" if old else
                             f"package not debuggable: {name}\n"))
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
