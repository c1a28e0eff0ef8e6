"""``ScreenModel``: the phone's screen, its one public face.

It wires the rooms of the screen together and serialises access to them (every public
method takes one lock; nothing is random; times come from ``clock``). Imports point one
way::

    screen_model ─► touch ─► gestures
                      │ ─► keys ─► reactions ─► state ─► display, clock
                      │                             ▲
                      └─► render ─► filters, system_ui, shade
    screen_model ─► paint (the PNG of what render drew)
    screen_model ─► installs (what pm install adds: a screen, a launcher icon) ─► display
    screen_model ─► web (a real browser behind web screens) ─► web_input, state, display

See ``docs/scenarios.md`` for the behaviour and ``docs/architecture.md`` for the rooms.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from baremobile.virtual.scenario import DEMO_PATH, Scenario, load_cached
from baremobile.virtual.uixml import Node, element_id, serialize

from .clock import Clock, PhoneClock
from .display import Display
from .gestures import GestureTracker, recognize
from .installs import installed_app, with_icon
from .keys import KeyInput
from .paint import paint
from .reactions import Reactions
from .render import Renderer
from .replay import Replay
from .shade import KINDS as SHADE_KINDS
from .state import AppInfo, ScreenInstance, ScreenState
from .system_ui import DEFAULT_LAUNCHER, default_launcher
from .touch import TouchInput
from .web import WebRoom

__all__ = ["ScreenModel"]


class InputField(TypedDict):
    """The text field the input method serves (:meth:`ScreenModel.input_state`)."""

    cls: str
    rid: str
    hint: str
    password: bool
    web: bool  # a page's focused input in a WebView
    value: str


class InputState(TypedDict):
    """What the input method service knows (:meth:`ScreenModel.input_state`)."""

    package: str
    activity: str
    field: InputField | None  # None: no view takes text
    shown: bool
    screen_on: bool


def _same_rotation(rotation: int) -> int:
    return rotation % 4


class ScreenModel:
    """What the phone shows, and how it reacts to input."""

    width: int
    height: int
    density: int
    rotation: int

    def __init__(self, scenario: Scenario, clock: Clock | None = None) -> None:
        """A phone showing ``scenario`` (see :meth:`from_scenario`); ``clock`` gives the time
        for the status bar and message timestamps (default: the system clock)."""
        self._sc = scenario
        self._lock = threading.RLock()
        self.display = Display(scenario.width, scenario.height, scenario.density,
                               scenario.rotation, scenario.status_bar,
                               scenario.nav_bar == "buttons")
        self.width = scenario.width
        self.height = scenario.height
        self.density = scenario.density
        self.rotation = scenario.rotation
        #: this model's (portrait-laid) rotation → ``Surface.ROTATION_*``, which a dump
        #: reports: the same but on a landscape-natural display (the phone model sets it
        #: from its profile, :meth:`~baremobile.virtual.profiles.Profile.surface_rotation`)
        self.surface_of: Callable[[int], int] = _same_rotation
        apps = dict(scenario.apps)
        screens = dict(scenario.screens)
        home = scenario.home
        if home is None:
            sd, app = default_launcher(self.display, apps.values())
            screens["launcher"] = sd
            apps[app.package] = app
            home = DEFAULT_LAUNCHER
        self._state = ScreenState(scenario, PhoneClock(clock, scenario.utc_offset), screens,
                                  apps, home)
        self._renderer = Renderer(self._state, self.display)
        self._reactions = Reactions(self._state, self.display)
        self._keys = KeyInput(self._state, self._reactions)
        self._touch = TouchInput(self._state, self._renderer, self._reactions, self._keys,
                                 self.display)
        self._png_cache: tuple[Any, bytes] | None = None
        self._trackers: dict[str, GestureTracker] = {}
        self._web = WebRoom(self._state, self.display, {}, self._renderer.render)
        self._renderer.web = self._touch.web = self._keys.web = self._web
        #: a recorded scenario is played back, not simulated (``screens/replay.py``)
        self._replay = Replay(scenario) if scenario.recorded else None

    @classmethod
    def from_scenario(cls, path: str | os.PathLike[str] | None = None, clock: Clock | None = None
                      ) -> ScreenModel:
        """Load a scenario file; ``None`` loads the built-in demo.

        Raises :class:`~baremobile.virtual.scenario.ScenarioError` naming the file, the
        screen and the problem.
        """
        return cls(load_cached(Path(DEMO_PATH if path is None else path)), clock)

    def reset(self) -> None:
        """Back to the state right after loading (no tasks, screen on, at the start screen)."""
        with self._lock:
            self._state.reset()
            if self._replay is not None:
                self._replay.reset()
            self._renderer.clear()
            self._png_cache = None
            self._web.invalidate()

    def _web_sync(self) -> None:
        self._web.ensure(look=True)

    # -- the real browser -----------------------------------------------------------------
    def attach_browser(self, engine: Any, props: dict[str, str] | None = None) -> None:
        """Back web screens (``web:`` in the scenario) with ``engine``, a
        :class:`~baremobile.virtual.chromium.Chromium` started when first needed (None:
        the scenario's placeholders). ``props`` are the phone's system properties (the
        pages' user agent names the model and Android release)."""
        with self._lock:
            self._web.stop()
            self._web.attach(engine)
            if props is not None:
                self._web.props = props
            self._renderer.clear()

    @property
    def web(self) -> WebRoom:
        """The real browser's room: its pages, for the phone's DevTools sockets and tests."""
        return self._web

    def web_sync(self) -> None:
        """Bring the browser's pages in step with what is on screen now."""
        with self._lock:
            self._web_sync()

    def web_targets(self, package: str) -> list[tuple[str, str]]:
        """``(target id, description)`` of the pages ``package``'s process shows, front
        first (what its DevTools socket lists)."""
        with self._lock:
            self._web_sync()
            web = self._web
            return [(s.target or "", s.description(web.is_visible(s)))
                    for s in web.surfaces(package)]

    def web_packages(self) -> set[str]:
        """Packages with web screens (their processes host a DevTools socket)."""
        return self._web.web_packages()

    # -- what is installed / shown ------------------------------------------------------
    def apps(self) -> list[AppInfo]:
        """Every installed app, the scenario's plus the system's own."""
        with self._lock:
            return self._state.app_infos()

    def current(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the focused app window."""
        with self._lock:
            if self._replay is not None:
                return self._replay.current()
            return self._state.current()

    @property
    def scenario(self) -> Scenario:
        """The loaded scenario."""
        return self._sc

    @property
    def screen_on(self) -> bool:
        """Whether the display is on (POWER / SLEEP / WAKEUP change it)."""
        with self._lock:
            return self._state.screen_on

    @property
    def ime_visible(self) -> bool:
        """Whether the on-screen keyboard is shown."""
        with self._lock:
            return self._state.ime_shown()

    def input_state(self) -> InputState:
        """What the input method service knows now (``dumpsys input_method``): the focused
        window's ``package`` and ``activity``, the ``field`` it serves — ``{"cls", "rid",
        "hint", "password", "web", "value"}`` of the focused text field (a page's focused
        input for a WebView), or None when no view takes text — and whether the keyboard
        is ``shown``."""
        with self._lock:
            st = self._state
            pkg, act = st.current()
            field: InputField | None = None
            if st.screen_on and st.mode != "recents":
                node = st.focused_field()
                owner = st.focus_owner()
                if node is not None:
                    field = {"cls": node.cls, "rid": node.rid, "hint": node.get("hint"),
                             "password": node.flag("password"), "web": False,
                             "value": node.value or ""}
                elif (owner is not None and owner.web_node is not None
                      and owner.focus is owner.web_node and owner.web_editable):
                    n = owner.web_node
                    field = {"cls": n.cls, "rid": n.rid, "hint": "", "password": False,
                             "web": True, "value": ""}
            return {"package": pkg, "activity": act, "field": field,
                    "shown": st.ime_shown(), "screen_on": st.screen_on}

    @property
    def clipboard(self) -> str:
        """The clipboard (CTRL+C / CTRL+X fill it, CTRL+V pastes it)."""
        with self._lock:
            return self._state.clipboard

    @clipboard.setter
    def clipboard(self, value: str) -> None:
        with self._lock:
            self._state.clipboard = value

    @property
    def version(self) -> int:
        """A counter that changes whenever what is on screen may have changed."""
        with self._lock:
            return self._state.version

    def screen_name(self) -> str:
        """The scenario name of the screen in front (``"recents"`` for the overview)."""
        with self._lock:
            if self._replay is not None:
                return self._replay.screen
            return self._state.screen_name()

    def tasks(self) -> list[tuple[str, list[str]]]:
        """Recent tasks, most recent first: (package, screen names bottom to top)."""
        with self._lock:
            return [(t.package, [i.sd.name for i in t.stack]) for t in self._state.tasks]

    def describe(self) -> str:
        """A one-line summary of the state, for debugging and test failure messages."""
        with self._lock:
            return self._state.describe()

    # -- drawing --------------------------------------------------------------------------
    def _drawn(self) -> list[Node]:
        """The windows as the screen shows them now (in the current orientation)."""
        windows = self._renderer.render()
        if self.display.size == (self.display.width, self.display.height):
            return windows
        to_screen = self.display.to_screen

        def turn(n: Node) -> Node:
            return Node(n.attrs, to_screen(n.bounds), [turn(c) for c in n.children],
                        n.origin, src=n.src, meta=n.meta)

        return [turn(w) for w in windows]

    def dump_xml(self) -> bytes:
        """The current screen as uiautomator writes it (single line, UTF-8); its
        ``rotation`` is Android's surface rotation (:attr:`surface_of` this model's)."""
        with self._lock:
            if self._replay is not None:
                return self._replay.dump()
            self._web_sync()
            return serialize(self._drawn(), self.surface_of(self.rotation),
                             extras=self._sc.extras)

    def screenshot_png(self) -> bytes:
        """A valid PNG of the screen as it is now (``size``) depicting what it shows."""
        with self._lock:
            if self._replay is not None:
                return paint(self._replay.windows(), *self.display.size, True)
            key = (self._state.version, self._state.clock.minute(), self.rotation)
            if self._png_cache is not None and self._png_cache[0] == key:
                return self._png_cache[1]
            w, h = self.display.size
            data = paint(self._drawn(), w, h, self._state.screen_on)
            self._png_cache = (key, data)
            return data

    # -- the display ----------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels as the screen is now (sides swapped in landscape)."""
        with self._lock:
            return self.display.size

    def set_rotation(self, rotation: int) -> None:
        """Turn the display (``Surface.ROTATION_0/90/180/270`` = 0..3)."""
        with self._lock:
            r = int(rotation) % 4
            if r != self.rotation:
                self.rotation = self.display.rotation = r
                self._state.changed()

    # -- input (screen pixels of the current orientation) ---------------------------------
    def tap(self, x: float, y: float, down_ms: float | None = None,
            up_ms: float | None = None) -> dict[str, Any]:
        """A tap at (x, y) at ``down_ms``/``up_ms`` (default now, on the phone's clock):
        ``{"kind": "tap" | "double_tap", "interval_ms", "landed"}``, the interval being
        from the previous tap's lift to this one's touch-down (None after another gesture),
        ``landed`` where the touch went (taken before it acted: ``{"window", "on", "under"}``
        — the element that handles it and every element under the point, by the names the
        model gives its nodes, :meth:`~.touch.TouchInput.landed`)."""
        with self._lock:
            if self._replay is not None:
                down = self._touch.now_ms() if down_ms is None else down_ms
                kind = self._replay.tap(x, y, down, up_ms)
                return {"kind": kind, "interval_ms": None}
            lx, ly = self.display.to_layout(x, y)
            landed = self._touch.landed(lx, ly)
            kind, since = self._touch.tap(lx, ly, down_ms, up_ms)
            return {"kind": kind, "interval_ms": since, "landed": landed}

    def long_press(self, x: int, y: int, duration_ms: int = 1000) -> dict[str, Any]:
        """A touch held at (x, y) (what ``input swipe x y x y 1000`` does); returns where
        it landed (as :meth:`tap`)."""
        with self._lock:
            if self._replay is not None:
                self._replay.long_press(x, y)
                return {}
            lx, ly = self.display.to_layout(x, y)
            landed = self._touch.landed(lx, ly)
            self._touch.long_press(int(lx), int(ly), duration_ms)
            return landed

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> dict[str, Any]:
        """A swipe; a (near) zero-distance swipe of >= 500 ms is a long press. Returns
        where it started (as :meth:`tap`)."""
        with self._lock:
            if self._replay is not None:
                self._replay.swipe(x1, y1, x2, y2, duration_ms)
                return {}  # a recording's screens say nothing of where it landed
            a, b = self.display.to_layout(x1, y1), self.display.to_layout(x2, y2)
            landed = self._touch.landed(a[0], a[1])
            self._touch.swipe(int(a[0]), int(a[1]), int(b[0]), int(b[1]), duration_ms)
            return landed

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> dict[str, Any]:
        """Press, hold, move (``input draganddrop``): a long press where it starts. Returns
        where it started (as :meth:`tap`)."""
        with self._lock:
            if self._replay is not None:
                self._replay.drag(x1, y1, x2, y2, duration_ms)
                return {}
            a, b = self.display.to_layout(x1, y1), self.display.to_layout(x2, y2)
            landed = self._touch.landed(a[0], a[1])
            self._touch.drag(int(a[0]), int(a[1]), int(b[0]), int(b[1]), duration_ms)
            return landed

    def pinch(self, x: float, y: float, scale: float) -> bool:
        """Two fingers around (x, y) ending ``scale`` times as far apart; True if a
        zoomable screen (or the web page under them) zoomed."""
        with self._lock:
            if self._replay is not None:
                return self._replay.pinch(x, y, scale)
            lx, ly = self.display.to_layout(x, y)
            return self._touch.pinch(lx, ly, scale)

    def zoom(self) -> float:
        """The scale of the zoomable screen in front (1.0 when it has none)."""
        with self._lock:
            top = self._state.focus_owner()
            return top.scale if top is not None else 1.0

    def touch_frame(self, source: str, time_ms: float,
                    pointers: dict[int, tuple[float, float]]) -> list[dict[str, Any]]:
        """One frame of a touch panel (``source`` names it): the contacts down, by tracking
        id, in panel pixels of the natural orientation. When the last finger lifts, the
        gesture is recognised and done; returns what happened — ``{"kind": "gesture",
        "fingers", "points", "duration_ms"}`` then the recognised ``tap``/``double_tap``/
        ``long_press``/``swipe``/``drag``/``pinch`` — for the event log."""
        with self._lock:
            onscreen = {pid: self.display.from_panel(x, y) for pid, (x, y) in pointers.items()}
            tracker = self._trackers.setdefault(source, GestureTracker())
            g = tracker.frame(time_ms, onscreen)
            if g is None:
                return []
            what = recognize(g)
            out: list[dict[str, Any]] = [{"kind": "gesture", "fingers": g.fingers,
                                          "points": g.points(),
                                          "duration_ms": round(g.end_ms - g.start_ms, 3)}]
            if self._replay is not None and self._replay.gesture(
                    [[(t - g.start_ms, x, y) for t, x, y in tr.points] for tr in g.tracks]):
                return out  # a recorded gesture's rule took it whole
            k = what["kind"]
            if k == "tap":
                t = self.tap(what["x"], what["y"], g.start_ms, g.end_ms)
                if t["kind"] == "double_tap":
                    out.append({**what, "kind": "tap"})
                    what.update(t)
            elif k == "long_press":
                self.long_press(int(what["x"]), int(what["y"]), int(what["duration_ms"]))
            elif k in ("swipe", "drag"):
                getattr(self, k)(int(what["x1"]), int(what["y1"]), int(what["x2"]),
                                 int(what["y2"]), int(what["duration_ms"]))
            elif k == "pinch":
                what["zoomed"] = self.pinch(what["x"], what["y"], what["scale"])
            if k != "none":
                out.append(what)
            return out

    def type_text(self, text: str) -> str | None:
        """Characters into the focused editable field (no-op when nothing is focused);
        returns the name of the element that took them (None: nothing did; a page's
        focused WebView for web content)."""
        with self._lock:
            if self._replay is not None:
                self._replay.text(text)
                return None
            st = self._state
            took: str | None = None
            if st.screen_on and st.mode != "recents":
                field = st.focused_field()
                owner = st.focus_owner()
                if field is not None:
                    took = element_id(field)
                elif owner is not None and owner.web_node is not None and \
                        owner.focus is owner.web_node and owner.web_editable:
                    took = element_id(owner.web_node)
            self._keys.type_text(text)
            return took

    def key(self, keycode: int) -> None:
        """One key event (``input keyevent``)."""
        with self._lock:
            if self._replay is not None:
                return self._replay.key(int(keycode))
            self._keys.key(int(keycode))

    def key_combination(self, keycodes: list[int]) -> None:
        """Keys held together (``input keycombination``): CTRL+A/C/X/V, SHIFT+letter."""
        with self._lock:
            if self._replay is not None:
                return self._replay.combination([int(c) for c in keycodes])
            self._keys.key_combination(keycodes)

    # -- intents --------------------------------------------------------------------------
    def launch(self, package: str, activity: str | None = None, *, data: str | None = None
               ) -> bool:
        """Bring an app (optionally a given activity) to the front; False if unknown.

        An app that is already running is resumed where it was (``am start`` of its
        launcher activity and ``monkey -p`` behave like the launcher icon). Naming another
        of its activities puts that screen on top of the app's task.
        """
        with self._lock:
            if self._replay is not None:
                return self._replay.launch(package)
            ok = self._state.launch(package, activity, data)
            self._state.changed()
            return ok

    def recorded_intent(self, fields: dict[str, Any]) -> bool | None:
        """``am start`` of an intent on a recorded scenario (``screens/replay.py``): True
        when the recording's rule for that intent fired, False when it has none (the
        intent goes on as usual), None when the scenario is not a recorded one."""
        with self._lock:
            if self._replay is None:
                return None
            return self._replay.intent(fields)

    def uninstall(self, package: str) -> bool:
        """Remove an installed app (``pm uninstall``); False if it was not installed."""
        with self._lock:
            return self._state.uninstall(package)

    def force_stop(self, package: str) -> None:
        """``am force-stop``: the package's tasks close (its next launch starts afresh)."""
        with self._lock:
            if self._replay is None:
                self._state.force_stop(package)

    def install(self, package: str, label: str, launcher: str | None, version_name: str,
                version_code: int, debuggable: bool = False) -> None:
        """A package installed from an APK (``pm install``): an app with a screen of its
        own and, when it has a launcher activity, an icon in the launcher's app list."""
        with self._lock:
            st = self._state
            app, screen = installed_app(self.display, package, label, launcher,
                                        version_name, version_code, debuggable)
            screens = {screen.name: screen}
            listed = {a.label for a in st.apps.values()
                      if a.activity and a.start and a.package != st.home_pkg}
            home = st.apps.get(st.home_pkg)
            if launcher is not None and home is not None and label not in listed:
                for name in home.screens:
                    updated = with_icon(st.screens[name], label, listed)
                    if updated is not None:
                        screens[name] = updated
            st.install(app, screens)
            for k, inst in enumerate(st.home.stack):  # the launcher shows the new list
                if inst.sd.name in screens:
                    st.home.stack[k] = ScreenInstance(screens[inst.sd.name], {})
            self._renderer.clear()

    def statusbar(self, what: str) -> bool:
        """``cmd statusbar expand-notifications | expand-settings | collapse`` (``service
        call statusbar 1`` / ``2``): the shade opens or closes; False for another verb."""
        with self._lock:
            if what == "collapse":
                self._state.set_shade(None)
                return True
            if what not in SHADE_KINDS:
                return False
            self._state.set_shade(SHADE_KINDS[what])
            return True

    def view(self, uri: str) -> str | None:
        """ACTION_VIEW ``uri``; returns the package that handled it, or None."""
        with self._lock:
            if self._replay is not None:
                return self._replay.view(uri)
            pkg = self._state.view(uri)
            self._state.changed()
            return pkg

    # -- for white-box tests --------------------------------------------------------------
    def _top(self) -> ScreenInstance | None:
        return self._state.top()

    def _do(self, a: Any, inst: ScreenInstance, handler: Any, ctx: dict[str, str]) -> None:
        self._reactions.do(a, inst, handler, ctx)
