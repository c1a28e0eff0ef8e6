"""SharedPreferences files: reading, editing and writing them as Android does (no I/O).

An app's ``shared_prefs/NAME.xml`` is the map ``XmlUtils.writeMapXml`` writes (AOSP
``frameworks/base/core/java/com/android/internal/util/XmlUtils.java``) through
``FastXmlSerializer``::

    <?xml version='1.0' encoding='utf-8' standalone='yes' ?>
    <map>
        <string name="user">ada</string>
        <int name="launches" value="3" />
        <boolean name="onboarded" value="true" />
        <set name="tags">
            <string>a</string>
        </set>
    </map>

:func:`parse` reads one (defused: no DTDs, no entities) into an ordered list of
:class:`Entry`; :func:`set_value` / :func:`remove` edit it; :func:`render` writes it back in
that format, untouched entries as they were. Typed values come as strings (AutoMobile's
``ide/setKeyValue``: ``value`` is a string, ``type`` one of :data:`TYPES`) and are checked
the way the app would read them back (an ``int`` is a 32-bit integer, a ``boolean`` is
``true`` or ``false``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from baremobile.errors import InvalidArgument

__all__ = ["TYPES", "Entry", "PrefsError", "check_file_name", "check_text", "parse", "remove",
           "render", "set_value"]

#: AutoMobile's type names → the element ``XmlUtils`` writes
TYPES = {"STRING": "string", "INT": "int", "LONG": "long", "FLOAT": "float",
         "BOOLEAN": "boolean", "STRING_SET": "set"}
_SCALARS = ("int", "long", "float", "double", "boolean")
_HEADER = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n"
_FILE_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,200}")
#: a character XML 1.0 cannot carry, raw or as a reference (``&#1;`` is not well-formed
#: either): C0 controls but tab, newline and carriage return, U+FFFE, U+FFFF, surrogates
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class PrefsError(InvalidArgument):
    """A SharedPreferences file that is not the map Android writes."""

    code = "INVALID_PREFERENCES"
    default_hint = "the file is not a SharedPreferences map this API can read: clearing it " \
                   "(clear_preferences, ide/clearKeyValueFile) writes an empty map in its " \
                   "place, its keys lost"


@dataclass
class Entry:
    """One preference: its element (``string``, ``int`` … ``set``), key and value —
    the text for a string, the ``value`` attribute for a scalar, the strings of a set."""

    tag: str
    name: str
    value: str | None = None
    items: list[str] = field(default_factory=list)


def check_file_name(name: Any) -> str:
    """A preferences file's name without ``.xml``: letters, digits, ``_ . -`` only (it is a
    path inside the app's ``shared_prefs``, so nothing may climb out)."""
    if not isinstance(name, str) or not _FILE_NAME.fullmatch(name) or name in (".", ".."):
        raise InvalidArgument(f"fileName must be a SharedPreferences file name (letters, "
                              f"digits, _ . -), not {name!r}",
                              hint="e.g. com.example.app_preferences (without .xml)")
    return name[:-4] if name.endswith(".xml") else name


def check_text(what: str, text: str) -> str:
    """``text`` when a preferences file can hold it; else :class:`InvalidArgument` naming
    the first character XML 1.0 cannot carry (a control character, U+FFFE, U+FFFF, a lone
    surrogate): Android's writer would escape it as ``&#1;``, which no XML reader — this
    module's included — reads back, so the file could not be edited again."""
    bad = _NOT_XML.search(text)
    if bad is not None:
        raise InvalidArgument(f"{what} holds U+{ord(bad.group()):04X} at index {bad.start()}, "
                              "which a preferences file (XML) cannot hold: nothing was written",
                              hint="remove control characters; tab, newline and carriage "
                                   "return are kept")
    return text


def parse(xml: str | bytes) -> list[Entry]:
    """The entries of a SharedPreferences file, in file order (an empty file: none)."""
    from defusedxml import ElementTree
    from defusedxml.common import DefusedXmlException

    if isinstance(xml, bytes):
        xml = xml.decode("utf-8", "replace")
    if not xml.strip():
        return []
    try:
        root = ElementTree.fromstring(xml)
    except (ElementTree.ParseError, DefusedXmlException) as exc:
        raise PrefsError(f"the preferences file is not XML Android wrote: {exc}") from None
    if root.tag != "map":
        raise PrefsError(f"the preferences file's root is <{root.tag}>, not <map>")
    out = []
    for el in root:
        name = el.get("name")
        if name is None:
            raise PrefsError(f"a <{el.tag}> without a name in the preferences file")
        if el.tag == "string":
            out.append(Entry("string", name, el.text or ""))
        elif el.tag == "set":
            out.append(Entry("set", name, items=[(s.text or "") for s in el
                                                 if s.tag == "string"]))
        elif el.tag == "null":
            out.append(Entry("null", name))
        else:
            out.append(Entry(el.tag, name, el.get("value", "")))
    return out


def _typed(kind: str, value: Any, key: str) -> Entry:
    tag = TYPES.get(kind.upper()) if isinstance(kind, str) else None
    if tag is None:
        raise InvalidArgument(f"type must be one of {', '.join(TYPES)}, not {kind!r}")
    if tag == "set":
        items = value
        if isinstance(value, str):
            try:
                items = json.loads(value)
            except ValueError:
                raise InvalidArgument("a STRING_SET value is a JSON array of strings, e.g. "
                                      '["a", "b"]') from None
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise InvalidArgument("a STRING_SET value is a JSON array of strings")
        for n, item in enumerate(items):
            check_text(f"item {n} of the value", item)
        return Entry("set", key, items=list(dict.fromkeys(items)))
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float)):
        text = str(value)
    elif isinstance(value, str):
        check_text("the value", value)
        text = value if tag == "string" else value.strip()
    else:
        raise InvalidArgument(f"a {kind} value is a string, not {type(value).__name__}")
    if tag in ("int", "long"):
        bits = 31 if tag == "int" else 63
        if not re.fullmatch(r"[+-]?\d+", text) or not -(2 ** bits) <= int(text) < 2 ** bits:
            raise InvalidArgument(f"{kind} value {value!r} is not a {bits + 1}-bit integer")
        text = str(int(text))
    elif tag == "float":
        try:
            f = float(text)
        except ValueError:
            raise InvalidArgument(f"FLOAT value {value!r} is not a number") from None
        if not math.isfinite(f):
            text = "NaN" if math.isnan(f) else ("Infinity" if f > 0 else "-Infinity")
        else:
            text = repr(f)
    elif tag == "boolean":
        if text.lower() not in ("true", "false"):
            raise InvalidArgument(f"BOOLEAN value {value!r} is not true or false")
        text = text.lower()
    return Entry(tag, key, text)


def set_value(entries: list[Entry], key: str, value: Any, kind: str) -> list[Entry]:
    """``entries`` with ``key`` set to ``value`` of ``kind`` (:data:`TYPES`) — replaced in
    place when present, else added at the end; ``value`` None removes the key."""
    if not isinstance(key, str) or not key:
        raise InvalidArgument("key must be a non-empty string")
    check_text("the key", key)
    if value is None:
        return remove(entries, key)
    new = _typed(kind, value, key)
    out = [new if e.name == key else e for e in entries]
    if not any(e.name == key for e in entries):
        out.append(new)
    return out


def remove(entries: list[Entry], key: str) -> list[Entry]:
    """``entries`` without ``key`` (the same when it is absent)."""
    return [e for e in entries if e.name != key]


def _escape(text: str, attr: bool = False) -> str:
    out = []
    for ch in text:
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"' and attr:
            out.append("&quot;")
        elif ord(ch) < 0x20 and (attr or ch not in "\n\t"):
            out.append(f"&#{ord(ch)};")  # an attribute's newline would read back as a space
        else:
            out.append(ch)
    return "".join(out)


def render(entries: list[Entry]) -> str:
    """The file's text, as ``XmlUtils.writeMapXml`` writes it — only what reads back
    (:func:`check_text`): a file this module writes, it can read and edit again."""
    lines = [_HEADER.rstrip("\n"), "<map>"]
    for e in entries:
        check_text(f"preference {e.name[:40]!r}", "".join((e.name, e.value or "", *e.items)))
        name = _escape(e.name, attr=True)
        if e.tag == "string":
            lines.append(f'    <string name="{name}">{_escape(e.value or "")}</string>')
        elif e.tag == "set":
            if not e.items:
                lines.append(f'    <set name="{name}" />')
                continue
            lines.append(f'    <set name="{name}">')
            lines.extend(f"        <string>{_escape(i)}</string>" for i in e.items)
            lines.append("    </set>")
        elif e.tag == "null":
            lines.append(f'    <null name="{name}" />')
        else:
            lines.append(f'    <{e.tag} name="{name}" value="{_escape(e.value or "", True)}" />')
    lines.append("</map>")
    return "\n".join(lines) + "\n"
