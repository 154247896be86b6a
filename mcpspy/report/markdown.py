"""The Markdown transcript: the session as a lesson would show it.

Each message is pretty-printed in a json block, each reply sits under its
request with its latency, each finding under the line it is about, and stray
lines are shown as they travelled, with control characters made visible.
Every string from the capture is data: code spans and blocks are fenced
longer than any backtick run inside them, other text has Markdown's
punctuation escaped, and JSON too deep to re-encode is shown as its raw line.
"""

from __future__ import annotations

import re

from mcpspy.analysis.model import Finding, Kind, Message
from mcpspy.analysis.sources import public_source
from mcpspy.json_text import pretty_json
from mcpspy.model.summary import Summary, exchange_state, exit_text
from mcpspy.terminal import visible, visible_line

DIRECTION = {"c2s": "client → server", "s2c": "server → client", "err": "server stderr"}


LINK = re.compile(r"(https://[^\s,;()<>]+)")
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~])")


def fence(body: str, lang: str = "") -> str:
    """A code block whose fence is longer than any backtick run inside it; controls made visible."""
    body = visible(body)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{body}\n{ticks}"


def code(text: str) -> str:
    """An inline code span for data: one line, delimited by more backticks than it holds."""
    text = visible_line(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def plain(text: str) -> str:
    """Data in running text: one line, Markdown's punctuation escaped (no links, no HTML)."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\1", visible_line(text))


def _body(message: Message) -> str:
    if message.payload is not None and message.kind not in (Kind.NOT_JSON, Kind.STDERR):
        pretty = pretty_json(message.payload)
        if pretty is None:
            raw = message.raw.decode("utf-8", "backslashreplace")
            return "*nested too deep to pretty-print; the line as it travelled:*\n\n" + fence(raw, "text")
        if message.glued_prefix:
            stray = message.glued_prefix.decode("utf-8", "backslashreplace")
            return fence(stray, "text") + "\n\n" + fence(pretty, "json")
        return fence(pretty, "json")
    text = message.raw.decode("utf-8", "backslashreplace")
    return fence(text if message.terminated else text + "  ⟨no newline⟩", "text")


def _title(message: Message, summary: Summary) -> str:
    parts = [f"seq {message.seq}", DIRECTION[message.stream.value], message.kind.value]
    if message.method:
        parts.append(code(message.method))
    if message.id is not None:
        parts.append(f"id {code(repr(message.id))}")
    line = summary.line_of.get(message.seq)
    if line:
        parts.append(f"capture line {line}")
    return " · ".join(parts)


def _findings(findings: list[Finding]) -> list[str]:
    """Each finding, then its fix and where the spec says so."""
    return [
        f"- **{f.severity.label}** `{f.id}`{' (injected by mcpspy --inject)' if f.injected else ''}: "
        f"{plain(f.message)}\n"
        + (f"  - fix: {plain(f.rule.fix)}" if f.rule.fix else "  - source:")
        + f" ({_source(f.rule.source)})"
        for f in findings
    ]


def _source(source: str) -> str:
    """The rule's source (the catalogue's text, not capture data): its public pages as autolinks."""
    parts = LINK.split(public_source(source))
    return "".join(f"<{part}>" if LINK.fullmatch(part) else plain(part) for part in parts)


def _message_block(message: Message, summary: Summary, heading: str = "###") -> list[str]:
    out = [f"{heading} {_title(message, summary)}", "", _body(message), ""]
    if message.findings:
        out += [*_findings(message.findings), ""]
    return out


def render_markdown(summary: Summary) -> str:
    header = summary.capture.header
    a = summary.analyzer
    duration = "unknown" if summary.duration is None else f"{summary.duration:.3f}s"
    out = [
        f"# mcpspy transcript: {plain(header.name)}",
        "",
        f"- session: {code(header.session)}",
        f"- command: {code(' '.join(header.command))}",
        f"- started: {code(header.started)}, duration {duration}, exit {plain(exit_text(summary.exit))}",
        f"- era: {a.era.value}, protocol version {plain(a.protocol_version or 'unknown')}",
        f"- findings: {len(summary.findings)}",
        "",
    ]
    shown: set[int] = set()
    for message in a.messages:
        if message.seq in shown:
            continue
        shown.add(message.seq)
        out += _message_block(message, summary)
        ex = message.exchange
        if message.kind is Kind.REQUEST and ex is not None and ex.request_seq == message.seq:
            reply = summary.message_at(ex.reply_seq) if ex.reply_seq is not None else None
            if reply is not None and reply.seq not in shown:
                shown.add(reply.seq)
                latency = "" if ex.latency is None else f" after {ex.latency * 1000:.1f} ms"
                out.append(f"**reply** ({exchange_state(ex)}{latency}):")
                out.append("")
                out += _message_block(reply, summary, heading="####")
            elif reply is None:
                out += [f"*{exchange_state(ex)}: no reply was seen.*", ""]
    loose = [f for f in summary.findings if summary.message_at(f.seq) is None]
    if loose:
        out += ["## Other findings", "", *_findings(loose), ""]
    if summary.capture.problems:
        out += ["## Capture problems", "", *(f"- {plain(p)}" for p in summary.capture.problems), ""]
    return "\n".join(out)
