"""The typed error hierarchy.

Every error baremobile raises on purpose is a :class:`BaremobileError`. Each carries

* ``code`` — a stable, upper-case identifier that agent adapters and the MCP server
  hand to an LLM (``REF_NOT_FOUND``, ``TIMEOUT``, ...);
* ``hint`` — one sentence saying what to do next.

``str(error)`` is the message followed by the hint, so a plain traceback already tells
the reader how to proceed.

Hints speak the caller's language (:mod:`baremobile.hints`): a front door passes its
vocabulary to :meth:`BaremobileError.hint_in` / :meth:`BaremobileError.to_dict`;
placeholders it does not define fall back to the Python wording.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported at run time: the CLI's fast path loads this
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DOORS",
    "HINT_VERBS",
    "PYTHON_VERBS",
    "vocabulary",
    "register_verb",
    "say",
    "BaremobileError",
    "DeviceNotFound",
    "MultipleDevices",
    "DeviceUnauthorized",
    "DeviceBusy",
    "DevicePermissionDenied",
    "DeviceDisconnected",
    "ProtocolError",
    "CommandTimeout",
    "CommandFailed",
    "ServiceRefused",
    "DumpFailed",
    "DeviceNotIdle",
    "NullRootNode",
    "AutomationBusy",
    "InvalidDump",
    "DumpTooLarge",
    "RefNotFound",
    "RefCovered",
    "RefChanged",
    "NotActionable",
    "ElementDisabled",
    "NotEditable",
    "TextMismatch",
    "InvalidArgument",
    "ResourceNotFound",
    "UnsupportedText",
    "InvalidScenario",
    "Unsupported",
    "NotDebuggable",
    "MissingDependency",
    "Busy",
    "PageClosed",
    "AdbKeyError",
    "LocalIOError",
    "Cancelled",
    "WebError",
    "WebUnavailable",
    "PageNavigated",
]

from baremobile.hints import (  # noqa: E402 - re-exported: the errors speak in them
    DOORS,
    HINT_VERBS,
    PYTHON_VERBS,
    register_verb,
    say,
    vocabulary,
)


class BaremobileError(Exception):
    """Base class of every error baremobile raises on purpose."""

    code: str = "ERROR"
    default_hint: str = ""
    #: raised before its verb sent anything (:func:`baremobile.page.steps.refused`)
    nothing_sent: bool = False
    #: what the tool layer adds to the failed call's answer (a batch's steps so far, the
    #: observation an observing call made), None when nothing
    data: dict[str, Any] | None = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = self.default_hint if hint is None else hint
        super().__init__(message)

    @property
    def hint(self) -> str:
        """What to do next, in the Python API's words (see :meth:`hint_in`)."""
        return say(self._hint)

    @hint.setter
    def hint(self, template: str) -> None:
        self._hint = template or ""

    def hint_in(self, verbs: Mapping[str, str] | None) -> str:
        """The hint in a front door's vocabulary (``{"snapshot": "the snapshot tool"}``)."""
        return say(self._hint, verbs)

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} — {self.hint}"
        return self.message

    def to_dict(self, verbs: Mapping[str, str] | None = None) -> dict[str, str]:
        """The error as data an agent can act on: ``{"code", "message", "hint"}`` (the hint
        in ``verbs``' words, Python's by default)."""
        return {"code": self.code, "message": self.message, "hint": self.hint_in(verbs)}


# --- finding and reaching a device -------------------------------------------------


class DeviceNotFound(BaremobileError):
    """No device answered where we looked."""

    code = "NO_DEVICES"
    default_hint = (
        "connect a phone with USB debugging on, start an emulator, "
        "pass device='host:port' for wireless debugging, or use device='virtual'"
    )

    def __init__(self, message: str, *, tried: Sequence[str] = (), hint: str | None = None) -> None:
        self.tried = list(tried)
        if self.tried:
            message = f"{message} (tried: {'; '.join(self.tried)})"
        super().__init__(message, hint=hint)


class MultipleDevices(BaremobileError):
    """More than one device is reachable and none was named."""

    code = "MULTIPLE_DEVICES_DEVICE_ID_REQUIRED"

    def __init__(self, serials: Sequence[str], *, hint: str | None = None) -> None:
        self.serials = list(serials)
        super().__init__(
            f"{len(self.serials)} devices are reachable: {', '.join(self.serials)}",
            hint=hint or "pick one: {pick_device}",
        )


class DeviceUnauthorized(BaremobileError):
    """The device did not accept our ADB key."""

    code = "DEVICE_UNAUTHORIZED"
    default_hint = (
        "accept the 'Allow USB debugging?' prompt on the phone "
        "(tick 'Always allow from this computer'), then try again"
    )


class DeviceBusy(BaremobileError):
    """The device's USB interface is held by another program (usually an adb server)."""

    code = "DEVICE_BUSY"
    default_hint = (
        "an adb server holds the USB interface: either connect through it "
        "(name the device by its serial, {pick_device}: that goes via 127.0.0.1:5037) "
        "or stop it with 'adb kill-server' and try again"
    )


class DevicePermissionDenied(BaremobileError):
    """The operating system refused access to the USB device."""

    code = "PERMISSION_DENIED"
    default_hint = (
        "on Linux, install Android's udev rules (Debian/Ubuntu: 'apt install android-sdk-platform-"
        "tools-common') and add yourself to the plugdev group, then replug the phone"
    )


class DeviceDisconnected(BaremobileError):
    """The connection to the device dropped (cable, Wi-Fi, adbd restart)."""

    code = "DEVICE_DISCONNECTED"
    default_hint = "check the cable or network; the next call reconnects automatically"


class ProtocolError(DeviceDisconnected):
    """The peer sent bytes that are not valid ADB protocol; the connection was dropped."""

    code = "PROTOCOL_ERROR"


class CommandTimeout(BaremobileError):
    """A device command did not finish within its timeout."""

    code = "TIMEOUT"
    default_hint = (
        "the device may be busy or hung; retry, or pass a longer timeout; "
        "the next call reconnects if the connection was lost"
    )


class CommandFailed(BaremobileError):
    """A shell command on the device reported failure."""

    code = "COMMAND_FAILED"

    def __init__(
        self,
        message: str,
        *,
        command: str = "",
        exit_code: int | None = None,
        output: str = "",
        hint: str | None = None,
    ) -> None:
        self.command = command
        self.exit_code = exit_code
        self.output = output
        super().__init__(message, hint=hint)


class ServiceRefused(CommandFailed):
    """adbd refused to open a service (an old device, or a service it does not offer)."""

    code = "SERVICE_REFUSED"
    default_hint = "the device does not offer this; check its Android version and features"


# --- snapshots -----------------------------------------------------------------------


class DumpFailed(BaremobileError):
    """``uiautomator dump`` did not produce a usable hierarchy."""

    code = "DUMP_FAILED"
    default_hint = "take the snapshot again; if it keeps failing, wait for the screen to settle"

    def __init__(self, message: str, *, device_output: str = "", hint: str | None = None) -> None:
        self.device_output = device_output
        super().__init__(message, hint=hint)


class DeviceNotIdle(DumpFailed):
    """uiautomator gave up waiting for the UI to become idle (animations, video)."""

    code = "DEVICE_NOT_IDLE"
    default_hint = (
        "the screen never went idle (an animation or video is playing): "
        "pause it or retry; {screenshot} still works"
    )


class NullRootNode(DumpFailed):
    """uiautomator found no window to dump (screen off, keyguard transition, secure window)."""

    code = "NULL_ROOT_NODE"
    default_hint = "wake and unlock the screen ({wakeup}), then take a snapshot again"


class AutomationBusy(DumpFailed):
    """Another UiAutomation client (Appium, uiautomator2, a test runner) holds the service."""

    code = "AUTOMATION_BUSY"
    default_hint = (
        "another automation tool (Appium, uiautomator2, an instrumentation test) is connected; "
        "stop it, then snapshot again"
    )


class InvalidDump(DumpFailed):
    """The dump is not a well-formed, safe uiautomator hierarchy."""

    code = "INVALID_DUMP"
    default_hint = (
        "take the snapshot again; if you passed the XML yourself, check it is a complete dump"
    )


class DumpTooLarge(InvalidDump):
    """The dump exceeds one of the pruner's input limits; :attr:`limit` names which.

    ``limit`` is the keyword that sets it on :class:`~baremobile.snapshot.StreamPruner` and
    :func:`~baremobile.snapshot.from_xml` (``max_bytes``, ``max_token_bytes``,
    ``max_nesting``, ``max_elements`` or ``max_refs``) and ``value`` its value.
    """

    code = "DUMP_TOO_LARGE"
    default_hint = (
        "no real screen is this large, so the dump was refused; if this one is real, go to "
        "a smaller view ({back}) and snapshot again"
    )

    def __init__(
        self,
        message: str,
        *,
        limit: str,
        value: int,
        device_output: str = "",
        hint: str | None = None,
    ) -> None:
        self.limit = limit
        self.value = value
        super().__init__(message, device_output=device_output, hint=hint)


# --- acting --------------------------------------------------------------------------


class RefNotFound(BaremobileError):
    """A ref that is not in the last snapshot: its element is gone, or it was never given."""

    code = "REF_NOT_FOUND"
    default_hint = "take a new snapshot ({snapshot}) and use a ref from it"


class RefCovered(RefNotFound):
    """The ref's element lies under another window (keyboard, dialog): a tap would hit that."""

    code = "REF_COVERED"
    default_hint = (
        "hide the keyboard ({back}) or close the dialog, then take a new snapshot ({snapshot})"
    )


class RefChanged(RefNotFound):
    """The screen changed since the ref's snapshot and the ref's element cannot be told
    apart from what is there now: an element that looks different sits where it was."""

    code = "REF_CHANGED"
    default_hint = (
        "take a new snapshot ({snapshot}) and pick the element again from what it shows now"
    )


class NotActionable(BaremobileError):
    """The element is there but cannot take this action (disabled, not a text field), or
    did not take it (the field does not hold the text typed); the message says which."""

    code = "NOT_ACTIONABLE"
    default_hint = "take a new snapshot ({snapshot}) and act on an element that can take it"


class ElementDisabled(NotActionable):
    """The element is disabled (``enabled="false"``, the ``[disabled]`` state): a touch
    would do nothing. Nothing was sent."""

    code = "ELEMENT_DISABLED"
    default_hint = (
        "it is disabled until the screen allows it (fill in what it needs, accept terms, "
        "wait for loading); take a new snapshot ({snapshot}) to see when it is enabled"
    )


class NotEditable(NotActionable):
    """``type`` on an element that takes no text, and no text field has focus after
    tapping it: nothing was typed (the message says whether the element was tapped)."""

    code = "NOT_EDITABLE"
    default_hint = (
        "type into a text field's ref (a TextInput line in a new snapshot, {snapshot}), or "
        "tap what opens the field first"
    )


class TextMismatch(NotActionable):
    """The text was typed but the field shows something else afterwards (a length limit, a
    field that rejects characters, a screen that moved on). :attr:`shown` is what it shows."""

    code = "TEXT_MISMATCH"
    default_hint = (
        "read the field in the snapshot; type again with clear=True to replace its text, or "
        "check what the field accepts"
    )

    def __init__(self, message: str, *, shown: str = "", hint: str | None = None) -> None:
        self.shown = shown
        super().__init__(message, hint=hint)


class InvalidArgument(BaremobileError, ValueError):
    """An argument was rejected before anything was sent to the device."""

    code = "INVALID_ARGUMENT"


class ResourceNotFound(InvalidArgument):
    """An MCP resource URI no door serves (``resources/read``)."""

    code = "RESOURCE_NOT_FOUND"
    category = "INVALID_ARGUMENT"
    default_hint = "resources/list lists the resources; resources/list-templates their forms"


class UnsupportedText(InvalidArgument):
    """Text that ``input text`` cannot type (non-ASCII, emoji, control characters)."""

    code = "UNSUPPORTED_TEXT"
    default_hint = (
        "Android's 'input text' types printable ASCII only, and stock Android has no shell "
        "command that sets the clipboard; remove or transliterate the characters named, "
        "or hand the text to an app another way (an intent extra such as "
        "android.intent.extra.TEXT); a web page's field (a debuggable WebView or Chrome) "
        "takes any text"
    )

    def __init__(self, characters: Sequence[str], *, hint: str | None = None) -> None:
        self.characters = list(dict.fromkeys(characters))
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in self.characters)
        super().__init__(f"cannot type these characters: {shown}; nothing was typed", hint=hint)


class InvalidScenario(InvalidArgument):
    """A virtual phone's scenario file is missing, unreadable or not a valid scenario."""

    default_hint = (
        "check the file (docs/scenarios.md describes the format), or use the built-in "
        "phone: device 'virtual'"
    )


class Unsupported(BaremobileError):
    """Android does not allow this over ADB without an installed app (on this device, or
    at all); the message says why, in the device's own words where it gave any."""

    code = "UNSUPPORTED"
    default_hint = "there is no way to do this through the shell on this device"

    def __init__(self, message: str, *, device_output: str = "", hint: str | None = None
                 ) -> None:
        self.device_output = device_output
        super().__init__(message, hint=hint)


class NotDebuggable(Unsupported):
    """``run-as`` refused the app: only a debuggable build (``android:debuggable``) lets
    the shell into its private data (its SharedPreferences, databases)."""

    code = "NOT_DEBUGGABLE"
    default_hint = "install a debuggable build of the app (a debug variant), or use a " \
                   "rooted device"


class MissingDependency(BaremobileError):
    """An optional package this needs is not installed (Pillow for drawing on and
    re-encoding screenshots: the ``[vision]`` extra)."""

    code = "MISSING_DEPENDENCY"
    default_hint = "install the extra the message names"


class Busy(BaremobileError):
    """Another call is already acting on the same device."""

    code = "BUSY"
    default_hint = "wait for the other call to finish, then try again"


class PageClosed(BaremobileError):
    """The page was closed; its connection is gone."""

    code = "PAGE_CLOSED"
    default_hint = "{reconnect}"


# --- this computer -------------------------------------------------------------------


class AdbKeyError(BaremobileError):
    """This computer's ADB key cannot be read, created or used (not the device's fault)."""

    code = "ADB_KEY_ERROR"
    default_hint = (
        "adb keys are RSA-2048 PEM files (~/.android/adbkey, or $ANDROID_USER_HOME/adbkey): "
        "fix or move the file away to let baremobile create a new one, make its folder "
        "writable, or pass key_path=... to use another"
    )


class LocalIOError(BaremobileError):
    """A file of this computer could not be written or read for a reason that is not the
    caller's choice of path (a full disk, a read-only file system, an I/O error)."""

    code = "LOCAL_IO_ERROR"
    default_hint = "free space on this computer (or fix its file system), then try again"


class Cancelled(BaremobileError):
    """The call was cancelled (``Page.cancel()``, ``Page.close()``, a client's cancel)
    before it finished; whatever it had in flight was aborted and its result dropped."""

    code = "CANCELLED"
    default_hint = (
        "the device may have done part of it: {snapshot} shows where it stands; "
        "the next call reconnects by itself"
    )


# --- web content (the DevTools protocol) -------------------------------------------


class WebError(BaremobileError):
    """Reading or driving a page through the DevTools protocol failed (the socket, its
    HTTP, the WebSocket, or the page's own answer)."""

    code = "WEB_ERROR"
    default_hint = (
        "take a new snapshot ({snapshot}) to read the page again; the native part of a "
        "snapshot never depends on the page"
    )


class WebUnavailable(WebError):
    """Web content cannot be read here: the ``[web]`` extra is missing, or the page's
    process has no DevTools socket (its WebView is not debuggable)."""

    code = "WEB_UNAVAILABLE"
    default_hint = "pip install 'baremobile[web]'; see docs/web.md for making a WebView debuggable"


class PageNavigated(WebError):
    """The page navigated while it was being read: what was read mixes two documents."""

    code = "PAGE_NAVIGATED"
    default_hint = "take a new snapshot ({snapshot}) once the page has loaded"
