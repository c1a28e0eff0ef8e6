"""Window headers: what each top-level window is, named in one line above its nodes.

Every window with kept nodes (and the foreground app's window, even when it shows nothing)
becomes a :class:`~baremobile.snapshot.tree.Window` header, in dump order::

    - status bar: "9:41", (Wi-Fi signal full.)
    - app com.android.settings
    - dialog com.android.settings
    - keyboard
    - navigation bar: [ref=9] (Back), [ref=10] (Home)

What a window is, from what a dump really holds:

* ``--windows`` dumps give each window a ``type`` (``AccessibilityWindowInfo``:
  ``TYPE_APPLICATION``, ``TYPE_INPUT_METHOD``, ``TYPE_SYSTEM``, ``TYPE_ACCESSIBILITY_OVERLAY``,
  ``TYPE_SPLIT_SCREEN_DIVIDER``, ``TYPE_MAGNIFICATION_OVERLAY``) and a ``title``;
* plain dumps give only each root node's ``package`` and ``bounds``.

So: a **keyboard** is an input-method window (its type, or a keyboard package, see
:func:`is_input_method`). System UI windows
(``com.android.systemui``; in ``--windows`` dumps any ``TYPE_SYSTEM`` window) are named by
their title when it says so, else by where they sit: the **status bar** spans the top edge
and at most 15% of the height, the **navigation bar** the bottom edge (or, in landscape, a
side edge) likewise, the **notification shade** starts at the top and covers at least half
the height (it also holds the lock screen: one window in Android 12+). Any other system
window is a plain **window**. Application windows (``TYPE_APPLICATION``, or any other
package in plain dumps) are the **app** unless they lie wholly inside a larger application
window: then a **dialog** when at least a quarter of the screen wide (an alert, a picker, a
popup menu — a dump cannot tell these apart), else a plain **window** (edge handles,
floating bubbles). Overlays and dividers are plain windows. A single-window dump of a dialog
names it ``app``: nothing in it says the screen is larger.

A window's root that has nothing to say (a ``Group``/``View`` with no ref, label or state)
is replaced by the header. The status and navigation bars are printed **condensed**, their
nodes inline on the header's line, when that is shorter than their lines.
"""

from __future__ import annotations

from baremobile.snapshot.prune import WindowInfo
from baremobile.snapshot.render import inline_item, node_line
from baremobile.snapshot.roles import WRAPPER_ROLES
from baremobile.snapshot.tree import Node, Window

__all__ = [
    "CONDENSABLE",
    "DIALOG_MIN_WIDTH",
    "inside",
    "is_input_method",
    "orientation",
    "screen_text",
    "window_headers",
    "window_kind",
]

Rect = tuple[int, int, int, int]

#: Window kinds printed on one line when that is shorter.
CONDENSABLE = frozenset({"status bar", "navigation bar"})
#: Window kinds whose header names the package and the title.
_NAMED_KINDS = frozenset({"app", "dialog", "window"})
_SYSTEMUI = "com.android.systemui"
_APP_TYPES = frozenset({"TYPE_APPLICATION", "1"})
_IME_TYPES = frozenset({"TYPE_INPUT_METHOD", "2"})
_SYSTEM_TYPES = frozenset({"TYPE_SYSTEM", "3"})
_TITLES = (
    ("status bar", ("status bar", "statusbar")),
    ("navigation bar", ("navigation bar", "navigationbar", "taskbar")),
    ("notification shade", ("notification shade", "notificationshade")),
)
#: Bars are at most this part of the screen's height (or width, for a side navigation bar).
BAR_MAX = 0.15
#: Smaller application windows inside a larger one are dialogs from this part of the width.
DIALOG_MIN_WIDTH = 0.25
#: Keyboards whose package name does not say "inputmethod" or end in ".ime".
_IME_PACKAGES = frozenset(
    {
        "com.samsung.android.honeyboard",  # Samsung Keyboard
        "com.touchtype.swiftkey",  # Microsoft SwiftKey
        "com.touchtype.swiftkey.beta",
        "com.baidu.input",  # Baidu IME, and its OEM builds below
        "com.baidu.input_huawei",
        "com.baidu.input_mi",
        "com.baidu.input_oppo",
        "com.baidu.input_vivo",
        "com.baidu.input_yijia",
        "com.tencent.qqpinyin",  # QQ Pinyin
        "com.tencent.wetype",  # WeChat Keyboard
        "com.nuance.swype.dtc",  # Swype
        "com.syntellia.fleksy.keyboard",  # Fleksy
        "com.grammarly.android.keyboard",  # Grammarly
        "org.pocketworkstation.pckeyboard",  # Hacker's Keyboard
        "rkr.simplekeyboard.inputmethod",
        "com.menny.android.anysoftkeyboard",  # AnySoftKeyboard
        "org.futo.inputmethod.latin",
        "com.jb.emoji.gokeyboard",  # GO Keyboard
        "com.cootek.smartinputv5",  # TouchPal
        "com.emoji.keyboard.touchpal",
        "com.kika.keyboard",  # Kika
        "com.sec.android.inputmethod",  # older Samsung Keyboard
    }
)
#: Package prefixes of keyboard vendors (Gboard and AOSP contain "inputmethod"; Sogou is
#: ``com.sohu.inputmethod.sogou``, iFlytek ``com.iflytek.inputmethod``).
_IME_PREFIXES = ("com.baidu.input", "com.touchtype.", "com.nuance.swype")
def is_input_method(package: str) -> bool:
    """Whether ``package`` is a known keyboard (input method) app."""
    return (
        "inputmethod" in package
        or package.endswith(".ime")
        or ".ime." in package
        or package in _IME_PACKAGES
        or package.startswith(_IME_PREFIXES)
    )


_PACKAGE_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def orientation(width: int, height: int) -> str:
    """``portrait``, ``landscape`` or ``square`` for a screen of that size."""
    if width > height:
        return "landscape"
    return "portrait" if height > width else "square"


def screen_text(width: int, height: int) -> str:
    """What the first line of a snapshot says (``1080x2400 portrait``); ``""`` if unknown."""
    if width <= 0 or height <= 0:
        return ""
    return f"{width}x{height} {orientation(width, height)}"


def _rect(win: WindowInfo, size: tuple[int, int]) -> Rect:
    """Where the window is: its ``<window bounds>``, else its root's rect; a zero-area root
    bounds nothing, so its window is taken to be the whole screen."""
    if win.frame is not None:
        return win.frame
    if win.rect is not None and not win.unbounded:
        return win.rect
    return (0, 0, size[0], size[1])


def _system_kind(win: WindowInfo, size: tuple[int, int]) -> str:
    title = win.title.casefold()
    for kind, words in _TITLES:
        if any(w in title for w in words):
            return kind
    w, h = size
    if w <= 0 or h <= 0:
        return "window"
    x1, y1, x2, y2 = _rect(win, size)
    width, height = x2 - x1, y2 - y1
    if width >= 0.9 * w and height <= BAR_MAX * h:
        if y1 <= 0 and y2 < h:
            return "status bar"
        if y2 >= h and y1 > 0:
            return "navigation bar"
    if w > h and height >= 0.9 * h and width <= BAR_MAX * w and (x1 <= 0 or x2 >= w):
        return "navigation bar"  # landscape: the buttons sit at a side
    if y1 <= 0 and height >= 0.5 * h:
        return "notification shade"
    return "window"


def inside(a: Rect, b: Rect) -> bool:
    """Whether rect ``a`` lies wholly inside another rect ``b``."""
    return a != b and a[0] >= b[0] and a[1] >= b[1] and a[2] <= b[2] and a[3] <= b[3]


def _area(r: Rect) -> int:
    return max(0, r[2] - r[0]) * max(0, r[3] - r[1])


#: How many of a display's largest app windows are looked at as a window's container. A real
#: screen has a handful of windows; a hostile dump with thousands would otherwise make naming
#: them quadratic.
MAX_CONTAINERS = 32


def _is_app_like(win: WindowInfo) -> bool:
    """Whether ``win`` can hold a dialog: an application window (not the system UI or the
    keyboard)."""
    if win.kind:
        return win.kind in _APP_TYPES
    return win.package != _SYSTEMUI and not is_input_method(win.package)


def containers(windows: list[WindowInfo], size: tuple[int, int]) -> list[tuple[int, Rect, int]]:
    """The largest :data:`MAX_CONTAINERS` application windows of one display, as
    ``(area, rect, id)``, largest first: what :func:`window_kind` compares a window with."""
    found = []
    for win in windows:
        if _is_app_like(win):
            rect = _rect(win, size)
            found.append((_area(rect), rect, id(win)))
    found.sort(key=lambda c: c[0], reverse=True)
    return found[:MAX_CONTAINERS]


def window_kind(
    win: WindowInfo,
    windows: list[WindowInfo],
    size: tuple[int, int],
    among: list[tuple[int, Rect, int]] | None = None,
) -> str:
    """What ``win`` is (one of :data:`~baremobile.snapshot.tree.WINDOW_KINDS`), among the
    ``windows`` of its display, whose screen is ``size``. ``among`` is
    :func:`containers` of ``windows``, when the caller names several windows of a display."""
    kind = win.kind
    if kind in _IME_TYPES or (not kind and is_input_method(win.package)):
        return "keyboard"
    if kind in _SYSTEM_TYPES or (not kind and win.package == _SYSTEMUI):
        return _system_kind(win, size)
    if kind and kind not in _APP_TYPES:
        return "window"  # overlays, dividers, magnification
    mine = _rect(win, size)
    area = _area(mine)
    for theirs_area, theirs, ident in among if among is not None else containers(windows, size):
        if theirs_area <= area:
            break  # largest first: no bigger window is left
        if ident != id(win) and inside(mine, theirs):
            wide = size[0] <= 0 or mine[2] - mine[0] >= DIALOG_MIN_WIDTH * size[0]
            return "dialog" if wide else "window"
    return "app"


def _unwrap(tops: list[Node]) -> list[Node]:
    """A root with nothing to say is replaced by its children (the header stands for it)."""
    if len(tops) == 1:
        top = tops[0]
        if (
            top.ref is None
            and not top.text
            and not top.desc
            and not top.states
            and not top.id_name
            and top.role in WRAPPER_ROLES
            and type(top) is Node
        ):
            return top.children
    return tops


def _condense(win: Window) -> None:
    """Print ``win`` on one line when that is shorter than its lines."""
    items = [it for n in win.children for d in n.walk() if (it := inline_item(d))]
    if not items:
        return
    inline = len(", ".join(items)) + 2
    lines = 0
    stack = [(n, 1) for n in win.children]
    while stack:
        node, depth = stack.pop()
        lines += 1 + 2 * depth + len(node_line(node))
        stack.extend((k, depth + 1) for k in node.children)
    if inline < lines:
        win.condensed = True


def window_headers(
    windows: list[WindowInfo],
    window_nodes: list[Node],
    screens: dict[int, tuple[int, int]],
    default: int,
    package: str,
) -> list[Node]:
    """The top-level lines of the snapshot: one :class:`Window` per window worth naming.

    ``windows`` have their kept top-level nodes in ``tops``; ``window_nodes`` are the
    ``- Window`` nodes the pruner built for ``--windows`` dumps (their states say which
    window is focused); ``package`` is the foreground app.
    """
    focused: set[int] = set()
    for wnode in window_nodes:
        if "focused" in wnode.states:
            focused.update(id(k) for k in wnode.children)
    main = None  # the foreground app's largest window: named even when it shows nothing
    by_display: dict[int, list[WindowInfo]] = {}
    for win in windows:
        if win.package == package and win.display == default and (
            main is None or win.area > main.area
        ):
            main = win
        by_display.setdefault(win.display, []).append(win)
    among = {
        d: containers(wins, screens.get(d, (0, 0))) for d, wins in by_display.items()
    }
    out: list[Node] = []
    for win in windows:
        tops = win.tops
        if not tops and (win is not main or not win.package):
            continue
        size = screens.get(win.display, (0, 0))
        kind = window_kind(win, by_display[win.display], size, among[win.display])
        states: tuple[str, ...] = ()
        if focused and tops and id(tops[0]) in focused:
            states = ("focused",)
        if win.display != default:
            states += (f"display={win.display}",)
        pkg = title = ""
        if kind in _NAMED_KINDS:
            pkg = win.package
            if pkg and not _PACKAGE_OK.issuperset(pkg):
                pkg = ""
            title = win.title  # other kinds: the kind says it
        header = Window(kind, pkg, title, states, _unwrap(tops))
        header.display = win.display
        if kind in CONDENSABLE:
            _condense(header)
        out.append(header)
    return out
