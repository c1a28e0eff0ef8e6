"""``VirtualPhone``: the simulated Android phone behind a real adbd on a TCP port.

>>> from baremobile.virtual import VirtualPhone
>>> with VirtualPhone() as phone:          # doctest: +SKIP
...     print(phone.address)               # 127.0.0.1:40413 — any adb client can connect
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from baremobile.virtual.adbd import DEFAULT_FEATURES, AdbdServer, Faults
from baremobile.virtual.auth import AndroidPublicKey, KeyStore, parse_public_key
from baremobile.virtual.protocol import A_VERSION, A_VERSION_MIN, MAX_PAYLOAD, MAX_PAYLOAD_V1

__all__ = ["VirtualPhone", "features_for_api", "max_payload_for_api"]


def max_payload_for_api(api_level: int) -> int:
    """adbd's MAX_PAYLOAD at that API level: 4 KiB before Android 7 (24), 256 KiB before
    Android 9 (28), 1 MiB since (AOSP adb: "Increase size of the adb packets", 2015;
    "Use kernel aio for functionfs", 2017)."""
    if api_level < 24:
        return MAX_PAYLOAD_V1
    return 256 * 1024 if api_level < 28 else MAX_PAYLOAD


def features_for_api(api_level: int) -> tuple[str, ...]:
    """What adbd advertised at that API level: no ``shell_v2`` before 24 (Android 7),
    no ``stat_v2`` / ``fixed_push_*`` before 26 (Android 8)."""
    newer = {
        "shell_v2": 24,
        "cmd": 24,
        "stat_v2": 26,
        "fixed_push_mkdir": 26,
        "fixed_push_symlink_timestamp": 26,
    }
    return tuple(f for f in DEFAULT_FEATURES if api_level >= newer.get(f, 0))


def _as_key(key: AndroidPublicKey | str | bytes | os.PathLike[str]) -> AndroidPublicKey:
    if isinstance(key, AndroidPublicKey):
        return key
    if isinstance(key, os.PathLike) or (
        isinstance(key, str) and not key.startswith("QAAAA") and Path(key).is_file()
    ):
        return parse_public_key(Path(key).read_bytes())
    return parse_public_key(key)


class VirtualPhone:
    """A virtual Android phone that any ADB client can reach over TCP.

    Args:
        scenario: scenario YAML file; ``None`` is the built-in demo (launcher, Settings,
            Messages, Files, a browser).
        host, port: where adbd listens; port 0 picks a free port. Keep it off
            5555–5585 when a real adb server runs: adb adopts those as emulators.
        auth: ``"accept-all"`` (any key is allowed when offered), ``"known-keys"`` (unknown
            keys wait for :meth:`allow`, like the phone's prompt) or ``"none"``.
        trusted_keys: public keys (objects, ``adbkey.pub`` paths or their text) trusted
            from the start.
        api_level: Android API level the shell emulates (quirks depend on it); default:
            the profile's (35 for the default phone).
        profile: what kind of device it is (:mod:`~baremobile.virtual.profiles`):
            ``"android6"`` (toolbox, brief logcat, no shell v2, 4 KiB messages),
            ``"tablet"`` (landscape-natural, a second display listed first),
            ``"protocol-a"`` (a touch panel without slots); ``None`` = the default phone.
        clock: injectable clock for the shell's ``sleep`` and dump delays.
        input_latency: spend on the clock what a real device spends starting ``input``,
            ``uinput`` and ``sendevent`` (use it with a fake clock; see ``PhoneModel``).
        on_auth_prompt: called with the key when a host asks to be allowed.
        browser: what backs the browser and WebView screens: ``"auto"`` (a headless Chromium
            when one is installed — ``$BAREMOBILE_CHROMIUM``, else ``chromium``,
            ``chromium-browser`` or ``google-chrome`` on ``PATH``; started when first needed,
            stopped with the phone), ``False`` (the scenario's placeholders), a path, or a
            :class:`~baremobile.virtual.chromium.Chromium` shared between phones.
        model: a ready :class:`~baremobile.virtual.model.PhoneModel` (overrides
            ``scenario``, ``api_level``, ``profile``, ``serial``, ``clock`` and ``browser``).

    :meth:`answer` teaches the phone a command's output (a real device's bytes, say), for
    tests of code that reads it (:mod:`~baremobile.virtual.answers`).
    """

    def __init__(
        self,
        scenario: str | os.PathLike[str] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        auth: str = "accept-all",
        trusted_keys: Iterable[AndroidPublicKey | str | bytes | os.PathLike[str]] = (),
        api_level: int | None = None,
        serial: str = "vphone-0001",
        clock: Any = None,
        on_auth_prompt: Callable[[AndroidPublicKey], None] | None = None,
        features: Iterable[str] | None = None,
        model: Any = None,
        input_latency: bool = False,
        browser: Any = "auto",
        profile: Any = None,
    ) -> None:
        if model is None:
            from baremobile.virtual.model import PhoneModel

            model = PhoneModel(scenario, api_level=api_level, serial=serial, clock=clock,
                               input_latency=input_latency, browser=browser, profile=profile)
        self.model = model
        self.keys = KeyStore(auth, [_as_key(k) for k in trusted_keys])
        self.faults = Faults()
        api = int(getattr(model, "api_level", api_level or 35))
        self.server = AdbdServer(
            model,
            self.keys,
            host=host,
            port=port,
            features=features if features is not None else features_for_api(api),
            faults=self.faults,
            on_auth_prompt=on_auth_prompt,
            protocol_version=A_VERSION if api >= 28 else A_VERSION_MIN,
            legacy_pty=api < 24,
            max_payload=max_payload_for_api(api),
        )

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> VirtualPhone:
        """Start listening (idempotent)."""
        self.server.start()
        return self

    def stop(self) -> None:
        """Disconnect every client and stop listening; waits for the threads to end. The
        browser engine the phone started is stopped too (none of its processes is left)."""
        self.server.stop()
        close = getattr(self.model, "close", None)
        if close is not None:
            close()

    close = stop

    def __enter__(self) -> VirtualPhone:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.address if self.server._listener is not None else "stopped"
        return f"<VirtualPhone {where} auth={self.keys.mode}>"

    # -- where --------------------------------------------------------------------------
    @property
    def host(self) -> str:
        """The address its adbd listens on (``127.0.0.1`` unless asked otherwise)."""
        return self.server.address[0]

    @property
    def port(self) -> int:
        """The TCP port its adbd listens on."""
        return self.server.address[1]

    @property
    def address(self) -> str:
        """``"127.0.0.1:PORT"`` — pass it to ``connect()``, ``adb connect`` or adb-shell."""
        host, port = self.server.address
        return f"{host}:{port}"

    # -- state --------------------------------------------------------------------------
    @property
    def events(self) -> Any:
        """The :class:`~baremobile.virtual.events.EventLog` of everything received."""
        return self.model.events

    @property
    def fs(self) -> Any:
        """The phone's file system (what ``ls``, ``push`` and ``pull`` see)."""
        return self.model.fs

    @property
    def screens(self) -> Any:
        """The screen model (:class:`~baremobile.virtual.screens.ScreenModel`) behind its shell."""
        return self.model.screens

    @property
    def browser(self) -> Any:
        """The :class:`~baremobile.virtual.chromium.Chromium` behind web screens, or None."""
        return getattr(self.model, "browser", None)

    def answer(self, argv: list[str], stdout: bytes | str = b"", stderr: bytes | str = b"",
               status: int = 0) -> None:
        """Make the program ``argv[0]``, run with arguments starting with ``argv[1:]``,
        print ``stdout``/``stderr`` and exit with ``status`` instead of what it does (the
        longest matching ``argv`` wins; pipes and redirections still apply). For testing
        code against a real device's output::

            phone.answer(["getprop"], Path("getprop.txt").read_bytes())

        :meth:`forget` removes it."""
        self.model.answers.add(argv, stdout, stderr, status)

    def forget(self, argv: list[str] | None = None) -> None:
        """Remove the answer for ``argv`` (every answer when None)."""
        self.model.answers.remove(argv)

    # -- the "Allow USB debugging?" prompt ----------------------------------------------
    @property
    def pending_keys(self) -> list[AndroidPublicKey]:
        """Keys a host offered that wait for :meth:`allow` (known-keys mode)."""
        return self.keys.pending

    def allow(
        self, key: AndroidPublicKey | str | bytes | os.PathLike[str] | None = None
    ) -> list[AndroidPublicKey]:
        """Tap "Allow": trust ``key`` (or every pending key); waiting hosts connect."""
        return self.keys.allow(None if key is None else _as_key(key))

    def trust(self, key: AndroidPublicKey | str | bytes | os.PathLike[str]) -> AndroidPublicKey:
        """Add a key to the phone's ``adb_keys`` without a prompt."""
        return self.keys.trust(_as_key(key))

    # -- faults -------------------------------------------------------------------------
    def disconnect_all(self) -> None:
        """Cut every client connection at once (cable pulled, Wi-Fi gone)."""
        self.server.disconnect_all()

    def stall(self, stalled: bool = True) -> None:
        """Make adbd read and ignore everything (a wedged device) — or recover."""
        self.server.stalled = stalled
