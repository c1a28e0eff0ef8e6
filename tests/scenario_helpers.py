"""Small scenarios written by tests: one app (``com.example.app``) with no status bar,
navigation bar or keyboard, its screens' dumps built from :func:`node`."""

from __future__ import annotations

from pathlib import Path

APP = "com.example.app"


def node(cls: str, bounds: str, *, text: str = "", desc: str = "", rid: str = "",
         pkg: str = APP, clickable: bool = False, focusable: bool | None = None,
         extra: str = "", children: str = "") -> str:
    """One ``<node>`` as ``uiautomator dump`` writes it (``focusable`` follows ``clickable``
    unless given; ``extra``: more attributes, with their leading space)."""
    click = "true" if clickable else "false"
    focus = click if focusable is None else ("true" if focusable else "false")
    attrs = (f'index="0" text="{text}" resource-id="{rid}" class="{cls}" package="{pkg}" '
             f'content-desc="{desc}" checkable="false" checked="false" clickable="{click}" '
             f'enabled="true" focusable="{focus}" focused="false" scrollable="false" '
             f'long-clickable="false" password="false" selected="false" bounds="{bounds}"'
             f'{extra}')
    return f"<node {attrs}>{children}</node>" if children else f"<node {attrs} />"


def bare_app(folder: Path, screens: dict[str, str], on: dict[str, str] | None = None) -> Path:
    """Write a scenario into ``folder`` and return its file: ``screens`` maps each screen's
    name to its windows (``<node>`` XML; the first screen is where the phone starts), ``on``
    a screen's rules (YAML, as under ``on:``)."""
    lines = ["scenario: 1", f"start: {next(iter(screens))}", "system_ui:",
             "  status_bar: false", "  nav_bar: none", "  keyboard: false", "apps:",
             f"  - package: {APP}", "    activity: .Main", "    screens:"]
    for name, windows in screens.items():
        (folder / f"{name}.xml").write_text(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="0">{windows}</hierarchy>')
        lines += [f"      {name}:", f"        xml: {name}.xml"]
        if on and name in on:
            lines += ["        on:", *(f"          {ln}" for ln in on[name].splitlines())]
    path = folder / "s.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path
