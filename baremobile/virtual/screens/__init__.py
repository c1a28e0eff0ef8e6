"""The virtual phone's screen model: what the phone shows and how it reacts to input.

A scenario (YAML; see ``docs/scenarios.md``) names apps and screens; each screen is a real
``uiautomator dump`` XML plus rules. Input events (tap, swipe, text, keys, intents) change
the model; :meth:`ScreenModel.dump_xml` serialises what is on screen now in uiautomator's
format, with the status bar, the navigation bar, the keyboard and dialogs as separate
top-level windows as on an API 35 device.

One room per concern, each importing only the rooms after it in this list:

* :mod:`.screen_model` — :class:`ScreenModel`, the public face: one lock, the rooms wired together;
* :mod:`.web` — the real browser behind web screens (a renderer of its own: Chromium's
  pages for ``web:`` screens, their shallow WebView in the dump); :mod:`.web_input` — touch,
  text and keys into a page;
* :mod:`.touch` — where a touch lands: hit-testing, taps, long presses, swipes and scrolling
  (multi-touch gestures go here);
* :mod:`.keys` — key events, key combinations, typed text, the clipboard keys;
* :mod:`.reactions` — how screens react: the scenario's rules and their actions;
* :mod:`.render` — how it is drawn: layout, scrolling, clipping, ``adjustResize``, the dump's
  windows; :mod:`.filters` — search-as-you-type lists; :mod:`.paint` — the PNG;
* :mod:`.system_ui` — the windows Android draws itself (bars, keyboard, AOD, recents);
* :mod:`.state` — what is on screen: tasks, screens, dialogs, panels, focus, navigation;
* :mod:`.display` — size, density, rotation, bar heights; :mod:`.clock` — the time shown.
"""

from __future__ import annotations

from baremobile.virtual.scenario import DEMO_PATH, ScenarioError

from .screen_model import ScreenModel
from .state import AppInfo

__all__ = ["ScreenModel", "AppInfo", "ScenarioError", "DEMO_PATH"]
