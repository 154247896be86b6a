"""The silent killers of an exchange: sentences, timing, the lost state, and the request methods."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import ExchangeState
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.requests import REQUEST_METHODS
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.reader import read_capture
from mcpspy.replay_policy import open_capture
from tests.analysis.steps import FIXTURES

SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec"


def analyze(name: str) -> Analyzer:
    return open_capture(FIXTURES / f"{name}.jsonl").analyzer


def messages(name: str, rule: RuleId) -> list[str]:
    return [f.message for f in analyze(name).findings if f.id is rule]


@pytest.mark.skipif(not SPEC.is_dir(), reason="the spec's schemas are not beside the checkout")
def test_request_methods_are_the_schemas_request_unions() -> None:
    methods = set()
    for schema in SPEC.glob("*/schema.json"):
        document = json.loads(schema.read_text())
        defs = document.get("definitions") or document.get("$defs") or {}
        for union in ("ClientRequest", "ServerRequest"):
            for alt in defs.get(union, {}).get("anyOf", []):
                methods.add(defs[alt["$ref"].rsplit("/", 1)[-1]]["properties"]["method"]["const"])
    assert methods == REQUEST_METHODS


def test_a_lost_reply_is_awaited_until_the_session_ends() -> None:
    a = Analyzer(schemas=result_schemas())
    for record in read_capture(FIXTURES / "lesson-ready-glued.jsonl").records:
        a.feed(record)
    (exchange,) = a.exchanges
    assert exchange.state is ExchangeState.LOST and exchange.reply_seq == 2
    assert a.pending == [exchange]
    a.finish()
    assert a.pending == [] and exchange.state is ExchangeState.LOST
    assert [f.id for f in a.findings] == [RuleId.STDOUT_GLUED_PREFIX]  # not also called unanswered


def test_a_lost_reply_ends_with_a_cancel_or_a_reply_that_parses() -> None:
    (cancelled,) = analyze("pairing-lost-reply-cancelled").exchanges
    assert (cancelled.state, cancelled.cancel_seq, cancelled.reply_seq) == (ExchangeState.CANCELLED, 3, 2)
    again = analyze("pairing-lost-reply-sent-again")
    (answered,) = again.exchanges
    assert (answered.state, answered.reply_seq) == (ExchangeState.ANSWERED, 3)
    assert again.pending == []


def test_a_call_without_a_token_is_flagged_when_it_reaches_the_client_timeout() -> None:
    a = Analyzer(slow_after=1000.0, schemas=result_schemas())
    records = read_capture(FIXTURES / "request-no-progress-token.jsonl").records
    for record in records[:2]:
        a.feed(record)
    assert a.check_pending(60.0) == []  # sent at 0.01: 59.99 s
    (event,) = a.check_pending(60.01)
    assert event.finding.id is RuleId.REQUEST_NO_PROGRESS_TOKEN  # type: ignore[union-attr]
    assert a.check_pending(120.0) == []
    assert "the server's progress meanwhile (seq 2) could not name it" in event.finding.message  # type: ignore[union-attr]


def test_a_call_with_a_token_is_not_flagged_however_long() -> None:
    assert messages("request-progress-token-long", RuleId.REQUEST_NO_PROGRESS_TOKEN) == []


def test_the_unanswered_server_request_names_the_requests_behind_it() -> None:
    (sentence,) = messages("pairing-server-request-unanswered", RuleId.PAIRING_SERVER_REQUEST_UNANSWERED)
    assert sentence == (
        "the client never answered the server's roots/list (id 0); sent after it and never answered "
        "either: tools/list (id 1), tools/call (id 2)"
    )


def test_failed_to_connect_gives_the_exit_code_command_and_last_stderr_lines_visibly() -> None:
    (sentence,) = messages("lifecycle-failed-to-connect", RuleId.LIFECYCLE_FAILED_TO_CONNECT)
    assert sentence == (
        "the server exited before its first reply (exit code 1); command: node handwritten/server.ts; "
        "its last stderr lines: Error: Cannot find module 'zod' |   code: 'MODULE_NOT_FOUND' \\x1b[31m | "
        "Node.js v22.11.0"
    )
    (never,) = messages("lifecycle-never-started", RuleId.LIFECYCLE_FAILED_TO_CONNECT)
    assert never == (
        "the server never started: No such file or directory (exit code 127); command: no-such-cmd --stdio"
    )
    (failed,) = analyze("lifecycle-failed-to-connect").exchanges
    assert failed.state is ExchangeState.UNANSWERED  # given up with the server, in the one finding


def test_version_sentences() -> None:
    (never,) = messages("version-rejected-not-retried", RuleId.VERSION_REJECTED_NOT_RETRIED)
    assert never == (
        "the server rejected the version of server/discover (id 1) (it lists ['2026-07-28']) "
        "and the client never retried"
    )
    (unlisted,) = messages("version-retried-unlisted", RuleId.VERSION_REJECTED_NOT_RETRIED)
    assert (
        unlisted
        == "the client retried with '2025-02-02', which the server did not list (it lists ['2026-07-28'] at seq 2)"
    )


def test_a_request_method_without_an_id_is_named_either_way() -> None:
    a = analyze("request-sent-as-notification")
    found = [(f.seq, f.stream, f.message) for f in a.findings]
    assert [(seq, str(stream)) for seq, stream, _ in found] == [(1, "c2s"), (4, "s2c")]
    assert found[0][2] == "tools/list was sent without an id: a notification, which nobody answers"
