"""The alias mechanism's general parts (issue 29), on the real table: what an alias may say
besides a name — its part absent here, alternatives, its door's meaning of a shared name,
its floor, its answer to a failure — and camelCase spellings reaching ``device``."""

from __future__ import annotations

from typing import Any

import pytest

from baremobile.errors import Unsupported
from baremobile.tools import Session
from baremobile.tools.aliases import Alias, resolve
from baremobile.tools.dispatch import call
from baremobile.tools.spec import TOOLS
from baremobile.tools.table import ALIASES
from baremobile.virtual import VirtualPhone

pytestmark = pytest.mark.fast  # the whole file is in the fast tier (-m fast)

ROWS = {t.name: t for t in TOOLS}


def test_an_absent_part_answers_its_systems_words():
    with pytest.raises(Unsupported, match="Failed to connect to accessibility service"):
        resolve("selectAllText", {}, ROWS, ALIASES)
    with pytest.raises(TypeError):
        Alias("x", "sys", None)  # neither a row nor the words saying it is absent
    out = call(Session(), "startDevice", {"device": {"name": "p", "platform": "android"}})
    assert out["ok"] is False and out["error"]["code"] == "UNSUPPORTED"
    assert out["error"]["message"].startswith("Failed to start android device")


def test_a_shared_name_is_ours_unless_the_door_speaks_theirs():
    from baremobile.tools.aliases import alias_for

    args = {"orientation": "landscape"}
    assert alias_for("rotate", args, ROWS, ALIASES) is None  # ours, with our arguments
    assert alias_for("rotate", args, ROWS, ALIASES, prefer="automobile").system == \
        "automobile"
    assert alias_for("rotate", {**args, "platform": "android"}, ROWS, ALIASES) is not None
    # a name only they use is theirs at every door
    assert resolve("tapOn", {"text": "OK"}, ROWS, ALIASES).name == "tap"


def test_alternatives_are_tried_while_the_element_is_not_on_screen():
    found = resolve("tapOn", {"text": "Email", "platform": "android"}, ROWS, ALIASES)
    assert found.args == {"selector": {"text_contains": "Email"}}
    assert found.alternatives == ({"selector": {"desc_contains": "Email"}},)
    with VirtualPhone() as phone:
        session = Session()
        assert call(session, "launch", {"package": "org.baremobile.notes",
                                        "device": phone.address})["ok"]
        assert call(session, "snapshot", {"device": phone.address})["ok"]
        seen = phone.events.last_seq
        # "Email" is the field's content description only: the second try finds it
        out = call(session, "tapOn", {"text": "Email", "deviceId": phone.address})
        assert out["ok"] is True
        taps = [c for c in phone.events.commands(since=seen) if c[:2] == ["input", "tap"]]
        assert len(taps) == 1  # one tap: nothing was sent for the try that found nothing
        missing = call(session, "tapOn", {"text": "Nothing like it",
                                          "deviceId": phone.address})
        assert missing["error"]["code"] == "REF_NOT_FOUND"
        assert "text_contains='Nothing like it'" in missing["error"]["message"]  # the first
        session.close()


def test_their_floor_and_their_answer_to_a_failure():
    by_name = {a.name: a for a in ALIASES if a.system == "automobile"}
    assert by_name["launchApp"].floor_s() == 90.0 and by_name["executePlan"].floor_s() == 600
    assert by_name["tapOn"].floor_s() == 0.0
    failure: dict[str, Any] = {"ok": False, "tool": "execute", "stopped_at": 0,
                               "error": {"code": "REF_NOT_FOUND", "message": "nothing"},
                               "steps": [{"step": 0, "ok": False, "tool": "tapOn",
                                          "error": {"message": "nothing"}}]}
    args = {"planContent": "steps:\n  - tool: tapOn\n    text: x\n"}
    plan = by_name["executePlan"]
    assert plan.answer_failure(failure, args, None) is failure  # ours elsewhere
    theirs = plan.answer_failure(failure, args, "automobile")
    assert theirs["success"] is False and theirs["failedStep"] == {
        "stepIndex": 0, "tool": "tapOn", "error": "nothing"}


def test_camel_case_device_id_reaches_a_rows_device():
    found = resolve("snapshot", {"deviceId": "127.0.0.1:5"}, ROWS, ALIASES)
    assert found.args == {"device": "127.0.0.1:5"}
