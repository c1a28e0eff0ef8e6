"""The package manager's answers: ``pm list packages``, ``pm path``, ``pm install`` /
``pm uninstall``, ``dumpsys package``, ``cmd package query-activities`` /
``resolve-activity --brief``.

* ``pm list packages [-f] [--show-versioncode] [-U]`` (``PackageManagerShellCommand
  .runListPackages``; ``Pm.java`` before Android 7): one ``package:`` line per package —
  ``package:NAME``, with ``-f`` ``package:APK=NAME`` (the path may itself hold ``=``: the
  name is after the last one), with ``--show-versioncode`` (API 28+) `` versionCode:N``,
  with ``-U`` `` uid:N``.
* ``pm path PKG``: ``package:PATH`` per APK (``base.apk`` and splits from Android 5; one
  ``/data/app/PKG-1.apk`` before).
* ``pm install`` / ``uninstall`` (``runInstall`` / ``runUninstall``): ``Success``, or
  ``Failure [REASON]`` / ``Failure [REASON: detail]``; older ones print ``Error: …``, and a
  command that threw prints the exception as :mod:`baremobile.android.shell_command` reads
  it (``Exception occurred while executing 'install':`` and, on the next line, the
  exception that says what went wrong — the reason is that line's message). Android ≤ 6
  (``Pm.java``) prints ``\tpkg: PATH`` on stderr first. A file that is no APK fails as
  ``Failure [INSTALL_FAILED_INVALID_APK]`` on Android ≤ 6 (``DefaultContainerService``
  cannot parse it), ``Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse PATH]`` from
  Android 7 (``PackageParser.parseApkLite``, a session's ``base.apk``), with ``: Failed to
  load asset path PATH`` after it from Android 11 (``ApkLiteParseUtils``, ``ApkAssets``).
  The host ``adb install`` adds ``Performing Streamed Install`` or a push progress line.
* ``dumpsys package [packages]`` (``PackageManagerService.dumpPackagesLPr`` /
  ``ComputerEngine``): ``Packages:`` then per package ``  Package [NAME] (HASH):`` and its
  fields, ``versionName=`` among them; ``Hidden system packages:`` repeats updated system
  apps with their factory versions (the first copy is the active one).
* ``cmd package query-activities --brief`` / ``resolve-activity --brief``
  (``PackageManagerShellCommand.printResolveInfo``): per activity ``priority=… …`` then
  ``PACKAGE/CLASS``; ``No activity found`` when none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from baremobile.android.shell_command import parse_exception
from baremobile.android.text import lines

__all__ = ["Listed", "PmResult", "parse_list_packages", "parse_pm_path", "base_apk",
           "parse_pm_result", "parse_version_names", "parse_components"]


@dataclass(frozen=True)
class Listed:
    """One ``package:`` line of ``pm list packages``."""

    package: str
    path: str | None = None
    version_code: int | None = None
    uid: int | None = None


_PKG = r"[A-Za-z][\w]*(?:\.[\w]+)*"
_LISTED = re.compile(rf"^package:(?:(?P<path>.*)=)?(?P<pkg>{_PKG})"
                     r"(?:\s+versionCode:(?P<code>-?\d+))?(?:\s+uid:(?P<uid>\d+))?"
                     r"(?:\s+\S+:\S*)*$")


def parse_list_packages(data: bytes | str) -> list[Listed]:
    """The packages listed, in order (lines that are no ``package:`` line are skipped)."""
    out = []
    for line in lines(data):
        m = _LISTED.match(line.strip())
        if m:
            code, uid = m.group("code"), m.group("uid")
            out.append(Listed(m.group("pkg"), m.group("path") or None,
                              int(code) if code else None, int(uid) if uid else None))
    return out


def parse_pm_path(data: bytes | str) -> list[str]:
    """The APK paths of ``pm path``."""
    return [ln.strip()[8:].strip() for ln in lines(data)
            if ln.strip().startswith("package:") and ln.strip()[8:].strip()]


def base_apk(paths: list[str]) -> str | None:
    """The base APK among ``pm path``'s paths (``base.apk``; else the first: Android 4's
    single ``PKG-1.apk``)."""
    return next((p for p in paths if p.endswith("/base.apk")), paths[0] if paths else None)


@dataclass(frozen=True)
class PmResult:
    """What ``pm install`` / ``pm uninstall`` answered."""

    ok: bool
    reason: str | None = None
    """``INSTALL_FAILED_…`` / ``DELETE_FAILED_…``, an exception's message, or the error
    line's words"""
    detail: str | None = None
    """the text after the reason inside the brackets, if any"""
    exception: str | None = None
    """the class of the exception the command threw (``java.lang.SecurityException``)"""


_FAILURE = re.compile(r"Failure\s*\[([A-Z0-9_]+|[^\]:]+?)(?::\s*(.*?))?\]")


def parse_pm_result(data: bytes | str) -> PmResult:
    """``Success`` anywhere on a line of its own is success; otherwise the failure's
    reason (the bracketed code; the message of the exception the command threw — the line
    after ``Exception occurred while executing:``, not that line; an ``Error:`` line), else
    ``reason=None``."""
    text = [ln.strip() for ln in lines(data) if ln.strip()]
    for ln in text:
        m = _FAILURE.search(ln)
        if m:
            return PmResult(False, m.group(1).strip(), (m.group(2) or "").strip() or None)
    if any(ln == "Success" for ln in text):
        return PmResult(True)
    thrown = parse_exception(data)
    if thrown is not None:
        return PmResult(False, thrown.message or thrown.name, exception=thrown.name)
    for ln in text:
        if ln.startswith("Error:"):
            return PmResult(False, ln.partition(":")[2].strip() or ln)
    return PmResult(False, None)


_DUMP_PKG = re.compile(rf"^\s*Package \[({_PKG})\]")
_VERSION_NAME = re.compile(r"^\s*versionName=(.*)$")


def parse_version_names(data: bytes | str) -> Mapping[str, str]:
    """package → ``versionName`` of ``dumpsys package`` (or its ``grep`` for the package
    headers and ``versionName=``): the first after each header — the active copy."""
    names: dict[str, str] = {}
    current = None
    for line in lines(data):
        m = _DUMP_PKG.match(line)
        if m:
            current = m.group(1)
            continue
        if line and not line.startswith(" "):  # a new top-level section
            current = None
            continue
        v = _VERSION_NAME.match(line)
        if v and current and current not in names:
            names[current] = v.group(1).strip()
    return MappingProxyType(names)


_COMPONENT = re.compile(rf"^\s*({_PKG})/([\w.$]+)\s*$")


def parse_components(data: bytes | str) -> list[tuple[str, str]]:
    """``(package, class)`` of each ``PACKAGE/CLASS`` line of ``query-activities`` /
    ``resolve-activity --brief`` (class as printed: ``.Main`` is relative)."""
    out = []
    for line in lines(data):
        m = _COMPONENT.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out
