"""The test suite, in tiers: ``unit/`` (no phone, no process), ``phone/`` (the Page and the
virtual phone over the real ADB protocol), ``doors/`` (tools, MCP, daemon, CLI, frameworks,
other systems' clients, the pytest plugin) and ``release/`` (packaging, typing, the
documentation, the corpus-wide checks). ``python -m pytest -m fast`` runs the fast tier:
all of ``unit/`` and the tests marked ``fast`` elsewhere (docs/testing.md)."""

from __future__ import annotations


def examples(n: int) -> int:
    """A property test's example count: ``n`` under hypothesis's default profile (100 a
    test), scaled by the profile in force — ``quick`` (10, what ``-m fast`` loads) runs a
    tenth, at least one. A test's own ``@settings(max_examples=...)`` wins over any profile,
    so the tests that name a count and run in the fast tier name it through this."""
    from hypothesis import settings

    return max(1, n * settings.default.max_examples // 100)
