"""The virtual phone's shell language: quoting, expansion, control flow, redirections.

Expected outputs are what Android's mksh prints; where a case was checked against a real
mksh binary the test says so. ``test_differential_*`` compares with ``/usr/bin/mksh``
directly when it is installed (Debian's ``mksh`` package).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.virtual.shell import ShellSyntaxError, parse
from tests import examples
from tests.phone.test_virtual_model_fakes import make_phone, sh

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)

SH = "/system/bin/sh"


def q(s: str) -> str:
    """Single-quote ``s`` for mksh (the way a correct client must do it)."""
    return "'" + s.replace("'", "'\\''") + "'"


@pytest.fixture(scope="module")
def phone():
    return make_phone()


# -- quoting -----

_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=_TEXT)
def test_single_quoted_argument_arrives_intact(s: str) -> None:
    phone = make_phone()
    out, err, status = sh(phone, "printf %s " + q(s))
    assert (out, err, status) == (s, "", 0)
    assert phone.events.commands() == [["printf", "%s", s]]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60))
def test_single_quoted_printable_text_never_runs_anything_else(s: str) -> None:
    phone = make_phone()
    out, _, status = sh(phone, "input text " + q(s))
    assert phone.events.commands() == [["input", "text", s]]
    assert len(phone.events.list("command")) == 1


@settings(max_examples=examples(200), deadline=None)
@given(
    s=st.text(
        st.characters(min_codepoint=32, max_codepoint=0x2FFF, blacklist_characters="\\"),
        max_size=30,
    ).filter(lambda t: not t.startswith("-"))
)
def test_echo_prints_single_quoted_text(s: str) -> None:
    """mksh's echo interprets backslashes, so the property holds for text without them."""
    out, _, _ = sh(make_phone(), "echo " + q(s))
    assert out == s + "\n"


def test_echo_interprets_backslash_escapes_like_mksh(phone) -> None:
    assert sh(phone, r"echo 'a\nb\tc'")[0] == "a\nb\tc\n"
    assert sh(phone, r"echo 'x\c'; echo y")[0] == "xy\n"  # \c drops the newline
    assert sh(phone, r"echo -E 'a\nb'")[0] == "a\\nb\n"
    assert sh(phone, r"/system/bin/echo 'a\nb'")[0] == "a\\nb\n"  # toybox echo does not
    assert sh(phone, "echo -n x; echo -- -n; echo -")[0] == "x-- -n\n-\n"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('echo "a b"  c', "a b c\n"),
        ("echo 'it'\\''s'", "it's\n"),
        ("echo \"a\"'b'c\\ d", "abc d\n"),
        ("echo \\\\ \\' \\\" \\$ \\`", "\\ ' \" $ `\n"),
        ('echo "\\q\\$\\\\"', "\\q$\\\n"),
        ("echo a\\\nb", "ab\n"),
        ('echo "a\\\nb"', "ab\n"),
        ("echo 'a\\\nb'", "a\\\nb\n"),  # kept inside single quotes
        ("echo $'a\\tb\\x41\\101'", "a\tbAA\n"),
        ("echo a#b #c", "a#b\n"),
        ('echo "$(echo "inner "quoted"")"', "inner quoted\n"),
        ("echo `echo \\`echo hi\\``", "hi\n"),
        ("echo ''", "\n"),
        ("echo {a,b}c", "ac bc\n"),
        ("echo '{a,b}'c", "{a,b}c\n"),
        ("echo @(x|y)", "@(x|y)\n"),
        ("echo ~ ~/x '~'", "/ //x ~\n"),
    ],
)
def test_quoting_and_words(phone, command: str, expected: str) -> None:
    assert sh(phone, command)[0] == expected


# -- expansion -----


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("x='a  b'; echo $x \"$x\"", "a b a  b\n"),
        ("IFS=:; x='a::b'; for i in $x; do echo \"[$i]\"; done", "[a]\n[]\n[b]\n"),
        ('x=; echo "[$x]" [$x] [${x:-d}] [${x-d}] [${y-d}] [${x:+p}]', "[] [] [d] [] [d] []\n"),
        ("x=abcabc; echo ${x#*b} ${x##*b} ${x%b*} ${x%%b*} ${#x}", "cabc c abca a 6\n"),
        ("x=aXbXc; echo ${x/X/-} ${x//X/-} ${x/#a/A} ${x/%c/C}", "a-bXc a-b-c AXbXc aXbXC\n"),
        ("echo $(echo a; echo b)", "a b\n"),
        ("echo \"$(printf 'a\\n\\n\\n')\"x", "ax\n"),
        ('echo "${x:=def}" $x', "def def\n"),
        ("echo $((2+3*4)) $((7/2)) $((-7/2)) $((-7%2)) $((0x10+010))", "14 3 -3 -1 26\n"),
        ("echo $((x=3+4)) $x", "7 7\n"),
        (
            'set -- a \'b c\'; echo $# "$@"; for i in "$@"; do echo "<$i>"; done',
            "2 a b c\n<a>\n<b c>\n",
        ),
        ("x='{a,b}'; echo $x", "a b\n"),
        ("echo ${#}", "0\n"),
        ("a=1 b=2; echo $a$b", "12\n"),
        ("echo $0", SH + "\n"),
    ],
)
def test_expansions(phone, command: str, expected: str) -> None:
    assert sh(phone, command)[0] == expected


def test_globbing_against_the_in_memory_fs() -> None:
    phone = make_phone()
    sh(phone, "touch /sdcard/a.xml /sdcard/b.xml /sdcard/c.txt /sdcard/.hidden.xml")
    assert sh(phone, "echo /sdcard/*.xml")[0] == "/sdcard/a.xml /sdcard/b.xml\n"
    assert sh(phone, "cd /sdcard && echo ?.txt [ab].xml")[0] == "c.txt a.xml b.xml\n"
    assert sh(phone, "echo /sdcard/*.none")[0] == "/sdcard/*.none\n"  # no match: literal
    assert sh(phone, "echo '/sdcard/*.xml'")[0] == "/sdcard/*.xml\n"
    assert sh(phone, "x='/sdcard/*.txt'; echo $x \"$x\"")[0] == "/sdcard/c.txt /sdcard/*.txt\n"


def test_command_substitution_really_runs_and_is_logged() -> None:
    phone = make_phone()
    out, _, _ = sh(phone, "echo $(getprop ro.build.version.sdk) `id -u`")
    assert out == "35 2000\n"
    assert phone.events.commands() == [
        ["getprop", "ro.build.version.sdk"],
        ["id", "-u"],
        ["echo", "35", "2000"],
    ]


def test_unquoted_metacharacters_execute() -> None:
    phone = make_phone()
    sh(phone, "input text hello;input keyevent 3")
    assert phone.events.commands() == [["input", "text", "hello"], ["input", "keyevent", "3"]]
    phone2 = make_phone()
    sh(phone2, "input text $(input tap 1 2)")
    assert [e.kind for e in phone2.events.list() if e.kind != "command"] == ["tap"]


# -- status, lists, control flow -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "stdout", "status"),
    [
        ("true && false || echo $?", "1\n", 0),
        ("false; echo $?; ! false; echo $?", "1\n0\n", 0),
        ("false | true; echo $?; true | false", "0\n", 1),
        ("( exit 3 ); echo $?", "3\n", 0),
        ("x=$(false); echo $?", "1\n", 0),
        ("echo a; exit 4; echo b", "a\n", 4),
        ("exit 300", "", 44),
        ("if false; then echo 1; elif true; then echo 2; else echo 3; fi", "2\n", 0),
        ("i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done", "0\n1\n2\n", 0),
        ("for i in a b c; do [ $i = b ] && continue; echo $i; done", "a\nc\n", 0),
        ("for i in a b c; do [ $i = b ] && break; echo $i; done", "a\n", 0),
        ("case abc in a*) echo A;; *) echo B;; esac", "A\n", 0),
        ("f() { echo f$1; return 7; }; f 1; echo $?", "f1\n7\n", 0),
        ("x=1; f() { x=2; }; f; echo $x; (x=5); echo $x", "2\n2\n", 0),
        ('echo a | read x; echo "[$x]"', "[]\n", 0),  # pipelines run in subshells
        ("echo 'a b' | { read x y; echo \"$y-$x\"; }", "b-a\n", 0),
        ("sleep 1 & echo bg $?", "bg 0\n", 0),
        ("eval 'echo ev; echo $?'", "ev\n0\n", 0),
        ("{ echo a; echo b; } | cat", "a\nb\n", 0),
        ("echo x | grep -q x && echo found", "found\n", 0),
    ],
)
def test_control_flow(phone, command: str, stdout: str, status: int) -> None:
    out, _, st_ = sh(phone, command)
    assert (out, st_) == (stdout, status)


# -- redirections -----


def test_redirections_in_order() -> None:
    phone = make_phone()
    assert sh(phone, "echo a > /sdcard/f; echo b >> /sdcard/f; cat /sdcard/f")[0] == "a\nb\n"
    assert sh(phone, "cat < /sdcard/f")[0] == "a\nb\n"
    # fd duplication is applied left to right
    assert sh(phone, "nosuch 2>&1 >/dev/null") == (
        f"{SH}: nosuch: inaccessible or not found\n",
        "",
        127,
    )
    assert sh(phone, "nosuch >/dev/null 2>&1") == ("", "", 127)
    assert sh(phone, "echo err >&2") == ("", "err\n", 0)
    assert sh(phone, "echo err 1>&2") == ("", "err\n", 0)
    assert sh(phone, "{ echo o; echo e >&2; } &> /sdcard/both; cat /sdcard/both")[0] == "o\ne\n"
    assert sh(phone, "ls /nope 2>> /sdcard/log; cat /sdcard/log")[0] == (
        "ls: /nope: No such file or directory\n"
    )
    assert sh(phone, "echo x > /dev/null; echo $?")[0] == "0\n"
    assert sh(phone, "cat <<EOF\nhi $((1+1))\nEOF")[0] == "hi 2\n"
    assert sh(phone, "cat <<'EOF'\nhi $x\nEOF")[0] == "hi $x\n"
    assert sh(phone, "cat <<< 'here string'")[0] == "here string\n"


def test_redirection_failures_skip_the_command() -> None:
    phone = make_phone()
    assert sh(phone, "echo x > /system/f") == (
        "",
        f"{SH}: can't create /system/f: Read-only file system\n",
        1,
    )
    assert sh(phone, "echo x > /data/f")[1] == f"{SH}: can't create /data/f: Permission denied\n"
    assert sh(phone, "cat < /sdcard/none") == (
        "",
        f"{SH}: can't open /sdcard/none: No such file or directory\n",
        1,
    )
    assert sh(phone, "echo a >&5")[1] == f"{SH}: >&5 : bad file descriptor\n"
    assert ["echo", "x"] not in phone.events.commands()


# -- errors -----


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("echo 'abc", "no closing quote"),
        ('echo "abc', "no closing quote"),
        ("echo $(", "syntax error: unmatched '('"),
        ("if true; then echo", "syntax error: unmatched 'if'"),
        ("{ echo a", "syntax error: unmatched '{'"),
        ("echo a;;", "syntax error: unexpected ';;'"),
        ("; echo", "syntax error: unexpected ';'"),
        ("echo )", "syntax error: unexpected ')'"),
        ("echo a &&", "syntax error: unexpected EOF"),
        ("fi", "syntax error: unexpected 'fi'"),
        ("cat <<EOF", "here document 'EOF' unclosed"),
        ("echo ${x", "no closing quote"),
    ],
)
def test_syntax_errors_run_nothing(command: str, message: str) -> None:
    phone = make_phone()
    out, err, status = sh(phone, "input tap 1 1; " + command)
    assert (out, err, status) == ("", f"{SH}: {message}\n", 1)
    assert phone.events.list() == []


def test_lines_before_a_syntax_error_run() -> None:
    phone = make_phone()
    assert sh(phone, "echo first\necho 'oops") == ("first\n", f"{SH}: no closing quote\n", 1)


@pytest.mark.parametrize(
    ("command", "stderr", "status"),
    [
        ("nosuchcmd", f"{SH}: nosuchcmd: inaccessible or not found\n", 127),
        ("/system/bin/nosuch", f"{SH}: /system/bin/nosuch: inaccessible or not found\n", 127),
        ("/sdcard", f"{SH}: /sdcard: can't execute: Is a directory\n", 126),
        ("echo ${x:?}", f"{SH}: x: parameter null or not set\n", 1),
        ("echo ${x?oops}", f"{SH}: x: oops\n", 1),
        ("echo ${x*}", f"{SH}: ${{x*}}: bad substitution\n", 1),
        ("echo $((1/0))", f"{SH}: 1/0: zero divisor\n", 1),
        ("cd /nonexist", f"{SH}: cd: /nonexist: No such file or directory\n", 2),
        ("[ 1 -eq ]", f"{SH}: [: -eq: missing second argument\n", 2),
        ("[ a = a", f"{SH}: [: missing ]\n", 2),
    ],
)
def test_runtime_errors(phone, command: str, stderr: str, status: int) -> None:
    assert sh(phone, command)[1:] == (stderr, status)


def test_scripts_and_sh_c() -> None:
    phone = make_phone()
    assert sh(phone, "sh -c 'echo $0 $1' zero one")[0] == "zero one\n"
    assert sh(phone, "sh -c 'nosuch'")[1] == "sh: nosuch: inaccessible or not found\n"
    sh(phone, "printf 'echo script $1\\nexit 3\\n' > /data/local/tmp/s.sh")
    assert sh(phone, "sh /data/local/tmp/s.sh arg") == ("script arg\n", "", 3)
    assert sh(phone, "/data/local/tmp/s.sh")[2] == 126  # not executable yet
    assert sh(phone, "chmod 755 /data/local/tmp/s.sh; /data/local/tmp/s.sh x")[::2] == (
        "script x\n",
        3,
    )
    assert sh(phone, "echo 'echo from stdin' | sh")[0] == "from stdin\n"


def test_builtins_type_command_which(phone) -> None:
    assert sh(phone, "type echo input")[0] == (
        "echo is a shell builtin\ninput is a tracked alias for /system/bin/input\n"
    )
    assert sh(phone, "command -v echo input nosuch") == ("echo\n/system/bin/input\n", "", 1)
    assert sh(phone, "which uiautomator nosuch") == ("/system/bin/uiautomator\n", "", 1)


def test_interactive_shell_reads_stdin_lines() -> None:
    phone = make_phone()
    out, err, status = sh(phone, "", stdin=b'echo one\nx=2\necho "a\nb" $x\nexit 5\necho no\n')
    assert (out, status) == ("one\na\nb 2\n", 5)


def test_parse_api() -> None:
    node = parse("echo a | grep a && echo ok")
    assert type(node).__name__ == "Seq"
    with pytest.raises(ShellSyntaxError):
        parse("echo (")


# -- differential testing against a real mksh (when installed) ------------------------------------

_MKSH = shutil.which("mksh") or ("/usr/bin/mksh" if os.path.exists("/usr/bin/mksh") else None)

_DIFF_CASES = [
    "echo $'\\ ' $'\\q' $'\\x' '\\q'",  # unknown escapes: $'' drops the backslash
    "echo 'a\\nb'",
    "echo -n x; echo",
    "echo {a,b}c",
    "x='{a,b}'; echo $x",
    'echo "\\q\\$\\\\"',
    "echo $'a\\tb'",
    "echo a#b #c",
    "echo `echo \\`echo hi\\``",
    'set -- a b; echo $# "$@"',
    "echo $((2+3*4)) $((010)) $((-7/2))",
    "x='a  b'; echo $x \"$x\"",
    "x=' a : b '; IFS=:; echo $x",
    "x=abcabc; echo ${x#*b} ${x##*b} ${x%b*} ${x%%b*}",
    "echo \"${x:-a b}\" ${x:-'q  w'}",
    "echo a | read x; echo $x",
    "( exit 3 ); echo $?",
    "echo 'a\\cb'; echo c",
    "x=aXbXc; echo ${x/X/-} ${x//X/-}",
    "echo *:{a{a,b} a\\&[",
    "echo ~'?' ~",
    "case x in a|x) echo yes;; esac",
    "f() { echo f$1; }; f 1",
]


def _real(command: str) -> tuple[str, str, int]:
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(
            [_MKSH or "mksh", "-c", command],
            capture_output=True,
            cwd=d,
            env={"PATH": "/nonexistent", "HOME": "/"},
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
    err = r.stderr.decode()
    for prefix in ("E: ", "W: ", ""):
        err = err.replace(f"{prefix}{_MKSH}: ", f"{SH}: ").replace(f"{prefix}mksh: ", f"{SH}: ")
    return r.stdout.decode(), err, r.returncode


@pytest.mark.skipif(_MKSH is None, reason="mksh is not installed (apt-get install mksh)")
@pytest.mark.parametrize("command", _DIFF_CASES)
def test_differential_against_real_mksh(command: str) -> None:
    assert sh(make_phone(), command) == _real(command)


@pytest.mark.skipif(_MKSH is None, reason="mksh is not installed (apt-get install mksh)")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(st.text(st.sampled_from(list("ab '\"\\$x{},*~=:")), max_size=6), max_size=4))
def test_differential_quoting_fuzz(words: list[str]) -> None:
    if "$$" in " ".join(words):
        return  # process ids differ
    command = "x='q w'; echo " + " ".join(words)
    mine = sh(make_phone(), "cd /data/local/tmp; " + command)  # an empty directory, like mksh's
    real = _real(command)
    if "syntax error" in real[1] or "no closing quote" in real[1]:
        assert mine[2] == real[2] == 1 and mine[0] == real[0] == ""
    else:
        assert mine == real


@pytest.mark.parametrize(
    ("command", "stdout"),
    [
        ("x=1; echo ${ x=2; echo hi;}; echo $x", "hi\n2\n"),  # runs in the current shell
        ("echo ${ }", "\n"),
        ("echo ${ :}", "\n"),
        ("echo ${ echo a}b}", "ab}\n"),  # the first unquoted } closes, even inside a word
        ('echo "${ echo q;}"', "q\n"),
        ('echo ${ echo "}";}', "}\n"),
        ("echo ${ echo a\\}b;}", "a}b\n"),
    ],
)
def test_mksh_function_substitution(command: str, stdout: str) -> None:
    out, err, status = sh(make_phone(), command)
    assert (out, err, status) == (stdout, "", 0)
    if _MKSH:
        assert _real(command) == (stdout, "", 0)
