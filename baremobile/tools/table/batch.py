"""Rows of batches: ``execute`` runs several tool calls in one round trip from the agent
(clawperator's ``execute``).

The steps run in order on one device while the batch holds that device's lock (other
callers get ``BUSY`` meanwhile, as for any call). Each step's result is returned. By default
the first failing step stops the batch: the answer is that step's error with the steps so
far (``steps``, ``completed``, ``stopped_at``). With ``stop_on_error: false`` every step
runs and each says whether it worked. ``timeout`` bounds the whole batch: a step's own
wait (``timeout`` argument) gets at most what is left, a step still running at the deadline
is cancelled when the page can cancel (``Page.cancel``), and no step starts after it; the
answer is ``TIMEOUT`` with the steps done.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from baremobile.errors import BaremobileError, CommandTimeout, InvalidArgument
from baremobile.tools.params import p
from baremobile.tools.row import Args, Ctx, ToolSpec

__all__ = ["MAX_STEPS", "ROWS"]

#: the most steps one batch may hold
MAX_STEPS = 50


def _stop(exc: BaremobileError, data: dict[str, Any]) -> BaremobileError:
    exc.data = data  # the dispatcher adds it to the answer
    return exc


def _execute(ctx: Ctx, a: Args) -> dict[str, Any]:
    steps = a["steps"]
    if len(steps) > MAX_STEPS:
        raise InvalidArgument(f"a batch holds at most {MAX_STEPS} steps, not {len(steps)}")
    stop_on_error = a.get("stop_on_error", True)
    budget = ctx.time.wait
    deadline = time.monotonic() + budget if budget is not None else None
    done: list[dict[str, Any]] = []
    failed = 0

    def summary(stopped_at: int | None) -> dict[str, Any]:
        return {"steps": done, "completed": len(done), "stopped_at": stopped_at}

    for i, step in enumerate(steps):
        name, args = step["tool"], dict(step.get("args") or {})
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise _stop(CommandTimeout(
                f"the batch ran out of its {budget:g} s after {i} of {len(steps)} steps",
                hint="give the batch a longer timeout, or fewer steps"), summary(i))
        timer = None
        cancel = getattr(ctx.page, "cancel", None) if left is not None else None
        if cancel is not None and left is not None:  # (cancel is None when left is)
            timer = threading.Timer(left, cancel)
            timer.daemon = True
            timer.start()
        try:
            shown, result = ctx.run_step(name, args, time_left=left)
            done.append({"step": i, "ok": True, "tool": shown, **result})
        except BaremobileError as exc:
            out_of_time = deadline is not None and time.monotonic() >= deadline
            done.append({"step": i, "ok": False, "tool": name, "error": ctx.error(exc)})
            if out_of_time:
                raise _stop(CommandTimeout(
                    f"the batch ran out of its {budget:g} s in step {i + 1} ({name})",
                    hint="give the batch a longer timeout, or fewer steps"),
                    summary(i)) from None
            failed += 1
            if stop_on_error:
                exc.message = f"step {i + 1} of {len(steps)} ({name}) failed: {exc.message}"
                raise _stop(exc, summary(i)) from None
        finally:
            if timer is not None:
                timer.cancel()
    return {"done": f"ran {len(done)} steps" + (f", {failed} failed" if failed else ""),
            **summary(None), "failed": failed}


ROWS = (
    ToolSpec(
        "execute",
        "Run tool calls in order on one device in one request: steps [{tool, args}]. The "
        "first failing step stops the batch unless stop_on_error=false; timeout bounds it all.",
        {"steps": {"type": "array", "minItems": 1, "maxItems": MAX_STEPS,
                   "items": {"type": "object",
                             "properties": {"tool": {"type": "string", "minLength": 1},
                                            "args": {"type": "object",
                                                     "description": "as that tool takes "
                                                                    "them"}},
                             "required": ["tool"], "additionalProperties": False}},
         "stop_on_error": {"type": "boolean"},
         "timeout": p("timeout", "seconds, default no limit")},
        _execute, required=("steps",), group="batch",
        returns="each step's result in 'steps', 'completed', 'failed'.",
        acts_without_verb=True, waits_without_verb="timeout", calls_in="steps",
    ),
)
