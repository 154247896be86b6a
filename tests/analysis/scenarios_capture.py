"""The scenarios of the capture rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

from tests.analysis.steps import Step, discover, ev

CAPTURE_SCENARIOS: dict[str, list[Step]] = {
    # The disk fell behind: mcpspy dropped two records, then told it once the buffer drained.
    "capture-gap": [
        *discover(1),
        ev("capture-gap", lines=2, bytes=180, first=3, last=4),
        *discover(2),
        ev("stdin-closed"),
        ev("server-exited", code=0),
    ],
    # mcpspy was killed mid-record: the reader adds capture-torn at the end (never stored by the proxy).
    "capture-torn": [*discover(1), ev("capture-torn", bytes=37)],
}

CAPTURE_EXPECTED: dict[str, list[tuple[str, int]]] = {
    "capture-gap": [("capture.gap", 3)],
    "capture-torn": [("capture.torn-line", 3)],
}
