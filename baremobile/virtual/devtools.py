"""The phone's DevTools sockets: what answers when a host opens ``localabstract:<name>``.

On Android, Chrome listens on ``@chrome_devtools_remote`` and every app process with a
debuggable WebView on ``@webview_devtools_remote_<pid>``; adbd connects a
``localabstract:`` stream to them (``socket_spec.cpp``). Each speaks Chromium's DevTools
HTTP server (``content/browser/devtools/devtools_http_handler.cc``): ``/json/version``,
``/json/list``, then a WebSocket per page target.

Here one headless Chromium serves every socket, so each stream gets a small front that
speaks that HTTP itself and lists only the socket's own pages (an app's WebViews, or
Chrome's tabs), with a WebView's ``description`` as ``AwDevToolsManagerDelegate`` writes it;
a WebSocket upgrade for one of its pages is then tunnelled, bytes as they are, to
Chromium's own DevTools port, which runs the handshake (and its checks of ``Host`` and
``Origin``) and the protocol. Requests with a ``Host`` that is neither an IP address nor
``localhost`` get the 500 Chromium answers them with. The browser endpoint
(``/devtools/browser/…``) is not offered: through one shared Chromium it would reach other
apps' pages.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import logging
import queue
import socket
import threading
from typing import Any

from baremobile.virtual.streams import END, Stream

__all__ = ["DevToolsFront", "start_devtools", "MAX_REQUEST_HEAD"]

log = logging.getLogger("baremobile.virtual.devtools")

#: Largest request head accepted before the stream is closed (Chromium's server caps it too).
MAX_REQUEST_HEAD = 64 * 1024
_CLOSE = object()


def _host_ok(host: str | None) -> bool:
    """``RequestIsSafeToServe``: no Host, an IP address (with a port), or ``localhost``."""
    if host is None or host == "":
        return True
    name = host.strip()
    if name.startswith("["):
        name = name[1:].partition("]")[0]
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    if name.lower() == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _response(status: int, reason: str, body: bytes, ctype: str) -> bytes:
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\n"
            f"Content-Type: {ctype}\r\n\r\n")
    return head.encode("ascii") + body


class DevToolsFront:
    """One ``localabstract:`` stream to a DevTools socket of the phone."""

    def __init__(self, model: Any, stream: Stream, socket_info: Any) -> None:
        self.model = model
        self.stream = stream
        self.sock = socket_info  # .name, .package, .pid
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.buf = bytearray()
        self.upstream: socket.socket | None = None
        self.done = threading.Event()

    # -- from the stream (the connection's reader thread: never block) -------------------
    def on_data(self, data: bytes) -> None:
        self.inbox.put(bytes(data))

    def on_close(self) -> None:
        self.done.set()
        self.inbox.put(_CLOSE)
        up = self.upstream
        if up is not None:
            with contextlib.suppress(OSError):
                up.shutdown(socket.SHUT_RDWR)

    # -- the worker ------------------------------------------------------------------------
    def run(self) -> None:
        try:
            while not self.done.is_set():
                item = self.inbox.get()
                if item is _CLOSE:
                    break
                if self.upstream is not None:
                    self.upstream.sendall(item)
                    continue
                self.buf += item
                while self.upstream is None and not self.done.is_set():
                    end = self.buf.find(b"\r\n\r\n")
                    if end < 0:
                        if len(self.buf) > MAX_REQUEST_HEAD:
                            self.stream.put(END, wait=False)
                            return
                        break
                    head = bytes(self.buf[:end])
                    del self.buf[: end + 4]
                    if not self._request(head):
                        return
        except OSError as exc:
            log.info("DevTools stream %s ended: %s", self.sock.name, exc)
            self.stream.put(END, wait=False)
        finally:
            if self.upstream is not None:
                with contextlib.suppress(OSError):
                    self.upstream.close()

    def _request(self, head: bytes) -> bool:
        """Answer one request; False when the stream is finished."""
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            self.stream.put(_response(400, "Bad Request", b"", "text/plain"), wait=False)
            self.stream.put(END, wait=False)
            return False
        method, target, _version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        while len(self.buf) < length:  # a body (none is expected): read and ignore it
            item = self.inbox.get()
            if item is _CLOSE:
                return False
            self.buf += item
        del self.buf[:length]
        path = target.partition("?")[0]
        if "websocket" in headers.get("upgrade", "").lower():
            return self._upgrade(head, path, headers)
        if not _host_ok(headers.get("host")):
            body = b"Host header is specified and is not an IP address or localhost."
            self.stream.put(_response(500, "Internal Server Error", body, "text/html"),
                            wait=False)
        else:
            self.stream.put(self._answer(method, path, headers.get("host")), wait=False)
        if headers.get("connection", "").lower() == "close":
            self.stream.put(END, wait=False)
            return False
        return True

    def _answer(self, method: str, path: str, host: str | None) -> bytes:
        json_type = "application/json; charset=UTF-8"
        if path in ("/json", "/json/list", "/json/list/"):
            body = json.dumps(self._list(host or "localhost"), indent=3).encode()
            return _response(200, "OK", body, json_type)
        if path in ("/json/version", "/json/version/"):
            version = json.loads(self._upstream_get("/json/version"))
            version.pop("webSocketDebuggerUrl", None)
            version["Android-Package"] = self.sock.package
            return _response(200, "OK", json.dumps(version, indent=3).encode(), json_type)
        if path == "/json/protocol":
            return _response(200, "OK", self._upstream_get(path), json_type)
        if path.startswith("/json/"):
            cmd = path[len("/json/"):].partition("/")[0]
            return _response(404, "Not Found", f"Unknown command: {cmd}".encode(), "text/html")
        if path in ("/", ""):
            html = (b"<html><head><title>WebView remote debugging</title></head><body>Please "
                    b"use <a href='chrome://inspect'>chrome://inspect</a></body></html>")
            return _response(200, "OK", html, "text/html")
        return _response(404, "Not Found", b"", "text/html")

    def _list(self, host: str) -> list[dict[str, Any]]:
        mine = self.model.screens.web_targets(self.sock.package)
        upstream = {t.get("id"): t for t in json.loads(self._upstream_get("/json/list"))}
        port = self.model.browser.port
        out = []
        for target_id, description in mine:
            t = upstream.get(target_id)
            if t is None:
                continue
            t = dict(t)
            t["description"] = description
            for key in ("webSocketDebuggerUrl", "devtoolsFrontendUrl"):
                if key in t:
                    t[key] = t[key].replace(f"127.0.0.1:{port}", host)
            out.append(t)
        return out

    def _upstream_get(self, path: str) -> bytes:
        port = self.model.browser.port
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", path)
            return conn.getresponse().read()
        finally:
            conn.close()

    def _upgrade(self, head: bytes, path: str, headers: dict[str, str]) -> bool:
        """A WebSocket for one of this socket's pages: tunnel to Chromium's port."""
        target_id = path.rsplit("/", 1)[-1]
        mine = {t for t, _ in self.model.screens.web_targets(self.sock.package)}
        if not path.startswith("/devtools/page/") or target_id not in mine:
            body = f"No such target id: {target_id}".encode()
            self.stream.put(_response(500, "Internal Server Error", body, "text/html"),
                            wait=False)
            self.stream.put(END, wait=False)
            return False
        up = socket.create_connection(("127.0.0.1", self.model.browser.port), timeout=10)
        up.settimeout(None)
        up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.upstream = up
        up.sendall(head + b"\r\n\r\n" + bytes(self.buf))
        self.buf.clear()
        t = threading.Thread(target=self._pump, name=f"devtools-{self.sock.name}", daemon=True)
        self.stream.threads.append(t)
        t.start()
        return True

    def _pump(self) -> None:
        """Chromium → host, until either side closes."""
        up = self.upstream
        assert up is not None
        try:
            while not self.done.is_set():
                data = up.recv(256 * 1024)
                if not data:
                    break
                self.stream.put(data)
        except OSError:
            pass
        self.stream.put(END, wait=False)
        self.inbox.put(_CLOSE)


def start_devtools(host: Any, stream: Stream, service: str) -> None:
    """The starter for ``localabstract:<DevTools socket>`` (see :mod:`.services`)."""
    name = service.partition(":")[2]
    info = host.model.devtools_socket(name)
    front = DevToolsFront(host.model, stream, info)
    stream.on_data = front.on_data
    stream.on_close = front.on_close
    t = threading.Thread(target=front.run, name=f"devtools-{stream.local_id}", daemon=True)
    stream.threads.append(t)
    t.start()
