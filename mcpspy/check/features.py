"""The server's own features, in either era: the lists it declared, and the tools named with --call.

Lists are asked for only when the server declared the capability (a server
need not implement what it did not declare); tools are called only when the
user names them, since a tool can have side effects.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from mcpspy.analysis.model import Severity
from mcpspy.check.client import Received
from mcpspy.check.model import Evidence, Problem, Status, Verdict
from mcpspy.check.outputs import mismatches
from mcpspy.check.script import STARTUP_FACTOR, Script, Sent
from mcpspy.check.shapes import CAPABILITY, LISTS, call_problems, names, page_problems
from mcpspy.jsonutil.quote import shown

MAX_PAGES = 5
LIST_CHECKS = tuple(f"list.{kind}" for kind in LISTS)


def check_lists(script: Script, capabilities: dict[str, Any], params: dict[str, Any] | None) -> None:
    """One check per list; the tools listed are kept on the script (for --call)."""
    for kind, (method, field, _) in LISTS.items():
        check_id = f"list.{kind}"
        if script.skip_rest([check_id]):
            continue
        if CAPABILITY[kind] not in capabilities:
            script.unsent(check_id, f"the server declared no {CAPABILITY[kind]} capability")
            continue
        items = _list(script, check_id, kind, method, field, params)
        if kind == "tools":
            script.tools = items


def _list(
    script: Script, check_id: str, kind: str, method: str, field: str, params: dict[str, Any] | None
) -> list[Any]:
    modern = params is not None
    items: list[Any] = []
    with script.step(check_id) as verdict:
        cursor: Any = None
        pages = 0
        while pages < MAX_PAGES:
            pages += 1
            page_params = dict(params or {})
            if cursor is not None:
                page_params["cursor"] = cursor
            sent = script.request(method, page_params or None)
            if sent.reply is None:
                script.no_reply(verdict, sent, method)
                return items
            if sent.error is not None:
                verdict.message = (
                    f"the server declared {CAPABILITY[kind]} but {method} got error {shown(sent.code)}"
                )
                verdict.problems.append(Problem(Severity.ERROR, verdict.message, sent.reply.evidence))
                return items
            problems, page_items = page_problems(kind, sent.result)
            verdict.problems += [Problem(sev, text, sent.reply.evidence) for sev, text in problems]
            items += page_items
            result = sent.result if isinstance(sent.result, dict) else {}
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                break
        more = f" (more pages after {MAX_PAGES}; not followed)" if isinstance(cursor, str) else ""
        listed = f": {names(items)}" if items else ""
        cache = ""
        if modern and isinstance(sent.result, dict):
            cache = cache_text(sent.result)
        verdict.message = f"{len(items)} {field} in {pages} page(s){listed}{cache}{more}"
    return items


def cache_text(result: dict[str, Any]) -> str:
    if "ttlMs" not in result and "cacheScope" not in result:
        return "; no cache hints"
    return f"; cached {shown(result.get('ttlMs'))} ms ({shown(result.get('cacheScope'))})"


#: Checks made of each tool named with --call, besides tools.call itself.
CALL_CHECKS = ("progress.notifications", "tools.structured-content", "mrtr.retry")
MAX_ROUNDS = 3  # input_required rounds answered before the retry is given up
#: What the check's client answers to each kind of input a 2026-07-28 server asks for (MRTR).
ANSWERS: dict[str, dict[str, Any]] = {
    "elicitation/create": {"action": "decline"},
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": "mcpspy check"},
        "model": "mcpspy-check",
        "stopReason": "endTurn",
    },
    "roots/list": {"roots": []},
}
#: The conformance suite's check for a complete result after a retry, by the kind of input asked.
MRTR_SUITE = {
    "elicitation/create": "input-required-result-elicitation-complete",
    "sampling/createMessage": "input-required-result-sampling-complete",
    "roots/list": "input-required-result-list-roots-complete",
}


@dataclass
class Call:
    """One --call as it went: its requests (the retries too), their progress tokens, and the last result."""

    name: str
    tokens: list[str] = dataclasses.field(default_factory=list)
    result: Any = None
    #: The methods of the input asked for, round by round.
    asked: list[str] = dataclasses.field(default_factory=list)
    evidence: Evidence | None = None  # the last reply (or, unanswered, the request)


def call_tools(script: Script, tools: list[Any], meta: dict[str, Any] | None) -> None:
    """tools/call for each --call, in the order given; each asks for progress, and is judged for it,
    for its structured content, and (2026-07-28) for how it takes the input it asks for."""
    listed = {t.get("name"): t for t in tools if isinstance(t, dict)}
    if not script.options.calls:
        for check_id in CALL_CHECKS if meta is not None else CALL_CHECKS[:2]:
            script.unsent(check_id, "no tool named with --call (tools are called only when named)")
        return
    for n, (name, arguments) in enumerate(script.options.calls, start=1):
        if (halted := script.halted()) is not None:
            for check_id in ("tools.call", *(CALL_CHECKS if meta is not None else CALL_CHECKS[:2])):
                script.unsent(check_id, f"not run: {halted}").target = name
            continue
        call = Call(name)
        with script.step("tools.call", target=name) as verdict:
            sent = _call(script, call, {"name": name, "arguments": arguments}, meta, f"mcpspy-progress-{n}")
            waited = script.timeout * STARTUP_FACTOR
            if name not in listed:
                verdict.problems.append(
                    Problem(Severity.WARNING, f"{name!r} is not in the tools/list result", sent.evidence)
                )
            if sent.reply is None:
                script.no_reply(verdict, sent, f"tools/call {name!r}", waited)
            elif sent.error is not None:
                message = sent.error.get("message")
                verdict.message = f"tools/call {name!r} got error {shown(sent.code)}: {shown(message)}"
                verdict.problems.append(Problem(Severity.WARNING, verdict.message, sent.reply.evidence))
            else:
                problems = call_problems(sent.result)
                verdict.problems += [Problem(sev, text, sent.reply.evidence) for sev, text in problems]
                is_error = isinstance(sent.result, dict) and sent.result.get("isError") is True
                verdict.message = f"tools/call {name!r} answered" + (
                    " (the tool reported an error: isError)" if is_error else ""
                )
                if meta is not None:
                    _retry(script, call, arguments, meta)
            progress = [m for m in script.d.received if _method(m.payload) == "notifications/progress"]
        _progress_verdict(script, call, progress)
        _structured_verdict(script, call, listed.get(name))


def _call(
    script: Script, call: Call, params: dict[str, Any], meta: dict[str, Any] | None, token: str
) -> Sent:
    """One tools/call request with its own progress token; the call keeps its result and reply line."""
    call.tokens.append(token)
    params = {**params, "_meta": {**(meta or {}), "progressToken": token}}
    sent = script.request("tools/call", params, timeout=script.timeout * STARTUP_FACTOR)
    call.result = sent.result if sent.reply is not None and sent.error is None else None
    call.evidence = sent.reply.evidence if sent.reply is not None else sent.evidence
    return sent


def _retry(script: Script, call: Call, arguments: Any, meta: dict[str, Any]) -> None:
    """MRTR: an input_required result is retried, with an answer to each input asked, until complete."""
    if not _input_required(call.result):
        script.unsent("mrtr.retry", f"tools/call {call.name!r} asked for no input").target = call.name
        return
    with script.step("mrtr.retry", target=call.name) as verdict:
        for round_ in range(1, MAX_ROUNDS + 1):
            result = call.result
            asked = result.get("inputRequests") if isinstance(result.get("inputRequests"), dict) else {}
            answers = {}
            for key, request in asked.items():
                method = request.get("method") if isinstance(request, dict) else None
                if method in ANSWERS:
                    answers[key] = ANSWERS[method]
                    call.asked.append(method)
            retry = {"name": call.name, "arguments": arguments, "inputResponses": answers}
            if "requestState" in result:
                retry["requestState"] = result["requestState"]
            sent = _call(script, call, retry, meta, f"{call.tokens[0]}-retry-{round_}")
            if sent.reply is None:
                script.no_reply(verdict, sent, f"the retry of tools/call {call.name!r}")
                return
            if sent.error is not None:
                verdict.message = f"the retry of tools/call {call.name!r} got error {shown(sent.code)}"
                verdict.problems.append(Problem(Severity.ERROR, verdict.message, sent.reply.evidence))
                return
            if not _input_required(call.result):
                kinds = ", ".join(dict.fromkeys(call.asked)) or "nothing a client answers"
                verdict.message = (
                    f"complete after {round_} round(s) of input ({kinds}), each retried with a new id"
                )
                verdict.conformance = tuple(
                    dict.fromkeys(MRTR_SUITE[m] for m in call.asked if m in MRTR_SUITE)
                )
                return
        again = isinstance(call.result, dict) and call.result.get("inputRequests") == asked
        verdict.message = (
            f"tools/call {call.name!r} still asks for input after {MAX_ROUNDS} answered rounds"
            + (", the same input each time: the answers in inputResponses were not taken" if again else "")
        )
        verdict.problems.append(
            Problem(Severity.ERROR if again else Severity.WARNING, verdict.message, call.evidence)
        )


def _progress_verdict(script: Script, call: Call, progress: list[Received]) -> None:
    """The progress a call asked for: each notification carries one of its tokens, each token rising."""
    verdict = Verdict("progress.notifications", script.era, Status.PASS, "", call.name)
    script.verdicts.append(verdict)
    if not progress:
        verdict.status = Status.SKIP
        verdict.message = f"no notifications/progress for tools/call {call.name!r} (a server may send none)"
        return
    last: dict[Any, Any] = {}
    for message in progress:
        verdict.evidence.append(message.evidence)
        params = message.payload.get("params") if isinstance(message.payload, dict) else None
        params = params if isinstance(params, dict) else {}
        token, value = params.get("progressToken"), params.get("progress")
        if token not in call.tokens:
            verdict.problems.append(
                Problem(
                    Severity.ERROR,
                    f"a progress notification carries the token {shown(token)}, which "
                    f"no request in flight gave (the call's: {shown(call.tokens[0])})",
                    message.evidence,
                )
            )
            continue
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue  # the analysis says what is wrong with its shape (progress.invalid)
        if token in last and not value > last[token]:
            verdict.problems.append(
                Problem(
                    Severity.ERROR,
                    f"progress went from {shown(last[token])} to {shown(value)}: it MUST "
                    "increase with each notification",
                    message.evidence,
                )
            )
        last[token] = value
    verdict.message = (
        verdict.problems[0].sentence
        if verdict.problems
        else (f"{len(progress)} notifications/progress, each with the call's token, rising")
    )


def _structured_verdict(script: Script, call: Call, tool: Any) -> None:
    """A tool with an outputSchema returns structuredContent that fits it (outputs.py: the subset judged)."""
    verdict = Verdict("tools.structured-content", script.era, Status.PASS, "", call.name)
    script.verdicts.append(verdict)
    schema = tool.get("outputSchema") if isinstance(tool, dict) else None
    result = call.result
    if not isinstance(schema, dict):
        verdict.status, verdict.message = Status.SKIP, f"{call.name!r} declares no outputSchema"
    elif not isinstance(result, dict) or _input_required(result):
        verdict.status, verdict.message = Status.SKIP, f"tools/call {call.name!r} gave no complete result"
    elif result.get("isError") is True:
        verdict.status, verdict.message = Status.SKIP, f"tools/call {call.name!r} reported an error (isError)"
    elif "structuredContent" not in result:
        verdict.message = f"{call.name!r} declares an outputSchema but its result has no structuredContent"
        verdict.problems.append(Problem(Severity.ERROR, verdict.message, call.evidence))
    else:
        found = mismatches(result["structuredContent"], schema)
        verdict.problems += [Problem(Severity.ERROR, text, call.evidence) for text in found]
        verdict.message = (
            f"structuredContent does not fit the outputSchema: {found[0]}"
            if found
            else "structuredContent fits the outputSchema (type, properties, required, items, enum)"
        )


def _input_required(result: Any) -> bool:
    return isinstance(result, dict) and result.get("resultType") == "input_required"


def _method(payload: Any) -> Any:
    return payload.get("method") if isinstance(payload, dict) else None
