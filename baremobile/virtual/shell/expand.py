"""Word expansion, mksh's order: tildes, parameters, command substitution and arithmetic,
then field splitting on ``IFS``, brace expansion, pathname globbing and quote removal.

:class:`Expansion` is the part of the interpreter that turns a :class:`~.syntax.Word` into
strings; :class:`~.interpreter.Shell` builds on it. It needs of the shell only its
variables, positional parameters, filesystem and a way to run a command substitution
(:meth:`subshell` / :meth:`isolated`, provided by the interpreter).
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any

from .arith import Arithmetic
from .patterns import brace_expand, has_glob, pattern_regex, remove_pattern
from .process import IO, BufferSink, Chunk, Gen, ShellExit, decode, err
from .syntax import CmdSub, CmdSubst, Lit, Node, Param, Part, Word

__all__ = ["Expansion", "Seg"]

Seg = tuple[str | None, str]  # (text, kind) ; text None = forced field break ("$@")


class Expansion:
    """Expansion of words against the shell's state (mixed into the interpreter)."""

    model: Any
    argv0: str
    args: list[str]
    vars: dict[str, str]
    cwd: str
    status: int
    _cmdsub_status: int | None

    # -- provided by the interpreter --------------------------------------------------
    def get_var(self, name: str) -> str | None:
        raise NotImplementedError

    def set_var(self, name: str, value: str) -> None:
        raise NotImplementedError

    def subshell(self) -> Expansion:
        raise NotImplementedError

    def isolated(self, node: Node, io: IO) -> Gen:
        raise NotImplementedError

    # -- expansion ------------------------------------------------------------------------
    def expand_fields(self, word: Word, io: IO) -> Generator[Chunk, None, list[str]]:
        """Full expansion: parameters, $(...), splitting, braces, globbing, quote removal."""
        parts = word.parts
        if (len(parts) == 2 and isinstance(parts[0], Lit) and parts[0].text == ""
                and isinstance(parts[1], Param) and parts[1].name == "@"
                and parts[1].op is None and parts[1].quoted):
            return list(self.args)
        segs = yield from self.expand_parts(parts, io)
        result: list[str] = []
        for fld in self._split(segs):
            text = "".join(t for t, _ in fld)
            kinds = "".join(k * len(t) for t, k in fld)
            for btext, bkinds in brace_expand(text, kinds):
                result.extend(self._glob(btext, bkinds))
        return result

    def expand_string(self, word: Word, io: IO, *, tilde: bool = False, assign: bool = False
                      ) -> Generator[Chunk, None, str]:
        """Expansion without splitting or globbing (assignments, redirections, here-docs)."""
        segs = yield from self.expand_parts(word.parts, io, tilde=tilde, assign=assign)
        return "".join(t for t, _ in segs if t is not None)

    def _tildes(self, text: str, starts: set[int], last: bool, assign: bool) -> list[Seg]:
        """Expand ``~`` at the allowed positions (word start, after the first ``=``, and
        after ``:`` in assignments) when the tilde prefix is empty (no ``~user``)."""
        home = self.get_var("HOME") or "/"
        segs: list[Seg] = []
        pos = 0
        for s0 in sorted(starts):
            if s0 >= len(text) or text[s0] != "~" or s0 < pos:
                continue
            end = s0 + 1
            stop_chars = "/:" if assign else "/"
            at_end = end >= len(text)
            if (at_end and last) or (not at_end and text[end] in stop_chars):
                segs.append((text[pos:s0], "l"))
                segs.append((home, "q"))
                pos = end
        segs.append((text[pos:], "l"))
        return [sg for sg in segs if sg[0]] or [("", "l")]

    def expand_parts(self, parts: list[Part], io: IO, *, tilde: bool = True,
                     assign: bool = False) -> Generator[Chunk, None, list[Seg]]:
        segs: list[Seg] = []
        seen_eq = False
        for idx, p in enumerate(parts):
            if isinstance(p, Lit):
                text = p.text
                if tilde and not p.quoted:
                    starts = {0} if idx == 0 else set()
                    if assign:
                        starts |= {k + 1 for k, c in enumerate(text) if c == ":"}
                    elif not seen_eq and "=" in text:
                        starts.add(text.index("=") + 1)
                    if starts and "~" in text:
                        segs.extend(self._tildes(text, starts, idx == len(parts) - 1, assign))
                        seen_eq = seen_eq or "=" in text
                        continue
                seen_eq = seen_eq or (not p.quoted and "=" in text)
                segs.append((text, "q" if p.quoted else "l"))
            elif isinstance(p, Param):
                segs.extend((yield from self._expand_param(p, io)))
            elif isinstance(p, CmdSub):
                text = yield from self._command_subst(p.body, io, same_shell=p.same_shell)
                segs.append((text, "q" if p.quoted else "e"))
            else:
                expr = yield from self.expand_string(p.expr, io)
                try:
                    value = str(Arithmetic(expr, self).run())
                except ZeroDivisionError:
                    yield err(f"{self.argv0}: {expr.strip()}: zero divisor\n")
                    raise ShellExit(1) from None
                except ValueError as exc:
                    yield err(f"{self.argv0}: {expr.strip()}: {exc}\n")
                    raise ShellExit(1) from None
                segs.append((value, "q" if p.quoted else "e"))
        return segs

    def _expand_param(self, p: Param, io: IO) -> Generator[Chunk, None, list[Seg]]:
        kind = "q" if p.quoted else "e"
        value = self.get_var(p.name)
        op = p.op
        if op is None:
            if p.name == "@" and p.quoted and self.args:
                segs: list[Seg] = []
                for k, a in enumerate(self.args):
                    if k:
                        segs.append((None, "q"))
                    segs.append((a, "q"))
                return segs
            return [(value or "", kind)]
        if op == "len":
            return [(str(len(value or "")), kind)]
        if op == "bad":
            raw = p.arg.parts[0].text if p.arg and isinstance(p.arg.parts[0], Lit) else ""
            yield err(f"{self.argv0}: ${{{raw}}}: bad substitution\n")
            raise ShellExit(1)
        empty = value is None or (op.startswith(":") and value == "")
        if op in (":-", "-"):
            if empty:
                return (yield from self._arg_segs(p, io))
            return [(value or "", kind)]
        if op in (":=", "="):
            if empty:
                new = yield from self.expand_string(p.arg or Word([]), io)
                self.set_var(p.name, new)
                return [(new, kind)]
            return [(value or "", kind)]
        if op in (":+", "+"):
            if empty:
                return []
            return (yield from self._arg_segs(p, io))
        if op in (":?", "?"):
            if empty:
                msg = yield from self.expand_string(p.arg or Word([]), io)
                msg = msg or ("parameter null or not set" if op == ":?" else "parameter not set")
                yield err(f"{self.argv0}: {p.name}: {msg}\n")
                raise ShellExit(1)
            return [(value or "", kind)]
        if op.startswith("/"):
            return [((yield from self._substitute(value or "", p, io)), kind)]
        # pattern removal: # ## % %%
        segs = yield from self.expand_parts((p.arg or Word([])).parts, io, tilde=False)
        pat = "".join(t for t, _ in segs if t is not None)
        kinds = "".join(("q" if k == "q" else "l") * len(t) for t, k in segs if t is not None)
        return [(remove_pattern(value or "", pat, kinds, op), kind)]

    def _substitute(self, value: str, p: Param, io: IO) -> Generator[Chunk, None, str]:
        payload = p.arg.parts[0] if p.arg and p.arg.parts else None
        assert isinstance(payload, CmdSubst)
        segs = yield from self.expand_parts(payload.pattern.parts, io, tilde=False)
        pat = "".join(t for t, _ in segs if t is not None)
        kinds = "".join(("q" if k == "q" else "l") * len(t) for t, k in segs if t is not None)
        rep = yield from self.expand_string(payload.replacement, io)
        if not pat:
            return value
        try:
            rx = re.compile(pattern_regex(pat, kinds), re.S)
        except re.error:
            return value
        op = p.op or "/"
        if op == "/#":
            for k in range(len(value), -1, -1):
                if rx.fullmatch(value[:k]):
                    return rep + value[k:]
            return value
        if op == "/%":
            for k in range(len(value) + 1):
                if rx.fullmatch(value[k:]):
                    return value[:k] + rep
            return value
        out_: list[str] = []
        i = 0
        replaced = False
        while i <= len(value):
            hit = None
            if not (replaced and op == "/"):
                for k in range(len(value), i - 1, -1):
                    if k > i and rx.fullmatch(value[i:k]):
                        hit = k
                        break
            if hit is None:
                if i < len(value):
                    out_.append(value[i])
                i += 1
                continue
            out_.append(rep)
            replaced = True
            i = hit
        return "".join(out_)

    def _arg_segs(self, p: Param, io: IO) -> Generator[Chunk, None, list[Seg]]:
        segs = yield from self.expand_parts((p.arg or Word([])).parts, io)
        if p.quoted:
            return [(t, "q") for t, _ in segs]
        return [(t, "e" if k == "l" else k) for t, k in segs]

    def _command_subst(
        self, body: Node | None, io: IO, *, same_shell: bool = False
    ) -> Generator[Chunk, None, str]:
        if body is None:
            return ""
        sub = self if same_shell else self.subshell()
        cio = io.copy()
        buf = BufferSink()
        cio.fds[1] = buf
        status = yield from sub.isolated(body, cio)
        self._cmdsub_status = status
        self.status = status
        return decode(bytes(buf.buf)).rstrip("\n")

    def _split(self, segs: list[Seg]) -> list[list[tuple[str, str]]]:
        ifs = self.vars.get("IFS", " \t\n")
        ws = "".join(c for c in ifs if c in " \t\n")
        fields: list[list[tuple[str, str]]] = []
        cur: list[tuple[str, str]] = []
        has = False
        after_ws = False
        for text, kind in segs:
            if text is None:
                fields.append(cur)
                cur, has = [], False
                continue
            if kind != "e" or not ifs:
                if text or kind == "q":
                    has = True
                    after_ws = False
                cur.append((text, kind))
                continue
            piece: list[str] = []
            for ch in text:
                if ch not in ifs:
                    piece.append(ch)
                    has = True
                    after_ws = False
                    continue
                if piece:
                    cur.append(("".join(piece), kind))
                    piece = []
                if ch in ws:
                    if has:
                        fields.append(cur)
                        cur, has = [], False
                        after_ws = True
                else:
                    if after_ws:
                        after_ws = False
                    else:
                        fields.append(cur)
                        cur, has = [], False
            if piece:
                cur.append(("".join(piece), kind))
        if has:
            fields.append(cur)
        return fields

    def _glob(self, text: str, kinds: str) -> list[str]:
        if not has_glob(text, kinds):
            return [text]
        fs = self.model.fs
        absolute = text.startswith("/")
        comps: list[tuple[str, str]] = []
        start = 0
        for i, c in enumerate(text + "/"):
            if c == "/":
                comps.append((text[start:i], kinds[start:i]))
                start = i + 1
        bases = ["/"] if absolute else [""]
        for ctext, ckinds in comps:
            if not ctext:
                continue
            new: list[str] = []
            if not has_glob(ctext, ckinds):
                new = [_join(b, ctext) for b in bases]
            else:
                try:
                    rx = re.compile(pattern_regex(ctext, ckinds, path=True), re.S)
                except re.error:
                    return [text]
                for b in bases:
                    directory = fs.normalize(b or ".", self.cwd)
                    if not fs.is_dir(directory):
                        continue
                    try:
                        names = [n for n, _ in fs.listdir(directory)]
                    except OSError:
                        continue
                    for name in names:
                        if name.startswith(".") and not ctext.startswith("."):
                            continue
                        if rx.fullmatch(name):
                            new.append(_join(b, name))
            bases = new
            if not bases:
                break
        found = sorted(b for b in bases if fs.exists(fs.normalize(b or ".", self.cwd)))
        if text.endswith("/"):
            found = [f + "/" for f in found if fs.is_dir(fs.normalize(f, self.cwd))]
        return found or [text]



def _join(base: str, name: str) -> str:
    if not base:
        return name
    return base + name if base.endswith("/") else base + "/" + name
