"""The input-device programs: ``getevent`` (toolbox), ``sendevent`` (toybox) and ``uinput``
(``frameworks/base/cmds/uinput``, Android 11+).

* ``getevent -p``/``-lp`` lists the devices as ``system/core/toolbox/getevent.c`` prints
  them: ``add device N: PATH``, ``name:``, ``events:`` (every ABS axis on its own line
  with ``value, min, max, fuzz, flat, resolution``; with ``-l`` labels padded to 20
  columns, four to a line), ``input props:``. Devices are numbered from 1 in the order the
  directory is read (newest node first, as on devtmpfs).
* ``sendevent DEVICE TYPE CODE VALUE`` opens the node read-write and writes one
  ``struct input_event``. Android 10 (API 29) took write access to ``input_device`` away
  from the shell (``system/sepolicy``: ``neverallow shell input_device:chr_file
  no_w_file_perms``), so from API 29 the open fails with ``Permission denied``.
* ``uinput FILE|-`` reads register/delay/inject/sync commands (JSON, leniently: comments
  and ``0x`` numbers are accepted) and creates a virtual device through ``/dev/uinput``,
  which the shell may use on every level (its ``uhid`` group). ``delay`` moves the
  device's time base; injections happen at their scheduled times; the device disappears at
  end of input. Events sent before InputReader has opened the new device (``README.md``:
  "Any commands sent to the device during that time will be dropped") are lost:
  :data:`OPEN_DELAY_MS` on the virtual phone. Errors go to the log only (``Log.e``), exit
  status 1.
"""

from __future__ import annotations

import json
import re
from typing import Any

from baremobile.virtual.commands.registry import command
from baremobile.virtual.inputdev import (
    ABS_LABELS,
    EV_ABS,
    EV_KEY,
    KEY_LABELS,
    PROP_LABELS,
    AbsInfo,
    InputDevice,
)
from baremobile.virtual.shell.process import Gen, Proc, decode, err, out

__all__ = ["OPEN_DELAY_MS", "getevent_listing"]

#: ms between ``register`` and the moment InputReader has opened the new node
OPEN_DELAY_MS = 100.0

# ui-set codes (linux/uinput.h: _IOW('U', 100..110, int))
_UI_SET_EVBIT, _UI_SET_KEYBIT, _UI_SET_ABSBIT, _UI_SET_PROPBIT = 100, 101, 103, 110


# -- getevent ------------------------------------------------------------------------------


def _label(labels: dict[int, str], code: int, with_labels: bool) -> str:
    name = labels.get(code) if with_labels else None
    if name is None:
        return f" {code:04x} " + (" " * 16 if with_labels else "")
    return f" {name[:20]} " + " " * (20 - len(name[:20]))


def _possible_events(dev: InputDevice, with_labels: bool) -> list[str]:
    lines = ["  events:"]
    for etype in dev.types:
        if etype == EV_KEY:
            codes, labels, name = sorted(dev.keys), KEY_LABELS, "KEY"
        elif etype == EV_ABS:
            codes, labels, name = sorted(dev.axes), ABS_LABELS, "ABS"
        else:
            continue
        line = f"    {name} ({etype:04x}):"
        per_line = 4 if with_labels else 8
        for k, code in enumerate(codes):
            if k and (k % per_line == 0 or etype == EV_ABS):
                lines.append(line)
                line = " " * 15
            line += _label(labels, code, with_labels)
            if etype == EV_ABS:
                a = dev.axes[code]
                line += (f" : value {a.value}, min {a.minimum}, max {a.maximum}, fuzz {a.fuzz}, "
                         f"flat {a.flat}, resolution {a.resolution}")
        lines.append(line)
    lines.append("  input props:")
    if dev.props:
        lines += [f"    {PROP_LABELS.get(pr, f'{pr:04x}')}" for pr in sorted(dev.props)]
    else:
        lines.append("    <none>")
    return lines


def getevent_listing(devices: list[InputDevice], *, labels: bool, events: bool) -> str:
    """What ``getevent -p`` (``events``) or plain ``getevent`` prints about ``devices``."""
    lines: list[str] = []
    for n, dev in enumerate(sorted(devices, key=lambda d: -d.number), start=1):
        lines += [f"add device {n}: {dev.path}", f'  name:     "{dev.name}"']
        if events:
            lines += _possible_events(dev, labels)
    return "".join(line + "\n" for line in lines)


@command("getevent")
def getevent(p: Proc) -> Gen:
    """``getevent [-p] [-l] [-i] [-q] [device]``: the device listing (streaming events is
    not modelled: without ``-p`` it lists the devices and waits until the client leaves)."""
    flags: set[str] = set()
    devices = [a for a in p.argv[1:] if not a.startswith("-")]
    for a in p.argv[1:]:
        if a.startswith("-"):
            flags.update(a[1:])
    with p.model.lock:
        found = list(p.model.input_devices)
    if devices:
        found = [d for d in found if d.path in devices]
        if not found:
            yield err(f"could not open {devices[0]}, No such file or directory\n")
            return 1
    listing = getevent_listing(found, labels="l" in flags,
                               events=bool(flags & {"p", "i"}))
    if "q" not in flags:
        yield out(listing)
    if flags & {"p", "i"}:
        return 0
    while True:
        p.check_cancel()
        p.cancel_event.wait(0.2)


# -- sendevent -----------------------------------------------------------------------------


def _atoi(text: str) -> int:
    """C's ``atoi``: optional blanks and sign, then digits; anything else stops it."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


@command("sendevent")
def sendevent(p: Proc) -> Gen:
    """``sendevent DEVICE TYPE CODE VALUE``: one event written to the node."""
    args = p.argv[1:]
    if len(args) != 4:
        yield err(f"sendevent: Need{'s' if len(args) < 4 else ''} 4 arguments "
                  "(see \"sendevent --help\")\n")
        return 1
    p.model.spend("native", p.cancel_event)
    dev = p.model.input_device(p.path(args[0]))
    if dev is None:
        yield err(f"sendevent: {args[0]}: No such file or directory\n")
        return 1
    if p.api_level >= 29:  # SELinux: no write access to input_device for the shell
        yield err(f"sendevent: {args[0]}: Permission denied\n")
        return 1
    etype, code, value = (_atoi(a) for a in args[1:])
    value = (value + 2**31) % 2**32 - 2**31  # s32
    p.model.inject(dev, [(etype & 0xFFFF, code & 0xFFFF, value)])
    return 0


# -- uinput --------------------------------------------------------------------------------

_COMMENT = re.compile(r"//[^\n]*|#[^\n]*|/\*.*?\*/", re.S)
_HEX = re.compile(r"(?<![\w\"])0[xX][0-9a-fA-F]+")


def _commands(text: str) -> list[Any]:
    """The JSON objects of a uinput stream, read as leniently as ``JsonReader`` does."""
    text = _HEX.sub(lambda m: str(int(m.group(0), 16)), _COMMENT.sub("", text))
    decoder = json.JSONDecoder()
    objs: list[Any] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text):
            return objs
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return objs  # "Error reading in events." (logged), the rest is ignored
        objs.append(obj)


def _int(v: Any) -> int:
    if isinstance(v, bool):
        raise ValueError(v)
    if isinstance(v, str):
        return int(v, 0)
    return int(v)


def _register(p: Proc, spec: dict[str, Any]) -> InputDevice:
    config: dict[int, list[int]] = {}
    for entry in spec.get("configuration") or []:
        config.setdefault(_int(entry["type"]), []).extend(_int(x) for x in entry["data"])
    axes: dict[int, AbsInfo] = {code: AbsInfo() for code in config.get(_UI_SET_ABSBIT, [])}
    for entry in spec.get("abs_info") or []:
        info = entry["info"]
        axes[_int(entry["code"])] = AbsInfo(*(_int(info.get(k, 0)) for k in (
            "value", "minimum", "maximum", "fuzz", "flat", "resolution")))
    evbits = config.get(_UI_SET_EVBIT, [])
    dev = InputDevice(0, str(spec.get("name") or f"{spec.get('id')}:{spec.get('vid')}:"
                                                  f"{spec.get('pid')}"),
                      keys=config.get(_UI_SET_KEYBIT, []) if EV_KEY in evbits else [],
                      axes=axes if EV_ABS in evbits else {},
                      props=config.get(_UI_SET_PROPBIT, []), event_types=evbits, uinput=True,
                      ready_at_ms=p.model.now_ms() + OPEN_DELAY_MS)
    return p.model.add_input_device(dev)


@command("uinput", since=30)
def uinput(p: Proc) -> Gen:
    """``uinput FILE`` or ``uinput -`` (stdin): run the commands, then remove the devices."""
    args = p.argv[1:]
    if len(args) != 1:
        p.model.log("E", "UINPUT", "Usage: uinput [FILE]")
        return 1
    p.model.spend("uinput_vm", p.cancel_event)
    if args[0] == "-":
        text = decode(p.stdin.read())
    else:
        try:
            text = decode(p.fs.read(p.path(args[0])))
        except OSError:
            p.model.log("E", "UINPUT", "Uinput injection failed.")
            return 1
    devices: dict[int, InputDevice] = {}
    due: dict[int, float] = {}  # device id -> when its next command runs (ms)
    status = 0
    try:
        for cmd in _commands(text):
            if not isinstance(cmd, dict):
                continue
            dev_id = _int(cmd.get("id", 0))
            what = cmd.get("command")
            if dev_id not in devices:
                if what != "register":
                    p.model.log("E", "UINPUT", "Unknown device id specified. Ignoring event.")
                    continue
                devices[dev_id] = _register(p, cmd)
                due[dev_id] = p.model.now_ms()
                continue
            dev = devices[dev_id]
            if what == "delay":
                due[dev_id] += _int(cmd.get("duration", 0))
            elif what == "inject":
                wait = due[dev_id] - p.model.now_ms()
                if wait > 0:
                    p.sleep(wait / 1000)
                raw = [_int(x) for x in cmd.get("events") or []]
                p.model.inject(dev, [(raw[i], raw[i + 1], raw[i + 2])
                                     for i in range(0, len(raw) - 2, 3)])
            elif what == "sync":
                wait = due[dev_id] - p.model.now_ms()
                if wait > 0:
                    p.sleep(wait / 1000)
                yield out(json.dumps({"reason": "sync", "id": dev_id,
                                      "syncToken": str(cmd.get("syncToken", ""))},
                                     separators=(",", ":")))
            elif what == "register":
                p.model.log("E", "UINPUT", f"Device id={dev_id} is already registered. "
                            "Ignoring event.")
    except (KeyError, TypeError, ValueError):
        p.model.log("E", "UINPUT", "Uinput injection failed.")
        status = 1
    finally:
        for dev_id, dev in devices.items():  # close() waits for what is still scheduled
            wait = due[dev_id] - p.model.now_ms()
            if wait > 0 and not p.cancel_event.is_set():
                p.model.clock.sleep(wait / 1000, p.cancel_event)
            p.model.remove_input_device(dev)
    return status
