"""``$(( ))``: integer arithmetic with C precedence and assignments to shell variables."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from .syntax import NAME_RE

__all__ = ["Arithmetic"]


class Variables(Protocol):
    """The shell's variables, as arithmetic reads and assigns them."""

    def get_var(self, name: str) -> str | None: ...

    def set_var(self, name: str, value: str) -> None: ...


_ARITH_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|([A-Za-z_][A-Za-z0-9_]*)|"
    r"(\*\*|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\+\+|--|[-+*/%<>=!~&^|?:()]))"
)


class Arithmetic:
    """Integer arithmetic for ``$(( ))`` (C precedence, 64-bit wraparound ignored)."""

    _BIN = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
            ("<<", ">>"), ("+", "-"), ("*", "/", "%")]

    def __init__(self, text: str, shell: Variables) -> None:
        self.toks: list[str] = []
        self.shell = shell
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _ARITH_TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(f"{text}: syntax error")
            self.toks.append(m.group(m.lastindex or 1))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        self.k = 0

    def _peek(self) -> str:
        return self.toks[self.k] if self.k < len(self.toks) else ""

    def _take(self) -> str:
        t = self._peek()
        self.k += 1
        return t

    def run(self) -> int:
        if not self.toks:
            return 0
        v = self._assign()
        if self.k != len(self.toks):
            raise ValueError(f"unexpected '{self._peek()}'")
        return v

    def _var(self, name: str) -> int:
        raw = (self.shell.get_var(name) or "0").strip() or "0"
        try:
            return int(raw, 0)
        except ValueError:
            return Arithmetic(raw, self.shell).run()

    def _assign(self) -> int:
        if (self.k + 1 < len(self.toks) and NAME_RE.match(self.toks[self.k])
                and self.toks[self.k + 1] in ("=", "+=", "-=", "*=", "/=", "%=")):
            name, op = self.toks[self.k], self.toks[self.k + 1]
            self.k += 2
            val = self._assign()
            if op != "=":
                val = self._apply(op[0], self._var(name), val)
            self.shell.set_var(name, str(val))
            return val
        return self._ternary()

    def _ternary(self) -> int:
        cond = self._binary(0)
        if self._peek() == "?":
            self._take()
            a = self._assign()
            if self._take() != ":":
                raise ValueError("':' expected")
            b = self._assign()
            return a if cond else b
        return cond

    def _binary(self, level: int) -> int:
        if level == len(self._BIN):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek() in self._BIN[level]:
            op = self._take()
            right = self._binary(level + 1)
            left = self._apply(op, left, right)
        return left

    @staticmethod
    def _apply(op: str, a: int, b: int) -> int:
        if op in ("/", "%"):
            if b == 0:
                raise ZeroDivisionError
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if op == "/" else a - q * b
        table: dict[str, Callable[[int, int], int]] = {
            "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
            "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y, "&": lambda x, y: x & y,
            "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
            "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y),
            "<": lambda x, y: int(x < y), "<=": lambda x, y: int(x <= y),
            ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y),
            "&&": lambda x, y: int(bool(x) and bool(y)), "||": lambda x, y: int(bool(x) or bool(y)),
        }
        return table[op](a, b)

    def _unary(self) -> int:
        t = self._peek()
        if t in ("-", "+", "!", "~"):
            self._take()
            v = self._unary()
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}[t]
        if t == "(":
            self._take()
            v = self._assign()
            if self._take() != ")":
                raise ValueError("')' expected")
            return v
        t = self._take()
        if not t:
            raise ValueError("unexpected 'end of expression'")
        if t[0].isdigit():
            return int(t, 16) if t[:2].lower() == "0x" else int(t, 10)
        if NAME_RE.match(t):
            return self._var(t)
        raise ValueError(f"unexpected '{t}'")

