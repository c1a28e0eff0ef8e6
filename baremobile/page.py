"""``Page``: one device, its last snapshot's refs, and every agent verb.

>>> from baremobile import connect
>>> with connect("virtual") as page:                     # doctest: +SKIP
...     page.launch("com.android.settings")
...     print(page.snapshot())
...     page.tap(page.find(text="Network & internet")[0])

Verbs act on refs of the **last** snapshot (``[ref=N]``). Refs are stable within a Page: an
element keeps its number from snapshot to snapshot while it stays on screen, a new element
gets a new number, and a number is never given to another element (see
``docs/snapshot.md``). Wherever a ref is accepted, a selector works too:
``page.tap({"text": "OK"})`` or ``page.tap(Selector(desc_contains="send"))``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any

from baremobile.device import Device
from baremobile.errors import (
    Cancelled,
    InvalidArgument,
    PageClosed,
    RefCovered,
    RefNotFound,
    UnsupportedText,
    WebUnavailable,
)
from baremobile.keycodes import KEYCODES, keycode
from baremobile.page_device import DeviceVerbs
from baremobile.page_read import ReadVerbs
from baremobile.page_touch import GestureVerbs
from baremobile.page_wait import DIRECTIONS, WaitVerbs
from baremobile.page_web import WEB_TIMEOUT, WebVerbs
from baremobile.screenshot import Screenshot
from baremobile.selector import Selector, Target
from baremobile.shell_words import number, validate_package, validate_uri
from baremobile.snapshot import RefNode, Snapshot, StreamPruner
from baremobile.snapshot.diff import History
from baremobile.snapshot.identity import RefTracker
from baremobile.snapshot.tree import Node
from baremobile.text_input import HIDDEN_PASSWORD_DELETES, clear_plan, typing_plan
from baremobile.transport import DUMP_TIMEOUT, Transport, open_transport
from baremobile.transport.cancel import CancelToken, cancel_scope

__all__ = ["Page", "Selector", "Screenshot", "connect", "snapshot", "Target"]


# ---------------------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------------------


class Page(WaitVerbs, GestureVerbs, DeviceVerbs, ReadVerbs, WebVerbs):
    """An Android device as an agent sees it. Create it with :func:`connect`.

    Thread-safe: calls are serialised per page. Use as a context manager, or call
    :meth:`close`. :meth:`cancel` (from any thread) stops the verb in flight at once.
    """

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.device = Device(transport)
        self._last: Snapshot | None = None
        self._refs = RefTracker()  # stable refs for the page's whole life
        self._seen = History()  # what diff=True observations are taken against
        self._lock = threading.RLock()
        self._closed = False
        #: allow :meth:`eval_js` (off by default: a script can do anything the page can)
        self.allow_eval = False
        self._web = True  # whether the last snapshot merged web content (``web=``)
        self._token: CancelToken | None = None  # the verb in flight

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def serial(self) -> str:
        """The device's serial (``emulator-5554``, ``192.168.1.7:5555`` …)."""
        return self.transport.serial

    @property
    def last_snapshot(self) -> Snapshot | None:
        """The snapshot refs currently refer to (None before the first)."""
        return self._last

    @contextlib.contextmanager
    def _using(self) -> Iterator[None]:
        """Hold the page for one verb, under a cancel token of its own; a closed page
        refuses. A verb inside a verb (a snapshot a tap takes) shares the outer token.

        The verb either settles (everything it did is kept) or is cancelled: then it raises
        :class:`~baremobile.errors.Cancelled` and :attr:`last_snapshot` is what it was."""
        with self._lock:
            if self._closed:
                raise PageClosed(f"the page for {self.serial} is closed")
            if self._token is not None:
                yield
                return
            before = self._last
            with cancel_scope() as token:
                self._token = token
                try:
                    yield
                    token.settle(f"the call on {self.serial}")
                except BaseException as exc:
                    if token.cancelled:
                        self._last = before
                        if not isinstance(exc, Cancelled):
                            raise Cancelled(
                                f"the call on {self.serial} was cancelled ({token.reason})"
                            ) from exc
                    raise
                finally:
                    self._token = None

    def cancel(self, reason: str = "Page.cancel()") -> bool:
        """Cancel the verb in flight, from any thread, without waiting for the device.

        Its device I/O is aborted at once (the connection is dropped; the next verb
        reconnects), nothing more is sent for it, and it raises
        :class:`~baremobile.errors.Cancelled`. The page stays usable. Returns False when no
        verb was running (or it had just finished)."""
        token = self._token
        return token.cancel(reason) if token is not None else False

    def close(self) -> None:
        """Release the connection (and stop the embedded virtual phone, if any).

        A verb still running (in another thread) is cancelled at once and raises
        :class:`~baremobile.errors.Cancelled`; later verbs raise
        :class:`~baremobile.errors.PageClosed`."""
        if not self._closed:
            self._closed = True
            token = self._token
            if token is not None:
                token.cancel("the page was closed")
            self.transport.shutdown()

    def __enter__(self) -> Page:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Page {self.serial} via {self.transport.kind}>"

    # -- observing ----------------------------------------------------------------------
    def snapshot(
        self,
        *,
        diff: bool = False,
        stable: bool = False,
        timeout: float = DUMP_TIMEOUT,
        max_chars: int | None = None,
        max_depth: int | None = None,
        max_nodes: int | None = None,
        web: bool = True,
    ) -> Snapshot:
        """Dump the screen and return the pruned :class:`Snapshot`; verbs act on its refs.

        The dump is streamed into the pruner as it arrives. Refs stay the same for elements
        that were in the previous snapshots. ``diff=True`` makes :attr:`Snapshot.text` show
        only what changed since the previous snapshot, or since an earlier ``diff=True``
        observation when the screen came back to it (``# snapshot 7, diff from snapshot 3``;
        ``.number`` is its number, ``.refs`` still holds every ref, ``.full_text`` is the
        whole screen); a diff is never cut by the limits, but one longer than ``max_chars``
        gives way to the cut full text. With ``stable=True``
        dumps are repeated until two in a row are identical (animations settled) or
        ``timeout`` passes (then the last one is returned). With ``web`` (the default), the
        pages of the foreground app's debuggable WebViews (and Chrome's tab) are read
        through the DevTools protocol and shown inside their WebView, refs in the same
        sequence; a page that cannot be read becomes a ``# web: …`` line (``docs/web.md``).
        """
        limits = {
            k: v
            for k, v in (
                ("max_chars", max_chars),
                ("max_depth", max_depth),
                ("max_nodes", max_nodes),
            )
            if v is not None
        }
        if "max_chars" in limits and (
            isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1
        ):
            raise InvalidArgument(f"max_chars must be a whole number ≥ 1, not {max_chars!r}")
        with self._using():
            self._web = bool(web)
            deadline = time.monotonic() + timeout
            snap = self._dump(limits, timeout, web)
            if stable:
                while time.monotonic() < deadline:
                    again = self._dump(limits, max(1.0, deadline - time.monotonic()), web)
                    if again.text == snap.text:
                        snap = again
                        break
                    snap = again
            if diff:
                snap = snap.diff_from(self._seen, max_chars=max_chars)
            else:
                self._seen.seen(snap.full_text)
            self._last = snap
            return snap

    def _dump(self, limits: dict[str, int], timeout: float, web: bool = False) -> Snapshot:
        """A snapshot of the screen now, numbered by the page's tracker (with ``web``, its
        pages merged in: :mod:`baremobile.page_web`)."""
        if web:
            return self._web_dump(limits, timeout, self._refs)
        self._web_seen = False  # no page was looked for: no web field to type into
        return self._read_dump(limits, timeout, self._refs)[0]

    def _read_dump(self, limits: dict[str, int], timeout: float, tracker: RefTracker | None,
                   *, keep: bool = False) -> tuple[Snapshot, bytes]:
        """(the pruned dump, its bytes when ``keep``, else ``b""``)."""
        # the device's output as it arrives (status text, then the XML), through the one path
        # from_xml takes too; each chunk is fed when the next arrives, so the last is known
        pruner = StreamPruner(**limits, tracker=tracker)  # type: ignore[arg-type]
        kept: list[bytes] = []
        held: bytes | None = None
        for chunk in self.device.dump_stream(timeout=timeout):
            if held is not None:
                pruner.feed(held)
            held = chunk
            if keep:
                kept.append(bytes(chunk))
        pruner.feed(held or b"", last=True)
        return pruner.close(), b"".join(kept)

    def find(
        self, selector: Selector | Mapping[str, Any] | None = None, /, **fields_: Any
    ) -> list[Node]:
        """Elements of the last snapshot (taken now if there is none) matching a selector."""
        sel = Selector.of(selector if selector is not None else fields_)
        with self._using():
            snap = self._last or self.snapshot()
            return sel.matches(snap)

    # -- resolving targets --------------------------------------------------------------
    def _ref(self, ref: int) -> RefNode:
        if self._last is None:
            raise RefNotFound(
                f"ref {ref}: there is no snapshot yet",
                hint="take a snapshot ({snapshot}) and use a ref from it",
            )
        try:
            return self._last.refs[ref]
        except KeyError:
            pass
        hint = (
            "take a new snapshot ({snapshot}) and use a ref from it (an element keeps its ref "
            "while it stays on screen)"
        )
        if self._refs.issued(ref):
            what = self._refs.gone.get(ref)
            raise RefNotFound(
                f"ref {ref}{f' ({what})' if what else ''} is gone: its element is not on the "
                "screen any more",
                hint=hint,
            )
        raise RefNotFound(
            f"ref {ref} was never given on this page"
            + (f" (refs so far: 1–{self._refs.next - 1})" if self._refs.next > 1 else ""),
            hint=hint,
        )

    def _target(
        self, target: Target
    ) -> tuple[tuple[int, int], tuple[int, int, int, int], RefNode | None]:
        """(tap point, bounds, RefNode or None) for a ref or a selector."""
        if isinstance(target, bool):
            raise InvalidArgument(f"a ref is a number from the snapshot, not {target!r}")
        if isinstance(target, int):
            node = self._ref(target)
            return node.center, node.bounds, node
        if isinstance(target, str) and target.strip().isdigit():
            return self._target(int(target))
        if isinstance(target, (Selector, Mapping)):
            sel = Selector.of(target)
            fresh = self._last is None
            snap = self._last if self._last is not None else self.snapshot()
            found = sel.matches(snap)
            if len(found) <= sel.index and not fresh:  # the screen may have moved on
                snap = self.snapshot()
                found = sel.matches(snap)
            if len(found) > sel.index:
                n = found[sel.index]
                if n.ref is not None:
                    ref = snap.refs[n.ref]
                    return ref.center, ref.bounds, ref
                vis = n.vis or (0, 0, 0, 0)
                return ((vis[0] + vis[2]) // 2, (vis[1] + vis[3]) // 2), vis, None
            raise RefNotFound(
                f"nothing on screen matches {sel}",
                hint="take a snapshot and check the element's text, desc or id",
            )
        raise InvalidArgument(
            f"target must be a ref (int) or a selector, not {type(target).__name__}"
        )

    def _touch_point(self, target: Target) -> tuple[int, int, int, RefNode | None]:
        """(x, y, display, RefNode) to touch; refuses a point under another window."""
        (x, y), _, node = self._target(target)
        if node is not None and node.covered:
            raise RefCovered(
                f"ref {node.ref} ({node.label or node.role}) lies under another window "
                "(the keyboard or a dialog): a tap there would land on that window"
            )
        return x, y, (node.display if node is not None else 0), node

    # -- acting -------------------------------------------------------------------------
    def tap(self, target: Target) -> None:
        """Tap the element (its tap point: visible, and not under another window)."""
        with self._using():
            x, y, display, _ = self._touch_point(target)
            self.device.tap(x, y, display=display)

    def long_press(self, target: Target, ms: int = 1000) -> None:
        """Press and hold (a zero-distance swipe of ``ms`` milliseconds)."""
        ms = number("ms", ms, minimum=1, maximum=60_000)
        with self._using():
            x, y, display, _ = self._touch_point(target)
            self.device.swipe(x, y, x, y, ms, display=display)

    def tap_xy(self, x: float, y: float) -> None:
        """Tap screen coordinates."""
        xi = number("x", x, minimum=0, maximum=100_000)
        yi = number("y", y, minimum=0, maximum=100_000)
        with self._using():
            self.device.tap(xi, yi)

    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int = 300) -> None:
        """Swipe between two screen points over ``ms`` milliseconds."""
        pts = [
            number(n, v, minimum=0, maximum=100_000)
            for n, v in (("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2))
        ]
        d = number("ms", ms, minimum=1, maximum=60_000)
        with self._using():
            self.device.swipe(*pts, d)

    def scroll(
        self, target: Target | None, direction: str = "down", amount: float = 0.6, ms: int = 400
    ) -> None:
        """Scroll inside an element (or the screen when ``target`` is None).

        ``direction`` is where the content should go: ``"down"`` reveals what is below.
        ``amount`` is the fraction of the element's height (or width) to move (0–1].
        """
        if direction not in DIRECTIONS:
            raise InvalidArgument(
                f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}"
            )
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not 0 < amount <= 1:
            raise InvalidArgument(f"amount must be a fraction in (0, 1], not {amount!r}")
        d = number("ms", ms, minimum=1, maximum=10_000)
        with self._using():
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

    def type(self, target: Target, text: str, *, clear: bool = False, submit: bool = False) -> None:
        """Type ``text`` into a field so that it holds exactly that text.

        Taps the field first unless it is focused; ``clear=True`` empties it first (any
        length); ``submit=True`` presses Enter afterwards. Raises
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
        with self._using():
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

    def _type_into_page(self, target: Target, text: str, unsupported: UnsupportedText, *,
                        clear: bool, submit: bool) -> None:
        """Text ``input text`` cannot type, into a field of a web page (a debuggable WebView
        or Chrome): the device's tap focuses the field (unless the snapshot shows it
        focused), DevTools' ``Input.insertText`` puts the text in. Anywhere else
        ``unsupported`` is raised, nothing sent."""
        _, _, node = self._target(target)
        x, y, display, _node = self._touch_point(target)
        found = self._web_view_at(x, y, DUMP_TIMEOUT)
        if found is None:
            raise unsupported
        try:
            field = self._web_field(*found, timeout=WEB_TIMEOUT)
            if node is None or not node.focused:  # as natively: a focused field keeps its caret
                self.device.run_all([self.device.tap_argv(x, y, display=display)])
            field.type(text, clear=clear)
        except WebUnavailable as exc:
            raise UnsupportedText(
                unsupported.characters,
                hint=f"{exc.message}: text beyond ASCII reaches a web page's focused field "
                "only (DevTools); native fields take printable ASCII") from None
        if submit:
            self.device.run_all([["input", "keyevent", str(KEYCODES["ENTER"])]])

    def focused_field(self) -> RefNode | None:
        """The text field that has focus, read from the device now (a fresh dump; the last
        snapshot and its refs are left as they are). None when no text field has focus.

        Its ``text`` is the field's content as the dump shows it: a password's characters
        as bullets (Android 8+), the hint when the field is empty.
        """
        with self._using():  # a field in a page too, when snapshots read pages
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

    def press(self, key: str | int) -> None:
        """Press a key: a name (``back``, ``home``, ``enter``, ``KEYCODE_MEDIA_PLAY``) or a code."""
        code = keycode(key)
        with self._using():
            self.device.keyevent(code)

    def back(self) -> None:
        self.press("back")

    def home(self) -> None:
        self.press("home")

    def recents(self) -> None:
        self.press("app_switch")

    def launch(self, package: str | None = None, *, label: str | None = None) -> str:
        """Start an app (its launcher activity) by package name, or by the ``label`` the
        launcher shows (read from the apps' APKs on the device); returns the package."""
        if (package is None) == (label is None):
            raise InvalidArgument("give the app's package or its label (one of them)")
        if package is not None:
            validate_package(package)
        with self._using():
            package = package or self._apps().by_label(label)  # type: ignore[arg-type]
            self.device.launch(package)
            return package

    def open_url(self, uri: str) -> None:
        """Open a URI with the app that handles it (ACTION_VIEW)."""
        validate_uri(uri)
        with self._using():
            self.device.start_activity(action="android.intent.action.VIEW", data=uri)

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
        with self._using():
            return self.device.start_activity(
                action=action,
                data=data,
                extras=extras,
                component=component,
                categories=categories,
                package=package,
                flags=flags,
            )

    def screenshot(self) -> Screenshot:
        """The screen as a PNG (binary-safe ``exec:``, stderr kept out)."""
        with self._using():
            return Screenshot(self.device.screencap())


def connect(device: str | None = None, **options: Any) -> Page:
    """Connect to an Android device and return its :class:`Page`.

    ``device``: ``None``/``"auto"``, ``"host:port"``, ``"usb"``/``"usb:SERIAL"``, a serial
    known to a running adb server, or ``"virtual"`` (the built-in virtual phone). Options:
    ``timeout``, ``auth_timeout``, ``on_auth_prompt``, ``key_path``, ``connect_timeout``,
    and for ``"virtual"`` ``scenario`` / ``api_level`` / ``profile``.
    """
    return Page(open_transport(device, **options))


def snapshot(device: str | None = None, **options: Any) -> Snapshot:
    """One-shot: connect, snapshot, close."""
    with connect(device, **options) as page:
        return page.snapshot()
