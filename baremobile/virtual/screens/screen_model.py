"""``ScreenModel``: the phone's screen, its one public face.

It wires the rooms of the screen together and serialises access to them (every public
method takes one lock; nothing is random; times come from ``clock``). Imports point one
way::

    screen_model ─► touch ─► keys ─► reactions ─► state ─► display, clock
                      │                             ▲
                      └─► render ─► filters, system_ui
    screen_model ─► paint (the PNG of what render drew)

See ``docs/scenarios.md`` for the behaviour and ``docs/architecture.md`` for the rooms.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from baremobile.virtual.scenario import DEMO_PATH, Scenario, load_cached
from baremobile.virtual.uixml import serialize

from .clock import Clock, PhoneClock
from .display import Display
from .keys import KeyInput
from .paint import paint
from .reactions import Reactions
from .render import Renderer
from .state import AppInfo, ScreenInstance, ScreenState
from .system_ui import DEFAULT_LAUNCHER, default_launcher
from .touch import TouchInput

__all__ = ["ScreenModel"]


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

    @classmethod
    def from_scenario(cls, path: str | Path | None = None, clock: Clock | None = None
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
            self._renderer.clear()
            self._png_cache = None

    # -- what is installed / shown ------------------------------------------------------
    def apps(self) -> list[AppInfo]:
        """Every installed app, the scenario's plus the system's own."""
        with self._lock:
            return self._state.app_infos()

    def current(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the focused app window."""
        with self._lock:
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
    def dump_xml(self) -> bytes:
        """The current screen as uiautomator writes it (single line, UTF-8)."""
        with self._lock:
            return serialize(self._renderer.render(), self.rotation, extras=self._sc.extras)

    def screenshot_png(self) -> bytes:
        """A valid PNG of ``width`` x ``height`` depicting the current screen."""
        with self._lock:
            windows = self._renderer.render()
            key = (self._state.version, self._state.clock.minute())
            if self._png_cache is not None and self._png_cache[0] == key:
                return self._png_cache[1]
            data = paint(windows, self.width, self.height, self._state.screen_on)
            self._png_cache = (key, data)
            return data

    # -- input ----------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        """A tap at (x, y) in screen pixels."""
        with self._lock:
            self._touch.tap(x, y)

    def long_press(self, x: int, y: int, duration_ms: int = 1000) -> None:
        """A touch held at (x, y) (what ``input swipe x y x y 1000`` does)."""
        with self._lock:
            self._touch.long_press(x, y, duration_ms)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        """A swipe; a (near) zero-distance swipe of >= 500 ms is a long press."""
        with self._lock:
            self._touch.swipe(x1, y1, x2, y2, duration_ms)

    def type_text(self, text: str) -> None:
        """Characters into the focused editable field (no-op when nothing is focused)."""
        with self._lock:
            self._keys.type_text(text)

    def key(self, keycode: int) -> None:
        """One key event (``input keyevent``)."""
        with self._lock:
            self._keys.key(int(keycode))

    def key_combination(self, keycodes: list[int]) -> None:
        """Keys held together (``input keycombination``): CTRL+A/C/X/V, SHIFT+letter."""
        with self._lock:
            self._keys.key_combination(keycodes)

    # -- intents --------------------------------------------------------------------------
    def launch(self, package: str, activity: str | None = None) -> bool:
        """Bring an app (optionally a given activity) to the front; False if unknown.

        An app that is already running is resumed where it was (``am start`` of its
        launcher activity and ``monkey -p`` behave like the launcher icon). Naming another
        of its activities puts that screen on top of the app's task.
        """
        with self._lock:
            ok = self._state.launch(package, activity)
            self._state.changed()
            return ok

    def view(self, uri: str) -> str | None:
        """ACTION_VIEW ``uri``; returns the package that handled it, or None."""
        with self._lock:
            pkg = self._state.view(uri)
            self._state.changed()
            return pkg

    # -- for white-box tests --------------------------------------------------------------
    def _top(self) -> ScreenInstance | None:
        return self._state.top()

    def _do(self, a: Any, inst: ScreenInstance, handler: Any, ctx: dict[str, str]) -> None:
        self._reactions.do(a, inst, handler, ctx)
