"""The virtual phone's programs: toybox basics and Android's tools, quirks included."""

from __future__ import annotations

import base64
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baremobile.virtual.commands.input import decode_input_text, keycode_from_string, usage
from baremobile.virtual.commands.ui import decode_png
from tests import examples
from tests.phone.test_virtual_model_fakes import LAUNCHER, PNG, make_phone, sh

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)

NPE = "java.lang.NullPointerException: Attempt to get length of null array"


def _kinds(phone) -> list[str]:
    return [e.kind for e in phone.events.list() if e.kind != "command"]


# -- input text -----


@pytest.mark.parametrize(
    ("raw", "typed"),
    [
        ("hello%sworld", "hello world"),
        ("%s%s", "  "),
        ("%%s", "% "),
        ("%%%s", "%% "),
        ("100%", "100%"),
        ("%d%", "%d%"),
        ("a%s%", "a %"),
        ("%ss", " s"),
        ("%", "%"),
        ("s%", "s%"),
    ],
)
def test_percent_s_decoding_is_androids_algorithm(raw: str, typed: str) -> None:
    assert decode_input_text(raw) == typed
    phone = make_phone()
    assert sh(phone, f"input text '{raw}'") == ("", "", 0)
    assert phone.events.list("text")[0]["text"] == typed
    assert phone.screens.calls == [("type", typed)]


def _reference_send_text(text: str) -> str:
    """A literal transcription of InputShellCommand.sendText's loop, for the property."""
    buff = list(text)
    escape = False
    i = 0
    while i < len(buff):
        if escape:
            escape = False
            if buff[i] == "s":
                buff[i] = " "
                i -= 1
                buff.pop(i)
        if buff[i] == "%":
            escape = True
        i += 1
    return "".join(buff)


@given(st.text(st.sampled_from("%sa "), max_size=20))
def test_percent_s_property(text: str) -> None:
    assert decode_input_text(text) == _reference_send_text(text)
    assert "%s" not in decode_input_text(text).replace("%%s", "")[:0] + "x"


def _assert_npe(out: str, err: str, status: int) -> None:
    assert out == "" and status == 255
    assert err.startswith(f"\nException occurred while executing 'text':\n{NPE}\n")
    assert "\tat com.android.server.input.InputShellCommand.sendText(" in err


@pytest.mark.parametrize("text", ["héllo", "emoji 😀".replace(" ", "%s"), "tab\x01", "ü"])
def test_unmappable_characters_fail_typing_nothing(text: str) -> None:
    phone = make_phone()
    _assert_npe(*sh(phone, f"input text '{text}'"))
    assert phone.events.list("text") == []
    assert phone.screens.calls == []


def test_literal_space_fails_on_api_35_but_not_34() -> None:
    new = make_phone(api_level=35)
    _assert_npe(*sh(new, "input text 'hello world'"))
    assert new.events.list("text") == []
    old = make_phone(api_level=34)
    assert sh(old, "input text 'hello world'") == ("", "", 0)
    assert old.events.list("text")[0]["text"] == "hello world"


def test_only_the_first_text_argument_is_typed() -> None:
    phone = make_phone()
    assert sh(phone, "input text hello world")[2] == 0
    assert [e["text"] for e in phone.events.list("text")] == ["hello"]


def test_input_text_with_shell_metacharacters_quoted() -> None:
    phone = make_phone()
    sh(phone, "input text 'a;b|c&d$(x)`y`'\\''\"'")
    assert phone.events.list("text")[0]["text"] == "a;b|c&d$(x)`y`'\""


# -- input: taps, swipes, keys ------------------------------------------------------------------


def test_tap_swipe_long_press() -> None:
    phone = make_phone()
    assert (
        sh(phone, "input tap 100 200.7; input swipe 1 2 300 400; input swipe 5 5 6 6 800")[2] == 0
    )
    taps = phone.events.list("tap")
    assert (taps[0]["x"], taps[0]["y"]) == (100, 200.7)
    swipe = phone.events.list("swipe")[0]
    assert swipe.detail == {"x1": 1, "y1": 2, "x2": 300, "y2": 400, "duration_ms": 300}
    assert phone.events.list("long_press")[0].detail == {"x": 5, "y": 5, "duration_ms": 800}
    assert phone.screens.calls == [
        ("tap", 100, 200),
        ("swipe", 1, 2, 300, 400, 300),
        ("swipe", 5, 5, 6, 6, 800),
    ]
    assert sh(phone, "input touchscreen -d 0 tap 1e1 2f")[2] == 0
    assert phone.screens.calls[-1] == ("tap", 10, 2)


@pytest.mark.parametrize(
    "command", ["input tap x 10", "input tap 1_0 1", "input swipe 1 2 3 4 5.5"]
)
def test_bad_numbers(command: str) -> None:
    phone = make_phone()
    out, err, status = sh(phone, command)
    sub = command.split()[1]
    assert status == 255 and out == ""
    assert err.startswith(
        f"\nException occurred while executing '{sub}':\n"
        "java.lang.IllegalArgumentException: Error: Invalid arguments for "
        f"command: {sub}\n\tat "
    )
    assert phone.screens.calls == []


def test_missing_argument_and_usage() -> None:
    phone = make_phone()
    _, err, status = sh(phone, "input tap 5")
    assert status == 255 and 'Argument expected after "5"' in err
    out, err, status = sh(phone, "input")
    assert (out, err, status) == (usage(), "", 0)
    assert out.startswith("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")
    assert sh(phone, "input frobnicate") == ("Unknown command: frobnicate\n", "", 0)


def test_keyevents() -> None:
    phone = make_phone()
    assert sh(phone, "input keyevent 4 KEYCODE_HOME ENTER 67 DEL FORWARD_DEL 29 z")[2] == 0
    codes = [(e["keycode"], e["name"]) for e in phone.events.list("key")]
    assert codes == [
        (4, "KEYCODE_BACK"),
        (3, "KEYCODE_HOME"),
        (66, "KEYCODE_ENTER"),
        (67, "KEYCODE_DEL"),
        (67, "KEYCODE_DEL"),
        (112, "KEYCODE_FORWARD_DEL"),
        (29, "KEYCODE_A"),
        (0, "KEYCODE_UNKNOWN"),
    ]
    sh(phone, "input keyevent --longpress POWER; input keyevent --doubletap 62")
    assert phone.events.list("key")[-3].detail == {
        "keycode": 26,
        "name": "KEYCODE_POWER",
        "longpress": True,
    }
    assert [e["keycode"] for e in phone.events.list("key")[-2:]] == [62, 62]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("BACK", 4),
        ("HOME", 3),
        ("ENTER", 66),
        ("DEL", 67),
        ("FORWARD_DEL", 112),
        ("TAB", 61),
        ("ESCAPE", 111),
        ("DPAD_UP", 19),
        ("DPAD_CENTER", 23),
        ("SPACE", 62),
        ("POWER", 26),
        ("VOLUME_UP", 24),
        ("VOLUME_DOWN", 25),
        ("APP_SWITCH", 187),
        ("MENU", 82),
        ("SEARCH", 84),
        ("CAMERA", 27),
        ("MOVE_HOME", 122),
        ("MOVE_END", 123),
        ("CTRL_LEFT", 113),
        ("A", 29),
        ("Z", 54),
        ("KEYCODE_0", 7),
        ("9", 9),
        ("0", 0),
        ("WAKEUP", 224),
        ("SLEEP", 223),
        ("NOTIFICATION", 83),
        ("KEYCODE_PASTE", 279),
        ("187", 187),
        ("home", 0),
        ("9999", 0),
    ],
)
def test_keycode_table(name: str, code: int) -> None:
    assert keycode_from_string(name) == code


def test_keycombination() -> None:
    phone = make_phone()
    assert sh(phone, "input keycombination CTRL_LEFT A")[2] == 0
    assert phone.events.list("key_combination")[0]["keycodes"] == [113, 29]
    _, err, status = sh(phone, "input keycombination CTRL_LEFT")
    assert status == 255 and "keycombination requires at least 2 keycodes" in err
    _, err, status = sh(phone, "input keycombination CTRL_LEFT NOPE")
    assert status == 255 and "Unknown keycode: NOPE" in err


# -- uiautomator -----


def test_dump_default_and_custom_paths() -> None:
    phone = make_phone()
    assert sh(phone, "uiautomator dump") == (
        "UI hierchary dumped to: /sdcard/window_dump.xml\n",
        "",
        0,
    )
    assert phone.fs.read("/sdcard/window_dump.xml") == phone.screens.dump_xml()
    assert sh(phone, "uiautomator dump /data/local/tmp/u.xml")[0] == (
        "UI hierchary dumped to: /data/local/tmp/u.xml\n"
    )
    assert [e.detail for e in phone.events.list("dump")] == [
        {"path": "/sdcard/window_dump.xml", "ok": True},
        {"path": "/data/local/tmp/u.xml", "ok": True},
    ]


def test_dump_to_dev_tty_fails_on_api_35_only() -> None:
    old = make_phone(api_level=34)
    out, _, _ = sh(old, "uiautomator dump /dev/tty")
    assert out == old.screens.dump_xml().decode() + "UI hierchary dumped to: /dev/tty\n"
    new = make_phone(api_level=35)
    assert sh(new, "uiautomator dump /dev/tty") == ("UI hierchary dumped to: /dev/tty\n", "", 0)
    assert new.events.list("dump")[0].detail == {"path": "/dev/tty", "ok": False}


def test_unwritable_dump_path_still_claims_success() -> None:
    phone = make_phone()
    assert sh(phone, "uiautomator dump /system/x.xml")[0] == (
        "UI hierchary dumped to: /system/x.xml\n"
    )
    assert not phone.fs.exists("/system/x.xml")


def test_compressed_dump_drops_unimportant_layouts() -> None:
    phone = make_phone()
    sh(phone, "uiautomator dump --compressed /sdcard/c.xml")
    xml = phone.fs.read("/sdcard/c.xml").decode()
    assert "LinearLayout" not in xml and "FrameLayout" not in xml
    assert 'text="Hello &amp; bye"' in xml and xml.startswith("<?xml version='1.0'")


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("idle", "ERROR: could not get idle state.\n"),
        ("null_root", "ERROR: null root node returned by UiTestAutomationBridge.\n"),
    ],
)
def test_dump_faults(fault: str, message: str) -> None:
    phone = make_phone()
    phone.faults.set(fault, times=2)
    for _ in range(2):
        assert sh(phone, "rm -f /sdcard/window_dump.xml; uiautomator dump") == ("", message, 0)
        assert not phone.fs.exists("/sdcard/window_dump.xml")
    assert sh(phone, "uiautomator dump")[0].startswith("UI hierchary dumped to:")
    assert [e["ok"] for e in phone.events.list("dump")] == [False, False, True]


def test_dump_busy_fault_and_delay() -> None:
    phone = make_phone()
    phone.faults.set("busy", times=1, delay_s=2.5)
    out, err, status = sh(phone, "uiautomator dump")
    assert (out, status) == ("", 137)
    assert (
        "java.lang.IllegalStateException: UiAutomationService android.accessibilityservice"
        ".IAccessibilityServiceClient$Stub$Proxy@" in err
    )
    assert "already registered!" in err and err.endswith("Killed\n")
    assert phone.clock.sleeps == [2.5]
    assert sh(phone, "uiautomator dump")[2] == 0


def test_dump_faults_forever() -> None:
    phone = make_phone()
    phone.faults.set("null_root")
    for _ in range(3):
        assert sh(phone, "uiautomator dump")[1].startswith("ERROR: null root node")
    with pytest.raises(ValueError):
        phone.faults.set("nope")


# -- screencap -----


def test_screencap_png_and_raw() -> None:
    phone = make_phone()
    out, err, status = phone.spawn("screencap -p").run()
    assert (out, err, status) == (PNG, b"", 0)
    phone.screens.width, phone.screens.height = 2, 1  # match the fake PNG
    raw, _, _ = phone.spawn("screencap").run()
    w, h, fmt, space = struct.unpack("<IIII", raw[:16])
    assert (w, h, fmt, space) == (2, 1, 1, 1)
    assert raw[16:] == bytes([255, 0, 0, 255, 0, 255, 0, 255])
    assert decode_png(PNG) == (2, 1, raw[16:])
    sh(phone, "screencap -p /sdcard/s.png; screencap /sdcard/s2.png")
    assert phone.fs.read("/sdcard/s.png") == PNG == phone.fs.read("/sdcard/s2.png")
    assert [e["path"] for e in phone.events.list("screencap")] == [
        None,
        None,
        "/storage/emulated/0/s.png",
        "/storage/emulated/0/s2.png",
    ]


def test_screencap_multiple_displays_warning_is_switchable() -> None:
    phone = make_phone()
    phone.multiple_displays = True
    out, err, _ = phone.spawn("screencap -p").run()
    assert out == PNG and err.startswith(b"[Warning] Multiple displays were found")
    out, err, _ = phone.spawn("screencap -d 0 -p").run()
    assert (out, err) == (PNG, b"")


# -- am / monkey / pm -----


def test_am_start_component_and_errors() -> None:
    phone = make_phone()
    assert sh(phone, "am start -n com.android.settings/.Settings") == (
        "Starting: Intent { cmp=com.android.settings/.Settings }\n",
        "",
        0,
    )
    assert phone.screens.current() == ("com.android.settings", "com.android.settings.Settings")
    start = phone.events.list("start")[0]
    assert start.detail == {
        "package": "com.android.settings",
        "activity": "com.android.settings.Settings",
        "action": None,
        "data": None,
    }
    out, err, status = sh(phone, "am start -n com.nope/.Main")
    assert (out, status) == ("Starting: Intent { cmp=com.nope/.Main }\n", 0)
    assert err == "Error type 3\nError: Activity class {com.nope/com.nope.Main} does not exist.\n"
    out, err, _ = sh(phone, "am start com.nope")
    assert out == (
        "Starting: Intent { act=android.intent.action.MAIN "
        "cat=[android.intent.category.LAUNCHER] pkg=com.nope }\n"
    )
    assert err == (
        "Error: Activity not started, unable to resolve Intent { "
        "act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] "
        "flg=0x10000000 pkg=com.nope }\n"
    )


def test_am_start_view_wait_and_extras() -> None:
    phone = make_phone()
    out, _, _ = sh(
        phone, "am start -W -a android.intent.action.VIEW -d 'https://example.com/a?b=c' --es k v"
    )
    assert out.splitlines()[0] == (
        "Starting: Intent { act=android.intent.action.VIEW "
        "dat=https://example.com/... (has extras) }"
    )
    assert "Status: ok" in out and "LaunchState: COLD" in out and out.endswith("Complete\n")
    assert phone.screens.calls[-1] == ("view", "https://example.com/a?b=c")
    out, err, _ = sh(phone, "am start -a android.intent.action.VIEW -d foo:bar")
    assert err.startswith(
        "Error: Activity not started, unable to resolve Intent { "
        "act=android.intent.action.VIEW dat=foo:bar flg=0x10000000 }"
    )
    _, err, status = sh(phone, "am start --bogus")
    assert status == 255 and "java.lang.IllegalArgumentException: Unknown option: --bogus" in err


def test_am_brought_to_front_force_stop_broadcast() -> None:
    phone = make_phone()
    sh(phone, "am start com.example.notes")
    _, err, _ = sh(phone, "am start com.example.notes")
    assert err == "Warning: Activity not started, its current task has been brought to the front\n"
    assert sh(phone, "pidof com.example.notes")[2] == 0
    assert sh(phone, "am force-stop com.example.notes") == ("", "", 0)
    assert phone.screens.current() == LAUNCHER
    assert sh(phone, "pidof com.example.notes")[2] == 1
    assert sh(phone, "am broadcast -a com.x.PING") == (
        "Broadcasting: Intent { act=com.x.PING flg=0x400000 }\nBroadcast completed: result=0\n",
        "",
        0,
    )


def test_monkey_launches_with_real_output() -> None:
    phone = make_phone()
    out, err, status = sh(
        phone, "monkey -p com.example.notes -c android.intent.category.LAUNCHER 1"
    )
    assert status == 0
    assert out.startswith("  bash arg: -p\n  bash arg: com.example.notes\n")
    assert "Events injected: 1\n## Network stats: elapsed time=" in out
    assert err.startswith(
        'args: [-p, com.example.notes, -c, android.intent.category.LAUNCHER, 1]\n arg: "-p"\n'
    )
    assert 'data="com.example.notes"' in err
    assert phone.screens.current()[0] == "com.example.notes"
    assert phone.events.list("start")[0]["package"] == "com.example.notes"
    out, _, status = sh(phone, "monkey -p com.nope -c android.intent.category.LAUNCHER 1")
    assert status == 252 and out.endswith("** No activities found to run, monkey aborted.\n")


def test_pm() -> None:
    phone = make_phone()
    assert sh(phone, "pm list packages -3")[0] == "package:com.example.notes\n"
    lines = sh(phone, "pm list packages")[0].splitlines()
    assert "package:com.android.settings" in lines and "package:android" in lines
    assert sh(phone, "cmd package list packages settings")[0] == (
        "package:com.android.settings\npackage:com.android.providers.settings\n"
    )
    assert sh(phone, "pm list packages -f notes")[0].startswith("package:/data/app/~~")
    assert sh(phone, "pm path com.example.notes")[0].endswith("/base.apk\n")
    assert sh(phone, "pm path com.nope") == ("", "", 1)
    assert sh(phone, "pm clear com.example.notes") == ("Success\n", "", 0)
    assert sh(phone, "pm grant com.example.notes android.permission.CAMERA")[2] == 0
    assert "Unknown package: com.nope" in sh(phone, "pm grant com.nope x.Y")[1]
    assert sh(phone, "pm resolve-activity --brief com.android.settings")[0].endswith(
        "com.android.settings/.Settings\n"
    )


# -- system state -----


def test_getprop_setprop() -> None:
    phone = make_phone()
    assert sh(phone, "getprop ro.build.version.sdk; getprop ro.build.version.release")[0] == (
        "35\n15\n"
    )
    assert sh(phone, "getprop no.such; getprop no.such dflt")[0] == "\ndflt\n"
    listing = sh(phone, "getprop")[0].splitlines()
    keys = [line.split("]: [")[0] for line in listing]
    assert keys == sorted(keys) and "[ro.product.model]: [Virtual Phone]" in listing
    assert sh(phone, "setprop debug.x 1; getprop debug.x")[0] == "1\n"
    out, err, status = sh(phone, "setprop ro.secure 0")
    assert status == 1 and "Failed to set property 'ro.secure' to '0'" in err
    assert make_phone(api_level=34).props["ro.build.version.release"] == "14"


def test_settings_wm_density() -> None:
    phone = make_phone()
    assert sh(phone, "settings get global window_animation_scale; settings get system nope")[0] == (
        "1.0\nnull\n"
    )
    sh(phone, "settings put secure my_key 'a b'")
    assert sh(phone, "settings get secure my_key")[0] == "a b\n"
    assert "my_key=a b\n" in sh(phone, "settings list secure")[0]
    assert sh(phone, "settings get bogus x")[2] == 255
    assert sh(phone, "wm size")[0] == "Physical size: 1080x2400\n"
    sh(phone, "wm size 720x1600")
    assert sh(phone, "wm size")[0] == "Physical size: 1080x2400\nOverride size: 720x1600\n"
    sh(phone, "wm size reset")
    assert (
        sh(phone, "wm size; wm density")[0] == "Physical size: 1080x2400\nPhysical density: 420\n"
    )


def test_dumpsys_window_activity_battery() -> None:
    phone = make_phone()
    sh(phone, "am start -n com.android.settings/.Settings")
    win = sh(phone, "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")[0].splitlines()
    assert len(win) == 2
    assert win[0].strip().startswith("mCurrentFocus=Window{")
    assert win[0].endswith(" u0 com.android.settings/com.android.settings.Settings}")
    assert " u0 com.android.settings/.Settings t" in win[1]
    displays = sh(phone, "dumpsys window displays")[0]
    assert "cur=1080x2400" in displays and "mCurrentFocus=" in displays
    act = sh(phone, "dumpsys activity activities")[0]
    assert "mResumedActivity: ActivityRecord{" in act and "topResumedActivity=" in act
    bat = sh(phone, "dumpsys battery")[0]
    assert bat.startswith("Current Battery Service state:\n  AC powered: false\n")
    assert "  level: 85\n" in bat
    assert sh(phone, "dumpsys nosuch") == ("", "Can't find service: nosuch\n", 0)


def test_logcat_shows_events_and_clears() -> None:
    phone = make_phone()
    sh(phone, "input tap 1 2")
    out = sh(phone, "logcat -d -s VirtualPhone")[0]
    assert out.startswith("--------- beginning of main\n")
    assert " I VirtualPhone: #" in out and "tap x=1 y=2" in out
    sh(phone, "log -t other hello")
    assert " other: hello" not in sh(phone, "logcat -d -s VirtualPhone")[0]
    assert " I other   : hello" in sh(phone, "logcat -d")[0]  # tags padded to 8
    assert "I/VirtualPhone( 1000): #" in sh(phone, "logcat -d -v brief VirtualPhone:I *:S")[0]
    assert sh(phone, "logcat -c") == ("", "", 0)
    after = sh(phone, "logcat -d")[0]
    assert after.startswith("--------- beginning of main\n") and "tap x=1" not in after
    assert len(phone.events) > 0  # the Python event log is kept


# -- toybox -----


def test_files() -> None:
    phone = make_phone()
    assert sh(phone, "mkdir -p /sdcard/a/b && touch /sdcard/a/b/f && ls /sdcard/a/b")[0] == "f\n"
    assert sh(phone, "mkdir /sdcard/a")[1] == "mkdir: '/sdcard/a': File exists\n"
    assert sh(phone, "rm /sdcard/nope") == ("", "rm: /sdcard/nope: No such file or directory\n", 1)
    assert sh(phone, "rm -f /sdcard/nope") == ("", "", 0)
    assert sh(phone, "rm /sdcard/a")[1] == "rm: /sdcard/a: Is a directory\n"
    assert sh(phone, "rm -rf /sdcard/a; ls /sdcard/a")[1] == (
        "ls: /sdcard/a: No such file or directory\n"
    )
    assert sh(phone, "cat /nope")[1] == "cat: /nope: No such file or directory\n"
    assert sh(phone, "echo hi | cat - ; pwd; cd /sdcard; pwd")[0] == "hi\n/\n/sdcard\n"
    assert sh(phone, "echo abc > /sdcard/f; stat -c %s /sdcard/f")[0] == "4\n"
    assert sh(phone, "ls -l /sdcard/f")[0].startswith("-rw-rw---- 1 ")
    assert sh(phone, "ls -a /data/local/tmp")[0] == ".\n..\n"


def test_text_tools() -> None:
    phone = make_phone()
    text = "alpha\nBeta\ngamma\n"
    sh(phone, f"printf '{text}' > /sdcard/t")
    assert sh(phone, "grep -i beta /sdcard/t")[0] == "Beta\n"
    assert sh(phone, "grep -v a /sdcard/t") == ("", "", 1)
    assert sh(phone, "grep -c a /sdcard/t")[0] == "3\n"
    assert sh(phone, "grep -E 'al|ga' /sdcard/t")[0] == "alpha\ngamma\n"
    assert sh(phone, "grep -q zzz /sdcard/t; echo $?")[0] == "1\n"
    assert sh(phone, "head -n 1 /sdcard/t; tail -n 1 /sdcard/t; head -2 /sdcard/t | wc -l")[0] == (
        "alpha\ngamma\n2\n"
    )
    assert sh(phone, "wc -l /sdcard/t; wc -c < /sdcard/t")[0] == "3 /sdcard/t\n17\n"
    assert sh(phone, "printf '%s=%d %x %5.1f|%-3s|\\n' a 42 255 3.14159 x")[0] == (
        "a=42 ff   3.1|x  |\n"
    )
    assert sh(phone, "printf '%s\\n' a b c")[0] == "a\nb\nc\n"


@settings(max_examples=examples(50), deadline=None)
@given(data=st.binary(max_size=200))
def test_base64_round_trip(data: bytes) -> None:
    phone = make_phone()
    phone.fs.write("/sdcard/bin", data)
    out, _, _ = phone.spawn("base64 /sdcard/bin").run()
    assert base64.b64decode(out.replace(b"\n", b"")) == data
    back, _, status = phone.spawn("base64 /sdcard/bin | base64 -d").run()
    assert (back, status) == (data, 0)


def test_identity_and_time() -> None:
    phone = make_phone()
    assert sh(phone, "whoami; id -u")[0] == "shell\n2000\n"
    assert sh(phone, "id")[0].startswith("uid=2000(shell) gid=2000(shell) groups=2000(shell),")
    assert sh(phone, "uname -m; uname")[0] == "aarch64\nLinux\n"
    assert sh(phone, "date +%s")[0] == f"{int(phone.clock.time())}\n"
    assert sh(phone, "true; echo $?; false; echo $?; /system/bin/true; echo $?")[0] == ("0\n1\n0\n")
    assert sh(phone, "test -d /sdcard && [ -e /sdcard/nope ] || echo no")[0] == "no\n"


def test_sleep_uses_the_clock() -> None:
    phone = make_phone()
    t0 = phone.clock.time()
    assert sh(phone, "sleep 0.5; sleep 1m; sleep 2s") == ("", "", 0)
    assert phone.clock.sleeps == [0.5, 60.0, 2.0]
    assert phone.clock.time() == t0 + 62.5
    assert sh(phone, "sleep abc")[2] == 1


def test_svc_cmd_ime() -> None:
    phone = make_phone()
    assert sh(phone, "cmd statusbar expand-notifications; cmd statusbar collapse") == ("", "", 0)
    assert sh(phone, "svc wifi disable; settings get global wifi_on")[0] == "0\n"
    assert sh(phone, "cmd nosuch") == ("", "cmd: Can't find service: nosuch\n", 20)
    assert sh(phone, "cmd input keyevent 4")[2] == 0
    assert phone.events.list("key")[-1]["keycode"] == 4
    assert "LatinIME" in sh(phone, "ime list -s")[0]


def test_ls_one_per_line_flag_and_type_suffixes():
    phone = make_phone()
    phone.fs.write("/data/local/tmp/a.txt", b"x")
    phone.fs.makedirs("/data/local/tmp/d")
    out, err, status = sh(phone, "ls -1 -A /data/local/tmp && ls -A1F /data/local/tmp")
    assert (out, err, status) == ("a.txt\nd\na.txt\nd/\n", "", 0)
    out, _, _ = sh(phone, "printf 'l1\\nl2\\n' > /data/local/tmp/n && head -1 /data/local/tmp/n")
    assert out == "l1\n"  # "-1" is still a count for head
