"""What check tells a user: why a request went unanswered, the fix for what failed, where its captures go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from mcpspy.analysis.catalogue import RULES
from tests.check.helpers import faulty, run_check
from tests.conftest import MCPSPY


def test_a_server_that_exits_at_once_is_said_to_have_exited_not_to_have_been_waited_for(
    tmp_path: Path,
) -> None:
    done = run_check(tmp_path, [sys.executable, "-c", "pass"], "--timeout", "10")
    assert done.returncode == 2, done.stderr
    for check_id in ("discover.result", "initialize.result"):
        [verdict] = [v for v in done.report["checks"] if v["id"] == check_id]
        assert "the server exited (code 0)" in verdict["message"], verdict
        assert "after it started" in verdict["message"]
        assert "no reply in" not in verdict["message"]  # it waited 0 s of the 30, not 30


def test_a_tool_schema_failure_gets_the_schema_rule_s_fix(tmp_path: Path) -> None:
    done = run_check(tmp_path, faulty("bad-schema"), "--era", "legacy")
    [verdict] = [v for v in done.report["checks"] if v["id"] == "list.tools"]
    assert verdict["status"] == "fail"
    assert "tools.schema-not-object" in verdict["findings"]
    assert RULES["tools.schema-not-object"].fix in verdict["fix"]
    assert "Answer tools/list with a tools array" not in verdict["fix"]


def test_a_version_the_server_does_not_list_is_said_once_by_the_rule_that_says_it(tmp_path: Path) -> None:
    """discover.result carries version.unlisted; the check does not say it again in its own words."""
    done = run_check(tmp_path, faulty("unlisted-version"), "--era", "modern")
    [verdict] = [v for v in done.report["checks"] if v["id"] == "discover.result"]
    assert verdict["status"] == "warn" and "version.unlisted" in verdict["findings"]
    said = [p["message"] for p in verdict["problems"]]
    assert not any("lists only" in text for text in said), said


def test_check_sessions_are_kept_apart_from_the_clients_sessions(tmp_path: Path) -> None:
    home = tmp_path / "home"
    subprocess.run([*MCPSPY, "--home", str(home), "--name", "real", "--", "true"], check=True, timeout=60)
    run_check(home, faulty(), "--era", "legacy")
    assert len(list((home / "check").glob("*-check-legacy-*.jsonl"))) == 1
    listed = subprocess.run(
        [*MCPSPY, "sessions", "--json", "--home", str(home)], capture_output=True, text=True, timeout=60
    )
    assert [s["name"] for s in orjson.loads(listed.stdout)] == ["real"]
    stats = subprocess.run(
        [*MCPSPY, "stats", "--home", str(home), "--json"], capture_output=True, text=True, timeout=60
    )
    assert "check-legacy" not in stats.stdout, stats.stdout
