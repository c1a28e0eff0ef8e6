"""The virtual phone prints what real phones print: for every command baremobile reads,
the STRUCTURE of the virtual phone's output (headers, columns, separators, field order,
indentation) is diffed with the real samples of that command in ``shared/real-outputs``
(read from there; skipped, saying so, where absent). Values differ — names, sizes, times —
the layout may not."""

from __future__ import annotations

import re

import pytest

from baremobile.virtual.model import FakeClock, PhoneModel
from tests.real_outputs import sample, samples

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)


def _run(command: str, **kw: object) -> str:
    model = PhoneModel(browser=False, clock=FakeClock(), **kw)  # type: ignore[arg-type]
    model.mark_running("com.android.settings")
    out, err, _ = model.spawn(command).run()
    return (out + err).decode()


def _real(command: str) -> list[str]:
    names = samples(command)
    if not names:
        pytest.skip(f"no real samples of {command} here (shared/real-outputs is absent)")
    return [sample(n).decode("utf-8", "replace").replace("\r\n", "\n") for n in names]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def test_getprop() -> None:
    shape = re.compile(r"^\[[\w.\-:@]+\]: \[.*\]$")
    mine = _run("getprop").splitlines()
    assert mine and all(shape.match(ln) for ln in mine)
    assert [ln.split("]")[0] for ln in mine] == sorted(ln.split("]")[0] for ln in mine)
    for real in _real("getprop"):  # sorted too on Android 9+ (getprop.cpp); older ones
        # print in property-area order, and some values span lines
        keys = [ln.split("]")[0] for ln in real.splitlines() if ln.startswith("[")]
        assert sum(bool(shape.match(ln)) for ln in real.splitlines()) > len(keys) * 0.98


def test_wm_size_and_density() -> None:
    size = re.compile(r"^(Physical|Override) size: \d+x\d+$")
    density = re.compile(r"^(Physical|Override) density: \d+$")
    for real in _real("wm-size"):
        assert all(size.match(ln) for ln in real.splitlines() if ln)
    for real in _real("wm-density"):
        assert all(density.match(ln) for ln in real.splitlines() if ln)
    assert all(size.match(ln) for ln in _run("wm size 480x1024; wm size").splitlines())
    assert all(density.match(ln) for ln in _run("wm density").splitlines())


def _init_fields(text: str) -> list[list[str]]:
    return [re.findall(r"\b(init|cur|app|rng)=", ln) for ln in text.splitlines()
            if "init=" in ln]


@pytest.mark.parametrize("profile", ["default", "tablet", "android6"])
def test_dumpsys_window_displays(profile: str) -> None:
    mine = _run("dumpsys window displays", profile=profile)
    reals = _real("dumpsys-window-displays")
    for real in reals:  # the same header, block headers at 2, their lines at 4
        assert real.splitlines()[0] == mine.splitlines()[0] == \
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)"
    real_headers = {_indent(ln) for r in reals for ln in r.splitlines()
                    if "Display: mDisplayId" in ln}
    assert {_indent(ln) for ln in mine.splitlines() if "Display: mDisplayId" in ln} == real_headers
    real_inits = {_indent(ln) for r in reals for ln in r.splitlines() if "init=" in ln}
    assert {_indent(ln) for ln in mine.splitlines() if "init=" in ln} == real_inits
    order = {tuple(f) for r in reals for f in _init_fields(r)}
    assert {tuple(f) for f in _init_fields(mine)} <= order  # init, cur, app, rng
    assert re.search(r"init=\d+x\d+ \d+dpi", mine)


def test_focus_lines() -> None:
    window = re.compile(r"^\s*mCurrentFocus=(null|Window\{[0-9a-f]+ u0 [\w.]+/[\w.$]+\})$")
    record = re.compile(r"^\s*mFocusedApp=ActivityRecord\{[0-9a-f]+ u0 [\w.]+/[\w.$]+ t\d+\}$")
    for real in _real("dumpsys-window-focus"):
        assert all(window.match(ln) or record.match(ln) for ln in real.splitlines() if ln)
    mine = _run("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")
    assert all(window.match(ln) or record.match(ln) for ln in mine.splitlines())
    tablet = _run("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'", profile="tablet")
    assert "mCurrentFocus=null" in tablet  # the second display, as on real foldables


def _getevent_shapes(text: str) -> set[str]:
    shapes = set()
    for ln in text.splitlines():
        s = re.sub(r'"[^"]*"', '"N"', ln.rstrip())
        s = re.sub(r"\b(KEY|BTN|ABS|SW|INPUT_PROP)_\w+\*?", "L", s)
        s = re.sub(r"\b[0-9a-f]{4}\b(?! \()", "L", s)
        s = re.sub(r"-?\d+", "9", s)
        s = re.sub(r"(L +)+L?", "L ", s)
        shapes.add(re.sub(r" +", " ", s))
    return shapes


@pytest.mark.parametrize("profile", ["default", "protocol-a"])
def test_getevent_lp(profile: str) -> None:
    mine = _run("getevent -lp", profile=profile)
    real = set().union(*(_getevent_shapes(r) for r in _real("getevent-lp")
                         if "touch-emulator" not in r))  # that one was re-aligned by hand
    assert _getevent_shapes(mine) <= real | {" <none>"}
    # label columns: 20 wide after the section header, as getevent's %-20.20s
    for ln in mine.splitlines():
        m = re.match(r"^    (KEY|ABS) \(\d{4}\): (\S+)( +)", ln)
        if m:
            assert len(m.group(2)) + len(m.group(3)) >= 21


def test_ls_la_toybox() -> None:
    line = re.compile(r"^[-dlcbsp][-rwxsStT]{9} +\d+ \S+ +\S+ +\d+ \d{4}-\d\d-\d\d \d\d:\d\d \S")
    mine = _run("mkdir /sdcard/x; echo hi > /sdcard/x/f; ls -la /sdcard/x/").splitlines()
    assert re.match(r"^total \d+$", mine[0]) and all(line.match(ln) for ln in mine[1:])
    assert [ln.split()[-1] for ln in mine[1:3]] == [".", ".."]
    for real in _real("ls-la"):
        rows = [ln for ln in real.splitlines() if ln]
        if rows[0].startswith("total"):
            rows = rows[1:]
        assert all(line.match(ln) for ln in rows)
    link = _run("ls -la /sdcard")
    real_link = _real("ls-la")[0]
    assert re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "DATE", link) == \
        re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "DATE", real_link)


def test_ps_a_toybox() -> None:
    mine = _run("ps -A").splitlines()
    for real in _real("ps-A"):
        header = real.splitlines()[0]
        assert header.split() == mine[0].split()
        # the right edges of the right-aligned columns, the left edges of the others
        for col in ("PID", "PPID", "VSZ", "RSS", "ADDR"):
            assert header.index(" " + col) + len(col) + 1 == mine[0].index(" " + col) + len(col) + 1
        assert header.index("WCHAN") == mine[0].index("WCHAN")
        assert header.index(" NAME") == mine[0].index(" NAME")
        row = re.compile(r"^\S+ +\d+ +\d+ +\d+ +\d+ \S+ +\S+ [RSDZTtXxKWPI] \S")
        assert all(row.match(ln) for ln in real.splitlines()[1:] if ln)
        assert all(row.match(ln) for ln in mine[1:])


def test_logcat_threadtime() -> None:
    line = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] .{8,}?: ?")
    sep = re.compile(r"^--------- beginning of \w+$")
    mine = _run("log -t short hello; logcat -d").splitlines()
    assert sep.match(mine[0]) and all(line.match(ln) for ln in mine[1:])
    assert any(" I short   : hello" in ln for ln in mine)  # the tag padded to 8
    for real in _real("logcat-threadtime"):
        rows = [ln for ln in real.splitlines() if ln]
        assert all(line.match(ln) or sep.match(ln) for ln in rows)
        # the columns line up as in the virtual phone's: pid right-aligned to column 24
        pids = {ln.index(ln.split()[2]) + len(ln.split()[2]) for ln in rows if line.match(ln)}
        mine_pids = {ln.index(ln.split()[2]) + len(ln.split()[2]) for ln in mine[1:]}
        assert mine_pids <= pids


def test_pm_answers() -> None:
    listed = re.compile(r"^package:[\w.]+$")
    path = re.compile(r"^package:/\S+\.apk$")
    result = re.compile(r"^(Success|Failure \[[A-Z_]+(: .*)?\])$")
    for real in _real("pm-list-packages"):
        assert all(listed.match(ln) for ln in real.splitlines() if ln)
    assert all(listed.match(ln) for ln in _run("pm list packages").splitlines())
    for real in _real("pm-path"):
        assert all(path.match(ln) for ln in real.splitlines() if ln)
    assert all(path.match(ln) for ln in _run("pm path com.android.settings").splitlines())
    for real in _real("pm-uninstall"):
        assert all(result.match(ln) for ln in real.splitlines() if ln)
    assert result.match(_run("pm uninstall com.android.settings").strip())
    assert result.match(_run("pm uninstall com.nope").strip())
    # a file that is no APK, streamed as adb install streams it: refused at the commit
    refused = _run("echo junk > /data/local/tmp/x.apk; pm install -S 5 < /data/local/tmp/x.apk")
    assert result.match(refused.strip().splitlines()[-1])


def test_dumpsys_package() -> None:
    header = re.compile(r"^  Package \[[\w.]+\] \([0-9a-f]+\):$")
    version = re.compile(r"^    versionName=\S*")
    mine = _run("dumpsys package packages").splitlines()
    assert mine[0] == "Packages:"
    for real in _real("dumpsys-package"):
        rows = real.splitlines()
        assert any(header.match(ln) for ln in rows) and any(version.match(ln) for ln in rows)
        assert "Packages:" in rows
    assert sum(bool(header.match(ln)) for ln in mine) == \
        sum(bool(version.match(ln)) for ln in mine) > 3


def test_query_activities_brief() -> None:
    prio = re.compile(r"^priority=-?\d+ preferredOrder=-?\d+ match=0x[0-9a-f]+ "
                      r"specificIndex=-?\d+ isDefault=(true|false)$")
    comp = re.compile(r"^[\w.]+/[\w.$]+$")
    (real,) = _real("cmd-package-query-activities")
    rows = [ln.strip() for ln in real.splitlines() if ln.strip()]
    assert prio.match(rows[0]) and comp.match(rows[1])
    mine = [ln.strip() for ln in _run("cmd package query-activities --brief -a "
                                      "android.intent.action.MAIN -c "
                                      "android.intent.category.LAUNCHER").splitlines()]
    pairs = [(a, b) for a, b in zip(mine, mine[1:], strict=False) if prio.match(a)]
    assert pairs and all(comp.match(b) for _, b in pairs)


def test_am_start() -> None:
    shapes = {"Starting": re.compile(r"^Starting: Intent \{ .* \}$"),
              "Error type": re.compile(r"^Error type \d+$"),
              "Error:": re.compile(r"^Error: .+$"),
              "Warning:": re.compile(r"^Warning: .+$"),
              "-W": re.compile(r"^(Status: \w+|LaunchState: \w+|Activity: \S+|TotalTime: \d+|"
                               r"WaitTime: \d+|Complete)$")}
    for real in _real("am-start"):
        assert all(any(s.match(ln) for s in shapes.values()) for ln in real.splitlines() if ln)
    for cmd in ("am start -n com.android.settings/.Settings",
                "am start -W -n com.android.settings/.Settings", "am start -n com.x/.Nope"):
        out = _run(cmd)
        assert all(any(s.match(ln) for s in shapes.values()) for ln in out.splitlines() if ln)
    failed = _run("am start -n com.x/.Nope").splitlines()
    real_failed = [ln for ln in _real("am-start")[-1].splitlines() if ln]
    assert [ln.split(" ")[0] for ln in failed] == [ln.split(" ")[0] for ln in real_failed]


@pytest.mark.parametrize("profile", ["default", "android6"])
def test_dumpsys_battery(profile: str) -> None:
    field = re.compile(r"^  ([^:]+): \S*")
    mine = _run("dumpsys battery", profile=profile).splitlines()
    reals = _real("dumpsys-battery")
    keys = [[m.group(1) for ln in r.splitlines() if (m := field.match(ln))] for r in reals]
    assert all(r.splitlines()[0] == mine[0] == "Current Battery Service state:" for r in reals)
    mine_keys = [m.group(1) for ln in mine[1:] if (m := field.match(ln))]
    assert len(mine_keys) == len(mine) - 1
    known = set().union(*keys) | {"Charging state", "Charging policy", "Capacity level",
                                  "Max charging voltage"}  # AOSP 13-15 fields
    assert set(mine_keys) <= known
    for real_keys in keys:  # the fields both print come in the same order
        common = [k for k in real_keys if k in mine_keys]
        assert common == [k for k in mine_keys if k in common]
    if profile == "android6":  # the pre-Android 7 layout: the older sample's fields
        assert mine_keys == keys[1]


def test_uiautomator_dump_status_and_clipboard() -> None:
    model = PhoneModel(browser=False, clock=FakeClock())
    got = {}
    for fault in ("idle", "null_root"):
        model.faults.set(fault)
        out, err, _ = model.spawn("uiautomator dump /sdcard/x.xml").run()
        got[fault] = (out + err).decode()
    reals = _real("uiautomator-dump-status")
    assert got["idle"] == reals[0] and got["null_root"] == reals[1]
    (clip,) = _real("cmd-clipboard-help")
    assert _run("cmd clipboard help 2>&1") == clip
