"""The web layers without a browser: discovery parsing (against the rows Chromium's own
tests use and the virtual phone's table), and what a hostile or broken DevTools socket can
send — every failure is a typed error, never a stray exception (hypothesis)."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.errors import BaremobileError, CommandTimeout, WebError
from baremobile.web.cdp import Cdp
from baremobile.web.discovery import find_sockets, parse_proc_net_unix, parse_ps
from baremobile.web.endpoints import get_json
from baremobile.web.tree import Geometry
from baremobile.web.ws import WebSocket

# Chromium's android_device_info_query test data (kSampleOpenedUnixSockets), abridged
UNIX = """Num       RefCount Protocol Flags    Type St Inode Path
00000000: 00000004 00000000 00000000 0002 01  3328 /dev/socket/wpa_wlan0
00000000: 00000002 00000000 00010000 0001 01  5394 /dev/socket/vold
00000000: 00000002 00000000 00010000 0001 01 11810 @webview_devtools_remote_2425
00000000: 00000002 00000000 00010000 0001 01 20893 @chrome_devtools_remote
00000000: 00000002 00000000 00010000 0001 01 20894 @chrome_devtools_remote_1002
00000000: 00000002 00000000 00010000 0001 01 20895 @noprocess_devtools_remote
00000000: 00000003 00000000 00000000 0001 03 20896 @chrome_devtools_remote
"""
PS = """USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME
root             1     0   10918552  11520 0                   0 S init
u0_a12        1002   700   14929396 112640 0                   0 S com.chrome.beta
u0_a98        2425   700   14929396 112640 0                   0 S com.example.app:remote
u0_a50        3000   700   14929396 112640 0                   0 S com.android.chrome
"""


@pytest.mark.fast
def test_discovery_reads_sockets_and_their_processes():
    assert parse_proc_net_unix(UNIX) == [
        "webview_devtools_remote_2425", "chrome_devtools_remote",
        "chrome_devtools_remote_1002", "noprocess_devtools_remote"]
    assert parse_ps(PS)[2425] == "com.example.app:remote"
    found = {s.name: (s.pid, s.package, s.kind) for s in find_sockets(UNIX, PS)}
    assert found == {
        "webview_devtools_remote_2425": (2425, "com.example.app", "webview"),
        "chrome_devtools_remote": (1002, "com.chrome.beta", "chrome"),
        "chrome_devtools_remote_1002": (1002, "com.chrome.beta", "chrome"),
        "noprocess_devtools_remote": (None, "", "other"),
    }


def test_the_virtual_phones_table_reads_back(tmp_path):
    """The virtual phone prints /proc/net/unix as the kernel does; discovery parses it."""
    from baremobile.virtual.chromium import Chromium
    from baremobile.virtual.model import PhoneModel

    model = PhoneModel(browser=Chromium("/nonexistent/chromium"))  # never started
    pid = model.mark_running("org.baremobile.weather")
    model.mark_running("com.android.chrome")
    text = model.fs.read("/proc/net/unix").decode()
    ps_out, _, _ = model.spawn("ps -A").run()
    found = {s.name: s.package for s in find_sockets(text, ps_out.decode())}
    assert found == {"chrome_devtools_remote": "com.android.chrome",
                     f"webview_devtools_remote_{pid}": "org.baremobile.weather"}


@given(st.text(max_size=400), st.text(max_size=400))
def test_discovery_never_raises_on_garbage(unix, ps):
    for s in find_sockets(unix, ps):
        assert "_devtools_remote" in s.name


@given(st.floats(-1e4, 1e4), st.floats(-1e4, 1e4), st.floats(1, 500), st.floats(1, 500),
       st.floats(0.2, 8), st.floats(0, 5000))
def test_geometry_maps_the_viewport_onto_the_webview(x, y, w, h, scale, page_y):
    vv = {"pageX": 0.0, "pageY": page_y, "clientWidth": 411 / scale,
          "clientHeight": 750 / scale}
    geo = Geometry.of({"cssVisualViewport": vv}, (0, 304, 1080, 2274))
    corners = geo.to_device((0, page_y, 411 / scale, page_y + 750 / scale))
    assert abs(corners[0]) <= 1 and abs(corners[1] - 304) <= 1
    assert abs(corners[2] - 1080) <= 1 and abs(corners[3] - 2274) <= 1
    r = geo.to_device((x, y, x + w, y + h))
    assert r[0] <= r[2] and r[1] <= r[3]


class FakeStream:
    """A byte stream that answers with canned chunks (then EOF)."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.sent = bytearray()
        self.closed = False

    def send(self, data: bytes, timeout: float = 20.0) -> None:
        self.sent += data

    def recv(self, timeout: float) -> bytes:
        if self.chunks:
            return self.chunks.pop(0)
        return b""

    def close(self) -> None:
        self.closed = True


@pytest.mark.fast
def test_get_json_sends_host_localhost_and_reads_the_body():
    body = json.dumps([{"id": "A", "type": "page"}]).encode()
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: application/json\r\n\r\n"
    s = FakeStream([head % len(body), body[:5], body[5:]])
    assert get_json(s, "/json/list") == [{"id": "A", "type": "page"}]
    assert s.sent.startswith(b"GET /json/list HTTP/1.1\r\n")
    assert b"\r\nhost: localhost\r\n" in s.sent.lower()
    assert b"origin" not in s.sent.lower()


@pytest.mark.fast
def test_get_json_refusals_are_web_errors():
    body = b"Host header is specified and is not an IP address or localhost."
    s = FakeStream([b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: %d\r\n\r\n"
                    % len(body) + body])
    with pytest.raises(WebError, match="answered 500: Host header"):
        get_json(s, "/json/list")


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=200), max_size=4))
def test_any_http_answer_is_json_or_a_typed_error(chunks):
    with contextlib.suppress(BaremobileError):
        get_json(FakeStream(chunks), "/json/list")


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=200), max_size=4))
def test_any_websocket_answer_is_a_socket_or_a_typed_error(chunks):
    with contextlib.suppress(BaremobileError):
        WebSocket(FakeStream(chunks), "/devtools/page/X", timeout=1)


def _handshake_reply(request: bytes) -> bytes:
    import base64
    import hashlib

    key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
               if line.lower().startswith(b"sec-websocket-key"))
    accept = base64.b64encode(hashlib.sha1(
        key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    return (b"HTTP/1.1 101 WebSocket Protocol Handshake\r\nUpgrade: WebSocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")


class Handshaking(FakeStream):
    """Answers the client's handshake, then serves ``frames``."""

    def __init__(self, frames: list[bytes]) -> None:
        super().__init__([])
        self.frames = frames

    def recv(self, timeout: float) -> bytes:
        if not self.chunks and self.sent and not getattr(self, "shaken", False):
            self.shaken = True
            self.chunks = [_handshake_reply(bytes(self.sent)), *self.frames]
        return super().recv(timeout)


def _frame(payload: bytes, opcode: int = 1, fin: bool = True) -> bytes:
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + n.to_bytes(2, "big")
    else:
        head += bytes([127]) + n.to_bytes(8, "big")
    return head + payload


@pytest.mark.fast
def test_cdp_over_a_websocket_assembles_fragments_keeps_events_and_types_errors():
    event = json.dumps({"method": "Page.loadEventFired", "params": {}}).encode()
    big = json.dumps({"id": 1, "result": {"data": "x" * 200_000}}).encode()
    error = json.dumps({"id": 2, "error": {"code": -32000, "message": "No node"}}).encode()
    frames = [_frame(event), _frame(big[:70_000], fin=False),
              _frame(big[70_000:], opcode=0), _frame(error), _frame(b"not json")]
    stream = Handshaking(frames)
    ws = WebSocket(stream, "/devtools/page/X")
    assert b"\r\norigin:" not in stream.sent.lower()  # Chromium refuses foreign origins
    cdp = Cdp(ws)
    assert cdp.call("DOM.getDocument")["data"] == "x" * 200_000
    assert [e["method"] for e in cdp.events] == ["Page.loadEventFired"]
    with pytest.raises(WebError, match="No node"):
        cdp.call("DOM.describeNode")
    with pytest.raises(WebError, match="not JSON"):
        cdp.call("Page.enable")
    with pytest.raises(BaremobileError):  # the stream ended
        cdp.call("Page.enable", timeout=1)


def test_a_silent_page_times_out():
    class Silent(Handshaking):
        def recv(self, timeout: float) -> bytes:
            if getattr(self, "shaken", False) and not self.chunks:
                raise CommandTimeout("nothing came")
            return super().recv(timeout)

    cdp = Cdp(WebSocket(Silent([]), "/devtools/page/X"))
    with pytest.raises(CommandTimeout):
        cdp.call("Page.enable", timeout=0.2)


@given(st.text(max_size=300), st.lists(st.text(max_size=80), max_size=3),
       st.integers(1, 400))
def test_notes_stay_within_max_chars(text, notes, limit):
    from baremobile.snapshot import RefMap, Snapshot
    from baremobile.snapshot.tree import Node

    text = text[:limit]
    snap = Snapshot(text, RefMap({}), Node("")).add_notes([f"web: {n}" for n in notes], limit)
    assert len(snap.text) <= limit and snap.text.startswith(text)
    unlimited = Snapshot(text, RefMap({}), Node("")).add_notes(["web: x", "web: x"])
    assert unlimited.text.endswith("# web: x") and unlimited.notes == ("web: x",)
    assert unlimited.text.count("# web: x") == 1


@pytest.mark.fast
def test_notes_are_no_part_of_the_screen_and_survive_a_diff():
    from baremobile.snapshot import from_xml

    xml = ('<hierarchy rotation="0"><node class="android.widget.Button" text="OK" '
           'clickable="true" enabled="true" package="p" bounds="[0,0][100,100]"/></hierarchy>')
    snap = from_xml(xml).add_notes(["web: the page navigated while it was read"])
    assert snap.text.endswith("\n# web: the page navigated while it was read")
    assert "# web" not in snap.full_text
    again = from_xml(xml).add_notes(snap.notes)
    diff = again.diff_from(snap.full_text)
    assert diff.notes == snap.notes and diff.text.endswith(
        "# web: the page navigated while it was read")
    assert "OK" not in diff.text  # nothing changed on screen


def test_an_untitled_shallow_webview_is_found_though_the_pruner_drops_it():
    """As in corpus 085_brella: an outer WebView holding an inner, focusable, label-less one
    — nothing the snapshot prints, yet the page must be merged into the inner one."""
    from baremobile.snapshot import from_xml
    from baremobile.web.reader import webviews_on_screen

    def node(cls: str, bounds: str, inner: str = "", **extra: str) -> str:
        attrs = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in extra.items())
        return (f'<node index="0" text="" resource-id="" class="{cls}" package="com.brella" '
                f'content-desc="" clickable="false" enabled="true" bounds="{bounds}"'
                f'{attrs}>{inner}</node>')

    web = "android.webkit.WebView"
    dump = ('<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
            + node("android.widget.FrameLayout", "[0,0][1080,2400]",
                   node(web, "[0,66][1080,2154]",
                        node(web, "[0,66][1080,2156]", focusable="true")))
            + "</hierarchy>").encode()
    snap = from_xml(dump)
    assert "WebView" not in snap.text  # the pruner says nothing of them
    views = webviews_on_screen(dump, snap)
    assert [(v.key, v.bounds) for v in views] == [
        (("com.brella", web, "[0,66][1080,2156]", 0), (0, 66, 1080, 2156))]
    assert webviews_on_screen(dump.replace(b"WebView", b"ScrollView"), snap) == []


def test_the_web_layers_speak_to_chromiums_own_port_over_tcp(chromium_path):
    """HTTP and the WebSocket over a plain TCP stream (what ``adb forward`` gives), against
    the real Chromium the virtual phone starts."""
    from baremobile.virtual.chromium import Chromium
    from baremobile.web.stream import TcpStream

    engine = Chromium(chromium_path)
    try:
        engine.start()
        version = get_json(TcpStream("127.0.0.1", engine.port), "/json/version")
        assert "Chrome" in version["Browser"]
        target = engine.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        stream = TcpStream("127.0.0.1", engine.port)
        cdp = Cdp(WebSocket(stream, f"/devtools/page/{target}"))
        answer = cdp.call("Runtime.evaluate", {"expression": "6 * 7", "returnByValue": True})
        assert answer["result"]["value"] == 42
        cdp.close()
        assert stream.closed
    finally:
        engine.stop()

