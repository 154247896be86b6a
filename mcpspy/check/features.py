"""The server's own features, in either era: the lists it declared, and the tools named with --call.

Lists are asked for only when the server declared the capability (a server
need not implement what it did not declare); tools are called only when the
user names them, since a tool can have side effects.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.model import Severity
from mcpspy.check.model import Problem
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


def call_tools(script: Script, tools: list[Any], meta: dict[str, Any] | None) -> None:
    """tools/call for each --call, in the order given."""
    listed = {t.get("name") for t in tools if isinstance(t, dict)}
    for name, arguments in script.options.calls:
        if (halted := script.halted()) is not None:
            script.unsent("tools.call", f"not run: {halted}").target = name
            continue
        with script.step("tools.call", target=name) as verdict:
            params: dict[str, Any] = {"name": name, "arguments": arguments}
            if meta is not None:
                params["_meta"] = meta
            waited = script.timeout * STARTUP_FACTOR
            sent: Sent = script.request("tools/call", params, timeout=waited)
            if name not in listed:
                verdict.problems.append(
                    Problem(Severity.WARNING, f"{name!r} is not in the tools/list result", sent.evidence)
                )
            if sent.reply is None:
                script.no_reply(verdict, sent, f"tools/call {name!r}", waited)
                continue
            if sent.error is not None:
                message = sent.error.get("message")
                verdict.message = f"tools/call {name!r} got error {shown(sent.code)}: {shown(message)}"
                verdict.problems.append(Problem(Severity.WARNING, verdict.message, sent.reply.evidence))
                continue
            problems = call_problems(sent.result)
            verdict.problems += [Problem(sev, text, sent.reply.evidence) for sev, text in problems]
            is_error = isinstance(sent.result, dict) and sent.result.get("isError") is True
            verdict.message = f"tools/call {name!r} answered" + (
                " (the tool reported an error: isError)" if is_error else ""
            )
