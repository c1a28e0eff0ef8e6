"""Hostile APKs (issue 21): small downloads whose manifest or resource table would cost hours
of CPU to a reader that trusts their counts. Shared by ``tests/doors/test_hostile_inputs.py`` and
``benchmarks/hostile.py``."""

from __future__ import annotations

import io
import struct
import zipfile

from baremobile.virtual.apk import manifest, string_pool

__all__ = ["HOSTILE_APKS", "REFERENCED", "apk_of", "element_bomb", "sparse_table_bomb"]

_XML, _START_EL, _TABLE, _PACKAGE, _TYPE = 0x0003, 0x0102, 0x0002, 0x0200, 0x0201


def element_bomb(elements: int, name: str, count: int = 65535, size: int = 0) -> bytes:
    """A binary manifest of ``elements`` start-element chunks named ``name``, each 36 bytes
    and claiming ``count`` attributes of ``size`` bytes (real ones: 20 bytes each, inside
    the chunk)."""
    pool = string_pool(["manifest", "application", "x"], utf8=False)
    index = {"manifest": 0, "application": 1, "x": 2}[name]
    one = struct.pack("<HHIII", _START_EL, 16, 36, 1, 0xFFFFFFFF) + \
        struct.pack("<IIHHHHHH", 0xFFFFFFFF, index, 20, size, count, 0, 0, 0)
    body = pool + one * elements
    return struct.pack("<HHI", _XML, 8, 8 + len(body)) + body


def sparse_table_bomb(chunks: int) -> bytes:
    """A resource table whose package holds ``chunks`` sparse type chunks of the label's
    type, each claiming as many entries as there are bytes to the end of the table (so a
    reader that trusts the count walks on to the end, for every chunk) while holding
    sixteen bytes of them — all ``0x01``, no entry id 0 anywhere."""
    cfg = struct.pack("<I", 64) + b"\x01" * 60
    header = 20 + len(cfg)
    size = header + 16
    one = struct.pack("<HHIBBHII", _TYPE, header, size, 1, 0x01, 0, 0, header + 4) + cfg \
        + b"\x01" * 16
    type_pool, key_pool = string_pool(["string"]), string_pool(["app_name"])
    body = type_pool + key_pool + one * chunks
    name = "org.evil".encode("utf-16-le").ljust(256, b"\1")
    rest = struct.pack("<IIIII", 288, 1, 288 + len(type_pool), 1, 0)
    pkg = struct.pack("<HHII", _PACKAGE, 288, 288 + len(body), 0x7F) + name + rest + body
    pool = string_pool(["Evil"])
    table = bytearray(struct.pack("<HHII", _TABLE, 12, 12 + len(pool) + len(pkg), 1)
                      + pool + pkg)
    first = len(table) - chunks * size
    for i in range(chunks):
        at = first + i * size
        struct.pack_into("<I", table, at + 12, (len(table) - (at + header)) // 4)
    return bytes(table)


def apk_of(manifest_bytes: bytes, table: bytes | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("AndroidManifest.xml", manifest_bytes)
        if table is not None:
            z.writestr("resources.arsc", table)
    return buf.getvalue()


#: the label is a reference to @string/app_name: the table is read
REFERENCED = manifest("org.evil", 1, "1.0", None, "org.evil.Main")
HOSTILE_APKS = {
    "attributes that do not fit on <manifest>": apk_of(element_bomb(200_000, "manifest")),
    "attributes that do not fit on every element": apk_of(element_bomb(200_000, "x")),
    "attributes that do not fit on <application>": apk_of(
        element_bomb(1, "application", count=60_000, size=20)),
    "sparse chunks claiming entries to the end": apk_of(REFERENCED, sparse_table_bomb(60_000)),
}
