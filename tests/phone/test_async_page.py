"""The async twin: the same verbs, awaitable, several devices at once."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import subprocess
import sys

import pytest

from baremobile import AsyncPage, Page, connect_async
from baremobile.page import codegen
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


def test_every_public_page_verb_has_an_awaitable_twin_with_its_signature_and_docs():
    """Both directions: nothing public on Page lacks a twin (but the named exclusions), and
    AsyncPage has nothing Page lacks (but its own lifecycle)."""
    missing = _public(Page) - _public(AsyncPage) - set(codegen.EXCLUDED)
    assert not missing, f"Page verbs without an async twin: {sorted(missing)}"
    assert _public(AsyncPage) - _public(Page) == set()
    for name in _public(Page) - set(codegen.EXCLUDED) - {"close", "cancel"}:
        sync, twin = getattr(Page, name), getattr(AsyncPage, name)
        assert inspect.iscoroutinefunction(twin), name
        assert inspect.getdoc(twin) == inspect.getdoc(sync), name
        assert inspect.signature(twin) == inspect.signature(sync), name


def test_the_checked_in_async_page_is_what_the_generator_writes():
    """``baremobile/page/aio.py`` is generated from Page: a verb changed without
    regenerating (``python -m baremobile.page.codegen``) fails here."""
    assert codegen.TARGET.read_text(encoding="utf-8") == codegen.generate(), \
        "run: python -m baremobile.page.codegen"


def test_a_verb_added_to_page_gets_a_twin_when_regenerated(monkeypatch):
    from baremobile.page.steps import verb

    @verb()
    def zoom_out(self: Page, steps: int = 2, *, fast: bool = False) -> int:
        """Zoom out by ``steps``."""
        return steps

    monkeypatch.setattr(Page, "zoom_out", zoom_out, raising=False)
    text = codegen.generate()
    assert "async def zoom_out(self, steps: int = 2, *, fast: bool = False) -> int:" in text
    assert "self.page.zoom_out(steps, fast=fast)" in text


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


# -- cancellation and per-device queues (issue 15, item 2) ---------------------------------

QUICK = 2.0  # generous bound for "at once" on a shared machine


def _slow(phone: VirtualPhone) -> VirtualPhone:
    phone.model.faults.set(None, delay_s=10.0)  # a cancellable wait on the phone's side
    return phone


async def _snapshot_in_flight(phone: VirtualPhone, adb_key):
    """An AsyncPage and its snapshot task, once the phone is running the (slow) dump."""
    page = await connect_async(phone.address, keys=[adb_key])
    task = asyncio.create_task(page.snapshot())
    await _until(lambda: phone.events.list("open"))
    await asyncio.sleep(0.05)
    return page, task


async def _until(cond, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "timed out waiting"
        await asyncio.sleep(0.01)


def test_a_queued_call_cancelled_before_it_starts_sends_nothing(phone, adb_key):
    _slow(phone)

    async def main() -> None:
        async with await connect_async(phone.address, keys=[adb_key]) as page:
            snap = asyncio.create_task(page.snapshot())
            await _until(lambda: phone.events.list("open"))
            tap = asyncio.create_task(page.tap_xy(300, 400))
            await asyncio.sleep(0.2)
            tap.cancel()
            snap.cancel()
            for task in (tap, snap):
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                else:
                    raise AssertionError("not cancelled")
            assert page.last_snapshot is None  # the cancelled snapshot set nothing
            phone.model.faults.set(None, delay_s=0)
            assert (await page.snapshot()).refs  # the page still works
        await asyncio.sleep(0.3)
        assert not phone.events.list("tap"), "a cancelled tap reached the device"
        assert len(phone.events.list("dump")) == 1  # only the last snapshot ran

    asyncio.run(main())


def test_cancelling_a_running_call_aborts_it_at_once(phone, adb_key):
    _slow(phone)

    async def main() -> float:
        page, task = await _snapshot_in_flight(phone, adb_key)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        took = loop.time() - t0
        assert page.last_snapshot is None
        phone.model.faults.set(None, delay_s=0)
        t0 = loop.time()
        assert (await page.snapshot()).refs  # not stuck behind the abandoned dump
        took = max(took, loop.time() - t0)
        await page.close()
        return took

    assert asyncio.run(main()) < QUICK


def test_a_slow_device_does_not_starve_another(phone, adb_key):
    _slow(phone)

    async def main() -> float:
        with VirtualPhone(port=free_port()) as healthy:
            slow = await connect_async(phone.address, keys=[adb_key])
            fast = await connect_async(healthy.address, keys=[adb_key])
            queued = [asyncio.create_task(slow.snapshot()) for _ in range(10)]
            await _until(lambda: phone.events.list("open"))
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            assert (await fast.snapshot()).refs
            took = loop.time() - t0
            for task in queued:
                task.cancel()
            await asyncio.gather(*queued, return_exceptions=True)
            await slow.close()
            await fast.close()
            return took

    assert asyncio.run(main()) < QUICK


def test_close_cancels_the_running_call_and_the_worker_ends(phone, adb_key, no_thread_leaks):
    _slow(phone)

    async def main() -> None:
        page, task = await _snapshot_in_flight(phone, adb_key)
        await page.close()
        try:
            await task
        except Exception as exc:  # noqa: BLE001
            assert getattr(exc, "code", "") == "CANCELLED", exc
        else:
            raise AssertionError("the snapshot survived close()")

    asyncio.run(main())


def test_type_checkers_see_every_async_verb(tmp_path):
    """The generated AsyncPage has real signatures: mypy knows what ``await page.snapshot()``
    returns and refuses a call the verb does not take."""
    pytest.importorskip("mypy", reason="mypy is in the [test] extra")
    snippet = tmp_path / "agent.py"
    snippet.write_text(
        "from baremobile import connect_async\n\n\n"
        "async def main() -> None:\n"
        "    page = await connect_async('virtual')\n"
        "    reveal_type(await page.snapshot(diff=True))\n"
        "    reveal_type(await page.list_apps(kind='user'))\n"
        "    reveal_type(await page.wait_for({'text': 'OK'}, timeout=3))\n"
        "    await page.tap(3, 4)\n", encoding="utf-8")
    # a process of its own: mypy raises the interpreter's recursion limit for good
    done = subprocess.run([sys.executable, "-m", "mypy", str(snippet), "--follow-imports=silent",
                           "--ignore-missing-imports", "--no-incremental",
                           "--cache-dir", str(tmp_path / "cache")],
                          capture_output=True, text=True, timeout=300)
    out, err = done.stdout, done.stderr
    assert 'Revealed type is "baremobile.snapshot.result.Snapshot"' in out, out + err
    assert 'Revealed type is "list[baremobile.device.apps.App]"' in out, out
    assert 'Revealed type is "baremobile.snapshot.tree.Node | None"' in out, out
    assert 'Too many arguments for "tap" of "AsyncPage"' in out, out
    assert out.count("error:") == 1, out


def test_cancel_says_why(phone, adb_key):
    """``AsyncPage.cancel(reason)``: the running call raises ``Cancelled`` naming the reason
    (it was dropped before)."""
    from baremobile.errors import Cancelled

    _slow(phone)

    async def main() -> None:
        async with await connect_async(phone.address, keys=[adb_key]) as page:
            snap = asyncio.create_task(page.snapshot())
            await _until(lambda: phone.events.list("open"))
            await asyncio.sleep(0.1)
            assert page.cancel("the user pressed stop")
            try:
                await snap
            except Cancelled as exc:
                assert "the user pressed stop" in str(exc)
            else:
                raise AssertionError("not cancelled")

    asyncio.run(main())
