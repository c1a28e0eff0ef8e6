"""Acting verbs of :class:`~baremobile.page.Page`: touching (``tap``, ``long_press``,
``tap_xy``, ``swipe``, ``scroll``), typing (``type``, ``focused_field``), keys (``press``,
``back``, ``home``, ``recents``), starting things (``launch``, ``open_url``, ``intent``) and
``screenshot``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from baremobile.android.keycodes import KEYCODES, keycode
from baremobile.android.shell_words import number, validate_package, validate_uri
from baremobile.android.text_input import HIDDEN_PASSWORD_DELETES, clear_plan, typing_plan
from baremobile.errors import InvalidArgument, UnsupportedText
from baremobile.page.base import verb
from baremobile.page.screenshot import Screenshot
from baremobile.page.selector import Target
from baremobile.page.web import WebVerbs
from baremobile.snapshot import RefNode
from baremobile.transport import DUMP_TIMEOUT

__all__ = ["ActionVerbs", "DIRECTIONS", "SCROLL_AMOUNTS"]

#: The directions ``scroll`` and ``scroll_until`` accept.
DIRECTIONS = ("up", "down", "left", "right")
#: scroll amounts by name (Android Remote Control's): the fraction of the element to move
SCROLL_AMOUNTS = {"small": 0.25, "medium": 0.5, "large": 0.75}


class ActionVerbs(WebVerbs):
    """The verbs that act on the screen (see the module's docs)."""

    @verb(acts=True)
    def tap(self, target: Target) -> None:
        """Tap the element (its tap point: visible, and not under another window)."""
        x, y, display, _ = self._touch_point(target)
        self.device.tap(x, y, display=display)

    @verb(acts=True)
    def long_press(self, target: Target, ms: int = 1000) -> None:
        """Press and hold (a zero-distance swipe of ``ms`` milliseconds)."""
        ms = number("ms", ms, minimum=1, maximum=60_000)
        x, y, display, _ = self._touch_point(target)
        self.device.swipe(x, y, x, y, ms, display=display)

    @verb(acts=True)
    def tap_xy(self, x: float, y: float) -> None:
        """Tap screen coordinates."""
        xi = number("x", x, minimum=0, maximum=100_000)
        yi = number("y", y, minimum=0, maximum=100_000)
        self.device.tap(xi, yi)

    @verb(acts=True)
    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int = 300) -> None:
        """Swipe between two screen points over ``ms`` milliseconds."""
        a, b, c, e = (number(n, v, minimum=0, maximum=100_000)
                      for n, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)))
        self.device.swipe(a, b, c, e, number("ms", ms, minimum=1, maximum=60_000))

    @verb(acts=True)
    def scroll(
        self, target: Target | None, direction: str = "down", amount: float | str = 0.6,
        ms: int = 400
    ) -> None:
        """Scroll inside an element (or the screen when ``target`` is None).

        ``direction`` is where the content should go: ``"down"`` reveals what is below.
        ``amount`` is the fraction of the element's height (or width) to move (0–1], or
        ``"small"`` (0.25), ``"medium"`` (0.5), ``"large"`` (0.75).
        """
        if direction not in DIRECTIONS:
            raise InvalidArgument(
                f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}"
            )
        if isinstance(amount, str):
            if amount not in SCROLL_AMOUNTS:
                raise InvalidArgument(f"amount must be a fraction in (0, 1] or one of "
                                      f"{', '.join(SCROLL_AMOUNTS)}, not {amount!r}")
            amount = SCROLL_AMOUNTS[amount]
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not 0 < amount <= 1:
            raise InvalidArgument(f"amount must be a fraction in (0, 1], not {amount!r}")
        d = number("ms", ms, minimum=1, maximum=10_000)
        self._swipe_within(self._scroll_area(target), direction, amount, d)

    def _scroll_area(self, target: Target | None) -> tuple[int, int, int, int]:
        if target is not None:
            return self._target(target)[1]
        snap = self._last or self.snapshot()
        w, h = snap.width or 1080, snap.height or 1920
        return int(w * 0.1), int(h * 0.2), int(w * 0.9), int(h * 0.8)

    def _swipe_within(
        self, bounds: tuple[int, int, int, int], direction: str, amount: float, ms: int
    ) -> None:
        # never start on the element's (exclusive) edge: at most 95% of its extent
        x1, y1, x2, y2 = bounds
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        half_w = max(1, int((x2 - x1) * min(amount, 0.95) / 2))
        half_h = max(1, int((y2 - y1) * min(amount, 0.95) / 2))
        if direction == "down":
            start, end = (cx, cy + half_h), (cx, cy - half_h)
        elif direction == "up":
            start, end = (cx, cy - half_h), (cx, cy + half_h)
        elif direction == "right":
            start, end = (cx + half_w, cy), (cx - half_w, cy)
        else:
            start, end = (cx - half_w, cy), (cx + half_w, cy)
        self.device.swipe(*start, *end, ms)

    @verb(acts=True)
    def type(self, target: Target | None, text: str, *, clear: bool = False,
             submit: bool = False) -> None:
        """Type ``text`` into a field so that it holds exactly that text.

        Taps the field first unless it is focused (``target=None``: whatever field has focus
        now, without a tap); ``clear=True`` empties it first (any length); ``submit=True``
        presses Enter afterwards. Raises
        :class:`~baremobile.errors.UnsupportedText` (naming the characters) before
        anything is typed if ``input text`` cannot type some of it.

        Emptying on Android 13+ is select-all and delete. Older Android can only delete
        backwards, so the field is read from the device after it has focus (one extra dump,
        which leaves :attr:`last_snapshot` as it is) and that many characters are deleted:
        never a count from an older snapshot.
        """
        try:
            plan = typing_plan(text)  # validates before anything happens
            unsupported: UnsupportedText | None = None
        except UnsupportedText as exc:
            if not self._web_seen:  # the screen shows no page that could take it
                raise
            plan, unsupported = [], exc
        if target is None:
            self._type_focused(plan, unsupported, clear=clear, submit=submit)
            return
        (x, y), _, node = self._target(target)
        if unsupported is not None:  # beyond ASCII: only a page can take it
            self._type_into_page(target, text, unsupported, clear=clear, submit=submit)
            return
        commands: list[list[str]] = []
        if node is None or not node.focused:
            x, y, display, node = self._touch_point(target)
            commands.append(self.device.tap_argv(x, y, display=display))
        if clear:
            api = self.device.api_level
            length = 0
            if api < 33:  # the length must be the field's now: focus it, then read it
                self.device.run_all(commands)
                commands = []
                length = self._focused_length(
                    f"ref {node.ref}" if node is not None else "the target")
            commands.extend(clear_plan(api, length))
        commands.extend(plan)
        if submit:
            commands.append(["input", "keyevent", str(KEYCODES["ENTER"])])
        self.device.run_all(commands)

    def _type_focused(self, plan: list[list[str]], unsupported: UnsupportedText | None, *,
                      clear: bool, submit: bool) -> None:
        """``type(None, …)``: into the focused field, no tap first."""
        if unsupported is not None:
            raise unsupported
        commands: list[list[str]] = []
        if clear:
            api = self.device.api_level
            commands += clear_plan(api, 0 if api >= 33 else
                                   self._focused_length("the focused field"))
        commands += plan
        if submit:
            commands.append(["input", "keyevent", str(KEYCODES["ENTER"])])
        if commands:
            self.device.run_all(commands)

    @verb()
    def focused_field(self) -> RefNode | None:
        """The text field that has focus, read from the device now (a fresh dump; the last
        snapshot and its refs are left as they are). None when no text field has focus.

        Its ``text`` is the field's content as the dump shows it: a password's characters
        as bullets (Android 8+), the hint when the field is empty.
        """
        snap = self._dump({}, DUMP_TIMEOUT, self._web)
        return next((r for r in snap.refs.values() if r.focused and r.editable), None)

    def _focused_length(self, what: str) -> int:
        """How many characters to delete to empty the focused field (see :meth:`type`)."""
        field = self.focused_field()
        if field is None:
            raise InvalidArgument(
                f"cannot empty {what}: no text field has focus after tapping it, so its "
                "length cannot be read (Android before 13 deletes backwards)",
                hint="give the text field's own ref or selector (a TextInput in a new "
                "snapshot: {snapshot})",
            )
        if field.password and not field.text:  # Android < 8 hides a password's text
            return HIDDEN_PASSWORD_DELETES
        return len(field.text)

    @verb(acts=True)
    def press(self, key: str | int) -> None:
        """Press a key: a name (``back``, ``home``, ``enter``, ``KEYCODE_MEDIA_PLAY``) or a code."""
        code = keycode(key)
        self.device.keyevent(code)

    @verb(acts=True)
    def back(self) -> None:
        """Press Back (``press("back")``)."""
        self.press("back")

    @verb(acts=True)
    def home(self) -> None:
        """Press Home: the launcher comes to the front."""
        self.press("home")

    @verb(acts=True)
    def recents(self) -> None:
        """Open the recent apps (``press("app_switch")``)."""
        self.press("app_switch")

    @verb(acts=True)
    def launch(self, package: str | None = None, *, label: str | None = None) -> str:
        """Start an app (its launcher activity) by package name, or by the ``label`` the
        launcher shows (read from the apps' APKs on the device); returns the package."""
        if (package is None) == (label is None):
            raise InvalidArgument("give the app's package or its label (one of them)")
        if package is not None:
            validate_package(package)
        if package is None:
            assert label is not None  # one of them, checked above
            package = self._apps.by_label(label)
        self.device.launch(package)
        return package

    @verb(acts=True)
    def open_url(self, uri: str) -> None:
        """Open a URI with the app that handles it (ACTION_VIEW)."""
        validate_uri(uri)
        self.device.start_activity(action="android.intent.action.VIEW", data=uri)

    @verb(acts=True)
    def intent(
        self,
        action: str | None = None,
        data: str | None = None,
        extras: Mapping[str, object] | None = None,
        component: str | None = None,
        *,
        categories: Sequence[str] = (),
        package: str | None = None,
        flags: int | None = None,
    ) -> str:
        """Start an activity with an explicit intent (``am start``); returns am's output."""
        return self.device.start_activity(
            action=action,
            data=data,
            extras=extras,
            component=component,
            categories=categories,
            package=package,
            flags=flags,
        )

    @verb()
    def screenshot(self) -> Screenshot:
        """The screen as a PNG (binary-safe ``exec:``, stderr kept out)."""
        return Screenshot(self.device.screencap())
