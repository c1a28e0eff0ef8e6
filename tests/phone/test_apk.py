"""Reading an app's label from its APK (:mod:`baremobile.android.apk`): the real APKs the virtual
phone serves at ``pm path`` (pulled over ADB), and hostile variants of them.

The APK comes from the device — any app's file, so anyone who can install an app chooses
its bytes. Whatever they are, :func:`read_apk` returns or raises :class:`ApkError`; it
never hangs, never raises ``IndexError``/``struct.error``/``zlib.error``…, and never
inflates more than a bounded amount of memory (a zip bomb is refused by its sizes).
"""

from __future__ import annotations

import io
import struct
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.android.apk import MAX_MANIFEST, MAX_TABLE, ApkError, ApkInfo, read_apk
from baremobile.page import connect
from baremobile.virtual import VirtualPhone
from baremobile.virtual.apk import BASE_LABELS
from tests.conftest import free_port


def _pm_paths(page) -> dict[str, str]:
    """package -> APK path, as ``pm list packages -f`` says."""
    out = {}
    for line in page.shell("pm list packages -f").splitlines():
        path, _, pkg = line.removeprefix("package:").rpartition("=")
        out[pkg] = path
    return out


_PULLED: dict[str, bytes] = {}


def _apks() -> dict[str, bytes]:
    """Every installed package's APK as the virtual phone serves it (pulled over ADB once)."""
    if not _PULLED:
        with VirtualPhone(port=free_port(), auth="none") as phone, \
                connect(phone.address, keys=[]) as page:
            _PULLED.update({pkg: page.pull(path) for pkg, path in _pm_paths(page).items()})
    return _PULLED


@pytest.fixture
def real_apks() -> dict[str, bytes]:
    return _apks()


def test_every_package_has_its_own_apk(real_apks):
    """Two packages never share an APK file: each manifest names its own package, and the
    base packages carry the labels the phone gives them (com.android.providers.settings
    once shared com.android.settings' file and was labelled "Settings")."""
    with VirtualPhone(port=free_port(), auth="none") as phone, \
            connect(phone.address, keys=[]) as page:
        paths = _pm_paths(page)
    assert len(set(paths.values())) == len(paths), paths
    for pkg, data in real_apks.items():
        info = read_apk(io.BytesIO(data))
        assert info.package == pkg
        if pkg in BASE_LABELS:
            assert info.label == BASE_LABELS[pkg], pkg


def test_labels_in_the_requested_language(real_apks):
    weather = real_apks["org.baremobile.weather"]
    assert read_apk(io.BytesIO(weather)) == ApkInfo("org.baremobile.weather", "Weather",
                                                    read_apk(io.BytesIO(weather)).version_code,
                                                    read_apk(io.BytesIO(weather)).version_name)
    assert read_apk(io.BytesIO(weather), language="fr").label == "Météo"
    assert read_apk(io.BytesIO(weather), language="de").label == "Weather"  # the default


# -- hostile files ---------------------------------------------------------------------------


def _entries(apk: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(apk)) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def _zip(entries: dict[str, bytes], method: int = zipfile.ZIP_STORED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in entries.items():
            z.writestr(zipfile.ZipInfo(name, (2008, 1, 1, 0, 0, 0)), data, compress_type=method)
    return buf.getvalue()


def _read_or_typed(data: bytes) -> None:
    try:
        info = read_apk(io.BytesIO(data))
    except ApkError:
        return
    assert isinstance(info, ApkInfo)
    assert info.label is None or isinstance(info.label, str)


#: one byte changed at a position, or a 32-bit field overwritten (counts, sizes, offsets)
_edit = st.one_of(
    st.tuples(st.just("byte"), st.integers(0, 1 << 20), st.integers(0, 255)),
    st.tuples(st.just("u32"), st.integers(0, 1 << 20),
              st.sampled_from([0, 1, 7, 8, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF,
                               0xFFFFFFFF])),
    st.tuples(st.just("cut"), st.integers(0, 1 << 20), st.just(0)),
)


def _mutate(data: bytes, edits: list[tuple[str, int, int]]) -> bytes:
    b = bytearray(data)
    for kind, pos, value in edits:
        if not b:
            break
        pos %= len(b)
        if kind == "byte":
            b[pos] = value
        elif kind == "u32" and pos + 4 <= len(b):
            struct.pack_into("<I", b, pos, value)
        elif kind == "cut":
            del b[pos:]
    return bytes(b)


_PACKAGES = ["org.baremobile.weather", "org.baremobile.notes", "android",
             "com.android.settings"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_PACKAGES), st.sampled_from(["AndroidManifest.xml", "resources.arsc"]),
       st.lists(_edit, min_size=1, max_size=6), st.booleans())
def test_mutated_manifests_and_tables_read_or_fail_typed(package, entry, edits, deflate):
    """The manifest or the resource table of a real APK, damaged, zipped again."""
    entries = _entries(_apks()[package])
    if entry not in entries:
        entry = "AndroidManifest.xml"
    entries[entry] = _mutate(entries[entry], edits)
    _read_or_typed(_zip(entries, zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_PACKAGES), st.lists(_edit, min_size=1, max_size=6))
def test_mutated_apk_files_read_or_fail_typed(package, edits):
    """The APK's own bytes damaged: local headers, deflate streams, the central directory."""
    _read_or_typed(_mutate(_apks()[package], edits))


@pytest.mark.parametrize("damage", [
    "encrypted", "unknown method", "bad deflate stream", "truncated deflate stream",
    "not a zip", "empty",
])
def test_zip_level_damage_is_an_apk_error(real_apks, damage):
    """Each way :mod:`zipfile` itself gives up is one typed error."""
    apk = bytearray(real_apks["org.baremobile.weather"])
    with zipfile.ZipFile(io.BytesIO(bytes(apk))) as z:
        info = z.getinfo("AndroidManifest.xml")
    local = info.header_offset
    cd = apk.index(b"PK\x01\x02")  # the first entry of the central directory: the manifest
    data_at = local + 30 + len(info.filename) + len(info.extra)
    if damage == "encrypted":  # general purpose flag bit 0, in both headers
        apk[local + 6] |= 1
        apk[cd + 8] |= 1
    elif damage == "unknown method":
        struct.pack_into("<H", apk, local + 8, 99)
        struct.pack_into("<H", apk, cd + 10, 99)
    elif damage == "bad deflate stream":
        apk[data_at:data_at + 4] = b"\xff\xff\xff\xff"
    elif damage == "truncated deflate stream":
        # the entry claims more compressed bytes than its stream has: inflate ends early
        apk[data_at + 2:data_at + info.compress_size] = b"\0" * (info.compress_size - 2)
    elif damage == "not a zip":
        apk = bytearray(b"\x7fELF" + bytes(200))
    elif damage == "empty":
        apk = bytearray()
    with pytest.raises(ApkError):
        read_apk(io.BytesIO(bytes(apk)))


def test_a_zip_bomb_is_refused_by_its_sizes(real_apks):
    """An entry that says it inflates to more than the limit is refused before it is
    inflated; one that lies (says 100 bytes, inflates to 64 MiB) stops at what it said."""
    entries = _entries(real_apks["org.baremobile.weather"])
    big = entries["AndroidManifest.xml"] + b"\0" * (MAX_MANIFEST + 1)
    with pytest.raises(ApkError, match="too large"):
        read_apk(io.BytesIO(_zip({**entries, "AndroidManifest.xml": big},
                                 zipfile.ZIP_DEFLATED)))
    table = entries["resources.arsc"] + b"\0" * (MAX_TABLE + 1)
    with pytest.raises(ApkError, match="too large"):
        read_apk(io.BytesIO(_zip({**entries, "resources.arsc": table}, zipfile.ZIP_DEFLATED)))
    apk = bytearray(_zip({**entries, "AndroidManifest.xml": b"\0" * (64 << 20)},
                         zipfile.ZIP_DEFLATED))
    with zipfile.ZipFile(io.BytesIO(bytes(apk))) as z:
        info = z.getinfo("AndroidManifest.xml")
    struct.pack_into("<I", apk, info.header_offset + 22, 100)  # uncompressed size: local
    for cd in range(apk.index(b"PK\x01\x02"), len(apk) - 46):  # and central header
        if apk[cd:cd + 4] == b"PK\x01\x02" and apk[cd + 46:cd + 65] == b"AndroidManifest.xml":
            struct.pack_into("<I", apk, cd + 24, 100)
    with pytest.raises(ApkError):
        read_apk(io.BytesIO(bytes(apk)))


# -- the encodings aapt2 writes (ResourceTypes.h), beyond the virtual phone's plain ones -----

_LABEL_ID = 0x7F010000  # @string/app_name, as the virtual phone's manifests reference it


def _type_chunk(entries: dict[int, int], count: int, language: str, encoding: str,
                compact: bool) -> bytes:
    """A ``ResTable_type`` of string entries (entry id -> value string index): plain 32-bit
    offsets, 16-bit offsets (``FLAG_OFFSET16``) or sparse (``FLAG_SPARSE``), with full or
    compact (``FLAG_COMPACT``, Android 14's aapt2) entries."""
    from baremobile.virtual.apk import _config

    body, where = b"", {}
    for eid in sorted(entries):
        where[eid] = len(body)
        if compact:  # key index, flags (data type in the high byte), data
            body += struct.pack("<HHI", 0, 0x0008 | (0x03 << 8), entries[eid])
        else:
            body += struct.pack("<HHI", 8, 0, 0) + struct.pack("<HBBI", 8, 0, 0x03,
                                                               entries[eid])
    if encoding == "sparse":
        offsets = b"".join(struct.pack("<HH", eid, where[eid] // 4) for eid in sorted(entries))
        flags = 0x01
    elif encoding == "offset16":
        offsets = b"".join(struct.pack("<H", where[e] // 4 if e in where else 0xFFFF)
                           for e in range(count))
        offsets += b"\0" * (-len(offsets) % 4)
        flags = 0x02
    else:
        offsets = b"".join(struct.pack("<I", where.get(e, 0xFFFFFFFF)) for e in range(count))
        flags = 0
    cfg = _config(language)
    header = 20 + len(cfg)
    n = len(entries) if encoding == "sparse" else count
    head = struct.pack("<HHIBBHII", 0x0201, header, header + len(offsets) + len(body), 1,
                       flags, 0, n, header + len(offsets)) + cfg
    return head + offsets + body


def _table(values: list[str], chunks: list[bytes], *, utf8: bool) -> bytes:
    from baremobile.virtual.apk import string_pool

    type_pool, key_pool = string_pool(["string"]), string_pool(["app_name", "other"])
    spec = struct.pack("<HHIBBHI", 0x0202, 16, 20, 1, 0, 0, 1) + struct.pack("<I", 0)
    body = type_pool + key_pool + spec + b"".join(chunks)
    header = 288
    name = "org.baremobile.weather".encode("utf-16-le").ljust(256, b"\0")
    rest = struct.pack("<IIIII", header, 1, header + len(type_pool), 2, 0)
    pkg = struct.pack("<HHII", 0x0200, header, header + len(body), 0x7F) + name + rest + body
    pool = string_pool(values, utf8=utf8)
    return struct.pack("<HHII", 0x0002, 12, 12 + len(pool) + len(pkg), 1) + pool + pkg


@pytest.mark.parametrize("encoding", ["offsets32", "offset16", "sparse"])
@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
@pytest.mark.parametrize("utf8", [True, False], ids=["utf8", "utf16"])
def test_every_type_chunk_encoding_resolves_the_label(real_apks, encoding, compact, utf8):
    """The label entry among others (ids 0 and 3 of 4, 1 and 2 absent), a default and a
    French configuration: each encoding finds the right string in the right language."""
    values = ["Other", "Wetter-Standard", "Autre", "Météo ✓"]
    chunks = [_type_chunk({0: 1, 3: 0}, 4, "", encoding, compact),
              _type_chunk({0: 3, 3: 2}, 4, "fr", encoding, compact)]
    entries = _entries(real_apks["org.baremobile.weather"])
    entries["resources.arsc"] = _table(values, chunks, utf8=utf8)
    apk = _zip(entries)
    assert read_apk(io.BytesIO(apk)).label == "Wetter-Standard"
    assert read_apk(io.BytesIO(apk), language="fr").label == "Météo ✓"
    # the label entry missing from the French configuration: the default one is used
    entries["resources.arsc"] = _table(values, [chunks[0], _type_chunk(
        {3: 2}, 4, "fr", encoding, compact)], utf8=utf8)
    assert read_apk(io.BytesIO(_zip(entries)), language="fr").label == "Wetter-Standard"
