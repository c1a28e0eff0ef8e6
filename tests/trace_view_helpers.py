"""Opening a trace's HTML view as a user opens it: from ``file://`` in headless Chromium
(Debian's, driven over the DevTools pipe as the virtual phone drives it), with every console
message, exception and network request of the page kept."""

from __future__ import annotations

import base64
import threading
import time
from pathlib import Path
from typing import Any

from baremobile.virtual.chromium import Chromium


class View:
    """One page of ``browser`` showing ``html_file``."""

    def __init__(self, browser: Chromium, html_file: Path, *, width: int = 1400,
                 height: int = 900, timeout: float = 60.0) -> None:
        self.browser = browser
        self.events: list[dict[str, Any]] = []
        loaded = threading.Event()

        def listen(msg: dict[str, Any]) -> None:
            self.events.append(msg)
            if msg.get("method") == "Page.loadEventFired":
                loaded.set()

        self._listen = listen
        browser.subscribe(listen)
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.target = target
        self.sid = browser.call("Target.attachToTarget", {"targetId": target,
                                                          "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(f"{domain}.enable", session=self.sid)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1,
                      "mobile": False}, session=self.sid)
        self.events.clear()
        began = time.monotonic()
        browser.call("Page.navigate", {"url": html_file.resolve().as_uri()}, session=self.sid)
        assert loaded.wait(timeout), "the page did not load"
        deadline = time.monotonic() + timeout
        while self.js("document.body && document.body.dataset.ready") != "1":
            assert time.monotonic() < deadline, "the page's script never finished"
            time.sleep(0.02)
        #: seconds from navigating to the page's script having built it (this process)
        self.seconds = time.monotonic() - began
        #: milliseconds the page reports from its start to the end of its script
        self.ready_ms = int(self.js("document.body.dataset.readyMs"))

    def js(self, expression: str) -> Any:
        r = self.browser.call("Runtime.evaluate", {"expression": expression,
                                                   "returnByValue": True}, session=self.sid)
        assert "exceptionDetails" not in r, r
        return r["result"].get("value")

    def screenshot(self, path: Path | None = None) -> bytes:
        png = base64.b64decode(self.browser.call("Page.captureScreenshot", {"format": "png"},
                                                 session=self.sid)["data"])
        if path is not None:
            path.write_bytes(png)
        return png

    def mine(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("sessionId") == self.sid]

    def errors(self) -> list[dict[str, Any]]:
        """Console errors and warnings, exceptions, log entries (a CSP refusal is one)."""
        return [e for e in self.mine() if e["method"] == "Runtime.exceptionThrown"
                or (e["method"] == "Runtime.consoleAPICalled"
                    and e["params"]["type"] in ("error", "warning", "assert"))
                or (e["method"] == "Log.entryAdded"
                    and e["params"]["entry"]["level"] in ("error", "warning"))]

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.mine()
                if e["method"] == "Network.requestWillBeSent"]

    def close(self) -> None:
        self.browser.unsubscribe(self._listen)
        self.browser.call("Target.closeTarget", {"targetId": self.target})
