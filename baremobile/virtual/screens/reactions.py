"""How screens react: the scenario's rules and what their actions do.

A tap (or long press, ENTER, or a swipe nothing scrolled) on a screen finds the first rule
whose selector matches the node that took it — the node itself, then what it holds, then
what holds it — and runs the rule's actions in order: go to or replace a screen, go back,
open a dialog or a panel, toggle, set or insert text, move focus, send a message into a
list, remove a node, launch an app or view a URI. A broadcast runs the front screen's
``broadcast`` rules the same way (:meth:`ScreenModel.broadcast`). Without a rule, taps do
what Android widgets do by themselves: focus an editable field, toggle a checkable (radio
buttons in their group).
"""

from __future__ import annotations

from baremobile.virtual.scenario import Action, AppDef, Rule, Selector, render_template
from baremobile.virtual.uixml import Node

from .display import Display
from .state import ScreenInstance, ScreenState, insert_text

__all__ = ["Reactions", "is_radio"]


def is_radio(n: Node) -> bool:
    c = n.cls
    return c.endswith("RadioButton") or c.endswith("CheckedTextView")


class Reactions:
    """Runs a :class:`~.state.ScreenState`'s screens' rules."""

    def __init__(self, state: ScreenState, display: Display) -> None:
        self.state = state
        self.display = display

    def click(self, inst: ScreenInstance, src: Node) -> None:
        """A click on ``src``: focus an editable field, toggle a checkable, then the first
        matching ``tap`` rule (or, on the launcher, open the app an icon names)."""
        self.state.changed()
        if src.editable:
            host = self.state.host(inst)
            if host.panel is not None and inst is host:
                host.panel = None
            inst.focus_on(src, show_ime=True)
        rule, matched = self.find_rule(inst, src, "tap")
        explicit_toggle = rule is not None and any(a.kind == "toggle" for a in rule.actions)
        if not explicit_toggle:
            self.default_toggle(src)
        if rule is None and inst.kind == "screen" and inst.sd.package == self.state.home_pkg:
            app = self.state.apps.get(self.state.home_pkg)
            if app is not None and app.launch_by_label:
                for n in src.iter():
                    for label in (n.text, n.desc):
                        target = self._app_by_label(label)
                        if target is not None:
                            self.state.launch(target.package, None)
                            return
        if rule is not None:
            self.run(rule.actions, inst, src, matched or src)

    def _app_by_label(self, label: str) -> AppDef | None:
        if not label:
            return None
        for a in self.state.apps.values():
            if a.label == label and a.start and a.activity and a.package != self.state.home_pkg:
                return a
        return None

    def default_toggle(self, src: Node) -> None:
        target: Node | None = None
        if src.flag("checkable"):
            target = src
        else:
            cands = [n for n in src.iter() if n is not src and n.flag("checkable")]
            if len(cands) == 1 and not cands[0].flag("clickable"):
                target = cands[0]
        if target is None or not target.flag("enabled"):
            return
        if is_radio(target):
            if not target.flag("checked"):
                self._radio_check(target)
        else:
            target.set_flag("checked", not target.flag("checked"))

    def _radio_check(self, target: Node) -> None:
        host = self.state.top()
        roots: list[Node] = []
        if host is not None:
            for i in [host, *host.dialogs] + ([host.panel] if host.panel else []):
                roots.extend(i.windows)
        group = self._radio_group(roots, target)
        for n in (group.iter() if group is not None else iter(())):
            if n is not target and is_radio(n) and n.cls == target.cls:
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

    def find_rule(self, inst: ScreenInstance, src: Node, trigger: str
                  ) -> tuple[Rule | None, Node | None]:
        """The first rule of ``inst`` for ``trigger`` whose selector matches ``src``, then
        one of its descendants, then one of its ancestors; and the node it matched."""
        rules = [r for r in inst.sd.rules if r.trigger == trigger and r.selector is not None]
        if not rules:
            return None, None
        ctx = self.state.context(inst)

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
    def _ancestors(inst: ScreenInstance, target: Node) -> list[Node]:
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

    def run(self, actions: list[Action], inst: ScreenInstance, handler: Node, matched: Node
            ) -> None:
        """A rule's actions, in order, with templates filled from ``matched``."""
        ctx = self.state.context(inst, matched)
        for a in actions:
            self.do(a, inst, handler, ctx)
            self.state.changed()

    def do(self, a: Action, inst: ScreenInstance, handler: Node, ctx: dict[str, str]) -> None:
        """One action of a rule (``goto``, ``back``, ``dialog``, ``toggle``, ``send`` ...)."""
        k = a.kind
        front = self.state.front()
        top = self.state.top()
        if k in ("goto", "replace"):
            if front is None or top is None:
                return
            new = self.state.new_instance(a.arg["screen"], a.arg["vars"], ctx)
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
            self.state.back()
        elif k == "home":
            self.state.go_home()
        elif k == "recents":
            self.state.open_recents()
        elif k == "dialog":
            if top is None:
                return
            d = self.state.new_instance(a.arg, {}, ctx)
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
                p = ScreenInstance(self.state.screens[a.arg], {})
                p.kind = "panel"
                top.panel = p
                top.ime = False
        elif k == "close_panel":
            if top is not None:
                top.panel = None
        elif k == "toggle":
            target = handler if a.arg is None else self.state.find_front(a.arg)
            if target is not None:
                if a.arg is None and not target.flag("checkable"):
                    self.default_toggle(target)
                elif is_radio(target):
                    self._radio_check(target)
                else:
                    target.set_flag("checked", not target.flag("checked"))
        elif k in ("set_text", "clear"):
            if k == "clear":
                sel, text = (a.arg, "")
            else:
                sel, text = a.arg["target"], render_template(a.arg["text"], ctx)
            target = self.state.focused_field() if sel is None else self.state.find_front(sel)
            if target is not None:
                if target.value is not None:
                    target.value = text
                    target.cursor = len(text)
                    target.select_all = False
                else:
                    target.attrs["text"] = text
        elif k == "insert":
            field = self.state.focused_field()
            if field is not None:
                insert_text(field, render_template(a.arg, ctx))
        elif k == "focus":
            owner = self.state.focus_owner()
            target = self.state.find_front(a.arg)
            if owner is not None and target is not None:
                owner.focus_on(target, show_ime=target.editable)
        elif k == "send":
            self._send(a.arg, ctx)
        elif k == "launch":
            self.state.launch(a.arg["package"], a.arg["activity"])
        elif k == "view":
            self.state.view(render_template(a.arg, ctx))
        elif k == "zoom":
            owner = self.state.host(inst)
            self.zoom(owner, None if a.arg is None else owner.scale * a.arg)
        elif k == "remove":
            self.remove(inst, a.arg)

    def remove(self, inst: ScreenInstance, sel: Selector) -> bool:
        """``remove``: the app takes the first node ``sel`` matches off ``inst``'s screen,
        and the nodes after it in its parent close the gap — each moves up by the distance
        from the removed node's top to the next one's, as a RecyclerView lays its rows out
        again after ``notifyItemRemoved``. False when nothing matched."""
        for w in inst.windows:
            for parent in w.iter():
                i = next((j for j, c in enumerate(parent.children) if sel.matches(c)), None)
                if i is None:
                    continue
                gone = parent.children.pop(i)
                later = parent.children[i:]
                if later and later[0].bounds[1] + later[0].dy > gone.bounds[1] + gone.dy:
                    shift = (later[0].bounds[1] + later[0].dy) - (gone.bounds[1] + gone.dy)
                    for c in later:
                        c.dy -= shift
                if inst.focus is not None and any(n is inst.focus for n in gone.iter()):
                    inst.focus = None
                self.state.changed()
                return True
        return False

    def zoom(self, inst: ScreenInstance, scale: float | None) -> bool:
        """Set a zoomable screen's scale (``None``: back to its minimum), kept inside the
        screen's range; the screen's zoom variable shows it as a percentage."""
        z = inst.sd.zoom
        if z is None:
            return False
        new = z.minimum if scale is None else min(max(scale, z.minimum), z.maximum)
        inst.scale = new
        inst.vars[z.var] = f"{round(new * 100)}%"
        self.state.changed()
        return True

    def _send(self, arg: dict[str, Selector], ctx: dict[str, str]) -> None:
        top = self.state.top()
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
        vals = {**ctx, **top.vars, "text": text, "time": self.state.clock.time_str(),
                "date": self.state.clock.date_str()}
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
            gap = round(8 * self.display.density / 160)
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

    def enter(self) -> None:
        """ENTER in the focused field: its ``enter`` rule, if any."""
        owner = self.state.focus_owner()
        field = owner.focused_field() if owner is not None else None
        if owner is None or field is None:
            return
        for r in owner.sd.rules:
            if r.trigger == "enter" and r.selector is not None and r.selector.matches(field):
                self.run(r.actions, owner, field, field)
                return

    def swipe(self, inst: ScreenInstance, direction: str) -> bool:
        """A swipe nothing scrolled: the screen's ``swipe`` rule for ``direction``, if any."""
        for r in inst.sd.rules:
            if r.trigger == "swipe" and r.direction == direction:
                self.state.changed()
                self.run(r.actions, inst, inst.windows[0], inst.windows[0])
                return True
        return False
