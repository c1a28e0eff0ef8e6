"""AutoMobile's ``executePlan``: its YAML plan (``schemas/test-plan.schema.json``: ``{name?,
steps: [{tool, params? | the arguments beside tool, label?}]}``) as one batch of ours
(``execute``), its steps through AutoMobile's aliases, and the batch's result — or the step
it stopped at — in AutoMobile's words (``{success, executedSteps, totalSteps,
failedStep?}``), for :mod:`baremobile.tools.table.automobile`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baremobile.errors import InvalidArgument, Unsupported
from baremobile.tools.aliases import Alias, Args

__all__ = ["batch", "failed", "plan_steps", "result"]


#: a plan step's keys that are not the tool's arguments (``test-plan.schema.json``)
_STEP_KEYS = ("tool", "params", "label", "device", "expectations", "description", "id")


def plan_steps(a: Args) -> list[dict[str, Any]]:
    """The plan's steps ``[{tool, args}]`` from its YAML (``startStep`` on)."""
    from io import StringIO

    from ruamel.yaml import YAML, YAMLError

    content = a.get("planContent")
    if not isinstance(content, str) or not content.strip():
        raise InvalidArgument("planContent is required: the plan's YAML")
    if len(content) > 1_000_000:
        raise InvalidArgument("planContent is larger than 1 MB")
    try:
        plan = YAML(typ="safe", pure=True).load(StringIO(content))
    except YAMLError as exc:
        raise InvalidArgument(f"planContent is not YAML: {str(exc)[:200]}") from None
    steps = plan.get("steps") if isinstance(plan, dict) else None
    if not isinstance(steps, list) or not steps:
        raise InvalidArgument("the plan has no steps: {name, steps: [{tool, params}]}")
    start = a.get("startStep", 0)
    if isinstance(start, bool) or not isinstance(start, (int, float)) or \
            not 0 <= start < len(steps):
        raise InvalidArgument(f"startStep is a step index (0–{len(steps) - 1})")
    if a.get("devices"):
        raise Unsupported("Multi-device plans require an active daemon session.",
                          hint="here a plan runs on its session's one device: leave "
                               "devices out")
    out = []
    for i, step in enumerate(steps[int(start):], int(start)):
        if not isinstance(step, dict) or not isinstance(step.get("tool"), str):
            raise InvalidArgument(f"step {i} is {{tool, params}}")
        params = step.get("params")
        if params is None:
            params = {k: v for k, v in step.items() if k not in _STEP_KEYS}
        if not isinstance(params, dict):
            raise InvalidArgument(f"step {i}: params is an object")
        out.append({"tool": step["tool"], "args": params})
    return out


def _expanded(a: Args, aliases: Mapping[str, Alias]
              ) -> tuple[list[dict[str, Any]], list[int]]:
    """The plan's steps as one batch — a step whose alias is a batch itself (``launchApp``
    with ``clearAppData``, ``terminateApp``, ``tapOn`` with ``searchUntil`` …) gives its own
    steps — and, for each, the index of the plan step it belongs to."""
    start = int(a.get("startStep", 0) or 0)
    flat: list[dict[str, Any]] = []
    owner: list[int] = []
    steps = plan_steps(a)
    cleanup = a.get("cleanupAppId")
    if isinstance(cleanup, str) and cleanup:
        steps.append({"tool": "terminateApp", "args": {"appId": cleanup}})
    for i, step in enumerate(steps, start):
        alias = aliases.get(step["tool"])
        inner = None
        if alias is not None and alias.name != "executePlan" and alias.tool is not None \
                and alias.args is not None and alias.row_name(step["args"]) == "execute":
            inner = alias.args(step["args"])
        for each in inner["steps"] if isinstance(inner, dict) else [step]:
            flat.append(each)
            owner.append(i)
    return flat, owner


def batch(a: Args, aliases: Mapping[str, Alias]) -> Args:
    """The plan as our ``execute``'s arguments."""
    return {"steps": _expanded(a, aliases)[0]}


def result(ours: dict[str, Any], a: Args, aliases: Mapping[str, Alias]) -> dict[str, Any]:
    """AutoMobile's result of a plan that ran to its end."""
    flat, owner = _expanded(a, aliases)
    start = int(a.get("startStep", 0) or 0)
    total = start + len(plan_steps(a))
    out: dict[str, Any] = {"success": True, "executedSteps": len(set(owner)),
                           "totalSteps": total, "platform": "android"}
    if ours.get("device"):
        out["deviceId"] = ours["device"]
    return out


def failed(ours: dict[str, Any], a: Args, aliases: Mapping[str, Alias]
           ) -> dict[str, Any] | None:
    """AutoMobile's result of a plan that stopped at a step (it answers it, success false,
    rather than failing the call); None when the plan itself was refused."""
    stopped = ours.get("stopped_at")
    if stopped is None:
        return None
    flat, owner = _expanded(a, aliases)
    start = int(a.get("startStep", 0) or 0)
    failed = owner[stopped] if stopped < len(owner) else None
    step: dict[str, Any] = next((s for s in ours.get("steps") or [] if not s.get("ok")), {})
    error = (step.get("error") or ours.get("error") or {}).get("message", "the step failed")
    plan = plan_steps(a)
    out: dict[str, Any] = {
        "success": False, "executedSteps": len({o for o in owner[:stopped]} - {failed}),
        "totalSteps": start + len(plan), "error": error, "platform": "android"}
    if failed is not None:
        name = plan[failed - start]["tool"] if failed - start < len(plan) else "terminateApp"
        out["failedStep"] = {"stepIndex": failed, "tool": name, "error": error}
    return out
