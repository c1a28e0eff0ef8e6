"""Cross-references of a loaded scenario: the screens rules name exist, their selectors match
nodes of the screens they act on, send templates are detached from what is shown."""

from __future__ import annotations

from baremobile.virtual.uixml import Node, is_editable_class

from .definitions import Scenario, ScenarioError, ScreenDef, Selector, Where
from .rules import NAV_ACTIONS

__all__ = ["validate"]


def detach(windows: list[Node], target: Node) -> bool:
    for w in windows:
        for n in w.iter():
            if target in n.children:
                n.children.remove(target)
                return True
    return False


def validate(ctx: Where, sc: Scenario) -> None:
    """Cross-references: screens named by rules exist, selectors match something."""
    for app in sc.apps.values():
        if app.start is not None and app.start not in sc.screens:
            raise ctx.err(f"app {app.package}: start screen {app.start!r} does not exist")
        for v in app.views:
            if v.screen not in sc.screens:
                raise ctx.err(f"app {app.package}: view screen {v.screen!r} does not exist")

    def need_screen(name: str, owner: str, line: int) -> None:
        if name not in sc.screens:
            known = ", ".join(sorted(sc.screens)[:12])
            raise ScenarioError(
                f"{ctx.path}:{line}: screen {owner!r}: unknown screen {name!r} "
                f"(known: {known}{', …' if len(sc.screens) > 12 else ''})"
                if line else
                f"{ctx.path}: screen {owner!r}: unknown screen {name!r} (known: {known})"
            )

    def need_match(sel: Selector, sd: ScreenDef, line: int, what: str,
                   pool: list[Node] | None = None) -> list[Node]:
        found = sel.find(pool if pool is not None else sd.windows + sd.templates)
        if not found:
            loc = f"{ctx.path}:{line}" if line else str(ctx.path)
            raise ScenarioError(
                f"{loc}: screen {sd.name!r}: {what} {sel} matches no node of {sd.xml_path.name}"
            )
        return found

    for sd in sc.screens.values():
        # send templates are detached first so the rest of the screen never shows them
        for rule in sd.rules:
            for a in rule.actions:
                if a.kind == "send":
                    tsel: Selector = a.arg["template"]
                    found = tsel.find(sd.windows)
                    if found:
                        node = found[0]
                        if any(node is w for w in sd.windows):
                            raise ctx.err("a send template cannot be a whole window",
                                          screen=sd.name)
                        detach(sd.windows, node)
                        sd.templates.append(node)
                    elif not tsel.find(sd.templates):
                        need_match(tsel, sd, rule.line, "send template")
        for f in sd.filters:
            fields = need_match(f.field, sd, 0, "filter field", sd.windows)
            if not any(n.editable for n in fields):
                raise ctx.err(f"filter field {f.field} is not an editable field",
                              screen=sd.name)
            need_match(f.list, sd, 0, "filter list", sd.windows)
            if f.no_results is not None:
                need_match(f.no_results, sd, 0, "filter no_results", sd.windows)
        if sd.resize is not None:
            need_match(sd.resize, sd, 0, "resize", sd.windows)
        if sd.zoom is not None:
            need_match(sd.zoom.node, sd, 0, "zoom node", sd.windows)
        for rule in sd.rules:
            for key in ("into", "from", "to"):  # a recorded rule's field / start / end
                if isinstance(rule.options.get(key), Selector):
                    need_match(rule.options[key], sd, rule.line, f"{rule.trigger} {key}")
            if rule.trigger == "launched" and rule.options["package"] not in sc.apps:
                raise ScenarioError(f"{ctx.path}:{rule.line}: screen {sd.name!r}: launched "
                                    f"package {rule.options['package']!r} is not among the apps")
            if rule.selector is not None:
                found = need_match(rule.selector, sd, rule.line, f"{rule.trigger} selector")
                if rule.trigger == "enter" and not any(
                    n.editable or is_editable_class(n.cls) for n in found
                ):
                    raise ScenarioError(
                        f"{ctx.path}:{rule.line}: screen {sd.name!r}: enter selector "
                        f"{rule.selector} matches no editable field"
                    )
            current: ScreenDef | None = sd
            for a in rule.actions:
                if a.kind in ("goto", "replace"):
                    need_screen(a.arg["screen"], sd.name, rule.line)
                    current = sc.screens[a.arg["screen"]]
                elif a.kind in ("back_to", "dialog", "panel"):
                    need_screen(a.arg, sd.name, rule.line)
                    current = sc.screens[a.arg] if a.kind != "panel" else current
                elif a.kind == "launch":
                    if a.arg["package"] not in sc.apps:
                        raise ScenarioError(
                            f"{ctx.path}:{rule.line}: screen {sd.name!r}: launch of unknown "
                            f"package {a.arg['package']!r}"
                        )
                    current = None
                elif a.kind in NAV_ACTIONS:
                    current = None
                elif a.kind in ("toggle", "clear", "focus", "remove") and \
                        isinstance(a.arg, Selector):
                    if current is not None:
                        need_match(a.arg, current, rule.line, a.kind + " target")
                elif a.kind == "zoom" and current is not None and current.zoom is None:
                    raise ScenarioError(
                        f"{ctx.path}:{rule.line}: screen {sd.name!r}: a zoom action needs "
                        f"a zoomable screen (screen {current.name!r} has no 'zoom')")
                elif a.kind == "set_text" and a.arg["target"] is not None and current is not None:
                    need_match(a.arg["target"], current, rule.line, "set_text target")
                elif a.kind == "send" and current is not None:
                    need_match(a.arg["from"], current, rule.line, "send from", current.windows)
                    need_match(a.arg["to"], current, rule.line, "send to", current.windows)
