"""An app's label, read from its APK without an installed helper (no I/O here: the caller
hands in a seekable file, e.g. one that reads byte ranges off the device).

No shell command prints application labels — ``dumpsys package`` and ``cmd package
query-activities`` show ``labelRes=0x7f…``, a resource id — so the label is read where the
launcher reads it: ``AndroidManifest.xml``'s ``<application android:label>`` (binary XML)
and, when that is a reference, the string in ``resources.arsc`` (the resource table),
layouts as in ``frameworks/base/libs/androidfw/include/androidfw/ResourceTypes.h``. The
ZIP itself is read by :mod:`zipfile`, which only touches the end of the file (the central
directory) and the two entries.

Handled: UTF-8 and UTF-16 string pools, sparse and 16-bit-offset type chunks, compact
entries (aapt2's newer encodings), references to references, and choosing the
configuration: the requested language if the table has it, else the default one.

Any app's APK is input here, so the work is bounded, not only the sizes: every chunk,
attribute table and offset array must lie inside its parent (a claimed 65,535 attributes
in a 40-byte element is refused, not looped over); only ``<manifest>`` and
``<application>`` have their attributes read, element names are compared on at most a
few characters, reading stops at ``<application>``, and at most :data:`MAX_CHUNKS` chunks
are looked at per file; a sparse type chunk is searched by bisection (its entries are
sorted by index, as ``LoadedArsc.cpp`` relies on), so a table costs one pass. Measured on
the hostile files of ``tests/doors/test_hostile_inputs.py``: each answers within a second.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import Protocol

from baremobile.safetext import decode

__all__ = ["ApkInfo", "read_apk", "ApkError", "MAX_CHUNKS", "MAX_MANIFEST", "MAX_TABLE",
           "MAX_TEXT"]

class ApkFile(Protocol):
    """What :func:`read_apk` reads: a seekable binary file, as :mod:`zipfile` reads it."""

    def seek(self, offset: int, whence: int = 0, /) -> int: ...
    def tell(self) -> int: ...
    def read(self, n: int = -1, /) -> bytes: ...


#: the largest manifest and resource table read (real ones: ~10 KB–2 MB, ~50 KB–30 MB)
MAX_MANIFEST = 8 << 20
MAX_TABLE = 64 << 20
#: the most chunks looked at in one manifest or table (a big app's table has a few
#: thousand type chunks; a manifest a few hundred elements before ``<application>``)
MAX_CHUNKS = 1 << 17
#: the longest label, package or version name kept (characters)
MAX_TEXT = 1024
#: bytes of one ``ResXMLTree_attribute``
_ATTR_SIZE = 20

_STRING_POOL, _TABLE, _XML = 0x0001, 0x0002, 0x0003
_XML_START_EL, _XML_RESOURCE_MAP = 0x0102, 0x0180
_TABLE_PACKAGE, _TABLE_TYPE = 0x0200, 0x0201
_UTF8_FLAG = 0x100
_TYPE_REFERENCE, _TYPE_STRING, _TYPE_INT_DEC, _TYPE_INT_HEX = 0x01, 0x03, 0x10, 0x11
_ATTR_LABEL, _ATTR_VERSION_CODE, _ATTR_VERSION_NAME = 0x01010001, 0x0101021B, 0x0101021C
_NO_ENTRY = 0xFFFFFFFF
# ResTable_type flags / ResTable_entry flags
_FLAG_SPARSE, _FLAG_OFFSET16 = 0x01, 0x02
_ENTRY_COMPLEX, _ENTRY_COMPACT = 0x0001, 0x0008


class ApkError(ValueError):
    """The file is not an APK this reader understands."""


@dataclass(frozen=True)
class ApkInfo:
    """What the manifest says (``label`` resolved to text when it can be)."""

    package: str
    label: str | None
    version_code: int | None
    version_name: str | None


class _StringPool:
    """A ``ResStringPool`` chunk at ``off``, decoded one string at a time (a label needs
    one or two of its strings; a hostile pool may claim millions)."""

    def __init__(self, data: bytes, off: int) -> None:
        _t, header, _size, count, _styles, flags, start, _ = struct.unpack_from(
            "<HHIIIIII", data, off)
        if off + header + 4 * count > len(data):
            raise ApkError(f"a string pool of {count} strings does not fit its file")
        self._data, self._count = data, count
        self._offsets, self._base = off + header, off + start
        self._utf8 = bool(flags & _UTF8_FLAG)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> str:
        return self.get(index, MAX_TEXT)

    def get(self, index: int, limit: int) -> str:
        """String ``index``, at most ``limit`` characters of it (only those are decoded)."""
        if not 0 <= index < self._count:
            raise IndexError(index)
        data = self._data
        p = self._base + struct.unpack_from("<I", data, self._offsets + 4 * index)[0]
        if self._utf8:
            p += 2 if data[p] & 0x80 else 1  # UTF-16 length
            n = data[p]
            if n & 0x80:
                n = ((n & 0x7F) << 8) | data[p + 1]
                p += 2
            else:
                p += 1
            return decode(data[p:p + min(n, 4 * limit)])[:limit]
        n = struct.unpack_from("<H", data, p)[0]
        p += 2
        if n & 0x8000:
            n = ((n & 0x7FFF) << 16) | struct.unpack_from("<H", data, p)[0]
            p += 2
        return decode(data[p:p + 2 * min(n, limit)], "utf-16-le")[:limit]


_NO_STRINGS: list[str] = []


def _manifest(data: bytes) -> tuple[str, tuple[int, int], int | None, str | None]:
    """(package, application label as (dataType, data) — a string index for
    ``TYPE_STRING`` —, versionCode, versionName) of a binary manifest."""
    if len(data) < 8 or struct.unpack_from("<H", data, 0)[0] != _XML:
        raise ApkError("AndroidManifest.xml is not binary XML")
    pos = struct.unpack_from("<H", data, 2)[0]
    strings: _StringPool | list[str] = _NO_STRINGS
    ids: tuple[int, ...] = ()
    package, label, code, name = "", (0, 0), None, None
    names: dict[int, str] = {}  # element name index -> its first characters
    for _ in range(MAX_CHUNKS):
        if pos + 8 > len(data):
            break
        ctype, header, size = struct.unpack_from("<HHI", data, pos)
        if size < 8 or header > size or pos + size > len(data):
            break
        if ctype == _STRING_POOL:
            strings = _StringPool(data, pos)
        elif ctype == _XML_RESOURCE_MAP:
            ids = struct.unpack_from(f"<{(size - 8) // 4}I", data, pos + 8)
        elif ctype == _XML_START_EL and size >= 36:
            index = struct.unpack_from("<I", data, pos + 20)[0]
            el_name = names.get(index)
            if el_name is None:
                el_name = strings.get(index, 12) if isinstance(strings, _StringPool) and \
                    index < len(strings) else ""
                if len(names) < 4096:
                    names[index] = el_name
            if el_name in ("manifest", "application"):
                a_start, a_size, a_count = struct.unpack_from("<HHH", data, pos + 24)
                if a_size < _ATTR_SIZE or 16 + a_start + a_count * a_size > size:
                    raise ApkError(f"<{el_name}> claims {a_count} attributes that do not "
                                   "fit its chunk")
                for k in range(a_count):
                    a = pos + 16 + a_start + k * a_size  # after the node header, in the ext
                    _ns, aname, raw, _vs, _r, dtype, value = struct.unpack_from(
                        "<IIIHBBI", data, a)
                    # the resource map names android attributes even when their names are not
                    attr = ids[aname] if aname < len(ids) else (
                        strings.get(aname, 16) if isinstance(strings, _StringPool)
                        and aname < len(strings) else "")
                    text = strings[raw] if raw != _NO_ENTRY and raw < len(strings) else None
                    if el_name == "manifest" and attr == "package":
                        package = text or ""
                    elif el_name == "manifest" and attr in (_ATTR_VERSION_CODE, "versionCode"):
                        code = value if dtype in (_TYPE_INT_DEC, _TYPE_INT_HEX) else None
                    elif el_name == "manifest" and attr in (_ATTR_VERSION_NAME, "versionName"):
                        name = text if dtype == _TYPE_STRING else name
                    elif el_name == "application" and attr in (_ATTR_LABEL, "label"):
                        label = (_TYPE_STRING, raw) if dtype == _TYPE_STRING else (dtype, value)
                if el_name == "application":
                    return package, label, code, name  # all that is needed is read
        pos += size
    else:
        raise ApkError(f"AndroidManifest.xml has more than {MAX_CHUNKS} chunks before "
                       "<application>")
    return package, label, code, name


def _resolve(table: bytes, resid: int, language: str, depth: int = 0) -> str | None:
    """The string resource ``resid`` in the resource table (following references)."""
    if depth > 4 or len(table) < 12 or struct.unpack_from("<H", table, 0)[0] != _TABLE:
        return None
    pkg_id, type_id, entry_id = resid >> 24, (resid >> 16) & 0xFF, resid & 0xFFFF
    pos = struct.unpack_from("<H", table, 2)[0]
    values: _StringPool | list[str] = _NO_STRINGS
    best: tuple[int, int, int] | None = None  # (score, dtype, data)
    budget = MAX_CHUNKS  # chunks looked at, nested ones included
    while pos + 8 <= len(table):
        ctype, header, size = struct.unpack_from("<HHI", table, pos)
        budget -= 1
        if size < 8 or header > size or pos + size > len(table) or budget < 0:
            break
        if ctype == _STRING_POOL and values is _NO_STRINGS:
            values = _StringPool(table, pos)
        elif ctype == _TABLE_PACKAGE and struct.unpack_from("<I", table, pos + 8)[0] == pkg_id:
            sub = pos + header
            end = pos + size
            while sub + 8 <= end:
                st, sh, ss = struct.unpack_from("<HHI", table, sub)
                budget -= 1
                if ss < 8 or sh > ss or sub + ss > end or budget < 0:
                    break
                if st == _TABLE_TYPE and sh >= 20 and table[sub + 8] == type_id:
                    found = _entry(table, sub, sh, ss, entry_id)
                    if found is not None:
                        lang = table[sub + 20 + 8:sub + 20 + 10].rstrip(b"\0").decode(
                            "ascii", "replace")
                        score = 2 if lang and lang == language else (1 if not lang else 0)
                        if best is None or score > best[0]:
                            best = (score, *found)
                sub += ss
        pos += size
    if best is None:
        return None
    _, dtype, data = best
    if dtype == _TYPE_STRING and data < len(values):
        return values[data]
    if dtype == _TYPE_REFERENCE:
        return _resolve(table, data, language, depth + 1)
    return None


def _entry(table: bytes, pos: int, header: int, size: int, entry_id: int
           ) -> tuple[int, int] | None:
    """(dataType, data) of entry ``entry_id`` in the type chunk at ``pos`` (``size`` bytes,
    its offsets array inside it, else no entry)."""
    flags = table[pos + 9]
    count, start = struct.unpack_from("<II", table, pos + 12)
    offsets_at = pos + header
    width = 4 if flags & _FLAG_SPARSE or not flags & _FLAG_OFFSET16 else 2
    if offsets_at + width * count > pos + size or start > size:
        return None  # an offsets array beyond its chunk: what it claims is not there
    if flags & _FLAG_SPARSE:  # (idx, offset / 4) pairs sorted by idx: bisect
        lo, hi = 0, count
        while lo < hi:
            mid = (lo + hi) // 2
            if struct.unpack_from("<H", table, offsets_at + 4 * mid)[0] < entry_id:
                lo = mid + 1
            else:
                hi = mid
        if lo == count:
            return None
        idx, o16 = struct.unpack_from("<HH", table, offsets_at + 4 * lo)
        if idx != entry_id:
            return None
        off = o16 * 4
    else:
        if entry_id >= count:
            return None
        if flags & _FLAG_OFFSET16:
            o = struct.unpack_from("<H", table, offsets_at + 2 * entry_id)[0]
            if o == 0xFFFF:
                return None
            off = o * 4
        else:
            off = struct.unpack_from("<I", table, offsets_at + 4 * entry_id)[0]
            if off == _NO_ENTRY:
                return None
    e = pos + start + off
    size_, eflags = struct.unpack_from("<HH", table, e)
    if eflags & _ENTRY_COMPACT:  # key in `size`, dataType in the flags' high byte
        return eflags >> 8, struct.unpack_from("<I", table, e + 4)[0]
    if eflags & _ENTRY_COMPLEX:
        return None
    _vsize, _res0, dtype, data = struct.unpack_from("<HBBI", table, e + size_)
    return dtype, data


def read_apk(f: ApkFile, *, language: str = "en") -> ApkInfo:
    """Package, label, version code and name of the APK in ``f`` (seekable).

    Whatever ``f`` holds (the device's file: any app's bytes), this returns or raises
    :class:`ApkError`: entries that say they inflate beyond :data:`MAX_MANIFEST` /
    :data:`MAX_TABLE` are refused before being inflated, and one that lies about its size
    is cut at what it said (``zipfile`` then reports the bad checksum).
    """
    try:
        with zipfile.ZipFile(f) as z:
            manifest = _entry_bytes(z, "AndroidManifest.xml", MAX_MANIFEST)
            package, (ltype, ldata), code, name = _manifest(manifest)
            label: str | None = None
            if ltype == _TYPE_STRING:
                label = _label_string(manifest, ldata)
            elif ltype == _TYPE_REFERENCE:
                try:
                    table = _entry_bytes(z, "resources.arsc", MAX_TABLE)
                except KeyError:
                    table = b""
                label = _resolve(table, ldata, language)
    except ApkError:
        raise
    # zipfile's own failures (bad or truncated archive, an encrypted entry, an unknown
    # compression method, a broken deflate stream) and the chunk readers' out-of-bounds
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, struct.error, IndexError,
            zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError,
            OverflowError) as exc:
        raise ApkError(f"not a readable APK: {type(exc).__name__}: {exc}") from None
    return ApkInfo(package, label, code, name)


def _entry_bytes(z: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """The inflated bytes of entry ``name`` (KeyError when absent), at most ``limit``."""
    info = z.getinfo(name)
    if info.file_size > limit:
        raise ApkError(f"{name} is too large ({info.file_size} bytes; at most {limit} are "
                       "read)")
    with z.open(info) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:  # pragma: no cover - zipfile stops at file_size
        raise ApkError(f"{name} is too large (more than {limit} bytes)")
    return data


def _label_string(manifest: bytes, index: int) -> str | None:
    pos = struct.unpack_from("<H", manifest, 2)[0]
    if struct.unpack_from("<H", manifest, pos)[0] != _STRING_POOL:
        return None
    strings = _StringPool(manifest, pos)
    return strings[index] if index < len(strings) else None
