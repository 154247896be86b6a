"""The modern era (2026-07-28): no handshake, every request carries its own _meta.

The probe order matters: server/discover first (as a dual-era client probes),
so that a server that speaks only the legacy era is found out at once and the
rest is skipped with that reason rather than failed one by one.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.model import Severity
from mcpspy.check.features import LIST_CHECKS, cache_text, call_tools, check_lists
from mcpspy.check.model import Era, Problem, Status, Verdict
from mcpspy.check.scenarios import CALL_LEVEL, batch_refused, per_request_level
from mcpspy.check.script import CLIENT_INFO, STARTUP_FACTOR, Script
from mcpspy.check.shapes import Problems
from mcpspy.jsonutil.quote import SHOWN, cut, shown

E, W = Severity.ERROR, Severity.WARNING
VERSION = "2026-07-28"
KEY_VERSION = "io.modelcontextprotocol/protocolVersion"
KEY_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
KEY_CLIENT = "io.modelcontextprotocol/clientInfo"
KEY_SERVER = "io.modelcontextprotocol/serverInfo"
KEY_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
#: What the tool calls declare: the client answers every kind of input a tool may ask for (MRTR).
INPUT_CAPABILITIES: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}
UNSUPPORTED = "1900-01-01"


def meta(**changes: Any) -> dict[str, Any]:
    """The per-request fields; a change to None leaves that key out."""
    fields: dict[str, Any] = {KEY_VERSION: VERSION, KEY_CLIENT: CLIENT_INFO, KEY_CAPABILITIES: {}}
    fields.update(changes)
    return {key: value for key, value in fields.items() if value is not None}


class ModernScript(Script):
    era = Era.MODERN

    def sentinel(self) -> tuple[str, dict[str, Any]]:
        return "server/discover", {"_meta": meta()}

    def run(self) -> None:
        capabilities = self.discover()  # None: not spoken; every later step is skipped with the reason
        notification = {"jsonrpc": "2.0", "method": "notifications/mcpspy/probe", "params": {}}
        idless = {"jsonrpc": "2.0", "method": "server/discover", "params": {"_meta": meta()}}
        method, params = self.sentinel()
        self.run_steps(
            [
                (("meta.client-info-optional",), self.client_info_optional),
                (LIST_CHECKS, lambda: check_lists(self, capabilities or {}, {"_meta": meta()})),
                (("meta.missing",), self.meta_missing),
                (("meta.capabilities-null",), self.capabilities_null),
                (("version.unsupported",), self.unsupported_version),
                (("method.unknown",), lambda: self.unknown_method({"_meta": meta()})),
                (("ping.removed",), self.ping_removed),
                (
                    ("notification.unanswered",),
                    lambda: self.unanswered_notification(
                        "notification.unanswered", self.encode(notification), "a notification"
                    ),
                ),
                (
                    ("notification.request-shaped",),
                    lambda: self.unanswered_notification(
                        "notification.request-shaped",
                        self.encode(idless),
                        "server/discover sent without an id",
                    ),
                ),
                (("robust.parse-error", "robust.after-malformed"), self.malformed_line),
                (("robust.long-line",), lambda: self.long_line(method, params)),
                (("robust.id-type",), lambda: self.odd_id(method, params)),
                (("robust.string-id",), lambda: self.string_id(method, params)),
                (("pipeline.ten",), lambda: self.pipelined(method, params)),
                (("cancel.in-flight",), lambda: self.cancel_in_flight(method, params)),
                (("jsonrpc.batch-refused",), lambda: batch_refused(self, method, params)),
                (("logging.per-request",), lambda: per_request_level(self, capabilities or {}, meta())),
            ]
        )
        logs = "logging" in (capabilities or {})  # the calls run at a level: a message below it is a fault
        call_tools(
            self,
            self.tools,
            meta(**{KEY_CAPABILITIES: INPUT_CAPABILITIES, KEY_LOG_LEVEL: CALL_LEVEL if logs else None}),
        )

    # --- the steps

    def discover(self) -> dict[str, Any] | None:
        """server/discover; the server's capabilities, or None when it does not speak this era."""
        waited = self.timeout * STARTUP_FACTOR
        with self.step("discover.result") as verdict:
            sent = self.request("server/discover", {"_meta": meta()}, timeout=waited)
            if sent.reply is None:
                self._not_spoken(
                    verdict, f"server/discover got {self.d.no_reply_reason(waited)}", sent.evidence
                )
                return None
            if sent.error is not None:
                said = f"server/discover got error {shown(sent.code)} ({shown(sent.error.get('message'))})"
                if sent.code == -32601 and not self.options.explicit and self._served_anyway():
                    verdict.message = (
                        f"{said}, yet a {VERSION} tools/list was served: a {VERSION} server must implement "
                        "server/discover (discover.not-implemented), it is not a legacy-only server"
                    )
                    verdict.problems.append(Problem(E, verdict.message, sent.reply.evidence))
                    return {}
                self._not_spoken(verdict, said, sent.reply.evidence)
                return None
            result = sent.result
            if not isinstance(result, dict):
                verdict.problems.append(
                    Problem(E, "the server/discover result is not an object", sent.reply.evidence)
                )
                return {}
            problems: Problems = []  # resultType, caching hints, version.unlisted: the analysis's rules
            versions = result.get("supportedVersions")
            if not (isinstance(versions, list) and versions and all(isinstance(v, str) for v in versions)):
                problems.append((E, f"supportedVersions is {shown(versions)}, not a list of version strings"))
            capabilities = result.get("capabilities")
            if not isinstance(capabilities, dict):
                problems.append((E, "the server/discover result has no capabilities object"))
                capabilities = {}
            info = result.get("_meta", {}).get(KEY_SERVER) if isinstance(result.get("_meta"), dict) else None
            if not isinstance(info, dict):
                problems.append(
                    (W, f"no {KEY_SERVER} in the result's _meta (servers SHOULD name themselves)")
                )
            verdict.problems += [Problem(sev, text, sent.reply.evidence) for sev, text in problems]
            declared = ", ".join(sorted(capabilities)) or "none"
            verdict.message = (
                f"supports {shown(versions)}; capabilities: {cut(declared, SHOWN)}{cache_text(result)}"
            )
            return capabilities

    def _served_anyway(self) -> bool:
        """After -32601 to server/discover, one 2026-07-28 request anyway: is the era served without it?"""
        sent = self.request("tools/list", {"_meta": meta()})
        # A legacy server may answer tools/list without a handshake; only a 2026-07-28 result says
        # resultType (the TypeScript SDK 1.x's server-everything answers, and is legacy-only).
        return isinstance(sent.result, dict) and "resultType" in sent.result

    def _not_spoken(self, verdict: Verdict, said: str, evidence: Any) -> None:
        """The server does not answer server/discover: a legacy server, unless this era was asked for."""
        if self.options.explicit:
            verdict.message = f"{said}: servers MUST implement server/discover"
            verdict.problems.append(Problem(E, verdict.message, evidence))
        elif "no reply" in said:
            verdict.message = f"{said}: a legacy-only server may stay silent, a {VERSION} server must answer"
            verdict.problems.append(Problem(W, verdict.message, evidence))
        else:
            verdict.status = Status.SKIP
            verdict.message = f"{said}: the server does not speak {VERSION} (a legacy-only server)"
        self.stopped = f"the server does not speak {VERSION} (see discover.result)"

    def client_info_optional(self) -> None:
        with self.step("meta.client-info-optional") as verdict:
            sent = self.request("server/discover", {"_meta": meta(**{KEY_CLIENT: None})})
            if sent.reply is None:
                self.no_reply(verdict, sent, "server/discover without clientInfo")
            elif sent.error is not None:
                verdict.message = (
                    f"server/discover without clientInfo got error {shown(sent.code)}; clientInfo is optional"
                )
                verdict.problems.append(Problem(E, verdict.message, sent.reply.evidence))
            else:
                verdict.message = "served a request whose _meta has no clientInfo"

    def meta_missing(self) -> None:
        self._must_reject("meta.missing", {}, "server/discover without _meta", -32602)

    def capabilities_null(self) -> None:
        params = {"_meta": {**meta(), KEY_CAPABILITIES: None}}
        self._must_reject(
            "meta.capabilities-null", params, "server/discover with clientCapabilities: null", -32602
        )

    def _must_reject(self, check_id: str, params: dict[str, Any], what: str, code: int) -> None:
        with self.step(check_id) as verdict:
            sent = self.request("server/discover", params)
            self.judge_rejection(verdict, sent, what, code, "Invalid params")

    def unsupported_version(self) -> None:
        with self.step("version.unsupported") as verdict:
            sent = self.request("server/discover", {"_meta": meta(**{KEY_VERSION: UNSUPPORTED})})
            what = f"a request in version {UNSUPPORTED}"
            if not self.judge_rejection(verdict, sent, what, -32022, "UnsupportedProtocolVersion"):
                return
            assert sent.error is not None and sent.reply is not None
            evidence = sent.reply.evidence
            data = sent.error.get("data")
            data = data if isinstance(data, dict) else {}
            supported, requested = data.get("supported"), data.get("requested")
            if not (isinstance(supported, list) and supported and all(isinstance(v, str) for v in supported)):
                verdict.problems.append(
                    Problem(E, "-32022 without a data.supported list of versions", evidence)
                )
            elif UNSUPPORTED in supported:
                verdict.problems.append(Problem(W, f"-32022 lists {UNSUPPORTED} as supported", evidence))
            if not isinstance(requested, str):
                verdict.problems.append(Problem(E, "-32022 without data.requested", evidence))
            elif requested != UNSUPPORTED:
                verdict.problems.append(
                    Problem(W, f"-32022 names {requested!r} as requested, not {UNSUPPORTED}", evidence)
                )
            verdict.message = f"{what} got -32022 (supported: {shown(supported)})"

    def ping_removed(self) -> None:
        with self.step("ping.removed") as verdict:
            sent = self.request("ping", {"_meta": meta()})
            if sent.reply is None:
                verdict.message = "ping got no reply; a 2026-07-28 server answers it with -32601"
                verdict.problems.append(Problem(W, verdict.message, sent.evidence))
            elif sent.code == -32601:
                verdict.message = "ping got -32601: removed in 2026-07-28"
            else:
                got = f"error {shown(sent.code)}" if sent.error is not None else "a result"
                verdict.message = f"ping got {got}; ping was removed in 2026-07-28 (expected -32601)"
                verdict.problems.append(Problem(W, verdict.message, sent.reply.evidence))
