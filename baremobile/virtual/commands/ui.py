"""``uiautomator dump`` and ``screencap``: the two ways agents look at the screen.

``uiautomator dump`` follows ``DumpCommand.java`` (AOSP): errors go to stderr and the
exit status is still 0; a file that cannot be written is *silently* not written (the
IOException is caught and only logged) while the success line is printed anyway —
which is exactly what happens with ``/dev/tty`` on API >= 35. The success line keeps
Android's typo: ``UI hierchary dumped to: <file>``.
"""

from __future__ import annotations

import posixpath
import struct
import zlib
from collections.abc import Generator
from typing import Any

from baremobile.virtual.commands.registry import command
from baremobile.virtual.shell.process import Proc, err, out

Gen = Generator[tuple[int, bytes], None, int]

DEFAULT_DUMP = "/sdcard/window_dump.xml"
DUMP_LINE = "UI hierchary dumped to: {}"

_USAGE = """Usage: uiautomator <subcommand> [options]

Available subcommands:

help: displays help message

runtest: executes UI automation tests
    runtest <class spec> [options]
    <class spec>: <JARS> < -c <CLASSES> | -e class <CLASSES> >
      <JARS>: a list of jar files containing test classes and dependencies. If
        the path is relative, it's assumed to be under /data/local/tmp. Use
        absolute path if the file is elsewhere. Multiple files can be
        specified, separated by space.
      <CLASSES>: a list of test class names to run, separated by comma. To
        a single method, use TestClass#testMethod format. The -e or -c option
        may be repeated. This option is not required and if not provided then
        all the tests in provided jars will be run automatically.
    options:
      --nohup: trap SIG_HUP, so test won't terminate even if parent process
               is terminated, e.g. USB is disconnected.
      -e debug [true|false]: wait for debugger to connect before starting.
      -e runner [CLASS]: use specified test runner class instead. If
        unspecified, framework default runner will be used.
      -e <NAME> <VALUE>: other name-value pairs to be passed to test classes.
        May be repeated.
      -e outputFormat simple | -s: enabled less verbose JUnit style output.

dump: creates an XML dump of current UI hierarchy
    dump [--verbose][file]
      [--compressed]: dumps compressed layout information.
      [file]: the location where the dumped XML should be stored, default is
      /sdcard/window_dump.xml

events: prints out accessibility events until terminated
"""

_BUSY_FRAMES = (
    "java.lang.RuntimeException: Error while connecting UiAutomation@{a}"
    "[id=-1, displayId=0, flags=0]",
    "\tat android.app.UiAutomation.connectWithTimeout(UiAutomation.java:370)",
    "\tat android.app.UiAutomation.connect(UiAutomation.java:289)",
    "\tat com.android.uiautomator.core.UiAutomationShellWrapper.connect("
    "UiAutomationShellWrapper.java:42)",
    "\tat com.android.commands.uiautomator.DumpCommand.run(DumpCommand.java:69)",
    "\tat com.android.commands.uiautomator.Launcher.main(Launcher.java:83)",
    "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)",
    "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:359)",
    "Caused by: java.lang.IllegalStateException: UiAutomationService "
    "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@{b}already registered!",
    "\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3030)",
    "\tat android.os.Parcel.createException(Parcel.java:3006)",
    "\tat android.os.Parcel.readException(Parcel.java:2989)",
    "\tat android.os.Parcel.readException(Parcel.java:2931)",
    "\tat android.view.accessibility.IAccessibilityManager$Stub$Proxy."
    "registerUiTestAutomationService(IAccessibilityManager.java:845)",
    "\tat android.app.UiAutomationConnection.registerUiTestAutomationServiceLocked("
    "UiAutomationConnection.java:558)",
    "\tat android.app.UiAutomationConnection.connect(UiAutomationConnection.java:112)",
    "\tat android.app.UiAutomation.connectWithTimeout(UiAutomation.java:337)",
    "\t... 6 more",
    "Caused by: android.os.RemoteException: Remote stack trace:",
    "\tat com.android.server.accessibility.UiAutomationManager."
    "registerUiTestAutomationServiceLocked(UiAutomationManager.java:94)",
    "\tat com.android.server.accessibility.AccessibilityManagerService."
    "registerUiTestAutomationService(AccessibilityManagerService.java:1346)",
    "\tat android.view.accessibility.IAccessibilityManager$Stub.onTransact("
    "IAccessibilityManager.java:479)",
    "\tat android.os.Binder.execTransactInternal(Binder.java:1344)",
    "\tat android.os.Binder.execTransact(Binder.java:1275)",
    "",
)
_BUSY_TRACE = "\n".join(_BUSY_FRAMES) + "\n"

FAULT_MESSAGES = {
    "idle": "ERROR: could not get idle state.\n",
    "null_root": "ERROR: null root node returned by UiTestAutomationBridge.\n",
}


@command("uiautomator")
def uiautomator(p: Proc) -> Gen:
    args = p.argv[1:]
    if not args or args[0] in ("help", "-h", "--help"):
        yield out(_USAGE)
        return 0
    if args[0] == "dump":
        return (yield from _dump(p, args[1:]))
    if args[0] == "events":
        while True:  # prints nothing until the client goes away
            p.cancel_event.wait(1.0)
            p.check_cancel()
    if args[0] == "runtest":
        yield err("Error: no test classes found\n")
        return 255
    yield out(_USAGE)
    return 0


def _dump(p: Proc, args: list[str]) -> Gen:
    model = p.model
    target = DEFAULT_DUMP
    compressed = False
    for a in args:
        if a == "--compressed":
            compressed = True
        elif not a.startswith("-"):
            target = a
    shown = target if target.startswith("/") else posixpath.join(p.cwd, target)
    if model.faults.delay_s > 0:
        p.sleep(model.faults.delay_s)
    fault = model.faults.take()
    if fault == "busy":
        h = format(zlib.crc32(shown.encode()) & 0xFFFFFFF, "x")
        trace = _BUSY_TRACE.replace("{a}", h[:7]).replace("{b}", h[::-1][:7])
        model.log("E", "AndroidRuntime", trace.splitlines()[0], pid=p.pid)
        model.events.append("dump", path=shown, ok=False, error=fault)
        yield err(trace + "Killed\n")
        return 137
    if fault is not None:
        model.events.append("dump", path=shown, ok=False, error=fault)
        yield err(FAULT_MESSAGES[fault])
        return 0
    xml = model.screens.dump_xml()
    if compressed:
        xml = compress_dump(xml)
    ok = True
    path = p.path(target)
    if path == "/dev/tty":
        if p.api_level >= 35:
            ok = False
            model.log("E", "AccessibilityNodeInfoDumper", "failed to dump window to file",
                      pid=p.pid)
        else:
            yield out(xml)
    elif path in ("/dev/stdout", "/proc/self/fd/1"):
        yield out(xml)
    else:
        try:
            model.fs.write(path, xml, mode=0o660 if path.startswith("/storage/") else 0o644)
        except OSError:
            ok = False
            model.log("E", "AccessibilityNodeInfoDumper", "failed to dump window to file",
                      pid=p.pid)
    model.events.append("dump", path=shown, ok=ok)
    yield out(DUMP_LINE.format(shown) + "\n")
    return 0


# -- compressed dumps ------------------------------------------------------------------------

_IMPORTANT = ("clickable", "long-clickable", "scrollable", "checkable", "focusable", "checked",
              "selected", "focused", "password")


def compress_dump(xml: bytes) -> bytes:
    """Approximate ``setCompressedLayoutHierarchy(true)``: drop nodes that are not
    important for accessibility (no text, no content-desc, nothing interactive) and lift
    their children into their place; indexes are renumbered."""
    from defusedxml import ElementTree

    root = ElementTree.fromstring(xml)
    _compress_children(root)
    return _serialize(root)


def _important(node: Any) -> bool:
    if node.get("text") or node.get("content-desc"):
        return True
    return any(node.get(a) == "true" for a in _IMPORTANT)


def _compress_children(parent: Any) -> None:
    kept: list[Any] = []
    for child in list(parent):
        _compress_children(child)
        if child.tag != "node" or _important(child):
            kept.append(child)
        else:
            kept.extend(list(child))
    for child in list(parent):
        parent.remove(child)
    for i, child in enumerate(kept):
        if child.tag == "node" and "index" in child.attrib:
            child.set("index", str(i))
        parent.append(child)


def _escape_attr(value: str) -> str:
    out_: list[str] = []
    for ch in value:
        if ch == "&":
            out_.append("&amp;")
        elif ch == "<":
            out_.append("&lt;")
        elif ch == ">":
            out_.append("&gt;")
        elif ch == '"':
            out_.append("&quot;")
        elif ord(ch) < 0x20 or ch in ("\x7f",):
            out_.append(f"&#{ord(ch)};")
        else:
            out_.append(ch)
    return "".join(out_)


def _serialize(root: Any) -> bytes:
    parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"]

    def emit(el: Any) -> None:
        attrs = "".join(f' {k}="{_escape_attr(v)}"' for k, v in el.attrib.items())
        children = list(el)
        if not children:
            parts.append(f"<{el.tag}{attrs} />")
            return
        parts.append(f"<{el.tag}{attrs}>")
        for c in children:
            emit(c)
        parts.append(f"</{el.tag}>")

    emit(root)
    return "".join(parts).encode("utf-8")


# -- screencap --------------------------------------------------------------------------------

_SCREENCAP_USAGE = """usage: screencap [-hp] [-d display-id] [FILENAME]
   -h: this message
   -p: save the file as a png.
   -d: specify the display ID to capture (default: 4619827259835644672)
       see "dumpsys SurfaceFlinger --display-id" for valid display IDs.
If FILENAME ends with .png it will be saved as a png.
If FILENAME is not given, the results will be printed to stdout.
"""

MULTI_DISPLAY_WARNING = (
    "[Warning] Multiple displays were found, but no display id was specified! Defaulting to "
    "the first display found, however this default is not guaranteed to be consistent across "
    "captures. A display id should be specified.\n"
    "A display ID can be specified with the [-d display-id] option.\n"
    "See \"dumpsys SurfaceFlinger --display-id\" for valid display IDs.\n"
)


@command("screencap")
def screencap(p: Proc) -> Gen:
    args = p.argv[1:]
    png = False
    display: str | None = None
    target: str | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-p":
            png = True
        elif a == "-d" and i + 1 < len(args):
            display = args[i + 1]
            i += 1
        elif a in ("-h", "--help") or (a.startswith("-") and a != "-"):
            yield err(_SCREENCAP_USAGE)
            return 1 if a not in ("-h", "--help") else 0
        else:
            target = a
        i += 1
    model = p.model
    if display is None and getattr(model, "multiple_displays", False):
        yield err(MULTI_DISPLAY_WARNING)
    if target is not None and target.endswith(".png"):
        png = True
    image = model.screens.screenshot_png()
    data = image
    if not png:
        width, height = model.display_size()
        data = raw_screencap(image, width, height, p.api_level)
    if target is None:
        model.events.append("screencap", path=None)
        for k in range(0, len(data), 65536):
            yield out(data[k:k + 65536])
        return 0
    path = p.path(target)
    try:
        model.fs.write(path, data, mode=0o660 if path.startswith("/storage/") else 0o644)
    except OSError as exc:
        yield err(f"Error opening file: {target} ({exc.strerror})\n")
        return 1
    model.events.append("screencap", path=path)
    return 0


def raw_screencap(png: bytes, width: int, height: int, api_level: int) -> bytes:
    """screencap's raw format: w, h, format (1 = RGBA_8888) [, colorspace] + pixels."""
    decoded = decode_png(png)
    if decoded is not None and decoded[0] == width and decoded[1] == height:
        pixels = decoded[2]
    else:
        pixels = b"\xff" * (width * height * 4)
    header = struct.pack("<III", width, height, 1)
    if api_level >= 28:
        header += struct.pack("<I", 1)  # COLORSPACE_SRGB
    return header + pixels


def decode_png(data: bytes) -> tuple[int, int, bytes] | None:
    """Decode an 8-bit, non-interlaced gray/RGB/RGBA PNG to RGBA (None if unsupported)."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos = 8
    width = height = 0
    color = depth = interlace = -1
    idat = bytearray()
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    channels = {0: 1, 2: 3, 6: 4, 4: 2}.get(color)
    if channels is None or depth != 8 or interlace != 0:
        return None
    try:
        raw = zlib.decompress(bytes(idat))
    except zlib.error:
        return None
    stride = width * channels
    if width * height > 250_000 and any(raw[r * (stride + 1)] for r in range(height)):
        return None  # filtered rows of a big image: too slow to undo in pure Python
    prev = bytearray(stride)
    rows = bytearray()
    k = 0
    for _ in range(height):
        ftype = raw[k]
        line = bytearray(raw[k + 1:k + 1 + stride])
        k += 1 + stride
        if ftype:
            _unfilter(ftype, line, prev, channels)
        rows += line
        prev = line
    if channels == 4:
        return width, height, bytes(rows)
    out_ = bytearray()
    for j in range(0, len(rows), channels):
        px = rows[j:j + channels]
        if channels == 3:
            out_ += px + b"\xff"
        elif channels == 1:
            out_ += bytes((px[0], px[0], px[0], 255))
        else:
            out_ += bytes((px[0], px[0], px[0], px[1]))
    return width, height, bytes(out_)


def _unfilter(ftype: int, line: bytearray, prev: bytearray, bpp: int) -> None:
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if ftype == 1:
            line[i] = (line[i] + a) & 0xFF
        elif ftype == 2:
            line[i] = (line[i] + b) & 0xFF
        elif ftype == 3:
            line[i] = (line[i] + ((a + b) >> 1)) & 0xFF
        elif ftype == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + pred) & 0xFF

