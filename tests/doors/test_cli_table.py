"""The CLI made from the tool table: the compact copy is the table, every tool a command with
help, positional words and flags from its row; mistakes answer in the command's words."""

from __future__ import annotations

import json
import re

import pytest

from baremobile.cli import build_parser, command_names, table_gen
from baremobile.cli.commands import SELECTOR_FIELDS, by_command, tools
from baremobile.cli.session import DAEMON_COMMANDS, tool_request
from baremobile.tools.spec import TOOLS
from tests.conftest import run_cli

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, *args)


def test_the_checked_in_copy_is_the_table():
    """``commands.json`` is what ``python -m baremobile.cli.table_gen`` writes from the table
    now: change a row, regenerate."""
    assert table_gen.PATH.read_text(encoding="utf-8") == table_gen.render(), \
        "baremobile/cli/commands.json is stale: run python -m baremobile.cli.table_gen"
    assert [t["name"] for t in tools()] == [t.name for t in TOOLS]


def test_every_positional_word_is_a_parameter_of_its_tool():
    for t in TOOLS:
        props = t.parameters()["properties"]
        for word in t.cli_args:
            name, _, field = word.rstrip("?").partition(".")
            assert name in props, (t.name, word)
            if field:
                assert field in props[name]["properties"], (t.name, word)
        assert t.cli_args.count("ref?") <= 1 and (not t.cli_args or "ref?" not in
                                                  t.cli_args[1:]), "a ref leads"


@pytest.mark.parametrize("command", sorted(by_command()))
def test_every_command_has_help_with_its_description_and_every_parameter(command, capsys):
    tool = by_command()[command]
    code, out, _ = cli(capsys, command, "--help")
    assert code == 0
    assert out.startswith(f"usage: baremobile {command} [options]")
    flat = " ".join(out.split())
    if command not in DAEMON_COMMANDS:  # (devices: the daemon's pool)
        assert " ".join(tool["summary"].split()) in flat  # the row's description
    fields = set(tool["params"].get("selector", {}).get("fields", {}))
    for name in tool["params"]:
        if name == "device" or (name in fields and name != "selector"):
            continue
        flag = "--" + name.replace("_", "-")
        assert flag in out, f"{command} --help lacks {flag}"
    if "device" in tool["params"] or tool["device"]:
        assert "-d DEVICE, --device DEVICE" in out
    for slot in tool["args"]:
        assert slot.rstrip("?").split(".")[-1].upper().replace("TEXT_CONTAINS", "TEXT") in out


def test_top_level_help_lists_every_command_with_a_description(capsys):
    code, out, _ = cli(capsys, "--help")
    assert code == 0
    for name in command_names():
        line = next((ln for ln in out.splitlines() if ln.strip().startswith(name + " ")), None)
        assert line is not None and len(line.split()) > 2, f"{name} has no help line"
    assert "(see --help)" not in out


@pytest.mark.parametrize(("argv", "suggested"), [
    (["tapp", "3"], "tap"), (["snapshto"], "snapshot"), (["--json", "lsit-apps"], "list-apps"),
    (["-d", "virtual", "scrol", "down"], "scroll")])
def test_a_mistyped_command_is_one_line_suggesting_the_right_one(argv, suggested, capsys):
    code, out, err = cli(capsys, *argv)
    assert code == 2
    if "--json" in argv:
        error = json.loads(out)["error"]
        assert error["code"] == "UNKNOWN_COMMAND" and f"'baremobile {suggested}'" in \
            error["message"]
        return
    assert out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("error [UNKNOWN_COMMAND]:") and f"'baremobile {suggested}'" in err


def test_a_tool_name_with_underscores_works_as_its_command(capsys):
    code, out, _ = cli(capsys, "list_apps", "--help")
    assert code == 0 and out.startswith("usage: baremobile list-apps")


def test_an_unknown_option_answers_with_the_commands_usage(capsys):
    code, out, err = cli(capsys, "snapshot", "--nosuch")
    assert code == 2 and err.startswith("usage: baremobile snapshot [options]")
    assert "unrecognized arguments: --nosuch" in err


def request(*argv: str) -> tuple[str, dict, str | None]:
    args = build_parser(argv[0]).parse_args(list(argv))
    return tool_request(args)


def test_positional_words_and_flags_become_the_tools_arguments(tmp_path):
    assert request("snapshot", "--diff")[:2] == ("snapshot", {"diff": True})
    assert request("tap", "4")[1] == {"ref": 4}
    assert request("type", "3", "hello world", "--submit")[1] == \
        {"ref": 3, "text": "hello world", "submit": True}
    assert request("type", "hello")[1] == {"text": "hello"}
    assert request("type", "--text", "Search", "wifi")[1] == \
        {"text": "wifi", "selector": {"text": "Search"}}
    assert request("scroll", "down")[1] == {"direction": "down"}
    assert request("scroll", "5", "down", "--amount", "0.3")[1] == \
        {"ref": 5, "direction": "down", "amount": 0.3}
    assert request("press", "66")[1] == {"key": 66}
    assert request("press", "back")[1] == {"key": "back"}
    assert request("swipe", "1", "2", "3", "4")[1] == {"x1": 1.0, "y1": 2.0, "x2": 3.0,
                                                       "y2": 4.0}
    assert request("find", "wi", "--role", "Text")[1] == \
        {"selector": {"text_contains": "wi", "role": "Text"}}
    assert request("list-files", "/sdcard")[1] == {"path": "/sdcard"}
    assert request("list-files", "--path", "/sdcard")[1] == {"path": "/sdcard"}
    assert request("configure", "--observe", "diff")[1] == {"observe": "diff"}
    assert request("configure", "--observe", "true")[1] == {"observe": True}
    assert request("wait-for-element", "--id", "x", "--gone")[1] == \
        {"selector": {"id": "x"}, "gone": True}
    assert request("tap", "--at", "10", "20", "-d", "emulator-5554")[1] == \
        {"x": 10.0, "y": 20.0, "device": "emulator-5554"}
    # files of this computer: the daemon gets their folder
    tool, a, folder = request("push", str(tmp_path / "app.apk"), "/sdcard/app.apk")
    assert (tool, a, folder) == ("push_file", {"local_path": "app.apk",
                                               "path": "/sdcard/app.apk"}, str(tmp_path))
    tool, a, folder = request("pull", "/sdcard/x.txt", str(tmp_path))  # into a folder
    assert (a["local_path"], folder) == ("x.txt", str(tmp_path))
    assert request("install", "a.apk", "--no-replace")[1]["replace"] is False


@pytest.mark.parametrize("argv", [["tap", "x"], ["swipe", "1", "2"], ["press"],
                                  ["scroll", "5", "down", "more"], ["swipe", "a", "1", "2", "3"]])
def test_wrong_positional_words_are_usage_errors_of_the_command(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        request(*argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: baremobile {argv[0]} [options]")


def test_device_is_accepted_before_and_after_the_command(capsys):
    code, out, err = cli(capsys, "--no-daemon", "-d", "virtual", "snapshot", "--max-chars", "300")
    assert code == 0 and "# 1080x2400" in out, err
    args = build_parser("tap").parse_args(["-d", "emulator-5554", "tap", "3"])
    assert tool_request(args)[1] == {"ref": 3, "device": "emulator-5554"}
    args = build_parser("tap").parse_args(["-d", "a", "tap", "3", "-d", "b"])
    assert tool_request(args)[1]["device"] == "b"  # the later one wins


def test_snapshot_diff_through_the_cli(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "--no-daemon", "-d", "virtual", "snapshot", "--diff")
    # a diff's first observation is the screen itself (docs/snapshot.md: diffs)
    assert code == 0 and out.startswith("# 1080x2400 portrait\n"), (out, err)
    args = build_parser("snapshot").parse_args(["snapshot", "--diff"])
    assert tool_request(args)[1] == {"diff": True}


def test_selector_flags_are_the_selectors_fields():
    from baremobile.page.selector import ALIASES
    from baremobile.tools.spec import SELECTOR

    assert set(SELECTOR_FIELDS) == set(SELECTOR["properties"]) - set(ALIASES)
    assert not set(DAEMON_COMMANDS) - {"open", "close", "session", "devices", "tools", "call"}


def test_a_cut_snapshot_says_how_to_see_more_in_each_doors_words(capsys):
    """The cut note names the argument as the caller passes it: the flag on the command
    line, the parameter to a model."""
    code, out, err = cli(capsys, "--no-daemon", "-d", "virtual", "snapshot", "--max-chars", "300")
    assert code == 0, err
    assert re.search(r"ask for --max-chars \d+ to see everything", out), out
    assert "max_chars=" not in out
    from baremobile.tools import Session, call

    with Session(device="virtual") as session:
        result = call(session, "snapshot", {"max_chars": 300})
    assert re.search(r"ask for max_chars=\d+ to see everything", result["snapshot"])
