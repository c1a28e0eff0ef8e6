"""Every argument a verb marks secret (typed text, a file's or the clipboard's content) stays
out of logs and errors at every door (issues 27 and 28): which arguments those are is read
from the verbs, through the rows — a tool that passes one is covered by being in the table."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile import connect, tools
from baremobile.tools.redact import redacted, secrets_of
from baremobile.tools.spec import TOOLS
from tests import examples

#: printable ASCII with the characters escaping changes (quotes, backslash), long enough to
#: be searched for anywhere (shorter secrets are only hidden where they were given)
SECRET = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=6,
                 max_size=24).filter(lambda s: s.strip() == s and len(set(s)) > 3)

#: a call of each tool whose row carries a secret, with the secret in its place: some
#: succeed on the demo phone, some fail (so the error's words are checked too)
CALLS: dict[str, Any] = {
    "type": lambda s: {"ref": 999, "text": s},  # a stale ref: REF_NOT_FOUND
    "insert_text": lambda s: {"ref": 999, "text": s},
    "replace_text": lambda s: {"ref": 999, "text": s, "search": s},
    "set_clipboard": lambda s: {"text": s},  # UNSUPPORTED on stock Android
    "write_file": lambda s: {"path": "/system/secret.txt", "text": s},  # read-only: fails
    "append_file": lambda s: {"path": "/sdcard/secret.txt", "text": s},
    "replace_in_file": lambda s: {"path": "/sdcard/none.txt", "old_text": s, "new_text": s},
    "execute": lambda s: {"steps": [{"tool": "type", "args": {"text": s}},
                                    {"tool": "set_clipboard", "args": {"text": s}}],
                          "stop_on_error": False},
}


@pytest.mark.fast
def test_every_secret_carrying_row_is_exercised():
    carrying = {t.name for t in TOOLS if t.secret or t.calls_in}
    assert carrying == set(CALLS)


def _forms(secret: str) -> set[str]:
    from baremobile.safetext import escape_desc, escape_text

    return {secret, escape_text(secret), escape_desc(secret), json.dumps(secret)[1:-1],
            repr(secret)[1:-1]}


class _Logs(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))
        if record.exc_info:
            self.lines.append(logging.Formatter().formatException(record.exc_info))


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with connect("virtual") as p:
        p.snapshot()
        yield p


@pytest.fixture
def logs() -> Iterator[_Logs]:
    handler = _Logs()
    root = logging.getLogger("baremobile")
    old = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


def _assert_hidden(secret: str, *texts: str) -> None:
    for text in texts:
        for form in _forms(secret):
            assert form not in text, (form, text[:500])


@settings(max_examples=examples(12), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=SECRET, tool=st.sampled_from(sorted(CALLS)))
def test_secrets_are_never_logged_or_quoted_in_errors_through_tools_call(page, logs, secret,
                                                                         tool):
    args = CALLS[tool](secret)
    assert secret in list(secrets_of(tool, args))
    logs.lines.clear()
    r = tools.call(page, tool, args, groups=["all"])
    error = json.dumps(r.get("error") or {}) + json.dumps(
        [s.get("error") for s in r.get("steps", []) if isinstance(s, dict)])
    _assert_hidden(secret, "\n".join(logs.lines), error)
    shown = json.dumps(redacted(tool, args))
    _assert_hidden(secret, shown)
    assert f"<{len(secret)} characters>" in shown


@pytest.mark.fast
@settings(max_examples=examples(6), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=SECRET, tool=st.sampled_from(sorted(CALLS)))
def test_secrets_are_never_logged_by_the_mcp_server(page, logs, secret, tool):
    pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")
    from mcp import Client

    from baremobile.tools.mcp_server import build_server

    server = build_server(tools.session_for(page), groups=["all"])
    logs.lines.clear()

    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, CALLS[tool](secret))

    result = anyio.run(main)
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    errors = json.dumps((result.structured_content or {}).get("error") or {})
    _assert_hidden(secret, "\n".join(logs.lines), errors)
    if result.is_error:
        _assert_hidden(secret, text.split("\n", 2)[0])  # the error line itself
    assert any(f"call {tool} " in line for line in logs.lines)  # it was logged, hidden


def test_secrets_are_never_logged_by_the_daemon(logs, daemon_socket):
    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port
    from tests.daemon_helpers import RawClient, running_daemon

    secret = 'pa"ss\\w0rd-9'
    with VirtualPhone(port=free_port()) as phone, running_daemon(daemon_socket,
                                                                 devices=[phone.address]):
        client = RawClient(daemon_socket)
        try:
            for tool, make in CALLS.items():
                answer = client.call("tools/call", {"name": tool, "arguments": make(secret),
                                                    "session": "s", "groups": ["all"]})
                _assert_hidden(secret, json.dumps({k: v for k, v in answer.items()
                                                   if k != "result"}))
        finally:
            client.close()
    _assert_hidden(secret, "\n".join(logs.lines))
