"""What is on screen: the apps' tasks, the screens on them, dialogs, panels, focus, and the
navigation between them (launch, view, back, home, recents).

A :class:`ScreenInstance` is a screen on a task's stack (or a dialog or panel over one): a
private copy of its scenario windows plus its state (variables, focus, keyboard). A
:class:`Task` is one app's stack. :class:`ScreenState` holds them all, with the mode
(home, an app, or the overview), the display's power and the clipboard, and moves between
them the way Android 15 does:

* each launched app gets a task; ``launch`` resumes an app's task if it exists;
* HOME keeps every task as it was; BACK on an app's first screen moves its task to the back
  (Android 12+) and shows the launcher; APP_SWITCH opens recents.

Nothing here draws or dispatches input: :mod:`.render` draws this state and :mod:`.touch`,
:mod:`.keys` and :mod:`.reactions` change it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from baremobile.virtual.scenario import AppDef, Scenario, ScreenDef, Selector, render_template
from baremobile.virtual.uixml import Node, element_id

from .clock import PhoneClock

__all__ = [
    "SYSTEMUI", "IME_PACKAGE", "AppInfo", "ScreenInstance", "Task", "ScreenState", "insert_text",
]

SYSTEMUI = "com.android.systemui"
IME_PACKAGE = "com.google.android.inputmethod.latin"


@dataclass(frozen=True)
class AppInfo:
    """One installed app."""

    package: str
    label: str
    launcher_activity: str | None  # e.g. ".Settings" expanded to "com.android.settings.Settings"
    system: bool  # False for third-party apps (``pm list packages -3``)
    version_name: str = "1.0"
    version_code: int = 1
    debuggable: bool = False  # a build with android:debuggable (``run-as`` works)


class ScreenInstance:
    """A screen on a task's stack (or a dialog / panel over one): a private copy of the
    screen's windows plus its state."""

    def __init__(self, sd: ScreenDef, vars_: dict[str, str], kind: str = "screen") -> None:
        self.sd = sd
        self.kind = kind  # "screen", "dialog", "panel" or "system"
        self.windows = [w.clone() for w in sd.windows]
        self.vars = {**sd.vars, **vars_}
        # what each element is an instance of (``meta["defn"]``): the screen's node it was
        # cloned from, with the screen's variables — a screen opened again shows new nodes
        # that are instances of the same elements
        shown_as = ",".join(f"{k}={v}" for k, v in sorted(self.vars.items()))
        for dw, cw in zip(sd.windows, self.windows, strict=True):
            for d, c in zip(dw.iter(), cw.iter(), strict=True):
                c.meta["defn"] = f"{element_id(d)}[{shown_as}]"
        self.dialogs: list[ScreenInstance] = []
        self.panel: ScreenInstance | None = None
        self.ime = False
        #: whether the page's focused element takes text (screens with a web page)
        self.web_editable = False
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
        #: the WebView that shows this screen's page (screens with ``web:``), else None
        self.web_node: Node | None = None
        if sd.web is not None:
            self.web_node = next((n for w in self.windows for n in w.iter()
                                  if n.cls.endswith("WebView")), None)
        self.filter_nodes: list[tuple[Any, Node | None, Node | None]] | None = None
        self.scale = sd.zoom.minimum if sd.zoom is not None else 1.0
        if sd.zoom is not None:
            self.vars.setdefault(sd.zoom.var, f"{round(self.scale * 100)}%")

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

    def focus_on(self, node: Node, show_ime: bool) -> None:
        """Move input focus to ``node`` (the keyboard comes up for an editable one)."""
        if self.focus is not None and self.focus is not node:
            self.focus.set_flag("focused", False)
        node.set_flag("focused", True)
        self.focus = node
        if show_ime and node.editable and self.sd.keyboard:
            self.ime = True


def insert_text(field: Node, s: str) -> None:
    """``s`` typed into ``field`` at its caret (replacing the text when all is selected)."""
    v = field.value or ""
    if field.select_all:
        v, cur = "", 0
    else:
        cur = min(max(field.cursor, 0), len(v))
    limit = field.meta.get("max_length")
    if limit is not None:  # an InputFilter.LengthFilter: what does not fit is dropped
        s = s[:max(0, int(limit) - len(v))]
    field.value = v[:cur] + s + v[cur:]
    field.cursor = cur + len(s)
    field.select_all = False


def uri_vars(uri: str) -> dict[str, str]:
    """What a screen opened with a URI sees: ``uri``, ``url``, ``host``, ``path``."""
    parts = urlsplit(uri)
    path = parts.path if parts.netloc else uri.split(":", 1)[-1].lstrip("/")
    return {"uri": uri, "url": uri, "host": parts.netloc, "path": path}


@dataclass
class Task:
    package: str
    stack: list[ScreenInstance]


class ScreenState:
    """The tasks and screens of the phone, and navigation between them.

    ``screens`` and ``apps`` are the scenario's definitions plus any the system adds (a
    generated launcher); ``home`` names the launcher package.
    """

    def __init__(self, scenario: Scenario, clock: PhoneClock, screens: dict[str, ScreenDef],
                 apps: dict[str, AppDef], home: str) -> None:
        self.sc = scenario
        self.clock = clock
        self.screens = screens
        self.apps = apps
        self.home_pkg = home
        self.reset()

    def reset(self) -> None:
        """No tasks, screen on, at the scenario's start screen."""
        self.tasks: list[Task] = []
        home_app = self.apps[self.home_pkg]
        assert home_app.start is not None
        self.home = Task(self.home_pkg, [ScreenInstance(self.screens[home_app.start], {})])
        self.mode = "home"  # "home", "app" or "recents"
        self.recents: ScreenInstance | None = None  # the overview, built when first drawn
        self.screen_on = True
        self.clipboard = ""
        #: the shade SystemUI shows over everything: None, "notifications" or "settings"
        self.shade: str | None = None
        self.version = 0
        start = self.sc.start
        if start is not None:
            if start in self.apps:
                self.launch(start, None)
            else:
                sd = self.screens[start]
                self.open_task(sd.package, ScreenInstance(sd, {}))

    def changed(self) -> None:
        """What is on screen may have changed (invalidates what was drawn)."""
        self.version += 1

    # -- what is in front -----------------------------------------------------------------
    def front(self) -> Task | None:
        if self.mode == "app" and self.tasks:
            return self.tasks[0]
        if self.mode == "home":
            return self.home
        return None

    def top(self) -> ScreenInstance | None:
        t = self.front()
        return t.stack[-1] if t is not None and t.stack else None

    def focus_owner(self) -> ScreenInstance | None:
        """The instance whose window has input focus: the top dialog, else the screen."""
        top = self.top()
        if top is None:
            return None
        return top.dialogs[-1] if top.dialogs else top

    def focused_field(self) -> Node | None:
        owner = self.focus_owner()
        return owner.focused_field() if owner is not None else None

    def ime_shown(self) -> bool:
        if not self.sc.keyboard or not self.screen_on or self.mode == "recents" or \
                self.shade is not None:
            return False
        owner = self.focus_owner()
        if owner is None or not owner.ime:
            return False
        top = self.top()
        return not (owner is top and top is not None and top.panel is not None)

    def host(self, inst: ScreenInstance) -> ScreenInstance:
        """The screen instance a dialog or panel belongs to (the screen itself otherwise)."""
        if inst.kind in ("dialog", "panel"):
            top = self.top()
            if top is not None:
                return top
        return inst

    def find_front(self, sel: Selector) -> Node | None:
        """The first node matching ``sel`` in the top dialogs, the screen, then its panel."""
        top = self.top()
        if top is None:
            return None
        for i in [*reversed(top.dialogs), top] + ([top.panel] if top.panel else []):
            n = i.find(sel)
            if n is not None:
                return n
        return None

    def context(self, inst: ScreenInstance | None, node: Node | None = None) -> dict[str, str]:
        """The values templates see: time, date, the screen's variables, the focused field's
        text, and the node's text/desc/id."""
        ctx: dict[str, str] = {"time": self.clock.time_str(), "date": self.clock.date_str()}
        if inst is not None:
            ctx.update(inst.vars)
        field = self.focused_field()
        if field is not None:
            ctx["field"] = field.value or ""
        if node is not None:
            ctx["text"] = render_template(node.text, ctx) if node.value is None else (
                node.value or "")
            ctx["desc"] = render_template(node.desc, ctx)
            ctx["id"] = node.rid
        return ctx

    def new_instance(self, name: str, vars_: dict[str, str], ctx: dict[str, str]
                     ) -> ScreenInstance:
        sd = self.screens[name]
        new = ScreenInstance(sd, {k: render_template(v, ctx) for k, v in vars_.items()})
        new.ime = new.focused_field() is not None and sd.keyboard
        return new

    # -- navigation -----------------------------------------------------------------------
    def back(self) -> None:
        if self.shade is not None:  # BACK closes the shade first
            self.shade = None
            return
        if self.mode == "recents":
            self.recents = None
            self.mode = "app" if self.tasks else "home"
            return
        top = self.top()
        front = self.front()
        if top is None or front is None:
            return
        owner = self.focus_owner()
        if owner is not None and owner.ime and self.ime_shown():
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
        if self.mode == "app":
            top.ime = False
            self.mode = "home"

    def go_home(self) -> None:
        self.recents = None
        self.shade = None
        self.mode = "home"
        del self.home.stack[1:]
        root = self.home.stack[0]
        root.dialogs.clear()
        root.panel = None
        root.ime = False

    def open_recents(self) -> None:
        self.shade = None
        if self.mode == "recents":
            if len(self.tasks) >= 2:
                self.resume(self.tasks[1])
            elif self.tasks:
                self.resume(self.tasks[0])
            return
        self.mode = "recents"
        self.recents = None

    def clear_recents(self) -> None:
        """"Clear all" in the overview: every task goes, the launcher shows."""
        self.tasks.clear()
        self.recents = None
        self.mode = "home"
        self.home.stack[-1].ime = False

    def uninstall(self, package: str) -> bool:
        """The package is gone: its tasks close (the launcher shows if it was in front)."""
        if self.apps.pop(package, None) is None:
            return False
        self.force_stop(package)
        return True

    def force_stop(self, package: str) -> None:
        """``am force-stop``: the package's activities are finished — its tasks go, and
        the launcher shows if it was in front (``ActivityManagerService.forceStopPackage``);
        its next launch starts from its launcher activity, as a fresh process does."""
        before = self.front()
        self.tasks = [t for t in self.tasks if t.package != package]
        if before is not None and before.package == package:
            self.go_home()
        self.recents = None
        self.changed()

    def install(self, app: AppDef, screens: dict[str, ScreenDef]) -> None:
        """A package installed (``pm install``): its app and screens join the phone's; an
        update replaces them and stops the old version, as the package manager does."""
        if app.package in self.apps:
            self.force_stop(app.package)
        self.apps[app.package] = app
        self.screens.update(screens)
        self.changed()

    def set_shade(self, kind: str | None) -> None:
        """Open the shade (``notifications``, ``settings``) or close it (None)."""
        self.shade = kind if self.screen_on else None
        if kind is not None:
            self.recents = None
            if self.mode == "recents":
                self.mode = "app" if self.tasks else "home"
        self.changed()

    def resume(self, task: Task) -> None:
        self.shade = None  # starting an activity collapses the shade
        if task in self.tasks:
            self.tasks.remove(task)
        self.tasks.insert(0, task)
        self.mode = "app"
        self.recents = None
        self.changed()

    def open_task(self, package: str, first: ScreenInstance) -> Task:
        self.shade = None
        first.ime = first.focused_field() is not None and first.sd.keyboard
        task = Task(package, [first])
        self.tasks.insert(0, task)
        self.mode = "app"
        self.recents = None
        return task

    def launch(self, package: str, activity: str | None, data: str | None = None) -> bool:
        """Bring an app (optionally a given activity) to the front; False if unknown.

        ``data`` (an explicit intent's URI) reaches the started screen as ``{uri}``/``{url}``,
        ``{host}`` and ``{path}``; it always starts a new screen instance.
        """
        app = self.apps.get(package)
        if app is None or app.start is None or (not activity and app.activity is None
                                                and package != self.home_pkg):
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
                names = [n for n in app.screens if self.screens[n].activity == fq]
                if not names:
                    return False
        if package == self.home_pkg:
            self.go_home()
            return True
        task = next((t for t in self.tasks if t.package == package), None)
        if task is not None and data is None and (fq is None
                                                  or task.stack[-1].sd.activity == fq):
            self.resume(task)
            return True
        first_name = names[0] if fq is not None else app.start
        new = ScreenInstance(self.screens[first_name], uri_vars(data) if data else {})
        new.ime = new.focused_field() is not None and new.sd.keyboard
        if task is not None:
            task.stack.append(new)
            self.resume(task)
        else:
            self.open_task(package, new)
        return True

    def view(self, uri: str) -> str | None:
        """ACTION_VIEW ``uri``: the package that handled it, or None."""
        scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
        if not scheme:
            return None
        for app in self.apps.values():
            for v in app.views:
                if scheme in v.schemes:
                    vars_ = uri_vars(uri)
                    ctx = {**vars_, "scheme": scheme, "time": self.clock.time_str(),
                           "date": self.clock.date_str()}
                    vars_.update({k: render_template(x, ctx) for k, x in v.vars.items()})
                    new = ScreenInstance(self.screens[v.screen], vars_)
                    new.ime = False
                    task = next((t for t in self.tasks if t.package == app.package), None)
                    if task is not None:
                        task.stack.append(new)
                        self.resume(task)
                    else:
                        self.open_task(app.package, new)
                        new.ime = False
                    return app.package
        return None

    # -- reading it -----------------------------------------------------------------------
    def app_infos(self) -> list[AppInfo]:
        """Every installed app, the scenario's plus the system's own."""
        out = [
            AppInfo(a.package, a.label, a.activity, a.system, a.version_name, a.version_code,
                    getattr(a, "debuggable", False))
            for a in self.apps.values()
        ]
        have = {a.package for a in out}
        for pkg, label in (("android", "Android System"), (SYSTEMUI, "System UI"),
                           (IME_PACKAGE, "Gboard")):
            if pkg not in have:
                out.append(AppInfo(pkg, label, None, True, "15", 35))
        return out

    def current(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the focused app window."""
        if self.mode == "recents":
            home = self.home.stack[0].sd
            return home.package, home.activity
        top = self.top()
        assert top is not None
        return top.sd.package, top.sd.activity

    def screen_name(self) -> str:
        """The scenario name of the screen in front (``"recents"`` for the overview)."""
        if self.mode == "recents":
            return "recents"
        owner = self.focus_owner()
        assert owner is not None
        return owner.sd.name

    def describe(self) -> str:
        """A one-line summary, for debugging and test failure messages."""
        top = self.top()
        extra = ""
        if top is not None:
            if top.dialogs:
                extra += f" dialog={top.dialogs[-1].sd.name}"
            if top.panel is not None:
                extra += f" panel={top.panel.sd.name}"
        return (f"mode={self.mode} screen={self.screen_name()}{extra} "
                f"ime={self.ime_shown()} on={self.screen_on} "
                f"tasks={[t.package for t in self.tasks]}")
