"""MCP resources, written from the rows (:attr:`~baremobile.tools.row.ToolSpec.resource`) for
every door that serves them — ``baremobile mcp``, ``mcp --daemon`` and the daemon's socket
offer the same set:

* ``baremobile://devices`` — the devices (``application/json``);
* per device, each row that is also a resource: ``baremobile://device/{serial}/snapshot``
  (the screen as text), ``…/screenshot`` (a PNG), ``…/info`` (model, Android version,
  screen, battery, foreground app);
* templates saying how to name any device.

Reading one runs its tool through the door's session — the same device lock, ``BUSY`` and
error codes as a tool call, and the same authorization: the serial in the URI is a device
named by the client, and passes the one gate every way of naming a device passes
(:meth:`baremobile.tools.Session.check_allowed`).
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Callable, Iterable
from typing import Any

from baremobile.errors import ResourceNotFound
from baremobile.tools.row import ToolSpec
from baremobile.tools.spec import TOOLS

__all__ = ["DEVICES_URI", "ResourceNotFound", "ToolError", "contents", "device_rows", "listed",
           "parse", "read", "templates"]

DEVICES_URI = "baremobile://devices"


def device_rows() -> list[ToolSpec]:
    """The rows served as a resource of each device."""
    return [t for t in TOOLS if t.resource is not None]


def _uri(serial: str, kind: str) -> str:
    return f"baremobile://device/{urllib.parse.quote(serial, safe='')}/{kind}"


def _summary(row: ToolSpec) -> str:
    return row.description.split(": ")[0].split(". ")[0].rstrip(".")


def listed(serials: Iterable[str], devices: str) -> list[dict[str, Any]]:
    """``resources/list``: the devices (``devices`` says what that list holds at this door),
    then each row's resource of each device in ``serials``."""
    out: list[dict[str, Any]] = [{"uri": DEVICES_URI, "name": "devices", "title": "devices",
                                  "mimeType": "application/json", "description": devices}]
    for serial in sorted(set(serials)):
        for row in device_rows():
            assert row.resource is not None
            out.append({"uri": _uri(serial, row.resource.kind),
                        "name": f"{serial} {row.resource.kind}",
                        "title": f"{serial}: {row.resource.title}",
                        "mimeType": row.resource.mime, "description": _summary(row)})
    return out


def templates() -> list[dict[str, Any]]:
    """``resources/templates/list``: each row's resource of any device."""
    out = []
    for row in device_rows():
        assert row.resource is not None
        out.append({"uriTemplate": f"baremobile://device/{{serial}}/{row.resource.kind}",
                    "name": f"device {row.resource.kind}",
                    "title": f"a device's {row.resource.title}",
                    "mimeType": row.resource.mime,
                    "description": f"{_summary(row)}; serial: a serial, host:port or pool "
                                   "name (percent-encoded)"})
    return out


def parse(uri: Any) -> tuple[str, ToolSpec] | None:
    """``(serial, row)`` of a device resource's URI; None for :data:`DEVICES_URI`; raises
    :class:`ResourceNotFound` for anything else."""
    if not isinstance(uri, str) or not uri:
        raise ResourceNotFound("resources/read needs a resource URI")
    if uri == DEVICES_URI:
        return None
    kinds = {row.resource.kind: row for row in device_rows() if row.resource is not None}
    m = re.fullmatch(r"baremobile://device/([^/]+)/(" + "|".join(kinds) + ")", uri)
    if m is None:
        raise ResourceNotFound(
            f"there is no resource {uri[:200]!r}",
            hint=f"resources are {DEVICES_URI} and baremobile://device/<serial>/"
                 f"{'|'.join(kinds)} (list them: resources/list)")
    serial = urllib.parse.unquote(m.group(1))
    if not serial.strip():
        raise ResourceNotFound(f"{uri!r} names no device")
    return serial, kinds[m.group(2)]


def read(uri: Any, call: Callable[[str, dict[str, Any]], dict[str, Any]],
         devices: Callable[[], Any]) -> list[dict[str, Any]]:
    """The contents of ``uri``: a device resource through ``call(tool, arguments)`` (the
    door's tool call, in the client's session: ``device`` is the URI's serial, checked by
    the session's gate), the devices through ``devices()``. A tool's failure raises
    :class:`ToolError` with its error data."""
    found = parse(uri)
    if found is None:
        return [{"uri": uri, "mimeType": "application/json", "text": json.dumps(devices())}]
    serial, row = found
    assert row.resource is not None
    result = call(row.name, {**row.resource.args, "device": serial})
    if not result.get("ok"):
        raise ToolError(result.get("error") or {}, row.name)
    return contents(uri, row, result)


class ToolError(Exception):
    """A resource's tool failed: its error data (``code``, ``message``, ``hint``)."""

    def __init__(self, error: dict[str, Any], tool: str) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error, self.tool = error, tool


def contents(uri: str, row: ToolSpec, result: dict[str, Any]) -> list[dict[str, Any]]:
    """A resource's contents from its tool's ``result``."""
    assert row.resource is not None
    value = result[row.resource.result]
    if row.resource.mime.startswith("image/"):
        return [{"uri": uri, "mimeType": row.resource.mime, "blob": value["data"]}]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return [{"uri": uri, "mimeType": row.resource.mime, "text": text}]
