"""An app's SharedPreferences over ADB, without anything installed: ``run-as``.

``run-as PACKAGE CMD`` runs ``CMD`` as the app, in its data directory, when the app is a
debuggable build; otherwise it refuses in one line, worded as Android 8+ (``run-as.cpp``:
``run-as: unknown package: PKG``, ``run-as: package not debuggable: PKG``) or Android ≤ 7.1
(``run-as.c``: ``run-as: Package 'PKG' is unknown``, ``… is not debuggable``) words it —
:mod:`baremobile.android.run_as` reads both. So:

* reading is ``run-as PKG cat shared_prefs/NAME.xml`` (a missing file is an empty map);
* writing pushes the new text to ``/data/local/tmp`` (sync: any size, any bytes), then
  ``run-as PKG sh -c 'mkdir -p shared_prefs && cat > shared_prefs/NAME.xml && rm -f
  shared_prefs/NAME.xml.bak' < TMP`` — the shell user opens the file, the app's uid
  writes its own; the ``.bak`` goes because ``SharedPreferencesImpl`` would load a backup
  instead of the file — and removes the temporary file.

An app that is running keeps its preferences in memory and writes them back on its next
commit: the caller stops it first (``am force-stop``) so it reads the new file when it
starts again.
"""

from __future__ import annotations

import secrets

from baremobile.android import prefs
from baremobile.android.run_as import parse_run_as
from baremobile.android.shell_words import command_line, validate_package
from baremobile.device.core import Device
from baremobile.errors import CommandFailed, InvalidArgument, NotDebuggable
from baremobile.safetext import decode

__all__ = ["Prefs"]

class Prefs:
    """An app's SharedPreferences files, through ``run-as`` (debuggable apps only), over a
    :class:`Device`."""

    def __init__(self, device: Device) -> None:
        self.device = device

    def _run_as(self, package: str, script: str, *, stdin_file: str | None = None,
                timeout: float = 30.0) -> str:
        """Run ``sh -c script`` as ``package`` (``run-as``); its refusals typed."""
        line = command_line(["run-as", package, "sh", "-c", script])
        if stdin_file is not None:
            line += " < " + command_line([stdin_file])
        r = self.device.transport.shell(line, timeout=timeout)
        said = decode(r.stderr or r.stdout or b"").strip()
        refused = parse_run_as(said) if r.exit_code != 0 else None
        if refused is not None:
            quoted = f"run-as: {refused.line}"
            if refused.reason == "not_debuggable":
                raise NotDebuggable(f"{package} is not a debuggable build: run-as refused it "
                                    f"({quoted})", device_output=said)
            if refused.reason == "unknown":
                raise InvalidArgument(f"{package} is not installed on {self.device.serial} "
                                      f"({quoted})", hint="list the packages with {list_apps}")
            if refused.reason != "other":
                raise NotDebuggable(f"run-as refused {package}: {quoted}",
                                    device_output=said,
                                    hint="only a debuggable app's data can be reached")
            raise CommandFailed(f"run-as {package} failed: {said[:300]}", command=line,
                                exit_code=r.exit_code, output=said)
        return r.check().text

    def read(self, package: str, name: str) -> str:
        """The text of ``package``'s ``shared_prefs/NAME.xml`` (empty when the file is absent)."""
        package = validate_package(package)
        name = prefs.check_file_name(name)
        path = command_line([f"shared_prefs/{name}.xml"])
        return self._run_as(package, f"if [ -f {path} ]; then cat {path}; fi")

    def write(self, package: str, name: str, text: str) -> None:
        """Replace ``package``'s ``shared_prefs/NAME.xml`` with ``text`` (as the app's uid)."""
        package = validate_package(package)
        name = prefs.check_file_name(name)
        tmp = f"/data/local/tmp/.baremobile-prefs-{secrets.token_hex(6)}.xml"
        self.device.transport.push(text.encode("utf-8"), tmp)
        target = command_line([f"shared_prefs/{name}.xml"])
        backup = command_line([f"shared_prefs/{name}.xml.bak"])
        try:
            self._run_as(package, f"mkdir -p shared_prefs && cat > {target} && rm -f {backup}",
                    stdin_file=tmp)
        finally:
            self.device.transport.shell(command_line(["rm", "-f", tmp]), timeout=10)
