"""The script's machinery, and the probes both eras share (framing and robustness).

A step sends its lines, waits for what it needs, and leaves a Verdict with
the problems it saw. Everything the server wrote while a step ran belongs to
that step (its window): the passive findings on those lines are routed to it.
Once the server stops answering, later steps are skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from mcpspy import __version__
from mcpspy.analysis.model import Severity
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.capture.records import Stream
from mcpspy.check.client import Driver, Received
from mcpspy.check.model import Era, Evidence, Problem, Status, Verdict
from mcpspy.jsonutil.quote import shown

E, W = Severity.ERROR, Severity.WARNING
CLIENT_INFO = {"name": "mcpspy-check", "version": __version__}
STARTUP_FACTOR = 10  # step timeouts for the first reply (a server starting up) and a tool call
LONG_LINE = 1 << 20  # bytes of padding in the long-line probe
PADDING_KEY = "dev.mcpspy/padding"
UNKNOWN_METHOD = "mcpspy/no-such-method"
PIPELINED = 10
STRING_ID = "9007"  # a string that reads as a number: the id a server that coerces ids gets wrong


@dataclass(frozen=True)
class Options:
    timeout: float = 3.0  # seconds each step waits for a reply
    explicit: bool = False  # the user asked for this era alone: not speaking it is a failure
    calls: tuple[tuple[str, Any], ...] = ()  # (tool name, arguments) from --call
    max_time: float | None = None  # seconds for the whole check (None: default_max_time)

    @property
    def time_bound(self) -> float:
        return self.max_time if self.max_time is not None else default_max_time(self.timeout, len(self.calls))


MAX_TIME_FACTOR = 40  # step timeouts the whole check may take by default (a few dozen steps, each bounded)


def default_max_time(timeout: float, calls: int) -> float:
    """--max-time's default: 40 step timeouts, and the ten each --call may take."""
    return timeout * (MAX_TIME_FACTOR + STARTUP_FACTOR * calls)


@dataclass
class Sent:
    """A request the script sent and what became of it."""

    id: Any
    evidence: Evidence
    reply: Received | None = None

    @property
    def result(self) -> Any:
        return self.reply.payload.get("result") if self.reply is not None else None

    @property
    def error(self) -> dict[str, Any] | None:
        error = self.reply.payload.get("error") if self.reply is not None else None
        return error if isinstance(error, dict) else None

    @property
    def code(self) -> Any:
        return self.reply.error_code if self.reply is not None else None


class Script:
    """One era's scripted client. Subclasses give the sentinel request and the steps."""

    era: Era

    def __init__(self, driver: Driver, options: Options) -> None:
        self.d = driver
        self.options = options
        self.timeout = options.timeout
        self.verdicts: list[Verdict] = []
        self.excused: set[tuple[RuleId, Evidence]] = set()  # (rule id, line): findings about our own probes
        self.stopped: str | None = None  # why later steps are skipped
        self.stopped_by: Verdict | None = None  # the check during which the server stopped
        self.tools: list[Any] = []  # what tools/list gave, for --call
        self.sent_ids: list[Any] = []  # every request id sent: replies to them are owed, even after EOF
        self.eof_ordinal: int | None = None  # the first stdout line read after stdin was closed
        self.eof_delivered = False  # everything sent was written and stdin closed (the server read it all)
        self.cut_short = False  # the era ended early (a flood, or the check's time ran out): no EOF judged
        self._next_id = 0
        self._depth = 0  # steps inside steps: only the outermost opens a window

    # --- what subclasses provide

    def sentinel(self) -> tuple[str, dict[str, Any]]:
        """A request the server must answer in this era: proof that it is still serving."""
        raise NotImplementedError

    def run(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """End of file on the server's stdin: the script is done."""
        self.cut_short = self.cut() is not None
        self.d.begin_window("the exit")
        self.eof_ordinal = self.d.lines_read
        self.d.close_stdin()

    def cut(self) -> str | None:
        """Why the era ends here whatever the server does next: it flooded, or the check's time ran out."""
        if self.d.flood is not None:
            return self.d.flood.sentence
        if self.d.out_of_time:
            return f"the check's time ran out (--max-time {self.options.time_bound:g})"
        return None

    def halted(self) -> str | None:
        """Why the remaining steps are not run, if they are not."""
        return self.cut() or self.stopped

    def run_steps(self, steps: Sequence[tuple[tuple[str, ...], Callable[[], None]]]) -> None:
        """Each step with the checks it makes: skipped together once the server has stopped."""
        for checks, step in steps:
            if not self.skip_rest(checks):
                step()

    # --- building blocks

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def encode(self, message: dict[str, Any]) -> bytes:
        return orjson.dumps(message)

    def request_line(self, method: str, params: dict[str, Any] | None, request_id: Any) -> bytes:
        self.sent_ids.append(request_id)
        self.d.want(request_id)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        return self.encode(message)

    def request(
        self, method: str, params: dict[str, Any] | None, timeout: float | None = None, request_id: Any = None
    ) -> Sent:
        request_id = self.new_id() if request_id is None else request_id
        [evidence] = self.d.send([self.request_line(method, params, request_id)])
        reply = self.d.wait_reply(request_id, self.timeout if timeout is None else timeout)
        return Sent(request_id, evidence, reply)

    def notify(self, method: str, params: dict[str, Any] | None) -> Evidence:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        [evidence] = self.d.send([self.encode(message)])
        return evidence

    def serving(self, verdict: Verdict, after: str) -> bool:
        """Send the sentinel; a reply proves the server still serves. Stops the script if not."""
        method, params = self.sentinel()
        sent = self.request(method, params)
        if sent.reply is not None:
            return True
        if self.cut() is not None:
            return False  # the step is not judged (see step)
        if self.d.stdout_closed.is_set():
            said = f"the server closed its stdout after {after}: {method} got no reply"
        else:
            said = (
                f"{method} got no reply in {self.timeout:g}s after {after}, though the server still runs "
                "(stuck, or it lost the line)"
            )
        verdict.problems.append(Problem(E, said, sent.evidence))
        self.stopped = f"the server stopped answering during {verdict.check_id}"
        self.stopped_by = verdict
        return False

    def anonymous(self, owner: str) -> list[Received]:
        """Replies without an id put down to ``owner``."""
        return [m for m in self.d.received if m.anonymous and m.owner == owner]

    def unsent(self, check_id: str, reason: str, status: Status = Status.SKIP) -> Verdict:
        verdict = Verdict(check_id, self.era, status, reason)
        self.verdicts.append(verdict)
        return verdict

    @contextmanager
    def step(self, check_id: str, target: str | None = None) -> Iterator[Verdict]:
        """A check's window: every line sent or read while it runs is its evidence.

        The outermost step opens the driver's window: what it keeps of the server's lines,
        and what it counts toward a flood. A step that the time running out, or a flood, cut
        short is not judged: it is skipped with the reason (the flood has a check of its own).
        """
        verdict = Verdict(check_id, self.era, Status.PASS, "", target)
        self.verdicts.append(verdict)
        if self._depth == 0:
            self.d.begin_window(check_id)
        self._depth += 1
        sent_from, read_from = self.d.lines_sent, self.d.lines_read
        try:
            yield verdict
        finally:
            self._depth -= 1
            verdict.evidence += [Evidence(Stream.C2S, i) for i in range(sent_from, self.d.lines_sent)]
            verdict.evidence += [Evidence(Stream.S2C, i) for i in range(read_from, self.d.lines_read)]
            cut = self.cut()
            if cut is not None:
                verdict.status, verdict.message, verdict.problems = Status.SKIP, f"not finished: {cut}", []

    def skip_rest(self, check_ids: Sequence[str]) -> bool:
        """When the server has stopped, the remaining checks are skipped (True)."""
        if self.halted() is None:
            return False
        for check_id in check_ids:
            self.unsent(check_id, f"not run: {self.halted()}")
        return True

    def no_reply(self, verdict: Verdict, sent: Sent, what: str, timeout: float | None = None) -> None:
        waited = self.timeout if timeout is None else timeout
        reason = self.d.no_reply_reason(waited)
        verdict.problems.append(Problem(E, f"{what} got {reason}", sent.evidence))
        verdict.message = f"no reply to {what}"

    def judge_rejection(self, verdict: Verdict, sent: Sent, what: str, code: int, name: str) -> bool:
        """The verdict on a request that must be rejected with error `code`: True when it was."""
        if sent.reply is None:
            self.no_reply(verdict, sent, what)
            return False
        if sent.error is None:
            verdict.message = f"{what} was answered instead of rejected with {code}"
        elif sent.code != code:
            verdict.message = f"{what} got error {shown(sent.code)}, not {code} ({name})"
        else:
            verdict.message = f"{what} was rejected with {code}"
            return True
        verdict.problems.append(Problem(E, verdict.message, sent.reply.evidence))
        return False

    # --- probes both eras run

    def unanswered_notification(self, check_id: str, line: bytes, what: str) -> None:
        """A message without an id must get nothing back."""
        with self.step(check_id) as verdict:
            self.d.expect_anonymous(check_id)
            self.d.send([line])
            if not self.serving(verdict, what):
                verdict.message = f"stopped serving after {what}"
                return
            answers = self.anonymous(check_id)
            for answer in answers:
                verdict.problems.append(Problem(E, f"the server answered {what}", answer.evidence))
            verdict.message = f"the server answered {what}" if answers else f"{what}: no reply, as required"

    def malformed_line(self) -> None:
        with self.step("robust.parse-error") as parse_error:
            self.d.expect_anonymous("robust.parse-error")
            [sent] = self.d.send([b"hello server"])
            with self.step("robust.after-malformed") as after:
                alive = self.serving(after, "the line 'hello server'")
                after.message = "still serving after a malformed line" if alive else "stopped serving"
        answers = self.anonymous("robust.parse-error")
        codes = [a.error_code for a in answers]
        if -32700 in codes:
            parse_error.message = "'hello server' got -32700 with a null id"
        elif answers:
            parse_error.message = f"'hello server' got error {shown(codes[0])}, not -32700"
            parse_error.problems.append(Problem(W, parse_error.message, answers[0].evidence))
        else:
            parse_error.message = "'hello server' got no reply; JSON-RPC 2.0 answers it with -32700"
            parse_error.problems.append(Problem(W, parse_error.message, sent))

    def long_line(self, method: str, params: dict[str, Any]) -> None:
        with self.step("robust.long-line") as verdict:
            padded = dict(params)
            padded["_meta"] = {**params.get("_meta", {}), PADDING_KEY: "x" * LONG_LINE}
            sent = self.request(method, padded)
            if not self.serving(verdict, "a 1 MiB request"):
                verdict.message = "stopped serving after a 1 MiB request"
            elif sent.reply is None:
                verdict.message = f"the 1 MiB {method} got no reply, though the next request did"
                verdict.problems.append(Problem(W, verdict.message, sent.evidence))
            else:
                verdict.message = f"answered a 1 MiB {method}"

    def odd_id(self, method: str, params: dict[str, Any]) -> None:
        odd = {"mcpspy": 1}
        with self.step("robust.id-type") as verdict:
            self.d.expect_anonymous("robust.id-type")
            self.d.send([self.request_line(method, params, odd)])
            if not self.serving(verdict, "a request with an object as its id"):
                verdict.message = "stopped serving after a request with an object id"
                return
            echo = self.d.reply(odd)
            answers = self.anonymous("robust.id-type")
            if echo is not None:
                verdict.message = "echoed the object id; JSON-RPC 2.0 answers -32600 with a null id"
                verdict.problems.append(Problem(W, verdict.message, echo.evidence))
                self.excused |= {
                    (RuleId.JSONRPC_ID_TYPE, echo.evidence),
                    (RuleId.PAIRING_UNKNOWN_ID, echo.evidence),
                }
            elif answers:
                verdict.message = (
                    f"answered with error {shown(answers[0].error_code)} and a null id, then kept serving"
                )
            else:
                verdict.message = "ignored the request with an object id and kept serving"

    def string_id(self, method: str, params: dict[str, Any]) -> None:
        """A client may use string ids: the reply must carry the string, not a number read from it."""
        with self.step("robust.string-id") as verdict:
            self.d.want(int(STRING_ID))  # the reply of a server that coerces ids
            sent = self.request(method, params, request_id=STRING_ID)
            if sent.reply is not None:
                verdict.message = f'answered the string id "{STRING_ID}" with the same string'
                return
            coerced = self.d.reply(int(STRING_ID))
            if coerced is None:
                self.no_reply(verdict, sent, f'{method} with the string id "{STRING_ID}"')
                return
            verdict.message = (
                f'echoed the string id "{STRING_ID}" as the number {STRING_ID}: a client that uses '
                "string ids never gets its reply"
            )
            verdict.problems.append(Problem(E, verdict.message, coerced.evidence))
            self.excused |= {(RuleId.PAIRING_UNKNOWN_ID, coerced.evidence)}

    def pipelined(self, method: str, params: dict[str, Any]) -> None:
        """Ten requests in one write: even ones must succeed, odd ones get -32601; each by its id."""
        with self.step("pipeline.ten") as verdict:
            ids = [self.new_id() for _ in range(PIPELINED)]
            lines = [
                self.request_line(method, params, i)
                if n % 2 == 0
                else self.request_line(UNKNOWN_METHOD, params, i)
                for n, i in enumerate(ids)
            ]
            evidence = self.d.send(lines)
            replies = self.d.wait_replies(ids, self.timeout)
            missing = [(i, e) for i, e in zip(ids, evidence, strict=True) if self.d.reply(i) is None]
            wrong = []
            for n, request_id in enumerate(ids):
                reply = self.d.reply(request_id)
                if reply is not None and (("error" in reply.payload) != (n % 2 == 1)):
                    wrong.append((request_id, reply))
            for request_id, sent_line in missing:
                verdict.problems.append(Problem(E, f"no reply to pipelined id {request_id}", sent_line))
            for request_id, reply in wrong:
                verdict.problems.append(
                    Problem(E, f"the reply to id {request_id} answers a different request", reply.evidence)
                )
            verdict.message = f"{len(replies)} of {PIPELINED} pipelined requests answered"
            if wrong:
                verdict.message += f", {len(wrong)} with the reply to another request"
            elif not missing:
                verdict.message += ", each by its id"
            if not replies and self.d.stdout_closed.is_set():
                self.stopped = "the server closed its stdout during pipeline.ten"

    def cancel_in_flight(self, method: str, params: dict[str, Any]) -> None:
        """A request and its cancel in one write: the cancel must get no reply; the server goes on."""
        with self.step("cancel.in-flight") as verdict:
            target = self.new_id()
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": target, "reason": "mcpspy check: a cancel probe"},
            }
            self.d.expect_anonymous("cancel.in-flight")
            self.d.send([self.request_line(method, params, target), self.encode(cancel)])
            if not self.serving(verdict, "a cancel"):
                verdict.message = "stopped serving after a cancel"
                return
            answers = self.anonymous("cancel.in-flight")
            for answer in answers:
                verdict.problems.append(
                    Problem(E, "the server answered the cancel notification", answer.evidence)
                )
            reply = self.d.reply(target)
            if reply is not None:
                self.excused.add((RuleId.PAIRING_REPLY_AFTER_CANCEL, reply.evidence))
                verdict.message = (
                    f"the cancelled {method} was answered before the cancel took effect (a race the spec "
                    "allows); the server kept serving"
                )
            else:
                verdict.message = f"the cancelled {method} got no reply, as asked; the server kept serving"
            if answers:
                verdict.message = "the server answered the cancel notification"

    def unknown_method(self, params: dict[str, Any] | None) -> None:
        with self.step("method.unknown") as verdict:
            sent = self.request(UNKNOWN_METHOD, params)
            self.judge_rejection(verdict, sent, UNKNOWN_METHOD, -32601, "Method not found")
