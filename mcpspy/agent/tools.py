"""The tools of ``mcpspy mcp``: each one's description, schemas and handler, in one table (``TOOLS``).

A handler takes the checked arguments and returns its structured result and a
short text of mcpspy's own words (never captured data: that is in the
structured result, under ``captured``). Bad input raises ToolInputError: the
server answers it as a tool error of one sentence. The slow work (replaying a
capture) runs on a worker thread; waiting and checking are async.
"""

from __future__ import annotations

import difflib
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import anyio
import anyio.to_thread
import orjson

from mcpspy.agent import schemas as s
from mcpspy.agent.sessions import SessionStore, ToolInputError, shown_ref
from mcpspy.agent.untrusted import WARNING, captured, text, value_text
from mcpspy.agent.views import (
    DEFAULT_MAX_BYTES,
    exchange_object,
    message_object,
    report_object,
    session_head,
    session_id,
)
from mcpspy.agent.waiting import wait_for_message
from mcpspy.analysis.model import Exchange, Severity
from mcpspy.capture.retention import parse_age
from mcpspy.capture.sessions import SessionInfo
from mcpspy.filters import FilterError, parse_filter
from mcpspy.terminal import visible_line

Result = tuple[dict[str, Any], str]
Progress = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Call:
    """What a handler gets besides its arguments."""

    store: SessionStore
    progress: Progress  # a no-op unless the client sent a progressToken


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: s.Schema
    output_schema: s.Schema
    handler: Callable[[Call, dict[str, Any]], Awaitable[Result]]
    captured: bool = True  # its result carries captured data: the description says so

    def definition(self) -> dict[str, Any]:
        description = f"{self.description} {WARNING}" if self.captured else self.description
        return {
            "name": self.name,
            "description": description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
        }


def _page(items: list[Any], cursor: str | None, limit: int) -> tuple[list[Any], str | None]:
    start = 0
    if cursor:
        if not cursor.isdigit() or int(cursor) > len(items):
            raise ToolInputError("The cursor is not one that a previous page gave.")
        start = int(cursor)
    end = start + limit
    return items[start:end], (str(end) if end < len(items) else None)


async def in_thread(work: Callable[[], Result]) -> Result:
    return await anyio.to_thread.run_sync(work)


# --- list_sessions


def _since(value: str) -> datetime:
    try:
        return datetime.fromtimestamp(time.time() - parse_age(value), UTC)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ToolInputError("since must be an age (90m, 12h, 2d) or an ISO 8601 time.") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _started(info: SessionInfo) -> datetime | None:
    try:
        return datetime.fromisoformat(info.header.started)
    except ValueError:
        return None


def _matches_server(info: SessionInfo, server: str) -> bool:
    wanted = server.casefold()
    return wanted in info.header.name.casefold() or any(wanted in a.casefold() for a in info.header.command)


async def list_sessions(call: Call, args: dict[str, Any]) -> Result:
    def work() -> Result:
        from mcpspy.model.session_counts import count_sessions

        sessions = list(reversed(call.store.all()))  # newest first
        if server := args.get("server"):
            sessions = [i for i in sessions if _matches_server(i, server)]
        state = args.get("state", "any")
        if state != "any":
            sessions = [i for i in sessions if i.live == (state == "live")]
        if since := args.get("since"):
            moment = _since(since)
            sessions = [i for i in sessions if (t := _started(i)) is not None and t >= moment]
        page, next_cursor = _page(sessions, args.get("cursor"), args.get("limit", 20))
        dirs = call.store.dirs()
        counted = count_sessions(page, dirs[0] if dirs else None)
        rows = [
            session_head(c.info)
            | {"messages": c.messages} | {sev.label + "s": c.findings[sev] for sev in Severity}
            for c in counted
        ]  # fmt: skip
        live = sum(c.info.live for c in counted)
        said = f"{len(sessions)} sessions match; {len(rows)} shown, newest first, {live} of them live."
        return {"total": len(sessions), "sessions": rows, "next_cursor": next_cursor}, said

    return await in_thread(work)


# --- session_report

SEVERITIES = {"error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO}


async def session_report(call: Call, args: dict[str, Any]) -> Result:
    def work() -> Result:
        opened = call.store.open(args.get("session"))
        at_least = SEVERITIES[args.get("severity", "info")]
        report = report_object(opened.info, opened.summary, at_least, args.get("limit", 20))
        counts = report["by_severity"]
        said = (
            f"Session {session_id(opened.info)} ({'live' if opened.info.live else 'ended'}): "
            f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} infos; "
            f"{len(report['findings'])} findings shown, worst first."
        )
        return report, said

    return await in_thread(work)


# --- find_messages


def compiled(filter_text: str) -> Callable[[Any], bool]:
    try:
        return parse_filter(filter_text)
    except FilterError as exc:
        raise ToolInputError(f"The filter is not valid: {visible_line(str(exc))}.") from None


async def find_messages(call: Call, args: dict[str, Any]) -> Result:
    def work() -> Result:
        match = compiled(args.get("filter", ""))
        opened = call.store.open(args.get("session"))
        found = [m for m in opened.summary.analyzer.messages if match(m)]
        page, next_cursor = _page(found, args.get("cursor"), args.get("limit", 20))
        limit = args.get("max_bytes", DEFAULT_MAX_BYTES)
        session = session_id(opened.info)
        rows = [message_object(session, m, limit) for m in page]
        said = f"{len(found)} messages of session {session} match; {len(rows)} shown in seq order."
        return {"session": session, "total": len(found), "messages": rows, "next_cursor": next_cursor}, said

    return await in_thread(work)


# --- get_exchange


def _exchange(exchanges: list[Exchange], seq: int | None, wanted_id: str | None) -> Exchange:
    if seq is not None:
        for ex in exchanges:
            if seq in (ex.request_seq, ex.reply_seq, ex.cancel_seq):
                return ex
        raise ToolInputError(f"No exchange has a request, reply or cancel at seq {seq}.")
    assert wanted_id is not None
    found = [ex for ex in exchanges if wanted_id in (value_text(ex.id), str(ex.id))]
    if not found:
        raise ToolInputError(f"No request has the id {shown_ref(wanted_id)}.")
    return sorted(found, key=lambda ex: (ex.stream.value != "c2s", ex.request_seq))[0]


async def get_exchange(call: Call, args: dict[str, Any]) -> Result:
    def work() -> Result:
        seq, wanted_id = args.get("seq"), args.get("id")
        if (seq is None) == (wanted_id is None):
            raise ToolInputError("Give either seq or id, not both and not neither.")
        opened = call.store.open(args.get("session"))
        ex = _exchange(opened.summary.analyzer.exchanges, None if seq is None else int(seq), wanted_id)
        out = exchange_object(
            session_id(opened.info), ex, opened.summary, args.get("max_bytes", DEFAULT_MAX_BYTES)
        )
        latency = "no reply" if out["latency_ms"] is None else f"replied in {out['latency_ms']} ms"
        said = (
            f"The exchange whose request is seq {ex.request_seq}: {out['state']}, {latency}, "
            f"{len(out['findings'])} findings."
        )
        return out, said

    return await in_thread(work)


# --- explain_rule


async def explain_rule(call: Call, args: dict[str, Any]) -> Result:
    from mcpspy.analysis.catalogue import RULES
    from mcpspy.analysis.sources import public_source, source_links

    rule = RULES.get(args["rule"])
    if rule is None:
        near = difflib.get_close_matches(args["rule"], sorted(RULES), n=3, cutoff=0.5)
        hint = f" Close: {', '.join(near)}." if near else " `mcpspy rules` lists them."
        raise ToolInputError(f"No rule has the id {shown_ref(args['rule'])}.{hint}")
    out = {
        "id": rule.id,
        "severity": rule.severity.label,
        "summary": rule.summary,
        "fix": rule.fix,
        "source": public_source(rule.source),
        "links": source_links(rule.source),
        "bad": rule.bad,
        "good": rule.good,
    }
    return out, f"{rule.id} ({rule.severity.label}): {rule.summary}"


# --- check_server


async def check_server(call: Call, args: dict[str, Any]) -> Result:
    command: list[str] = args["command"]
    timeout = float(args.get("timeout", 60))
    argv = [sys.executable, "-m", "mcpspy", "check", "--format", "json", "--era", args.get("era", "both")]
    if call.store.home:
        argv += ["--home", call.store.home]
    argv += ["--", *command]
    output = b""
    errors = b""
    with anyio.move_on_after(timeout) as scope:
        done = await anyio.run_process(argv, check=False, stdin=None)
        output, errors = done.stdout, done.stderr
    if scope.cancelled_caught:
        raise ToolInputError(f"mcpspy check did not finish within {timeout:g} seconds.")
    try:
        report = orjson.loads(output)
    except orjson.JSONDecodeError:
        last = errors.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise ToolInputError(f"mcpspy check failed: {visible_line(last[0])[:300]}") from None
    checks = [
        {k: c[k] for k in ("id", "era", "status", "title", "fix", "seqs")}
        | captured(message=text(c["message"]), target=text(c["target"]) if c["target"] else None)
        for c in report["checks"]
        if c["status"] != "pass"
    ]
    findings = [
        {"rule": f["id"], "severity": f["severity"], "era": f["era"], "seq": f["seq"]}
        | captured(detail=text(f["message"]))
        for f in report["findings"]
    ]
    counts = report["counts"]
    out = {"counts": counts, "failed": counts["fail"] > 0, "captures": report["capture"]}
    out |= {"checks_not_passed": checks, "findings": findings}
    said = (
        f"mcpspy check: {counts['pass']} passed, {counts['warn']} warnings, {counts['fail']} failed, "
        f"{counts['skip']} skipped; each era's capture path (captures) names its session."
    )
    return out, said


# --- diff_sessions


async def diff_sessions(call: Call, args: dict[str, Any]) -> Result:
    def work() -> Result:
        from pathlib import Path

        from mcpspy.drift.command import Unreadable, load_baseline, load_session
        from mcpspy.drift.compare import compare_surfaces
        from mcpspy.jsonutil.paths import render_path
        from mcpspy.jsonutil.structural import MISSING

        if ("b" in args) == ("baseline" in args):
            raise ToolInputError("Give either b or baseline, not both and not neither.")

        def session(ref: str) -> tuple[str, Any]:
            return load_session(str(call.store.find(ref).path), call.store.home)

        try:
            if "baseline" in args:  # the baseline is what was; session a is what is
                a_name, a = args["baseline"], load_baseline(Path(args["baseline"]).expanduser())
                b_name, b = session(args["a"])
            else:
                (a_name, a), (b_name, b) = session(args["a"]), session(args["b"])
        except Unreadable as exc:
            raise ToolInputError(f"{visible_line(str(exc))[:300]}.") from None
        result = compare_surfaces(a, b)
        changes = [
            {"area": d.area, "kind": d.kind.value}
            | captured(
                item=text(d.item) if d.item is not None else None,
                field=text(d.field) if d.field is not None else None,  # a key the server sent
                path=text(render_path(d.path)),
                what=text(d.what),
                old=value_text(d.old) if d.old is not MISSING else None,
                new=value_text(d.new) if d.new is not MISSING else None,
            )
            for d in result.drifts
        ]
        out = {"a": a_name, "b": b_name, "drift": bool(changes), "changes": changes}
        out["not_compared"] = [text(n) for n in result.not_compared]
        return out, f"{len(changes)} changes from a to b." if changes else "No drift: a and b agree."

    return await in_thread(work)


# --- wait_for_message


async def wait(call: Call, args: dict[str, Any]) -> Result:
    match = compiled(args.get("filter", ""))
    session = args.get("session")
    info = await anyio.to_thread.run_sync(call.store.find, session) if session else None
    if info is not None and not info.live:
        raise ToolInputError(f"Session {session_id(info)} has ended: no message will arrive in it.")
    timeout = float(args.get("timeout", 30))
    limit = args.get("max_bytes", DEFAULT_MAX_BYTES)
    seen = await wait_for_message(call.store, info, match, timeout, call.progress)
    waited = round(seen.waited, 3)
    if seen.message is None or seen.session is None:
        none = {"matched": False, "waited_s": waited, "session": None, "message": None}
        return none, f"No matching message arrived within {timeout:g} seconds."
    message = message_object(seen.session, seen.message, limit)
    out = {"matched": True, "waited_s": waited, "session": seen.session, "message": message}
    return out, f"A matching message arrived after {waited} s: seq {seen.message.seq} of {seen.session}."


# --- the table

MESSAGES_OUT = s.obj({"session": s.TEXT, "total": s.INT, "messages": s.ARRAY, "next_cursor": s.MAYBE_TEXT})

TOOLS: list[Tool] = [
    Tool(
        "list_sessions",
        "Recorded mcpspy sessions (one per server process), newest first, with message and finding counts.",
        s.obj(
            {
                "server": s.string("part of the server's name or command"),
                "state": s.string("", ("live", "ended", "any")),
                "since": s.string("an age (90m, 2d) or ISO 8601 time"),
                "limit": s.LIMIT,
                "cursor": s.CURSOR,
            }
        ),
        s.obj({"total": s.INT, "sessions": s.ARRAY, "next_cursor": s.MAYBE_TEXT}),
        list_sessions,
    ),
    Tool(
        "session_report",
        "A session's header, message counts and findings (worst first), each with its rule, fix and "
        "spec source.",
        s.obj(
            {
                "session": s.SESSION,
                "severity": s.string("the least severity shown", ("error", "warning", "info")),
                "limit": s.LIMIT,
            }
        ),
        s.obj({"session": s.OBJECT, "counts": s.OBJECT, "findings_total": s.INT, "findings": s.ARRAY}),
        session_report,
    ),
    Tool(
        "find_messages",
        "A session's messages matching a filter, in order; each with its seq, and a uri to the whole "
        "line when cut.",
        s.obj(
            {
                "session": s.SESSION,
                "filter": s.FILTER,
                "limit": s.LIMIT,
                "cursor": s.CURSOR,
                "max_bytes": s.MAX_BYTES,
            }
        ),
        MESSAGES_OUT,
        find_messages,
    ),
    Tool(
        "get_exchange",
        "One request and what became of it: progress, cancel, reply, late replies, latency, findings.",
        s.obj(
            {
                "session": s.SESSION,
                "seq": s.integer("seq of its request (or reply)", 0, 2**53),
                "id": s.string("or the request's JSON-RPC id"),
                "max_bytes": s.MAX_BYTES,
            }
        ),
        s.obj({"state": s.TEXT, "request": s.MAYBE_OBJECT, "reply": s.MAYBE_OBJECT, "findings": s.ARRAY}),
        get_exchange,
    ),
    Tool(
        "explain_rule",
        "One finding rule: summary, fix, bad and good example, spec source.",
        s.obj({"rule": s.string("a rule id, e.g. stdout.glued-prefix")}, ("rule",)),
        s.obj({"id": s.TEXT, "summary": s.TEXT, "fix": s.TEXT, "source": s.TEXT}),
        explain_rule,
        captured=False,
    ),
    Tool(
        "check_server",
        "Run `mcpspy check` on a stdio server command, in both protocol eras: conformance verdicts. "
        "Runs the command you give on this machine.",
        s.obj(
            {
                "command": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "era": s.string("", ("both", "modern", "legacy")),
                "timeout": s.number("seconds in all (default 60)", 1, 600),
            },
            ("command",),
        ),
        s.obj({"counts": s.OBJECT, "failed": s.BOOL, "checks_not_passed": s.ARRAY, "findings": s.ARRAY}),
        check_server,
    ),
    Tool(
        "diff_sessions",
        "What the server said about itself in two sessions (or a session and a baseline file), "
        "compared: tools, schemas, prompts, resources, capabilities.",
        s.obj(
            {
                "a": s.string("a session"),
                "b": s.string("a later session"),
                "baseline": s.string("or a baseline file (mcpspy diff --save-baseline) to compare a with"),
            },
            ("a",),
        ),
        s.obj({"drift": s.BOOL, "changes": s.ARRAY}),
        diff_sessions,
    ),
    Tool(
        "wait_for_message",
        "Wait until a message matching the filter arrives in a live session (default: any live or new "
        "one), or the timeout: start it, then reproduce the bug.",
        s.obj(
            {
                "filter": s.FILTER,
                "session": s.string("a live session; default: any"),
                "timeout": s.number("seconds (default 30)", 0, 600),
                "max_bytes": s.MAX_BYTES,
            }
        ),
        s.obj({"matched": s.BOOL, "waited_s": s.NUM, "session": s.MAYBE_TEXT, "message": s.MAYBE_OBJECT}),
        wait,
    ),
]

BY_NAME = {tool.name: tool for tool in TOOLS}
