"""What an agent pays for the tool menu, per tool and per step (o200k tokens).

Run from the repository root::

    python benchmarks/tokens.py

1. **The menu**: ``baremobile mcp`` started as an MCP client starts it (stdio, the MCP SDK's
   own client), its ``tools/list`` — the default menu and ``--groups all`` —, each tool
   counted as its compact JSON ``{name, description, inputSchema}`` (what a client hands a
   model), per tool and in all, beside the peers' menus measured the same way.
2. **Per agent step**: the blueprint's Verified Flows (``tests/verified_flows.py``) through
   MCP (the SDK's client, in process): the agent configures ``observe="diff"`` once, then
   each step is one tool call; a step costs the menu (sent with every request) and the
   call's answer as the model reads it (the text content).

Tokens are o200k_base (PyPI ``bpe-openai``, the ``bench`` extra). The peers' figures are the
ones measured for issue 27 with the same counting (their servers are not run here).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: measured for issue 27: (tools, menu tokens, an agent step: menu + a snapshot)
PEERS = {
    "JS baremobile 0.10 mcp-server.js": (17, 2907, 3600),
    "mobile-mcp 1.0.4": (32, 5036, 6500),
    "Playwright MCP (@playwright/mcp)": (25, 3764, None),
}
#: ours before issue 27, measured the same way
BEFORE = {"default": (21, 8132), "all": (57, 16856)}
#: the budgets issue 27 set (tests/doors/test_tools_menu.py keeps them)
BUDGET = {"default": 2500, "all": 6500}


def tool_tokens(count: Any, tool: dict[str, Any]) -> int:
    """A tool as a client hands it to a model: compact JSON of name, description, schema."""
    shown = {"name": tool["name"], "description": tool.get("description") or "",
             "inputSchema": tool["inputSchema"]}
    return int(count(json.dumps(shown, separators=(",", ":"), ensure_ascii=False)))


async def _listed(args: list[str]) -> list[dict[str, Any]]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "baremobile", "mcp", *args])
    async with Client(params) as client:
        listed = await client.list_tools()
    return [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]


def menus(count: Any) -> dict[str, int]:
    """Print the per-tool table of both menus; return their totals."""
    import anyio

    totals = {}
    for label, args in (("default", []), ("all", ["--groups", "all"])):
        tools = anyio.run(_listed, args)
        rows = sorted(((tool_tokens(count, t), t["name"]) for t in tools), reverse=True)
        total = sum(n for n, _ in rows)
        totals[label] = total
        before_tools, before = BEFORE[label]
        print(f"baremobile mcp {' '.join(args) or '(default)'}: {len(tools)} tools, "
              f"{total} tokens ({total / len(tools):.0f} per tool); before: {before_tools} "
              f"tools, {before} tokens ({before / before_tools:.0f} per tool) — "
              f"{total / before:.2f}x; budget {BUDGET[label]}")
        for n, name in rows:
            print(f"  {name:<22}{n:>6}")
        print()
    print(f"{'server':<36}{'tools':>6}{'tokens':>8}{'per tool':>9}")
    for label in ("default", "all"):
        name = "baremobile mcp" + (" --groups all" if label == "all" else "")
        n = {"default": 21, "all": 57}[label]
        print(f"{name:<36}{n:>6}{totals[label]:>8}{totals[label] / n:>9.0f}")
    for name, (n, tokens, _) in PEERS.items():
        print(f"{name:<36}{n:>6}{tokens:>8}{tokens / n:>9.0f}")
    print()
    return totals


class _McpAgent:
    """A flow's Page calls made through MCP: each step one ``tools/call``; the answer is what
    the model reads."""

    def __init__(self, client: Any, page: Any, portal: Any, count: Any) -> None:
        self.client, self.page, self.portal, self.count = client, page, portal, count
        self.answers: list[int] = []

    def call(self, name: str, args: dict[str, Any]) -> None:
        result = self.portal.call(self.client.call_tool, name, args)
        assert not result.is_error, result
        text = "\n".join(c.text for c in result.content if getattr(c, "text", None))
        self.answers.append(self.count(text))

    def tap(self, ref: int) -> None:
        self.call("tap", {"ref": ref})

    def type(self, ref: int, text: str) -> None:
        self.call("type", {"ref": ref, "text": text})

    def scroll(self, ref: int, direction: str) -> None:
        self.call("scroll", {"ref": ref, "direction": direction})

    def launch(self, package: str) -> None:
        self.call("launch", {"package": package})

    def back(self) -> None:
        self.call("back", {})

    def home(self) -> None:
        self.call("home", {})

    def recents(self) -> None:
        self.call("press", {"key": "app_switch"})


def steps(count: Any, menu: int) -> None:
    """Per agent step over the Verified Flows: the menu plus each answer."""
    from anyio.from_thread import start_blocking_portal
    from mcp import Client

    from baremobile import connect, tools
    from baremobile.tools.mcp_server import build_server
    from tests.verified_flows import FLOWS

    print("Verified Flows through MCP (observe='diff'): each step is the menu and one answer")
    print()
    head = f"{'flow':<36}{'steps':>6}{'answers':>9}{'per step':>10}"
    print(head)
    print("-" * len(head))
    all_steps = all_answers = 0
    for name, flow in FLOWS.items():
        with connect("virtual") as page, start_blocking_portal() as portal:
            server = build_server(tools.session_for(page))
            with portal.wrap_async_context_manager(Client(server)) as client:
                portal.call(client.call_tool, "configure", {"observe": "diff", "settle": 0})
                agent = _McpAgent(client, page, portal, count)
                flow(agent, lambda page=page: page.last_snapshot)  # type: ignore[arg-type]
        n, answers = len(agent.answers), sum(agent.answers)
        all_steps, all_answers = all_steps + n, all_answers + answers
        print(f"{name:<36}{n:>6}{answers:>9}{menu + answers / n:>10.0f}")
    print("-" * len(head))
    per_step = menu + all_answers / all_steps
    print(f"{'all flows':<36}{all_steps:>6}{all_answers:>9}{per_step:>10.0f}")
    print()
    print(f"  an agent step through `baremobile mcp`: {per_step:.0f} tokens = the menu "
          f"({menu}) + the answer ({all_answers / all_steps:.0f} on average)")
    for peer, (_, _, step) in PEERS.items():
        if step:
            print(f"  {peer}: ~{step} (issue 27's measure)")


def main() -> int:
    try:
        from bpe_openai import get_encoding
    except ImportError:
        print("needs bpe-openai (pip install 'baremobile[bench]')")
        return 2
    enc = get_encoding("o200k_base")

    def count(text: str) -> int:
        return len(enc.encode(text))

    totals = menus(count)
    steps(count, totals["default"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
