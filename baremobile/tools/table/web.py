"""Rows of the web verbs (``page/web.py``): JavaScript in the page on screen — gated."""

from __future__ import annotations

import json
from typing import Any

from baremobile.errors import WebError
from baremobile.page import Page
from baremobile.safetext import problem
from baremobile.tools.params import p
from baremobile.tools.row import Args, Ctx, ToolSpec

__all__ = ["ROWS"]


def _eval(ctx: Ctx, a: Args) -> dict[str, Any]:
    """Only where the operator allowed it (``session.allow_eval``)."""
    from baremobile.tools.pages import NotAllowed

    if not ctx.session.allow_eval:
        raise NotAllowed(
            "running JavaScript in the app's page is not allowed here",
            hint="the operator can allow it: baremobile mcp --allow-eval (with --daemon, the "
                 "daemon too: baremobile daemon start --allow-eval), Session(allow_eval=True) "
                 "or page.allow_eval = True; snapshots and refs read and act on pages "
                 "without it")
    assert ctx.time.wait is not None
    # the operator allowed it for this session: for this call only (the page's own
    # allow_eval, which its Python owner may use directly, is left as it is)
    value = ctx.page.eval_js(a["expression"], timeout=ctx.time.wait, allowed=True)
    why = problem(value)
    if why is not None:
        raise WebError(f"the script's value cannot be answered: {why}",
                       hint="return plainer data (JSON.stringify it, or a part of it)")
    text = json.dumps(value, ensure_ascii=False)
    limit = ctx.options.max_chars
    if limit is not None and len(text) > limit:
        return {"text": text[:limit], "truncated": True, "chars": len(text)}
    return {"value": value}


ROWS = (
    ToolSpec(
        "eval",
        "Run a JavaScript expression in the web page on screen (the app's WebView or "
        "Chrome's tab), with the page's rights; a promise is awaited. Use it only for what "
        "refs cannot do.",
        {"expression": {"type": "string", "minLength": 1, "maxLength": 100_000},
         "timeout": p("timeout", "seconds, default 10")},
        _eval, verbs=(Page.eval_js,), required=("expression",), group="eval",
        destructive=True, open_world=True,
        returns="the 'value' as JSON (when too long, 'text' cut and 'truncated').",
        waits_default=10.0,
        cli_args=("expression",),
    ),
)
