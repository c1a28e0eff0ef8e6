"""The pytest plugin, tested as users meet it: pytester runs test files that use its fixtures
(the plugin is loaded from its pytest11 entry point, as in a user's project)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

#: plugins the inner runs do not need: pytester re-imports what a run imports, every run
QUIET = ("-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "no:hypothesispytest",
         "-p", "no:anyio")

DEMO = Path(__file__).resolve().parents[2] / "baremobile" / "virtual" / "scenarios" / "demo"


@pytest.fixture(autouse=True)
def _loaded_from_its_entry_point(monkeypatch):
    """The plugin must come from the installed entry point, not from this suite."""
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.delenv("BAREMOBILE_DEVICE", raising=False)


def test_a_passing_test_gets_a_connected_page_closed_after(pytester):
    pytester.makepyfile(
        """
        import pytest
        from baremobile.errors import PageClosed

        PAGES = []

        def test_settings(page, virtual_phone, device_spec):
            assert device_spec == "virtual"
            assert page.serial == virtual_phone.address
            assert '"Settings"' in page.snapshot().text
            page.tap({"text": "Settings"})
            assert "Network & internet" in page.snapshot().text
            assert len(virtual_phone.events.list("tap")) == 1
            PAGES.append(page)

        def test_closed_after():
            with pytest.raises(PageClosed):
                PAGES[0].snapshot()
        """
    )
    result = pytester.runpytest(*QUIET, "-p", "no:xdist")
    result.assert_outcomes(passed=2)
    assert not (pytester.path / "test-results").exists()  # nothing failed


def test_a_failing_test_reports_its_snapshot_and_a_screenshot(pytester):
    pytester.makepyfile(
        """
        def test_wrong_screen(page):
            page.snapshot()
            page.tap({"text": "Settings"})
            page.snapshot()
            assert "Wi-Fi hotspot" in page.last_snapshot.text
        """
    )
    result = pytester.runpytest(*QUIET, "-p", "no:xdist")
    result.assert_outcomes(failed=1)
    name = "test_a_failing_test_reports_its_snapshot_and_a_screenshot.py-test_wrong_screen"
    folder = pytester.path / "test-results" / name
    shot, snap = folder / "screenshot.png", folder / "snapshot.txt"
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert '"Network & internet"' in snap.read_text()  # the last snapshot: Settings
    result.stdout.fnmatch_lines([
        "*- baremobile -*",
        f"screenshot: {shot}",
        f"snapshot: {snap}",
        "last snapshot of 127.0.0.1:*",
        '*Text "Network & internet"*',
    ])


def test_results_folder_is_configurable_and_a_test_without_snapshot_gets_one(pytester):
    pytester.makepyfile("def test_fails(page):\n    assert False\n")
    result = pytester.runpytest(*QUIET, "-p", "no:xdist", "--baremobile-results", "out")
    result.assert_outcomes(failed=1)
    (folder,) = (pytester.path / "out").iterdir()
    text = (folder / "snapshot.txt").read_text()
    assert text.startswith("# 1080x2400 portrait\n")  # the snapshot's text, not its repr
    assert "- app com.google.android.apps.nexuslauncher\n" in text  # taken at the failure
    assert '"Settings"' in text
    assert (folder / "screenshot.png").is_file()


def test_a_results_folder_that_cannot_be_written_is_reported_not_fatal(pytester):
    """Writing the failure's files can fail (a read-only checkout, a file where the folder
    should be): the failure is still reported, with the snapshot in the report and why the
    files are missing — the run goes on (it was an INTERNALERROR that ended the session)."""
    pytester.makepyfile("def test_fails(page):\n    assert False\n\n"
                        "def test_after():\n    pass\n")
    (pytester.path / "out").write_text("a file, not a folder")
    result = pytester.runpytest(*QUIET, "-p", "no:xdist", "--baremobile-results", "out")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*- baremobile -*", "*not written*", "last snapshot of *",
                                 '*"Settings"*'])
    assert "INTERNALERROR" not in result.stdout.str()


def test_device_flag_and_environment_route_the_page(pytester, phone, adb_key, monkeypatch):
    pytester.makepyfile(
        f"""
        def test_where(page, device_spec):
            assert device_spec == "{phone.address}"
            assert page.serial == "{phone.address}"
            page.home()
            page.tap({{"text": "Chrome"}})
        """
    )
    pytester.runpytest(*QUIET, "-p", "no:xdist", "--device", phone.address).assert_outcomes(
        passed=1)
    assert len(phone.events.list("tap")) == 1  # this phone, not a virtual one of the plugin
    monkeypatch.setenv("BAREMOBILE_DEVICE", phone.address)
    pytester.runpytest(*QUIET, "-p", "no:xdist").assert_outcomes(passed=1)
    assert len(phone.events.list("tap")) == 2
    pytester.runpytest(*QUIET, "-p", "no:xdist", "--baremobile-device", phone.address,
                       ).assert_outcomes(passed=1)
    assert len(phone.events.list("tap")) == 3


def test_a_scenario_file_and_api_level_markers(pytester):
    shutil.copy(DEMO / "notes" / "login.xml", pytester.path / "login.xml")
    pytester.makefile(".yaml", app="""
        scenario: 1
        name: my-app
        start: org.baremobile.notes
        apps:
          - package: org.baremobile.notes
            label: Notes
            activity: .MainActivity
            screens:
              login:
                xml: login.xml
        """)
    pytester.makepyfile(
        """
        import pytest

        def test_my_app(page):
            snap = page.snapshot()
            assert snap.package == "org.baremobile.notes" and "Sign in to Notes" in snap.text

        @pytest.mark.min_api(30)
        def test_new_enough(page):
            pass

        @pytest.mark.min_api(99)
        def test_from_the_future(page):
            pass

        @pytest.mark.max_api(23)
        def test_old_only(page):
            pass
        """
    )
    result = pytester.runpytest(*QUIET, "-p", "no:xdist", "--scenario", "app.yaml", "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines([
        "*needs Android API level >= 99; the device has 35*",
        "*needs Android API level <= 23; the device has 35*",
    ])
    result = pytester.runpytest(*QUIET, "-p", "no:xdist", "--device", "virtual:app.yaml",
                                "--virtual-api-level", "23")
    result.assert_outcomes(passed=2, skipped=2)  # test_new_enough skipped, test_old_only ran


def test_parallel_workers_each_get_their_own_virtual_phone(pytester, monkeypatch):
    """Two tests under pytest-xdist run at the same time (each waits for the other) and
    each drives a phone of its own."""
    pytest.importorskip("xdist", reason="pytest-xdist is in the [test] extra")
    pytester.makepyfile(
        """
        import os, time
        from pathlib import Path

        def meet(me, other, page, virtual_phone):
            page.tap({"text": "Settings"})
            here = Path(os.environ["MEET_DIR"])
            (here / me).write_text(f"{os.getpid()} {virtual_phone.address} {page.serial}")
            deadline = time.monotonic() + 60
            while not (here / other).exists():
                assert time.monotonic() < deadline, "the other test never ran alongside"
                time.sleep(0.05)
            assert len(virtual_phone.events.list("tap")) == 1  # only this test's tap

        def test_one(page, virtual_phone):
            meet("one", "two", page, virtual_phone)

        def test_two(page, virtual_phone):
            meet("two", "one", page, virtual_phone)
        """
    )
    meet = pytester.mkdir("meet")
    monkeypatch.setenv("MEET_DIR", str(meet))
    result = pytester.runpytest_subprocess(*QUIET, "-n", "2")
    result.assert_outcomes(passed=2)
    one, two = ((meet / n).read_text().split() for n in ("one", "two"))
    assert one[0] != two[0]  # two worker processes
    assert one[1] != two[1] and one[1] == one[2] and two[1] == two[2]  # a phone each


@pytest.mark.fast
def test_a_projects_own_page_fixture_overrides_the_plugins(pytester):
    """A conftest's or module's ``page`` wins over the plugin's (pytest prefers them to a
    plugin's): this suite's own modules define ``page`` on the conftest's ``phone``."""
    pytester.makeconftest("import pytest\n\n@pytest.fixture\ndef page():\n    return 'mine'\n")
    pytester.makepyfile("def test_mine(page, device_spec):\n    assert page == 'mine'\n")
    pytester.runpytest(*QUIET, "-p", "no:xdist").assert_outcomes(passed=1)


def test_when_another_plugin_has_device_ours_is_baremobile_device(pytester, phone, adb_key):
    """pytest-playwright has a --device of its own: loaded first, it keeps it, and ours is
    spelled --baremobile-device only (instead of a clash that stops pytest)."""
    pytester.makepyfile(
        browserish="def pytest_addoption(parser):\n"
                   "    parser.getgroup('browser').addoption('--device', dest='browser_device')\n",
        test_both=f"def test_both(page, pytestconfig):\n"
                  f"    assert pytestconfig.getoption('browser_device') == 'Pixel 7'\n"
                  f"    assert page.serial == '{phone.address}'\n",
    )
    pytester.syspathinsert()
    result = pytester.runpytest(*QUIET, "-p", "no:xdist", "-p", "browserish",
                                "--device", "Pixel 7", "--baremobile-device", phone.address)
    result.assert_outcomes(passed=1)


def _report_block(lines: list[str], header: str) -> list[str]:
    """The lines of one test's report, from its ``___ header ___`` line on."""
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == header)
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(("___", "===")) or "- baremobile -" in lines[i]),
               len(lines))
    return lines[start:end]


def test_a_stale_ref_fails_in_a_few_lines_before_the_baremobile_section(pytester):
    """Issue 24: a RefNotFound showed ~55 lines of page.py before the useful section; the
    traceback now stops at the test's own line (``--fulltrace`` shows everything)."""
    pytester.makepyfile(
        """
        def test_stale(page):
            page.snapshot()
            page.tap(99)
        """
    )
    result = pytester.runpytest(*QUIET, "-p", "no:xdist")
    result.assert_outcomes(failed=1)
    lines = result.stdout.lines
    block = _report_block(lines, "test_stale")
    assert len(block) <= 15, "\n".join(block)
    text = "\n".join(block)
    assert "page.tap(99)" in text and "RefNotFound: ref 99" in text
    assert "take a new snapshot" in text and "baremobile/page/" not in text
    assert any("- baremobile -" in line for line in lines)  # the section follows
    full = pytester.runpytest(*QUIET, "-p", "no:xdist", "--fulltrace")
    assert "baremobile/page/" in full.stdout.str()


@pytest.mark.fast
def test_no_device_fails_the_setup_in_a_few_lines(pytester, monkeypatch):
    """Issue 24: ~70 lines of transport traceback per test when no device answered; now
    one message saying what failed and what to do."""
    from tests.conftest import free_port

    pytester.makepyfile(
        """
        def test_needs_a_phone(page):
            page.snapshot()
        """
    )
    port = free_port()  # nothing listens there
    result = pytester.runpytest(*QUIET, "-p", "no:xdist", "--device", f"127.0.0.1:{port}")
    result.assert_outcomes(errors=1)
    block = _report_block(result.stdout.lines, "ERROR at setup of test_needs_a_phone")
    assert len(block) <= 15, "\n".join(block)
    text = "\n".join(block)
    assert f"baremobile could not connect to '127.0.0.1:{port}'" in text
    assert "--device" in text and "Traceback" not in text and "direct.py" not in text
