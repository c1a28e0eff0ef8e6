"""Unit tests of the screen model's parts: dump XML, scenario loading and validation, user
scenarios, the PNG canvas, and property tests over random input sequences."""

from __future__ import annotations

import importlib.util
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.virtual.png import Canvas, png_size
from baremobile.virtual.scenario import DEMO_PATH, load_scenario, render_template
from baremobile.virtual.screens import ScenarioError, ScreenModel
from baremobile.virtual.uixml import DumpError, escape_attr, parse_dump, serialize
from tests.snapshot_helpers import corpus_dir

from .test_virtual_screens import Clock, Phone, bounds, center, check_dump

HEAD = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"


def node(cls: str = "android.widget.FrameLayout", b: str = "[0,0][1080,2400]",
         pkg: str = "com.example.app", inner: str = "", **attrs: str) -> str:
    a = {"index": "0", "text": "", "resource-id": "", "class": cls, "package": pkg,
         "content-desc": "", "checkable": "false", "checked": "false", "clickable": "false",
         "enabled": "true", "focusable": "false", "focused": "false", "scrollable": "false",
         "long-clickable": "false", "password": "false", "selected": "false", "bounds": b}
    for k, v in attrs.items():
        a[k.replace("_", "-")] = v
    body = " ".join(f'{k}="{v}"' for k, v in a.items())
    return f"<node {body}>{inner}</node>" if inner else f"<node {body} />"


def dump(*windows: str) -> str:
    return HEAD + '<hierarchy rotation="0">' + "".join(windows) + "</hierarchy>"


# -- dump XML ---------------------------------------------------------------------------------


def test_parse_and_serialize_round_trip() -> None:
    src = dump(node(inner=node("android.widget.TextView", "[0,100][500,200]",
                               text="Tom &amp; Jerry &lt;3&gt; &quot;hi&quot;&#10;bye",
                               clickable="true")))
    windows, rotation = parse_dump(src)
    assert rotation == 0 and windows[0].children[0].text == 'Tom & Jerry <3> "hi"\nbye'
    out = serialize(windows, extras=False)
    assert out.decode() == src


def test_escaping_matches_the_device() -> None:
    assert escape_attr("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e'f"
    assert escape_attr("line\nnext\ttab") == "line&#10;next&#9;tab"
    assert escape_attr("smile \U0001f600!") == "smile &#128512;!"
    assert escape_attr("bell\x07") == "bell?"
    assert escape_attr("plain é ü 中文") == "plain é ü 中文"


def test_parse_accepts_real_variants() -> None:
    body = node(inner=node("android.widget.Button", "[0,0][10,10]", NAF="true"))
    for data in (dump(body), "\ufeff" + dump(body), '<hierarchy rotation="1">' + body
                 + "</hierarchy>", body):
        windows, _ = parse_dump(data)
        assert windows[0].children[0].flag("clickable") is False
        assert windows[0].children[0].attrs.get("NAF") == "true"
    out = serialize(parse_dump(dump(body))[0]).decode()
    assert '<node NAF="true" index="0" text=""' in out
    assert 'drawing-order="1" hint=""' in out


@pytest.mark.parametrize("bad, why", [
    ("", "empty"),
    ("ERROR: could not get idle state.", "error message"),
    ("<hierarchy rotation='0'></hierarchy>", "no <node>"),
    ("<html><body/></html>", "not <hierarchy>"),  # the file is not quoted
    ("<hierarchy><node class='x' /></hierarchy>", "no bounds"),
    ("<hierarchy><node bounds='[0,0]' /></hierarchy>", "bad bounds"),
    ("<hierarchy><node bounds='[0,0][1,1]'>", "well-formed"),
    ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><hierarchy>&a;</hierarchy>', "refused"),
])
def test_parse_rejects_non_dumps(bad: str, why: str) -> None:
    with pytest.raises(DumpError, match=why):
        parse_dump(bad)


def test_edit_text_hint_and_password_capture() -> None:
    windows, _ = parse_dump(dump(node(inner=(
        node("android.widget.EditText", "[0,0][100,50]", text="Search", hint="Search")
        + node("android.widget.EditText", "[0,50][100,99]", text="typed", hint="Name")
        + node("android.widget.EditText", "[0,100][100,150]", text="\u2022\u2022\u2022",
               password="true")))))
    a, b, c = windows[0].children
    assert (a.value, b.value, c.value) == ("", "typed", "")


def test_render_template() -> None:
    ctx = {"query": "5551234567", "name": "Ann"}
    assert render_template("Send to {query:phone}", ctx) == "Send to 555-123-4567"
    assert render_template("{name:upper} {missing} {query:nope}", ctx) == (
        "ANN {missing} {query:nope}")
    assert render_template("json {\"a\": 1}", ctx) == "json {\"a\": 1}"
    assert render_template("{query:phone}", {"query": "15551234567"}) == "+1 555-123-4567"


# -- scenario files -----------------------------------------------------------------------------

APP_XML = dump(node(inner=(
    node("android.widget.TextView", "[0,200][1080,300]", text="Hello")
    + node("android.widget.Button", "[0,400][1080,500]", text="Next",
           resource_id="com.example.app:id/next", clickable="true")
    + node("android.widget.EditText", "[0,600][1080,700]", text="Your name", hint="Your name",
           resource_id="com.example.app:id/name", clickable="true", focusable="true")
)))
NEXT_XML = dump(node(inner=node("android.widget.TextView", "[0,200][1080,300]",
                                text="Hi {name}")))


def write(tmp: Path, yaml: str, files: dict[str, str] | None = None) -> Path:
    for rel, text in (files or {"screens/main.xml": APP_XML, "screens/next.xml": NEXT_XML}
                      ).items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    y = tmp / "scenario.yaml"
    y.write_text(yaml, encoding="utf-8")
    return y


GOOD = """\
apps:
  - package: com.example.app
    label: Example
    activity: .MainActivity
    screens:
      main:
        xml: screens/main.xml
        on:
          - tap: {id: next}
            goto: {screen: next, vars: {name: "{field}"}}
          - enter: {id: name}
            goto: {screen: next, vars: {name: "{field}"}}
      next:
        xml: screens/next.xml
        activity: .NextActivity
"""


def test_user_scenario_without_launcher(tmp_path: Path) -> None:
    m = ScreenModel.from_scenario(write(tmp_path, GOOD), clock=Clock())
    p = Phone(m)
    assert (m.width, m.height) == (1080, 2400)  # taken from the dump
    # no home app declared: a generated launcher lists the apps
    assert m.current()[0] == "com.android.launcher3"
    p.tap(text="Example")
    assert m.current() == ("com.example.app", "com.example.app.MainActivity")
    p.tap(id="name")
    m.type_text("Ann")
    p.tap(text="Next")
    assert m.current() == ("com.example.app", "com.example.app.NextActivity")
    assert p.has(text="Hi Ann")
    m.key(4)
    assert p.field("name").get("text") == "Ann"
    m.key(3)
    assert m.current()[0] == "com.android.launcher3"


def test_user_scenario_start_and_captured_system_windows(tmp_path: Path) -> None:
    captured = dump(
        node(b="[0,0][720,48]", pkg="com.android.systemui"),
        node(b="[0,0][720,1280]", inner=node("android.widget.Button", "[0,100][720,200]",
                                             text="Go", clickable="true")),
    )
    y = write(tmp_path, """\
start: com.example.app
apps:
  - package: com.example.app
    activity: .Main
    screens:
      main: screens/main.xml
""", {"screens/main.xml": captured})
    m = ScreenModel.from_scenario(y)
    assert (m.width, m.height) == (720, 1280)
    root = ET.fromstring(m.dump_xml())
    # the dump brought its own status bar: no synthetic bars are added
    assert [w.get("package") for w in root] == ["com.android.systemui", "com.example.app"]
    check_dump(m.dump_xml(), 720, 1280)


@pytest.mark.parametrize("yaml, files, msg", [
    (GOOD.replace("goto: {screen: next", "goto: {screen: nowhere"), None,
     r"scenario.yaml:\d+: screen 'main': unknown screen 'nowhere'"),
    (GOOD.replace("tap: {id: next}", "tap: {text: Nope}"), None,
     r"screen 'main': tap selector \{text: 'Nope'\} matches no node of main.xml"),
    (GOOD.replace("enter: {id: name}", "enter: {text: Hello}"), None,
     "enter selector .* matches no editable field"),
    (GOOD.replace("screens/next.xml", "screens/missing.xml"), None,
     r"screen 'next': cannot read its XML .*missing.xml"),
    (GOOD, {"screens/main.xml": "<html/>", "screens/next.xml": NEXT_XML},
     r"screen 'main': main.xml is not a uiautomator dump: its root element is not <hierarchy>"),
    (GOOD.replace("        on:", "        onn:", 1), None, "unknown key 'onn' in a screen"),
    (GOOD.replace("goto: {screen: next, vars: {name: \"{field}\"}}\n          - enter",
                  "jump: next\n          - enter"), None, "unknown action 'jump'"),
    (GOOD.replace("- tap: {id: next}", "- tap: {id: next}\n            swipe: up"), None,
     "exactly one trigger"),
    ("home: com.nope\n" + GOOD, None, "home app 'com.nope' is not among the apps"),
    (GOOD + "  - package: com.example.app\n", None, "listed twice"),
    ("apps: []\n", None, "'apps' must be a non-empty list"),
    ("apps: [\n", None, "not valid YAML"),
    (GOOD.replace("package: com.example.app", "package: nodots"), None,
     "not a valid package name"),
])
def test_scenario_errors_name_file_screen_and_problem(tmp_path: Path, yaml: str,
                                                      files: dict[str, str] | None,
                                                      msg: str) -> None:
    with pytest.raises(ScenarioError, match=msg) as e:
        load_scenario(write(tmp_path, yaml, files))
    assert str(tmp_path / "scenario.yaml") in str(e.value)


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read the scenario"):
        ScreenModel.from_scenario(tmp_path / "nope.yaml")


def test_demo_loads_and_validates() -> None:
    sc = load_scenario(DEMO_PATH)
    assert sc.home == "com.google.android.apps.nexuslauncher"
    assert len(sc.screens) >= 20 and "settings_search" in sc.screens


def _load_builder():  # type: ignore[no-untyped-def]
    path = DEMO_PATH.parent.parent / "build_demo.py"
    spec = importlib.util.spec_from_file_location("build_demo", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_demo_dumps_match_the_generator() -> None:
    built = _load_builder().build()
    for rel, data in built.items():
        assert (DEMO_PATH.parent / rel).read_bytes() == data, rel
    on_disk = {str(p.relative_to(DEMO_PATH.parent)) for p in DEMO_PATH.parent.rglob("*.xml")}
    assert on_disk == set(built)


# -- PNG ------------------------------------------------------------------------------------------


def test_canvas_png() -> None:
    c = Canvas(30, 20, [(255, 255, 255), (0, 0, 0)])
    c.fill(-5, -5, 10, 10, 1)
    c.frame(0, 0, 30, 20, 1, 2)
    c.dim(0, 0, 15, 20)
    data = c.png()
    assert png_size(data) == (30, 20)
    with pytest.raises(ValueError):
        png_size(b"GIF89a")


# -- properties and threads ---------------------------------------------------------------------

_DEMO = ScreenModel.from_scenario(clock=Clock())

ops = st.one_of(
    st.tuples(st.just("tap"), st.integers(-50, 1130), st.integers(-50, 2450)),
    st.tuples(st.just("swipe"), st.integers(0, 1079), st.integers(0, 2399),
              st.integers(0, 1079), st.integers(0, 2399), st.sampled_from([0, 100, 300, 800])),
    st.tuples(st.just("key"), st.sampled_from([3, 4, 26, 66, 67, 112, 122, 123, 187, 224, 62,
                                               29, 21, 22, 111, 24])),
    st.tuples(st.just("text"), st.text(alphabet="ab1 @%&<>\"'\n\u00e9\U0001f600", max_size=8)),
    st.tuples(st.just("combo"), st.sampled_from([[113, 29], [113, 31], [113, 50], [113, 52],
                                                 [59, 30], [57, 61]])),
    st.tuples(st.just("launch"), st.sampled_from(["com.android.settings",
                                                  "com.google.android.apps.messaging",
                                                  "org.baremobile.notes", "com.nope"])),
    st.tuples(st.just("view"), st.sampled_from(["https://a.example/x", "sms:123", "tel:1"])),
)


def _apply(m: ScreenModel, op: tuple) -> None:  # type: ignore[type-arg]
    kind = op[0]
    if kind == "tap":
        m.tap(op[1], op[2])
    elif kind == "swipe":
        m.swipe(*op[1:])
    elif kind == "key":
        m.key(op[1])
    elif kind == "text":
        m.type_text(op[1])
    elif kind == "combo":
        m.key_combination(op[1])
    elif kind == "launch":
        m.launch(op[1])
    else:
        m.view(op[1])


def _tap_something(m: ScreenModel, pick: int) -> None:
    root = ET.fromstring(m.dump_xml())
    clickable = [n for n in root.iter("node") if n.get("clickable") == "true"]
    if clickable:
        m.tap(*center(clickable[pick % len(clickable)]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(ops, st.tuples(st.just("smart"), st.integers(0, 1000))),
                max_size=25))
def test_random_input_never_breaks_the_dump(seq: list[tuple]) -> None:  # type: ignore[type-arg]
    m = _DEMO
    m.reset()
    m.key(224)
    for op in seq:
        if op[0] == "smart":
            _tap_something(m, op[1])
        else:
            _apply(m, op)
        data = m.dump_xml()
        check_dump(data, nested=True)
        m.current()
    png = m.screenshot_png()
    assert png_size(png) == (1080, 2400)


def test_concurrent_use_is_safe() -> None:
    m = ScreenModel.from_scenario(clock=Clock())
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            for i in range(40):
                if (i + seed) % 5 == 0:
                    m.launch(["com.android.settings", "com.google.android.apps.messaging"][i % 2])
                elif (i + seed) % 5 == 1:
                    _tap_something(m, i * 7 + seed)
                elif (i + seed) % 5 == 2:
                    m.swipe(540, 1800, 540, 900, 200)
                elif (i + seed) % 5 == 3:
                    m.type_text("x")
                else:
                    m.key([4, 3, 187][i % 3])
                check_dump(m.dump_xml())
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_reset_restores_the_start(tmp_path: Path) -> None:
    p = Phone()
    p.m.launch("com.android.settings")
    p.m.key(26)
    p.m.reset()
    assert p.m.screen_on and p.m.current()[0] == "com.google.android.apps.nexuslauncher"
    assert p.m.tasks() == []
    assert bounds(p.windows()[1]) == (0, 0, 1080, 2400)


def test_rule_on_a_non_clickable_container_fires(tmp_path: Path) -> None:
    xml = dump(node(inner=node("android.widget.LinearLayout", "[0,100][1080,400]",
                               resource_id="com.example.app:id/card",
                               inner=node("android.widget.Button", "[0,100][540,400]",
                                          text="Open", clickable="true"))))
    y = write(tmp_path, """\
start: main
apps:
  - package: com.example.app
    activity: .Main
    screens:
      main:
        xml: main.xml
        on:
          - tap: {id: card}
            goto: next
      next: next.xml
""", {"main.xml": xml, "next.xml": NEXT_XML})
    p = Phone(ScreenModel.from_scenario(y))
    p.tap(text="Open")
    assert p.m.screen_name() == "next" and p.has(text="Hi {name}")


VOCAB_XML = dump(node(inner=(
    node("android.widget.Button", "[0,100][1080,200]", text="Set", clickable="true")
    + node("android.widget.Button", "[0,200][1080,300]", text="Flip", clickable="true")
    + node("android.widget.CheckBox", "[0,300][1080,400]", text="Opt", checkable="true",
           clickable="true",
           resource_id="com.example.app:id/opt")
    + node("android.widget.Button", "[0,400][1080,500]", text="Web", clickable="true")
    + node("android.widget.Button", "[0,500][1080,600]", text="Hold", clickable="true",
           long_clickable="true")
    + node("android.widget.Button", "[0,600][1080,700]", text="Away", clickable="true")
    + node("android.widget.EditText", "[0,700][1080,800]", text="", hint="",
           resource_id="com.example.app:id/box", clickable="true", focusable="true")
)))


def test_rule_vocabulary(tmp_path: Path) -> None:
    y = write(tmp_path, """\
start: main
apps:
  - package: com.example.app
    activity: .Main
    view: {schemes: [https], screen: web, vars: {where: "{host}"}}
    screens:
      main:
        xml: main.xml
        on:
          - tap: Set
            set_text: {target: {id: box}, text: "at {time}"}
          - tap: Flip
            toggle: {id: opt}
          - tap: Web
            view: "https://example.net/a"
          - long_press: Hold
            do: [{insert: "!"}, recents]
          - tap: Away
            do: [home, {launch: com.example.other}]
      web:
        xml: web.xml
  - package: com.example.other
    activity: .Main
    screens:
      other: web.xml
""", {"main.xml": VOCAB_XML,
      "web.xml": dump(node(inner=node("android.widget.TextView", "[0,0][9,9]",
                                      text="on {where}")))})
    p = Phone(ScreenModel.from_scenario(y, clock=Clock()))
    p.tap(text="Set")
    assert p.field("box").get("text") == "at 10:42\u202fAM"
    p.tap(text="Flip")
    assert p.find(text="Opt").get("checked") == "true"
    p.tap(text="Opt")  # a checkable node toggles by itself too
    assert p.find(text="Opt").get("checked") == "false"
    p.tap(id="box")
    x, y_ = center(p.find(text="Hold"))
    p.m.swipe(x, y_, x, y_, 700)
    assert p.m.screen_name() == "recents"
    p.m.key(4)
    assert p.field("box").get("text") == "at 10:42\u202fAM!"
    p.tap(text="Web")
    assert p.has(text="on example.net") and p.m.current()[0] == "com.example.app"
    p.m.key(4)
    p.tap(text="Away")
    assert p.m.current()[0] == "com.example.other"
    assert [t for t, _ in p.m.tasks()] == ["com.example.other", "com.example.app"]


CORPUS = corpus_dir() / "dumps"


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS} (set BAREMOBILE_CORPUS)")
def test_real_dumps_work_as_scenario_screens(tmp_path: Path) -> None:
    """A sample of real captured dumps, each loaded as a user's one-screen scenario."""
    files = sorted(CORPUS.glob("*.xml"))[::9]
    assert files
    (tmp_path / "s.yaml").write_text(
        "start: s\napps:\n  - package: com.example.x\n    activity: .M\n"
        "    screens:\n      s: s.xml\n", encoding="utf-8")
    for f in files:
        (tmp_path / "s.xml").write_bytes(f.read_bytes())
        m = ScreenModel.from_scenario(tmp_path / "s.yaml")
        root = ET.fromstring(m.dump_xml())
        for n in root.iter("node"):
            x1, y1, x2, y2 = bounds(n)
            assert 0 <= x1 <= x2 <= m.width and 0 <= y1 <= y2 <= m.height, (f.name, n.attrib)
        m.swipe(m.width // 2, m.height * 3 // 4, m.width // 2, m.height // 4, 300)
        m.tap(m.width // 2, m.height // 2)
        ET.fromstring(m.dump_xml())
