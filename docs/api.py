"""Build baremobile's API reference from its docstrings: ``python docs/api.py [OUT]``.

pdoc (the ``[docs]`` extra) reads the public modules below — what ``__all__`` names in each,
with signatures and type hints — and writes one HTML page per module, with search, into
``OUT`` (default ``build/api``). ``tests/release/test_api_reference.py`` builds it on every run, so
a docstring that stops rendering fails the suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: the modules a user imports from, in the order the reference lists them
MODULES = (
    "baremobile",                  # connect, Page, AsyncPage, the errors; and, as its
                                   # submodule, baremobile.snapshot (Snapshot, from_xml …)
    "baremobile.page",             # the Page; its verbs, by family (Page inherits them):
    "baremobile.page.base",        #   snapshot, close, cancel, refs
    "baremobile.page.actions",     #   tap, type, press, scroll, launch …
    "baremobile.page.web",         #   web content: eval_js, the page's own text input
    "baremobile.page.editing",     #   fields: clear, select, insert, replace text
    "baremobile.page.waits",       #   wait_for, wait_gone, wait_for_idle, scroll_until
    "baremobile.page.gestures",    #   long_press, swipe, drag, pinch, gestures
    "baremobile.page.apps",        #   install, uninstall, permissions, app data
    "baremobile.page.files",       #   push, pull, ls
    "baremobile.page.system",      #   device info, rotation, clipboard, notifications
    "baremobile.page.reading",     #   logs, screenshots, UI XML
    "baremobile.page.prefs",       #   settings and shared preferences
    "baremobile.tools",            # the tool table: call, schemas, the menu
    "baremobile.trace",            # recording, viewing, replaying traces
    "baremobile.virtual",          # VirtualPhone, scenarios
    "baremobile.daemon.client",    # the daemon's Python client
    "baremobile.integrations.langchain",
    "baremobile.integrations.pydantic_ai",
    "baremobile.integrations.openai_agents",
    "baremobile.pytest_plugin",    # the page and virtual_phone fixtures
    "baremobile.errors",           # every error, its code and hint
)


def build(out: Path) -> Path:
    """Write the reference into ``out``; return its index page."""
    import pdoc
    import pdoc.render

    pdoc.render.configure(docformat="restructuredtext", search=True,
                          footer_text="baremobile — built from its docstrings")
    pdoc.pdoc(*MODULES, output_directory=out)
    return out / "index.html"


if __name__ == "__main__":
    index = build(Path(sys.argv[1] if len(sys.argv) > 1 else "build/api"))
    print(f"API reference: {index}")
