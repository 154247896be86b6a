"""What the live OTLP sink costs the proxy's recording thread: time per record handed in.

    python benchmarks/otlp_overhead.py [--records N]

Hands N records (a synthetic tools/call session) in one at a time, as the
proxy's recorder does for one line a chunk, to: no sink (the bare call),
the sink with a live collector (a local OTLP/HTTP receiver), and the sink
with a dead one (a closed port). Prints one JSON object: microseconds per
record handed in, how long close() took, and what was sent or dropped.
The proxy-level figure (added latency per message) is measured once the sink
is wired into the proxy.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcpspy.capture.reader import read_capture  # noqa: E402
from mcpspy.capture.records import Record  # noqa: E402
from mcpspy.export.otlp_live import open_otlp_sink  # noqa: E402
from tests.export.collector import closed_port, running_collector  # noqa: E402
from tests.export.synthetic import big_capture  # noqa: E402


def hand_in(sink: Any, records: list[Record]) -> float:
    start = time.perf_counter()
    for record in records:
        sink([record])
    return time.perf_counter() - start


def measure(records: list[Record], header: Any, endpoint: str | None) -> dict[str, Any]:
    if endpoint is None:
        seconds = hand_in(lambda batch: None, records)
        return {"us_per_record": seconds / len(records) * 1e6}
    warnings: list[str] = []
    sink = open_otlp_sink(endpoint, header, warnings.append)
    assert sink is not None
    seconds = hand_in(sink, records)
    start = time.perf_counter()
    figures = sink.close()
    return {
        "us_per_record": seconds / len(records) * 1e6,
        "close_s": time.perf_counter() - start,
        **figures,
        "warnings": len(warnings),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        capture = read_capture(big_capture(Path(tmp) / "big.jsonl", args.records))
    records = capture.records
    results: dict[str, Any] = {"records": len(records), "no_sink": measure(records, capture.header, None)}
    with running_collector() as collector:
        results["live_collector"] = measure(records, capture.header, collector.url)
        results["live_collector"]["spans_received"] = len(collector.received.spans)
    results["dead_collector"] = measure(records, capture.header, f"http://127.0.0.1:{closed_port()}")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
