"""The check's reports: text for people, JSON, JUnit (parsed with xml.etree) and SARIF (validated
against the official 2.1.0 schema), for a check and for a recorded session; and the exit codes."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpspy.analysis.catalogue import RULES
from mcpspy.capture.reader import read_capture
from mcpspy.check.catalogue import CHECKS
from mcpspy.model.report import report_object
from mcpspy.model.summary import build_summary
from mcpspy.replay_policy import open_capture
from mcpspy.report.junit import render_junit
from mcpspy.report.sarif import render_sarif
from tests.check.helpers import SARIF_SCHEMA, faulty, run_check

FAST = ("--timeout", "2")
FAULTS = ("control-banner", "accepts-no-meta", "silent-on-malformed")  # an error, a finding, a warning


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("captures")


@pytest.fixture(scope="module")
def as_json(home: Path) -> dict[str, Any]:
    result = run_check(home, faulty(*FAULTS), *FAST)
    assert result.returncode == 1, result.stderr
    return result.report


def sarif_errors(document: dict[str, Any]) -> list[str]:
    schema = json.loads(SARIF_SCHEMA.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


def test_the_sarif_schema_is_the_official_one() -> None:
    schema = json.loads(SARIF_SCHEMA.read_text())
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    assert sarif_errors({"version": "2.1.0", "runs": [{"tool": {}}]})  # it rejects a broken log


def test_json_lists_every_check_with_its_spec_and_the_report_findings(as_json: dict[str, Any]) -> None:
    assert as_json["check_version"] == 1
    assert set(as_json["capture"]) == {"modern", "legacy"}
    for check in as_json["checks"]:
        assert check["id"] in CHECKS
        assert check["spec"] == CHECKS[check["id"]].source
        assert check["era"] in {era.value for era in CHECKS[check["id"]].eras}
        assert check["status"] in ("pass", "warn", "fail", "skip")
        assert check["message"]
    meta = next(c for c in as_json["checks"] if c["id"] == "meta.missing")
    assert meta["status"] == "fail"
    assert meta["conformance"] == ["sep-2575-request-meta-invalid-missing-meta"]
    [finding] = [f for f in as_json["findings"] if f["id"] == "meta.not-rejected"]
    assert finding["check"] == "meta.missing" and finding["era"] == "modern"
    # The same object as `report --json` gives for that finding of that capture.
    opened = open_capture(as_json["capture"]["modern"])
    capture, analyzer = opened.capture, opened.analyzer
    reported = report_object(build_summary(capture, Path(as_json["capture"]["modern"]), analyzer))["findings"]
    same = {k: v for k, v in finding.items() if k not in ("era", "check")}
    assert same in reported


def test_json_leaves_out_the_findings_about_the_checks_own_probes(as_json: dict[str, Any]) -> None:
    ids = {f["id"] for f in as_json["findings"]}
    assert not ids & {
        "stdin.not-json",
        "meta.missing",
        "jsonrpc.id-type",
        "ping.modern",
        "legacy.reinitialize",
    }
    assert all(
        f["stream"] != "c2s" or f["id"] in ("pairing.unanswered", "pairing.slow") for f in as_json["findings"]
    )


def test_text_quotes_the_offending_line_safely_with_the_fix_and_the_rule(home: Path) -> None:
    result = run_check(home, faulty(*FAULTS), *FAST, fmt="text")
    assert result.returncode == 1
    text = result.stdout
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[31mready\\x1b[0m \\x1b]0;pwned\\x07" in text  # the banner, quoted with its escapes visible
    assert "FAIL  framing.stdout" in text and "see `mcpspy rules stdout.not-json`" in text
    assert f"fix: {CHECKS['meta.missing'].fix}" in text
    assert "warn  robust.parse-error" in text
    assert text.index("modern (2026-07-28)") < text.index("legacy (initialize)")


def test_junit_has_a_testcase_per_check_and_parses(home: Path, as_json: dict[str, Any]) -> None:
    result = run_check(home, faulty(*FAULTS), *FAST, fmt="junit")
    root = ET.fromstring(result.stdout)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "mcpspy check modern (2026-07-28)",
        "mcpspy check legacy (initialize)",
    ]
    cases = [case for suite in suites for case in suite.findall("testcase")]
    assert len(cases) == len(as_json["checks"]) == int(root.get("tests", "0"))
    by_name = {(c.get("classname"), c.get("name")): c for c in cases}
    failure = by_name[("mcpspy.check.modern", "framing.stdout")].find("failure")
    assert failure is not None and failure.get("type") == "error"
    assert "\\x1b" in (failure.text or "")  # the escape made visible, never raw in the XML
    body = (failure.text or "").splitlines()  # real line breaks between the lines, never a literal \x0a
    assert len(body) >= 3 and body[-3].startswith("fix: ") and "\\x0a" not in (failure.text or "")
    warning = by_name[("mcpspy.check.legacy", "robust.parse-error")].find("failure")
    assert warning is not None and warning.get("type") == "warning"
    assert by_name[("mcpspy.check.legacy", "list.prompts")].find("skipped") is not None
    assert int(root.get("failures", "0")) == sum(c["status"] in ("fail", "warn") for c in as_json["checks"])


def test_sarif_of_a_check_validates_and_points_at_capture_lines(home: Path, as_json: dict[str, Any]) -> None:
    out = home / "check.sarif"
    result = run_check(home, faulty(*FAULTS), *FAST, "--out", str(out), fmt="sarif")
    assert result.returncode == 1 and result.stdout == ""
    document = json.loads(out.read_text())
    assert sarif_errors(document) == []
    [modern, legacy] = document["runs"]
    rules = {r["id"] for r in modern["tool"]["driver"]["rules"]}
    results = {(r["ruleId"], r["level"]) for r in modern["results"]}
    assert {
        ("meta.missing", "error"),
        ("meta.not-rejected", "error"),
        ("stdout.not-json", "error"),
    } <= results
    assert ("robust.parse-error", "warning") in {(r["ruleId"], r["level"]) for r in legacy["results"]}
    assert {rule for rule, _ in results} <= rules
    capture_lines = {}
    for run in document["runs"]:
        capture = Path(run["artifacts"][0]["location"]["uri"].removeprefix("file://"))
        lines = capture_lines[run["automationDetails"]["id"]] = capture.read_text().splitlines()
        for sarif_result in run["results"]:
            region = sarif_result["locations"][0]["physicalLocation"]["region"]
            assert 2 <= region["startLine"] <= len(lines)  # line 1 is the capture's header
    banner = next(r for r in modern["results"] if r["ruleId"] == "stdout.not-json")
    line = banner["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert "pwned" in json.loads(capture_lines["mcpspy-check/modern/"][line - 1])["text"]


def test_sarif_and_junit_of_a_recorded_session(as_json: dict[str, Any]) -> None:
    path = Path(as_json["capture"]["legacy"])
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    summary = build_summary(read_capture(path), path, analyzer)
    document = json.loads(render_sarif(summary))
    assert sarif_errors(document) == []
    [run] = document["runs"]
    assert len(run["results"]) == len(summary.findings) > 0
    assert {r["ruleId"] for r in run["results"]} == {f.id for f in summary.findings}
    root = ET.fromstring(render_junit(summary))
    cases = root.findall("testsuite/testcase")
    assert len(cases) == len(RULES)
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    assert "stdout.not-json" in failed and "stdin.not-json" in failed  # a report judges both sides
    body = next(c for c in cases if c.get("name") == "stdout.not-json").findtext("failure") or ""
    assert "\\x0a" not in body and body.splitlines()[-3].startswith("fix: ")
    del capture


def test_a_missing_command_cannot_run(tmp_path: Path) -> None:
    result = run_check(tmp_path, ["no-such-mcp-server-here"], fmt="text")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == "mcpspy check: cannot start 'no-such-mcp-server-here': command not found\n"


def test_a_server_that_never_answers_cannot_run(tmp_path: Path) -> None:
    silent = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    result = run_check(tmp_path, silent, "--timeout", "0.3", fmt="json")
    assert result.returncode == 2
    assert result.stderr.startswith("mcpspy check: the server never answered a request")
    assert result.stderr.count("\n") == 1
    assert result.report["checks"]  # the report is still written, with its captures


def test_no_command_is_a_usage_error(tmp_path: Path) -> None:
    result = run_check(tmp_path, [], fmt="text")
    assert result.returncode == 2 and "no server command" in result.stderr


@pytest.mark.parametrize("call", ["add", "add={", "add=[1]"])
def test_call_arguments_must_be_a_json_object(tmp_path: Path, call: str) -> None:
    result = run_check(tmp_path, faulty(), "--call", call, "--era", "legacy", *FAST)
    if call == "add":
        assert result.returncode == 0 and result.status("tools.call", "legacy") == "pass"
    else:
        assert result.returncode == 2 and "--call" in result.stderr and result.stdout == ""
