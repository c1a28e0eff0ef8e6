"""SurfaceFlinger's transactions as ``service call SurfaceFlinger CODE`` reaches them (the
``service`` program is :mod:`.system`'s).

One is answered: code 1013, the number of frames the default display has composited
(``DisplayDevice::getPageFlipCount``; the shell holds ``HARDWARE_TEST``, which the code asks
for). A client reads it before and after to learn whether anything was drawn in between
without dumping the screen. The phone's screen model counts a frame whenever what it draws
changes (:meth:`ScreenModel.frames <baremobile.virtual.screens.ScreenModel.frames>`). Every
other code answers as a service that does not implement it does.
"""

from __future__ import annotations

from baremobile.virtual.shell.process import Proc

__all__ = ["PAGE_FLIP_COUNT", "parcel_of_int32", "transact"]

#: SurfaceFlinger's transaction that answers its page-flip count
PAGE_FLIP_COUNT = 1013


def parcel_of_int32(value: int) -> str:
    """What ``service call`` prints for a reply holding one 32-bit integer: its hex word
    and its four bytes (little-endian) as text, ``.`` for what is not printable."""
    value &= 0xFFFFFFFF
    text = "".join(chr(b) if 32 <= b < 127 and b != 39 else "."
                   for b in value.to_bytes(4, "little"))
    return f"Result: Parcel({value:08x}    '{text}')\n"


def transact(p: Proc, code: int) -> str:
    """SurfaceFlinger's reply to transaction ``code``, as ``service call`` prints it."""
    if code == PAGE_FLIP_COUNT:
        frames = getattr(p.model.screens, "frames", None)  # a screen model that keeps none: 0
        return parcel_of_int32(int(frames()) if frames is not None else 0)
    # BBinder::onTransact for a code the service does not implement: UNKNOWN_TRANSACTION
    # (-EBADMSG), which Parcel::print shows as its error
    return 'Result: Parcel(Error: 0xffffffffffffffb6 "Bad message")\n'
