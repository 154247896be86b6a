"""`mcpspy diff` on small hand-written captures, one per drift kind, and its baseline workflow."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mcpspy.cli import main
from tests.conftest import MCPSPY

FIXTURES = Path(__file__).parent / "fixtures"
BASE = FIXTURES / "base.jsonl"

# fixture -> (area, item, kind, field, path) of its one change
CASES = {
    "added": ("tools", "export", "added", None, "$"),
    "removed": ("tools", "close_ticket", "removed", None, "$"),
    "description": ("tools", "search", "description", "description", "$"),
    "tightened": ("tools", "search", "schema-tightened", "inputSchema", "$.properties.project"),
    "loosened": ("tools", "search", "schema-loosened", "inputSchema", "$.properties.limit.type"),
    "risk": ("tools", "search", "annotation-risk", "annotations", "$.readOnlyHint"),
    "server-info": ("server", None, "server-info", "serverInfo", "$.version"),
    "capabilities": ("capabilities", None, "capability-added", None, "$.logging"),
}


def diff_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["diff", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fixture", list(CASES))
def test_each_drift_kind_is_named_with_its_item_and_path(
    fixture: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = diff_json(capsys, str(BASE), str(FIXTURES / f"{fixture}.jsonl"))
    assert code == 1
    assert report["drift_version"] == 1 and report["drift"] is True
    changes = report["changes"]
    assert isinstance(changes, list)
    assert [(c["area"], c["item"], c["kind"], c["field"], c["path"]) for c in changes] == [CASES[fixture]]


def test_the_risk_change_says_riskier_and_the_way_back_says_safer(capsys: pytest.CaptureFixture[str]) -> None:
    main(["diff", str(BASE), str(FIXTURES / "risk.jsonl")])
    out = capsys.readouterr().out
    assert "  ! search: annotations $.readOnlyHint: riskier: no longer read-only" in out
    main(["diff", str(FIXTURES / "risk.jsonl"), str(BASE)])
    assert "  ! search: annotations $.readOnlyHint: safer: now read-only" in capsys.readouterr().out


def test_text_names_the_changed_tool_and_the_schema_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(BASE), str(FIXTURES / "tightened.jsonl")]) == 1
    out = capsys.readouterr().out
    assert "\ntools\n  ~ search: inputSchema $.properties.project: tightened, new required property" in out


def test_a_session_compared_with_itself_has_no_drift(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(BASE), str(BASE)]) == 0
    assert "no drift" in capsys.readouterr().out


def test_a_saved_baseline_passes_for_its_session_and_fails_for_a_drifted_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "surface.json"
    assert main(["diff", "--save-baseline", str(baseline), str(BASE)]) == 0
    said = capsys.readouterr().out
    assert f"saved the surface of {BASE}" in said and "2 tools" in said and str(baseline) in said
    assert baseline.stat().st_mode & 0o777 == 0o600
    saved = json.loads(baseline.read_text())
    assert saved["mcpspy_baseline"] == 1 and [t["name"] for t in saved["tools"]] == ["search", "close_ticket"]
    assert main(["diff", "--baseline", str(baseline), str(BASE)]) == 0
    capsys.readouterr()
    code, report = diff_json(capsys, "--baseline", str(baseline), str(FIXTURES / "tightened.jsonl"))
    assert code == 1 and report["a"] == str(baseline)


def test_a_baseline_is_never_written_through_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me")
    link = tmp_path / "surface.json"
    link.symlink_to(target)
    assert main(["diff", "--save-baseline", str(link), str(BASE)]) == 0
    assert target.read_text() == "keep me" and not link.is_symlink()


def test_a_file_that_is_not_a_capture_is_said_to_be_not_a_capture(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    assert main(["diff", str(notes), str(BASE)]) == 2
    err = capfd.readouterr().err
    assert f"{notes}: not an mcpspy capture" in err and "no session or capture" not in err


def test_sessions_are_found_by_name_in_the_sessions_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "sessions"
    home.mkdir()
    (home / "20261201T100000.000Z-helpdesk-1.jsonl").write_bytes(BASE.read_bytes())
    assert main(["diff", "--home", str(home), "fixture-drift-base", str(FIXTURES / "added.jsonl")]) == 1
    assert "+ added: export" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["no-such-session", str(BASE)],
        [str(BASE)],
        [str(FIXTURES / "base.jsonl"), os.devnull],
        ["--baseline", str(BASE), str(BASE)],  # a capture is not a baseline
        ["--baseline", "/no/such/file.json", str(BASE)],
    ],
)
def test_what_cannot_be_read_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [*MCPSPY, "diff", "--home", str(tmp_path), *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stdout
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("mcpspy diff: ")


def test_a_capture_with_no_surface_cannot_be_compared(tmp_path: Path) -> None:
    bare = tmp_path / "bare.jsonl"
    bare.write_text(BASE.read_text().splitlines()[0] + "\n")
    done = subprocess.run([*MCPSPY, "diff", str(bare), str(BASE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "shows no server surface" in done.stderr
