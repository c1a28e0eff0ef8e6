"""Packages and intents as the activity manager sees them: the installed packages, intent
arguments parsed as ``am start``/``pm resolve-activity`` parse them (``Intent.toString()``
for messages), and resolving an intent to an app and a screen."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ACTION_MAIN", "ACTION_VIEW", "CATEGORY_LAUNCHER", "CATEGORY_HOME",
    "FLAG_ACTIVITY_NEW_TASK", "FLAG_RECEIVER_FROM_SHELL", "BASE_PACKAGES", "ACTIVITY_FLAGS",
    "SETTINGS_ACTIONS", "Package", "packages", "find_package", "apk_path", "qualify",
    "short_component", "Intent", "safe_uri", "IntentError", "StartOptions", "parse_intent",
    "resolve",
]


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

ACTIVITY_FLAGS = {
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

SETTINGS_ACTIONS = re.compile(r"android\.settings\.[A-Z_]+\Z")


# -- apps ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Package:
    name: str
    system: bool
    launcher: str | None
    version_name: str = "1.0"
    version_code: int = 1
    debuggable: bool = False


def packages(model: Any) -> list[Package]:
    """Installed packages: the scenario's apps, then the base system packages."""
    result = [Package(a.package, a.system, a.launcher_activity,
                      getattr(a, "version_name", "1.0"), getattr(a, "version_code", 1),
                      getattr(a, "debuggable", False))
              for a in model.screens.apps()]
    known = {p.name for p in result}
    result += [Package(n, True, None) for n in BASE_PACKAGES if n not in known]
    return result


def find_package(model: Any, name: str) -> Package | None:
    return next((p for p in packages(model) if p.name == name), None)


#: system packages whose APK is not named after their last word, by their AOSP build module
#: (``frameworks/base/packages/SettingsProvider``, ``packages/inputmethods/LatinIME``;
#: Gboard's prebuilt on Pixel images): two packages never share one APK file
_MODULES = {
    "com.android.providers.settings": "SettingsProvider",
    "com.android.inputmethod.latin": "LatinIME",
    "com.google.android.inputmethod.latin": "LatinIMEGooglePrebuilt",
}


def apk_path(pkg: Package) -> str:
    """Where ``pm path`` says the APK is (stable per package, one file per package)."""
    if pkg.system:
        if pkg.name == "android":
            return "/system/framework/framework-res.apk"
        leaf = _MODULES.get(pkg.name) or pkg.name.rsplit(".", 1)[-1].capitalize()
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


class IntentError(Exception):
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
            raise IntentError(f"Argument expected after \"{args[i - 1]}\"")
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
                raise IntentError(f"Bad component name: {comp}")
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
        elif a in ACTIVITY_FLAGS:
            it.flags |= ACTIVITY_FLAGS[a]
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
            raise IntentError(f"Unknown option: {a}")
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
        raise IntentError("No intent supplied")
    return it


def resolve(model: Any, it: Intent) -> tuple[str, str | None] | str | None:
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
    if it.action and SETTINGS_ACTIONS.match(it.action) and "com.android.settings" in installed:
        return ("com.android.settings", installed["com.android.settings"].launcher)
    return None
