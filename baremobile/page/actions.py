"""Acting verbs of :class:`~baremobile.page.Page`: touching (``tap``, ``long_press``,
``tap_xy``, ``swipe``, ``scroll``), typing (``type``, ``focused_field``), keys (``press``,
``back``, ``home``, ``recents``), starting things (``launch``, ``open_url``, ``intent``) and
``screenshot``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from baremobile.android.keycodes import KEYCODES, keycode
from baremobile.android.shell_words import number, validate_package, validate_uri
from baremobile.android.text_input import HIDDEN_PASSWORD_DELETES, clear_plan, typing_plan
from baremobile.errors import InvalidArgument, NotEditable, TextMismatch, UnsupportedText
from baremobile.page.screenshot import Screenshot
from baremobile.page.selector import Target
from baremobile.page.steps import Typed, refused, verb
from baremobile.page.web import WebVerbs
from baremobile.snapshot import RefNode, Snapshot
from baremobile.transport import DUMP_TIMEOUT

__all__ = ["ActionVerbs", "DIRECTIONS", "SCROLL_AMOUNTS"]

#: The directions ``scroll`` and ``scroll_until`` accept.
DIRECTIONS = ("up", "down", "left", "right")
#: scroll amounts by name (Android Remote Control's): the fraction of the element to move
SCROLL_AMOUNTS = {"small": 0.25, "medium": 0.5, "large": 0.75}

#: After tapping something that is not a text field, how long ``type`` waits for a text
#: field to take focus (an app opening its search screen), and how often it asks.
EDITOR_WAIT = 2.0
EDITOR_POLL = 0.25


def _loose(s: str) -> str:
    return "".join(c for c in s.casefold() if c.isalnum())


def _holds(shown: str, text: str, clear: bool, password: bool,
           before: str | None = None) -> bool:
    """Whether a field showing ``shown`` holds what typing ``text`` into it should leave:
    only ``text`` (``clear``), else ``text`` beside what it held (``before``, when known:
    the field grew by exactly the text)."""
    grown = None if clear or before is None else len(before) + len(text)
    if password and shown and set(shown) <= {"\u2022", "*", "\u25cf"}:
        if clear:
            return len(shown) == len(text)
        return len(shown) == grown if grown is not None else len(shown) >= len(text)
    if clear:
        if shown == text:
            return True
    elif text in shown and (grown is None or len(shown) == grown):
        return True
    a, b = _loose(shown), _loose(text)  # formatting added by the field: (555) 123-4567
    if not b:
        return False
    if clear:
        return a == b
    return b in a and (before is None or len(a) == len(_loose(before)) + len(b))


class ActionVerbs(WebVerbs):
    """The verbs that act on the screen (see the module's docs)."""

    @verb(acts=True)
    def tap(self, target: Target) -> None:
        """Tap the element (its tap point: visible, and not under another window)."""
        x, y, display, _ = self._touch_point(target)
        self._sent("tap", [(x, y)])
        self.device.tap(x, y, display=display)

    @verb(acts=True)
    def long_press(self, target: Target, ms: int = 1000) -> None:
        """Press and hold (a zero-distance swipe of ``ms`` milliseconds)."""
        ms = number("ms", ms, minimum=1, maximum=60_000)
        x, y, display, _ = self._touch_point(target)
        self._sent("long_press", [(x, y)], ms=ms)
        self.device.swipe(x, y, x, y, ms, display=display)

    @verb(acts=True)
    def tap_xy(self, x: float, y: float) -> None:
        """Tap screen coordinates."""
        xi = number("x", x, minimum=0, maximum=100_000)
        yi = number("y", y, minimum=0, maximum=100_000)
        self._sent("tap", [(xi, yi)])
        self.device.tap(xi, yi)

    @verb(acts=True)
    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int = 300) -> None:
        """Swipe between two screen points over ``ms`` milliseconds."""
        a, b, c, e = (number(n, v, minimum=0, maximum=100_000)
                      for n, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)))
        d = number("ms", ms, minimum=1, maximum=60_000)
        self._sent("swipe", [(a, b), (c, e)], ms=d)
        self.device.swipe(a, b, c, e, d)

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
        self._sent("swipe", [start, end], ms=ms)
        self.device.swipe(*start, *end, ms)

    @verb(acts=True, secret=("text",))
    def type(self, target: Target | None, text: str, *, clear: bool = True,
             submit: bool = False) -> None:
        """Type ``text`` into a field so that it holds exactly that text.

        Taps the field first unless it is focused (``target=None``: whatever field has focus
        now, without a tap). What the field held is replaced (any length; a field the
        snapshot shows empty is not emptied again: nothing extra is sent); ``clear=False``
        keeps it, and the text goes where the caret is (after a tap, where Android puts it:
        ``edit_text`` places text at an exact offset). ``submit=True`` presses Enter
        afterwards. Raises
        :class:`~baremobile.errors.UnsupportedText` (naming the characters) before
        anything is typed if ``input text`` cannot type some of it.

        The target must take text. A text field is tapped and typed into in one round trip.
        Anything else that a tap can open a field with (a search bar) is tapped, then the
        input method is asked whether a text field has focus now (``dumpsys input_method``:
        a round trip, repeated for up to 2 s while an app opens): if none has,
        :class:`~baremobile.errors.NotEditable` — nothing is typed. An element a tap cannot
        open a field with (a switch, a list, a label) and a disabled one are refused before
        anything is sent.

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
            self._typed = Typed(None, text, clear, submit, self.actions + 1)
            return
        (x, y), _, node = self._target(target)
        if unsupported is not None:  # beyond ASCII: only a page can take it
            self._type_into_page(target, text, unsupported, clear=clear, submit=submit)
            return
        commands: list[list[str]] = []
        field = node is not None and node.editable
        if node is not None:
            self._check_enabled(node)
            if not field and (node.checkable or not (node.clickable or node.long_clickable)):
                raise refused(NotEditable(
                    f"ref {node.ref} ({self._words(node)}) takes no text, and a tap on it "
                    "opens no text field (it is "
                    + ("checkable" if node.checkable else "not clickable")
                    + "): nothing was sent"))
        if node is None or not field or not node.focused:
            x, y, display, node = self._touch_point(target)
            self._sent("tap", [(x, y)])
            commands.append(self.device.tap_argv(x, y, display=display))
        what = f"ref {node.ref}" if node is not None else "the target"
        if not field:  # a search bar: does the tap give a text field focus?
            self.device.run_all(commands)
            commands = []
            self._await_editor(what if node is None else f"{what} ({self._words(node)})")
        # what the field holds, as the screen shows it now (the target was just resolved
        # against a fresh read): a field that shows nothing or its hint is empty
        before = None
        if field and node is not None and not node.password and self._read_since_acting():
            before = "" if not node.text or node.text == node.hint else node.text
        if clear and before != "":
            api = self.device.api_level
            length = 0
            if api < 33:  # the length must be the field's now: focus it, then read it
                self.device.run_all(commands)
                commands = []
                length = self._focused_length(what)
            commands.extend(clear_plan(api, length))
        commands.extend(plan)
        if submit:
            commands.append(["input", "keyevent", str(KEYCODES["ENTER"])])
        self.device.run_all(commands)
        self._typed = Typed(node.ref if field and node is not None else None, text, clear,
                             submit, self.actions + 1, None if clear else before)

    def _await_editor(self, what: str) -> None:
        """After tapping something that is not a text field: wait (up to
        :data:`EDITOR_WAIT` s) for the input method to serve a view that takes text, or
        raise :class:`~baremobile.errors.NotEditable` (the tap was sent, nothing typed)."""
        token = self._token
        deadline = time.monotonic() + EDITOR_WAIT
        while True:
            target = self.device.input_target()
            if target.editor or (not target.known and target.shown):
                return
            if not target.known and target.shown is None:
                # the device said nothing usable: read the screen instead (one dump)
                if self.focused_field() is not None:
                    return
                break
            if token is None or time.monotonic() + EDITOR_POLL > deadline:
                break
            token.sleep(EDITOR_POLL, "waiting for a text field to take focus")
        raise NotEditable(
            f"tapped {what}, but no text field has focus after it: nothing was typed (the "
            "tap itself was sent and may have changed the screen)",
            hint="take a new snapshot ({snapshot}) to see what the tap did, and type into a "
                 "TextInput's ref")

    def _type_focused(self, plan: list[list[str]], unsupported: UnsupportedText | None, *,
                      clear: bool, submit: bool) -> None:
        """``type(None, …)``: into the focused field, no tap first. A field the fresh last
        snapshot shows focused is trusted; otherwise the input method is asked first (one
        round trip) and nothing is typed when no text field has focus."""
        if unsupported is not None:
            raise unsupported
        snap = self._last
        shown = (snap is not None and not self._stale()
                 and any(r.focused and r.editable for r in snap.refs.values()))
        if not shown and (plan or clear or submit):
            target = self.device.input_target()
            if not (target.editor or (not target.known and target.shown is not False)):
                raise refused(NotEditable(
                    "no text field has focus: nothing was typed",
                    hint="give the text field's ref or selector (a TextInput in a new "
                         "snapshot: {snapshot})"))
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
    def verify_typed(self, snapshot: Snapshot | None = None) -> str | None:
        """Check that the field the last :meth:`type` typed into holds the text, and return
        what it holds; :class:`~baremobile.errors.TextMismatch` names what it shows instead.

        ``snapshot`` is one taken right after the ``type`` (the tools pass the one they
        observe with: no extra dump); without it the screen is read now (one dump). None —
        nothing to check — when the last verb that acted was not a ``type``, when it pressed
        Enter (the screen moves on), or when no text field is on the screen any more.
        Formatting the field adds (spaces, dashes, parentheses in a phone number) is
        allowed; a password is checked by its length when its text shows as dots."""
        t = self._typed
        if t is None or t.submit or t.at != self.actions:
            return None
        snap = snapshot if snapshot is not None else self.snapshot(web=self._web)
        fields = [r for r in snap.refs.values() if r.editable]
        field = next((r for r in fields if r.ref == t.ref), None) if t.ref is not None else None
        if field is None:
            field = next((r for r in fields if r.focused), None)
        if field is None:
            return None
        shown = field.text
        if shown == field.hint and t.text != field.hint:
            shown = ""  # the field shows its hint: it is empty
        if _holds(shown, t.text, t.clear, field.password, t.before):
            return shown
        empty = not shown
        said = "is empty" + (f" (it shows its hint {field.text!r})" if field.text else "") \
            if empty else f"shows {shown!r}"
        should = "" if t.clear or t.before is None else f" (it held {t.before!r} before)"
        raise TextMismatch(
            f"typed {t.text!r} into ref {field.ref}{should}, but the field {said}", shown=shown)

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
            raise NotEditable(
                f"cannot empty {what}: no text field has focus after tapping it, so its "
                "length cannot be read (Android before 13 deletes backwards); nothing was "
                "typed",
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
