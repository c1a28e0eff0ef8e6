"""Shell patterns: globbing, ``case`` patterns, ``${x#pat}``, brace expansion.

Patterns travel with a *kinds* string, one character per character of text: ``q`` quoted
(always literal), ``l`` an unquoted literal from the source, ``e`` the unquoted result of an
expansion (globbed and split, but never brace-expanded).
"""

from __future__ import annotations

import re

__all__ = ["has_glob", "pattern_regex", "pattern_match", "brace_expand", "remove_pattern"]

def has_glob(text: str, kinds: str) -> bool:
    return any(k != "q" and c in "*?[" for c, k in zip(text, kinds, strict=True)) or (
        any(k == "l" and c in "@+!" for c, k in zip(text, kinds, strict=True)) and "(" in text
    )


def pattern_regex(text: str, kinds: str, *, path: bool = False) -> str:
    """Translate a shell pattern (quoted characters literal) to a Python regex."""
    out_: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c, k = text[i], kinds[i]
        if k == "q":
            out_.append(re.escape(c))
            i += 1
            continue
        if c in "*?@+!" and i + 1 < n and text[i + 1] == "(" and kinds[i + 1] != "q":
            j, depth = i + 2, 1
            while j < n and depth:
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                j += 1
            inner = text[i + 2:j - 1]
            alts = "|".join(pattern_regex(a, "l" * len(a), path=path) for a in inner.split("|"))
            suffix = {"*": "*", "?": "?", "+": "+", "@": ""}.get(c)
            out_.append(f"(?:{alts}){suffix}" if suffix is not None else f"(?!(?:{alts})$).*")
            i = j
            continue
        if c == "*":
            out_.append("[^/]*" if path else ".*")
        elif c == "?":
            out_.append("[^/]" if path else ".")
        elif c == "[":
            j = i + 1
            if j < n and text[j] in "!^":
                j += 1
            if j < n and text[j] == "]":
                j += 1
            while j < n and text[j] != "]":
                j += 1
            if j >= n:
                out_.append(re.escape("["))
            else:
                body = text[i + 1:j]
                neg = body[:1] in ("!", "^")
                if neg:
                    body = body[1:]
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                out_.append(f"[{'^' if neg else ''}{body}]")
                i = j
        else:
            out_.append(re.escape(c))
        i += 1
    return "".join(out_)


def pattern_match(pattern: str, kinds: str, text: str) -> bool:
    """Whole-string shell pattern match."""
    try:
        return re.fullmatch(pattern_regex(pattern, kinds), text, re.S) is not None
    except re.error:
        return pattern == text


def brace_expand(text: str, kinds: str) -> list[tuple[str, str]]:
    """mksh brace expansion ``a{b,c}d`` on unquoted source braces."""
    n = len(text)
    for i in range(n):
        if text[i] != "{" or kinds[i] == "q":
            continue
        depth = 0
        commas: list[int] = []
        for j in range(i, n):
            if kinds[j] == "q":
                continue
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    if not commas:
                        break
                    pre, pk = text[:i], kinds[:i]
                    post, qk = text[j + 1:], kinds[j + 1:]
                    bounds = [i, *commas, j]
                    results: list[tuple[str, str]] = []
                    for a, b in zip(bounds, bounds[1:], strict=False):
                        alt, ak = text[a + 1:b], kinds[a + 1:b]
                        results.extend(brace_expand(pre + alt + post, pk + ak + qk))
                    return results
            elif text[j] == "," and depth == 1:
                commas.append(j)
        if depth:
            break  # the first brace is never closed: mksh leaves the word alone
    return [(text, kinds)]



def remove_pattern(value: str, pat: str, kinds: str, op: str) -> str:
    """``${x#pat}``, ``${x##pat}``, ``${x%pat}``, ``${x%%pat}``."""
    try:
        rx = re.compile(pattern_regex(pat, kinds), re.S)
    except re.error:
        return value
    n = len(value)
    if op in ("#", "##"):
        rng = range(n + 1) if op == "#" else range(n, -1, -1)
        for k in rng:
            if rx.fullmatch(value[:k]):
                return value[k:]
    else:
        rng = range(n, -1, -1) if op == "%" else range(n + 1)
        for k in rng:
            if rx.fullmatch(value[k:]):
                return value[:k]
    return value
