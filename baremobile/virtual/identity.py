"""Who the virtual phone says it is: its system properties (``getprop``) and the settings
of a freshly set-up phone (``settings``)."""

from __future__ import annotations

import hashlib

__all__ = ["RELEASES", "app_uid", "default_props", "default_settings"]

RELEASES = {
    23: "6.0",
    24: "7.0",
    25: "7.1.1",
    26: "8.0.0",
    27: "8.1.0",
    28: "9",
    29: "10",
    30: "11",
    31: "12",
    32: "12",
    33: "13",
    34: "14",
    35: "15",
    36: "16",
}


def app_uid(package: str) -> int:
    """The uid an app's package has here (``u0a<uid - 10000>``): the same every run."""
    return 10000 + sum(map(ord, package)) % 900


def default_props(api_level: int, serial: str, density: int) -> dict[str, str]:
    """The system properties of a phone of ``api_level`` (``getprop``)."""
    release = RELEASES.get(api_level, str(max(1, api_level - 20)))
    build_id = "BM1A.250101.001"
    fingerprint = f"baremobile/vphone/vphone:{release}/{build_id}/1:user/release-keys"
    return {
        "ro.build.version.sdk": str(api_level),
        "ro.build.version.release": release,
        "ro.build.version.release_or_codename": release,
        "ro.build.version.codename": "REL",
        "ro.build.version.incremental": "1",
        "ro.build.version.security_patch": "2025-01-05",
        "ro.build.id": build_id,
        "ro.build.display.id": f"{build_id} release-keys",
        "ro.build.type": "user",
        "ro.build.tags": "release-keys",
        "ro.build.fingerprint": fingerprint,
        "ro.build.characteristics": "default",
        "ro.product.manufacturer": "baremobile",
        "ro.product.brand": "baremobile",
        "ro.product.model": "Virtual Phone",
        "ro.product.name": "vphone",
        "ro.product.device": "vphone",
        "ro.product.board": "vphone",
        "ro.product.first_api_level": str(api_level),
        "ro.product.cpu.abi": "arm64-v8a",
        "ro.product.cpu.abilist": "arm64-v8a,armeabi-v7a,armeabi",
        "ro.product.cpu.abilist64": "arm64-v8a",
        "ro.product.locale": "en-US",
        "ro.hardware": "vphone",
        "ro.serialno": serial,
        "ro.boot.serialno": serial,
        "ro.secure": "1",
        "ro.adb.secure": "1",
        "ro.debuggable": "0",
        "ro.sf.lcd_density": str(density),
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "init.svc.bootanim": "stopped",
        "init.svc.adbd": "running",
        "persist.sys.locale": "en-US",
        "persist.sys.timezone": "UTC",
        "persist.sys.usb.config": "adb",
        "service.adb.tcp.port": "5555",
        "net.hostname": "vphone",
    }


def default_settings(serial: str) -> dict[str, dict[str, str]]:
    """The settings a freshly set-up phone has (``settings list``)."""
    android_id = hashlib.sha256(f"android_id:{serial}".encode()).hexdigest()[:16]
    return {
        "system": {
            "accelerometer_rotation": "1",
            "font_scale": "1.0",
            "screen_brightness": "102",
            "screen_brightness_mode": "1",
            "screen_off_timeout": "60000",
            "sound_effects_enabled": "1",
            "haptic_feedback_enabled": "1",
            "time_12_24": "24",
            "user_rotation": "0",
        },
        "secure": {
            "android_id": android_id,
            "default_input_method": "com.android.inputmethod.latin/.LatinIME",
            "enabled_input_methods": "com.android.inputmethod.latin/.LatinIME",
            "location_mode": "0",
            "show_ime_with_hard_keyboard": "0",
            "user_setup_complete": "1",
        },
        "global": {
            "adb_enabled": "1",
            "airplane_mode_on": "0",
            "animator_duration_scale": "1.0",
            "bluetooth_on": "0",
            "development_settings_enabled": "1",
            "device_name": "Virtual Phone",
            "device_provisioned": "1",
            "stay_on_while_plugged_in": "0",
            "transition_animation_scale": "1.0",
            "window_animation_scale": "1.0",
            "wifi_on": "1",
        },
    }
