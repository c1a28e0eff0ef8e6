"""The parameters many tools share, as JSON schemas: what is accepted (every bound the
validator enforces) and, in ``description``, the few words a model reads.

The menu a model is shown is rendered from these by :mod:`baremobile.tools.render`, which
keeps only what a model needs and every client accepts (single types, ``properties``,
``required``, ``items``, ``enum``, ``description``); bounds stay here and are enforced when
a call arrives, with an error naming the parameter. So a description says a bound only
where a model would otherwise guess wrong.
"""

from __future__ import annotations

from typing import Any

from baremobile.page.selector import ALIASES, CRITERIA
from baremobile.timeouts import MAX_WAIT_S

__all__ = ["PARAMS", "SELECTOR", "SELECTOR_ALIASES", "TARGET", "POINT", "p", "selector"]

#: other spellings of selector fields — clawperator's camelCase keys and matcher names,
#: Android's (accepted, not advertised: :data:`baremobile.page.selector.ALIASES`)
SELECTOR_ALIASES = dict(ALIASES)

#: the selector's fields as a model reads them (``find``'s description says what each is)
_FIELDS: dict[str, dict[str, Any]] = {
    "text": {"type": "string"},
    "text_contains": {"type": "string"},
    "desc": {"type": "string"},
    "desc_contains": {"type": "string"},
    "id": {"type": "string"},
    "role": {"type": "string"},
    "class_name": {"type": "string"},
}


def selector(description: str | None = None) -> dict[str, Any]:
    """A selector parameter (find an element by what it shows), optionally described."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            **_FIELDS,
            **{alias: {"type": "string"} for alias in SELECTOR_ALIASES},
            "index": {"type": "integer", "minimum": 0},
        },
        "additionalProperties": False,
        "anyOf": [{"required": [c]} for c in (*CRITERIA, *SELECTOR_ALIASES)],
        "x-hidden": list(SELECTOR_ALIASES),
    }
    if description:
        schema["description"] = description
    return schema


SELECTOR: dict[str, Any] = selector()

PARAMS: dict[str, dict[str, Any]] = {
    "ref": {"type": "integer", "minimum": 1},
    "selector": SELECTOR,
    "text": {"type": "string"},
    "key": {"type": ["string", "integer"],
            "description": "back, home, enter, tab, del, menu, search, app_switch, power, "
                           "wakeup, volume_up/down, dpad_up/down/left/right…, or a keycode"},
    "direction": {"type": "string", "enum": ["up", "down", "left", "right"],
                  "description": "down: see what is below"},
    "package": {"type": "string", "minLength": 1, "description": "e.g. com.android.settings"},
    "uri": {"type": "string", "minLength": 1},
    "x": {"type": "number", "minimum": 0, "maximum": 100_000},
    "y": {"type": "number", "minimum": 0, "maximum": 100_000},
    "device": {"type": "string", "minLength": 1},
    "max_chars": {"type": "integer", "minimum": 200, "maximum": 1_000_000},
    "timeout": {"type": "number", "minimum": 0, "maximum": MAX_WAIT_S,
                "description": "seconds"},
    "ms": {"type": "integer", "minimum": 1, "maximum": 60_000},
    "path": {"type": "string", "minLength": 1, "description": "absolute device path"},
    "error_on_timeout": {"type": "boolean"},
}

#: a tool that acts on an element: by ref or selector
TARGET: dict[str, Any] = {"ref": PARAMS["ref"], "selector": SELECTOR}
#: … or at a point
POINT: dict[str, Any] = {**TARGET, "x": PARAMS["x"], "y": PARAMS["y"]}


def p(name: str, description: str | None = None, **more: Any) -> dict[str, Any]:
    """Shared parameter ``name``, with a tool's own description and more keywords."""
    schema = dict(PARAMS[name])
    if description:
        schema["description"] = description
    schema.update(more)
    return schema
