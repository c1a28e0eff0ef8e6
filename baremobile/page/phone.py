"""The built-in virtual phone, started in this process for ``connect("virtual")``.

The transports speak to any adbd and know no virtual phone; this is the one place the Page's
side starts one (:func:`start`, handed to :func:`baremobile.transport.open_transport`), and
types what the phone — which knows no baremobile errors — raises.
"""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument, InvalidScenario

__all__ = ["start"]


def start(scenario: str | None, *, api_level: int | None = None,
          profile: str | None = None) -> Any:
    """A running virtual phone (its adbd on a free port, no key asked) of ``scenario`` (None:
    the built-in demo)."""
    from baremobile.virtual import VirtualPhone
    from baremobile.virtual.scenario import ScenarioError

    try:
        return VirtualPhone(scenario, auth="none", api_level=api_level,
                            profile=profile).start()
    except ScenarioError as exc:  # the phone knows no baremobile errors: type it here
        raise InvalidScenario(str(exc)) from None
    except ValueError as exc:  # an unknown profile
        raise InvalidArgument(str(exc)) from None
