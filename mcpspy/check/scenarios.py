"""Scenarios of the official conformance suite that need no tool call: a batch line, and the log level.

Each runs only when the server declared what it needs (logging); the batch,
always, since from 2025-06-18 on every server must refuse one (2024-11-05 had
no batches; 2025-03-26 allowed them, and both eras here speak a later
revision).
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.model import Severity
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.check.model import Problem
from mcpspy.check.script import Script
from mcpspy.jsonutil.quote import shown

E, W = Severity.ERROR, Severity.WARNING
NO_SUCH_LEVEL = "mcpspy-no-such-level"
CALL_LEVEL = "warning"  # the level the tool calls run at: a message below it is the server's fault


def batch_refused(script: Script, method: str, params: dict[str, Any] | None) -> None:
    """Two requests as one JSON array line: refused (an error, or nothing), never served."""
    with script.step("jsonrpc.batch-refused") as verdict:
        ids = [script.new_id(), script.new_id()]
        lines = [script.request_line(method, params, i) for i in ids]
        script.d.expect_anonymous("jsonrpc.batch-refused")
        [sent] = script.d.send([b"[" + b",".join(lines) + b"]"])
        script.excused |= {(RuleId.PAIRING_UNANSWERED, sent)}  # its requests are not owed replies

        def answered() -> list[Any]:
            return [r for i in ids if (r := script.d.reply(i)) is not None]

        def arrays() -> list[Any]:
            return [m for m in script.d.received if isinstance(m.payload, list)]

        script.d.wait_until(
            lambda: bool(answered() or arrays() or script.anonymous("jsonrpc.batch-refused")), script.timeout
        )
        served = [r for r in answered() if "result" in r.payload] + arrays()
        refusals = script.anonymous("jsonrpc.batch-refused") + [
            r for r in answered() if r.error_code is not None
        ]
        if served:
            verdict.message = (
                f"served a JSON array line ({method} x2) as a batch: batching was removed in 2025-06-18"
            )
            verdict.problems.append(Problem(E, verdict.message, served[0].evidence))
        elif refusals:
            verdict.message = f"refused a JSON array line with error {shown(refusals[0].error_code)}"
        else:
            verdict.message = (
                f"took a JSON array line silently (no reply in {script.timeout:g}s); JSON-RPC 2.0 "
                "answers an invalid request with -32600"
            )
            verdict.problems.append(Problem(W, verdict.message, sent))
        if not script.serving(verdict, "a JSON array line"):
            verdict.message = "stopped serving after a JSON array line"


def per_request_level(script: Script, capabilities: dict[str, Any], meta: dict[str, Any]) -> None:
    """2026-07-28: a request whose _meta logLevel is no level SHOULD get -32602."""
    if "logging" not in capabilities:
        script.unsent("logging.per-request", "the server declared no logging capability")
        return
    key = "io.modelcontextprotocol/logLevel"
    with script.step("logging.per-request") as verdict:
        sent = script.request("server/discover", {"_meta": {**meta, key: NO_SUCH_LEVEL}})
        what = f"server/discover with logLevel {NO_SUCH_LEVEL!r}"
        if sent.reply is None:
            script.no_reply(verdict, sent, what)
        elif sent.code == -32602:
            verdict.message = f"{what} was rejected with -32602"
        else:
            got = f"error {shown(sent.code)}" if sent.error is not None else "a result"
            verdict.message = (
                f"{what} got {got}; a server SHOULD reject a log level it does not know with -32602"
            )
            verdict.problems.append(Problem(W, verdict.message, sent.reply.evidence))


def set_level(script: Script, capabilities: dict[str, Any]) -> None:
    """Legacy: logging/setLevel with no level SHOULD get -32602; a real one, {} (the calls then run at it)."""
    if "logging" not in capabilities:
        script.unsent("logging.set-level", "the server declared no logging capability")
        return
    with script.step("logging.set-level") as verdict:
        bad = script.request("logging/setLevel", {"level": NO_SUCH_LEVEL})
        if bad.reply is not None and bad.code != -32602:
            got = f"error {shown(bad.code)}" if bad.error is not None else "a result"
            verdict.problems.append(
                Problem(W, f"logging/setLevel {NO_SUCH_LEVEL!r} got {got}, not -32602", bad.reply.evidence)
            )
        sent = script.request("logging/setLevel", {"level": CALL_LEVEL})
        if sent.reply is None:
            script.no_reply(verdict, sent, f"logging/setLevel {CALL_LEVEL!r}")
        elif sent.error is not None:
            verdict.message = (
                f"logging/setLevel {CALL_LEVEL!r} got error {shown(sent.code)}, though logging was declared"
            )
            verdict.problems.append(Problem(E, verdict.message, sent.reply.evidence))
        else:
            verdict.message = f"logging/setLevel {CALL_LEVEL!r} was answered" + (
                "" if sent.result == {} else f" with {shown(sent.result)}, not {{}}"
            )
            if verdict.problems:
                verdict.message += f"; {verdict.problems[0].sentence}"
