"""Backslash escapes as mksh decodes them: in ``$'...'`` strings and in ``echo``/``print``.

Shared by the lexer (``$'\\n'``), the ``echo`` builtin and the toybox programs that expand
escapes (``printf %b``, ``echo -e``); it knows nothing of the rest of the shell.
"""

from __future__ import annotations

__all__ = ["unbackslash", "mksh_print_escapes"]

_SIMPLE_ESC = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
               "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"'}


def unbackslash(s: str, i: int, *, cstyle: bool) -> tuple[str, int]:
    """Decode the escape after a backslash at ``s[i]`` (mksh's ``unbksl``).

    Returns ``(text, new_index)``; an unknown escape returns ``"\\" + char`` — in
    ``$'...'`` (``cstyle``) just the char, as mksh does (``$'\\q'`` is ``q``).
    """
    c = s[i] if i < len(s) else ""
    if c == "":
        return "\\", i
    if c in _SIMPLE_ESC and (cstyle or c not in "'\""):
        return _SIMPLE_ESC[c], i + 1
    if c == "c" and cstyle and i + 1 < len(s):
        nxt = s[i + 1]
        return chr(0x7F if nxt == "?" else ord(nxt.upper()) & 0x1F), i + 2
    if c in "01234567" and (cstyle or c == "0"):
        j = i if cstyle else i + 1
        digits = ""
        while j < len(s) and len(digits) < 3 and s[j] in "01234567":
            digits += s[j]
            j += 1
        return chr(int(digits or "0", 8) & 0xFF), j
    if c in "xuU":
        width = {"x": 2, "u": 4, "U": 8}[c]
        j = i + 1
        digits = ""
        while j < len(s) and len(digits) < width and s[j] in "0123456789abcdefABCDEF":
            digits += s[j]
            j += 1
        if not digits:
            return ("" if cstyle else "\\") + c, i + 1
        val = int(digits, 16)
        return (chr(val) if c != "x" else chr(val & 0xFF)), j
    return ("" if cstyle else "\\") + c, i + 1


def mksh_print_escapes(text: str, *, stop_at_c: bool = False) -> tuple[str, bool]:
    """Backslash escapes as mksh's ``echo``/``print`` expand them.

    Returns ``(text, saw_c)``. ``\\c`` suppresses the trailing newline; mksh's echo
    keeps printing the rest of its arguments, while ``stop_at_c`` (printf ``%b``,
    toybox ``echo -e``) cuts the output there.
    """
    saw_c = False
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 < len(text) and text[i + 1] == "c":
            if stop_at_c:
                return "".join(out), True
            saw_c = True
            i += 2
            continue
        val, i = unbackslash(text, i + 1, cstyle=False)
        out.append(val)
    return "".join(out), saw_c

