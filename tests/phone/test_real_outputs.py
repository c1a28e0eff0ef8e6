"""Every real output in ``shared/real-outputs`` read correctly through the **public API**.

The virtual phone is taught to answer the command with the real device's bytes
(:meth:`VirtualPhone.answer`), then the Page verb runs over the real ADB protocol and the
test checks what the MANIFEST notes say a correct reader gets: device_info, rotation,
foreground, the gestures' event device, list_files, read_log, list_apps / app_label /
find_app, uninstall, install, web discovery, intent, battery, snapshot failures, the
clipboard probe, and ``devices()`` for the adb server's list. One test per file.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator

import pytest

import baremobile
from baremobile import connect
from baremobile.errors import CommandFailed, DeviceNotIdle, NullRootNode, Unsupported
from baremobile.page import Page
from baremobile.virtual import VirtualPhone
from baremobile.virtual.apk import build_apk
from tests.conftest import free_port
from tests.real_outputs import sample


@pytest.fixture
def make(adb_key) -> Iterator:  # type: ignore[no-untyped-def]
    """``make(api_level=…, profile=…)`` → (phone, page); both closed after the test."""
    opened: list[tuple[VirtualPhone, Page]] = []

    def _make(**kw: object) -> tuple[VirtualPhone, Page]:
        phone = VirtualPhone(port=free_port(), browser=False, **kw).start()  # type: ignore[arg-type]
        page = connect(phone.address, keys=[adb_key])
        opened.append((phone, page))
        return phone, page

    yield _make
    for phone, page in opened:
        page.close()
        phone.stop()


# -- getprop, wm ---------------------------------------------------------------------------

GETPROP = {"getprop/001_poco-f6-peridot.txt": ("15", 35, "24069PC21I"),
           "getprop/002_huawei-g700.txt": ("4.4.2", 19, "G700-U20"),
           "getprop/004_oneplus-nord-billie.txt": ("11", 30, "BE2028"),
           "getprop/005_lg-v60-timelm.txt": ("11", 30, "LM-V600"),
           "getprop/007_asus-tf201-ics.txt": ("4.0.3", 15, "TF201"),
           "getprop/008_gwm-haval-headunit.txt": ("9", 28, "msmnile_gvmq for arm64")}


@pytest.mark.parametrize("name", sorted(GETPROP))
def test_getprop_through_device_info(make, name: str) -> None:
    phone, page = make()
    phone.answer(["getprop"], sample(name))
    info = page.device_info()
    assert (info["android"], info["api_level"], info["model"]) == GETPROP[name]


@pytest.mark.parametrize("name,size", [("wm-size/001_gekko-samsung-s24.txt", (1440, 3120)),
                                       ("wm-size/002_awesome-adb-override.txt", (480, 1024)),
                                       ("wm-size/003_maa-pr11516-physical.txt", (1080, 2400))])
def test_wm_size_through_device_info(make, name: str, size: tuple[int, int]) -> None:
    phone, page = make()
    phone.answer(["wm", "size"], sample(name))
    screen = page.device_info()["screen"]
    assert (screen["width"], screen["height"]) == size


def test_wm_density_through_device_info(make) -> None:
    phone, page = make()
    phone.answer(["wm", "density"], sample("wm-density/001_gekko-samsung-s24.txt"))
    assert page.device_info()["screen"]["density"] == 600


# -- dumpsys window ----------------------------------------------------------------------------

DISPLAYS = {"dumpsys-window-displays/001_awesome-adb.txt": ("portrait", 0, None),
            "dumpsys-window-displays/002_maa-pr11516-android13.txt": ("landscape", 0, None),
            "dumpsys-window-displays/004_u2-issue816-android12.txt":
                ("portrait", 0, ("org.codeaurora.snapcam", "com.android.camera.CameraLauncher"))}


@pytest.mark.parametrize("name", sorted(DISPLAYS))
def test_displays_through_rotation_and_foreground(make, name: str) -> None:
    phone, page = make()
    phone.answer(["dumpsys", "window"], sample(name))
    orientation, rotation, focus = DISPLAYS[name]
    turned = page.rotation()
    assert (turned["orientation"], turned["rotation"]) == (orientation, rotation)
    got = page.foreground()
    assert (got.package, got.activity) == focus if focus else got is None


@pytest.mark.parametrize("name,want", [
    ("dumpsys-window-focus/001_appium-adb-multiscreen-pr604.txt",
     ("eu.niko.smart.universal", "crc648a3abc16689e594e.MainActivity")),
    ("dumpsys-window-focus/003_u2-issue816-android12.txt",
     ("org.codeaurora.snapcam", "com.android.camera.CameraLauncher"))])
def test_focus_through_foreground(make, name: str, want: tuple[str, str]) -> None:
    phone, page = make()
    phone.answer(["dumpsys", "window"], sample(name))
    got = page.foreground()
    assert got is not None and (got.package, got.activity) == want


# -- getevent: the event device a multi-finger gesture writes ----------------------------------

GETEVENT = {"getevent-lp/001_backtap-chiron.txt": ("/dev/input/event1", 1079, 2159),
            "getevent-lp/003_touch-emulator-fts.txt": ("/dev/input/event1", 1080, 2400),
            "getevent-lp/004_scrcpy-fork-vivo-pad.txt": ("/dev/input/event6", 20639, 30959)}


@pytest.mark.parametrize("name", sorted(GETEVENT))
def test_getevent_through_a_pinch(make, name: str) -> None:
    phone, page = make(api_level=28)  # Android 9: no uinput, the shell may write the node
    phone.answer(["getevent"], sample(name))
    phone.answer(["sendevent"])  # the real device's node: accepted as a real one would
    since = phone.events.last_seq
    page.pinch((540, 1200), 1.5)
    path, xmax, ymax = GETEVENT[name]
    sent = [c for c in phone.events.commands(since=since) if c[0] == "sendevent"]
    assert sent and {c[1] for c in sent} == {path}
    xs = [int(c[4]) for c in sent if c[2:4] == ["3", str(0x35)]]
    ys = [int(c[4]) for c in sent if c[2:4] == ["3", str(0x36)]]
    assert xs and ys and all(0 <= x <= xmax for x in xs) and all(0 <= y <= ymax for y in ys)
    assert {c[4] for c in sent if c[2:4] == ["3", str(0x2F)]} == {"0", "1"}  # two slots
    # scaled to the panel: the centre of the 1080-wide screen is the middle of the axis
    assert abs(sum(xs) / len(xs) - xmax / 2) < xmax * 0.1


# -- ls -----------------------------------------------------------------------------------------


def test_ls_of_the_sdcard_link_lists_the_folder(make) -> None:
    phone, page = make()
    phone.answer(["ls", "-la", "/sdcard"], sample("ls-la/001_notes-pixel8-sdcard-link.txt"))
    assert "/sdcard -> /storage/self/primary" in page.shell("ls -la /sdcard")
    names = [e["name"] for e in page.list_files("/sdcard")["entries"]]
    assert "/sdcard" not in names and {"DCIM", "Download", "Pictures"} <= set(names)


@pytest.mark.parametrize("name,folder,want", [
    ("ls-la/002_notes-pixel8-storage-emulated.txt", "/storage/emulated",
     [("0", "directory"), ("obb", "directory")]),
    ("ls-la/006_jetbrains-ls-escapes.txt", "/sdcard/dir", [("dir with spaces", "directory")]),
])
def test_ls_through_list_files(make, name: str, folder: str, want: list) -> None:
    phone, page = make()
    phone.answer(["ls", "-la", folder + "/"], sample(name))
    got = page.list_files(folder)
    assert [(e["name"], e["type"]) for e in got["entries"]] == want and got["total"] == len(want)


def test_ls_of_system_through_list_files(make) -> None:
    phone, page = make()
    phone.answer(["ls", "-la", "/system/"], sample("ls-la/004_jetbrains-emu-api25-system.txt"))
    got = page.list_files("/system")
    assert got["total"] == 15  # . and .. left out
    assert got["entries"][-1] == {"name": "build.prop", "type": "file", "size": 2006,
                                  "modified": "2017-02-22 09:07", "mode": "-rw-r--r--"}
    assert all(e["type"] == "directory" for e in got["entries"][:-1])


# -- ps: web discovery -----------------------------------------------------------------------

_UNIX = ("Num       RefCount Protocol Flags    Type St Inode Path\n"
         "0000000000000000: 00000002 00000000 00010000 0001 01 40001 @webview_devtools_remote_{}\n"
         "0000000000000000: 00000002 00000000 00010000 0001 01 40002 @chrome_devtools_remote\n")


@pytest.mark.parametrize("name,webview,chrome", [
    ("ps-A/001_lumisky-xiaomi-courbet.txt", (23588, "com.google.android.webview"),
     (22718, "com.android.chrome")),
    ("ps-A/002_healer-mtk-tb8168.txt", (1, "init"), (None, ""))])
def test_ps_through_web_discovery(make, name: str, webview, chrome) -> None:
    from baremobile.web.discovery import discover

    phone, page = make()
    phone.answer(["ps"], sample(name))
    phone.answer(["cat", "/proc/net/unix"], _UNIX.format(webview[0]))
    found = {s.kind: (s.pid, s.package) for s in discover(page.shell)}
    assert found["webview"] == webview and found["chrome"] == chrome


# -- logcat --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["logcat-threadtime/001_decker-smart-surf2.txt",
                                  "logcat-threadtime/003_scrcpy-fork-vivo-system.txt",
                                  "logcat-threadtime/004_projet-nx-crlf.txt"])
def test_logcat_through_read_log(make, name: str) -> None:
    text = sample(name).decode("utf-8", "replace")
    rows = [ln.split() for ln in text.splitlines() if re.match(r"^\d\d-\d\d ", ln)]
    pid = int(rows[len(rows) // 2][2])
    want = sum(1 for r in rows if int(r[2]) == pid)
    # Android 6 has no --pid: the log is filtered on this computer, on each line's pid
    phone, page = make(api_level=23)
    phone.answer(["logcat"], sample(name))
    got = page.read_log(pid=pid, lines=100_000)["log"].splitlines()
    assert len(got) == want and all(int(ln.split()[2]) == pid for ln in got)
    # a package with two processes, on a current phone: filtered here too
    phone2, page2 = make()
    phone2.answer(["logcat"], sample(name))
    other = int(rows[0][2]) if int(rows[0][2]) != pid else int(rows[-1][2])
    phone2.answer(["pidof", "com.example.app"], f"{pid} {other}\n")
    both = page2.read_log(package="com.example.app", lines=100_000)
    assert both["pids"] == [pid, other]
    assert {int(ln.split()[2]) for ln in both["log"].splitlines()} == {pid, other}


# -- pm -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,status,reason", [
    ("pm-uninstall/001_adbgui-issue8-xiaomi.txt", 1, "DELETE_FAILED_INTERNAL_ERROR"),
    ("pm-uninstall/002_uad-issue251-s24-user0.txt", 0, None)])
def test_uninstall_answers(make, name: str, status: int, reason: str | None) -> None:
    phone, page = make()
    phone.answer(["pm", "uninstall"], sample(name), status=status)
    if reason is None:
        assert page.uninstall("com.microsoft.skydrive") == "Success"
        return
    with pytest.raises(CommandFailed) as err:
        page.uninstall("com.android.browser")
    assert reason in err.value.message and "system app" in (err.value.hint or "")


@pytest.mark.parametrize("name,reason", [
    ("pm-install/001_projet-nx-adb-install.txt", None),
    ("pm-install/002_awesome-adb-failure.txt", "INSTALL_FAILED_ALREADY_EXISTS")])
def test_install_answers(make, name: str, reason: str | None) -> None:
    phone, page = make()
    phone.answer(["pm", "install"], sample(name))
    apk = build_apk("com.example.x", "X", 1, "1.0", ".Main")
    if reason is None:
        assert "Success" in page.install(apk)
        return
    with pytest.raises(CommandFailed) as err:
        page.install(apk)
    assert reason in err.value.message


def test_pm_list_packages_through_list_apps(make) -> None:
    phone, page = make()
    phone.answer(["pm", "list", "packages"], sample("pm-list-packages/001_gwm-haval-headunit.txt"))
    names = {a.package for a in page.list_apps()}
    assert len(names) == 137 and "com.neusoft.na.navigation.skin.b03g.v17" in names
    with pytest.warns(DeprecationWarning):
        assert set(page.apps()) == names


def test_pm_path_through_app_label(make) -> None:
    phone, page = make()
    phone.answer(["pm", "path", "ecarx.weather"], sample("pm-path/001_awesome-adb-ecarx.txt"))
    phone.fs.install("/data/app/ecarx.weather-1.apk",
                     build_apk("ecarx.weather", "Weather", 3, "3.0", ".Main"))
    assert page.app_label("ecarx.weather") == "Weather"


@pytest.mark.parametrize("name", ["dumpsys-package/001_mvt-samsung.txt",
                                  "dumpsys-package/003_healer-mtk-tb8168.txt"])
def test_dumpsys_package_through_list_apps_versions(make, name: str) -> None:
    text = sample(name).decode()
    want: dict[str, str] = {}
    current = None
    for line in text.splitlines():  # the first versionName after each package header
        m = re.match(r"^  Package \[([^\]]+)\]", line)
        if m:
            current = m.group(1)
        elif current and current not in want and line.strip().startswith("versionName="):
            want[current] = line.strip()[len("versionName="):]
    phone, page = make()
    phone.answer(["dumpsys", "package"], sample(name))
    phone.answer(["pm", "list", "packages"],
                 "".join(f"package:/data/app/{p}/base.apk={p}\n" for p in want))
    got = {a.package: a.version_name for a in page.list_apps(versions=True)}
    assert got == want and len(got) in (2, 141)
    if "mvt" in name:
        assert got["com.samsung.android.provider.filterprovider"] == "5.0.07"


def test_resolve_activity_brief_through_find_app(make) -> None:
    phone, page = make()
    phone.answer(["cmd", "package", "query-activities"],
                 sample("cmd-package-query-activities/001_lumisky-resolve-activity.txt"))
    apk = "/data/app/com.example.lumisky-1/base.apk"
    phone.answer(["pm", "list", "packages", "-f"], f"package:{apk}=com.example.lumisky\n")
    phone.fs.install(apk, build_apk("com.example.lumisky", "Lumisky", 1, "1.0", ".MainActivity"))
    assert page.find_app("Lumisky") == "com.example.lumisky"


# -- am start ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["am-start/001_lumisky-xiaomi-courbet.txt",
                                  "am-start/003_lumisky-xiaomi-courbet-W-cold.txt",
                                  "am-start/004_blognotes-issue62-warning.txt"])
def test_am_start_success_through_intent(make, name: str) -> None:
    phone, page = make()
    phone.answer(["am", "start"], sample(name))
    assert page.intent(component="com.example.lumisky/.MainActivity").startswith("Starting:")


def test_am_start_failure_keeps_the_reason(make) -> None:
    phone, page = make()
    phone.answer(["am", "start"],
                 sample("am-start/006_zhihudaily-issue27-genymotion-error.txt"))
    with pytest.raises(CommandFailed) as err:
        page.intent(component="com.rctzhihudaily/.MainActivity")
    assert "Activity class {com.rctzhihudaily/com.rctzhihudaily.MainActivity} does not exist" \
        in err.value.message and "Error type" not in err.value.message


# -- battery, dump status, clipboard ---------------------------------------------------------


@pytest.mark.parametrize("name,level,temp", [
    ("dumpsys-battery/001_gekko-samsung-s24.txt", 75, 35.7),
    ("dumpsys-battery/002_awesome-adb.txt", 44, 28.0)])
def test_battery(make, name: str, level: int, temp: float) -> None:
    phone, page = make()
    phone.answer(["dumpsys", "battery"], sample(name))
    assert page.battery() == {"level": level, "status": "charging", "charging": True,
                              "plugged": ["usb"], "temperature_c": temp}


@pytest.mark.parametrize("name,error", [
    ("uiautomator-dump-status/001_appagent-issue39.txt", DeviceNotIdle),
    ("uiautomator-dump-status/002_androidviewclient-issue257.txt", NullRootNode)])
def test_dump_status_through_snapshot(make, name: str, error: type) -> None:
    phone, page = make()
    phone.answer(["uiautomator", "dump"], sample(name))
    with pytest.raises(error):
        page.snapshot()


def test_clipboard_answer_through_get_clipboard(make) -> None:
    phone, page = make()
    phone.answer(["cmd", "clipboard"],
                 sample("cmd-clipboard-help/001_agent-device-pr2676-android16.txt"))
    with pytest.raises(Unsupported) as err:
        page.get_clipboard()
    assert "no shell command" in err.value.message


# -- the adb server's device list ------------------------------------------------------------


class _FakeAdbServer:
    """An adb server that answers ``host:devices-l`` with given bytes (the smart-socket
    protocol: 4 hex digits of length, the request; OKAY, 4 hex digits, the payload)."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    n = int(conn.recv(4), 16)
                    request = conn.recv(n).decode()
                except (OSError, ValueError):
                    continue
                if request == "host:devices-l":
                    conn.sendall(b"OKAY" + f"{len(self.payload):04x}".encode() + self.payload)
                else:
                    msg = b"unknown request"
                    conn.sendall(b"FAIL" + f"{len(msg):04x}".encode() + msg)

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("name,want", [
    ("adb-devices-l/001_lumisky-xiaomi-courbet.txt", [("6563c026", "device", "M2101K9AG")]),
    ("adb-devices-l/003_awesome-adb.txt",
     [("cf264b8f", "device", ""), ("emulator-5554", "device", ""),
      ("10.129.164.6:5555", "device", "")])])
def test_adb_list_through_devices(monkeypatch, name: str, want: list) -> None:
    server = _FakeAdbServer(sample(name))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
    try:
        found = [(d.serial, d.state, d.model) for d in baremobile.devices()
                 if d.kind != "virtual"]
    finally:
        server.close()
    assert found == want
