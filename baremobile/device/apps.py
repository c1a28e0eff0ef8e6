"""Apps on a device: listing with kinds, versions and labels, labels read from the APKs,
launching by label, uninstalling.

* ``pm list packages -f [-3|-s] [--show-versioncode]`` gives every package with its APK
  path (and version code, API 28+) in one round trip; ``dumpsys package packages``
  filtered on the device gives the version names in one more.
* Labels: no shell command prints them (``dumpsys package`` shows ``labelRes=0x7f…``), so
  each APK's manifest and resource table are read with :mod:`baremobile.android.apk` through a
  :class:`RemoteFile` that fetches byte ranges (:meth:`Device.read_part`, large blocks,
  cached) — the central directory at the end, then the two entries. Labels are cached per
  APK path, which changes whenever the app is updated.
* Launching by label looks among the launcher activities only
  (``cmd package query-activities --brief -a MAIN -c LAUNCHER``).
"""

from __future__ import annotations

import builtins
import io
import re
import threading
from dataclasses import dataclass
from typing import Any

from baremobile.android.apk import ApkError, read_apk
from baremobile.android.packages import (
    base_apk,
    parse_components,
    parse_list_packages,
    parse_pm_path,
    parse_pm_result,
    parse_version_names,
)
from baremobile.android.shell_command import parse_exception
from baremobile.android.shell_words import command_line, quote, validate_package
from baremobile.device.core import Device
from baremobile.errors import CommandFailed, InvalidArgument
from baremobile.safetext import decode
from baremobile.transport.base import check_text

__all__ = ["App", "Apps", "INSTALL_PATH", "RemoteFile", "KINDS"]

#: Where an APK is pushed before ``pm install``.
INSTALL_PATH = "/data/local/tmp/baremobile_install.apk"
_PERMISSION = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*\Z")
#: ``list_apps`` kinds: every package, user-installed (``pm list packages -3``), system (``-s``)
KINDS = ("all", "user", "system")
_BLOCK = 1 << 20  # read APKs in 1 MiB ranges: few round trips for a resource table


@dataclass(frozen=True)
class App:
    """One installed package."""

    package: str
    path: str
    system: bool
    version_code: int | None = None
    version_name: str | None = None
    label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"package": self.package, "system": self.system}
        for k in ("label", "version_name", "version_code"):
            v = getattr(self, k)
            if v is not None:
                out[k] = v
        return out


class RemoteFile(io.RawIOBase):
    """A device file as a seekable, read-only file, fetched in cached byte ranges."""

    def __init__(self, device: Device, path: str, size: int, block: int = _BLOCK) -> None:
        super().__init__()
        self.device, self.path, self.size, self.block = device, path, size, block
        self._pos = 0
        self._blocks: dict[int, bytes] = {}
        self.reads = 0  # round trips so far (for tests and benchmarks)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self.size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def _get(self, k: int) -> bytes:
        if k not in self._blocks:
            self._blocks[k] = self.device.read_part(self.path, k * self.block, self.block)
            self.reads += 1
        return self._blocks[k]

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes from the position (all that is left by default)."""
        data = super().read(size)
        assert data is not None  # None is a non-blocking file's "nothing yet": never here
        return data

    def readinto(self, buf: Any) -> int:
        want = min(len(buf), self.size - self._pos)
        if want <= 0:
            return 0
        out = bytearray()
        while len(out) < want:
            k, o = divmod(self._pos + len(out), self.block)
            chunk = self._get(k)[o:o + want - len(out)]
            if not chunk:
                break
            out += chunk
        buf[:len(out)] = out
        self._pos += len(out)
        return len(out)



#: what to do about an install's failure, by pm's reason
_INSTALL_HINTS = {
    "INSTALL_PARSE_FAILED_NOT_APK": "the file is not an APK (a ZIP with a binary "
                                    "AndroidManifest.xml): check what was downloaded or built",
    "INSTALL_FAILED_INVALID_APK": "the file is not an APK Android can read: check what was "
                                  "downloaded or built",
    "INSTALL_FAILED_ALREADY_EXISTS": "it is installed already: install with replace=True",
    "INSTALL_FAILED_UPDATE_INCOMPATIBLE": "an installed version is signed with another key: "
                                          "uninstall it first",
    "INSTALL_FAILED_VERSION_DOWNGRADE": "a newer version is installed: uninstall it first",
    "INSTALL_FAILED_OLDER_SDK": "the app needs a newer Android than this device has",
}


class Apps:
    """The apps of one :class:`~baremobile.device.core.Device` (labels cached)."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._labels: dict[tuple[str, str], str | None] = {}  # (package, apk path) -> label
        self._lock = threading.Lock()

    # -- listing ---------------------------------------------------------------------------
    def list(self, *, kind: str = "all", name: str | None = None, versions: bool = False,
             labels: bool = False, language: str = "en") -> list[App]:
        """Installed packages of ``kind`` (all, user, system), sorted; ``name`` keeps those
        whose package (or, with ``labels``, label) contains it, case-insensitively."""
        if kind not in KINDS:
            raise InvalidArgument(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if name is not None:
            check_text("the name filter", name)
        apps = {**self._listed("-3"), **self._listed("-s")} if kind == "all" else \
            self._listed("-3" if kind == "user" else "-s")
        found = sorted(apps.values(), key=lambda a: a.package)
        if versions:
            names = self._version_names()
            found = [App(a.package, a.path, a.system, a.version_code, names.get(a.package))
                     for a in found]
        if labels:
            found = [App(a.package, a.path, a.system, a.version_code, a.version_name,
                         self.label(a.package, a.path, language=language)) for a in found]
        if name:
            needle = name.casefold()
            found = [a for a in found if needle in a.package.casefold()
                     or (a.label is not None and needle in a.label.casefold())]
        return found

    def _listed(self, flag: str) -> dict[str, App]:
        argv = ["pm", "list", "packages", "-f", flag]
        if self.device.api_level >= 28:
            argv.append("--show-versioncode")
        out: dict[str, App] = {}
        for p in parse_list_packages(self.device.run(argv).stdout):
            out[p.package] = App(p.package, p.path or "", flag == "-s", p.version_code)
        return out

    def _version_names(self) -> dict[str, str]:
        pattern = quote(r"^  Package \[|versionName=")
        text = self.device.transport.shell(
            f"dumpsys package packages | grep -E {pattern}").stdout
        return dict(parse_version_names(text))

    # -- labels ----------------------------------------------------------------------------
    def label(self, package: str, path: str | None = None, *, language: str = "en"
              ) -> str | None:
        """The app's label as its launcher shows it (None if the APK has none)."""
        if path is None:
            path = self.path(package)
        key = (package, path)
        with self._lock:
            if key in self._labels:
                return self._labels[key]
        size, _kind = self.device.file_info(path)
        try:
            label = read_apk(RemoteFile(self.device, path, size), language=language).label
        except ApkError:
            label = None
        with self._lock:
            self._labels[key] = label
        return label

    def path(self, package: str) -> str:
        """``pm path``: the base APK of ``package``."""
        validate_package(package)
        r = self.device.run(["pm", "path", package], check=False)
        found = base_apk(parse_pm_path(r.stdout))
        if found is None:
            raise InvalidArgument(f"{package} is not installed on {self.device.serial}",
                                  hint="list the packages with {list_apps}")
        return found

    def launchable(self) -> builtins.list[str]:  # list: the method above
        """Packages with a launcher activity (what the app drawer shows)."""
        argv = ["cmd", "package", "query-activities", "--brief", "-a",
                "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER"]
        found = parse_components(self.device.run(argv, check=False).stdout)
        return list(dict.fromkeys(pkg for pkg, _cls in found))

    def by_label(self, label: str) -> str:
        """The package of the launchable app labelled ``label``: an exact match (ignoring
        case), else the one app whose label contains it."""
        if not isinstance(label, str) or not label.strip():
            raise InvalidArgument("an app label is a non-empty string")
        check_text("the app label", label)
        want = label.strip().casefold()
        paths = {a.package: a.path for a in self.list()}
        labelled = {p: self.label(p, paths[p]) for p in self.launchable() if p in paths}
        exact = [p for p, lab in labelled.items() if lab and lab.casefold() == want]
        if len(exact) == 1:
            return exact[0]
        near = [p for p, lab in labelled.items() if lab and want in lab.casefold()]
        if len(exact) > 1 or len(near) > 1:
            names = ", ".join(f"{labelled[p]} ({p})" for p in (exact or near))
            raise InvalidArgument(f"several apps are called like {label!r}: {names}",
                                  hint="launch one by its package name")
        if near:
            return near[0]
        shown = ", ".join(sorted(lab for lab in labelled.values() if lab))
        raise InvalidArgument(f"no launchable app is labelled {label!r}",
                              hint=f"apps on this device: {shown}")

    # -- installing and permissions ----------------------------------------------------------
    def install(self, apk: bytes, *, replace: bool = True) -> str:
        """Push an APK's bytes to the device and ``pm install`` it; returns pm's answer."""
        self.device.transport.push(apk, INSTALL_PATH)
        try:
            argv = ["pm", "install"] + (["-r"] if replace else []) + [INSTALL_PATH]
            r = self.device.run(argv, check=False, timeout=300)
            said = decode(r.stdout + r.stderr).strip()
            result = parse_pm_result(said)
            if not result.ok:
                why = result.reason or said[:300] or "no output"
                if result.exception:  # the line that says what went wrong, and its class
                    why += f" ({result.exception.rsplit('.', 1)[-1]})"
                raise CommandFailed(f"pm install failed: {why}"
                                    + (f" ({result.detail})" if result.detail else ""),
                                    exit_code=r.exit_code, output=said,
                                    hint=_INSTALL_HINTS.get(result.reason or "") or (
                                        _INSTALL_HINTS["INSTALL_PARSE_FAILED_NOT_APK"]
                                        if "Failed to parse" in why else ""))
            with self._lock:
                self._labels.clear()
            return said
        finally:
            self.device.run(["rm", "-f", INSTALL_PATH], check=False)

    def set_permission(self, package: str, permission: str, grant: bool) -> None:
        """``pm grant`` / ``pm revoke`` a runtime permission."""
        validate_package(package)
        if not isinstance(permission, str) or not _PERMISSION.match(permission):
            raise InvalidArgument(f"{permission!r} is not a permission name",
                                  hint="e.g. android.permission.CAMERA")
        verb = "grant" if grant else "revoke"
        r = self.device.run(["pm", verb, package, permission], check=False)
        said = decode(r.stdout + r.stderr)
        thrown = parse_exception(said)
        if r.exit_code == 0 and thrown is None:
            return
        # the permission service's words for a package it does not know, every release
        # (PackageManagerService / PermissionManagerService.grantRuntimePermission)
        if thrown is not None and thrown.message.startswith("Unknown package"):
            raise InvalidArgument(f"{package} is not installed on {self.device.serial} (pm "
                                  f"{verb} answered {str(thrown)[:200]!r})",
                                  hint="list the packages with {list_apps}")
        line = str(thrown) if thrown is not None else (said.strip() or
                                                       f"exit status {r.exit_code}")
        raise CommandFailed(f"pm {verb} failed: {line[:300]}",
                            exit_code=r.exit_code, output=said,
                            hint="check that the permission is a runtime permission the app "
                                 "declares (a normal or undeclared one cannot be granted)")

    # -- removing --------------------------------------------------------------------------
    def uninstall(self, package: str, *, keep_data: bool = False) -> str:
        """``pm uninstall [-k] PACKAGE``; returns pm's answer (``Success``)."""
        argv = ["pm", "uninstall", *(["-k"] if keep_data else []), validate_package(package)]
        r = self.device.run(argv, check=False, timeout=120)
        said = decode(r.stdout + r.stderr).strip()
        result = parse_pm_result(said)
        if r.exit_code == 0 and result.ok:
            with self._lock:
                for key in [k for k in self._labels if k[0] == package]:
                    del self._labels[key]
            return said
        why = result.reason or said or f"exit status {r.exit_code}"
        system = why == "DELETE_FAILED_INTERNAL_ERROR"
        raise CommandFailed(
            f"could not uninstall {package}: {why}", command=command_line(argv),
            exit_code=r.exit_code, output=said,
            hint=("system apps and unknown packages cannot be uninstalled: check the name "
                  "with {list_apps}; a system app can only be stopped or have its data cleared")
            if system else "the device refused; the message says why")
