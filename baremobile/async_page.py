"""``AsyncPage``: the same verbs as :class:`~baremobile.page.Page`, awaitable.

One core, two front doors: every coroutine runs the sync verb in a worker thread
(``asyncio.to_thread``), so an event loop is never blocked by a device round trip and
several devices can be driven at once::

    from baremobile import connect_async

    async with await connect_async("virtual") as page:
        await page.launch("com.android.settings")
        snap = await page.snapshot()
        await page.tap({"text": "Network & internet"})

Calls on one page are serialised by the page's lock, as in the sync API.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any

from baremobile.page import Page, connect

__all__ = ["AsyncPage", "connect_async"]

#: Page methods that get an awaitable twin.
VERBS = (
    "snapshot",
    "find",
    "tap",
    "long_press",
    "tap_xy",
    "swipe",
    "scroll",
    "scroll_until",
    "type",
    "press",
    "back",
    "home",
    "recents",
    "launch",
    "open_url",
    "intent",
    "screenshot",
    "wait_for_text",
    "wait_for",
    "wait_stable",
    "device_info",
    "foreground",
    "apps",
    "logcat",
    "push",
    "pull",
    "pull_into",
    "focused_field",
    "shell",
    "close",
)


def _awaitable(name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    sync = getattr(Page, name)

    @functools.wraps(sync)
    async def verb(self: AsyncPage, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(getattr(self.page, name), *args, **kwargs)

    return verb


class AsyncPage:
    """An awaitable :class:`Page`. Create it with :func:`connect_async`."""

    def __init__(self, page: Page) -> None:
        self.page = page

    @property
    def serial(self) -> str:
        return self.page.serial

    @property
    def last_snapshot(self) -> Any:
        return self.page.last_snapshot

    async def __aenter__(self) -> AsyncPage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<AsyncPage {self.serial} via {self.page.transport.kind}>"


for _name in VERBS:
    setattr(AsyncPage, _name, _awaitable(_name))


async def connect_async(device: str | None = None, **options: Any) -> AsyncPage:
    """Connect without blocking the event loop; see :func:`baremobile.connect`."""
    return AsyncPage(await asyncio.to_thread(connect, device, **options))
