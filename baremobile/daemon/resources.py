"""The daemon's MCP resources: ``resources/list``, ``resources/list-templates``,
``resources/read`` (AutoMobile's socket API), as plain JSON in MCP's shapes.

The set is the one every door serves (:mod:`baremobile.tools.resources`, written from the
tool rows): ``baremobile://devices`` — here the daemon's pool — and per device its
snapshot, screenshot and info, read fresh through the tool table in the client's limits
(:meth:`~baremobile.daemon.hub.Hub.gate`: a device outside its allow-list, or a scenario
file it may not name, is refused as a tool call would be). ``resources/list`` names the
devices the client may use (connected, or in the pool and not in error); the templates say
how to name any device, and reading one the daemon has not connected yet connects it.
"""

from __future__ import annotations

from typing import Any

from baremobile.daemon.errors import ToolFailed
from baremobile.daemon.sessions import Policy
from baremobile.tools import resources
from baremobile.tools.dispatch import call

__all__ = ["list_resources", "list_templates", "read_resource"]

_POOL = "the daemon's devices: idle, assigned to a session, or in error"


def _known(hub: Any, policy: Policy | None) -> list[str]:
    """The devices to list: connected pages (by serial), then pool devices not in error —
    those the client may use."""
    gate = hub.gate(policy)
    pages = hub.pages.pages()
    names = {p.serial: spec for spec, p in pages.items()}
    for d in hub.pool.snapshot():
        if d.get("state") != "error" and d["device"] not in pages:
            names.setdefault(d["device"], d["device"])
    return [serial for serial, spec in names.items() if gate.allows(spec)]


def list_resources(hub: Any, policy: Policy | None = None) -> dict[str, Any]:
    """``ListResourcesResult``: the pool, and each device's resources."""
    return {"resources": resources.listed(_known(hub, policy), _POOL)}


def list_templates() -> dict[str, Any]:
    """``ListResourceTemplatesResult``: the per-device resources of any device."""
    return {"resourceTemplates": resources.templates()}


def read_resource(hub: Any, uri: Any, policy: Policy | None = None) -> dict[str, Any]:
    """``ReadResourceResult`` of ``uri`` (read now, from the device, in ``policy``'s
    limits)."""
    gate = hub.gate(policy)

    def run(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return call(gate, tool, {**args, "device": hub.spec_of(args["device"])},
                    groups=("all",))

    try:
        return {"contents": resources.read(uri, run, hub.available_devices)}
    except resources.ToolError as exc:
        raise ToolFailed(exc.error, exc.tool) from None
