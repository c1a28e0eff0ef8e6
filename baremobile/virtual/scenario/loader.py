"""Loading a scenario file (YAML, read with ruamel.yaml): the device, the apps, their
screens (real ``uiautomator dump`` files next to it) and rules, checked as they are read
(:func:`load_scenario`), and loaded once per content (:func:`load_cached`).

A scenario names files of this computer, so every file is read as untrusted: only a
regular file (checked on the opened file: not a FIFO, a device such as ``/dev/zero``, or
a link to one), at most :data:`MAX_YAML_BYTES` of YAML and :data:`MAX_DUMP_BYTES` per
dump (:data:`MAX_DUMPS_BYTES` in all), the size checked before reading. The YAML's events
are walked once before it is built: at most :data:`MAX_YAML_DEPTH` levels and
:data:`MAX_YAML_NODES` nodes counted as every alias expands (a 300-byte alias bomb is
billions), no alias inside the node it names. A dump is bounded by
:func:`~baremobile.virtual.uixml.parse_dump`. And no error quotes what a file holds
(a line and a column say where): the file may not be a scenario at all.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    NodeEvent,
)

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

__all__ = ["DEMO_PATH", "MAX_DUMPS_BYTES", "MAX_DUMP_BYTES", "MAX_YAML_BYTES", "MAX_YAML_DEPTH",
           "MAX_YAML_NODES", "SCENARIO_FILE", "load_scenario", "load_cached", "scenario_file"]

#: the largest scenario YAML read (a long recorded one is a few hundred KB)
MAX_YAML_BYTES = 4 * 1024 * 1024
#: the largest dump read (real dumps are well under 1 MB) …
MAX_DUMP_BYTES = 8 * 1024 * 1024
#: … and all of a scenario's dumps together
MAX_DUMPS_BYTES = 64 * 1024 * 1024
#: the deepest nesting of the YAML (a scenario needs about 10 levels)
MAX_YAML_DEPTH = 64
#: the most nodes of the YAML, every alias counted as often as it expands
MAX_YAML_NODES = 1_000_000

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


def read_limited(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; else ``OSError``
    (``strerror`` says why). The checks are made on the opened file, so a path swapped for
    a FIFO or a device meanwhile is refused too, and opening never blocks."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, f"not a regular file (a {_kind(st.st_mode)})")
        if st.st_size > limit:
            raise OSError(0, f"{st.st_size} bytes, more than the {limit} read")
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # it grew while read
            raise OSError(0, f"more than the {limit} bytes read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"


class _Budget:
    """What is left of :data:`MAX_DUMPS_BYTES` while one scenario loads."""

    def __init__(self) -> None:
        self.left = MAX_DUMPS_BYTES


def _load_xml(ctx: Where, base: Path, rel: str, screen: str, node: Any,
              budget: _Budget) -> tuple[Path, list[Node], bytes]:
    p = Path(rel)
    if not p.is_absolute():
        p = base / p
    try:
        data = read_limited(p, min(MAX_DUMP_BYTES, budget.left))
    except OSError as e:
        why = e.strerror or str(e)
        if budget.left < MAX_DUMP_BYTES and "bytes" in why:
            why += f" (a scenario's dumps are at most {MAX_DUMPS_BYTES} bytes together)"
        raise ctx.err(f"cannot read its XML {str(p)!r}: {why}", screen=screen,
                      node=node) from None
    budget.left -= len(data)
    try:
        windows, _rotation = parse_dump(data, origin=screen)
    except DumpError as e:
        raise ctx.err(f"{p.name} is not a uiautomator dump: {e}", screen=screen,
                      node=node) from None
    return p, windows, data


def _quoteless(problem: str | None) -> str:
    """A YAML error's problem without what it quotes of the file."""
    return re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", problem or "a syntax error")


def _read_yaml(path: Path, text: str) -> Any:
    """The document of ``text``, its shape bounded before it is built (see the module)."""
    yaml = YAML(typ="rt")
    try:
        _check_events(path, yaml.parse(text))
        return yaml.load(text)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ScenarioError(f"{path}: not valid YAML{where}: {_quoteless(e.problem)}"
                            ) from None
    except YAMLError as e:
        raise ScenarioError(f"{path}: not valid YAML ({type(e).__name__})") from None
    except RecursionError:  # not expected below MAX_YAML_DEPTH; never a traceback
        raise ScenarioError(f"{path}: the YAML is nested too deeply") from None


def _check_events(path: Path, events: Iterable[Any]) -> None:
    """Walk the parser's events (no recursion): depth, nodes as aliases expand, cycles."""
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = [[None, 0]]  # per open collection: its anchor, its nodes
    for ev in events:
        if isinstance(ev, CollectionStartEvent):
            stack.append([ev.anchor, 1])
            if len(stack) - 1 > MAX_YAML_DEPTH:
                raise ScenarioError(f"{path}: the YAML nests deeper than {MAX_YAML_DEPTH} "
                                    f"levels (line {ev.start_mark.line + 1})")
            continue
        if isinstance(ev, CollectionEndEvent):
            anchor, size = stack.pop()
            if anchor is not None:
                sizes[anchor] = size
        elif isinstance(ev, AliasEvent):
            if any(frame[0] == ev.anchor for frame in stack):
                raise ScenarioError(f"{path}: an alias inside the node it names (line "
                                    f"{ev.start_mark.line + 1}): a scenario is no cycle")
            size = sizes.get(ev.anchor, 1)
        elif isinstance(ev, NodeEvent):  # a scalar
            size = 1
            if ev.anchor is not None:
                sizes[ev.anchor] = 1
        else:
            continue
        stack[-1][1] += size
        if stack[-1][1] > MAX_YAML_NODES or stack[0][1] > MAX_YAML_NODES:
            raise ScenarioError(f"{path}: the YAML expands to more than {MAX_YAML_NODES} "
                                f"nodes (aliases counted as they expand; line "
                                f"{ev.start_mark.line + 1})")


def load_scenario(path: str | Path) -> Scenario:
    """Read, check and return a scenario (a YAML file, or a directory holding
    ``scenario.yaml``); raises :class:`ScenarioError`."""
    path = scenario_file(path)
    ctx = Where(path)
    try:
        data = read_limited(path, MAX_YAML_BYTES)
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read the scenario: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{path}: not UTF-8 text (byte {e.start})") from None
    doc = _read_yaml(path, text)
    if not isinstance(doc, dict) or "apps" not in doc:
        # nothing of the file is quoted before it is known to be a scenario
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
    budget = _Budget()
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
            xml_path, windows, xml = _load_xml(
                ctx, base, as_str(ctx, sspec["xml"], "xml", sname, sspec), sname, sspec, budget)
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
                recorded_xml=xml if recorded else None,
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
    for f in files:  # read as loading reads them: a file swapped for a FIFO never blocks
        try:
            data = read_limited(f, max(MAX_YAML_BYTES, MAX_DUMP_BYTES))
            out.append((str(f), hashlib.blake2b(data, digest_size=16).hexdigest()))
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
