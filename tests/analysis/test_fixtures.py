"""Each fixture capture gives exactly its expected findings, and the pairings are right."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.model import Era, ExchangeState, Kind, Severity
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.replay_policy import open_capture
from tests.analysis.expected import EXPECTED
from tests.analysis.scenarios import SCENARIOS
from tests.analysis.scenarios_lines import GENERATED_SCENARIOS
from tests.analysis.steps import FIXTURES, build


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_fixture_gives_exactly_its_findings(name: str) -> None:
    path = FIXTURES / f"{name}.jsonl"
    assert path.read_bytes() == build(SCENARIOS[name], name), (
        "fixtures are stale: run tests.analysis.scenarios"
    )
    analyzer = open_capture(path).analyzer
    got = sorted((f.id, f.seq) for f in analyzer.findings)
    assert got == sorted(EXPECTED[name]), [f.message for f in analyzer.findings]


@pytest.mark.parametrize("name", sorted(GENERATED_SCENARIOS))
def test_generated_scenario_gives_exactly_its_findings_and_is_paired(name: str, tmp_path: Path) -> None:
    """Scenarios too big to ship (a line over 16 MiB), built here instead of in fixtures/."""
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(build(GENERATED_SCENARIOS[name], name))
    analyzer = open_capture(path).analyzer
    assert sorted((f.id, f.seq) for f in analyzer.findings) == sorted(EXPECTED[name])
    assert [(e.id, e.state) for e in analyzer.exchanges] == [(1, ExchangeState.ANSWERED)]


def analyze(name: str):  # type: ignore[no-untyped-def]
    return open_capture(FIXTURES / f"{name}.jsonl").analyzer


def test_out_of_order_pairing() -> None:
    a = analyze("lesson-out-of-order")
    two, three = a.exchanges
    assert (two.id, two.reply_seq, two.out_of_order) == (2, 4, False)
    assert (three.id, three.reply_seq, three.out_of_order) == (3, 3, True)
    assert three.latency == pytest.approx(0.01)
    assert a.message(3).method == "tools/call"


def test_cancelled_request_and_late_reply() -> None:
    (exchange,) = analyze("lesson-cancelled").exchanges
    assert exchange.state is ExchangeState.CANCELLED and exchange.cancel_seq == 2 and exchange.reply_seq == 3


def test_glued_reply_is_still_paired_and_names_the_stray_text() -> None:
    a = analyze("lesson-ready-glued")
    (finding,) = a.findings
    assert "'ready '" in finding.message and "id 1" in finding.message
    assert a.exchanges[0].reply_seq == 2 and a.message(2).glued_prefix == b"ready "


def test_eras() -> None:
    assert analyze("clean-modern").era is Era.MODERN
    legacy = analyze("clean-legacy")
    assert (legacy.era, legacy.protocol_version) == (Era.LEGACY, "2025-06-18")
    assert analyze("claude-code-dual-opening-modern").era is Era.MODERN
    assert analyze("claude-code-dual-opening-legacy").era is Era.LEGACY


def test_kinds_and_stderr_is_never_a_finding() -> None:
    a = analyze("clean-modern")
    assert [m.kind for m in a.messages][:2] == [Kind.REQUEST, Kind.RESPONSE]
    stderr = [m for m in a.messages if m.kind is Kind.STDERR]
    assert len(stderr) == 1 and not stderr[0].findings
    assert all(e.state is ExchangeState.ANSWERED for e in a.exchanges)


def test_subscription_is_not_unanswered_and_pending_stays_listed() -> None:
    a = analyze("subscription-open-for-life")
    assert [e.method for e in a.pending] == ["subscriptions/listen"]


def test_slow_requests_are_flagged_once_when_asked_at_a_time() -> None:
    from mcpspy.analysis.analyzer import Analyzer
    from mcpspy.analysis_data import result_schemas
    from mcpspy.capture.reader import read_capture

    a = Analyzer(slow_after=30.0, schemas=result_schemas())
    for record in read_capture(FIXTURES / "pairing-unanswered.jsonl").records:
        a.feed(record)
    assert a.check_pending(10.0) == []
    (event,) = a.check_pending(40.0)
    assert a.check_pending(50.0) == []
    assert event.finding.id is RuleId.PAIRING_SLOW  # type: ignore[union-attr]
    assert RULES[RuleId.PAIRING_SLOW].severity is Severity.WARNING


SENTENCES = {
    "schema-content-block": [
        'the tools/call result does not fit CallToolResult (2025-06-18): result.content[1] has no "text", which '
        "is required",
        'the tools/call result does not fit CallToolResult (2025-06-18): result.content[0].type is "markdown", '
        'not one of "text", "image", "audio", "resource_link", "resource"',
    ],
    "schema-tool-without-input-schema": [
        'the tools/list result does not fit ListToolsResult (2026-07-28): result.tools[0] has no "inputSchema", '
        "which is required"
    ],
    "capability-server-undeclared-modern": [
        "resources/read (id 2) needs the server's resources capability, which it did not declare"
    ],
    "capability-client-undeclared": [
        "the server sent sampling/createMessage (id 0), but the client did not declare the sampling capability"
    ],
    "legacy-early-request": ["tools/list (id 1) was sent before initialize was answered (seq 3)"],
    "legacy-version-changed": ["the client asked for '2025-11-25'; the server chose '2025-06-18'"],
    "progress-after-completion": ["progress for token 7 after tools/call (id 1) was answered at seq 3"],
    "progress-not-increasing": ["progress for token 'export-1' went from 50 to 40; it must increase"],
}


@pytest.mark.parametrize("name", sorted(SENTENCES))
def test_findings_name_the_method_id_capability_or_field(name: str) -> None:
    assert [f.message for f in analyze(name).findings] == SENTENCES[name]


def test_capabilities_and_negotiated_version_are_read_from_the_handshake() -> None:
    a = analyze("clean-shapes-legacy")
    assert (a.era, a.protocol_version) == (Era.LEGACY, "2025-06-18")
    assert a.server_capabilities is not None and a.server_capabilities["resources"] == {"subscribe": True}
    assert a.client_capabilities == {"roots": {}, "sampling": {}}
    modern = analyze("clean-shapes-modern")
    assert modern.server_capabilities is not None and "completions" in modern.server_capabilities
    assert modern.client_capabilities is None
