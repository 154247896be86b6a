"""The legacy era: `initialize`, `notifications/initialized`, then requests without _meta.

A server that speaks only 2026-07-28 rejects initialize; it SHOULD name the
versions it does support in that error, and the rest of the era is skipped.
The second initialize comes last, so that whatever it does to the server's
state cannot change what the other probes see.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from mcpspy.analysis.model import Severity
from mcpspy.check.client import Driver
from mcpspy.check.features import LIST_CHECKS, call_tools, check_lists
from mcpspy.check.model import Era, Evidence, Problem, Status, Verdict
from mcpspy.check.scenarios import batch_refused, set_level
from mcpspy.check.script import CLIENT_INFO, STARTUP_FACTOR, Options, Script
from mcpspy.jsonutil.quote import SHOWN, cut, shown

E, W = Severity.ERROR, Severity.WARNING
ASKED = "2025-11-25"
LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSION = re.compile(r"20(2[6-9]|[3-9]\d)-\d\d-\d\d")  # a version after the legacy ones


def initialize_params() -> dict[str, Any]:
    return {"protocolVersion": ASKED, "capabilities": {}, "clientInfo": CLIENT_INFO}


def answer_server_request(request: dict[str, Any]) -> bytes:
    """A legacy client answers the server's requests: ping with {}, the rest it does not offer."""
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request.get("id")}
    if request.get("method") == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"the check's client offers no {request.get('method')}"}
    return orjson.dumps(reply)


class LegacyScript(Script):
    era = Era.LEGACY

    def __init__(self, driver: Driver, options: Options) -> None:
        super().__init__(driver, options)
        driver.answer_server_request = answer_server_request

    def sentinel(self) -> tuple[str, dict[str, Any]]:
        return "ping", {}

    def run(self) -> None:
        capabilities = self.initialize()  # None: not spoken; every later step is skipped with the reason
        notification = {"jsonrpc": "2.0", "method": "notifications/mcpspy/probe", "params": {}}
        method, params = self.sentinel()
        self.run_steps(
            [
                (("initialize.initialized",), self.initialized),
                (("ping.answered",), self.ping),
                (LIST_CHECKS, lambda: check_lists(self, capabilities or {}, None)),
                (("method.unknown",), lambda: self.unknown_method(None)),
                (
                    ("notification.unanswered",),
                    lambda: self.unanswered_notification(
                        "notification.unanswered", self.encode(notification), "a notification"
                    ),
                ),
                (("robust.parse-error", "robust.after-malformed"), self.malformed_line),
                (("robust.long-line",), lambda: self.long_line(method, params)),
                (("robust.id-type",), lambda: self.odd_id(method, params)),
                (("robust.string-id",), lambda: self.string_id(method, params)),
                (("pipeline.ten",), lambda: self.pipelined(method, params)),
                (("cancel.in-flight",), lambda: self.cancel_in_flight(method, params)),
                (("jsonrpc.batch-refused",), lambda: batch_refused(self, method, params)),
                (("logging.set-level",), lambda: set_level(self, capabilities or {})),
            ]
        )
        call_tools(self, self.tools, None)
        self.run_steps([(("initialize.second",), self.second_initialize)])

    def initialize(self) -> dict[str, Any] | None:
        """initialize; the server's capabilities, or None when it does not speak this era."""
        waited = self.timeout * STARTUP_FACTOR
        with self.step("initialize.result") as verdict:
            sent = self.request("initialize", initialize_params(), timeout=waited)
            if sent.reply is None:
                self._not_spoken(
                    verdict, f"initialize got {self.d.no_reply_reason(waited)}", sent.evidence, named=False
                )
                return None
            if sent.error is not None:
                said = f"initialize got error {shown(sent.code)} ({shown(sent.error.get('message'))})"
                named = MODERN_VERSION.search(str(sent.error)) is not None
                self._not_spoken(verdict, said, sent.reply.evidence, named)
                return None
            result, evidence = sent.result, sent.reply.evidence
            if not isinstance(result, dict):
                verdict.problems.append(Problem(E, "the initialize result is not an object", evidence))
                return {}
            version = result.get("protocolVersion")
            if version not in LEGACY_VERSIONS:
                verdict.problems.append(
                    Problem(
                        E,
                        f"initialize chose protocolVersion {shown(version)}, no revision with initialize",
                        evidence,
                    )
                )
            capabilities = result.get("capabilities")
            if not isinstance(capabilities, dict):
                verdict.problems.append(
                    Problem(E, "the initialize result has no capabilities object", evidence)
                )
                capabilities = {}
            info = result.get("serverInfo")
            if not (isinstance(info, dict) and isinstance(info.get("name"), str)):
                verdict.problems.append(
                    Problem(E, "the initialize result has no serverInfo with a name", evidence)
                )
            chose = "as asked" if version == ASKED else f"(asked for {ASKED})"
            declared = ", ".join(sorted(capabilities)) or "none"
            verdict.message = f"protocol {shown(version)} {chose}; capabilities: {cut(declared, SHOWN)}"
            return capabilities

    def _not_spoken(self, verdict: Verdict, said: str, evidence: Evidence, named: bool) -> None:
        if self.options.explicit:
            verdict.message = f"{said}: the server does not speak the legacy era, which was asked for"
            verdict.problems.append(Problem(E, verdict.message, evidence))
        elif "no reply" in said:
            verdict.message = f"{said}: a server SHOULD answer initialize, with an error if it is modern-only"
            verdict.problems.append(Problem(W, verdict.message, evidence))
        elif named:
            verdict.status = Status.SKIP
            verdict.message = f"{said}: a 2026-07-28-only server"
        else:
            verdict.message = (
                f"{said}: a modern-only server SHOULD name the versions it supports in that error"
            )
            verdict.problems.append(Problem(W, verdict.message, evidence))
        self.stopped = "the server does not speak the legacy era (see initialize.result)"

    def initialized(self) -> None:
        line = self.encode({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.unanswered_notification("initialize.initialized", line, "notifications/initialized")

    def ping(self) -> None:
        with self.step("ping.answered") as verdict:
            sent = self.request("ping", None)
            if sent.reply is None:
                self.no_reply(verdict, sent, "ping")
            elif sent.error is not None:
                verdict.message = (
                    f"ping got error {shown(sent.code)}; the receiver MUST answer with an empty result"
                )
                verdict.problems.append(Problem(E, verdict.message, sent.reply.evidence))
            elif sent.result != {}:
                verdict.message = "ping got a non-empty result; it MUST be empty, {}"
                verdict.problems.append(Problem(W, verdict.message, sent.reply.evidence))
            else:
                verdict.message = "ping got {}"

    def second_initialize(self) -> None:
        with self.step("initialize.second") as verdict:
            sent = self.request("initialize", initialize_params())
            if sent.reply is None:
                verdict.message = "a second initialize got no reply"
                verdict.problems.append(Problem(W, verdict.message, sent.evidence))
            else:
                what = f"error {shown(sent.code)}" if sent.error is not None else "a result"
                verdict.message = f"a second initialize got {what}"
            if self.serving(verdict, "a second initialize"):
                verdict.message += "; the server kept serving"
