"""The installed apps' APK files, built as Android's build tools lay them out, so that a
client reading ``pm path``'s file finds what it would on a device.

An APK is a ZIP. Its ``AndroidManifest.xml`` is *binary XML* (``ResXMLTree``: a string
pool, the attribute resource-id map, then namespace/element chunks with typed attribute
values) and its ``resources.arsc`` a *resource table* (``ResTable``: the value string pool,
then a package chunk with its type and key string pools, a type spec and one type chunk per
configuration). The layouts are those of ``frameworks/base/libs/androidfw/include/
androidfw/ResourceTypes.h``. ``resources.arsc`` is stored uncompressed, as apps targeting
API 30+ must ship it.

What the virtual phone puts in them is what label lookups need: the package name, version
code and name in ``<manifest>``, and ``<application android:label>`` — a reference to the
string resource ``app_name`` (default configuration, plus a French translation) for the
scenario's apps, a literal string for the base system packages, as both occur in real APKs
— and the launcher ``<activity>`` with its ``MAIN``/``LAUNCHER`` ``<intent-filter>``.

:func:`read_apk` is the other direction, what the package manager does with a file given to
``pm install`` (``PackageParser.parseApkLite``): a ZIP whose binary manifest names a package,
or None — the phone then refuses the file as not an APK.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass

__all__ = ["ApkInfo", "BASE_LABELS", "build_apk", "read_apk"]

#: labels of the packages every phone has (the scenario's apps bring their own)
BASE_LABELS = {
    "android": "Android System",
    "com.android.shell": "Shell",
    "com.android.systemui": "System UI",
    "com.android.providers.settings": "Settings Storage",
    "com.android.inputmethod.latin": "Android Keyboard (AOSP)",
    "com.android.packageinstaller": "Package installer",
    "com.android.webview": "Android System WebView",
}

#: a few translations, so that the label a client reads depends on the configuration it
#: asks for (values are what the demo's apps would plausibly ship)
_FRENCH = {"Weather": "Météo", "Notes": "Notes", "Settings": "Paramètres", "Files": "Fichiers",
           "Messages": "Messages"}

# chunk types (ResourceTypes.h)
_STRING_POOL, _TABLE, _XML = 0x0001, 0x0002, 0x0003
_XML_START_NS, _XML_END_NS, _XML_START_EL, _XML_END_EL = 0x0100, 0x0101, 0x0102, 0x0103
_XML_RESOURCE_MAP = 0x0180
_TABLE_PACKAGE, _TABLE_TYPE, _TABLE_TYPE_SPEC = 0x0200, 0x0201, 0x0202
_UTF8_FLAG = 0x100
# Res_value data types
_TYPE_REFERENCE, _TYPE_STRING, _TYPE_INT_DEC, _TYPE_INT_HEX = 0x01, 0x03, 0x10, 0x11
_TYPE_INT_BOOLEAN = 0x12
# attribute resource ids (android.R.attr)
_ATTR = {"label": 0x01010001, "name": 0x01010003, "versionCode": 0x0101021B,
         "versionName": 0x0101021C, "debuggable": 0x0101000F}
_MAIN = "android.intent.action.MAIN"
_LAUNCHER = "android.intent.category.LAUNCHER"
_ANDROID_NS = "http://schemas.android.com/apk/res/android"
_NO_INDEX = 0xFFFFFFFF
_APP_NAME_ID = 0x7F010000  # package 0x7f, type 1 (string), entry 0


def _pad4(b: bytes) -> bytes:
    return b + b"\0" * (-len(b) % 4)


def _len_utf8(n: int) -> bytes:
    return bytes([n]) if n < 0x80 else bytes([0x80 | (n >> 8), n & 0xFF])


def _len_utf16(n: int) -> bytes:
    return struct.pack("<H", n) if n < 0x8000 else struct.pack("<HH", 0x8000 | (n >> 16),
                                                               n & 0xFFFF)


def string_pool(strings: list[str], *, utf8: bool = True) -> bytes:
    """A ``ResStringPool`` chunk (UTF-8 or UTF-16 strings, no styles)."""
    data = bytearray()
    offsets = []
    for s in strings:
        offsets.append(len(data))
        if utf8:
            raw = s.encode("utf-8")
            utf16_units = len(s.encode("utf-16-le")) // 2
            data += _len_utf8(utf16_units) + _len_utf8(len(raw)) + raw + b"\0"
        else:
            raw = s.encode("utf-16-le")
            data += _len_utf16(len(raw) // 2) + raw + b"\0\0"
    header_size = 28
    strings_start = header_size + 4 * len(strings)
    body = struct.pack(f"<{len(strings)}I", *offsets) + _pad4(bytes(data))
    return struct.pack("<HHIIIIII", _STRING_POOL, header_size, header_size + len(body),
                       len(strings), 0, _UTF8_FLAG if utf8 else 0, strings_start, 0) + body


def _typed(dtype: int, data: int) -> bytes:
    return struct.pack("<HBBI", 8, 0, dtype, data & 0xFFFFFFFF)


def manifest(package: str, version_code: int, version_name: str, label: str | None,
             activity: str | None, *, debuggable: bool = False) -> bytes:
    """Binary ``AndroidManifest.xml``: ``<manifest package versionCode versionName>``
    around ``<application android:label>`` (a reference to ``app_name`` when ``label`` is
    None; ``android:debuggable="true"`` for a debug build) and, for apps with one, the
    launcher ``<activity android:name>`` with its ``MAIN``/``LAUNCHER`` intent filter."""
    # attribute names first, in the order of the resource map, as aapt2 writes them
    strings = ["label", "name", "versionCode", "versionName", "debuggable", "android",
               _ANDROID_NS, "", "package", "manifest", "application", "activity",
               "intent-filter", "action", "category", _MAIN, _LAUNCHER, package, version_name]
    if label is not None:
        strings.append(label)
    if activity is not None:
        strings.append(activity)
    idx = {s: i for i, s in enumerate(strings)}
    chunks = [string_pool(strings, utf8=False)]
    ids = [_ATTR["label"], _ATTR["name"], _ATTR["versionCode"], _ATTR["versionName"],
           _ATTR["debuggable"]]
    chunks.append(struct.pack("<HHI", _XML_RESOURCE_MAP, 8, 8 + 4 * len(ids))
                  + struct.pack(f"<{len(ids)}I", *ids))
    ns = (idx["android"], idx[_ANDROID_NS])
    chunks.append(struct.pack("<HHIIIII", _XML_START_NS, 16, 24, 1, _NO_INDEX, *ns))

    def attr(ns_uri: int, name: str, raw: int, dtype: int, data: int) -> bytes:
        return struct.pack("<III", ns_uri, idx[name], raw) + _typed(dtype, data)

    def start(line: int, name: str, attrs: list[bytes]) -> bytes:
        body = struct.pack("<IIHHHHHH", _NO_INDEX, idx[name], 20, 20, len(attrs), 0, 0, 0)
        body += b"".join(attrs)
        return struct.pack("<HHIII", _XML_START_EL, 16, 16 + len(body), line, _NO_INDEX) + body

    def end(line: int, name: str) -> bytes:
        return struct.pack("<HHIIIII", _XML_END_EL, 16, 24, line, _NO_INDEX, _NO_INDEX, idx[name])

    a_ns = idx[_ANDROID_NS]
    chunks.append(start(1, "manifest", [
        attr(a_ns, "versionCode", _NO_INDEX, _TYPE_INT_DEC, version_code),
        attr(a_ns, "versionName", idx[version_name], _TYPE_STRING, idx[version_name]),
        attr(_NO_INDEX, "package", idx[package], _TYPE_STRING, idx[package]),
    ]))
    label_attr = (attr(a_ns, "label", _NO_INDEX, _TYPE_REFERENCE, _APP_NAME_ID) if label is None
                  else attr(a_ns, "label", idx[label], _TYPE_STRING, idx[label]))
    app_attrs = [label_attr]
    if debuggable:
        app_attrs.append(attr(a_ns, "debuggable", _NO_INDEX, _TYPE_INT_BOOLEAN, 0xFFFFFFFF))
    chunks.append(start(2, "application", app_attrs))
    if activity is not None:
        chunks.append(start(3, "activity", [attr(a_ns, "name", idx[activity], _TYPE_STRING,
                                                  idx[activity])]))
        chunks.append(start(4, "intent-filter", []))
        for line, (tag, value) in enumerate((("action", _MAIN), ("category", _LAUNCHER)), 5):
            chunks.append(start(line, tag, [attr(a_ns, "name", idx[value], _TYPE_STRING,
                                                 idx[value])]))
            chunks.append(end(line, tag))
        chunks.append(end(7, "intent-filter"))
        chunks.append(end(3, "activity"))
    chunks.append(end(2, "application"))
    chunks.append(end(1, "manifest"))
    chunks.append(struct.pack("<HHIIIII", _XML_END_NS, 16, 24, 1, _NO_INDEX, *ns))
    body = b"".join(chunks)
    return struct.pack("<HHI", _XML, 8, 8 + len(body)) + body


def _config(language: str = "") -> bytes:
    """A 64-byte ``ResTable_config``: all defaults, or just a language."""
    cfg = bytearray(64)
    struct.pack_into("<I", cfg, 0, 64)
    if language:
        cfg[8:10] = language.encode("ascii")
    return bytes(cfg)


def resources(package: str, label: str) -> bytes:
    """A ``resources.arsc`` with one string resource, ``@string/app_name`` =
    ``label`` (default) and its French translation."""
    values = [label, _FRENCH.get(label, label)]
    type_pool, key_pool = string_pool(["string"]), string_pool(["app_name"])

    def type_chunk(language: str, value_index: int) -> bytes:
        entry = struct.pack("<HHI", 8, 0, 0) + _typed(_TYPE_STRING, value_index)
        cfg = _config(language)
        header_size = 20 + len(cfg)
        entries_start = header_size + 4  # one offset
        head = struct.pack("<HHIBBHII", _TABLE_TYPE, header_size, entries_start + len(entry),
                           1, 0, 0, 1, entries_start) + cfg
        return head + struct.pack("<I", 0) + entry

    spec = struct.pack("<HHIBBHI", _TABLE_TYPE_SPEC, 16, 20, 1, 0, 0, 1) + struct.pack("<I", 0)
    name = package.encode("utf-16-le")[:254].ljust(256, b"\0")
    header_size = 288
    pkg_head_rest = struct.pack("<IIIII", header_size, 1, header_size + len(type_pool), 1, 0)
    body = type_pool + key_pool + spec + type_chunk("", 0) + type_chunk("fr", 1)
    pkg = struct.pack("<HHII", _TABLE_PACKAGE, header_size, header_size + len(body), 0x7F)
    pkg += name + pkg_head_rest + body
    pool = string_pool(values)
    return struct.pack("<HHII", _TABLE, 12, 12 + len(pool) + len(pkg), 1) + pool + pkg


def build_apk(package: str, label: str, version_code: int, version_name: str,
              activity: str | None, *, literal_label: bool = False,
              debuggable: bool = False) -> bytes:
    """The APK of one app (a ZIP as ``zipfile`` writes it, entries as the build tools
    write them: the manifest deflated, ``resources.arsc`` stored)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("AndroidManifest.xml", (2008, 1, 1, 0, 0, 0)),
                   manifest(package, version_code, version_name,
                            label if literal_label else None, activity,
                            debuggable=debuggable),
                   compress_type=zipfile.ZIP_DEFLATED)
        if not literal_label:
            z.writestr(zipfile.ZipInfo("resources.arsc", (2008, 1, 1, 0, 0, 0)),
                       resources(package, label), compress_type=zipfile.ZIP_STORED)
        z.writestr(zipfile.ZipInfo("classes.dex", (2008, 1, 1, 0, 0, 0)),
                   b"dex\n035\0" + bytes(104), compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


# -- reading an APK, as the package manager does on install ----------------------------------


@dataclass(frozen=True)
class ApkInfo:
    """What ``pm install`` learns from an APK's manifest."""

    package: str
    version_code: int = 1
    version_name: str = ""
    label: str = ""
    #: the activity with a ``MAIN``/``LAUNCHER`` intent filter (fully qualified), if any
    launcher: str | None = None
    debuggable: bool = False


def _pool(data: bytes, off: int) -> list[str]:
    """The strings of the ``ResStringPool`` chunk at ``off``."""
    _t, head, _size, count, _styles, flags, start, _ = struct.unpack_from("<HHIIIIII", data, off)
    base = off + start
    out = []
    for i in range(count):
        (o,) = struct.unpack_from("<I", data, off + head + 4 * i)
        p = base + o
        if flags & _UTF8_FLAG:
            p += 2 if data[p] & 0x80 else 1  # UTF-16 length
            n = data[p]
            if n & 0x80:
                n = ((n & 0x7F) << 8) | data[p + 1]
                p += 1
            out.append(data[p + 1:p + 1 + n].decode("utf-8", "replace"))
        else:
            (n,) = struct.unpack_from("<H", data, p)
            if n & 0x8000:
                n = ((n & 0x7FFF) << 16) | struct.unpack_from("<H", data, p + 2)[0]
                p += 2
            out.append(data[p + 2:p + 2 + 2 * n].decode("utf-16-le", "replace"))
    return out


def _elements(axml: bytes) -> list[tuple[str, str, dict[str, tuple[int, int, str]]]]:
    """``("start" | "end", tag, {attribute: (type, data, string)})`` of a binary XML."""
    out: list[tuple[str, str, dict[str, tuple[int, int, str]]]] = []
    strings: list[str] = []
    _t, head, total = struct.unpack_from("<HHI", axml, 0)
    off = head
    while off + 8 <= min(total, len(axml)):
        ctype, chead, csize = struct.unpack_from("<HHI", axml, off)
        if csize < 8:
            break
        if ctype == _STRING_POOL:
            strings = _pool(axml, off)
        elif ctype == _XML_START_EL:
            _ns, name, astart, asize, count = struct.unpack_from("<IIHHH", axml, off + chead)
            attrs: dict[str, tuple[int, int, str]] = {}
            for k in range(count):
                a = off + chead + astart + k * asize
                _ans, aname, raw, _vsize, _z, dtype, data = struct.unpack_from("<IIIHBBI", axml, a)
                text = strings[raw] if raw < len(strings) else (
                    strings[data] if dtype == _TYPE_STRING and data < len(strings) else "")
                attrs[strings[aname] if aname < len(strings) else ""] = (dtype, data, text)
            out.append(("start", strings[name] if name < len(strings) else "", attrs))
        elif ctype == _XML_END_EL:
            _ns, name = struct.unpack_from("<II", axml, off + chead)
            out.append(("end", strings[name] if name < len(strings) else "", {}))
        off += csize
    return out


def _resolve_string(arsc: bytes, res_id: int) -> str:
    """The default-configuration string of resource ``res_id`` in a ``resources.arsc``."""
    values: list[str] = []
    found = ""
    _t, head, total, _n = struct.unpack_from("<HHII", arsc, 0)
    off = head
    while off + 8 <= min(total, len(arsc)):
        ctype, chead, csize = struct.unpack_from("<HHI", arsc, off)
        if csize < 8:
            break
        if ctype == _STRING_POOL and not values:
            values = _pool(arsc, off)
        elif ctype == _TABLE_PACKAGE:
            (pkg_id,) = struct.unpack_from("<I", arsc, off + 8)
            inner = off + chead
            while inner + 8 <= off + csize:
                itype, ihead, isize = struct.unpack_from("<HHI", arsc, inner)
                if isize < 8:
                    break
                if itype == _TABLE_TYPE and pkg_id == res_id >> 24:
                    type_id, _r0, _r1, count, entries = struct.unpack_from("<BBHII", arsc,
                                                                           inner + 8)
                    language = arsc[inner + 20 + 8:inner + 20 + 10]
                    entry = res_id & 0xFFFF
                    if type_id == (res_id >> 16) & 0xFF and entry < count:
                        (eoff,) = struct.unpack_from("<I", arsc, inner + ihead + 4 * entry)
                        if eoff != _NO_INDEX:
                            e = inner + entries + eoff
                            (esize,) = struct.unpack_from("<H", arsc, e)
                            _vs, _z, dtype, data = struct.unpack_from("<HBBI", arsc, e + esize)
                            if dtype == _TYPE_STRING and data < len(values):
                                if language == b"\0\0":
                                    return values[data]
                                found = found or values[data]
                inner += isize
        off += csize
    return found


def read_apk(data: bytes) -> ApkInfo | None:
    """The manifest's facts of an APK, or None for a file that is not one (not a ZIP, no
    ``AndroidManifest.xml``, no package) — what ``PackageParser`` refuses as
    ``INSTALL_PARSE_FAILED_NOT_APK``."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            axml = z.read("AndroidManifest.xml")
            arsc = z.read("resources.arsc") if "resources.arsc" in z.namelist() else b""
        elements = _elements(axml)
    except (zipfile.BadZipFile, KeyError, struct.error, IndexError, OSError, ValueError,
            EOFError, NotImplementedError):
        return None
    package, code, vname, label, debuggable = "", 1, "", "", False
    launcher: str | None = None
    activity: str | None = None
    main = cat = False
    for kind, tag, attrs in elements:
        if kind == "start" and tag == "manifest":
            package = attrs.get("package", (0, 0, ""))[2]
            dtype, value, text = attrs.get("versionCode", (_TYPE_INT_DEC, 1, ""))
            code = value if dtype in (_TYPE_INT_DEC, _TYPE_INT_HEX) else int(text or 1)
            vname = attrs.get("versionName", (0, 0, ""))[2]
        elif kind == "start" and tag == "application":
            dtype, value, text = attrs.get("label", (0, 0, ""))
            label = _resolve_string(arsc, value) if dtype == _TYPE_REFERENCE and arsc else text
            dtype, value, _ = attrs.get("debuggable", (0, 0, ""))
            debuggable = dtype == _TYPE_INT_BOOLEAN and value != 0
        elif kind == "start" and tag in ("activity", "activity-alias"):
            activity = attrs.get("name", (0, 0, ""))[2] or None
        elif kind == "start" and tag == "intent-filter":
            main = cat = False
        elif kind == "start" and tag == "action":
            main = main or attrs.get("name", (0, 0, ""))[2] == _MAIN
        elif kind == "start" and tag == "category":
            cat = cat or attrs.get("name", (0, 0, ""))[2] == _LAUNCHER
        elif kind == "end" and tag == "intent-filter":
            if main and cat and activity and launcher is None:
                launcher = activity
        elif kind == "end" and tag in ("activity", "activity-alias"):
            activity = None
    if not package:
        return None
    if launcher is not None and launcher.startswith("."):
        launcher = package + launcher
    elif launcher is not None and "." not in launcher:
        launcher = f"{package}.{launcher}"
    return ApkInfo(package, code, vname, label or package, launcher, debuggable)
