"""The virtual phone's screen model.

A scenario (YAML, read with ruamel.yaml; see ``docs/scenarios.md``) names apps and screens;
each screen is a real ``uiautomator dump`` XML plus rules. Input events (tap, swipe, text,
keys, intents) change the model; ``dump_xml()`` serialises what is on screen now in
uiautomator's format, with the status bar, the navigation bar, the keyboard and dialogs as
separate top-level windows as on an API 35 device.

How the model behaves, in brief (the details are in ``docs/scenarios.md``):

* **Apps and tasks.** Each launched app gets a task (a stack of screens). ``launch`` resumes
  an app's task if it exists, HOME keeps every task as it was, BACK on an app's first screen
  moves its task to the back (Android 12+) and shows the launcher, APP_SWITCH opens recents.
* **Taps** go to the topmost window under the point, then (as Android dispatches touches)
  to the deepest clickable node containing it. Tapping an editable field focuses it and
  shows the keyboard; tapping a checkable node (or a row holding one switch) toggles it;
  then the first matching rule of the screen fires.
* **Scrolling.** Scrollable nodes hold their whole content laid out beyond the viewport;
  a swipe moves the content by the swipe distance, and only what is inside the viewport is
  dumped (partly visible nodes clipped), as RecyclerView does.
* **Text.** Typed text goes into the focused field at its caret; the dump shows it (dots
  for passwords; the hint when empty, as API 26+ devices do).

Every public method is thread-safe; nothing is random; times come from ``clock``.
"""

from __future__ import annotations

import hashlib
import threading
import time as _time
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from .png import Canvas
from .scenario import (
    DEMO_PATH,
    Action,
    AppDef,
    Rule,
    Scenario,
    ScenarioError,
    ScreenDef,
    Selector,
    load_scenario,
    render_template,
)
from .uixml import Node, serialize

__all__ = ["ScreenModel", "AppInfo", "ScenarioError", "DEMO_PATH"]

SYSTEMUI = "com.android.systemui"
IME_PACKAGE = "com.google.android.inputmethod.latin"
DEFAULT_LAUNCHER = "com.android.launcher3"

# key codes the model understands
KEY_HOME, KEY_BACK, KEY_APP_SWITCH, KEY_POWER = 3, 4, 187, 26
KEY_SLEEP, KEY_WAKEUP, KEY_ESCAPE = 223, 224, 111
KEY_ENTER, KEY_NUMPAD_ENTER, KEY_DEL, KEY_FORWARD_DEL = 66, 160, 67, 112
KEY_MOVE_HOME, KEY_MOVE_END, KEY_DPAD_LEFT, KEY_DPAD_RIGHT = 122, 123, 21, 22
KEY_CTRL = (113, 114)
KEY_SHIFT = (59, 60)
KEY_A, KEY_C, KEY_V, KEY_X = 29, 31, 50, 52

_KEY_CHARS: dict[int, str] = {
    **{7 + i: str(i) for i in range(10)},
    **{29 + i: chr(ord("a") + i) for i in range(26)},
    55: ",",
    56: ".",
    62: " ",
    68: "`",
    69: "-",
    70: "=",
    71: "[",
    72: "]",
    73: "\\",
    74: ";",
    75: "'",
    76: "/",
    77: "@",
    81: "+",
    17: "*",
    18: "#",
}

_TOUCH_SLOP = 20  # px: a swipe shorter than this is a tap (or a long press when held)
_LONG_PRESS_MS = 500


_SCENARIOS: dict[Path, tuple[tuple[tuple[str, str], ...], Scenario]] = {}
_SCENARIOS_LOCK = threading.Lock()


def _stamp(files: Iterable[Path]) -> tuple[tuple[str, str], ...]:
    """Each file with a digest of its bytes (timestamps can be too coarse to notice edits)."""
    out = []
    for f in files:
        try:
            out.append((str(f), hashlib.blake2b(f.read_bytes(), digest_size=16).hexdigest()))
        except OSError:
            out.append((str(f), ""))
    return tuple(out)


def _cached_scenario(path: Path) -> Scenario:
    """Load a scenario once per content: models never change the definitions they share."""
    key = path.resolve()
    with _SCENARIOS_LOCK:
        hit = _SCENARIOS.get(key)
        if hit is not None:
            stamp, sc = hit
            if _stamp(Path(f) for f, _ in stamp) == stamp:
                return sc
    sc = load_scenario(path)
    files = [key, *sorted({s.xml_path for s in sc.screens.values()})]
    with _SCENARIOS_LOCK:
        _SCENARIOS[key] = (_stamp(files), sc)
    return sc


class Clock(Protocol):
    """Anything with ``time()`` returning seconds since the epoch."""

    def time(self) -> float: ...


@dataclass(frozen=True)
class AppInfo:
    """One installed app."""

    package: str
    label: str
    launcher_activity: str | None  # e.g. ".Settings" expanded to "com.android.settings.Settings"
    system: bool  # False for third-party apps (``pm list packages -3``)
    version_name: str = "1.0"
    version_code: int = 1


def _norm(s: str) -> str:
    """Lower-case alphanumerics only: how search fields compare text."""
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s.lower() if c.isalnum())


def _intersect(a: tuple[int, int, int, int], b: tuple[int, int, int, int]
               ) -> tuple[int, int, int, int]:
    x1, y1 = max(a[0], b[0]), max(a[1], b[1])
    x2, y2 = min(a[2], b[2]), min(a[3], b[3])
    if x1 >= x2 or y1 >= y2:
        return (x1, y1, x1, y1)
    return (x1, y1, x2, y2)


def _empty(b: tuple[int, int, int, int]) -> bool:
    return b[2] <= b[0] or b[3] <= b[1]


def _area(b: tuple[int, int, int, int]) -> int:
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])


def _is_radio(n: Node) -> bool:
    c = n.cls
    return c.endswith("RadioButton") or c.endswith("CheckedTextView")


def _horizontal(n: Node) -> bool:
    c = n.cls
    return "Horizontal" in c or "ViewPager" in c or c.endswith("RecentsView")


# -- node building (system windows, generated screens) ------------------------------------


def _mk(
    cls: str,
    bounds: tuple[int, int, int, int],
    pkg: str,
    rid: str = "",
    text: str = "",
    desc: str = "",
    children: Iterable[Node] = (),
    **flags: bool,
) -> Node:
    attrs = {
        "text": text,
        "resource-id": rid,
        "class": cls,
        "package": pkg,
        "content-desc": desc,
    }
    for f in ("checkable", "checked", "clickable", "enabled", "focusable", "focused",
              "scrollable", "long_clickable", "password", "selected"):
        attrs[f.replace("_", "-")] = "true" if flags.get(f, f == "enabled") else "false"
    return Node(attrs, bounds, list(children))


class _Inst:
    """A screen on a task's stack (or a dialog / panel over one): a private copy of the
    screen's windows plus its state."""

    def __init__(self, sd: ScreenDef, vars_: dict[str, str], kind: str = "screen") -> None:
        self.sd = sd
        self.kind = kind  # "screen", "dialog", "panel" or "system"
        self.windows = [w.clone() for w in sd.windows]
        self.vars = {**sd.vars, **vars_}
        self.dialogs: list[_Inst] = []
        self.panel: _Inst | None = None
        self.ime = False
        self.focus: Node | None = None
        for w in self.windows:
            for n in w.iter():
                if n.flag("focused"):
                    if self.focus is not None:
                        n.set_flag("focused", False)
                    else:
                        self.focus = n
        for w in self.windows:
            for n in w.iter():
                if n.value and "{" in n.value:
                    n.value = render_template(n.value, self.vars)
                    n.cursor = len(n.value)
        self.resize_node: Node | None = None
        self._filter_nodes: list[tuple[Any, Node | None, Node | None]] | None = None

    def find(self, sel: Selector) -> Node | None:
        for w in self.windows:
            for n in w.iter():
                if sel.matches(n):
                    return n
        return None

    def focused_field(self) -> Node | None:
        f = self.focus
        if f is not None and f.editable and f.flag("enabled"):
            return f
        return None


@dataclass
class _Task:
    package: str
    stack: list[_Inst]


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
        self._clock = clock
        self._lock = threading.RLock()
        self.width = scenario.width
        self.height = scenario.height
        self.density = scenario.density
        self.rotation = scenario.rotation
        scale = self.density / 420
        self._sb_h = round(136 * scale) if scenario.status_bar else 0
        self._nav_h = round(126 * scale) if scenario.nav_bar == "buttons" else 0
        self._ime_h = round(self.height * 0.32)
        self._apps = dict(scenario.apps)
        self._screens = dict(scenario.screens)
        if scenario.home is None:
            self._add_default_launcher()
            self._home_pkg = DEFAULT_LAUNCHER
        else:
            self._home_pkg = scenario.home
        self._reset_state()

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_scenario(cls, path: str | Path | None = None, clock: Clock | None = None
                      ) -> ScreenModel:
        """Load a scenario file; ``None`` loads the built-in demo.

        Raises :class:`ScenarioError` naming the file, the screen and the problem.
        """
        return cls(_cached_scenario(Path(DEMO_PATH if path is None else path)), clock)

    def reset(self) -> None:
        """Back to the state right after loading (no tasks, screen on, at the start screen)."""
        with self._lock:
            self._reset_state()

    def _reset_state(self) -> None:
        self._tasks: list[_Task] = []
        home_app = self._apps[self._home_pkg]
        assert home_app.start is not None
        self._home = _Task(self._home_pkg, [_Inst(self._screens[home_app.start], {})])
        self._mode = "home"  # "home", "app" or "recents"
        self._recents: _Inst | None = None
        self._screen_on = True
        self._clipboard = ""
        self._version = 0
        self._cache: tuple[Any, list[Node]] | None = None
        self._png_cache: tuple[Any, bytes] | None = None
        start = self._sc.start
        if start is not None:
            if start in self._apps:
                self._launch(start, None)
            else:
                sd = self._screens[start]
                self._open_task(sd.package, _Inst(sd, {}))

    def _add_default_launcher(self) -> None:
        w, h = self.width, self.height
        pkg = DEFAULT_LAUNCHER
        apps = [a for a in self._apps.values() if a.activity and a.start]
        cols = 4
        cell_w = w // cols
        cell_h = round(h * 0.13)
        top = self._sb_h + round(h * 0.06)
        icons = []
        for i, a in enumerate(apps):
            r, c = divmod(i, cols)
            b = (c * cell_w + 16, top + r * cell_h, (c + 1) * cell_w - 16, top + (r + 1) * cell_h)
            icons.append(_mk("android.widget.TextView", b, pkg, f"{pkg}:id/icon", a.label,
                             a.label, clickable=True, focusable=True, long_clickable=True))
        grid = _mk("android.view.ViewGroup", (0, top, w, h - self._nav_h), pkg,
                   f"{pkg}:id/workspace", children=icons)
        root = _mk("android.widget.FrameLayout", (0, 0, w, h), pkg, children=[
            _mk("android.widget.FrameLayout", (0, 0, w, h), pkg, "android:id/content", children=[
                _mk("android.widget.FrameLayout", (0, 0, w, h), pkg, f"{pkg}:id/launcher",
                    children=[grid])])])
        for n in root.iter():
            n.origin = "launcher"
        sd = ScreenDef(
            name="launcher", package=pkg, activity="com.android.launcher3.uioverrides."
            "QuickstepLauncher", xml_path=Path("<generated>"), windows=[root], rules=[],
            filters=[], vars={}, templates=[],
        )
        self._screens = {**self._screens, "launcher": sd}
        self._apps[pkg] = AppDef(pkg, "Launcher3", sd.activity, True, "15", 35, "launcher",
                                 ["launcher"], [], True)

    # -- small helpers ------------------------------------------------------------------
    def _now(self) -> float:
        return self._clock.time() if self._clock is not None else _time.time()

    def _localtime(self) -> _time.struct_time:
        return _time.gmtime(self._now() + self._sc.utc_offset * 60)

    def _time_str(self) -> str:
        t = self._localtime()
        h = t.tm_hour % 12 or 12
        return f"{h}:{t.tm_min:02d}\u202f{'AM' if t.tm_hour < 12 else 'PM'}"

    def _date_str(self) -> str:
        return _time.strftime("%a, %b ", self._localtime()) + str(self._localtime().tm_mday)

    def _changed(self) -> None:
        self._version += 1

    def _front(self) -> _Task | None:
        if self._mode == "app" and self._tasks:
            return self._tasks[0]
        if self._mode == "home":
            return self._home
        return None

    def _top(self) -> _Inst | None:
        t = self._front()
        return t.stack[-1] if t is not None and t.stack else None

    def _focus_owner(self) -> _Inst | None:
        """The instance whose window has input focus: the top dialog, else the screen."""
        top = self._top()
        if top is None:
            return None
        return top.dialogs[-1] if top.dialogs else top

    def _ime_shown(self) -> bool:
        if not self._sc.keyboard or not self._screen_on or self._mode == "recents":
            return False
        owner = self._focus_owner()
        if owner is None or not owner.ime:
            return False
        top = self._top()
        return not (owner is top and top is not None and top.panel is not None)

    def _context(self, inst: _Inst | None, node: Node | None = None) -> dict[str, str]:
        ctx: dict[str, str] = {"time": self._time_str(), "date": self._date_str()}
        if inst is not None:
            ctx.update(inst.vars)
        owner = self._focus_owner()
        field = owner.focused_field() if owner is not None else None
        if field is not None:
            ctx["field"] = field.value or ""
        if node is not None:
            ctx["text"] = render_template(node.text, ctx) if node.value is None else (
                node.value or "")
            ctx["desc"] = render_template(node.desc, ctx)
            ctx["id"] = node.rid
        return ctx

    # -- what is installed / shown ------------------------------------------------------
    def apps(self) -> list[AppInfo]:
        """Every installed app, the scenario's plus the system's own."""
        with self._lock:
            out = [
                AppInfo(a.package, a.label, a.activity, a.system, a.version_name, a.version_code)
                for a in self._apps.values()
            ]
            have = {a.package for a in out}
            for pkg, label in (("android", "Android System"), (SYSTEMUI, "System UI"),
                               (IME_PACKAGE, "Gboard")):
                if pkg not in have:
                    out.append(AppInfo(pkg, label, None, True, "15", 35))
            return out

    def current(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the focused app window."""
        with self._lock:
            if self._mode == "recents":
                home = self._home.stack[0].sd
                return home.package, home.activity
            top = self._top()
            assert top is not None
            return top.sd.package, top.sd.activity

    @property
    def scenario(self) -> Scenario:
        """The loaded scenario."""
        return self._sc

    @property
    def screen_on(self) -> bool:
        """Whether the display is on (POWER / SLEEP / WAKEUP change it)."""
        with self._lock:
            return self._screen_on

    @property
    def ime_visible(self) -> bool:
        """Whether the on-screen keyboard is shown."""
        with self._lock:
            return self._ime_shown()

    @property
    def clipboard(self) -> str:
        """The clipboard (CTRL+C / CTRL+X fill it, CTRL+V pastes it)."""
        with self._lock:
            return self._clipboard

    @clipboard.setter
    def clipboard(self, value: str) -> None:
        with self._lock:
            self._clipboard = value

    @property
    def version(self) -> int:
        """A counter that changes whenever what is on screen may have changed."""
        with self._lock:
            return self._version

    def screen_name(self) -> str:
        """The scenario name of the screen in front (``"recents"`` for the overview)."""
        with self._lock:
            if self._mode == "recents":
                return "recents"
            owner = self._focus_owner()
            assert owner is not None
            return owner.sd.name

    def tasks(self) -> list[tuple[str, list[str]]]:
        """Recent tasks, most recent first: (package, screen names bottom to top)."""
        with self._lock:
            return [(t.package, [i.sd.name for i in t.stack]) for t in self._tasks]

    def dump_xml(self) -> bytes:
        """The current screen as uiautomator writes it (single line, UTF-8)."""
        with self._lock:
            return serialize(self._render(), self.rotation, extras=self._sc.extras)

    # -- rendering ----------------------------------------------------------------------
    def _render(self) -> list[Node]:
        key = (self._version, int(self._now() // 60))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        windows = self._render_uncached()
        self._cache = (key, windows)
        return windows

    def _render_uncached(self) -> list[Node]:
        screen = (0, 0, self.width, self.height)
        if not self._screen_on:
            return [self._aod_window()]
        out: list[Node] = []
        bars = True
        if self._mode == "recents":
            if self._recents is None:
                self._recents = self._make_recents()
            content = [self._draw_window(w, self._recents, screen, None)
                       for w in self._recents.windows]
        else:
            top = self._top()
            assert top is not None
            bars = top.sd.system_bars == "on" or (
                top.sd.system_bars == "auto"
                and not any(w.package == SYSTEMUI for w in top.windows)
            )
            content = self._render_inst(top, screen)
        if bars and self._sc.status_bar:
            out.append(self._tag(self._status_bar(), "status"))
        out.extend(w for w in content if w is not None)
        if self._ime_shown():
            out.append(self._tag(self._ime_window(), "ime"))
        if bars and self._sc.nav_bar == "buttons":
            out.append(self._tag(self._nav_bar(), "nav"))
        return out

    @staticmethod
    def _tag(w: Node, kind: str) -> Node:
        w.meta["kind"] = kind
        for n in w.iter():
            n.src = n
        return w

    def _render_inst(self, inst: _Inst, screen: tuple[int, int, int, int]) -> list[Node]:
        self._apply_filters(inst)
        resize = self._resize_info(inst)
        out: list[Node] = []
        for i, w in enumerate(inst.windows):
            r = self._draw_window(w, inst, screen, resize)
            if r is None:
                continue
            if i == 0 and inst.panel is not None:
                self._apply_filters(inst.panel)
                for pw in inst.panel.windows:
                    pr = self._draw_window(pw, inst.panel, screen, None)
                    if pr is not None:
                        pr.meta["inst"] = inst.panel
                        r.children.append(pr)
                        b, pb = r.bounds, pr.bounds  # the window holds its panel
                        r.bounds = (min(b[0], pb[0]), min(b[1], pb[1]), max(b[2], pb[2]),
                                    max(b[3], pb[3]))
            out.append(r)
        for d in inst.dialogs:
            self._apply_filters(d)
            for w in d.windows:
                r = self._draw_window(w, d, screen, None)
                if r is not None:
                    r.meta["kind"] = "dialog"
                    out.append(r)
        return out

    def _draw_window(self, w: Node, inst: _Inst, clip: tuple[int, int, int, int],
                     resize: tuple[Node, int, int] | None) -> Node | None:
        ctx = self._context(inst)
        r = self._draw(w, 0, 0, clip, ctx, resize, False)
        if r is not None:
            r.meta["kind"] = "app" if inst.kind != "dialog" else "dialog"
            r.meta["inst"] = inst
            r.meta["frame"] = _intersect((w.bounds[0] + w.dx, w.bounds[1] + w.dy,
                                          w.bounds[2] + w.dx, w.bounds[3] + w.dy), clip)
        return r

    def _resize_info(self, inst: _Inst) -> tuple[Node, int, int] | None:
        """(node that shrinks, delta, pivot y) while the keyboard or a panel covers the
        bottom of the screen, emulating ``adjustResize``."""
        tops = []
        if self._ime_shown() and self._focus_owner() is inst:
            tops.append(self._ime_top())
        if inst.panel is not None and inst.panel.windows:
            tops.append(min(w.bounds[1] for w in inst.panel.windows))
        if not tops or inst.sd.resize_off:
            return None
        bottom = self.height - self._nav_h
        delta = bottom - min(tops)
        if delta <= 0:
            return None
        f = inst.resize_node
        if f is None:
            if inst.sd.resize is not None:
                f = inst.find(inst.sd.resize)
            else:
                best = 0
                for n in inst.windows[0].iter():
                    if n.flag("scrollable") and _area(n.bounds) > best:
                        best, f = _area(n.bounds), n
            inst.resize_node = f
        if f is None:
            return None
        return f, delta, f.bounds[3] + f.dy

    def _draw(self, n: Node, ox: int, oy: int, clip: tuple[int, int, int, int],
              ctx: dict[str, str], resize: tuple[Node, int, int] | None, in_f: bool
              ) -> Node | None:
        if n.meta.get("hidden"):
            return None
        ox += n.dx
        oy += n.dy
        b = n.bounds
        x1, y1, x2, y2 = b[0] + ox, b[1] + oy, b[2] + ox, b[3] + oy
        child_in_f = in_f
        own_clip = False
        if resize is not None and not in_f:
            f, delta, pivot = resize
            if n is f:
                y2 = max(y1, y2 - delta)
                child_in_f = True
                own_clip = True
            elif y1 >= pivot:
                y1 -= delta
                y2 -= delta
            elif y1 < pivot < y2:
                y2 = max(y1, y2 - delta)
        rect = (x1, y1, x2, y2)
        vis = _intersect(rect, clip)
        if _empty(vis):
            if not _empty(b):
                return None
            vis = rect
        attrs = dict(n.attrs)
        if n.value is not None:
            shown = n.value
            if shown and n.flag("password"):
                shown = "\u2022" * len(shown)
            attrs["text"] = shown or attrs.get("hint", "")
        elif "{" in attrs.get("text", ""):
            attrs["text"] = render_template(attrs["text"], ctx)
        if "{" in attrs.get("content-desc", ""):
            attrs["content-desc"] = render_template(attrs["content-desc"], ctx)
        out = Node(attrs, vis, [], n.origin, src=n)
        n.meta["_o"] = (ox, oy)
        n.meta["_vp"] = vis
        cx, cy = ox, oy
        cclip = clip
        if n.flag("scrollable") and n.children:
            self._clamp_scroll(n, vis)
            cx -= n.scroll_x
            cy -= n.scroll_y
            cclip = _intersect(clip, vis)
        elif own_clip:
            cclip = _intersect(clip, vis)
        for c in n.children:
            rc = self._draw(c, cx, cy, cclip, ctx, resize, child_in_f)
            if rc is not None:
                out.children.append(rc)
        return out

    def _extent(self, n: Node) -> tuple[int, int, int, int] | None:
        """Union of the content of scrollable ``n`` in its own layout coordinates."""
        x1 = y1 = 1 << 30
        x2 = y2 = -(1 << 30)
        stack: list[tuple[Node, int, int]] = [(c, 0, 0) for c in n.children]
        found = False
        while stack:
            c, dx, dy = stack.pop()
            if c.meta.get("hidden"):
                continue
            dx += c.dx
            dy += c.dy
            b = c.bounds
            if not _empty(b):
                found = True
                x1, y1 = min(x1, b[0] + dx), min(y1, b[1] + dy)
                x2, y2 = max(x2, b[2] + dx), max(y2, b[3] + dy)
            if not c.flag("scrollable"):
                stack.extend((g, dx, dy) for g in c.children)
        return (x1, y1, x2, y2) if found else None

    def _scroll_range(self, n: Node, vp: tuple[int, int, int, int]
                      ) -> tuple[int, int, int, int]:
        """(min_x, max_x, min_y, max_y) scroll offsets for viewport ``vp`` (screen coords)."""
        ext = self._extent(n)
        if ext is None:
            return 0, 0, 0, 0
        ox, oy = n.meta.get("_o", (0, 0))
        e = (ext[0] + ox, ext[1] + oy, ext[2] + ox, ext[3] + oy)
        return (min(0, e[0] - vp[0]), max(0, e[2] - vp[2]),
                min(0, e[1] - vp[1]), max(0, e[3] - vp[3]))

    def _clamp_scroll(self, n: Node, vp: tuple[int, int, int, int]) -> None:
        to_end = n.meta.pop("to_end", False)
        if not (n.scroll_x or n.scroll_y or to_end):
            return
        n.meta["_vp"] = vp
        mnx, mxx, mny, mxy = self._scroll_range(n, vp)
        if to_end:
            n.scroll_y = mxy
        n.scroll_x = min(max(n.scroll_x, mnx), mxx)
        n.scroll_y = min(max(n.scroll_y, mny), mxy)

    # -- filters ------------------------------------------------------------------------
    def _apply_filters(self, inst: _Inst) -> None:
        if not inst.sd.filters:
            return
        if inst._filter_nodes is None:
            inst._filter_nodes = [(f, inst.find(f.field), inst.find(f.list))
                                  for f in inst.sd.filters]
        for f, field, lst in inst._filter_nodes:
            if field is None or lst is None:
                continue
            q = field.value or ""
            inst.vars[f.var] = q
            nq = _norm(q)
            if lst.meta.get("q") != q:
                lst.meta["q"] = q
                lst.scroll_y = lst.scroll_x = 0
            items = lst.children
            if not items:
                continue
            if "layout" not in lst.meta:
                gap = max(0, items[1].bounds[1] - items[0].bounds[3]) if len(items) > 1 else 0
                kinds = []
                for it in items:
                    texts = [s for d in it.iter() for s in (d.text, d.desc) if s]
                    if any("{" + f.var in s for s in texts):
                        kinds.append(("echo", ""))
                    elif f.no_results is not None and any(
                        f.no_results.matches(d) for d in it.iter()
                    ):
                        kinds.append(("none", ""))
                    else:
                        extra = " ".join(f.keywords.get(s, "") for s in texts)
                        kinds.append(("item", _norm(" ".join(texts) + " " + extra)))
                lst.meta["layout"] = (gap, kinds)
            gap, kinds = lst.meta["layout"]
            shown = []
            any_match = False
            for kind, label in kinds:
                if kind == "item":
                    ok = (nq in label) if nq else f.empty == "all"
                    any_match = any_match or (ok and bool(nq))
                    shown.append(ok)
                else:
                    shown.append(kind == "echo" and bool(nq))
            for i, (kind, _label) in enumerate(kinds):
                if kind == "none":
                    shown[i] = bool(nq) and not any_match
            column = len({it.bounds[0] for it in items}) == 1
            cursor = items[0].bounds[1]
            k = 0
            for it, ok in zip(items, shown, strict=True):
                it.meta["hidden"] = not ok
                if not ok:
                    continue
                if column:  # a list: stack the visible rows, each keeping its height
                    it.dy = cursor - it.bounds[1]
                    cursor += it.bounds[3] - it.bounds[1] + gap
                else:  # a grid: the k-th visible item takes the k-th cell
                    slot = items[k].bounds
                    it.dx, it.dy = slot[0] - it.bounds[0], slot[1] - it.bounds[1]
                k += 1

    # -- system windows -------------------------------------------------------------------
    def _status_bar(self) -> Node:
        w, h, p = self.width, self._sb_h, SYSTEMUI
        s = self.density / 420

        def r(v: float) -> int:
            return round(v * s)

        t = self._localtime()
        clock_text = f"{t.tm_hour % 12 or 12}:{t.tm_min:02d}"
        icons_x = w - r(196)
        return _mk("android.widget.FrameLayout", (0, 0, w, h), p, children=[
            _mk("android.widget.FrameLayout", (0, 0, w, h), p,
                f"{p}:id/status_bar_launch_animation_container"),
            _mk("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/status_bar_container",
                children=[
                _mk("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/status_bar",
                    children=[
                    _mk("android.widget.LinearLayout", (r(47), 0, w - r(53), h), p,
                        f"{p}:id/status_bar_contents", children=[
                        _mk("android.widget.FrameLayout", (r(47), 1, r(459), h), p,
                            f"{p}:id/status_bar_start_side_container", children=[
                            _mk("android.widget.TextView", (r(47), r(47), r(172), r(90)), p,
                                f"{p}:id/clock", clock_text, self._time_str()),
                        ]),
                        _mk("android.view.View", (r(459), 1, r(604), h), p,
                            f"{p}:id/cutout_space_view"),
                        _mk("android.widget.FrameLayout", (r(604), 1, w - r(64), h), p,
                            f"{p}:id/status_bar_end_side_container", children=[
                            _mk("android.widget.LinearLayout", (icons_x, r(39), w - r(64),
                                                                r(97)), p,
                                f"{p}:id/system_icons", children=[
                                _mk("android.widget.FrameLayout",
                                    (icons_x, r(39), icons_x + r(46), r(97)), p,
                                    f"{p}:id/wifi_combo", desc="Wifi signal full."),
                                _mk("android.widget.FrameLayout",
                                    (icons_x + r(46), r(39), icons_x + r(85), r(97)), p,
                                    f"{p}:id/mobile_combo", desc="Phone signal full."),
                                _mk("android.widget.LinearLayout",
                                    (icons_x + r(101), r(51), icons_x + r(121), r(85)), p,
                                    f"{p}:id/battery", desc="Battery 100 percent."),
                            ]),
                        ]),
                    ]),
                ]),
            ]),
        ])

    def _nav_bar(self) -> Node:
        w, h, p = self.width, self.height, SYSTEMUI
        top = h - self._nav_h
        bw = round(w * 0.22)
        return _mk("android.widget.FrameLayout", (0, top, w, h), p,
                   f"{p}:id/navigation_bar_frame", children=[
            _mk("android.widget.FrameLayout", (0, top, w, h), p, children=[
                _mk("android.widget.FrameLayout", (0, top, w, h), p,
                    f"{p}:id/navigation_inflater", children=[
                    _mk("android.widget.FrameLayout", (0, top, w, h), p, f"{p}:id/horizontal",
                        children=[
                        _mk("android.widget.FrameLayout", (0, top, w, h), p,
                            f"{p}:id/nav_buttons", children=[
                            _mk("android.widget.LinearLayout", (0, top, w, h), p,
                                f"{p}:id/ends_group", children=[
                                _mk("android.widget.ImageView",
                                    (round(w * 0.11), top, round(w * 0.11) + bw, h), p,
                                    f"{p}:id/back", desc="Back", clickable=True,
                                    focusable=True, long_clickable=True),
                                _mk("android.widget.ImageView",
                                    (w - round(w * 0.11) - bw, top, w - round(w * 0.11), h), p,
                                    f"{p}:id/recent_apps", desc="Overview", clickable=True,
                                    focusable=True, long_clickable=True),
                            ]),
                            _mk("android.widget.LinearLayout",
                                ((w - bw) // 2, top, (w + bw) // 2, h), p,
                                f"{p}:id/center_group", children=[
                                _mk("android.widget.ImageView",
                                    ((w - bw) // 2, top, (w + bw) // 2, h), p, f"{p}:id/home",
                                    desc="Home", clickable=True, focusable=True,
                                    long_clickable=True),
                            ]),
                        ]),
                    ]),
                ]),
            ]),
        ])

    def _ime_top(self) -> int:
        return self.height - self._nav_h - self._ime_h

    def _ime_window(self) -> Node:
        w, p = self.width, IME_PACKAGE
        top, bottom = self._ime_top(), self.height - self._nav_h
        obf = f"{p}:id/0_resource_name_obfuscated"
        strip = top + round(self._ime_h * 0.17)
        key = round(w * 0.117)
        return _mk("android.widget.FrameLayout", (0, top, w, bottom), p, children=[
            _mk("android.widget.LinearLayout", (0, top, w, bottom), p, children=[
                _mk("android.widget.FrameLayout", (0, top, w, bottom), p, "android:id/inputArea",
                    children=[
                    _mk("android.widget.FrameLayout", (0, top, w, bottom), p,
                        f"{p}:id/keyboard_holder", children=[
                        _mk("android.widget.FrameLayout", (0, top, w, strip), p,
                            f"{p}:id/keyboard_header_view_holder", children=[
                            _mk("android.widget.FrameLayout", (6, top, 6 + key, strip), p,
                                f"{p}:id/key_pos_header_access_points_menu",
                                desc="Open features menu", clickable=True, focusable=True),
                            _mk("android.widget.LinearLayout", (6 + key, top, w - 6 - key,
                                                                strip), p,
                                f"{p}:id/softkey_holder_fixed_candidates"),
                            _mk("android.widget.FrameLayout", (w - 6 - key, top, w - 6, strip),
                                p, f"{p}:id/key_pos_header_voice", desc="Use voice typing",
                                clickable=True, focusable=True),
                        ]),
                        _mk("android.view.View", (0, strip, w, bottom), p, obf),
                    ]),
                ]),
            ]),
        ])

    def _aod_window(self) -> Node:
        w, h, p = self.width, self.height, SYSTEMUI
        t = self._localtime()
        clock = f"{t.tm_hour % 12 or 12}:{t.tm_min:02d}"
        return self._tag(_mk("android.widget.FrameLayout", (0, 0, w, h), p, children=[
            _mk("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/notification_panel",
                children=[
                _mk("android.widget.TextView", (w // 4, round(h * 0.28), w * 3 // 4,
                                                round(h * 0.36)), p,
                    f"{p}:id/lockscreen_clock_view", clock, self._time_str()),
                _mk("android.widget.TextView", (w // 4, round(h * 0.36), w * 3 // 4,
                                                round(h * 0.39)), p,
                    f"{p}:id/date_view", self._date_str()),
            ]),
        ]), "aod")

    def _make_recents(self) -> _Inst:
        """The overview: one card per recent task, the newest in the middle."""
        w, h = self.width, self.height
        home = self._apps[self._home_pkg]
        p = home.package
        card_w, card_h = round(w * 0.70), round(h * 0.56)
        gap = round(w * 0.06)
        icon = round(h * 0.05)
        top = self._sb_h + icon + round(h * 0.08)
        x0 = (w - card_w) // 2
        cards = []
        for i, t in enumerate(self._tasks):
            label = self._apps[t.package].label if t.package in self._apps else t.package
            x1 = x0 - i * (card_w + gap)
            cx = x1 + card_w // 2
            card = _mk("com.android.quickstep.views.TaskView", (x1, top - icon - 20, x1 + card_w,
                                                                top + card_h), p,
                       desc=label, clickable=True, focusable=True, long_clickable=True,
                       children=[
                _mk("android.widget.ImageView", (cx - icon // 2, top - icon - 20, cx + icon // 2,
                                                 top - 20), p, f"{p}:id/icon", desc=label,
                    clickable=True, focusable=True),
                _mk("android.view.View", (x1, top, x1 + card_w, top + card_h), p,
                    f"{p}:id/snapshot"),
            ])
            card.meta["task"] = t
            cards.append(card)
        children: list[Node] = list(reversed(cards))
        if cards:
            oldest_x = x0 - (len(cards) - 1) * (card_w + gap)
            clear = _mk("android.widget.Button", (oldest_x - gap - 300, top + card_h // 2 - 70,
                                                  oldest_x - gap, top + card_h // 2 + 70), p,
                        f"{p}:id/clear_all", "Clear all", clickable=True, focusable=True)
            clear.meta["clear_all"] = True
            children.insert(0, clear)
        else:
            children.append(_mk("android.widget.TextView", (0, h // 2 - 60, w, h // 2 + 60), p,
                                text="No recent items"))
        bottom = h - self._nav_h
        panel = _mk("com.android.quickstep.views.RecentsView", (0, 0, w, bottom), p,
                    f"{p}:id/overview_panel", children=children, focusable=True,
                    scrollable=bool(cards))
        actions = _mk("android.widget.FrameLayout", (0, bottom - 220, w, bottom), p,
                      f"{p}:id/overview_actions_view", children=[
            _mk("android.widget.LinearLayout", (0, bottom - 200, w, bottom - 60), p,
                f"{p}:id/action_buttons", children=[
                _mk("android.widget.Button", (w // 2 - 330, bottom - 190, w // 2 - 20,
                                              bottom - 70), p, f"{p}:id/action_screenshot",
                    "Screenshot", clickable=True, focusable=True),
                _mk("android.widget.Button", (w // 2 + 20, bottom - 190, w // 2 + 330,
                                              bottom - 70), p, f"{p}:id/action_select",
                    "Select", clickable=True, focusable=True),
            ]),
        ]) if cards else None
        root_children = [panel] + ([actions] if actions is not None else [])
        root = _mk("android.widget.FrameLayout", (0, 0, w, h), p, children=[
            _mk("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/launcher", children=[
                _mk("android.widget.FrameLayout", (0, 0, w, h), p, f"{p}:id/drag_layer",
                    children=root_children)])])
        for n in root.iter():
            n.origin = "recents"
        sd = ScreenDef("recents", p, self._home.stack[0].sd.activity, Path("<generated>"),
                       [root], [], [], {}, [])
        inst = _Inst(sd, {}, "system")
        return inst

    # -- hit testing --------------------------------------------------------------------
    def _hit(self, x: int, y: int, long: bool = False
             ) -> tuple[str, Node | None, Node | None, _Inst | None]:
        """(window kind, rendered window, rendered handler node, owning instance)."""
        windows = self._render()
        def frame(w: Node) -> tuple[int, int, int, int]:
            return w.meta.get("frame", w.bounds)

        order = sorted(enumerate(windows), key=lambda iw: (_area(frame(iw[1])), -iw[0]))
        dialog_up = any(w.meta.get("kind") == "dialog" for w in windows)
        for _i, w in order:
            f = frame(w)
            if not (f[0] <= x < f[2] and f[1] <= y < f[3]):
                continue
            kind = w.meta.get("kind", "app")
            if dialog_up and kind == "app":
                return "outside", w, None, None
            found = self._dispatch(w, x, y, long, w.meta.get("inst"))
            if found is None:
                return kind, w, None, w.meta.get("inst")
            return kind, w, found[0], found[1]
        return "none", None, None, None

    def _dispatch(self, n: Node, x: int, y: int, long: bool, inst: _Inst | None
                  ) -> tuple[Node, _Inst | None] | None:
        inst = n.meta.get("inst", inst)
        for c in reversed(n.children):
            if c.contains(x, y):
                r = self._dispatch(c, x, y, long, inst)
                if r is not None:
                    return r
        src = n.src
        if n.flag("clickable") or n.flag("long-clickable") or (
            src is not None and src.editable and n.flag("focusable")
        ):
            return n, inst
        return None

    # -- input: taps --------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        """A tap at (x, y) in screen pixels."""
        with self._lock:
            if not self._screen_on:
                return
            self._touch(x, y, long=False)

    def long_press(self, x: int, y: int, duration_ms: int = 1000) -> None:
        """A touch held at (x, y) (what ``input swipe x y x y 1000`` does)."""
        with self._lock:
            if not self._screen_on:
                return
            self._touch(x, y, long=duration_ms >= _LONG_PRESS_MS)

    def _touch(self, x: int, y: int, long: bool) -> None:
        kind, _w, h, inst = self._hit(int(x), int(y), long)
        if kind == "outside":
            top = self._top()
            if top is not None and top.dialogs and not long and top.dialogs[-1].sd.cancelable:
                top.dialogs.pop()
                self._changed()
            return
        if h is None or h.src is None or not h.flag("enabled"):
            return
        src = h.src
        if kind == "nav":
            rid = src.rid.rsplit("/", 1)[-1]
            code = {"back": KEY_BACK, "home": KEY_HOME, "recent_apps": KEY_APP_SWITCH}.get(rid)
            if code is not None:
                self._key(code)
            return
        if kind in ("status", "ime", "aod"):
            return
        if kind == "recents" or (inst is not None and inst.kind == "system"):
            self._recents_tap(src)
            return
        if inst is None:
            return
        if long:
            rule, matched = self._find_rule(inst, src, "long_press")
            if rule is not None:
                self._changed()
                self._run(rule.actions, inst, src, matched or src)
                return
            if src.editable:
                self._focus(inst, src, show_ime=True)
                src.select_all = bool(src.value)
                self._changed()
                return
            if src.flag("long-clickable") and not src.flag("clickable"):
                return
            if not h.flag("clickable") or src.flag("long-clickable"):
                return
        self._click(inst, src)

    def _click(self, inst: _Inst, src: Node) -> None:
        self._changed()
        if src.editable:
            host = self._host(inst)
            if host.panel is not None and inst is host:
                host.panel = None
            self._focus(inst, src, show_ime=True)
        rule, matched = self._find_rule(inst, src, "tap")
        explicit_toggle = rule is not None and any(a.kind == "toggle" for a in rule.actions)
        if not explicit_toggle:
            self._default_toggle(src)
        if rule is None and inst.kind == "screen" and inst.sd.package == self._home_pkg:
            app = self._apps.get(self._home_pkg)
            if app is not None and app.launch_by_label:
                for n in src.iter():
                    for label in (n.text, n.desc):
                        target = self._app_by_label(label)
                        if target is not None:
                            self._launch(target.package, None)
                            return
        if rule is not None:
            self._run(rule.actions, inst, src, matched or src)

    def _app_by_label(self, label: str) -> AppDef | None:
        if not label:
            return None
        for a in self._apps.values():
            if a.label == label and a.start and a.activity and a.package != self._home_pkg:
                return a
        return None

    def _default_toggle(self, src: Node) -> None:
        target: Node | None = None
        if src.flag("checkable"):
            target = src
        else:
            cands = [n for n in src.iter() if n is not src and n.flag("checkable")]
            if len(cands) == 1 and not cands[0].flag("clickable"):
                target = cands[0]
        if target is None or not target.flag("enabled"):
            return
        if _is_radio(target):
            if not target.flag("checked"):
                self._radio_check(target)
        else:
            target.set_flag("checked", not target.flag("checked"))

    def _radio_check(self, target: Node) -> None:
        host = self._top()
        roots: list[Node] = []
        if host is not None:
            for i in [host, *host.dialogs] + ([host.panel] if host.panel else []):
                roots.extend(i.windows)
        group = self._radio_group(roots, target)
        for n in (group.iter() if group is not None else iter(())):
            if n is not target and _is_radio(n) and n.cls == target.cls:
                n.set_flag("checked", False)
        target.set_flag("checked", True)

    @staticmethod
    def _radio_group(roots: list[Node], target: Node) -> Node | None:
        def path(n: Node, goal: Node, acc: list[Node]) -> list[Node] | None:
            acc.append(n)
            if n is goal:
                return acc
            for c in n.children:
                r = path(c, goal, acc)
                if r is not None:
                    return r
            acc.pop()
            return None

        for r in roots:
            p = path(r, target, [])
            if p is not None:
                for anc in reversed(p[:-1]):
                    c = anc.cls
                    if ("ListView" in c or "RecyclerView" in c or "RadioGroup" in c
                            or "ScrollView" in c):
                        return anc
                return p[-2] if len(p) > 1 else p[0]
        return None

    def _find_rule(self, inst: _Inst, src: Node, trigger: str) -> tuple[Rule | None, Node | None]:
        rules = [r for r in inst.sd.rules if r.trigger == trigger and r.selector is not None]
        if not rules:
            return None, None
        ctx = self._context(inst)

        def shown(n: Node) -> Node:
            if "{" not in n.text and "{" not in n.desc:
                return n
            tmp = Node(dict(n.attrs), n.bounds)
            tmp.attrs["text"] = render_template(n.text, ctx)
            tmp.attrs["content-desc"] = render_template(n.desc, ctx)
            tmp.src = n
            return tmp

        me = shown(src)
        for r in rules:
            assert r.selector is not None
            if r.selector.matches(me) or r.selector.matches(src):
                return r, src
        desc = [n for n in src.iter() if n is not src]
        for r in rules:
            assert r.selector is not None
            for n in desc:
                if r.selector.matches(shown(n)) or r.selector.matches(n):
                    return r, n
        ancestors = self._ancestors(inst, src)  # a selector naming a non-clickable container
        for r in rules:
            assert r.selector is not None
            for n in ancestors:
                if r.selector.matches(shown(n)) or r.selector.matches(n):
                    return r, n
        return None, None

    @staticmethod
    def _ancestors(inst: _Inst, target: Node) -> list[Node]:
        """``target``'s ancestors in ``inst``, nearest first."""
        def walk(n: Node, acc: list[Node]) -> list[Node] | None:
            if n is target:
                return acc
            acc.append(n)
            for c in n.children:
                r = walk(c, acc)
                if r is not None:
                    return r
            acc.pop()
            return None

        for w in inst.windows:
            found = walk(w, [])
            if found is not None:
                return list(reversed(found))
        return []

    def _recents_tap(self, src: Node) -> None:
        if src.meta.get("clear_all"):
            self._tasks.clear()
            self._recents = None
            self._mode = "home"
            self._home.stack[-1].ime = False
            self._changed()
            return
        rec = self._recents
        if rec is None:
            return
        for w in rec.windows:
            for card in w.iter():
                t = card.meta.get("task")
                if t is not None and (card is src or any(n is src for n in card.iter())):
                    self._resume(t)
                    return

    # -- actions ------------------------------------------------------------------------
    def _host(self, inst: _Inst) -> _Inst:
        """The screen instance a dialog or panel belongs to (the screen itself otherwise)."""
        if inst.kind in ("dialog", "panel"):
            top = self._top()
            if top is not None:
                return top
        return inst

    def _run(self, actions: list[Action], inst: _Inst, handler: Node, matched: Node) -> None:
        ctx = self._context(inst, matched)
        for a in actions:
            self._do(a, inst, handler, ctx)
            self._changed()

    def _new_inst(self, name: str, vars_: dict[str, str], ctx: dict[str, str]) -> _Inst:
        sd = self._screens[name]
        new = _Inst(sd, {k: render_template(v, ctx) for k, v in vars_.items()})
        new.ime = new.focused_field() is not None and sd.keyboard
        return new

    def _do(self, a: Action, inst: _Inst, handler: Node, ctx: dict[str, str]) -> None:
        k = a.kind
        front = self._front()
        top = self._top()
        if k in ("goto", "replace"):
            if front is None or top is None:
                return
            new = self._new_inst(a.arg["screen"], a.arg["vars"], ctx)
            top.panel = None
            top.dialogs.clear()
            if k == "replace" and len(front.stack) > 0:
                front.stack.pop()
            front.stack.append(new)
        elif k == "back_to":
            if front is None:
                return
            names = [i.sd.name for i in front.stack]
            if a.arg in names:
                while front.stack[-1].sd.name != a.arg:
                    front.stack.pop()
                front.stack[-1].dialogs.clear()
                front.stack[-1].panel = None
                front.stack[-1].ime = False
        elif k == "back":
            self._back()
        elif k == "home":
            self._go_home()
        elif k == "recents":
            self._open_recents()
        elif k == "dialog":
            if top is None:
                return
            d = self._new_inst(a.arg, {}, ctx)
            d.kind = "dialog"
            top.dialogs.append(d)
        elif k == "dismiss":
            if top is not None and top.dialogs:
                top.dialogs.pop()
        elif k == "panel":
            if top is None:
                return
            if top.panel is not None and top.panel.sd.name == a.arg:
                top.panel = None  # toggled off: the keyboard comes back for the field
                top.ime = top.focused_field() is not None and top.sd.keyboard
            else:
                p = _Inst(self._screens[a.arg], {})
                p.kind = "panel"
                top.panel = p
                top.ime = False
        elif k == "close_panel":
            if top is not None:
                top.panel = None
        elif k == "toggle":
            target = handler if a.arg is None else self._find_front(a.arg)
            if target is not None:
                if a.arg is None and not target.flag("checkable"):
                    self._default_toggle(target)
                elif _is_radio(target):
                    self._radio_check(target)
                else:
                    target.set_flag("checked", not target.flag("checked"))
        elif k in ("set_text", "clear"):
            if k == "clear":
                sel, text = (a.arg, "")
            else:
                sel, text = a.arg["target"], render_template(a.arg["text"], ctx)
            target = self._focused_field() if sel is None else self._find_front(sel)
            if target is not None:
                if target.value is not None:
                    target.value = text
                    target.cursor = len(text)
                    target.select_all = False
                else:
                    target.attrs["text"] = text
        elif k == "insert":
            field = self._focused_field()
            if field is not None:
                self._insert(field, render_template(a.arg, ctx))
        elif k == "focus":
            owner = self._focus_owner()
            target = self._find_front(a.arg)
            if owner is not None and target is not None:
                self._focus(owner, target, show_ime=target.editable)
        elif k == "send":
            self._send(a.arg, ctx)
        elif k == "launch":
            self._launch(a.arg["package"], a.arg["activity"])
        elif k == "view":
            self._view(render_template(a.arg, ctx))

    def _find_front(self, sel: Selector) -> Node | None:
        top = self._top()
        if top is None:
            return None
        for i in [*reversed(top.dialogs), top] + ([top.panel] if top.panel else []):
            n = i.find(sel)
            if n is not None:
                return n
        return None

    def _send(self, arg: dict[str, Selector], ctx: dict[str, str]) -> None:
        top = self._top()
        if top is None:
            return
        field, lst = top.find(arg["from"]), top.find(arg["to"])
        tpl = next((t for t in top.sd.templates if arg["template"].matches(t)), None)
        if tpl is None:
            tpl = next((n for t in top.sd.templates for n in t.iter()
                        if arg["template"].matches(n)), None)
        if field is None or lst is None or tpl is None:
            return
        text = field.value or ""
        if not text.strip():
            return
        item = tpl.clone()
        vals = {**ctx, **top.vars, "text": text, "time": self._time_str(),
                "date": self._date_str()}
        for n in item.iter():
            n.origin = top.sd.name
            for attr in ("text", "content-desc"):
                if "{" in n.attrs.get(attr, ""):
                    n.attrs[attr] = render_template(n.attrs[attr], vals)
        visible = [c for c in lst.children if not c.meta.get("hidden")]
        if len(visible) >= 2:
            gap = max(0, visible[-1].bounds[1] + visible[-1].dy
                      - (visible[-2].bounds[3] + visible[-2].dy))
        else:
            gap = round(8 * self.density / 160)
        if visible:
            y = max(c.bounds[3] + c.dy for c in visible) + gap
        elif lst.bounds[1] <= tpl.bounds[1] < lst.bounds[3]:
            y = tpl.bounds[1]
        else:
            y = lst.bounds[1] + gap
        shift = y - tpl.bounds[1]
        for n in item.iter():
            b = n.bounds
            n.bounds = (b[0], b[1] + shift, b[2], b[3] + shift)
        lst.children.append(item)
        lst.meta["to_end"] = True
        field.value = ""
        field.cursor = 0
        field.select_all = False

    # -- focus and text -----------------------------------------------------------------
    def _focus(self, inst: _Inst, node: Node, show_ime: bool) -> None:
        if inst.focus is not None and inst.focus is not node:
            inst.focus.set_flag("focused", False)
        node.set_flag("focused", True)
        inst.focus = node
        if show_ime and node.editable and inst.sd.keyboard:
            inst.ime = True

    def _focused_field(self) -> Node | None:
        owner = self._focus_owner()
        return owner.focused_field() if owner is not None else None

    @staticmethod
    def _insert(field: Node, s: str) -> None:
        v = field.value or ""
        if field.select_all:
            v, cur = "", 0
        else:
            cur = min(max(field.cursor, 0), len(v))
        field.value = v[:cur] + s + v[cur:]
        field.cursor = cur + len(s)
        field.select_all = False

    def type_text(self, text: str) -> None:
        """Characters into the focused editable field (no-op when nothing is focused)."""
        with self._lock:
            if not self._screen_on or self._mode == "recents":
                return
            field = self._focused_field()
            if field is None or not text:
                return
            self._insert(field, text)
            self._changed()

    # -- keys ---------------------------------------------------------------------------
    def key(self, keycode: int) -> None:
        """One key event (``input keyevent``)."""
        with self._lock:
            self._key(int(keycode))

    def _key(self, code: int) -> None:
        if code in (KEY_POWER, KEY_SLEEP, KEY_WAKEUP):
            on = {KEY_POWER: not self._screen_on, KEY_SLEEP: False, KEY_WAKEUP: True}[code]
            if on != self._screen_on:
                self._screen_on = on
                self._changed()
            return
        if not self._screen_on:
            return
        self._changed()
        if code in (KEY_BACK, KEY_ESCAPE):
            self._back()
        elif code == KEY_HOME:
            self._go_home()
        elif code == KEY_APP_SWITCH:
            self._open_recents()
        elif code in (KEY_ENTER, KEY_NUMPAD_ENTER):
            self._enter()
        else:
            field = self._focused_field()
            if field is None or self._mode == "recents":
                return
            v = field.value or ""
            cur = min(max(field.cursor, 0), len(v))
            if code == KEY_DEL:
                if field.select_all:
                    field.value, field.cursor = "", 0
                elif cur > 0:
                    field.value, field.cursor = v[: cur - 1] + v[cur:], cur - 1
            elif code == KEY_FORWARD_DEL:
                if field.select_all:
                    field.value, field.cursor = "", 0
                else:
                    field.value = v[:cur] + v[cur + 1:]
            elif code == KEY_MOVE_HOME:
                field.cursor = 0
            elif code == KEY_MOVE_END:
                field.cursor = len(v)
            elif code == KEY_DPAD_LEFT:
                field.cursor = 0 if field.select_all else max(0, cur - 1)
            elif code == KEY_DPAD_RIGHT:
                field.cursor = len(v) if field.select_all else min(len(v), cur + 1)
            elif code in _KEY_CHARS:
                self._insert(field, _KEY_CHARS[code])
                return
            else:
                return
            field.select_all = False

    def key_combination(self, keycodes: list[int]) -> None:
        """Keys held together (``input keycombination``): CTRL+A/C/X/V, SHIFT+letter."""
        with self._lock:
            codes = [int(c) for c in keycodes]
            if not codes or not self._screen_on:
                return
            mods = {c for c in codes[:-1]}
            last = codes[-1]
            field = self._focused_field()
            if mods & set(KEY_CTRL):
                if field is None:
                    return
                v = field.value or ""
                if last == KEY_A:
                    field.select_all = bool(v)
                elif last == KEY_C and field.select_all:
                    self._clipboard = v
                elif last == KEY_X and field.select_all:
                    self._clipboard = v
                    field.value, field.cursor, field.select_all = "", 0, False
                elif last == KEY_V and self._clipboard:
                    self._insert(field, self._clipboard)
                self._changed()
            elif mods & set(KEY_SHIFT) and last in _KEY_CHARS and field is not None:
                self._insert(field, _KEY_CHARS[last].upper())
                self._changed()
            elif not mods:
                self._key(last)
            else:
                for c in codes:
                    self._key(c)

    def _enter(self) -> None:
        owner = self._focus_owner()
        field = owner.focused_field() if owner is not None else None
        if owner is None or field is None:
            return
        for r in owner.sd.rules:
            if r.trigger == "enter" and r.selector is not None and r.selector.matches(field):
                self._run(r.actions, owner, field, field)
                return

    def _back(self) -> None:
        if self._mode == "recents":
            self._recents = None
            self._mode = "app" if self._tasks else "home"
            return
        top = self._top()
        front = self._front()
        if top is None or front is None:
            return
        owner = self._focus_owner()
        if owner is not None and owner.ime and self._ime_shown():
            owner.ime = False
            return
        if top.panel is not None:
            top.panel = None
            return
        if top.dialogs:
            if top.dialogs[-1].sd.cancelable:
                top.dialogs.pop()
            return
        if len(front.stack) > 1:
            front.stack.pop()
            return
        if self._mode == "app":
            top.ime = False
            self._mode = "home"

    def _go_home(self) -> None:
        self._recents = None
        self._mode = "home"
        del self._home.stack[1:]
        root = self._home.stack[0]
        root.dialogs.clear()
        root.panel = None
        root.ime = False

    def _open_recents(self) -> None:
        if self._mode == "recents":
            if len(self._tasks) >= 2:
                self._resume(self._tasks[1])
            elif self._tasks:
                self._resume(self._tasks[0])
            return
        self._mode = "recents"
        self._recents = None

    def _resume(self, task: _Task) -> None:
        if task in self._tasks:
            self._tasks.remove(task)
        self._tasks.insert(0, task)
        self._mode = "app"
        self._recents = None
        self._changed()

    def _open_task(self, package: str, first: _Inst) -> _Task:
        first.ime = first.focused_field() is not None and first.sd.keyboard
        task = _Task(package, [first])
        self._tasks.insert(0, task)
        self._mode = "app"
        self._recents = None
        return task

    # -- intents ------------------------------------------------------------------------
    def launch(self, package: str, activity: str | None = None) -> bool:
        """Bring an app (optionally a given activity) to the front; False if unknown.

        An app that is already running is resumed where it was (``am start`` of its
        launcher activity and ``monkey -p`` behave like the launcher icon). Naming another
        of its activities puts that screen on top of the app's task.
        """
        with self._lock:
            ok = self._launch(package, activity)
            self._changed()
            return ok

    def _launch(self, package: str, activity: str | None) -> bool:
        app = self._apps.get(package)
        if app is None or app.start is None or (not activity and app.activity is None
                                                and package != self._home_pkg):
            return False  # unknown, or nothing a launcher intent could start
        fq: str | None = None
        names: list[str] = []
        if activity:
            fq = package + activity if activity.startswith(".") else activity
            if "." not in fq:
                fq = f"{package}.{fq}"
            if fq == app.activity:
                fq = None  # the launcher activity: same as tapping the icon
            else:
                names = [n for n in app.screens if self._screens[n].activity == fq]
                if not names:
                    return False
        if package == self._home_pkg:
            self._go_home()
            return True
        task = next((t for t in self._tasks if t.package == package), None)
        if task is not None and (fq is None or task.stack[-1].sd.activity == fq):
            self._resume(task)
            return True
        first_name = names[0] if fq is not None else app.start
        new = _Inst(self._screens[first_name], {})
        new.ime = new.focused_field() is not None and new.sd.keyboard
        if task is not None:
            task.stack.append(new)
            self._resume(task)
        else:
            self._open_task(package, new)
        return True

    def view(self, uri: str) -> str | None:
        """ACTION_VIEW ``uri``; returns the package that handled it, or None."""
        with self._lock:
            pkg = self._view(uri)
            self._changed()
            return pkg

    def _view(self, uri: str) -> str | None:
        scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
        if not scheme:
            return None
        for app in self._apps.values():
            for v in app.views:
                if scheme in v.schemes:
                    parts = urlsplit(uri)
                    path = parts.path if parts.netloc else uri.split(":", 1)[1].lstrip("/")
                    ctx = {"uri": uri, "url": uri, "scheme": scheme, "host": parts.netloc,
                           "path": path, "time": self._time_str(), "date": self._date_str()}
                    vars_ = {"uri": uri, "url": uri, "host": parts.netloc, "path": path}
                    vars_.update({k: render_template(x, ctx) for k, x in v.vars.items()})
                    new = _Inst(self._screens[v.screen], vars_)
                    new.ime = False
                    task = next((t for t in self._tasks if t.package == app.package), None)
                    if task is not None:
                        task.stack.append(new)
                        self._resume(task)
                    else:
                        self._open_task(app.package, new)
                        new.ime = False
                    return app.package
        return None

    # -- swipes -------------------------------------------------------------------------
    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        """A swipe; a (near) zero-distance swipe of >= 500 ms is a long press."""
        with self._lock:
            if not self._screen_on:
                return
            x1, y1, x2, y2 = int(x1), int(y1), int(x2), int(y2)
            dx, dy = x2 - x1, y2 - y1
            if dx * dx + dy * dy <= _TOUCH_SLOP * _TOUCH_SLOP:
                self._touch(x1, y1, long=duration_ms >= _LONG_PRESS_MS)
                return
            kind, w, _h, inst = self._hit(x1, y1)
            if w is None or kind in ("outside", "status", "nav", "ime", "aod"):
                return
            vertical = abs(dy) >= abs(dx)
            in_recents = kind == "recents" or (inst is not None and inst.kind == "system")
            if in_recents and vertical and dy < 0 and self._recents_dismiss(w, x1, y1):
                return
            target = self._scroll_target(w, x1, y1, vertical)
            if target is not None:
                src = target.src
                assert src is not None
                vp = target.bounds
                mnx, mxx, mny, mxy = self._scroll_range(src, vp)
                if vertical:
                    new = min(max(src.scroll_y - dy, mny), mxy)
                    if new != src.scroll_y:
                        src.scroll_y = new
                        self._changed()
                else:
                    new = min(max(src.scroll_x - dx, mnx), mxx)
                    if new != src.scroll_x:
                        src.scroll_x = new
                        self._changed()
                return
            if inst is None:
                return
            direction = ("up" if dy < 0 else "down") if vertical else ("left" if dx < 0
                                                                        else "right")
            for r in inst.sd.rules:
                if r.trigger == "swipe" and r.direction == direction:
                    self._changed()
                    self._run(r.actions, inst, inst.windows[0], inst.windows[0])
                    return

    def _scroll_target(self, w: Node, x: int, y: int, vertical: bool) -> Node | None:
        path: list[Node] = []
        n: Node | None = w
        while n is not None:
            path.append(n)
            n = next((c for c in reversed(n.children) if c.contains(x, y)), None)
        for n in reversed(path):
            if not n.flag("scrollable") or n.src is None:
                continue
            horiz = _horizontal(n)
            if horiz == (not vertical):
                return n
            if not horiz and not vertical:
                ext = self._extent(n.src)
                if ext is not None and ext[2] - ext[0] > n.bounds[2] - n.bounds[0]:
                    return n
        return None

    def _recents_dismiss(self, w: Node, x: int, y: int) -> bool:
        for n in w.iter():
            src = n.src
            t = src.meta.get("task") if src is not None else None
            if t is not None and n.contains(x, y):
                if t in self._tasks:
                    self._tasks.remove(t)
                self._recents = self._make_recents()
                self._changed()
                return True
        return False

    # -- screenshots ----------------------------------------------------------------------
    def screenshot_png(self) -> bytes:
        """A valid PNG of ``width`` x ``height`` depicting the current screen."""
        with self._lock:
            windows = self._render()
            key = (self._version, int(self._now() // 60))
            if self._png_cache is not None and self._png_cache[0] == key:
                return self._png_cache[1]
            data = _paint(windows, self.width, self.height, self._screen_on)
            self._png_cache = (key, data)
            return data

    def describe(self) -> str:
        """A one-line summary of the state, for debugging and test failure messages."""
        with self._lock:
            top = self._top()
            extra = ""
            if top is not None:
                if top.dialogs:
                    extra += f" dialog={top.dialogs[-1].sd.name}"
                if top.panel is not None:
                    extra += f" panel={top.panel.sd.name}"
            return (f"mode={self._mode} screen={self.screen_name()}{extra} "
                    f"ime={self._ime_shown()} on={self._screen_on} "
                    f"tasks={[t.package for t in self._tasks]}")


# -- painting ----------------------------------------------------------------------------

_PALETTE = [
    (248, 249, 250),  # 0 background
    (255, 255, 255),  # 1 surface
    (32, 33, 36),  # 2 text
    (95, 99, 104),  # 3 secondary text
    (26, 115, 232),  # 4 accent
    (210, 227, 252),  # 5 accent container
    (218, 220, 224),  # 6 divider / outline
    (154, 160, 166),  # 7 icon
    (236, 238, 241),  # 8 system bars
    (226, 229, 233),  # 9 keyboard
    (189, 193, 198),  # 10 switch track off
    (0, 0, 0),  # 11 black
    (232, 240, 254),  # 12 field fill
]


def _paint(windows: list[Node], width: int, height: int, on: bool) -> bytes:
    c = Canvas(width, height, _PALETTE, 0 if on else 11)
    if not on:
        for w in windows:
            for n in w.iter():
                if n.text:
                    _text_bar(c, n, 10, centre=True)
        return c.png()
    order = {"app": 0, "dialog": 1, "ime": 2, "status": 3, "nav": 3}
    dimmed = False
    for w in sorted(windows, key=lambda w: order.get(w.meta.get("kind", "app"), 0)):
        kind = w.meta.get("kind", "app")
        b = w.bounds
        if kind == "dialog" and not dimmed:
            c.dim(0, 0, width, height)
            dimmed = True
        if kind in ("status", "nav"):
            c.fill(*b, 8)
        elif kind == "ime":
            c.fill(*b, 9)
            _keys(c, b)
        elif kind == "dialog":
            c.fill(*b, 1)
        for n in w.iter():
            _paint_node(c, n)
    return c.png()


def _keys(c: Canvas, b: tuple[int, int, int, int]) -> None:
    x1, y1, x2, y2 = b
    top = y1 + (y2 - y1) // 6
    rows = (10, 9, 9, 5)
    rh = (y2 - top) // 4
    for r, n in enumerate(rows):
        kw = (x2 - x1) // 10
        off = x1 + ((x2 - x1) - kw * n) // 2
        for k in range(n):
            c.fill(off + k * kw + 6, top + r * rh + 8, off + (k + 1) * kw - 6,
                   top + (r + 1) * rh - 8, 1)


def _text_bar(c: Canvas, n: Node, colour: int, centre: bool = False) -> None:
    x1, y1, x2, y2 = n.bounds
    h = y2 - y1
    if h <= 4 or x2 - x1 <= 4:
        return
    bar = max(4, min(h // 2, 34))
    length = min(x2 - x1 - 16, max(bar, len(n.text) * bar * 11 // 20))
    top = y1 + (h - bar) // 2
    left = x1 + ((x2 - x1 - length) // 2 if centre else 8)
    c.fill(left, top, left + length, top + bar, colour)


def _paint_node(c: Canvas, n: Node) -> None:
    cls = n.cls.rsplit(".", 1)[-1]
    x1, y1, x2, y2 = n.bounds
    if x2 <= x1 or y2 <= y1:
        return
    src = n.src
    if src is not None and src.editable:
        c.fill(x1, y1, x2, y2, 12)
        c.fill(x1, y2 - 4, x2, y2, 4 if n.flag("focused") else 7)
        if n.text:
            _text_bar(c, n, 2 if (src.value or "") else 3)
        return
    if cls in ("Switch", "SwitchCompat", "SwitchMaterial", "MaterialSwitch"):
        cy = (y1 + y2) // 2
        tw = min(x2 - x1, 140)
        tx = x2 - tw
        on = n.flag("checked")
        c.fill(tx, cy - 30, x2, cy + 30, 4 if on else 10)
        knob = x2 - 60 if on else tx
        c.fill(knob + 8, cy - 22, knob + 52, cy + 22, 1)
        return
    if cls in ("CheckBox", "RadioButton", "CheckedTextView"):
        cy = (y1 + y2) // 2
        c.frame(x1 + 8, cy - 24, x1 + 56, cy + 24, 4 if n.flag("checked") else 7, 5)
        if n.flag("checked"):
            c.fill(x1 + 18, cy - 14, x1 + 46, cy + 14, 4)
        if n.text:
            c.fill(x1 + 80, cy - 14, min(x2 - 8, x1 + 80 + len(n.text) * 18), cy + 14, 2)
        return
    if cls in ("ImageView", "ImageButton") or cls.endswith("TaskView"):
        if cls.endswith("TaskView"):
            c.fill(x1, y1, x2, y2, 1)
            c.frame(x1, y1, x2, y2, 6, 4)
            return
        s = min(x2 - x1, y2 - y1) * 3 // 5
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        c.fill(cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2, 7)
        return
    if cls.endswith("Button") and cls not in ("ImageButton", "RadioButton"):
        c.fill(x1 + 4, y1 + 8, x2 - 4, y2 - 8, 5 if not n.flag("enabled") else 4)
        if n.text:
            _text_bar(c, n, 1, centre=True)
        return
    if n.text and n.flag("clickable") and (y2 - y1) >= 200 and (x2 - x1) < 0.4 * c.width:
        s = min(x2 - x1, y2 - y1) // 2  # a launcher icon: the icon, then its label
        cx = (x1 + x2) // 2
        c.fill(cx - s // 2, y1 + 20, cx + s // 2, y1 + 20 + s, 4)
        c.fill(cx - s // 2, y2 - 60, cx + s // 2, y2 - 30, 2)
        return
    if n.desc and not n.text and n.flag("long-clickable") and cls.endswith("Layout"):
        c.fill(x1, y1, x2, y2, 5)  # a message bubble or card
        return
    if n.text:
        _text_bar(c, n, 2 if (y2 - y1) >= 60 else 3)
    elif n.flag("clickable") and (x2 - x1) >= 0.6 * c.width:
        c.fill(x1 + 32, y2 - 2, x2 - 32, y2, 6)
    if n.flag("selected"):
        c.frame(x1, y1, x2, y2, 4, 3)

