"""The API reference is built from the docstrings (docs/api.py, pdoc) and holds what a user
imports: every public class, function and method documented, each module a page."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _api():
    spec = importlib.util.spec_from_file_location("docs_api", ROOT / "docs" / "api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _public_callables(module):
    """(name, object) for the module's ``__all__`` classes and functions and, for each class
    of baremobile's, its public methods and properties (inherited ones too)."""
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj):
            yield f"{obj.__module__}.{obj.__qualname__}", obj
        if not (inspect.isclass(obj) and obj.__module__.startswith("baremobile")):
            continue
        for attr in dir(obj):
            if attr.startswith("_"):
                continue
            owner = next(k for k in obj.__mro__ if attr in vars(k))
            if not owner.__module__.startswith("baremobile"):
                continue  # a base class of another library's (LangChain's BaseTool …)
            value = vars(owner)[attr]
            func = value.fget if isinstance(value, property) else getattr(value, "__func__",
                                                                         value)
            if inspect.isfunction(func):
                yield f"{owner.__module__}.{owner.__qualname__}.{attr}", func


def test_every_public_name_has_a_docstring() -> None:
    api = _api()
    missing = set()
    for name in api.MODULES:
        module = importlib.import_module(name)
        if not module.__doc__:
            missing.add(name)
        missing.update(n for n, obj in _public_callables(module) if not obj.__doc__)
    assert not missing, f"public names without a docstring: {sorted(missing)}"


def test_the_reference_builds_with_a_page_per_module(tmp_path: Path) -> None:
    pytest.importorskip("pdoc", reason="pdoc (the [docs] and [test] extras) is not installed")
    api = _api()
    index = api.build(tmp_path)
    assert index.is_file()
    for name in api.MODULES:
        page = tmp_path / (name.replace(".", "/") + ".html")
        assert page.is_file(), f"no page for {name}"
    # Page's page links each verb it inherits to its family's page, which documents it
    from baremobile.page import Page

    page = (tmp_path / "baremobile" / "page.html").read_text()
    assert "page/actions.html#ActionVerbs.tap" in page
    verbs = (tmp_path / "baremobile" / "page" / "actions.html").read_text()
    first = " ".join(inspect.getdoc(Page.tap).split()[:3])
    assert 'id="ActionVerbs.tap"' in verbs and first in verbs, "Page.tap is not documented"
    assert (tmp_path / "baremobile" / "snapshot.html").is_file()  # pulled in by baremobile
