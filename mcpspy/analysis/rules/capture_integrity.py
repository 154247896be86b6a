"""What a capture says it lost (capture.*): the proxy's gaps and a reader's torn end.

Not the server's doing: mcpspy dropped records rather than stall forwarding
on a slow disk or in a burst larger than its buffer (``capture-gap``), or the
capture ends inside a record because the proxy was killed while writing it
(``capture-torn``, added by the reader, never stored). Both are told so that
a missing reply, or a request that looks unanswered, is read for what it is.
"""

from __future__ import annotations

from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.pairing import Pairing
from mcpspy.capture.records import Event, LifecycleRecord


class CaptureIntegrity:
    def __init__(self, out: Reporter, pairing: Pairing) -> None:
        self._out = out
        self._pairing = pairing  # a gap may hold replies: pairing judges nothing across it

    def event(self, record: LifecycleRecord) -> None:
        if record.event is Event.CAPTURE_GAP:
            self._out.find(RuleId.CAPTURE_GAP, record.seq, None, _gap_sentence(record.details))
            self._pairing.gap()
        elif record.event is Event.CAPTURE_TORN:
            self._out.find(
                RuleId.CAPTURE_TORN_LINE,
                record.seq,
                None,
                f"the capture ends inside a record ({_count(record.details.get('bytes'))} bytes cut off): "
                "mcpspy stopped while writing it, and the last line it saw is missing",
            )


def _gap_sentence(details: dict[str, int | str | float]) -> str:
    lines, size = details.get("lines", 0), details.get("bytes", 0)
    what = f"{_count(lines)} line(s), {_count(size)} bytes"
    if details.get("first") and details.get("last"):
        first, last = details["first"], details["last"]
        what += f", seq {first}" if first == last else f", seqs {first} to {last}"
    if details.get("parts"):
        what += f", and {_count(details['parts'])} part(s) of a line too long to hold"
    if details.get("at_exit"):
        when = "at exit, when the drain was given up"
    elif details.get("cause") == "burst":
        when = "during a burst larger than its buffer, while the disk kept up"
    elif details.get("cause") == "stalled-disk":
        when = f"while the disk made no progress for {details.get('longest_stall', '?')} s"
    else:  # a capture from before the cause was recorded
        when = "while the disk fell behind"
    return (
        f"mcpspy dropped {what} from the capture {when}, to keep forwarding; no request is judged "
        "unanswered, and no reply unknown or out of order, across it"
    )


def _count(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "?"
