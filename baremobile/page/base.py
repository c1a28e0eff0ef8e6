"""``PageBase``: what every verb family of :class:`~baremobile.page.Page` stands on.

It owns the page's state — the transport and :class:`~baremobile.device.core.Device`, the
device's verb families (apps, files, system, touch), the last snapshot and the
:class:`~baremobile.snapshot.identity.RefTracker` that keeps its refs stable, the
observation history ``diff=True`` compares with, the lock and the cancel token of the verb
in flight — and the three things every verb needs:

* **the per-verb guard** (:func:`verb`): a public verb runs holding the page (one verb at
  a time per page, from any thread), under a cancel token of its own; a verb inside a verb
  shares it. The guard tells the page's observers (tracing) each outermost verb's name,
  arguments, result or error and timing, and counts the verbs that may change the screen;
* **observing** (:meth:`PageBase.snapshot`, :meth:`PageBase.find`): the dump streamed into
  the pruner, web pages merged in;
* **resolving targets**: a ref or a selector to the point to touch — read again from the
  screen when a verb that may have changed it ran since the last snapshot (one dump; none
  while the snapshot is fresh, or with :attr:`PageBase.trust_refs`) — and whether the
  element can take the action (not covered by another window, not disabled).

Verb families (``actions``, ``waits``, ``gestures``, ``apps``, ``files``, ``system``,
``reading``, ``web``) are subclasses of this base, so everything they reach on the host is
declared here, typed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from types import TracebackType
from typing import Any, cast

from baremobile.device.apps import Apps
from baremobile.device.core import Device
from baremobile.device.files import Files
from baremobile.device.prefs import Prefs
from baremobile.device.system import System
from baremobile.device.touch import Touch
from baremobile.errors import (
    Cancelled,
    ElementDisabled,
    InvalidArgument,
    PageClosed,
    RefCovered,
    RefNotFound,
)
from baremobile.page.selector import Selector, Target
from baremobile.page.steps import (
    _NESTED,
    Step,
    StepObserver,
    Typed,
    _Frame,
    refused,
    sent_nothing,
    verb,
)
from baremobile.page.whynot import around_changed, describe, dialog_over, why_not
from baremobile.snapshot import RefNode, Snapshot, StreamPruner
from baremobile.snapshot.diff import History
from baremobile.snapshot.identity import HISTORY, RefTracker
from baremobile.snapshot.tree import Node
from baremobile.trace.record import Tracing
from baremobile.transport import DUMP_TIMEOUT, Transport
from baremobile.transport.cancel import CancelToken, cancel_scope

__all__ = ["PageBase", "WEB_TIMEOUT"]

#: The most a snapshot waits for its pages (the native part never waits for them).
WEB_TIMEOUT = 15.0

class PageBase:
    """The state and the guard every verb family uses (see the module's docs).

    Thread-safe: calls are serialised per page. Use as a context manager, or call
    :meth:`close`. :meth:`cancel` (from any thread) stops the verb in flight at once.
    """

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.device = Device(transport)
        #: the device's verb families over :attr:`device` (each with caches of its own)
        self._apps = Apps(self.device)
        self._files = Files(self.device)
        self._prefs = Prefs(self.device)
        self._system = System(self.device)
        self._touch = Touch(self.device)
        self._last: Snapshot | None = None
        self._refs = RefTracker()  # stable refs for the page's whole life
        self._seen = History()  # what diff=True observations are taken against
        self._lock = threading.RLock()
        self._closed = False
        #: allow :meth:`~baremobile.page.Page.eval_js` (off by default: a script can do
        #: anything the page can)
        self.allow_eval = False
        self._web = True  # whether the last snapshot merged web content (``web=``)
        #: whether the last snapshot's screen showed a WebView (text beyond ASCII can only
        #: go to a page: without one, ``type`` refuses it without asking the device)
        self._web_seen = False
        self._token: CancelToken | None = None  # the verb in flight
        self._step: Step | None = None  # the outermost verb in flight
        self._observers: list[StepObserver] = []
        #: how many verbs that may change the screen have run (see :func:`verb`)
        self.actions = 0
        #: :attr:`actions` when the last snapshot was taken
        self._snapshot_actions = 0
        #: records this page's steps into a trace file (``page.tracing.start(path)``;
        #: ``docs/traces.md``)
        self.tracing = Tracing(self)
        #: given every raw dump a verb reads, while a recording asks for them
        self._dump_sink: Callable[[bytes], None] | None = None
        #: act on refs and selectors as the last snapshot shows them even when a verb that
        #: may have changed the screen ran since (no dump to read them again): for scripts
        #: that know their screen and want the speed. Off by default — see docs/page.md
        self.trust_refs = False
        #: what the last ``type`` did (``verify_typed`` checks the field holds it)
        self._typed: Typed | None = None
        #: the snapshots before the last one, newest first (what a gone ref was, and where)
        self._recent: deque[Snapshot] = deque(maxlen=HISTORY)
        #: the screen read again to resolve targets since the last snapshot went stale, and
        #: :attr:`actions` when it was read (see :meth:`_screen`)
        self._now: tuple[int, Snapshot] | None = None

    # -- lifecycle ----------------------------------------------------------------------
    @property
    def serial(self) -> str:
        """The device's serial (``emulator-5554``, ``192.168.1.7:5555`` …)."""
        return self.transport.serial

    @property
    def last_snapshot(self) -> Snapshot | None:
        """The snapshot refs currently refer to (None before the first)."""
        return self._last

    def observe(self, observer: StepObserver) -> Callable[[], None]:
        """Have ``observer`` told of every outermost verb call (tracing uses this); returns
        a function that stops it."""
        self._observers.append(observer)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._observers.remove(observer)

        return stop

    @contextlib.contextmanager
    def _using(self, name: str = "", args: tuple[Any, ...] = (),
               kwargs: Mapping[str, Any] | None = None, *,
               acts: bool = False) -> Iterator[_Frame]:
        """Hold the page for one verb, under a cancel token of its own; a closed page
        refuses. A verb inside a verb (a snapshot a tap takes) shares the outer token.

        The verb either settles (everything it did is kept) or is cancelled: then it raises
        :class:`~baremobile.errors.Cancelled` and :attr:`last_snapshot` is what it was.
        Yields whether the verb is the outermost one, and the :class:`Step` observers are
        shown (None when nobody observes)."""
        with self._lock:
            if self._closed:
                raise PageClosed(f"the page for {self.serial} is closed")
            sent = self.device.sent  # acting commands sent so far (Device.sent)
            if self._token is not None:
                counted = acts
                try:
                    yield _NESTED
                except BaseException as exc:
                    counted = acts and (self.device.sent != sent or not sent_nothing(exc))
                    raise
                finally:
                    if counted:
                        self.actions += 1
                return
            before = self._last
            step = None
            if self._observers and name:
                step = self._step = Step(name, args, dict(kwargs or {}), acts, time.time())
                self._tell("step_started", step)
            began = time.monotonic()
            counted = acts
            with cancel_scope() as token:
                self._token = token
                try:
                    yield _Frame(True, step)
                    token.settle(f"the call on {self.serial}")
                except BaseException as exc:
                    # refused or rejected before anything was sent: the screen is as it was
                    counted = acts and (self.device.sent != sent or not sent_nothing(exc))
                    if token.cancelled:
                        self._last = before
                        if not isinstance(exc, Cancelled):
                            exc2 = Cancelled(
                                f"the call on {self.serial} was cancelled ({token.reason})"
                            )
                            if step is not None:
                                step.error = exc2
                            raise exc2 from exc
                    if step is not None:
                        step.error = exc
                    raise
                finally:
                    self._token = None
                    if counted:
                        self.actions += 1
                    if step is not None:
                        step.seconds = time.monotonic() - began
                        self._step = None
                        self._tell("step_ended", step)

    def _sent(self, kind: str, points: Any, **more: Any) -> None:
        """Tell the outermost verb's observers what it sends to the screen now (a touch:
        ``kind``, its ``points`` and ``ms``, ``scale`` or ``paths``; :attr:`Step.sent`):
        a recording keeps the point a tap went to, not only the element."""
        step = self._step
        if step is not None:
            step.sent.append({"kind": kind, "points": [list(p) for p in points], **more})

    def _tell(self, what: str, step: Step) -> None:
        for observer in list(self._observers):
            with contextlib.suppress(Exception):  # an observer never breaks a verb
                getattr(observer, what)(self, step)

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
            self.tracing.closing()  # what was recorded is written; no more device I/O
            self.transport.shutdown()

    def __enter__(self) -> PageBase:
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
    @verb()
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
        observation when the screen came back to it (``# diff 7 from 3``;
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
        self._web = bool(web)
        deadline = time.monotonic() + timeout
        actions = self.actions
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
        if self._last is not None:
            self._recent.appendleft(self._last)
        self._last = snap
        self._snapshot_actions = actions
        return snap

    def _dump(self, limits: dict[str, int], timeout: float, web: bool = False) -> Snapshot:
        """A snapshot of the screen now, numbered by the page's tracker (with ``web``, its
        pages merged in)."""
        if web:
            return self._web_dump(limits, timeout, self._refs)
        self._web_seen = False  # no page was looked for: no web field to type into
        return self._read_dump(limits, timeout, self._refs)[0]

    def _read_dump(self, limits: dict[str, int], timeout: float, tracker: RefTracker | None,
                   *, keep: bool = False) -> tuple[Snapshot, bytes]:
        """(the pruned dump, its bytes when ``keep``, else ``b""``); a recording
        (:attr:`tracing`) is handed the bytes too."""
        sink = self._dump_sink
        keep = keep or sink is not None
        # the device's output as it arrives (status text, then the XML), through the one path
        # from_xml takes too; each chunk is fed when the next arrives, so the last is known
        pruner = StreamPruner(tracker=tracker, **cast("dict[str, Any]", limits))
        kept: list[bytes] = []
        held: bytes | None = None
        for chunk in self.device.dump_stream(timeout=timeout):
            if held is not None:
                pruner.feed(held)
            held = chunk
            if keep:
                kept.append(bytes(chunk))
        pruner.feed(held or b"", last=True)
        snap, data = pruner.close(), b"".join(kept)
        if sink is not None:
            sink(data)
        return snap, data

    def _raw_dump(self) -> bytes:
        """The screen's raw dump now, outside any verb's bookkeeping (no refs, no
        history): what a recording reads when it starts and stops."""
        with self._using():
            return self._read_dump({}, DUMP_TIMEOUT, None, keep=True)[1]

    def _web_dump(self, limits: dict[str, int], timeout: float,
                  tracker: RefTracker | None) -> Snapshot:
        """The screen with its foreground WebViews' pages merged in.

        A screen whose dump mentions a WebView is pruned twice: first natively, to find the
        foreground app's WebViews and where they are, then — once their pages were read
        through the DevTools protocol — again with the pages spliced into their WebViews.
        Only the tree an agent is shown may move the page's tracker: the native pass
        numbers its refs on a :meth:`~baremobile.snapshot.identity.RefTracker.fork`, the
        merged pass on the tracker itself, so web refs stay as stable as native ones. When
        no page could be merged, the native pass was the one shown: the tracker adopts its
        fork. The ``[web]`` layer is imported only when a dump mentions a WebView."""
        fork = tracker.fork() if tracker is not None else None
        snap, dump = self._read_dump(limits, timeout, fork, keep=True)
        self._web_seen = b"WebView" in dump
        merged: Snapshot | None
        notes: list[str]
        if not self._web_seen:  # most screens: one byte search
            merged, notes = None, []
        else:
            from baremobile.web.merge import with_web

            merged, notes = with_web(self.transport, snap, dump, tracker=tracker,
                                     timeout=min(timeout, WEB_TIMEOUT), **limits)
        if merged is not None:
            return merged
        if tracker is not None and fork is not None:
            tracker.adopt(fork)  # the native pass is what is shown
        return snap.add_notes(notes, limits.get("max_chars"))

    @verb()
    def find(
        self, selector: Selector | Mapping[str, Any] | None = None, /, **fields_: Any
    ) -> list[Node]:
        """Elements of the screen matching a selector: of the last snapshot, or — when there
        is none, or a verb that may have changed the screen ran since (and refs are not
        trusted, :attr:`trust_refs`) — of the screen read now (one dump). With ``index``,
        only that match (as ``tap`` and ``type`` take it), or none."""
        sel = Selector.of(selector if selector is not None else fields_)
        snap = self._refresh() if self._last is None or self._stale() else self._last
        return sel.pick(sel.matches(snap))

    # -- resolving targets --------------------------------------------------------------
    def _stale(self) -> bool:
        """Whether the last snapshot may not show the screen as it is: a verb that may
        change it ran since (and refs are not trusted, :attr:`trust_refs`)."""
        return (self._last is not None and not self.trust_refs
                and self._snapshot_actions != self.actions)

    def _read_since_acting(self) -> bool:
        """Whether the screen was read after the last verb that may have changed it (the
        last snapshot, or a re-read for a target): what it shows is the screen now, even
        where refs are trusted."""
        return (self._last is not None and self._snapshot_actions == self.actions) or \
            (self._now is not None and self._now[0] == self.actions)

    def _refresh(self) -> Snapshot:
        """The screen read again for the caller (``find`` when stale): one dump, web pages
        merged as the last snapshot did; it becomes :attr:`last_snapshot` (refs keep their
        numbers). Not an observation: ``diff=True`` snapshots are still taken against what
        the caller was shown."""
        return self.snapshot(web=self._web)

    def _screen(self) -> Snapshot:
        """The screen targets are resolved against: the last snapshot while it is fresh (or
        refs are trusted); else the screen read again now — one dump per change, through
        the page's tracker (refs keep their numbers) — which is not shown to the caller:
        :attr:`last_snapshot` stays the snapshot the caller's refs come from, and a later
        verb on them reads the screen again."""
        assert self._last is not None
        if not self._stale():
            return self._last
        if self._now is None or self._now[0] != self.actions:
            self._now = (self.actions, self._dump({}, DUMP_TIMEOUT, self._web))
        return self._now[1]

    def _ref(self, ref: int) -> RefNode:
        if self._last is None:
            raise refused(RefNotFound(
                f"ref {ref}: there is no snapshot yet",
                hint="take a snapshot ({snapshot}) and use a ref from it",
            ))
        now = self._screen()
        if ref not in now.refs:
            raise refused(why_not(ref, now, [s for s in (self._last, *self._recent)
                                             if s is not now], self._refs))
        if now is not self._last:  # read again: is it still the element the caller saw?
            before = next((s for s in (self._last, *self._recent) if ref in s.refs), None)
            changed = around_changed(ref, before, now) if before is not None else None
            if changed is not None:  # a look-alike on another screen, not the element
                raise refused(changed)
        return now.refs[ref]  # the same element, wherever it is now

    def _target(
        self, target: Target
    ) -> tuple[tuple[int, int], tuple[int, int, int, int], RefNode | None]:
        """(tap point, bounds, RefNode or None) for a ref or a selector."""
        point, bounds, node = self._resolve(target)
        if node is not None and self._step is not None and self._step.target is None:
            self._step.target = node
        return point, bounds, node

    def _resolve(
        self, target: Target
    ) -> tuple[tuple[int, int], tuple[int, int, int, int], RefNode | None]:
        if isinstance(target, bool):
            raise InvalidArgument(f"a ref is a number from the snapshot, not {target!r}")
        if isinstance(target, int):
            node = self._ref(target)
            return node.center, node.bounds, node
        if isinstance(target, str) and target.strip().isdigit():
            return self._resolve(int(target))
        if isinstance(target, (Selector, Mapping)):
            sel = Selector.of(target)
            fresh = self._last is None or self._stale()
            snap = self._refresh() if self._last is None else self._screen()
            found = sel.matches(snap)
            if len(found) <= sel.position and not fresh:  # the screen may have moved on
                snap = self._refresh()
                found = sel.matches(snap)
            if len(found) > sel.position:
                n = found[sel.position]
                if n.ref is not None:
                    ref = snap.refs[n.ref]
                    return ref.center, ref.bounds, ref
                vis = n.vis or (0, 0, 0, 0)
                point = ((vis[0] + vis[2]) // 2, (vis[1] + vis[3]) // 2)
                if self._step is not None and self._step.target is None:
                    # what the selector matched, though it has no ref (ref 0): traces
                    # show and replay the element, not just a point
                    self._step.target = dataclasses.replace(RefNode.from_node(n),
                                                            ref=0, center=point)
                return point, vis, None
            raise refused(RefNotFound(
                f"nothing on screen matches {sel}",
                hint="take a snapshot and check the element's text, desc or id",
            ))
        raise InvalidArgument(
            f"target must be a ref (int) or a selector, not {type(target).__name__}"
        )

    def _touch_point(self, target: Target, *, enabled: bool = True
                     ) -> tuple[int, int, int, RefNode | None]:
        """(x, y, display, RefNode) to touch; refuses a point under another window and —
        with ``enabled`` (acting on the element, not just pointing at it) — a disabled
        element."""
        (x, y), _, node = self._target(target)
        if node is not None and node.covered:
            raise refused(RefCovered(
                f"ref {node.ref} ({node.label or node.role}) lies under another window "
                "(the keyboard or a dialog): a tap there would land on that window; nothing "
                "was sent"
            ))
        if node is not None:
            dialog = dialog_over(self._screen(), node)
            if dialog:
                raise refused(RefCovered(
                    f"ref {node.ref} ({self._words(node)}) is in the app behind a dialog "
                    f"({dialog}): a tap there would close the dialog or be ignored; nothing "
                    "was sent",
                    hint="answer or close the dialog ({back}), then take a new snapshot "
                         "({snapshot})"))
        if enabled and node is not None:
            self._check_enabled(node)
        return x, y, (node.display if node is not None else 0), node

    def _words(self, node: RefNode) -> str:
        """How messages name ``node`` of the screen as resolved (:func:`describe`)."""
        snap = self._screen() if self._last is not None else None
        line = snap.refs.node(node.ref) if snap is not None and node.ref in snap.refs else None
        return describe(node, line)

    def _check_enabled(self, node: RefNode) -> None:
        if not node.enabled:
            raise refused(ElementDisabled(
                f"ref {node.ref} ({self._words(node)}) is disabled: a touch would do nothing; "
                "nothing was sent"))
