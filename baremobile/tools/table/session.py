"""Rows that act on the session, not a device: which devices there are, the defaults."""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools.params import PARAMS, p
from baremobile.tools.row import Args, Ctx, ToolSpec

__all__ = ["ROWS"]


def _devices(ctx: Ctx, a: Args) -> dict[str, Any]:
    from baremobile.transport.discovery import devices

    found = [{"serial": d.serial, "state": d.state, "kind": d.kind, "via": d.via,
              **({"model": d.model} if d.model else {})} for d in devices()]
    connected = {spec: page.serial for spec, page in ctx.session.pages().items()}
    out: dict[str, Any] = {"devices": found, "connected": connected,
                           "default": ctx.options.device}
    if not found and not connected:
        out["note"] = ("no device found: connect a phone with USB debugging on, start an "
                       "emulator, or pass device='host:port' (or 'virtual')")
    return out


def _configure(ctx: Ctx, a: Args) -> dict[str, Any]:
    device = a.get("device", "unset")
    if device is None or (isinstance(device, str) and not device.strip()):
        raise InvalidArgument("device must name a device, not be blank: a blank device "
                              "would silently drop the session's default",
                              hint="pass a serial or host:port (the devices tool lists them), "
                                   "or 'auto' to go back to discovery")
    if device == "auto":
        a = {**a, "device": ""}  # the session's way of forgetting its default
    if a.get("observe") in ("true", "false"):  # the menu shows observe as text
        a = {**a, "observe": a["observe"] == "true"}
    return {"session": ctx.session.configure(**a)}


ROWS = (
    ToolSpec(
        "devices",
        "Devices within reach (USB, emulator, network, adb server) and this session's; with "
        "several, pass device=SERIAL to any tool, or set it with configure.",
        {}, _devices, needs_device=False, read_only=True,
        returns="'devices' [{serial, state, kind, via, model}] and the session's.",
    ),
    ToolSpec(
        "configure",
        "Session defaults: device, wait timeout, max_chars, and observe (acting tools also "
        "return the screen, diff: only changes, settle seconds after).",
        {"device": p("device", "serial, host:port, virtual, or auto"),
         "timeout": PARAMS["timeout"],
         "max_chars": PARAMS["max_chars"],
         "observe": {"type": ["boolean", "string"],
                     "enum": [True, False, "diff", "true", "false"],
                     "x-shown": {"type": "string", "enum": ["true", "false", "diff"]}},
         "settle": {"type": "number", "minimum": 0, "maximum": 60},
         "busy_wait": {"type": "number", "minimum": 0, "maximum": 600,
                       "description": "seconds a busy device is waited for"}},
        _configure, group="session", needs_device=False,
        returns="the settings.",
    ),
)
