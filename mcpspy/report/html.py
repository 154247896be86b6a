"""The HTML report: one self-contained page to send to a person, readable offline in any browser.

It holds the session, counts, latency per method, the findings by severity
(each linking to its message) and every message in order: each request with
its reply, latency and state, each notification, stray line and stderr line,
the JSON pretty-printed, stray and glued text marked.

Every string from the capture goes through ``html.escape`` (after its
control and bidi characters are made visible): a method called
``<script>…`` is shown, never run. The page loads nothing and its
Content-Security-Policy admits only its own inline style and script (see
html_assets.py).

Big captures: each message body sits in a closed ``<details>``, which the
browser parses but does not lay out until it is opened, so a 10,000-message
report opens in about a second (benchmarks/html_open.py measures it in
Chromium); the filter box hides rows by words rendered beside them. The page
is made a row at a time (``html_pieces``) and written as it is made: no
whole page is held in memory.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from html import escape

from mcpspy.analysis.model import Exchange, Finding, Kind, Message, Severity
from mcpspy.analysis.sources import public_source
from mcpspy.json_text import pretty_json
from mcpspy.model.summary import Summary, exchange_state, exit_text, provoked_by
from mcpspy.render.html_assets import CONTENT_SECURITY_POLICY, SCRIPT, STYLE
from mcpspy.report.shown_once import MAX_ROWS, ShownOnce, rows_left_out
from mcpspy.terminal import visible, visible_line

ARROW = {"c2s": "→", "s2c": "←", "err": "!"}
DIRECTION = {"c2s": "client → server", "s2c": "server → client", "err": "server stderr"}
STRAY_KINDS = (Kind.NOT_JSON, Kind.INVALID)


def text(value: object) -> str:
    """Capture data as HTML text on one line: controls made visible, then escaped."""
    return escape(visible_line(str(value)))


def block(value: str) -> str:
    """Capture data as the contents of a ``<pre>``: newlines kept, controls made visible, escaped."""
    return escape(visible(value))


def raw_text(message: Message) -> str:
    return message.raw.decode("utf-8", "backslashreplace")


#: Where a row names a message by a seq that the capture repeats, and an earlier row showed it.
REPEATED_SEQ = (
    '<div class="label">this seq is repeated in the capture: the message is shown once, above</div>'
)


def body_html(message: Message) -> str:
    """A message's body: pretty JSON when it parsed (and re-encodes), else its raw line; stray text marked."""
    parts: list[str] = []
    if message.glued_prefix:
        prefix = message.glued_prefix.decode("utf-8", "backslashreplace")
        parts.append(
            '<div class="label">stray text glued before the JSON on this line:</div>'
            f'<pre><mark class="stray">{block(prefix)}</mark></pre>'
        )
    pretty = None
    if message.payload is not None and message.kind not in (Kind.NOT_JSON, Kind.STDERR):
        pretty = pretty_json(message.payload)
    if pretty is not None:
        parts.append(f"<pre>{block(pretty)}</pre>")
    else:
        mark = ' class="stray"' if message.kind in STRAY_KINDS and message.stream.value == "s2c" else ""
        note = (
            ""
            if message.payload is None
            else '<div class="label">nested too deep to re-indent: the raw line</div>'
        )
        parts.append(f"{note}<pre><span{mark}>{block(raw_text(message))}</span></pre>")
    if not message.terminated:
        parts.append('<div class="label">no newline ended this line</div>')
    for finding in message.findings:
        parts.append(finding_line(finding, link=False))
    return "".join(parts)


def finding_line(finding: Finding, link: bool = True, line: int | None = None) -> str:
    label = finding.severity.label
    where = (
        f' <a href="#m{finding.seq}">seq {finding.seq}{"" if line is None else f", line {line}"}</a>'
        if link
        else ""
    )
    rule = finding.rule
    fix = f"Fix: {text(rule.fix or rule.summary)} ({text(public_source(rule.source))})"
    injected = " <strong>[injected by mcpspy --inject: not the server's]</strong>" if finding.injected else ""
    return (
        f'<div class="finding"><span class="sev-{label}">{label}</span> <code>{text(finding.id)}</code>'
        f'{where}{injected}: {text(finding.message)} <span class="fix">{fix}</span></div>'
    )


#: A report with at most this many messages opens with its flagged rows expanded.
OPEN_FLAGGED_UP_TO = 200


def severity_attr(messages: list[Message], open_flagged: bool = False) -> str:
    """``data-sev`` (the filter's "flagged only") for a row with findings; ``open`` too on a small report."""
    worst = max((m.severity for m in messages if m.severity is not None), default=None)
    if worst is None:
        return ""
    return f' data-sev="{worst.label}"' + (" open" if open_flagged else "")


def keys(*words: object) -> str:
    """The lowercased words the filter box matches a row by."""
    return escape(visible_line(" ".join(str(w) for w in words if w not in (None, ""))).lower())


def row_summary(
    t: float,
    direction: str,
    kind: str,
    what: str,
    id_html: str,
    outcome_html: str,
    finding_ids: Sequence[str],
) -> str:
    """A row's one line, in few elements (10,000 rows are laid out fast): columns by padding, in monospace."""
    flags = f' <span class="flags">{" ".join(text(f) for f in finding_ids)}</span>' if finding_ids else ""
    return (
        f"<code>{t:>9.3f}s {ARROW[direction]} {kind:<12}</code><b>{what}</b> {id_html} {outcome_html}{flags}"
    )


def exchange_row(
    summary: Summary, exchange: Exchange, open_flagged: bool = False, shown: ShownOnce | None = None
) -> str:
    analyzer = summary.analyzer
    shown = ShownOnce() if shown is None else shown
    request = shown.first(analyzer.message(exchange.request_seq))
    reply = shown.first(analyzer.message(exchange.reply_seq)) if exchange.reply_seq is not None else None
    messages = [m for m in (request, reply) if m is not None]
    state = exchange_state(exchange)
    latency = "" if exchange.latency is None else f"{exchange.latency * 1000:.1f} ms"
    finding_ids = [f.id for m in messages for f in m.findings]
    direction = exchange.stream.value
    summary_html = row_summary(
        exchange.sent_t,
        direction,
        "request",
        text(exchange.method),
        f"id={text(repr(exchange.id))}",
        f'<span class="state-{state}">{state}</span> {latency}',
        finding_ids,
    )
    body = [f'<div class="label">request, {DIRECTION[direction]}, seq {exchange.request_seq}</div>']
    body.append(body_html(request) if request is not None else REPEATED_SEQ)
    if reply is None and exchange.reply_seq is not None:
        body.append(f'<div class="label">reply, seq {exchange.reply_seq}</div>{REPEATED_SEQ}')
    elif reply is not None:
        body.append(
            f'<div id="m{reply.seq}" class="label">reply ({reply.kind.value}), seq {reply.seq}, '
            f"after {latency}</div>{body_html(reply)}"
        )
    else:
        body.append(f'<div class="label">no reply: {state}</div>')
    k = keys(
        exchange.method,
        exchange.id,
        state,
        direction,
        "request",
        "flagged" if finding_ids else "",
        *finding_ids,
    )
    flags = severity_attr(messages, open_flagged)
    return (
        f'<details class="row" id="m{exchange.request_seq}" data-k="{k}"{flags}>'
        f'<summary>{summary_html}</summary><div class="body">{"".join(body)}</div></details>\n'
    )


def message_row(message: Message, open_flagged: bool = False) -> str:
    """A message that is not part of an exchange: notification, stray line, stderr, unpaired reply."""
    direction = message.stream.value
    if message.method:
        what = text(message.method)
    else:
        preview = raw_text(message)
        what = text(preview[:120] + ("…" if len(preview) > 120 else ""))
    stray = message.kind in STRAY_KINDS and direction == "s2c"
    summary_html = row_summary(
        message.t,
        direction,
        message.kind.value,
        f'<span class="stray">{what}</span>' if stray else what,
        "" if message.id is None else f"id={text(repr(message.id))}",
        "",
        [f.id for f in message.findings],
    )
    label = f'<div class="label">{message.kind.value}, {DIRECTION[direction]}, seq {message.seq}</div>'
    k = keys(
        message.method,
        message.id,
        message.kind.value,
        direction,
        "flagged" if message.findings else "",
        *(f.id for f in message.findings),
        "" if message.method else raw_text(message)[:200],
    )
    return (
        f'<details class="row" id="m{message.seq}" data-k="{k}"{severity_attr([message], open_flagged)}>'
        f'<summary>{summary_html}</summary><div class="body">{label}{body_html(message)}</div></details>\n'
    )


def transcript(summary: Summary) -> Iterator[str]:
    """Every message in capture order, up to ``MAX_ROWS`` rows; a reply is shown inside its request's row."""
    open_flagged = len(summary.analyzer.messages) <= OPEN_FLAGGED_UP_TO
    shown, rows = ShownOnce(), 0
    for message in summary.analyzer.messages:
        exchange = message.exchange
        if exchange is not None and exchange.reply_seq == message.seq and exchange.request_seq != message.seq:
            continue
        rows += 1
        if rows > MAX_ROWS:
            continue  # counted for the note
        if exchange is not None and exchange.request_seq == message.seq:
            yield exchange_row(summary, exchange, open_flagged, shown)
        else:
            yield message_row(message, open_flagged)
    if rows > MAX_ROWS:
        yield f'<p class="label" id="cut">{text(rows_left_out(rows))}</p>\n'


def header_html(summary: Summary) -> str:
    header = summary.capture.header
    a = summary.analyzer
    fields = [
        ("session", header.session),
        ("server", " ".join(header.command)),
        ("directory", header.cwd),
        ("started", header.started),
        ("duration", "" if summary.duration is None else f"{summary.duration:.3f} s"),
        ("server exit", exit_text(summary.exit)),
        ("era", a.era.value),
        ("protocol version", a.protocol_version or "not seen"),
        ("recorded by", f"mcpspy {header.mcpspy}"),
        *(("capture problem", p) for p in summary.capture.problems),
    ]
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{text(v)}</dd>" for k, v in fields)
    return f"<h1>mcpspy report: {text(header.name)}</h1><dl>{rows}</dl>"


def tables_html(summary: Summary) -> str:
    counts = "".join(
        f"<tr><th>{DIRECTION[stream]}</th>"
        + "".join(f'<td class="n">{n}</td><td>{escape(kind)}</td>' for kind, n in kinds.items())
        + "</tr>"
        for stream, kinds in summary.counts.items()
    )
    latency = "".join(
        f'<tr><td class="mono">{text(row.method)}</td><td class="n">{row.count}</td>'
        f'<td class="n">{row.p50_ms:.1f}</td><td class="n">{row.p95_ms:.1f}</td>'
        f'<td class="n">{row.max_ms:.1f}</td></tr>'
        for row in summary.latency
    )
    return (
        f'<h2>Messages</h2><table id="counts">{counts}</table>'
        '<h2>Latency per method (ms)</h2><table id="latency"><tr><th>method</th><th class="n">replies</th>'
        f'<th class="n">p50</th><th class="n">p95</th><th class="n">max</th></tr>{latency}</table>'
    )


def findings_html(summary: Summary) -> Iterator[str]:
    """The findings by severity, a line at a time (a big session can have many)."""
    yield f'<h2 id="findings">Findings ({len(summary.findings)})</h2>'
    if not summary.findings:
        yield "<p>None: nothing in this session breaks the protocol.</p>"
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        found = [f for f in summary.findings if f.severity is severity]
        if found:
            label = severity.label
            yield f'<h3 class="sev-{label}">{label} ({len(found)})</h3><div class="findings">'
            yield from (finding_line(f, line=summary.line_of.get(f.seq)) for f in found)
            yield "</div>"
    yield injected_html(summary)


def injected_html(summary: Summary) -> str:
    """--inject: each injection and how the client took it (the text report's table); unmatched SPECs."""
    if not summary.injected and not summary.unmatched:
        return ""
    parts = [
        f'<h2 id="injected">Injected ({len(summary.injected)})</h2>'
        "<p>Made by mcpspy --inject, not by the server; what the client did next.</p>"
        '<table id="injections"><tr><th class="n">seq</th><th>spec</th><th>reaction</th><th>detail</th>'
        "<th>provoked</th></tr>"
    ]
    for r in summary.injected:
        inj = r.injection
        seq = f'<a href="#m{inj.altered}">{inj.altered}</a>' if inj.altered is not None else ""
        provoked = " ".join(dict.fromkeys(f.id for f in provoked_by(summary, r)))
        parts.append(
            f'<tr><td class="n">{seq}</td><td><code>{text(inj.spec)}</code></td><td>{text(r.reaction)}</td>'
            f"<td>{text(r.detail)}</td><td>{text(provoked)}</td></tr>"
        )
    parts.append("</table>")
    if summary.injected_findings:
        parts.append(
            f"<h3>Findings the injections provoked ({len(summary.injected_findings)}, not counted)</h3>"
        )
        parts += [finding_line(f, line=summary.line_of.get(f.seq)) for f in summary.injected_findings]
    parts += [
        f"<p>Never struck: <code>{text(u.spec)}</code> (it waited for {text(u.where)})</p>"
        for u in summary.unmatched
    ]
    return "".join(parts)


def html_pieces(summary: Summary) -> Iterator[str]:
    """The page in pieces, in order, to be written as they come (``report --format html``)."""
    name = text(summary.capture.header.name)
    yield (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>mcpspy report: {name}</title><style>{STYLE}</style></head>\n<body>"
        f"<header>{header_html(summary)}</header>{tables_html(summary)}"
    )
    yield from findings_html(summary)
    yield (
        '<h2 id="messages">Messages in order</h2>'
        '<div id="bar"><input id="q" type="search" placeholder="filter: method, id, state, finding id, text" '
        'aria-label="filter"><label><input id="flagged" type="checkbox"> flagged only</label>'
        '<button id="expand" type="button">expand all</button>'
        '<button id="collapse" type="button">collapse all</button>'
        '<output id="shown"></output></div>\n'
        '<main id="rows">\n'
    )
    yield from transcript(summary)
    yield f"</main><script>{SCRIPT}</script></body></html>\n"


def render_html(summary: Summary) -> str:
    """The whole page as one string (the TUI's export, tests); ``report`` writes ``html_pieces``."""
    return "".join(html_pieces(summary))
