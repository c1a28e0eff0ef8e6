"""``dumpsys``: the services' state as their ``dump()`` methods print it (window, activity,
battery, package, display, input_method, power).

``dumpsys input_method`` follows ``InputMethodManagerService.dump`` and, for the app that
holds the input connection, ``InputMethodManager.dump``, by API level: the client's
``mCurrentTextBoxAttribute:`` is ``mCurrentEditorInfo:`` from 33, its
``mServedInputConnectionWrapper=`` is ``mServedInputConnection=RemoteInputConnectionImpl{…}``
from 31, ``mCurFocusedWindow`` shows the soft input mode and client from 26, and
``mInputShown`` has its own line from 34 (``ImeVisibilityStateComputer``)."""

from __future__ import annotations

import posixpath
import zlib
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from baremobile.virtual.commands.intents import apk_path, packages, qualify, short_component
from baremobile.virtual.commands.registry import command
from baremobile.virtual.identity import app_uid
from baremobile.virtual.shell.process import Proc, err, out

if TYPE_CHECKING:  # the screen model is a room above the shell's commands
    from baremobile.virtual.screens.screen_model import InputField, InputState

Gen = Generator[tuple[int, bytes], None, int]


# -- dumpsys ----------------------------------------------------------------------------------

_IME = "com.android.inputmethod.latin/.LatinIME"


def _editor_info(api: int, field: InputField | None, pkg: str, indent: str) -> list[str]:
    """``EditorInfo.dump``: the served field's attributes (``TYPE_NULL`` for a window root)."""
    if field is None:
        itype, ime, hint, fid, sel = 0, 0, "null", -1, -1
    else:
        itype = 0xA1 if field["web"] else 0x81 if field["password"] else 0x1
        ime, hint = 0x6 if not field["web"] else 0x2000000, field["hint"] or "null"
        fid = 0x7F0A0000 + zlib.crc32(field["rid"].encode()) % 0x1000
        sel = len(field["value"])
    out = [f"{indent}inputType=0x{itype:x} imeOptions=0x{ime:x} privateImeOptions=null",
           f"{indent}actionLabel=null actionId=0",
           f"{indent}initialSelStart={sel} initialSelEnd={sel} initialCapsMode=0x0",
           f"{indent}hintText={hint} label=null"]
    auto = f" autofillId={1073741824 + (fid & 0xFF)}" if api >= 29 else ""
    out += [f"{indent}packageName={pkg}{auto} fieldId={fid} fieldName=null",
            f"{indent}extras=null"]
    if api >= 24:
        out.append(f"{indent}hintLocales=null")
    if api >= 25:
        out.append(f"{indent}contentMimeTypes=null")
    return out


def _dumpsys_input_method(p: Proc) -> str:
    api = p.api_level
    state_of = getattr(p.model.screens, "input_state", None)
    st: InputState = state_of() if state_of is not None else {
        "package": "", "activity": "", "field": None, "shown": False, "screen_on": True}
    pkg, act, field, shown = st["package"], st["activity"], st["field"], st["shown"]
    act_short = act.rsplit(".", 1)[-1] if act else "Activity"
    h = _hash8(pkg + act)
    uid = app_uid(pkg)
    pid = p.model.mark_running(pkg) if pkg else 0  # the focused app has a process
    client = (f"ClientState{{{_hash8(pkg)} mUid={uid} mPid={pid} mSelfReportedDisplayId=0}}"
              if api >= 33 else f"ClientState{{{_hash8(pkg)} uid {uid} pid {pid}}}")
    win = f"Window{{{h} u0 {pkg}/{act}}}" if api >= 30 else f"android.os.BinderProxy@{h}"
    soft = "STATE_UNSPECIFIED|ADJUST_RESIZE|IS_FORWARD_NAVIGATION"
    lines = ["Current Input Method Manager state:",
             "  Input Methods: mMethodMapUpdateCount=3"
             + (" mBindInstantServiceAllowed=false" if api >= 28 else ""),
             "  InputMethod #0:",
             f"    mId={_IME} mSettingsActivityName=com.android.inputmethod.latin.settings."
             "SettingsActivity" + (" mIsVrOnly=false" if api >= 26 else "")
             + " mSupportsSwitchingToNextInputMethod=true",
             "  Clients:",
             f"  Client {client}:",
             f"    client=com.android.internal.view.IInputMethodClient$Stub$Proxy@{_hash8(pkg)}",
             "    sessionRequested=false",
             f"  mCurMethodId={_IME}"]
    if api >= 33:
        lines.append(f"  mCurSeq=5 mCurClient={client}")
    else:
        lines.append(f"  mCurClient={client} mCurSeq=5")
    if api >= 26:
        lines.append(f"  mCurFocusedWindow={win} softInputMode={soft} client={client}")
        lines.append(f"  mCurFocusedWindowClient={client}")
    else:
        lines.append(f"  mCurFocusedWindow={win}")
    lines += [f"  mCurId={_IME} mHaveConnection=true mBoundToMethod=true"
              + (" mVisibleBound=" + str(shown).lower() if api >= 30 else ""),
              f"  mCurToken=android.os.Binder@{_hash8('token')}",
              "  mCurIntent=Intent { act=android.view.InputMethod "
              "cmp=com.android.inputmethod.latin/.LatinIME }",
              f"  mCurMethod=com.android.internal.inputmethod.IInputMethod$Stub$Proxy@"
              f"{_hash8('method')}"]
    flag = str(shown).lower()
    if api >= 34:
        lines += [f"  mShowRequested={flag} mShowExplicitlyRequested=false mShowForced=false",
                  f"  mInputShown={flag}"]
    else:
        lines.append(f"  mShowRequested={flag} mShowExplicitlyRequested=false "
                     f"mShowForced=false mInputShown={flag}")
    lines += ["  mInFullscreenMode=false", "  mSystemReady=true mInteractive="
              + str(st["screen_on"]).lower(), " "]
    # the client's own state, as its InputMethodManager dumps it
    served = "null"
    if st["screen_on"]:
        if field is None:
            served = f"DecorView@{_hash8(act)}[{act_short}]"
        else:
            cls = field["cls"]
            rid = f" {field['rid']}" if field["rid"] else ""
            served = f"{cls}{{{_hash8(field['rid'] or cls)} VFED..CL. .F...... 0,0-1080,140{rid}}}"
    lines += [f"Input method client state for android.view.inputmethod.InputMethodManager@"
              f"{_hash8(pkg + 'imm')}:",
              f"  mActive=true mRestartOnNextWindowFocus=false mBindSequence=5 mCurId={_IME}",
              "  mFullscreenMode=false",
              f"  mCurRootView=DecorView@{_hash8(act)}[{act_short}]",
              f"  mServedView={served}",
              "  mNextServedView=" + served,
              "  mServedConnecting=false"]
    name = "mCurrentEditorInfo" if api >= 33 else "mCurrentTextBoxAttribute"
    if served == "null":
        lines.append(f"  {name}: null")
    else:
        lines.append(f"  {name}:")
        lines += _editor_info(api, field, pkg, "    ")
    if api >= 31:
        conn = (f"RemoteInputConnectionImpl{{connection=android.view.inputmethod."
                f"EditableInputConnection@{_hash8(pkg + 'ic')} mDeactivateRequested=false}}"
                if field is not None else "null")
        lines += [f"  mServedInputConnection={conn}", "  mServedInputConnectionHandler=null"]
    else:
        conn = (f"android.view.inputmethod.InputMethodManager$ControlledInputConnectionWrapper@"
                f"{_hash8(pkg + 'ic')}" if field is not None else "null")
        lines.append(f"  mServedInputConnectionWrapper={conn}")
    sel = len(field["value"]) if field is not None else 0
    lines += ["  mCompletions=null", "  mCursorRect=Rect(0, 0 - 0, 0)",
              f"  mCursorSelStart={sel} mCursorSelEnd={sel} mCursorCandStart=-1 "
              "mCursorCandEnd=-1", " ",
              f"Input method service state for com.android.inputmethod.latin.LatinIME@"
              f"{_hash8('ime')}:",
              "  mWindowCreated=true mWindowAdded=true",
              f"  mWindowVisible={flag} mWindowWasVisible={flag} mInShowWindow=false",
              f"  mInputStarted=true mInputViewStarted={flag} mCandidatesViewStarted=false",
              "  mInputEditorInfo:"]
    lines += _editor_info(api, field, pkg, "    ")
    lines += [f"  mShowInputRequested={flag} mLastShowInputRequested={flag} "
              "mShowInputFlags=0x0",
              f"  mIsInputViewShown={flag} mStatusIcon=0"]
    return "\n".join(lines) + "\n"



def _hash8(text: str) -> str:
    return format(zlib.crc32(text.encode()) & 0xFFFFFFF, "07x")


def _focus(model: Any) -> tuple[str, str]:
    pkg, act = model.screens.current()
    return pkg, qualify(pkg, act) if act else act


def _second_display(model: Any, modern: bool) -> list[str]:
    """The block of a profile's second display (a cover screen: it comes first, as
    ``DisplayContent``s are listed in the order they were added to the root)."""
    d = model.profile.second_display
    if d is None:
        return []
    record = f"ActivityRecord{{{_hash8(d.focused_app)} u0 {d.focused_app} t9}}"
    return [f"  Display: mDisplayId={d.display_id}" + (" rootTasks=1" if modern else ""),
            f"    init={d.width}x{d.height} {d.density}dpi cur={d.width}x{d.height} "
            f"app={d.width}x{d.height} rng={d.width}x{d.width}-{d.height}x{d.height}",
            "    deferred=false mLayoutNeeded=false", "",
            "    mCurrentFocus=null", f"    mFocusedApp={record}",
            "    mRotation=0 mDeferredRotationPauseCount=0", ""]


def _dumpsys_window(p: Proc, what: str) -> str:
    """``dumpsys window [displays|windows]`` in the layout of the phone's API level:
    Android 10+ prints focus and rotation in each display's block (``DisplayContent``,
    ``DisplayRotation``); Android ≤ 9 the rotation in the window manager's own dump and the
    focused app as an ``AppWindowToken``."""
    model = p.model
    modern = p.api_level >= 29
    pkg, act = _focus(model)
    w, h = model.display_size()
    density = int(getattr(model.screens, "density", 420))
    short = short_component(pkg, act)
    win = f"Window{{{_hash8(pkg + act)} u0 {pkg}/{act}}}"
    record = f"ActivityRecord{{{_hash8(act)} u0 {short} t{_task(pkg)}}}"
    if not modern:
        record = (f"AppWindowToken{{{_hash8(act + 'w')} token=Token{{{_hash8(act + 't')} "
                  f"{record}}}}}")
    rot = model.surface_rotation()
    cw, ch = (h, w) if rot % 2 else (w, h)
    system = model.settings["system"]
    free = system.get("accelerometer_rotation", "1") != "0"
    user = system.get("user_rotation", "0")
    header = "  Display: mDisplayId=0" + (" rootTasks=1" if modern else "")
    display = [
        "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
        *_second_display(model, modern),
        header,
        f"    init={w}x{h} {density}dpi cur={cw}x{ch} app={cw}x{ch - 63} "
        f"rng={min(w, h)}x{min(w, h) - 63}-{max(w, h)}x{max(w, h) - 63}",
        "    deferred=false mLayoutNeeded=false" + (
            f" mTouchExcludeRegion=SkRegion((0,0,{cw},{ch}))" if modern else ""),
    ]
    if modern:
        display += [
            "",
            f"    mCurrentFocus={win}",
            f"    mFocusedApp={record}",
            f"    mRotation={rot} mDeferredRotationPauseCount=0",
            f"    mUserRotationMode=USER_ROTATION_{'FREE' if free else 'LOCKED'} "
            f"mUserRotation=ROTATION_{(int(user) % 4) * 90 if user.isdigit() else 0}",
            "    mLastOrientation=-1",
        ]
    if what == "displays":
        return "\n".join(display) + "\n"
    windows = [
        "WINDOW MANAGER WINDOWS (dumpsys window windows)",
        f"  Window #0 {win}:",
        f"    mDisplayId=0 rootTaskId={_task(pkg)} mSession=Session{{{_hash8(pkg)} 1234:u0a10123}}",
        f"    mOwnerUid=10123 showForAllUsers=false package={pkg} appop=NONE",
        "    mAttrs={(0,0)(fillxfill) sim={adjust=pan} ty=BASE_APPLICATION}",
        f"    mActivityRecord={record}",
        "    isOnScreen=true",
        "    isVisible=true",
        "",
        f"  mCurrentFocus={win}",
        f"  mFocusedApp={record}",
        "  mInputMethodWindow=null",
        "  mHoldScreenWindow=null",
    ]
    if what == "windows":
        return "\n".join(windows) + "\n"
    policy = ["WINDOW MANAGER POLICY STATE (dumpsys window policy)",
              "    mScreenOnEarly=true mScreenOnFully=true",
              "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true",
              "    isKeyguardShowing=false"]
    if not modern:  # WindowManagerService.dumpWindowsNoHeaderLocked's rotation line
        windows += [f"  mRotation={rot} mAltOrientation=false",
                    "  mLastWindowForcedOrientation=-1 mForcedAppOrientation=-1"]
    main = display.index(header)
    display = display[:main] + [ln for ln in display[main:]
                                if "mCurrentFocus" not in ln and "mFocusedApp" not in ln]
    if not modern:  # WindowManagerService.doDump: policy, display contents, windows
        return "\n".join(policy + [""] + display + [""] + windows) + "\n"
    return "\n".join(windows + [""] + display + [""] + policy) + "\n"


def _task(pkg: str) -> int:
    return 10 + zlib.crc32(pkg.encode()) % 90


def _dumpsys_activity(p: Proc, what: str) -> str:
    pkg, act = _focus(p.model)
    short = short_component(pkg, act)
    record = f"ActivityRecord{{{_hash8(act)} u0 {short} t{_task(pkg)}}}"
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
        f"  * Task{{{_hash8(pkg)} #{_task(pkg)} type=standard A=10123:{pkg} U=0 visible=true "
        f"visibleRequested=true mode=fullscreen translucent=false sz=1}}",
        f"    mResumedActivity: {record}",
        f"    * Hist  #0: {record}",
        f"        packageName={pkg} processName={pkg}",
        "        launchedFromUid=2000 launchedFromPackage=com.android.shell userId=0",
        f"        intent={{act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER]"
        f" flg=0x10200000 cmp={short}}}",
        "",
        f"  ResumedActivity: {record}",
        "",
        f"  topResumedActivity={record}",
        f"  mFocusedApp={record}",
    ]
    if what == "top":
        return (f"TASK {pkg} id={_task(pkg)} userId=0\n  ACTIVITY {short} {_hash8(act)} "
                f"pid={p.model.mark_running(pkg)}\n")
    return "\n".join(lines) + "\n"


def _dumpsys_battery(p: Proc, rest: list[str]) -> Gen:
    """``dumpsys battery [set FIELD VALUE | unplug | reset]`` as ``BatteryService``
    answers: the state (lines by API level), or a change that stops real updates until
    ``reset``."""
    b = p.model.battery
    if rest:
        verb = rest[0]
        fields = {"level": "level", "status": "status", "ac": "ac", "usb": "usb",
                  "wireless": "wireless", "temp": "temperature", "present": None,
                  "counter": None, "invalid": None}
        if verb == "unplug":
            b.ac = b.usb = b.wireless = False
            b.frozen = True
            return 0
        if verb == "reset":
            p.model.battery = type(b)()
            return 0
        if verb == "set" and len(rest) == 3 and rest[1] in fields:
            try:
                value = int(rest[2])
            except ValueError:
                yield out(f"Bad value: {rest[2]}\n")
                return 255
            attr = fields[rest[1]]
            if attr is not None:
                setattr(b, attr, bool(value) if attr in ("ac", "usb", "wireless") else value)
            b.frozen = True
            return 0
        yield out("Battery service (battery) commands:\n  help\n    Print this help text.\n"
                  "  get [-f] [ac|usb|wireless|dock|status|level|temp|present|counter|invalid]"
                  "\n  set [-f] [ac|usb|wireless|dock|status|level|temp|present|counter|"
                  "invalid] <value>\n    Force a battery property value, freezing battery "
                  "state.\n  unplug [-f]\n    Force battery unplugged, freezing battery "
                  "state.\n  reset [-f]\n    Unfreeze battery state, returning to current "
                  "hardware values.\n")
        return 0 if verb in ("help", "-h") else 255
    api = p.api_level
    lines = ["Current Battery Service state:"]
    if b.frozen:
        lines.append("  (UPDATES STOPPED -- use 'reset' to restart)")
    lines += [f"  AC powered: {str(b.ac).lower()}", f"  USB powered: {str(b.usb).lower()}",
              f"  Wireless powered: {str(b.wireless).lower()}"]
    if api >= 33:
        lines.append("  Dock powered: false")
    if api >= 24:  # BatteryService prints the charger's limits from Android 7 on
        lines += ["  Max charging current: 500000", "  Max charging voltage: 5000000",
                  f"  Charge counter: {b.level * 45330}"]
    lines += [f"  status: {b.status}",
              f"  health: {b.health}", "  present: true", f"  level: {b.level}",
              "  scale: 100", f"  voltage: {b.voltage}", f"  temperature: {b.temperature}",
              "  technology: Li-ion"]
    if api >= 34:
        lines += [f"  Charging state: {1 if b.status == 2 else 0}", "  Charging policy: 1"]
    if api >= 35:
        lines.append("  Capacity level: 4")
    yield out("\n".join(lines) + "\n")
    return 0


def _dumpsys_package(p: Proc, name: str | None) -> str:
    if name == "packages":  # the section with every package
        name = None
    rows = [pk for pk in packages(p.model) if name is None or pk.name == name]
    if not rows:
        return f"Unable to find package: {name}\n" if name else ""
    lines = ["Packages:"]
    for pk in rows:
        lines += [
            f"  Package [{pk.name}] ({_hash8(pk.name)}):",
            f"    codePath={posixpath.dirname(apk_path(pk))}",
            f"    versionCode={pk.version_code} minSdk=28 targetSdk={p.api_level}",
            f"    versionName={pk.version_name}",
            f"    flags=[ {'SYSTEM ' if pk.system else ''}HAS_CODE ALLOW_CLEAR_USER_DATA ]",
        ]
        if pk.launcher:
            comp = short_component(pk.name, qualify(pk.name, pk.launcher))
            lines += ["    Activity Resolver Table:", f"      {_hash8(comp)} {comp} filter"]
    return "\n".join(lines) + "\n"


@command("dumpsys")
def dumpsys(p: Proc) -> Gen:
    args = p.argv[1:]
    if not args:
        yield out("Currently running services:\n  activity\n  battery\n  input_method\n"
                  "  package\n  power\n  window\n")
        return 0
    service, rest = args[0], args[1:]
    what = rest[0] if rest and not rest[0].startswith("-") else ""
    if service == "window":
        yield out(_dumpsys_window(p, what))
    elif service == "activity":
        yield out(_dumpsys_activity(p, what))
    elif service == "battery":
        return (yield from _dumpsys_battery(p, rest))
    elif service == "package":
        yield out(_dumpsys_package(p, what or None))
    elif service == "input_method":
        yield out(_dumpsys_input_method(p))
    elif service == "power":
        yield out("POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n"
                  "  mWakefulnessChanging=false\n  mIsPowered=true\n  mHoldingDisplaySuspendBlocker"
                  "=true\n  Display Power: state=ON\n")
    elif service == "display":
        w, h = p.model.display_size()
        rot = p.model.surface_rotation()
        cw, ch = (h, w) if rot % 2 else (w, h)
        yield out(f"DISPLAY MANAGER (dumpsys display)\n  mDefaultDisplayId=0\n"
                  f"  mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real "
                  f"{w} x {h}, largest app {h} x {h}, smallest app {w} x {w}, rotation 0, "
                  f"state ON}}\n"
                  f"  mOverrideDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real "
                  f"{cw} x {ch}, largest app {h} x {h}, smallest app {w} x {w}, rotation "
                  f"{rot}, state ON}}\n")
    elif service in ("meminfo", "cpuinfo", "gfxinfo", "notification", "audio", "wifi",
                     "connectivity", "SurfaceFlinger", "alarm", "usagestats"):
        yield out(f"(dumpsys {service}: not simulated by the virtual phone)\n")
    else:
        yield err(f"Can't find service: {service}\n")
    return 0
