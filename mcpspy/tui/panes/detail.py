"""The detail pane: one message's header, pretty JSON, raw line, pair and findings.

Lines of styled text for a ``TextView``: the pane draws only what is on screen,
and changing message never re-lays out the app. Every string from the capture
goes in through ``visible_line``, as plain text.
"""

from __future__ import annotations

from collections.abc import Collection

from rich.highlighter import JSONHighlighter
from rich.text import Text

from mcpspy.analysis.model import Message
from mcpspy.analysis.sources import public_source
from mcpspy.inject.record import field_bytes
from mcpspy.terminal import visible_bytes, visible_line
from mcpspy.tui.rows import DETAIL_LIMIT, MARK, MARK_STYLE, duration_text, pretty_json, visible_raw
from mcpspy.tui.widgets.textview import TextView

_JSON = JSONHighlighter()


def pair_of(message: Message) -> int | None:
    """The seq of the other half of the message's exchange (request <-> reply)."""
    exchange = message.exchange
    if exchange is None:
        return None
    return exchange.reply_seq if exchange.request_seq == message.seq else exchange.request_seq


def finding_lines(message: Message) -> list[Text]:
    """Each finding on the message: what is wrong, the rule it breaks, its fix, where the spec says so."""
    lines = []
    for f in message.findings:
        lines.append(Text(f"{MARK[f.severity]} {f.id} ({f.severity.label}): ", style=MARK_STYLE[f.severity]))
        lines[-1].append(visible_line(f.message), style="default")
        lines.append(Text(visible_line(f"  {f.rule.summary}")))
        if f.rule.fix:
            lines.append(Text(visible_line(f"  fix: {f.rule.fix}")))
        lines.append(Text(visible_line(f"  source: {public_source(f.rule.source)}"), style="dim"))
    return lines


def injected_lines(message: Message) -> list[Text]:
    """A line mcpspy --inject wrote: which fault, and the bytes the peer had written (the original)."""
    details = message.injected
    if details is None:
        return []
    spec, note = str(details.get("spec", "")), str(details.get("note", ""))
    said = f"injected by mcpspy --inject {spec}" + (f" ({note})" if note else "") + ": not the server's doing"
    lines = [Text(visible_line(said), style="bold magenta")]
    before = field_bytes(details, "before")
    if before:
        original = Text(no_wrap=True)
        original.append("original: ", style="dim")
        cut = before[:DETAIL_LIMIT]
        ended = cut.endswith(b"\n")
        original.append(visible_raw(cut[:-1] if ended else cut, ended))
        lines.append(original)
    else:
        lines.append(Text("original: nothing (the injection added this line)", style="dim"))
    return lines


def detail_lines(message: Message) -> list[Text]:
    """What the pane shows for ``message``: its findings first, then the exchange, JSON and raw line.

    A payload past DETAIL_LIMIT is cut (`v` shows it all).
    """
    title = f"seq {message.seq}  t {message.t:.6f}s  {message.kind.value}  {message.size:,} bytes"
    if message.size > DETAIL_LIMIT:
        title += "  (v: whole message)"
    lines = [Text(title, style="bold"), *injected_lines(message), *finding_lines(message)]
    exchange = message.exchange
    if exchange is not None:
        latency = duration_text(exchange.latency) if exchange.latency is not None else "pending"
        said = f"exchange: {exchange.method} id {exchange.id!r} {exchange.state.value} {latency}"
        lines.append(Text(visible_line(f"{said}; pair seq {pair_of(message)} (p)"), style="dim"))
    if message.payload is not None:
        json = (visible_line(line) for line in pretty_json(message.payload).split("\n"))
        lines.extend(_JSON(Text(line)) for line in json)
    raw = Text(no_wrap=True)  # cut at the width, every byte in place
    raw.append("raw: ", style="dim")
    if message.glued_prefix:
        raw.append(visible_bytes(message.glued_prefix), style="reverse red")
        raw.append(visible_raw(message.raw[len(message.glued_prefix) :], message.terminated))
    else:
        raw.append(visible_raw(message.raw, message.terminated))
    lines.append(raw)
    return lines


class DetailPane(TextView):
    """The message under the list's cursor, in full but for a payload past DETAIL_LIMIT."""

    DEFAULT_CSS = """
    DetailPane { padding: 0 1; height: 1fr; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__("select a message", id=id)
        self.text = ""  # what the pane shows, as plain text (what a test reads)
        self.message: Message | None = None  # the message shown
        self._seq: int | None = None

    def show(self, message: Message | None) -> None:
        """Show ``message``, unless it is the one shown already (and unchanged since)."""
        if message is None or message.seq == self._seq:
            return
        self.message, self._seq = message, message.seq
        lines = detail_lines(message)
        self.text = "\n".join(line.plain for line in lines)
        self.set_lines(lines)
        if self.highlight is not None:
            self.scroll_to_match()

    def clear(self) -> None:
        """Show nothing (another session is opened)."""
        self.message = self._seq = None
        self.text = ""
        self.set_text("select a message")

    def changed(self, seqs: Collection[int]) -> None:
        """The analysis changed these messages: the next ``show`` of one of them draws it again."""
        if self._seq in seqs:
            self._seq = None
