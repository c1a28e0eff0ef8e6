"""Device profiles: the kinds of real device the virtual phone can be.

Real devices differ in what their shells print and in how their hardware looks to
Android; a profile makes the virtual phone one of them, so code that reads device output
meets those differences in tests (``VirtualPhone(profile="android6")``,
``connect("virtual", profile="tablet")``, ``baremobile virtual --profile …`` where the CLI
offers it). The default phone is unchanged.

===============  ==============================================================================
``default``      an Android 15 phone (API 35), portrait 1080x2400, toybox, type-B touch panel
``android6``     an Android 6.0 phone (API 23): toolbox ``ls`` (no link counts, no sizes for
                 directories) and ``ps`` (``VSIZE … PC`` columns, an unnamed state column,
                 ``-A`` read as a name filter), ``logcat`` in ``brief`` format by default,
                 Android 6 ``dumpsys`` layouts (``AppWindowToken`` focus lines, the rotation
                 in the window manager's dump, ``dumpsys battery`` without charge counters);
                 its adbd has no shell v2 and 4 KiB messages
``tablet``       an Android 14 tablet (API 34) whose natural orientation is landscape
                 (``wm size`` 2400x1080; rotation 0 is landscape, 3 portrait) with a second,
                 virtual display (id 2, a cover screen) listed **before** display 0 in
                 ``dumpsys window displays``
``protocol-a``   an Android 9 phone (API 28) whose touch panel speaks multi-touch protocol A
                 (no ``ABS_MT_SLOT``: contacts end with ``SYN_MT_REPORT``) and whose kernel
                 sets no ``INPUT_PROP_DIRECT`` (its ``.idc`` file makes it the touch screen)
===============  ==============================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from baremobile.virtual.inputdev import (
    ABS_MT_POSITION_X,
    ABS_MT_POSITION_Y,
    ABS_MT_PRESSURE,
    ABS_MT_TOUCH_MAJOR,
    ABS_MT_TRACKING_ID,
    BTN_TOUCH,
    AbsInfo,
    InputDevice,
    builtin_devices,
)

__all__ = ["Profile", "PROFILES", "resolve", "SecondDisplay"]


@dataclass(frozen=True)
class SecondDisplay:
    """A display besides display 0 (shown in ``dumpsys window displays``)."""

    display_id: int
    width: int
    height: int
    density: int
    focused_app: str  # ``package/.Activity`` of the activity shown there


@dataclass(frozen=True)
class Profile:
    """What kind of device the virtual phone is."""

    name: str
    api_level: int
    description: str
    toolbox: bool = False
    """toolbox ``ls``/``ps`` and Android 6 output layouts (Android ≤ 6)"""
    natural_landscape: bool = False
    """the display's natural orientation is landscape (rotation 0 shows it wide)"""
    second_display: SecondDisplay | None = None
    touch_protocol: str = "B"
    """``"B"`` (slots) or ``"A"`` (``SYN_MT_REPORT``, no props: the ``.idc`` decides)"""

    def input_devices(self) -> list[InputDevice]:
        """The phone's ``/dev/input`` nodes."""
        devices = builtin_devices()
        if self.touch_protocol == "A":
            devices[2] = InputDevice(
                2, "ft5x0x_ts", keys=[BTN_TOUCH],
                axes={ABS_MT_TOUCH_MAJOR: AbsInfo(0, 0, 200),
                      ABS_MT_POSITION_X: AbsInfo(0, 0, 1079),
                      ABS_MT_POSITION_Y: AbsInfo(0, 0, 2399),
                      ABS_MT_TRACKING_ID: AbsInfo(0, 0, 4), ABS_MT_PRESSURE: AbsInfo(0, 0, 255)},
                props=[], idc_touchscreen=True)
        return devices

    # -- a landscape-natural display -------------------------------------------------------
    # The screen model lays apps out portrait; a landscape-natural device shows that
    # layout turned a quarter: layout rotation = Surface rotation + 1.
    def layout_rotation(self, surface: int) -> int:
        """The screen model's rotation for ``Surface.ROTATION_*`` ``surface``."""
        return (surface + 1) % 4 if self.natural_landscape else surface % 4

    def surface_rotation(self, layout: int) -> int:
        """``Surface.ROTATION_*`` for the screen model's rotation ``layout``."""
        return (layout - 1) % 4 if self.natural_landscape else layout % 4

    def natural_size(self, width: int, height: int) -> tuple[int, int]:
        """The display's natural size (``wm size``, ``init=``) for a layout of
        ``width`` x ``height``."""
        return (height, width) if self.natural_landscape else (width, height)

    def panel_to_layout(self, x: float, y: float, width: int) -> tuple[float, float]:
        """A touch point in the panel's natural pixels → the layout's natural pixels
        (``width``: the layout's width)."""
        return (width - y, x) if self.natural_landscape else (x, y)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("default", 35, "an Android 15 phone"),
    Profile("android6", 23, "an Android 6.0 phone: toolbox ls and ps, brief logcat",
            toolbox=True),
    Profile("tablet", 34, "an Android 14 tablet, landscape-natural, with a second display",
            natural_landscape=True,
            second_display=SecondDisplay(2, 720, 748, 320,
                                         "com.android.systemui/.subscreen.SubHomeActivity")),
    Profile("protocol-a", 28, "an Android 9 phone with a protocol-A touch panel",
            touch_protocol="A"),
)}


def resolve(profile: str | Profile | None) -> Profile:
    """A profile by name (``None``: the default phone)."""
    if profile is None:
        return PROFILES["default"]
    if isinstance(profile, Profile):
        return profile
    found = PROFILES.get(str(profile))
    if found is None:
        raise ValueError(f"unknown virtual phone profile {profile!r}; use one of "
                         f"{', '.join(PROFILES)}")
    return found
