"""Virtual-phone scenario files: the device, the apps, and for each app its screens (a real
``uiautomator dump`` XML plus the rules that say what input does on it).

The format is documented in ``docs/scenarios.md``. Reading a file goes down this package:
:mod:`.loader` (the YAML, the dumps) → :mod:`.checks` (cross-references) → :mod:`.rules`
(selectors, triggers, actions, filters) → :mod:`.definitions` (the checked result and
:class:`ScenarioError`, which names the file, the line, the screen and the problem) and
:mod:`.templates` (``{name}`` placeholders).
"""

from __future__ import annotations

from .definitions import (
    Action,
    AppDef,
    FilterDef,
    Rule,
    Scenario,
    ScenarioError,
    ScreenDef,
    Selector,
    ViewDef,
)
from .loader import DEMO_PATH, load_cached, load_scenario
from .templates import placeholders, render_template

__all__ = [
    "ScenarioError",
    "Selector",
    "Action",
    "Rule",
    "FilterDef",
    "ViewDef",
    "ScreenDef",
    "AppDef",
    "Scenario",
    "load_scenario",
    "load_cached",
    "render_template",
    "placeholders",
    "DEMO_PATH",
]
