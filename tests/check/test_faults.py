"""Each planted fault fails (or warns) exactly the checks it should, and no other; a conforming server passes.

The server is tests/check/servers/faulty_server.py behind the real proxy, driven
by the real `mcpspy check`; the table says, for each fault, every check that
must not pass, its status, and the findings of the passive analysis it carries.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.check.helpers import faulty, run_check

M, L = "modern", "legacy"
FAST = ("--timeout", "3")  # the silence that counts as no reply; 2 s was once too short on a loaded CI host

# fault, --era, {(check, era): status}, {(check, era): finding ids that must be routed there}
CASES: list[tuple[str, str, dict[tuple[str, str], str], dict[tuple[str, str], set[str]]]] = [
    ("banner", "both", {("framing.stdout", M): "fail", ("framing.stdout", L): "fail"},
     {("framing.stdout", M): {"stdout.not-json"}, ("framing.stdout", L): {"stdout.not-json"}}),
    ("glued", "legacy", {("framing.stdout", L): "fail"}, {("framing.stdout", L): {"stdout.glued-prefix"}}),
    ("pretty", "legacy", {("framing.stdout", L): "fail"}, {("framing.stdout", L): {"stdout.multiline-json"}}),
    ("content-length", "modern", {("framing.stdout", M): "fail"}, {("framing.stdout", M): {"stdout.content-length"}}),
    ("latin1", "legacy", {("framing.stdout", L): "fail", ("initialize.result", L): "warn"},
     {("framing.stdout", L): {"stdout.invalid-utf8"}, ("initialize.result", L): {"pairing.unanswered"}}),
    ("crlf", "modern", {}, {("framing.stdout", M): {"stdout.crlf"}}),
    ("accepts-no-meta", "modern", {("meta.missing", M): "fail"}, {("meta.missing", M): {"meta.not-rejected"}}),
    ("accepts-null-caps", "modern", {("meta.capabilities-null", M): "fail"}, {}),
    ("wrong-version-code", "modern", {("version.unsupported", M): "fail"}, {}),
    ("no-version-data", "modern", {("version.unsupported", M): "fail"},
     {("version.unsupported", M): {"error.unsupported-version-data"}}),
    ("wrong-unknown-code", "both",
     {("method.unknown", M): "fail", ("method.unknown", L): "fail", ("ping.removed", M): "warn"}, {}),
    ("answers-notifications", "both",
     {("notification.unanswered", M): "fail", ("notification.request-shaped", M): "fail",
      ("cancel.in-flight", M): "fail", ("initialize.initialized", L): "fail",
      ("notification.unanswered", L): "fail", ("cancel.in-flight", L): "fail"}, {}),
    ("dies-on-malformed", "modern", {("robust.parse-error", M): "warn", ("robust.after-malformed", M): "fail"}, {}),
    ("silent-on-malformed", "legacy", {("robust.parse-error", L): "warn"}, {}),
    ("line-limit", "legacy", {("robust.long-line", L): "fail"}, {}),
    ("stuck-at-long-line", "modern", {("robust.long-line", M): "fail"}, {}),
    ("dies-on-odd-id", "modern", {("robust.id-type", M): "fail"}, {}),
    ("drops-pipelined", "modern", {("pipeline.ten", M): "fail"}, {}),
    ("mispairs", "legacy", {("pipeline.ten", L): "fail"}, {}),
    ("no-exit-on-eof", "legacy", {("eof.exit", L): "warn"}, {("eof.exit", L): {"lifecycle.no-exit-on-eof"}}),
    ("bye-on-eof", "modern", {("eof.quiet", M): "fail", ("framing.stdout", M): "fail"}, {}),
    ("ping-modern", "modern", {("ping.removed", M): "fail"}, {("ping.removed", M): {"result.missing-result-type"}}),
    ("no-cache", "modern", {("list.tools", M): "fail"}, {("list.tools", M): {"cache.missing-ttl"}}),
    ("bad-schema", "legacy", {("list.tools", L): "fail"},
     {("list.tools", L): {"tools.schema-not-object", "tools.schema-required"}}),
    ("no-server-info", "legacy", {("initialize.result", L): "fail", ("initialize.second", L): "fail"},
     {("initialize.result", L): {"schema.result-shape"}}),
    ("modern-only", "both", {("initialize.result", L): "warn"}, {}),
    ("serves-batch", "both", {("jsonrpc.batch-refused", M): "fail", ("jsonrpc.batch-refused", L): "fail"}, {}),
    ("accepts-bad-log-level", "both", {("logging.per-request", M): "warn", ("logging.set-level", L): "warn"}, {}),
]  # fmt: skip


@pytest.mark.parametrize(("fault", "era", "expected", "findings"), CASES, ids=[c[0] for c in CASES])
def test_a_planted_fault_fails_its_checks_and_no_other(
    tmp_path: Path,
    fault: str,
    era: str,
    expected: dict[tuple[str, str], str],
    findings: dict[tuple[str, str], set[str]],
) -> None:
    result = run_check(tmp_path, faulty(fault), "--era", era, *FAST)
    assert result.not_passed() == expected, result.stderr
    for (check_id, check_era), ids in findings.items():
        assert ids <= set(result.check(check_id, check_era)["findings"])
    failed = any(status == "fail" for status in expected.values())
    assert result.returncode == (1 if failed else 0), result.stderr
    assert result.stderr == ""


def test_a_stuck_server_is_ended_not_waited_for(tmp_path: Path) -> None:
    """It stops reading in the middle of the 1 MiB line: the check's own write blocks, yet it ends."""
    started = time.monotonic()
    result = run_check(tmp_path, faulty("stuck-at-long-line"), "--era", "legacy", "--timeout", "1")
    assert time.monotonic() - started < 60
    assert result.status("robust.long-line", L) == "fail"
    exit_check = result.check("eof.exit", L)
    assert exit_check["status"] == "skip" and "stopped reading its stdin" in exit_check["message"]


def test_a_conforming_server_passes_every_check_in_both_eras(tmp_path: Path) -> None:
    result = run_check(tmp_path, faulty(), *FAST)
    assert result.returncode == 0, result.stderr
    assert result.not_passed() == {}
    skipped = {(c["id"], c["era"]) for c in result.report["checks"] if c["status"] == "skip"}
    declared_nothing = {"list.prompts", "list.resources", "list.resource-templates"}
    no_call = {"progress.notifications", "tools.structured-content"}  # tools are called only when named
    assert skipped == {(check, era) for check in declared_nothing | no_call for era in (M, L)} | {
        ("mrtr.retry", M)
    }
    assert result.report["findings"] == []


def test_a_legacy_only_server_is_told_apart_from_a_broken_one(tmp_path: Path) -> None:
    result = run_check(tmp_path, faulty("no-discover"), *FAST)
    assert result.returncode == 0
    discover = result.check("discover.result", M)
    assert discover["status"] == "skip"
    assert "-32601" in discover["message"] and "does not speak 2026-07-28" in discover["message"]
    modern = [c for c in result.report["checks"] if c["era"] == M and c["id"] != "discover.result"]
    session_wide = ("framing.", "eof.", "session.", "robust.flood")  # judged whatever the era
    assert {c["status"] for c in modern if not c["id"].startswith(session_wide)} == {"skip"}
    assert all(c["status"] in ("pass", "skip") for c in result.report["checks"] if c["era"] == L)


def test_an_era_asked_for_alone_must_be_spoken(tmp_path: Path) -> None:
    modern = run_check(tmp_path, faulty("no-discover"), "--era", "modern", *FAST)
    assert modern.returncode == 1
    assert modern.status("discover.result", M) == "fail"
    legacy = run_check(tmp_path, faulty("modern-only"), "--era", "legacy", *FAST)
    assert legacy.returncode == 1
    assert legacy.status("initialize.result", L) == "fail"


def test_fail_on_sets_the_exit_code(tmp_path: Path) -> None:
    warned = faulty("silent-on-malformed")
    assert run_check(tmp_path, warned, "--era", "legacy", *FAST).returncode == 0
    assert run_check(tmp_path, warned, "--era", "legacy", "--fail-on", "warning", *FAST).returncode == 1
    failed = faulty("banner")
    assert run_check(tmp_path, failed, "--era", "legacy", "--fail-on", "never", *FAST).returncode == 0


def test_a_server_serving_2026_without_discover_is_not_legacy_only(tmp_path: Path) -> None:
    """-32601 to server/discover, then one 2026-07-28 request anyway (issue 27)."""
    result = run_check(tmp_path, faulty("discover-missing"), "--era", "both", *FAST)
    assert result.returncode == 1
    discover = result.check("discover.result", M)
    assert discover["status"] == "fail" and "discover.not-implemented" in discover["message"]
    assert "discover.not-implemented" in {f["id"] for f in result.report["findings"]}
    # and a legacy-only server, which serves nothing of 2026-07-28, is still told apart
    assert run_check(tmp_path, faulty("no-discover"), *FAST).check("discover.result", M)["status"] == "skip"


def test_a_server_that_coerces_string_ids_fails_the_string_id_check(tmp_path: Path) -> None:
    bad = run_check(tmp_path, faulty("coerces-string-ids"), *FAST)
    assert bad.returncode == 1
    for era in (M, L):
        check = bad.check("robust.string-id", era)
        assert check["status"] == "fail" and 'the string id "9007" as the number 9007' in check["message"]
    good = run_check(tmp_path, faulty(), *FAST)
    assert {good.status("robust.string-id", era) for era in (M, L)} == {"pass"}
