"""Rows of the app verbs (``page/apps.py``): listing, installing, stopping, permissions."""

from __future__ import annotations

from typing import Any

from baremobile.page import Page
from baremobile.timeouts import INSTALL_S
from baremobile.tools import hostfiles
from baremobile.tools.params import PARAMS
from baremobile.tools.row import Args, Ctx, ToolSpec

__all__ = ["ROWS"]


def _list_apps(ctx: Ctx, a: Args) -> dict[str, Any]:
    kind = a.get("kind", "user" if a.get("third_party") else "all")
    apps = ctx.page.list_apps(a.get("name"), kind=kind, versions=a.get("versions", False),
                              labels=a.get("labels", False))
    return {"packages": [x.package for x in apps], "apps": [x.to_dict() for x in apps],
            "count": len(apps)}


def _uninstall(ctx: Ctx, a: Args) -> dict[str, Any]:
    said = ctx.page.uninstall(a["package"], keep_data=a.get("keep_data", False))
    return {"done": f"uninstalled {a['package']}", "output": said}


def _stop_app(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.stop_app(a["package"])
    return {"done": f"force-stopped {a['package']}"}


def _clear_app_data(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.clear_app_data(a["package"])
    return {"done": f"cleared the data of {a['package']}"}


def _grant(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.grant_permission(a["package"], a["permission"])
    return {"done": f"granted {a['permission']} to {a['package']}"}


def _revoke(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.revoke_permission(a["package"], a["permission"])
    return {"done": f"revoked {a['permission']} from {a['package']}"}


def _install(ctx: Ctx, a: Args) -> dict[str, Any]:
    shown, apk = hostfiles.read_host_file(ctx.files_dir, a["apk"])
    said = ctx.page.install(apk, replace=a.get("replace", True))
    return {"done": f"installed {shown}", "output": said}


_PERMISSION = {"type": "string", "minLength": 1, "description": "e.g. android.permission.CAMERA"}

ROWS = (
    ToolSpec(
        "list_apps",
        "List installed apps, filtered by a part of the package (or label with labels=true) "
        "and by kind; versions and labels on request.",
        {"name": {"type": "string", "minLength": 1},
         "kind": {"type": "string", "enum": ["all", "user", "system"]},
         "third_party": {"type": "boolean"},
         "versions": {"type": "boolean"},
         "labels": {"type": "boolean", "description": "read from each APK: slower"}},
        _list_apps, verbs=(Page.list_apps,), group="apps", read_only=True,
        hidden=("third_party",),
        returns="'packages', 'apps' [{package, system, label, version_name, version_code}], "
                "'count'.",
    ),
    ToolSpec(
        "uninstall_app", "Uninstall a user app (keep_data keeps its data).",
        {"package": PARAMS["package"], "keep_data": {"type": "boolean"}},
        _uninstall, verbs=(Page.uninstall,), required=("package",), group="apps",
        destructive=True, returns="pm's 'output'.",
        cli_args=("package",),
    ),
    ToolSpec(
        "stop_app", "Force-stop an app; its data stays.",
        {"package": PARAMS["package"]}, _stop_app, verbs=(Page.stop_app,),
        required=("package",), group="apps",
        cli_args=("package",),
    ),
    ToolSpec(
        "clear_app_data", "Erase an app's data and cache, as if freshly installed.",
        {"package": PARAMS["package"]}, _clear_app_data, verbs=(Page.clear_app_data,),
        required=("package",), group="apps", destructive=True,
        cli_args=("package",),
    ),
    ToolSpec(
        "grant_permission", "Grant an app a runtime permission without a dialog.",
        {"package": PARAMS["package"], "permission": _PERMISSION},
        _grant, verbs=(Page.grant_permission,), required=("package", "permission"),
        group="apps",
        cli_args=("package", "permission"),
    ),
    ToolSpec(
        "revoke_permission", "Take a runtime permission from an app.",
        {"package": PARAMS["package"], "permission": _PERMISSION},
        _revoke, verbs=(Page.revoke_permission,), required=("package", "permission"),
        group="apps", destructive=True,
        cli_args=("package", "permission"),
    ),
    ToolSpec(
        "install_app",
        "Install an APK from the operator's files directory (refused if none is set).",
        {"apk": {"type": "string", "minLength": 1,
                 "description": "path in the files directory"},
         "replace": {"type": "boolean", "description": "default true"}},
        _install, verbs=(Page.install,), required=("apk",), group="apps", destructive=True,
        host_paths=("apk",), returns="pm's 'output'.",
        floor=INSTALL_S,
        cli="install", cli_args=("apk",),
    ),
)
