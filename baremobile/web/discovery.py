"""Which processes on the device have a DevTools socket, the way ``chrome://inspect`` finds
them (Chromium ``chrome/browser/devtools/device/android_device_info_query.cc``).

One shell round trip reads ``/proc/net/unix`` and ``ps``. A socket counts when it is
listening (flags ``00010000``, state ``01``), abstract (``@``) and its name holds
``_devtools_remote``:

* ``webview_devtools_remote_<pid>`` — an app's WebView; the pid is in the name, ``ps``
  names the process (``package`` or ``package:suffix``);
* ``chrome_devtools_remote`` — Chrome (one instance: its pid is that of the running Chrome
  package); a Chromium browser may append ``_<pid>``;
* any other ``<name>_devtools_remote`` — another Chromium-based browser.

On Android 8+ plain ``ps`` lists only the caller's session, hence ``ps -A`` (adbd grants
the shell ``AID_READPROC``, so it sees every process); older toolbox ``ps`` lists all — and
reads ``-A`` as a name filter (a header alone, exit status 0), so the command falls back
to plain ``ps`` when ``ps -A`` listed no process.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass

from baremobile.android.processes import parse_ps as parse_processes

__all__ = [
    "DevToolsSocket",
    "CHROME_PACKAGES",
    "discovery_command",
    "parse_proc_net_unix",
    "parse_ps",
    "find_sockets",
    "discover",
]

#: Chrome builds whose socket is ``chrome_devtools_remote`` (the list Chromium keeps).
CHROME_PACKAGES = (
    "com.android.chrome", "com.chrome.beta", "com.chrome.dev", "com.chrome.canary",
    "com.google.android.apps.chrome", "org.chromium.chrome",
)
_LISTENING = "00010000"
_UNCONNECTED = "01"


@dataclass(frozen=True)
class DevToolsSocket:
    """A DevTools socket on the device and the process that listens on it."""

    name: str
    """the abstract name, without ``@`` (``localabstract:<name>`` opens it)"""
    pid: int | None
    package: str
    """the process's package (``""`` when ``ps`` does not show it)"""
    kind: str
    """``"webview"``, ``"chrome"`` or ``"other"`` (another Chromium browser)"""


def discovery_command() -> tuple[str, str]:
    """(the shell command, the marker between its two outputs)."""
    marker = f"__bm_web_{secrets.token_hex(6)}__"
    # toolbox ps (Android <= 7) takes -A for a name filter: a header alone, exit 0 — so
    # the listing is kept only when it has a line after the header, else plain ps runs
    ps = 'p=$(ps -A 2>/dev/null); case "$p" in *"\n"*) echo "$p";; *) ps;; esac'
    return f"cat /proc/net/unix; echo {marker}; {ps}", marker


def parse_proc_net_unix(text: str) -> list[str]:
    """Names of the listening abstract DevTools sockets, in table order."""
    names = []
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) < 8 or f[3] != _LISTENING or f[5] != _UNCONNECTED:
            continue
        path = f[7]
        if path.startswith("@") and "_devtools_remote" in path and path[1:] not in names:
            names.append(path[1:])
    return names


def parse_ps(text: str) -> dict[int, str]:
    """pid → process name, from any ``ps`` (toybox or toolbox: read by
    :func:`baremobile.android.processes.parse_ps`)."""
    return parse_processes(text).names()


def _package(process: str) -> str:
    return process.partition(":")[0]


def find_sockets(unix_text: str, ps_text: str) -> list[DevToolsSocket]:
    """The DevTools sockets, each with its process (see the module docstring)."""
    procs = parse_ps(ps_text)
    out = []
    for name in parse_proc_net_unix(unix_text):
        prefix, _, suffix = name.partition("_devtools_remote")
        pid = int(suffix[1:]) if suffix.startswith("_") and suffix[1:].isdigit() else None
        if prefix == "webview":
            kind = "webview"
        elif prefix == "chrome":
            kind = "chrome"
        else:
            kind = "other"
        if pid is None and kind == "chrome":
            pid = next((p for p, n in sorted(procs.items()) if _package(n) in CHROME_PACKAGES),
                       None)
        package = _package(procs.get(pid, "")) if pid is not None else ""
        out.append(DevToolsSocket(name, pid, package, kind))
    return out


def discover(shell: Callable[[str], str]) -> list[DevToolsSocket]:
    """Run the discovery command through ``shell`` (command → stdout) and parse it."""
    command, marker = discovery_command()
    out = shell(command)
    unix_text, _, ps_text = out.partition(marker + "\n")
    return find_sockets(unix_text, ps_text)
