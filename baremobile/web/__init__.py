"""Web content inside apps: WebViews and Chrome, read through the Chrome DevTools Protocol
over the device's own ADB connection (``docs/web.md``).

The layers, bottom up: a byte stream to a DevTools socket (an ADB ``localabstract:``
stream, :meth:`baremobile.transport.Transport.open_stream`), DevTools' HTTP
(:mod:`.endpoints`, on h11), a WebSocket (:mod:`.ws`, on websockets' sans-I/O protocol), a
small CDP client (:mod:`.cdp`); then :mod:`.discovery` (which process has a socket),
:mod:`.capture` (one page's layout and accessibility tree), :mod:`.tree` (those as dump-like
nodes for the snapshot's pruner), :mod:`.reader` (from a native snapshot to its pages' nodes)
and :mod:`.merge` (the merged snapshot).

Needs the ``[web]`` extra (``websockets``, ``h11``); nothing here is imported by
``import baremobile``.
"""

from __future__ import annotations

__all__ = ["require", "available"]


def available() -> bool:
    """Whether the ``[web]`` extra's packages can be imported."""
    try:
        import h11  # noqa: F401
        import websockets  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    """Raise :class:`~baremobile.errors.WebUnavailable` unless the ``[web]`` extra is there."""
    if not available():
        from baremobile.errors import WebUnavailable

        raise WebUnavailable("reading web content needs the [web] extra (websockets, h11)",
                             hint="pip install 'baremobile[web]'")
