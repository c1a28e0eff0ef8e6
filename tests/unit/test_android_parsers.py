"""The sans-I/O parsers of ``baremobile.android`` on every real output of their command
(``shared/real-outputs``, read from there), on the formats AOSP defines that the samples do
not show (written here from the AOSP sources the parsers cite), and under hypothesis:
CRLF, trailing blanks, unknown extra lines and sections, reordered blocks and truncation
never crash them and never make them invent a value."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.android import (
    activity,
    battery,
    display,
    host_devices,
    input_devices,
    input_method,
    listing,
    logs,
    packages,
    processes,
    props,
    run_as,
    shell_command,
    windows,
)
from baremobile.errors import CommandFailed
from tests import examples
from tests.real_outputs import manifest, sample, samples

# -- every real file, what its MANIFEST notes say a correct parser reads ---------------------

GETPROP = {  # file -> (sdk, release, brand, model)
    "getprop/001_poco-f6-peridot.txt": (35, "15", "POCO", "24069PC21I"),
    "getprop/002_huawei-g700.txt": (19, "4.4.2", "Huawei", "G700-U20"),
    "getprop/004_oneplus-nord-billie.txt": (30, "11", "OnePlus", "BE2028"),
    "getprop/005_lg-v60-timelm.txt": (30, "11", "lge", "LM-V600"),
    "getprop/007_asus-tf201-ics.txt": (15, "4.0.3", None, "TF201"),
    "getprop/008_gwm-haval-headunit.txt": (28, "9", "qti", "msmnile_gvmq for arm64"),
}


def test_every_sample_has_a_parser_test() -> None:
    rows = manifest()
    if not rows:
        pytest.skip("the real outputs are not here (shared/real-outputs)")
    tested = set(GETPROP) | set(WM_SIZE) | set(DISPLAYS) | set(FOCUS) | set(GETEVENT) | \
        set(LS) | set(PS) | set(LOGCAT) | set(PM_RESULT) | set(AM) | set(BATTERY) | \
        set(DEVICES) | set(INPUT_METHOD) | {
            "wm-density/001_gekko-samsung-s24.txt",
            "ls-la/004_jetbrains-emu-api25-system.txt",
            "pm-list-packages/001_gwm-haval-headunit.txt",
            "pm-path/001_awesome-adb-ecarx.txt",
            "dumpsys-package/001_mvt-samsung.txt",
            "dumpsys-package/003_healer-mtk-tb8168.txt",
            "cmd-package-query-activities/001_lumisky-resolve-activity.txt",
            "cmd-clipboard-help/001_agent-device-pr2676-android16.txt",
            "uiautomator-dump-status/001_appagent-issue39.txt",
            "uiautomator-dump-status/002_androidviewclient-issue257.txt"}
    # every file of the folder has a test of what its MANIFEST notes say a parser reads; a
    # file added later fails here until it has one (no count: the folder grows)
    missing = sorted(set(rows) - tested)
    assert not missing, f"real outputs without a parser test (see their MANIFEST notes): {missing}"
    stray = sorted(tested - set(rows))
    assert not stray, f"tests of files the MANIFEST does not list: {stray}"


@pytest.mark.parametrize("name", sorted(GETPROP))
def test_getprop(name: str) -> None:
    p = props.parse_getprop(sample(name))
    sdk, release, brand, model = GETPROP[name]
    assert (p.api_level, p.release, p.model) == (sdk, release, model)
    if brand is not None:
        assert p.brand == brand
    # every property line is read, multi-line values included, nothing invented
    text = sample(name).decode("utf-8", "replace")
    starts = [ln for ln in text.splitlines() if re.match(r"^\[[^\]\s]+\]: \[", ln)]
    assert len(p.values) == len(starts)
    for key, value in p.values.items():
        assert f"[{key}]: [{value.splitlines()[0] if value else ''}" in text


def test_getprop_multi_line_value_and_the_damaged_line() -> None:
    p = props.parse_getprop(sample("getprop/001_poco-f6-peridot.txt"))
    history = p.get("persist.sys.boot.reason.history").split("\n")
    assert len(history) == 4 and history[1].startswith("shutdown,userrequested")
    assert p.get("persist.sys.compact_heads_up_notification.always_show") == "false"
    gwm = props.parse_getprop(sample("getprop/008_gwm-haval-headunit.txt"))
    assert "persist.vendor.gwm.cfg.bean_file_version" not in gwm.values  # no closing bracket
    assert gwm.get("persist.vendor.gwm.cfg.bean_modify_utc").isdigit()  # the next line


WM_SIZE = {"wm-size/001_gekko-samsung-s24.txt": (1440, 3120),
           "wm-size/002_awesome-adb-override.txt": (480, 1024),
           "wm-size/003_maa-pr11516-physical.txt": (1080, 2400)}


@pytest.mark.parametrize("name", sorted(WM_SIZE))
def test_wm_size(name: str) -> None:
    assert display.parse_wm_size(sample(name)).size == WM_SIZE[name]


def test_wm_density() -> None:
    assert display.parse_wm_density(sample("wm-density/001_gekko-samsung-s24.txt")) == 600


DISPLAYS = {  # file -> (natural, current, rotation, orientation)
    "dumpsys-window-displays/001_awesome-adb.txt": ((1080, 1920), (1080, 1920), 0, "portrait"),
    "dumpsys-window-displays/002_maa-pr11516-android13.txt":
        ((1280, 720), (1280, 720), 0, "landscape"),
    "dumpsys-window-displays/004_u2-issue816-android12.txt":
        ((720, 1650), (720, 1650), 0, "portrait"),
}


@pytest.mark.parametrize("name", sorted(DISPLAYS))
def test_dumpsys_window_displays(name: str) -> None:
    d = display.default_display(sample(name))
    assert d is not None and d.display_id == 0
    assert (d.natural, d.current, d.rotation, d.orientation) == DISPLAYS[name]


FOCUS = {
    "dumpsys-window-focus/001_appium-adb-multiscreen-pr604.txt":
        ("eu.niko.smart.universal", "crc648a3abc16689e594e.MainActivity"),
    "dumpsys-window-focus/003_u2-issue816-android12.txt":
        ("org.codeaurora.snapcam", "com.android.camera.CameraLauncher"),
}


@pytest.mark.parametrize("name", sorted(FOCUS))
def test_focus(name: str) -> None:
    assert windows.parse_focus(sample(name)) == windows.Focus(*FOCUS[name])


def test_focus_in_a_displays_dump() -> None:
    f = windows.parse_focus(sample("dumpsys-window-displays/004_u2-issue816-android12.txt"))
    assert f == windows.Focus(*FOCUS["dumpsys-window-focus/003_u2-issue816-android12.txt"])


GETEVENT = {  # file -> (devices, path, name, x max, y max, slots, pressure, btn_touch)
    "getevent-lp/001_backtap-chiron.txt":
        (7, "/dev/input/event1", "synaptics_dsx", 1079, 2159, 10, False, True),
    "getevent-lp/003_touch-emulator-fts.txt":
        (1, "/dev/input/event1", "fts_ts", 1080, 2400, 10, True, True),
    "getevent-lp/004_scrcpy-fork-vivo-pad.txt":
        (8, "/dev/input/event6", "vivo_ts", 20639, 30959, 10, False, True),
}


@pytest.mark.parametrize("name", sorted(GETEVENT))
def test_getevent(name: str) -> None:
    found = input_devices.parse_getevent(sample(name))
    count, path, dev_name, xmax, ymax, slots, pressure, btn = GETEVENT[name]
    ts = input_devices.find_touchscreen(found)
    assert len(found) == count and ts is not None
    assert (ts.path, ts.name, ts.protocol) == (path, dev_name, "B")
    assert ts.axes["ABS_MT_POSITION_X"].maximum == xmax
    assert ts.axes["ABS_MT_POSITION_Y"].maximum == ymax
    assert ts.axes["ABS_MT_SLOT"].maximum + 1 == slots
    assert ts.axes["ABS_MT_TRACKING_ID"].maximum == 65535
    assert ("ABS_MT_PRESSURE" in ts.axes) == pressure and ("BTN_TOUCH" in ts.keys) == btn


def test_getevent_truncated_labels_and_held_keys() -> None:
    found = {d.name: d for d in input_devices.parse_getevent(
        sample("getevent-lp/004_scrcpy-fork-vivo-pad.txt"))}
    assert "KEY_PRIVACY_SCREEN_T" in found["vivo_ts"].keys and "BTN_TOUCH" in found["vivo_ts"].keys
    assert not any(k.endswith("*") for d in found.values() for k in d.keys)
    # the decoys: a pen with INPUT_PROP_DIRECT but no MT axes, MT axes with no props
    assert not found["vivo_ts_pen"].multitouch and found["vivo_ts_fp"].props == frozenset()


LS = {  # file -> [(name, type, size, target)] in order
    "ls-la/001_notes-pixel8-sdcard-link.txt":
        [("/sdcard", "link", None, "/storage/self/primary")],
    "ls-la/002_notes-pixel8-storage-emulated.txt":
        [("0", "directory", None, None), ("obb", "directory", None, None)],
    "ls-la/006_jetbrains-ls-escapes.txt": [("dir with spaces", "directory", None, None)],
}


@pytest.mark.parametrize("name", sorted({*LS, "ls-la/004_jetbrains-emu-api25-system.txt"}))
def test_ls(name: str) -> None:
    found = listing.parse_ls(sample(name))
    if name in LS:
        assert [(e.name, e.type, e.size, e.target) for e in found] == LS[name]
    else:
        # 15 entries besides . and .. (the MANIFEST note says 16: it counts one too many)
        assert len(found) == 15 and {e.name for e in found if e.type == "file"} == {"build.prop"}
        assert next(e for e in found if e.name == "build.prop").size == 2006
        assert all(e.type == "directory" for e in found if e.name != "build.prop")


PS = {"ps-A/001_lumisky-xiaomi-courbet.txt":
      {22718: "com.android.chrome", 2053: "system_server",
       23588: "com.google.android.webview:sandboxed_process0:org.chromium.content.app."
              "SandboxedProcessService0:0"},
      "ps-A/002_healer-mtk-tb8168.txt": {1: "init", 2: "[kthreadd]"}}


@pytest.mark.parametrize("name", sorted(PS))
def test_ps(name: str) -> None:
    found = processes.parse_ps(sample(name))
    rows = [ln for ln in sample(name).decode().splitlines()[1:] if ln.strip()]
    assert len(found.by_pid) == len(rows)
    for pid, proc_name in PS[name].items():
        assert found.by_pid[pid].name == proc_name
    if 23588 in found.by_pid:
        assert found.by_pid[23588].package == "com.google.android.webview"
        assert found.by_pid[23588].user.startswith("u0_i")
    assert not processes.only_header(sample(name))


LOGCAT = ["logcat-threadtime/001_decker-smart-surf2.txt",
          "logcat-threadtime/003_scrcpy-fork-vivo-system.txt",
          "logcat-threadtime/004_projet-nx-crlf.txt"]


@pytest.mark.parametrize("name", LOGCAT)
def test_logcat_pid_is_field_three(name: str) -> None:
    text = sample(name).decode("utf-8", "replace")
    log_lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("-----")]
    entries = logs.parse_logcat(text)
    assert len(entries) == len(log_lines)
    assert [e.pid for e in entries] == [int(ln.split()[2]) for ln in log_lines]
    pid = entries[len(entries) // 2].pid
    assert pid is not None
    kept = logs.keep_pids(text, [pid]).splitlines()
    assert kept and all(int(ln.split()[2]) == pid for ln in kept)
    assert len(kept) == sum(1 for ln in log_lines if int(ln.split()[2]) == pid)


def test_logcat_empty_tag() -> None:
    entries = logs.parse_logcat(sample("logcat-threadtime/001_decker-smart-surf2.txt"))
    empty = [e for e in entries if e.tag == ""]
    assert empty and empty[0].message.startswith("debuggerd:")


PM_RESULT = {"pm-install/001_projet-nx-adb-install.txt": (True, None),
             "pm-install/002_awesome-adb-failure.txt": (False, "INSTALL_FAILED_ALREADY_EXISTS"),
             "pm-uninstall/001_adbgui-issue8-xiaomi.txt": (False, "DELETE_FAILED_INTERNAL_ERROR"),
             "pm-uninstall/002_uad-issue251-s24-user0.txt": (True, None)}


@pytest.mark.parametrize("name", sorted(PM_RESULT))
def test_pm_result(name: str) -> None:
    r = packages.parse_pm_result(sample(name))
    assert (r.ok, r.reason) == PM_RESULT[name]


def test_pm_list_path_dumpsys_and_components() -> None:
    listed = packages.parse_list_packages(sample("pm-list-packages/001_gwm-haval-headunit.txt"))
    names = [p.package for p in listed]
    assert len(names) == 137 == len(set(names))
    assert "com.neusoft.na.navigation.skin.b03g.v17" in names
    assert sum(n.startswith("com.beantechs.") for n in names) > 10
    paths = packages.parse_pm_path(sample("pm-path/001_awesome-adb-ecarx.txt"))
    assert packages.base_apk(paths) == "/data/app/ecarx.weather-1.apk"
    mvt = packages.parse_version_names(sample("dumpsys-package/001_mvt-samsung.txt"))
    assert dict(mvt) == {"com.samsung.android.provider.filterprovider": "5.0.07",
                         "com.sec.android.app.DataCreate": "1.0"}
    mtk_text = sample("dumpsys-package/003_healer-mtk-tb8168.txt").decode()
    mtk = packages.parse_version_names(mtk_text)
    assert len(mtk) == 141 == mtk_text.count("\n  Package [")
    comp = packages.parse_components(
        sample("cmd-package-query-activities/001_lumisky-resolve-activity.txt"))
    assert comp == [("com.example.lumisky", ".MainActivity")]


AM = {"am-start/001_lumisky-xiaomi-courbet.txt": (True, None, None),
      "am-start/003_lumisky-xiaomi-courbet-W-cold.txt": (True, None, "COLD"),
      "am-start/004_blognotes-issue62-warning.txt": (True, None, None),
      "am-start/006_zhihudaily-issue27-genymotion-error.txt":
          (False, "Activity class {com.rctzhihudaily/com.rctzhihudaily.MainActivity} does not "
                  "exist.", None)}


@pytest.mark.parametrize("name", sorted(AM))
def test_am_start(name: str) -> None:
    r = activity.parse_am_start(sample(name))
    assert (r.ok, r.error, r.launch_state) == AM[name]
    if "W-cold" in name:
        assert (r.total_time_ms, r.wait_time_ms) == (1361, 1370)
    if "warning" in name:
        assert r.warning is not None and "brought to the front" in r.warning


BATTERY = {"dumpsys-battery/001_gekko-samsung-s24.txt": (75, 2, ("usb",), 357, 4156),
           "dumpsys-battery/002_awesome-adb.txt": (44, 2, ("usb",), 280, 3872)}


@pytest.mark.parametrize("name", sorted(BATTERY))
def test_battery(name: str) -> None:
    b = battery.parse_battery(sample(name))
    assert (b.percent, b.status, b.plugged, b.temperature_tenths, b.voltage_mv) == BATTERY[name]


DEVICES = {"adb-devices-l/001_lumisky-xiaomi-courbet.txt":
           [("6563c026", "device", {"product": "courbet_tr", "model": "M2101K9AG",
                                    "device": "courbet", "transport_id": "5"})],
           "adb-devices-l/003_awesome-adb.txt":
           [("cf264b8f", "device", {}), ("emulator-5554", "device", {}),
            ("10.129.164.6:5555", "device", {})]}


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_adb_devices(name: str) -> None:
    found = host_devices.parse_devices(sample(name))
    assert [(d.serial, d.state, dict(d.props)) for d in found] == DEVICES[name]


#: file -> (editor, input_type, hint, package, shown, known): the MANIFEST's notes
INPUT_METHOD = {
    # Android 9, Motorola's always-on display: one client, mServedView=null, no EditorInfo;
    # the service's mInputEditorInfo belongs to the IME and is not read as the client's
    "dumpsys-input-method/001_notes-motorola-a9.txt": (False, 0, "", "", False, True),
    # Android 13 camera app: the window is served (DecorView), inputType=0x0 (TYPE_NULL)
    "dumpsys-input-method/002_healer-mtk-a13.txt":
        (False, 0, "", "com.mediatek.camera", False, True),
    # the CRITICAL-priority dump stops before the client section: nothing is known
    "dumpsys-input-method/003_healer-mtk-a13-critical.txt": (False, 0, "", "", False, False),
}


@pytest.mark.parametrize("name", sorted(INPUT_METHOD))
def test_input_method(name: str) -> None:
    t = input_method.parse_input_target(sample(name).decode("utf-8", "replace"))
    assert (t.editor, t.input_type, t.hint, t.package, t.shown, t.known) == INPUT_METHOD[name]
    if name.endswith("002_healer-mtk-a13.txt"):  # not the fallback connection's mServedView
        assert t.served_view.startswith("DecorView@") and "CameraLauncher" in t.served_view


@pytest.mark.parametrize("name", samples("uiautomator-dump-status"))
def test_dump_status_lines(name: str) -> None:
    from baremobile.errors import DeviceNotIdle, NullRootNode
    from baremobile.snapshot.dump_errors import dump_error

    want = DeviceNotIdle if "appagent" in name else NullRootNode
    assert type(dump_error(sample(name).decode())) is want
    assert type(dump_error(sample(name).decode().replace("\n", "\r\n"))) is want


# -- formats AOSP defines that the samples do not show --------------------------------------


def test_toolbox_ls() -> None:
    # system/core/toolbox/ls.c listfile_long: no link count, no size but for regular files
    text = ("drwxrwx--x root     sdcard_rw          2016-01-01 12:00 Android\n"
            "-rw-rw---- root     sdcard_rw     1234 2016-01-01 12:01 notes.txt\n"
            "lrwxrwxrwx root     root              2016-01-01 12:02 sdcard -> /storage/self\n"
            "crw-rw-rw- root     root       1,   3 2016-01-01 12:03 null\n"
            "srw-rw---- system   system            2016-01-01 12:04 sock\n")
    found = listing.parse_ls(text)
    assert [(e.name, e.type, e.size) for e in found] == [
        ("Android", "directory", None), ("notes.txt", "file", 1234), ("sdcard", "link", None),
        ("null", "char device", None), ("sock", "socket", None)]
    assert found[2].target == "/storage/self" and found[0].owner == "root"
    assert found[1].modified == "2016-01-01 12:01"


def test_toybox_ls_escapes_and_names_with_spaces() -> None:
    text = ("total 8\n-rw-rw---- 1 u0_a1 u0_a1 5 2024-05-01 10:00 a b  c\n"
            "-rw-rw---- 1 u0_a1 u0_a1 5 2024-05-01 10:00 caf\\303\\251\\ au\\ lait\n"
            "-rw-rw---- 1 u0_a1 u0_a1 5 2024-05-01 10:00 back\\\\slash\n")
    assert [e.name for e in listing.parse_ls(text)] == ["a b  c", "café au lait", "back\\slash"]


def test_busybox_dates() -> None:
    text = "-rw-r--r--    1 root     root          12 Jan  1  2016 old.txt\n"
    (e,) = listing.parse_ls(text)
    assert (e.name, e.size, e.modified) == ("old.txt", 12, "Jan 1 2016")


def test_toolbox_ps_and_its_name_filter() -> None:
    # system/core/toolbox/ps.c: the state letter is a column the header does not name
    text = ("USER      PID   PPID  VSIZE  RSS   WCHAN              PC  NAME\n"
            "root      1     0     8904   772   SyS_epoll_ 0000000000000000 S /init\n"
            "u0_a62    2410  181   1538500 92876 SyS_epoll_ 0000000000000000 S com.android.chrome\n"
            "u0_a62    2470  181   1441236 70000 SyS_epoll_ 0000000000000000 S "
            "com.android.chrome:sandboxed_process0\n")
    found = processes.parse_ps(text)
    assert found.names() == {1: "/init", 2410: "com.android.chrome",
                             2470: "com.android.chrome:sandboxed_process0"}
    assert found.by_pid[2470].package == "com.android.chrome" and found.by_pid[2410].ppid == 181
    assert processes.only_header(text.splitlines()[0] + "\n")
    assert not processes.only_header(text) and not processes.only_header("")


def test_brief_and_other_logcat_formats() -> None:
    cases = {
        "I/ActivityManager(  587): Start proc com.x": ("I", "ActivityManager", 587, None),
        "D/dalvikvm(  123): GC_CONCURRENT freed": ("D", "dalvikvm", 123, None),
        "W/Foo(bar)( 9): odd tag": ("W", "Foo(bar)", 9, None),
        "I(  587) Start proc  (ActivityManager)": ("I", "ActivityManager", 587, None),
        "I(  587:  601) Start proc": ("I", None, 587, 601),
        "01-02 03:04:05.678 I/Tag     (  42): msg": ("I", "Tag", 42, None),
        "2024-01-02 03:04:05.678  4242  4243 E AndroidRuntime: FATAL":
            ("E", "AndroidRuntime", 4242, 4243),
        "1704164645.678  4242  4243 E Tag: epoch": ("E", "Tag", 4242, 4243),
        "01-02 03:04:05.678 +0000  4242  4243 E Tag: zone": ("E", "Tag", 4242, 4243),
        "01-02 03:04:05.678 u0_a12  4242  4243 E Tag: uid": ("E", "Tag", 4242, 4243),
        "\x1b[38;5;196m01-02 03:04:05.678  4242  4243 E Tag: color\x1b[0m":
            ("E", "Tag", 4242, 4243),
        "I/Tag: tag format": ("I", "Tag", None, None),
    }
    for line, want in cases.items():
        e = logs.parse_line(line)
        assert e is not None and (e.priority, e.tag, e.pid, e.tid) == want, line
    assert logs.parse_line("--------- beginning of main") is None
    long = ("[ 01-02 03:04:05.678  4242: 4243 I/Tag      ]\nfirst\nsecond\n\n"
            "[ 01-02 03:04:05.679  4242: 4243 W/Tag      ]\nthird\n\n")
    got = logs.parse_logcat(long)
    assert [(e.priority, e.pid, e.message) for e in got] == [
        ("I", 4242, "first\nsecond"), ("W", 4242, "third")]
    brief = "I/A       (  7): one\nI/B       (  8): two\nI/A       (  7): three\n"
    assert logs.keep_pids(brief, [7]) == "I/A       (  7): one\nI/A       (  7): three\n"


def test_old_dumpsys_window_layouts() -> None:
    # Android 4.4-9: no mRotation in the displays section; the window manager's own line
    old = ("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
           "  Display: mDisplayId=0\n"
           "    init=1080x1920 480dpi cur=1920x1080 app=1920x1008 rng=1080x1008-1920x1848\n"
           "    layoutNeeded=false\n"
           "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
           "  mRotation=3 mAltOrientation=false\n")
    d = display.default_display(old)
    assert d is not None and (d.rotation, d.current, d.orientation) == (
        3, (1920, 1080), "reverse_landscape")
    # without any rotation line, cur against init still tells sideways from upright
    (d2,) = display.parse_displays(old.split("WINDOW MANAGER WINDOWS")[0])
    assert d2.rotation == 1
    # a virtual display before display 0, and ROTATION_ forms
    multi = ("  Display: mDisplayId=3 (organized)\n"
             "    init=500x500 160dpi cur=500x500 app=500x500\n"
             "    mRotation=ROTATION_0\n"
             "  Display: mDisplayId=0 (organized)\n"
             "    init=1600x2560 320dpi cur=2560x1600 app=2560x1528\n"
             "    mRotation=ROTATION_90 mDeferredRotationPauseCount=0\n")
    d3 = display.default_display(multi)
    assert d3 is not None and (d3.display_id, d3.natural, d3.rotation) == (0, (1600, 2560), 1)
    assert [x.display_id for x in display.parse_displays(multi)] == [3, 0]
    # landscape-natural: rotation 0 is landscape, 3 is portrait
    assert display.orientation_of(0, (2560, 1600)) == "landscape"
    assert display.orientation_of(3, (2560, 1600)) == "portrait"
    assert display.rotation_for("portrait", (2560, 1600)) == 3
    assert display.rotation_for("landscape", (1080, 2400)) == 1


def test_wm_size_override_only_and_errors() -> None:
    assert display.parse_wm_size("Override size: 720x1280\n").size == (720, 1280)
    assert display.parse_wm_size("Physical size: 1080x1920\r\n").size == (1080, 1920)
    with pytest.raises(CommandFailed):
        display.parse_wm_size("Error: no such display\n")
    assert display.parse_wm_density("Physical density: 480\nOverride density: 320\n") == 320
    assert display.parse_wm_density("") is None


def test_old_focus_lines() -> None:
    # Android 4.1: no user in Window{}; Android <= 9: AppWindowToken{… ActivityRecord{…}}
    text = ("  mCurrentFocus=Window{41e4b578 com.android.launcher/com.android.launcher2.Launcher "
            "paused=false}\n")
    assert windows.parse_focus(text) == windows.Focus(
        "com.android.launcher", "com.android.launcher2.Launcher")
    token = ("  mCurrentFocus=Window{abc u0 StatusBar}\n  mFocusedApp=AppWindowToken{1 token="
             "Token{2 ActivityRecord{3 u0 com.example/.Main t4}}}\n")
    assert windows.parse_focus(token) == windows.Focus("com.example", "com.example.Main")
    assert windows.parse_focus("  mCurrentFocus=null\n  mFocusedApp=null\n") is None
    dialog = "  mCurrentFocus=Window{9 u0 com.example}\n"
    assert windows.parse_focus(dialog) == windows.Focus("com.example", "")


def test_getevent_protocol_a_without_props_and_without_labels() -> None:
    # getevent -p (no -l): codes in hex; a panel whose kernel sets no INPUT_PROP_DIRECT
    text = ('add device 1: /dev/input/event2\n  name:     "ft5x0x_ts"\n  events:\n'
            "    KEY (0001): 014a\n"
            "    ABS (0003): 0035  : value 0, min 0, max 479, fuzz 0, flat 0, resolution 0\n"
            "                0036  : value 0, min 0, max 799, fuzz 0, flat 0, resolution 0\n"
            "                0030  : value 0, min 0, max 200, fuzz 0, flat 0, resolution 0\n"
            "  input props:\n    <none>\n"
            'add device 2: /dev/input/event3\n  name:     "a touchpad"\n  events:\n'
            "    ABS (0003): 0035  : value 0, min 0, max 99, fuzz 0, flat 0, resolution 0\n"
            "                0036  : value 0, min 0, max 99, fuzz 0, flat 0, resolution 0\n"
            "  input props:\n    INPUT_PROP_POINTER\n")
    ts = input_devices.find_touchscreen(input_devices.parse_getevent(text))
    assert ts is not None and ts.name == "ft5x0x_ts" and ts.protocol == "A"
    assert ts.axes["ABS_MT_POSITION_Y"].maximum == 799 and "BTN_TOUCH" in ts.keys


def test_adb_devices_states() -> None:
    text = ("List of devices attached\n* daemon started successfully\n"
            "0123456789ABCDEF       no permissions (missing udev rules? user is in the plugdev "
            "group); see [http://developer.android.com/tools/device.html] usb:1-1 "
            "transport_id:3\n"
            "emulator-5556          unauthorized usb:2-1 transport_id:4\n"
            "192.168.0.5:5555\toffline\n")
    found = host_devices.parse_devices(text)
    assert [(d.serial, d.state) for d in found] == [
        ("0123456789ABCDEF", "no permissions"), ("emulator-5556", "unauthorized"),
        ("192.168.0.5:5555", "offline")]
    assert found[0].props == {"usb": "1-1", "transport_id": "3"}


def test_pm_answers() -> None:
    assert packages.parse_pm_result("Failure [INSTALL_FAILED_OLDER_SDK: Requires newer sdk "
                                    "version #34 (current version is #30)]\n") == \
        packages.PmResult(False, "INSTALL_FAILED_OLDER_SDK",
                          "Requires newer sdk version #34 (current version is #30)")
    assert packages.parse_pm_result("Error: unknown package: com.nope\n").reason == \
        "unknown package: com.nope"
    assert not packages.parse_pm_result("").ok
    listed = packages.parse_list_packages(
        "package:/data/app/~~a==/com.x-b==/base.apk=com.x versionCode:12 uid:10123\n"
        "package:/system/app/a=b/A.apk=com.y\n")
    assert [(p.package, p.path, p.version_code, p.uid) for p in listed] == [
        ("com.x", "/data/app/~~a==/com.x-b==/base.apk", 12, 10123),
        ("com.y", "/system/app/a=b/A.apk", None, None)]


def test_am_failures_keep_the_reason() -> None:
    r = activity.parse_am_start(
        "Starting: Intent { act=android.intent.action.VIEW dat=foo://x }\n"
        "Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW "
        "dat=foo://x flg=0x10000000 }\n")
    assert not r.ok and r.error is not None and r.error.startswith("Activity not started")
    sec = activity.parse_am_start("Starting: Intent { cmp=com.x/.Secret }\n"
                                  "java.lang.SecurityException: Permission Denial: starting "
                                  "Intent { cmp=com.x/.Secret } not exported\n")
    assert not sec.ok and "Permission Denial" in (sec.error or "")


def test_run_as_refusals_in_both_wordings() -> None:
    # run-as.c (Android ≤ 7.1, panic()) and run-as.cpp (Android 8+, error(3)) — platform/
    # system/core run-as/; the real-outputs folder has no run-as sample
    old = {"run-as: Package 'com.x' is unknown\n": "unknown",
           "run-as: Package 'com.x' is not debuggable\n": "not_debuggable",
           "run-as: Package 'com.x' is not an application\n": "not_application",
           "run-as: Package 'com.x' has corrupt installation\n": "corrupt"}
    new = {"run-as: unknown package: com.x\n": "unknown",
           "run-as: package not debuggable: com.x\n": "not_debuggable",
           "run-as: package not an application: com.x\n": "not_application",
           "run-as: package has corrupt installation: com.x\n": "corrupt"}
    for text, reason in [*old.items(), *new.items()]:
        r = run_as.parse_run_as(text.replace("\n", "\r\n"))  # an old pty shell's CRLF too
        assert r is not None and (r.reason, r.package, r.old) == (reason, "com.x", text in old)
    disabled = run_as.parse_run_as("run-as: run-as is disabled from the kernel commandline\n")
    assert disabled is not None and disabled.reason == "disabled"
    other = run_as.parse_run_as("run-as: Permission denied\n")
    assert other is not None and (other.reason, other.old) == ("other", True)
    # what the command itself printed is no refusal
    assert run_as.parse_run_as("cat: shared_prefs/x.xml: No such file or directory\n") is None
    assert run_as.parse_run_as("") is None


def test_shell_command_exceptions_in_every_release_wording() -> None:
    # ShellCommand.exec / BasicShellCommandHandler.exec (frameworks/base, modules-utils) and
    # Pm.java's own catches (Android ≤ 6): the exception, never the line announcing it
    tail = "\tat com.android.server.pm.PackageManagerShellCommand.onCommand(x.java:1)\n"
    cases = {
        "\nException occurred while executing 'grant':\n"  # Android 11+
        "java.lang.IllegalArgumentException: Unknown package: com.nope\n" + tail:
            ("java.lang.IllegalArgumentException", "Unknown package: com.nope"),
        "\nException occurred while executing:\n"  # Android 8-10
        "java.lang.IllegalArgumentException: Unknown package: com.nope\n" + tail:
            ("java.lang.IllegalArgumentException", "Unknown package: com.nope"),
        "\nException occurred while dumping:\n"  # Android 7
        "java.lang.IllegalStateException\n" + tail:
            ("java.lang.IllegalStateException", ""),
        "Security exception: Package com.x has not requested permission y.Z\n\n"  # 7-10
        "java.lang.SecurityException: Package com.x has not requested permission y.Z\n"
        + tail: ("java.lang.SecurityException",
                 "Package com.x has not requested permission y.Z"),
        "Bad argument: java.lang.IllegalArgumentException: Unknown package: com.nope\n"
        "usage: pm list packages [-f]\n": ("java.lang.IllegalArgumentException",
                                            "Unknown package: com.nope"),  # Pm.java
        "Operation not allowed: java.lang.SecurityException: Package com.x has not "
        "requested permission y.Z\n": ("java.lang.SecurityException",
                                       "Package com.x has not requested permission y.Z"),
        "Error: java.lang.NullPointerException: Attempt to invoke virtual method\n":
            ("java.lang.NullPointerException", "Attempt to invoke virtual method"),
        "\nException occurred while executing 'install':\njava.lang.IllegalArgumentException:"
        " Error: Failed to parse APK file: /t/a.apk: Failed to parse /t/a.apk\n" + tail +
        "Caused by: java.io.IOException: Failed to load asset path /t/a.apk from fd 9\n":
            ("java.lang.IllegalArgumentException",
             "Error: Failed to parse APK file: /t/a.apk: Failed to parse /t/a.apk"),
    }
    for text, (name, message) in cases.items():
        got = shell_command.parse_exception(text)
        assert got is not None and (got.name, got.message) == (name, message), text
        r = packages.parse_pm_result(text)  # pm install's reason is that message
        assert not r.ok and r.reason == (message or name) and r.exception == name
    assert shell_command.parse_exception("Success\n") is None
    assert shell_command.parse_exception("package:com.android.settings\n") is None


def test_pm_install_refusing_a_file_that_is_no_apk() -> None:
    # Android ≤ 6 (Pm.runInstall: stderr "\tpkg: PATH"), Android 7+ streamed (the session's
    # commit, PackageParser / ApkLiteParseUtils)
    old = packages.parse_pm_result("\tpkg: /data/local/tmp/a.apk\n"
                                   "Failure [INSTALL_FAILED_INVALID_APK]\n")
    assert (old.ok, old.reason) == (False, "INSTALL_FAILED_INVALID_APK")
    new = packages.parse_pm_result(
        "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl1.tmp/base.apk: "
        "Failed to load asset path /data/app/vmdl1.tmp/base.apk]\n")
    assert (new.ok, new.reason) == (False, "INSTALL_PARSE_FAILED_NOT_APK")
    assert new.detail is not None and new.detail.startswith("Failed to parse /data/app/vmdl1")


# -- properties: damaged output never crashes a parser and never invents a value -------------

ALL_FILES = [name for command in (
    "getprop", "wm-size", "wm-density", "dumpsys-window-displays", "dumpsys-window-focus",
    "getevent-lp", "ls-la", "ps-A", "logcat-threadtime", "pm-install", "pm-uninstall",
    "pm-list-packages", "pm-path", "dumpsys-package", "cmd-package-query-activities",
    "am-start", "dumpsys-battery", "adb-devices-l", "dumpsys-input-method")
    for name in samples(command)]

PARSERS = {
    "getprop": lambda t: dict(props.parse_getprop(t).values),
    "wm-size": lambda t: _maybe(lambda: display.parse_wm_size(t)),
    "wm-density": display.parse_wm_density,
    "dumpsys-window-displays": display.parse_displays,
    "dumpsys-window-focus": windows.parse_focus,
    "getevent-lp": input_devices.parse_getevent,
    "ls-la": listing.parse_ls,
    "ps-A": lambda t: dict(processes.parse_ps(t).by_pid),
    "logcat-threadtime": logs.parse_logcat,
    "pm-install": packages.parse_pm_result,
    "pm-uninstall": packages.parse_pm_result,
    "pm-list-packages": packages.parse_list_packages,
    "pm-path": packages.parse_pm_path,
    "dumpsys-package": lambda t: dict(packages.parse_version_names(t)),
    "cmd-package-query-activities": packages.parse_components,
    "am-start": activity.parse_am_start,
    "dumpsys-battery": battery.parse_battery,
    "adb-devices-l": host_devices.parse_devices,
    "dumpsys-input-method": lambda t: input_method.parse_input_target(
        t.decode("utf-8", "replace") if isinstance(t, bytes) else t),
}


def _maybe(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except CommandFailed:
        return None


def _words(value: object) -> set[str]:
    """Every word of every string a parsed value holds (to check each came from the input;
    numbers and flags are checked by the exact tests above)."""
    import dataclasses

    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif isinstance(v, str):
            out.update(w for w in v.split() if len(w) >= 3)
        elif isinstance(v, dict) or hasattr(v, "items"):
            for k, x in v.items():  # type: ignore[union-attr]
                stack += [k, x]
        elif isinstance(v, (list, tuple, set, frozenset)):
            stack.extend(v)
    return out


damage = st.sampled_from(["crlf", "blanks", "extra", "truncate", "shuffle"])


@pytest.mark.skipif(not ALL_FILES, reason="the real outputs are not here (shared/real-outputs)")
@settings(max_examples=examples(120), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_damaged_real_output_never_crashes_or_invents(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(ALL_FILES))
    text = sample(name).decode("utf-8", "replace")
    if len(text) > 20000:  # the big listings: a window of them is enough
        start = data.draw(st.integers(0, len(text) - 20000))
        text = text[start:start + 20000]
    parse = PARSERS[name.split("/")[0]]
    how = data.draw(damage)
    lines_ = text.splitlines()
    if how == "crlf":
        damaged = "\r\n".join(lines_) + "\r\n"
        assert parse(damaged) == parse("\n".join(lines_) + "\n")
        return
    if how == "blanks":
        damaged = "\n".join(ln + " " * data.draw(st.integers(0, 3)) for ln in lines_) + "\n\n\n"
    elif how == "extra":
        junk = data.draw(st.lists(st.sampled_from([
            "UNKNOWN SECTION (vendor):", "  mVendorThing=true", "", "[]", "???", "  :",
            "Display: mDisplayId=", "  key: ", "package:", "]oops]: [", "add device x:"]),
            min_size=1, max_size=4))
        at = data.draw(st.integers(0, len(lines_)))
        damaged = "\n".join(lines_[:at] + junk + lines_[at:])
    elif how == "truncate":
        damaged = text[:data.draw(st.integers(0, len(text)))]
    else:
        damaged = "\n".join(data.draw(st.permutations(lines_))) if len(lines_) < 60 else text
    got = parse(damaged)
    known = {"directory", "file", "link", "char", "device", "block", "socket", "fifo",
             "usb", "wireless", "dock"}  # the parsers' own vocabulary (types, plug names)
    invented = {w for w in _words(got) - _words(parse("")) - known
                if w not in damaged and unescape_ok(w, damaged)
                and not any(w[:k] in damaged and w[k:] in damaged  # pkg + ".Relative"
                            for k in range(1, len(w)))}
    assert not invented


def unescape_ok(word: str, text: str) -> bool:
    """False when ``word`` is the unescaped form of something in ``text`` (ls -b names)."""
    return listing.unescape(word) == word or word not in listing.unescape(text)


@given(st.binary(max_size=400))
@settings(max_examples=examples(200), deadline=None)
def test_random_bytes_never_crash(data: bytes) -> None:
    for parse in PARSERS.values():
        parse(data)
    logs.keep_pids(data, [1])
    run_as.parse_run_as(data)
    shell_command.parse_exception(data)
    input_devices.find_touchscreen(input_devices.parse_getevent(data))
    processes.only_header(data)
