"""``dumpsys input_method``: the parser (``baremobile/android/input_method.py``), the virtual
phone's output by API level, and ``Device.input_target`` over the real ADB protocol.

The fragments below follow the lines AOSP's dump code prints (``InputMethodManagerService``
and, through the client's binder, ``InputMethodManager.dump``; ``EditorInfo.dump``): the
field names and their order by version, with values of our own. Real outputs, when the
shared folder has them (``../shared/real-outputs/dumpsys-input-method/``), are read too.
"""

from __future__ import annotations

import pytest

from baremobile import connect
from baremobile.android.input_method import GREP_PATTERN, parse_input_target
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.real_outputs import real_outputs_dir

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)

REAL = real_outputs_dir() / "dumpsys-input-method"

SERVICE = """Current Input Method Manager state:
  mCurMethodId=com.example.ime/.Ime
  mCurClient=ClientState{1a2b3c4 uid 10080 pid 4242} mCurSeq=12
  mShowRequested=true mShowExplicitlyRequested=false mShowForced=false mInputShown={shown}
""" + " \n"  # AOSP prints a line of one space between the sections

CLIENT_OLD = """Input method client state for android.view.inputmethod.InputMethodManager@5d6e7f8:
  mActive=true mRestartOnNextWindowFocus=false mBindSequence=12 mCurId=com.example.ime/.Ime
  mCurRootView=DecorView@9a8b7c6[MainActivity]
  mServedView={view}
  mNextServedView={view}
  mServedConnecting=false
{editor}  mServedInputConnectionWrapper={conn}
  mCompletions=null
{blank}
Input method service state for com.example.ime.Ime@1234567:
  mInputEditorInfo:
    inputType=0x1 imeOptions=0x6 privateImeOptions=null
    hintText=Leftover label=null
"""

EDITOR_INFO = """  {name}:
    inputType={itype} imeOptions=0x3 privateImeOptions=null
    actionLabel=null actionId=0
    initialSelStart=0 initialSelEnd=0 initialCapsMode=0x0
    hintText={hint} label=null
    packageName=com.example.app fieldId=2131230874 fieldName=null
    extras=null
"""


def fill(template: str, **values: str) -> str:
    """``template`` with its ``{name}`` slots filled (the dumps hold braces of their own)."""
    for k, v in values.items():
        template = template.replace("{" + k + "}", v)
    return template


def _client(view: str, itype: str | None, conn: str, *, name: str = "mCurrentTextBoxAttribute",
            hint: str = "Search") -> str:
    editor = f"  {name}: null\n" if itype is None else fill(EDITOR_INFO, name=name,
                                                             itype=itype, hint=hint)
    return fill(CLIENT_OLD, view=view, editor=editor, conn=conn, blank=" ")


def test_a_focused_text_field_takes_text():
    text = fill(SERVICE, shown="true") + _client(
        "android.widget.EditText{c0ffee VFED..CL. .F...... 0,0-900,140 #7f0a0123 "
        "app:id/search}", "0x1", "android.view.inputmethod.InputMethodManager$"
        "ControlledInputConnectionWrapper@42")
    t = parse_input_target(text)
    assert t.editor and t.known and t.shown is True
    assert t.input_type == 1 and t.hint == "Search" and t.package == "com.example.app"
    assert "EditText" in t.served_view


def test_a_window_root_or_a_button_takes_no_text():
    for view, itype, conn in (("DecorView@9a8b7c6[MainActivity]", "0x0", "null"),
                              ("null", None, "null"),
                              ("android.widget.Button{1 VFED..C.. ......ID 0,0-9,9}", "0x0",
                               "null")):
        t = parse_input_target(fill(SERVICE, shown="false") + _client(view, itype, conn))
        assert not t.editor and t.known and t.shown is False and t.input_type == 0


def test_an_editor_info_without_a_connection_is_not_a_field():
    t = parse_input_target(fill(SERVICE, shown="false") + _client(
        "android.widget.EditText{1}", "0x1", "null"))
    assert not t.editor and t.input_type == 1


def test_android_12_and_13_names():
    """Android 12: ``mServedInputConnection=RemoteInputConnectionImpl{…}`` (and a
    ``…Handler=`` line after it); Android 13: ``mCurrentEditorInfo:``."""
    conn12 = "RemoteInputConnectionImpl{connection=android.widget.EditText$1@5 finished=false}"
    for name in ("mCurrentTextBoxAttribute", "mCurrentEditorInfo"):
        client = _client("android.widget.EditText{2}", "0x21", "", name=name).replace(
            "  mServedInputConnectionWrapper=\n",
            f"  mServedInputConnection={conn12}\n  mServedInputConnectionHandler=null\n")
        t = parse_input_target(fill(SERVICE, shown="true") + client)
        assert t.editor and t.input_type == 0x21, name
        closed = client.replace(conn12, "null")
        assert not parse_input_target(fill(SERVICE, shown="true") + closed).editor


def test_the_focused_windows_client_counts_when_it_is_not_the_current_one():
    """Android 11+: when the focused window did not start input, the service warns and dumps
    that window's client after the current one: keys go to the focused window."""
    field = _client("android.widget.EditText{3}", "0x1", "Wrapper@1")
    root = _client("DecorView@1[Dialog]", "0x0", "null")
    warning = ("Warning: Current input method client doesn't match the last focused. window.\n"
               "Dumping input method client in the last focused window just in case.\n \n")
    text = fill(SERVICE, shown="true") + field.split("Input method service")[0] + warning + root
    assert not parse_input_target(text).editor
    assert parse_input_target(fill(SERVICE, shown="true") + field).editor


def test_a_dump_that_says_nothing_usable():
    t = parse_input_target("mInputShown=true\n")
    assert not t.editor and not t.known and t.shown is True
    t = parse_input_target("")
    assert not t.editor and not t.known and t.shown is None
    # hostile or cut text does not raise
    assert not parse_input_target("Input method client state for x:\n  inputType=0xzz\n").editor


def test_the_device_side_filter_keeps_what_the_parser_reads():
    import re

    text = fill(SERVICE, shown="true") + _client("android.widget.EditText{4}", "0x1", "W@1")
    kept = "\n".join(ln for ln in text.split("\n") if re.search(GREP_PATTERN, ln))
    assert parse_input_target(kept) == parse_input_target(text)
    assert "mCompletions" not in kept and "imeOptions" in kept  # inputType's line


@pytest.mark.parametrize("api", [24, 28, 30, 31, 33, 35])
def test_the_virtual_phone_prints_it_as_each_android_does(adb_key, api):
    with VirtualPhone(port=free_port(), api_level=api) as phone, \
            connect(phone.address, keys=[adb_key]) as page:
        page.launch("com.android.settings")
        whole = page.shell("dumpsys input_method")
        assert whole.startswith("Current Input Method Manager state:\n")
        assert ("mCurrentEditorInfo:" in whole) == (api >= 33)
        assert ("mCurrentTextBoxAttribute:" in whole) == (api < 33)
        assert ("mServedInputConnection=" in whole) == (api >= 31)
        assert ("mServedInputConnectionWrapper=" in whole) == (api < 31)
        assert ("\n  mInputShown=" in whole) == (api >= 34)  # its own line from Android 14
        t = page.device.input_target()  # the settings home: no field has focus
        assert t.known and not t.editor and t.served_view.startswith("DecorView@")
        page.tap({"text": "Search Settings"})  # the search screen: its field has focus
        t = page.device.input_target()
        assert t.editor and t.shown and t.hint == "Search settings"
        assert t.package == "com.android.settings.intelligence"
        assert "search_src_text" in t.served_view


def test_real_outputs():
    if not REAL.is_dir():
        pytest.skip(f"no real outputs of dumpsys input_method at {REAL}")
    for path in sorted(REAL.glob("*.txt")):
        t = parse_input_target(path.read_text(encoding="utf-8", errors="replace"))
        assert t.known or t.shown is not None, path.name
