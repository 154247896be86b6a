"""The catalogue rows of rules/capture_integrity.py (capture.*: what a capture says it lost)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import INFO, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.CAPTURE_GAP, W,
         "mcpspy dropped records from the capture rather than stall forwarding (a disk, FIFO or mount "
         "that fell behind, or a burst larger than the buffer on a disk that kept up): the capture-gap "
         "record says how many lines and bytes, which seqs, and which of the two it was.",
         "mcpspy docs/proxy.md \u00a7Proxy options (what the proxy promises: a capture says what it lost)",
         bad='{"seq":90,"t":4.2,"event":"capture-gap","lines":312,"bytes":40960,"first":58,"last":369}',
         good="a capture written to a local disk that keeps up",
         fix="Write captures to a local disk that keeps up (--home, --capture), not a hung mount or FIFO."),
    Rule(RuleId.CAPTURE_TORN_LINE, INFO,
         "The capture ends inside a record: mcpspy was stopped (killed) while writing it, so the last "
         "line it saw is missing.",
         "mcpspy docs/capture.md \u00a7The capture file",
         bad='{"seq":41,"t":2.5,"stream":"s2c","text":"{\\"jsonrpc\\":',
         good='{"seq":41,"t":2.5,"stream":"s2c","text":"{}"}  (then proxy-stopped)',
         fix="Stop mcpspy with SIGTERM or by closing its stdin, not SIGKILL, so it can finish the capture."),
]
# fmt: on
