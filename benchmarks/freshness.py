"""What knowing that refs still show the screen costs (issue 28, item 6): ``page.freshness``.

    python benchmarks/freshness.py [--rounds 4] [--dump-delay 1.5]

On the virtual phone's Settings an agent takes a snapshot and taps the "Battery" row by its
ref, in three situations, under each mode of ``page.freshness``:

  still    nothing happened between the snapshot and the tap
  drawn    a second ADB client scrolled the list a little first (the row moved)
  gone     a second client scrolled the row out of view first (the tap must not happen)

  own      only this page's acting verbs make refs stale (what the page did before issue
           28): no check — the baseline every ratio is against
  frames   the default: one command compares the display's frame count on the device
           with the one read with the snapshot, and brings the dump along only when the
           screen drew since
  strict   a dump before every action

For each: round trips of the tap verb (the services the phone opened), its seconds, and
whether it did the right thing (tapped Battery where it is, or refused when it is gone;
"own" taps what is at the old place). Then the same with every dump slowed to
``--dump-delay`` seconds (``uiautomator dump`` on a real phone: 1–3 s), and what reading
the frame count adds to a snapshot. Machines here are shared and noisy: read the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baremobile import connect  # noqa: E402
from baremobile.errors import RefNotFound  # noqa: E402
from baremobile.virtual import VirtualPhone  # noqa: E402

SETTINGS = "com.android.settings"
MODES = ("own", "frames", "strict")
SITUATIONS = {"still": 0.0, "drawn": 0.12, "gone": 0.9}


def _ref(snap, text: str) -> int:  # type: ignore[no-untyped-def]
    """The ref of the row holding ``text`` (or of the element itself)."""
    for r in snap.refs:
        node = snap.refs.node(r)
        if node.text == text or any(k.text == text for k in node.children):
            return r
    raise LookupError(text)


def one(phone: VirtualPhone, agent, other, mode: str, shift: float  # type: ignore[no-untyped-def]
        ) -> tuple[int, float, bool]:
    """(round trips, seconds, right) of one tap on "Battery" after ``other`` scrolled the
    list by ``shift`` of its height."""
    phone.screens.reset()
    agent.launch(SETTINGS)
    agent.freshness = mode
    snap = agent.snapshot()
    battery = _ref(snap, "Battery")
    lst = next(r for r in snap.refs if snap.refs[r].role == "List")
    if shift:
        other.snapshot()
        other.scroll(lst, "down", amount=shift)
    since = phone.events.last_seq
    began = time.perf_counter()
    refused = False
    try:
        agent.tap(battery)
    except RefNotFound:
        refused = True
    seconds = time.perf_counter() - began
    news = phone.events.list(since=since)
    trips = sum(1 for e in news if e.kind == "open")
    taps = [e for e in news if e.kind == "tap"]
    if shift >= 0.5:  # Battery scrolled away: right is refusing
        right = refused and not taps
    else:
        right = (not refused and phone.screens.screen_name() == "settings_page"
                 and 'text="Battery"' in phone.screens.dump_xml().decode())
    return trips, seconds, right


def table(phone: VirtualPhone, agent, other, rounds: int, title: str) -> None:  # type: ignore[no-untyped-def]
    print(f"\n{title}")
    head = f"{'situation':<10}{'mode':<8}{'round trips':>12}{'seconds':>10}{'vs own':>8}" \
           f"{'right':>8}"
    print(head)
    print("-" * len(head))
    for situation, shift in SITUATIONS.items():
        base = None
        for mode in MODES:
            runs = [one(phone, agent, other, mode, shift) for _ in range(rounds)]
            trips = statistics.median(r[0] for r in runs)
            secs = statistics.median(r[1] for r in runs)
            right = sum(r[2] for r in runs)
            base = secs if mode == "own" else base
            ratio = secs / base if base else float("nan")
            print(f"{situation:<10}{mode:<8}{trips:>12g}{secs:>10.3f}{ratio:>7.2f}x"
                  f"{right:>5}/{rounds}")


def snapshot_cost(phone: VirtualPhone, agent, rounds: int) -> None:  # type: ignore[no-untyped-def]
    """A snapshot with the frame count read in its round trip, against one without."""
    phone.screens.reset()
    agent.launch(SETTINGS)
    times: dict[str, list[float]] = {"own": [], "frames": []}
    for _ in range(rounds):
        for mode in times:  # interleaved
            agent.freshness = mode
            began = time.perf_counter()
            agent.snapshot()
            times[mode].append(time.perf_counter() - began)
    own, frames = (statistics.median(times[m]) for m in ("own", "frames"))
    print(f"  snapshot: {own:.3f} s without the frame count, {frames:.3f} s with it "
          f"({frames / own:.2f}x)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--dump-delay", type=float, default=1.5)
    args = ap.parse_args()
    with VirtualPhone() as phone, connect(phone.address) as agent, \
            connect(phone.address) as other:
        table(phone, agent, other, args.rounds, "the virtual phone as it is (dumps ~20 ms)")
        snapshot_cost(phone, agent, max(5, args.rounds * 3))
        phone.model.faults.set(None, delay_s=args.dump_delay)
        table(phone, agent, other, args.rounds,
              f"every dump takes {args.dump_delay:g} s (a real phone's uiautomator)")
        snapshot_cost(phone, agent, args.rounds)


if __name__ == "__main__":
    main()
