"""``baremobile demo``: a short scripted agent flow, printing every snapshot it reads.

The script plays the agent: it reads each snapshot, picks refs by what they show, and
acts — open Settings, search for "wifi", go back, scroll, then send a message in Messages.
It runs on the built-in virtual phone by default (``-d`` picks a real device; the flow
expects stock Settings and Google Messages there).
"""

from __future__ import annotations

import time

from baremobile.page import Page, connect

__all__ = ["run_demo"]


def _show(title: str, page: Page) -> None:
    snap = page.snapshot()
    print(f"\n=== {title}  ({snap.package}, {len(snap.refs)} refs, {len(snap.text)} chars)")
    print(snap.text)


def _ref(page: Page, **selector: str) -> int:
    node = page.find(selector)[0]
    if node.ref is None:
        raise SystemExit(f"demo: {selector} is on screen but has no ref")
    return node.ref


def run_demo(device: str | None = "virtual") -> int:
    t0 = time.perf_counter()
    with connect(device) as page:
        print(f"connected to {page.serial} via {page.transport.kind}")

        page.launch("com.android.settings")
        _show("launch('com.android.settings')", page)

        page.tap(_ref(page, text="Search Settings"))
        page.snapshot()
        page.type(page.find(role="TextInput")[0].ref or 0, "wifi")
        _show("tap(search) → type(field, 'wifi')", page)

        page.back()  # hides the keyboard
        page.back()  # leaves search
        page.snapshot()
        page.scroll(_ref(page, role="List"), "down")
        _show("back() ×2 → scroll(list, 'down')", page)

        page.launch("com.google.android.apps.messaging")
        page.snapshot()
        page.tap({"text": "Start chat"})
        page.snapshot()
        page.type(page.find(role="TextInput")[0].ref or 0, "5551234567")
        page.snapshot()
        page.tap({"text_contains": "Send to"})
        page.snapshot()
        page.type(page.find(role="TextInput")[0].ref or 0, "Hello from baremobile!")
        page.snapshot()
        page.tap({"desc": "Send SMS"})
        _show("Messages: start chat → type number → type message → tap Send", page)

        shot = page.screenshot()
        page.home()
        _show(f"screenshot() → {shot.width}x{shot.height} PNG → home()", page)

        phone = getattr(page.transport, "phone", None)
        if phone is not None:
            kinds: dict[str, int] = {}
            for ev in phone.events:
                kinds[ev.kind] = kinds.get(ev.kind, 0) + 1
            seen = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()) if k != "command")
            print(f"\nthe virtual phone received: {seen}")
    print(f"done in {time.perf_counter() - t0:.2f} s")
    return 0
