"""The daemon's MCP resources: ``resources/list``, ``resources/read``,
``resources/list-templates`` (AutoMobile's socket API), as plain JSON in MCP's shapes.

Per device, three resources, read fresh on every ``resources/read`` through the tool table
(so the device's lock, ``BUSY`` and the error codes behave as for a tool call):

* ``baremobile://device/{serial}/snapshot`` — the screen as text (``text/plain``);
* ``baremobile://device/{serial}/screenshot`` — a PNG of the screen (``image/png``, base64
  ``blob``);
* ``baremobile://device/{serial}/info`` — model, Android version, screen, battery, the
  foreground app (``application/json``);

and ``baremobile://devices``, the pool (``application/json``). ``resources/list`` names the
devices the daemon knows (connected, or in its pool and not in error); the templates say
how to name any device, and reading one the daemon has not connected yet connects it.
``baremobile mcp --daemon`` serves the same resources to its MCP client.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import Any

from baremobile.daemon.errors import ResourceNotFound, ToolFailed
from baremobile.tools.dispatch import call

__all__ = ["KINDS", "list_resources", "list_templates", "read_resource"]

#: what each per-device resource is: (tool, MIME type, title, description)
KINDS: dict[str, tuple[str, str, str, str]] = {
    "snapshot": ("snapshot", "text/plain", "screen (snapshot)",
                 "the screen as text, one element per line, refs as [ref=N]"),
    "screenshot": ("screenshot", "image/png", "screen (screenshot)", "a PNG of the screen"),
    "info": ("device_info", "application/json", "device info",
             "model, Android version, API level, screen size and density, orientation, "
             "battery, foreground app"),
}
DEVICES_URI = "baremobile://devices"
_URI = re.compile(r"^baremobile://device/([^/]+)/(" + "|".join(KINDS) + r")\Z")


def _uri(serial: str, kind: str) -> str:
    return f"baremobile://device/{urllib.parse.quote(serial, safe='')}/{kind}"


def _known(hub: Any) -> list[str]:
    """The devices to list: connected pages (by serial), then pool devices not in error."""
    pages = hub.pages.pages()
    names = {p.serial for p in pages.values()}
    connected = set(pages)
    for d in hub.pool.snapshot():
        if d.get("state") != "error" and d["device"] not in connected:
            names.add(d["device"])
    return sorted(names)


def list_resources(hub: Any) -> dict[str, Any]:
    """``ListResourcesResult``: the pool, and three resources per known device."""
    out: list[dict[str, Any]] = [{
        "uri": DEVICES_URI, "name": "devices", "title": "device pool",
        "mimeType": "application/json",
        "description": "the daemon's devices: idle, assigned to a session, or in error"}]
    for serial in _known(hub):
        for kind, (_, mime, title, description) in KINDS.items():
            out.append({"uri": _uri(serial, kind), "name": f"{serial} {kind}",
                        "title": f"{serial}: {title}", "mimeType": mime,
                        "description": description})
    return {"resources": out}


def list_templates() -> dict[str, Any]:
    """``ListResourceTemplatesResult``: the per-device resources of any device."""
    return {"resourceTemplates": [
        {"uriTemplate": f"baremobile://device/{{serial}}/{kind}", "name": f"device {kind}",
         "title": f"a device's {title}", "mimeType": mime,
         "description": f"{description}; serial: a serial, host:port or pool name "
                        "(percent-encoded)"}
        for kind, (_, mime, title, description) in KINDS.items()]}


def read_resource(hub: Any, uri: Any) -> dict[str, Any]:
    """``ReadResourceResult`` of ``uri`` (read now, from the device)."""
    if not isinstance(uri, str) or not uri:
        raise ResourceNotFound("resources/read needs params.uri (a resource URI)")
    if uri == DEVICES_URI:
        return {"contents": [{"uri": uri, "mimeType": "application/json",
                              "text": json.dumps(hub.available_devices())}]}
    m = _URI.match(uri)
    if m is None:
        raise ResourceNotFound(f"there is no resource {uri!r}: the daemon serves "
                               f"{DEVICES_URI} and baremobile://device/{{serial}}/"
                               f"{'|'.join(KINDS)}")
    serial, kind = urllib.parse.unquote(m.group(1)), m.group(2)
    tool, mime, _, _ = KINDS[kind]
    args = {"device": hub.spec_of(serial), **({"format": "png"} if kind == "screenshot" else {})}
    result = call(hub.pages, tool, args, groups=("all",))
    if not result.get("ok"):
        raise ToolFailed(result.get("error", {}), tool)
    if kind == "snapshot":
        return {"contents": [{"uri": uri, "mimeType": mime, "text": result["snapshot"]}]}
    if kind == "screenshot":
        return {"contents": [{"uri": uri, "mimeType": mime, "blob": result["image"]["data"]}]}
    return {"contents": [{"uri": uri, "mimeType": mime, "text": json.dumps(result["info"])}]}
