"""The blueprint's Verified Flows as scripts an agent would run, observing after every step.

Shared by ``tests/phone/test_observe.py`` (stable refs and diffs, asserted) and
``benchmarks/observe.py`` (the token table). Each flow drives a :class:`~baremobile.Page`
on the virtual phone and calls ``look()`` wherever an agent takes a snapshot; ``look``
returns that snapshot, so the script can pick the next target from it.
"""

from __future__ import annotations

from collections.abc import Callable

from baremobile.page import Page
from baremobile.snapshot import Snapshot

SETTINGS = "com.android.settings"
MESSAGES = "com.google.android.apps.messaging"

Look = Callable[[], Snapshot]


def ref_of(snap: Snapshot, **selector: str) -> int:
    """The ref of the first element of ``snap`` matching ``selector``, or of the row or
    button it sits in (the nearest line above it with a ref)."""
    found = snap.find(**selector)
    if not found:
        raise LookupError(f"nothing matches {selector} in the snapshot")
    target = found[0]
    owner: dict[int, int] = {}
    for top in snap.tree.children:
        stack: list[tuple[object, int | None]] = [(top, None)]
        while stack:
            node, ref = stack.pop()
            mine = node.ref if node.ref is not None else ref  # type: ignore[attr-defined]
            owner[id(node)] = mine  # type: ignore[assignment]
            stack.extend((k, mine) for k in node.children)  # type: ignore[attr-defined]
    ref = owner.get(id(target))
    if ref is None:
        raise LookupError(f"{selector} is not inside anything with a ref")
    return ref


def open_app_and_read(page: Page, look: Look) -> None:
    page.launch(SETTINGS)
    look()


def search_by_typing(page: Page, look: Look) -> None:
    page.launch(SETTINGS)
    snap = look()
    page.tap(ref_of(snap, text="Search Settings"))
    snap = look()
    page.type(ref_of(snap, role="TextInput"), "wifi")
    look()


def navigate_back(page: Page, look: Look) -> None:
    page.launch(SETTINGS)
    snap = look()
    page.tap(ref_of(snap, text="Network & internet"))
    look()
    page.back()
    look()


def scroll_long_list(page: Page, look: Look) -> None:
    page.launch(SETTINGS)
    snap = look()
    lst = ref_of(snap, role="List")
    page.scroll(lst, "down")
    look()
    page.scroll(lst, "down")
    look()
    page.scroll(lst, "up")
    look()


def send_text_message(page: Page, look: Look) -> None:
    page.launch(MESSAGES)
    snap = look()
    page.tap(ref_of(snap, text="Start chat"))
    snap = look()
    page.type(ref_of(snap, role="TextInput"), "5551234567")
    snap = look()
    page.tap(ref_of(snap, text_contains="Send to"))
    snap = look()
    page.type(ref_of(snap, role="TextInput"), "Hello from baremobile!")
    snap = look()
    page.tap(ref_of(snap, desc="Send SMS"))
    look()


def _conversation(page: Page, look: Look) -> Snapshot:
    page.launch(MESSAGES)
    snap = look()
    page.tap(ref_of(snap, text="Alex Kim"))
    return look()


def insert_emoji(page: Page, look: Look) -> None:
    snap = _conversation(page, look)
    page.tap(ref_of(snap, desc="Emoji"))
    snap = look()
    page.tap(ref_of(snap, desc="grinning face"))
    snap = look()
    page.tap(ref_of(snap, desc="face with tears of joy"))
    look()


def attach_file_and_dismiss_dialog(page: Page, look: Look) -> None:
    snap = _conversation(page, look)
    page.tap(ref_of(snap, desc="Add attachment"))
    snap = look()
    page.tap(ref_of(snap, text_contains="Files"))
    snap = look()
    page.tap(ref_of(snap, desc="Show roots"))
    snap = look()
    page.tap(ref_of(snap, text="Downloads"))
    snap = look()
    page.tap(ref_of(snap, text="test-attach.txt"))
    snap = look()
    page.tap(ref_of(snap, text="OK"))
    look()


def dialog_ok_and_cancel(page: Page, look: Look) -> None:
    page.launch(SETTINGS)
    snap = look()
    page.tap(ref_of(snap, text="Display"))
    snap = look()
    lst = ref_of(snap, role="List")
    page.scroll(lst, "down")
    snap = look()
    page.tap(ref_of(snap, text="Screen timeout"))
    snap = look()
    page.tap(ref_of(snap, text="Cancel"))
    look()


def home_screen(page: Page, look: Look) -> None:
    page.launch(SETTINGS)
    look()
    page.home()
    look()


def app_switching(page: Page, look: Look) -> None:
    page.launch(SETTINGS)
    look()
    page.launch(MESSAGES)
    look()
    page.recents()
    look()


FLOWS: dict[str, Callable[[Page, Look], None]] = {
    "open an app, read the screen": open_app_and_read,
    "search by typing": search_by_typing,
    "navigate back": navigate_back,
    "scroll a long list": scroll_long_list,
    "send a text message": send_text_message,
    "insert emoji": insert_emoji,
    "attach a file, dismiss the dialog": attach_file_and_dismiss_dialog,
    "dialog OK / Cancel": dialog_ok_and_cancel,
    "home screen": home_screen,
    "app switching": app_switching,
}
