"""Loading a scenario file (YAML, read with ruamel.yaml): the device, the apps, their
screens (real ``uiautomator dump`` files next to it) and rules, checked as they are read
(:func:`load_scenario`), and loaded once per content (:func:`load_cached`)."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from baremobile.virtual.uixml import DumpError, Node, parse_dump

from .checks import validate
from .definitions import AppDef, Scenario, ScenarioError, ScreenDef, ViewDef, Where
from .rules import (
    as_bool,
    as_int,
    as_str,
    check_keys,
    parse_filter,
    parse_rule,
    parse_selector,
    parse_zoom,
    qualify,
)

__all__ = ["DEMO_PATH", "SCENARIO_FILE", "load_scenario", "load_cached", "scenario_file"]

#: The built-in demo scenario.
DEMO_PATH = Path(__file__).parent.parent / "scenarios" / "demo" / "demo.yaml"

_SCREEN_KEYS = ("xml", "activity", "vars", "filter", "resize", "keyboard", "cancelable", "on",
                "system_bars", "zoom", "web")
_APP_KEYS = ("package", "label", "activity", "system", "version", "version_code", "start",
             "screens", "view", "launch_by_label", "debuggable")
_TOP_KEYS = ("scenario", "name", "device", "system_ui", "home", "start", "apps", "recorded")

#: the file ``virtual:DIR`` (a directory) means
SCENARIO_FILE = "scenario.yaml"


def scenario_file(path: str | Path) -> Path:
    """``path`` itself, or the ``scenario.yaml`` inside it when it is a directory (what
    ``baremobile trace to-scenario`` writes)."""
    p = Path(path)
    return p / SCENARIO_FILE if p.is_dir() else p


def _load_xml(ctx: Where, base: Path, rel: str, screen: str, node: Any) -> tuple[Path, list[Node]]:
    p = Path(rel)
    if not p.is_absolute():
        p = base / p
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ctx.err(f"cannot read its XML {str(p)!r}: {e.strerror or e}", screen=screen,
                      node=node) from None
    try:
        windows, _rotation = parse_dump(data, origin=screen)
    except DumpError as e:
        raise ctx.err(f"{p.name} is not a uiautomator dump: {e}", screen=screen,
                      node=node) from None
    return p, windows


def load_scenario(path: str | Path) -> Scenario:
    """Read, check and return a scenario (a YAML file, or a directory holding
    ``scenario.yaml``); raises :class:`ScenarioError`."""
    path = scenario_file(path)
    ctx = Where(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read the scenario: {e.strerror or e}") from None
    try:
        doc = YAML(typ="rt").load(text)
    except YAMLError as e:
        raise ScenarioError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(doc, dict):
        raise ScenarioError(f"{path}: a scenario is a YAML mapping with 'apps'")
    check_keys(ctx, doc, _TOP_KEYS, "the scenario")
    if doc.get("scenario", 1) != 1:
        raise ctx.err(f"unsupported scenario format {doc.get('scenario')!r} (this is format 1)",
                      node=doc)
    base = path.parent
    recorded = as_bool(ctx, doc.get("recorded", False), "recorded", node=doc)

    dev = doc.get("device") or {}
    check_keys(ctx, dev, ("width", "height", "density", "rotation", "utc_offset",
                           "dump_attributes"), "device")
    sui = doc.get("system_ui") or {}
    check_keys(ctx, sui, ("status_bar", "nav_bar", "keyboard"), "system_ui")
    nav = str(sui.get("nav_bar", "buttons"))
    if nav not in ("buttons", "gesture", "none"):
        raise ctx.err("system_ui.nav_bar is buttons, gesture or none", node=sui)
    attrs_kind = str(dev.get("dump_attributes", "api26"))
    if attrs_kind not in ("api26", "standard"):
        raise ctx.err("device.dump_attributes is api26 or standard", node=dev)
    rotation = as_int(ctx, dev.get("rotation", 0), "device.rotation", dev)
    if rotation not in (0, 1, 2, 3):
        raise ctx.err("device.rotation is 0, 1, 2 or 3", node=dev)

    scenario = Scenario(
        path=path,
        name=str(doc.get("name", path.stem)),
        width=0,
        height=0,
        density=as_int(ctx, dev.get("density", 420), "device.density", dev),
        rotation=rotation,
        utc_offset=as_int(ctx, dev.get("utc_offset", 0), "device.utc_offset", dev),
        extras=attrs_kind == "api26",
        status_bar=as_bool(ctx, sui.get("status_bar", True), "system_ui.status_bar", node=sui),
        nav_bar=nav,
        keyboard=as_bool(ctx, sui.get("keyboard", True), "system_ui.keyboard", node=sui),
        home=None,
        start=None,
        recorded=recorded,
    )

    apps_spec = doc.get("apps")
    if not isinstance(apps_spec, list) or not apps_spec:
        raise ctx.err("'apps' must be a non-empty list", node=doc)

    first_window: Node | None = None
    for aspec in apps_spec:
        check_keys(ctx, aspec, _APP_KEYS, "an app")
        if "package" not in aspec:
            raise ctx.err("an app needs 'package'", node=aspec)
        pkg = as_str(ctx, aspec["package"], "package", node=aspec)
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+", pkg):
            raise ctx.err(f"{pkg!r} is not a valid package name", node=aspec)
        if pkg in scenario.apps:
            raise ctx.err(f"package {pkg!r} is listed twice", node=aspec)
        act = aspec.get("activity")
        app = AppDef(
            package=pkg,
            label=as_str(ctx, aspec.get("label", pkg.rsplit(".", 1)[-1].title()), "label",
                       node=aspec),
            activity=qualify(pkg, as_str(ctx, act, "activity", node=aspec)) if act else None,
            system=as_bool(ctx, aspec.get("system", False), "system", node=aspec),
            version_name=str(aspec.get("version", "1.0")),
            version_code=as_int(ctx, aspec.get("version_code", 1), "version_code", aspec),
            start=None,
            screens=[],
            views=[],
            launch_by_label=as_bool(ctx, aspec.get("launch_by_label", True), "launch_by_label",
                                  node=aspec),
            debuggable=as_bool(ctx, aspec.get("debuggable", False), "debuggable", node=aspec),
        )
        scenario.apps[pkg] = app
        screens = aspec.get("screens") or {}
        if not isinstance(screens, dict):
            raise ctx.err(f"app {pkg}: 'screens' is a mapping of name → screen", node=aspec)
        for sname, sspec in screens.items():
            sname = str(sname)
            if sname in scenario.screens:
                raise ctx.err("the screen name is used twice (names are global)", screen=sname,
                              node=screens)
            if isinstance(sspec, str):
                sspec = {"xml": sspec}
            check_keys(ctx, sspec, _SCREEN_KEYS, "a screen", sname)
            if "xml" not in sspec:
                raise ctx.err("a screen needs 'xml' (a uiautomator dump file)", screen=sname,
                              node=sspec)
            xml_path, windows = _load_xml(ctx, base, as_str(ctx, sspec["xml"], "xml", sname,
                                                          sspec), sname, sspec)
            if first_window is None:
                first_window = max(windows, key=lambda w: (w.bounds[2] - w.bounds[0])
                                   * (w.bounds[3] - w.bounds[1]))
            sact = sspec.get("activity")
            activity = (qualify(pkg, as_str(ctx, sact, "activity", sname, sspec)) if sact
                        else app.activity or f"{pkg}.MainActivity")
            vars_ = sspec.get("vars") or {}
            if not isinstance(vars_, dict):
                raise ctx.err("'vars' is a mapping", screen=sname, node=sspec)
            filters_spec = sspec.get("filter")
            if filters_spec is None:
                filters_spec = []
            elif isinstance(filters_spec, dict):
                filters_spec = [filters_spec]
            resize = sspec.get("resize")
            sb = sspec.get("system_bars", "auto")
            sb = {True: "on", False: "off"}.get(sb, sb) if isinstance(sb, bool) else str(sb)
            if sb not in ("auto", "on", "off"):
                raise ctx.err("system_bars is auto, true or false", screen=sname, node=sspec)
            web = sspec.get("web")
            if web is not None:
                web = as_str(ctx, web, "web", sname, sspec)
                if not any(n.cls.endswith("WebView") for w in windows for n in w.iter()):
                    raise ctx.err("'web' needs an android.webkit.WebView node in the screen's "
                                  "dump to show the page in", screen=sname, node=sspec)
            rules_spec = sspec.get("on") or []
            if not isinstance(rules_spec, list):
                raise ctx.err("'on' is a list of rules", screen=sname, node=sspec)
            sd = ScreenDef(
                name=sname,
                package=pkg,
                activity=activity,
                xml_path=xml_path,
                windows=windows,
                rules=[parse_rule(ctx, r, sname, recorded=recorded) for r in rules_spec],
                filters=[parse_filter(ctx, f, sname) for f in filters_spec],
                vars={str(k): str(v) for k, v in vars_.items()},
                templates=[],
                resize=(parse_selector(ctx, resize, sname, sspec)
                        if resize not in (None, False) else None),
                resize_off=resize is False,
                keyboard=as_bool(ctx, sspec.get("keyboard", True), "keyboard", sname, sspec),
                cancelable=as_bool(ctx, sspec.get("cancelable", True), "cancelable", sname, sspec),
                system_bars=sb,
                zoom=parse_zoom(ctx, sspec["zoom"], sname) if sspec.get("zoom") else None,
                web=web,
            )
            scenario.screens[sname] = sd
            app.screens.append(sname)
        start = aspec.get("start")
        if start is not None:
            app.start = as_str(ctx, start, "start", node=aspec)
        elif app.screens:
            app.start = app.screens[0]
        vspecs = aspec.get("view") or []
        if isinstance(vspecs, dict):
            vspecs = [vspecs]
        for v in vspecs:
            check_keys(ctx, v, ("schemes", "screen", "vars"), f"app {pkg} view")
            schemes = v.get("schemes")
            if isinstance(schemes, str):
                schemes = [schemes]
            if not schemes or "screen" not in v:
                raise ctx.err(f"app {pkg}: a view entry needs 'schemes' and 'screen'", node=v)
            app.views.append(ViewDef([str(s).lower() for s in schemes], str(v["screen"]),
                                     {str(k): str(x) for k, x in (v.get("vars") or {}).items()}))

    # device size: given, or taken from the first screen's window
    if "width" in dev or "height" in dev:
        scenario.width = as_int(ctx, dev.get("width", 1080), "device.width", dev)
        scenario.height = as_int(ctx, dev.get("height", 2400), "device.height", dev)
    elif first_window is not None and first_window.bounds[2] > 0 and first_window.bounds[3] > 0:
        scenario.width, scenario.height = first_window.bounds[2], first_window.bounds[3]
    else:
        scenario.width, scenario.height = 1080, 2400
    if scenario.width < 100 or scenario.height < 100:
        raise ctx.err("the device must be at least 100x100", node=dev)

    home = doc.get("home")
    if home is not None:
        home = as_str(ctx, home, "home", node=doc)
        if home not in scenario.apps:
            raise ctx.err(f"home app {home!r} is not among the apps", node=doc)
        if not scenario.apps[home].start:
            raise ctx.err(f"home app {home!r} has no screens", node=doc)
        scenario.home = home
    start_at = doc.get("start")
    if start_at is not None:
        start_at = as_str(ctx, start_at, "start", node=doc)
        if start_at not in scenario.apps and start_at not in scenario.screens:
            raise ctx.err(f"start {start_at!r} is neither a package nor a screen", node=doc)
        scenario.start = start_at

    validate(ctx, scenario)
    return scenario


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


def load_cached(path: Path) -> Scenario:
    """Load a scenario once per content: models never change the definitions they share."""
    key = scenario_file(path).resolve()
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
