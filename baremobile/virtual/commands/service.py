"""``service``: binder services from the shell (``service list``, ``check``, ``call``), as
``frameworks/native/cmds/service/service.cpp`` prints them.

One transaction is answered: SurfaceFlinger's code 1013, which returns the number of frames
the default display has composited (``DisplayDevice::getPageFlipCount``; the shell holds
``HARDWARE_TEST``, which the code asks for). A client reads it before and after to learn
whether anything was drawn in between without dumping the screen. The phone's screen model
counts a frame whenever what it draws changes (:meth:`ScreenModel.frames
<baremobile.virtual.screens.ScreenModel.frames>`). Every other transaction answers as a
service that does not know the code does.
"""

from __future__ import annotations

from collections.abc import Generator

from baremobile.virtual.commands.registry import command
from baremobile.virtual.shell.process import Proc, err, out

Gen = Generator[tuple[int, bytes], None, int]

#: the services ``service list`` shows (name → interface), a phone's usual few
SERVICES = {
    "SurfaceFlinger": "android.ui.ISurfaceComposer",
    "activity": "android.app.IActivityManager",
    "input": "android.hardware.input.IInputManager",
    "input_method": "com.android.internal.view.IInputMethodManager",
    "package": "android.content.pm.IPackageManager",
    "window": "android.view.IWindowManager",
}

#: SurfaceFlinger's transaction that answers its page-flip count
PAGE_FLIP_COUNT = 1013

_USAGE = """Usage: service [-h|-?]
       service list
       service check SERVICE
       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null ] ...
Options:
   i32: Write the 32-bit integer N into the send parcel.
   i64: Write the 64-bit integer N into the send parcel.
   f:   Write the 32-bit single-precision number N into the send parcel.
   d:   Write the 64-bit double-precision number N into the send parcel.
   s16: Write the UTF-16 string STR into the send parcel.
  null: Write a null binder into the send parcel.
"""


def parcel_of_int32(value: int) -> str:
    """What ``service call`` prints for a reply holding one 32-bit integer: its hex word
    and its four bytes (little-endian) as text, ``.`` for what is not printable."""
    value &= 0xFFFFFFFF
    text = "".join(chr(b) if 32 <= b < 127 and b != 39 else "."
                   for b in value.to_bytes(4, "little"))
    return f"Result: Parcel({value:08x} '{text}')\n"


def frames_of(p: Proc) -> int:
    """The display's composited frames so far (0 on a screen model that keeps none)."""
    frames = getattr(p.model.screens, "frames", None)
    return int(frames()) if frames is not None else 0


@command("service")
def service(p: Proc) -> Gen:
    args = p.argv[1:]
    if not args or args[0] in ("-h", "-?", "help"):
        yield (out if args else err)(_USAGE)
        return 0 if args else 10
    if args[0] == "list":
        yield out(f"Found {len(SERVICES)} services:\n" + "".join(
            f"{i}\t{name}: [{iface}]\n" for i, (name, iface) in enumerate(SERVICES.items())))
        return 0
    if args[0] == "check":
        if len(args) < 2:
            yield err("service: No service specified\n")
            return 10
        found = "found" if args[1] in SERVICES else "not found"
        yield out(f"Service {args[1]}: {found}\n")
        return 0
    if args[0] != "call":
        yield err(f"service: Unknown command {args[0]}\n")
        return 10
    if len(args) < 3:
        yield err("service: No service specified\n" if len(args) < 2
                  else "service: No code specified\n")
        return 10
    name, code = args[1], args[2]
    if name not in SERVICES:
        yield err(f"service: Service {name} does not exist\n")
        return 10
    number = int(code) if code.lstrip("-").isdigit() else 0  # atoi
    if name == "SurfaceFlinger" and number == PAGE_FLIP_COUNT:
        yield out(parcel_of_int32(frames_of(p)))
        return 0
    # BBinder::onTransact for a code the service does not implement: UNKNOWN_TRANSACTION
    # (-EBADMSG), which Parcel::print shows as its error
    yield out('Result: Parcel(Error: 0xffffffffffffffb6 "Bad message")\n')
    return 0
