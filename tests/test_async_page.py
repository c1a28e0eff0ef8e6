"""The async twin: the same verbs, awaitable, several devices at once."""

from __future__ import annotations

import asyncio
import inspect

from baremobile import AsyncPage, Page, connect_async
from baremobile.async_page import VERBS
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port


def test_every_verb_has_an_awaitable_twin_with_its_docs():
    for name in VERBS:
        twin = getattr(AsyncPage, name)
        assert inspect.iscoroutinefunction(twin), name
        assert twin.__doc__ == getattr(Page, name).__doc__


def test_async_flow_and_two_phones_at_once(phone, adb_key):
    async def flow(address: str, text: str) -> str:
        async with await connect_async(address, keys=[adb_key]) as page:
            await page.launch("com.google.android.apps.messaging")
            await page.snapshot()
            await page.tap({"text": "Alex Kim"})
            await page.snapshot()
            field = (await page.find({"role": "TextInput"}))[0]
            await page.type(field.ref, text)
            snap = await page.snapshot()
            return snap.refs[field.ref].text

    async def both(other: VirtualPhone) -> list[str]:
        return await asyncio.gather(
            flow(phone.address, "first phone"), flow(other.address, "second phone")
        )

    with VirtualPhone(port=free_port()) as other:
        assert asyncio.run(both(other)) == ["first phone", "second phone"]
        assert [e["text"] for e in other.events.list("text")] == ["second", "phone"]
