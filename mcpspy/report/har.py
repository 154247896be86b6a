"""HAR 1.2: a capture's exchanges as an HTTP Archive, for the tools that read one.

HAR viewers (browser devtools' import, Charles, Fiddler, haralyzer) show a list
of requests with bodies, status and timing; an MCP exchange maps onto one entry:

- ``request``: ``POST stdio://SERVER/METHOD`` (``stdio://helpdesk/tools/call``; SERVER is
  the serverInfo name, else the session's name),
  the request line as ``postData`` (application/json), exactly as it was sent.
- ``response``: the reply line as ``content.text``. Status: **200** for a result (a tool's
  ``isError: true`` too: the call worked, the tool said no), **500** for a
  JSON-RPC error response (``statusText`` names the code and message, so
  viewers paint it red), **0** for a request that got no reply (pending,
  cancelled, unanswered), as browsers record a request that never completed.
- ``timings``: send 0, wait = the latency, receive 0 (one pipe, no
  connection set-up); ``time`` = wait. Without a reply, wait runs to the
  cancel, or to the capture's end.
- mcpspy's own fields start with ``_`` as the format allows: ``entry._mcpspy``
  (direction, state, tool error, out of order, finding ids, capture seqs) and
  ``log._mcpspy`` (the session, and the findings as ``report --json`` gives them).

One page per session; entries are in send order, which is start-time order.
The text is made an entry at a time (``har_pieces``) and written as it is
made: no whole document is held in memory.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from urllib.parse import quote

import orjson

from mcpspy import __version__
from mcpspy.analysis.model import Exchange, Message
from mcpspy.model.exchanges import (
    Outcome,
    outcome,
    parse_started,
    reply_or_end,
    server_info,
    target,
    wall_clock,
)
from mcpspy.model.report import report_object
from mcpspy.model.summary import Summary, exchange_state
from mcpspy.report.shown_once import MAX_ROWS, ShownOnce, rows_left_out

HAR_VERSION = "1.2"
HTTP_VERSION = "JSON-RPC/2.0"


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def url_for(server: str, method: str) -> str:
    """``stdio://helpdesk/tools/call``; both parts percent-encoded (they come from the capture)."""
    return f"stdio://{quote(server, safe='')}/{quote(method, safe='/')}"


def body_text(message: Message) -> str:
    """The line as text (a line that parsed as JSON is UTF-8; anything else keeps its bad bytes escaped)."""
    return message.raw.decode("utf-8", "backslashreplace")


def status_of(result: Outcome, reply: Message | None) -> tuple[int, str]:
    if reply is None:
        return 0, result.state
    if result.state == "lost":
        return 0, "lost: the reply line reached the client unparseable"
    if result.error_code is not None or result.error_message is not None:
        code = "" if result.error_code is None else f" {result.error_code}"
        message = f": {result.error_message}" if result.error_message else ""
        return 500, f"JSON-RPC error{code}{message}"[:200]
    return 200, "OK"


def request_part(exchange: Exchange, request: Message | None, server: str) -> dict[str, Any]:
    text = body_text(request) if request is not None else ""
    return {
        "method": "POST",
        "url": url_for(server, exchange.method),
        "httpVersion": HTTP_VERSION,
        "cookies": [],
        "headers": [],
        "queryString": [],
        "postData": {"mimeType": "application/json", "text": text},
        "headersSize": -1,
        "bodySize": request.size if request is not None else 0,
    }


def response_part(result: Outcome, reply: Message | None) -> dict[str, Any]:
    status, status_text = status_of(result, reply)
    content: dict[str, Any] = {"size": 0, "mimeType": "x-unknown"}
    if reply is not None:
        content = {"size": len(reply.raw), "mimeType": "application/json", "text": body_text(reply)}
    return {
        "status": status,
        "statusText": status_text,
        "httpVersion": HTTP_VERSION,
        "cookies": [],
        "headers": [],
        "content": content,
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": reply.size if reply is not None else 0,
    }


def entry(
    summary: Summary,
    exchange: Exchange,
    server: str,
    page: str,
    started: datetime,
    end_t: float,
    shown: ShownOnce | None = None,
) -> dict[str, Any]:
    analyzer = summary.analyzer
    reply = analyzer.message(exchange.reply_seq) if exchange.reply_seq is not None else None
    result = outcome(exchange, reply)
    shown = ShownOnce() if shown is None else shown  # a seq the capture repeats: its message in one entry
    request, reply = shown.first(analyzer.message(exchange.request_seq)), shown.first(reply)
    wait_ms = round((reply_or_end(exchange, analyzer, end_t) - exchange.sent_t) * 1000.0, 3)
    finding_ids = [f.id for m in (request, reply) if m is not None for f in m.findings]
    mcpspy_fields: dict[str, Any] = {
        "direction": exchange.stream.value,
        "state": exchange_state(exchange),
        "id": exchange.id,
        "target": target(exchange, request),
        "toolError": result.tool_error,
        "outOfOrder": exchange.out_of_order,
        "requestSeq": exchange.request_seq,
        "replySeq": exchange.reply_seq,
        "findings": finding_ids,
    }
    if reply is not None and reply.glued_prefix:
        mcpspy_fields["gluedPrefix"] = reply.glued_prefix.decode("utf-8", "backslashreplace")
    return {
        "pageref": page,
        "startedDateTime": iso(wall_clock(started, exchange.sent_t)),
        "time": wait_ms,
        "request": request_part(exchange, request, server),
        "response": response_part(result, reply),
        "cache": {},
        "timings": {
            "blocked": -1,
            "dns": -1,
            "connect": -1,
            "send": 0,
            "wait": wait_ms,
            "receive": 0,
            "ssl": -1,
        },
        "comment": "server → client request" if exchange.stream.value == "s2c" else "",
        "_mcpspy": mcpspy_fields,
    }


ENTRIES_AT = '"entries": "@ENTRIES@"'  # where the entries go in the page's indented text
ENTRY_INDENT = " " * 6  # an entry's depth in ``{"log": {"entries": [...]}}`` at 2 spaces a level


def log_object(summary: Summary, entries: Any) -> dict[str, Any]:
    """The HAR page with ``entries`` as given (a list, or a placeholder the entries are written at)."""
    header = summary.capture.header
    started = parse_started(header.started)
    report = report_object(summary)
    comment = f"MCP stdio session {header.session}, recorded by mcpspy {header.mcpspy}"
    if len(summary.analyzer.exchanges) > MAX_ROWS:
        comment += f"; {rows_left_out(len(summary.analyzer.exchanges))}"
    return {
        "log": {
            "version": HAR_VERSION,
            "creator": {"name": "mcpspy", "version": __version__},
            "pages": [
                {
                    "startedDateTime": iso(started),
                    "id": header.session,
                    "title": f"{header.name}: {' '.join(header.command)}",
                    "pageTimings": {"onContentLoad": -1, "onLoad": -1},
                }
            ],
            "entries": entries,
            "comment": comment,
            "_mcpspy": {"session": report["session"], "era": report["era"], "findings": report["findings"]},
        }
    }


def entries_of(summary: Summary) -> Iterator[dict[str, Any]]:
    """The page's entries, one exchange at a time, up to ``MAX_ROWS``."""
    header = summary.capture.header
    started = parse_started(header.started)
    end_t = summary.duration or 0.0
    server = server_info(summary.analyzer).get("name") or header.name  # as OTLP's service.name
    shown = ShownOnce()
    for ex in itertools.islice(summary.analyzer.exchanges, MAX_ROWS):
        yield entry(summary, ex, server, header.session, started, end_t, shown)


def har_object(summary: Summary) -> dict[str, Any]:
    return log_object(summary, list(entries_of(summary)))


def har_pieces(summary: Summary) -> Iterator[str]:
    """The HAR text in pieces, an entry at a time (``report --format har``); as ``render_har`` indents it.

    The page is dumped with a placeholder where the entries go, and each entry is dumped alone and
    indented to its depth: JSON strings hold no raw newline, so re-indenting by lines is exact.
    """
    page = orjson.dumps(log_object(summary, "@ENTRIES@"), option=orjson.OPT_INDENT_2).decode()
    before, after = page.split(ENTRIES_AT, 1)
    yield before + '"entries": ['
    first = True
    for item in entries_of(summary):
        lines = orjson.dumps(item, option=orjson.OPT_INDENT_2).decode().split("\n")
        yield ("\n" if first else ",\n") + "\n".join(ENTRY_INDENT + line for line in lines)
        first = False
    yield ("]" if first else "\n    ]") + after + "\n"


def render_har(summary: Summary) -> str:
    return "".join(har_pieces(summary))
