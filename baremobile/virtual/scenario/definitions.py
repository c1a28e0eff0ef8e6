"""What a loaded scenario is: checked, plain definitions (:class:`Scenario`, :class:`AppDef`,
:class:`ScreenDef`, :class:`Rule`, :class:`Selector` ...) and :class:`ScenarioError`, whose
messages say where (file, line, screen) and what is wrong."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baremobile.virtual.uixml import Node, format_bounds

__all__ = [
    "ScenarioError", "Where", "line_of", "SELECTOR_KEYS", "Selector", "Action", "Rule",
    "FilterDef", "ViewDef", "ZoomDef", "ScreenDef", "AppDef", "Scenario",
]


class ScenarioError(ValueError):
    """A scenario file is invalid; the message names the file, the screen and the problem."""


class Where:
    """Where we are in the file, for error messages."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def err(self, problem: str, *, screen: str | None = None, node: Any = None) -> ScenarioError:
        where = str(self.path)
        line = line_of(node)
        if line:
            where += f":{line}"
        if screen:
            where += f": screen {screen!r}"
        return ScenarioError(f"{where}: {problem}")


def line_of(node: Any) -> int:
    lc = getattr(node, "lc", None)
    if lc is not None and getattr(lc, "line", None) is not None:
        return int(lc.line) + 1
    return 0


SELECTOR_KEYS = ("id", "text", "desc", "text_contains", "desc_contains", "class", "label",
                 "bounds")


@dataclass(frozen=True)
class Selector:
    """Which node a rule is about. Every given key must hold for the same node.

    ``id`` matches the full resource-id or just the part after ``:id/``; ``label`` (what a
    bare string selector means) matches text or content-desc exactly; ``bounds`` the node's
    ``bounds`` as dumped (``[0,210][1080,420]``: what recorded scenarios pin a node with).
    """

    id: str | None = None
    text: str | None = None
    desc: str | None = None
    text_contains: str | None = None
    desc_contains: str | None = None
    cls: str | None = None
    label: str | None = None
    bounds: str | None = None

    def matches(self, node: Node) -> bool:
        """Whether ``node`` itself satisfies every key."""
        if self.id is not None:
            rid = node.rid
            if rid != self.id and not (":id/" not in self.id and rid.endswith(":id/" + self.id)):
                return False
        if self.text is not None and node.text != self.text:
            return False
        if self.desc is not None and node.desc != self.desc:
            return False
        if self.text_contains is not None and self.text_contains not in node.text:
            return False
        if self.desc_contains is not None and self.desc_contains not in node.desc:
            return False
        if self.cls is not None and node.cls != self.cls and not node.cls.endswith("." + self.cls):
            return False
        if self.bounds is not None and self.bounds != format_bounds(node.bounds):
            return False
        return self.label is None or self.label in (node.text, node.desc)

    def find(self, roots: list[Node]) -> list[Node]:
        """Every matching node under ``roots``, in document order."""
        return [n for r in roots for n in r.iter() if self.matches(n)]

    def __str__(self) -> str:
        if self.label is not None and all(
            getattr(self, k) is None for k in ("id", "text", "desc", "text_contains",
                                               "desc_contains", "cls", "bounds")
        ):
            return repr(self.label)
        parts = [
            f"{k}: {v!r}"
            for k, v in (
                ("id", self.id),
                ("text", self.text),
                ("desc", self.desc),
                ("text_contains", self.text_contains),
                ("desc_contains", self.desc_contains),
                ("class", self.cls),
                ("label", self.label),
                ("bounds", self.bounds),
            )
            if v is not None
        ]
        return "{" + ", ".join(parts) + "}"


@dataclass
class Action:
    """One step of a rule: ``kind`` is a verb of the vocabulary, ``arg`` its argument."""

    kind: str
    arg: Any = None


@dataclass
class Rule:
    """``trigger`` (tap, double_tap, long_press, enter, swipe; in recorded scenarios also
    type, key, launched, opened, drag, pinch, gesture, intent) on ``selector`` (or
    ``direction``) → actions.

    ``options`` holds what a recorded scenario's trigger says besides its selector: the
    typed ``text`` (with ``into``, ``submit``), the ``key`` code, the ``package`` launched,
    the ``uri`` opened, the swipe's start node ``from``, the drag's end node ``to``, the
    pinch's ``scale``, the gesture's finger ``paths``, the ``intent``'s fields."""

    trigger: str
    selector: Selector | None
    actions: list[Action]
    direction: str | None = None
    line: int = 0
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class FilterDef:
    """A list whose items are filtered by what an editable field holds."""

    field: Selector
    list: Selector
    empty: str = "all"  # what an empty query shows: "all" or "none"
    keywords: dict[str, str] = dataclasses.field(default_factory=dict)  # field: a field
    no_results: Selector | None = None
    var: str = "query"


@dataclass(frozen=True)
class ZoomDef:
    """A zoomable node: a pinch over it (or a ``zoom`` action) scales it between ``minimum``
    and ``maximum``; the screen variable ``var`` shows the scale as a percentage (``150%``)."""

    node: Selector
    var: str = "zoom"
    minimum: float = 1.0
    maximum: float = 8.0


@dataclass
class ViewDef:
    """``ACTION_VIEW`` URIs with one of ``schemes`` open ``screen`` with ``vars``."""

    schemes: list[str]
    screen: str
    vars: dict[str, str]


@dataclass
class ScreenDef:
    """One screen: its dump, its app, its activity, its rules."""

    name: str
    package: str
    activity: str
    xml_path: Path
    windows: list[Node]
    rules: list[Rule]
    filters: list[FilterDef]
    vars: dict[str, str]
    templates: list[Node]
    resize: Selector | None = None
    resize_off: bool = False
    keyboard: bool = True
    cancelable: bool = True
    system_bars: str = "auto"  # "auto", "on" or "off"
    zoom: ZoomDef | None = None
    web: str | None = None  # the URL template its WebView shows (a real browser's page)
    recorded_xml: bytes | None = None  # a recorded scenario's dump, as it was read


@dataclass
class AppDef:
    """One installed app."""

    package: str
    label: str
    activity: str | None
    system: bool
    version_name: str
    version_code: int
    start: str | None
    screens: list[str]
    views: list[ViewDef]
    launch_by_label: bool = False
    debuggable: bool = False  # android:debuggable: ``run-as`` may enter its data


@dataclass
class Scenario:
    """A loaded, validated scenario."""

    path: Path
    name: str
    width: int
    height: int
    density: int
    rotation: int
    utc_offset: int  # minutes east of UTC for clocks and timestamps
    extras: bool  # dumps carry drawing-order and hint (API 26+)
    status_bar: bool
    nav_bar: str  # "buttons", "gesture" or "none"
    keyboard: bool
    home: str | None
    start: str | None
    apps: dict[str, AppDef] = field(default_factory=dict)
    screens: dict[str, ScreenDef] = field(default_factory=dict)
    #: made from a trace (``baremobile trace to-scenario``): screens are served as recorded,
    #: and input no rule covers is refused ("not in the recording")
    recorded: bool = False
