"""The lean analysis behind `--log` (``retain=False``) finds what the full one finds, and holds no history."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpspy.analysis import reporter
from mcpspy.analysis.analyzer import RECENT_EXCHANGES, Analyzer
from mcpspy.analysis.model import Finding, FindingRaised, Severity
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream
from mcpspy.proxy.log import LogSink
from mcpspy.replay_policy import Replay
from tests.analysis.steps import META

FIXTURES = sorted((Path(__file__).resolve().parents[2] / "fixtures").glob("*.jsonl"))


def findings_of(records: list[Record], retain: bool) -> list[Finding]:
    replay = Replay(retain=retain)
    raised = [e.finding for r in records for e in replay.feed(r) if isinstance(e, FindingRaised)]
    raised += [e.finding for e in replay.conclude() if isinstance(e, FindingRaised)]
    return raised


def log_text(records: list[Record], retain: bool) -> bytes:
    out: list[bytes] = []
    sink = LogSink(out.append, lambda warning: out.append(warning.encode()), show_stderr=True)
    sink.replay = Replay(retain=retain)
    for start in range(0, len(records), 3):  # in small batches, as the proxy drains them
        sink(records[start : start + 3])
    return b"".join(out)


def test_there_are_fixtures() -> None:
    assert len(FIXTURES) > 50


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_lean_mode_finds_what_full_mode_finds(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = list(read_capture(path).records)
    full = findings_of(records, retain=True)
    assert findings_of(records, retain=False) == full
    monkeypatch.setattr(reporter, "RECENT_MESSAGES", 1)  # no message kept but the last one
    assert findings_of(records, retain=False) == full
    assert log_text(records, retain=False) == log_text(records, retain=True)


# --- traffic no fixture has: long, shuffled, with every way a request can end


def line(seq: int, stream: Stream, payload: Any) -> LineRecord:
    return LineRecord(seq, seq * 0.01, stream, orjson.dumps(payload))


def request(i: Any, method: str = "tools/call", token: Any = None, meta: bool = True) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "echo"}
    if meta or token is not None:
        params["_meta"] = {
            **(META if meta else {}),
            **({"progressToken": token} if token is not None else {}),
        }
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": params}


def result(i: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "result": {"resultType": "complete", "content": []}}


def notification(method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def random_session(rng: random.Random, size: int) -> list[Record]:
    """Requests answered late, out of order, twice, with errors, cancelled, never; progress; held requests."""
    items: list[tuple[Stream, Any]] = []
    if rng.random() < 0.5:  # a legacy opening, with requests sent before initialize is answered
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        items.append((Stream.C2S, {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": init}))
        items += [(Stream.C2S, request(f"h{k}", meta=False)) for k in range(rng.randint(0, 3))]
        items += [(Stream.S2C, result(f"h{k}")) for k in range(rng.randint(0, 2))]
        rejected = {"jsonrpc": "2.0", "id": "init", "error": {"code": -32601, "message": "no initialize"}}
        items.append((Stream.S2C, result("init") if rng.random() < 0.5 else rejected))  # legacy, or modern
    pending: list[Any] = []
    answered: list[Any] = []
    for n in range(size):
        roll = rng.random()
        if roll < 0.35 or not pending:
            token = rng.choice([None, f"t{n}", n % 7])
            items.append((Stream.C2S, request(n, token=token, meta=rng.random() < 0.9)))
            pending.append(n)
        elif roll < 0.65:
            i = pending.pop(rng.randrange(len(pending)) if rng.random() < 0.3 else 0)
            reply = (
                result(i)
                if rng.random() < 0.8
                else {"jsonrpc": "2.0", "id": i, "error": {"code": -32603, "message": "x"}}
            )
            items.append((Stream.S2C, reply))
            answered.append(i)
        elif roll < 0.72:
            items.append((Stream.C2S, notification("notifications/cancelled", requestId=pending.pop())))
        elif roll < 0.85:
            token = rng.choice([f"t{rng.randrange(n + 1)}", rng.randrange(7), "nobody"])
            items.append(
                (
                    Stream.S2C,
                    notification("notifications/progress", progressToken=token, progress=rng.randrange(5)),
                )
            )
        elif roll < 0.9 and answered:
            items.append((Stream.S2C, result(rng.choice(answered))))  # a second reply
        elif roll < 0.95:
            items.append((Stream.S2C, result(rng.choice(["ghost", 10**6]))))
        else:
            items.append((Stream.S2C, b"ready "))  # stray text, sometimes glued to the next line
    records: list[Record] = []
    for seq, (stream, payload) in enumerate(items, start=1):
        records.append(
            line(seq, stream, payload)
            if not isinstance(payload, bytes)
            else LineRecord(seq, seq * 0.01, stream, payload)
        )
    records.append(LifecycleRecord(len(records) + 1, len(records) * 0.01, Event.SERVER_EXITED, {"code": 1}))
    return records


@pytest.mark.parametrize("seed", range(40))
def test_lean_mode_finds_what_full_mode_finds_on_random_sessions(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = random_session(random.Random(seed), 400)
    full = findings_of(records, retain=True)
    assert len({f.id for f in full}) > 5  # the session does exercise the rules
    monkeypatch.setattr(reporter, "RECENT_MESSAGES", 1)
    assert findings_of(records, retain=False) == full


def test_lean_mode_keeps_no_history() -> None:
    """50,000 exchanges with progress tokens, a few cancelled or unanswered: what is kept stays small."""
    analyzer = Analyzer(retain=False, schemas=result_schemas())
    seq = 0
    for n in range(50_000):
        seq += 1
        analyzer.feed(line(seq, Stream.C2S, request(n, token=f"t{n}")))
        seq += 1
        if n % 100 == 7:
            analyzer.feed(line(seq, Stream.C2S, notification("notifications/cancelled", requestId=n)))
        elif n % 100 != 9:  # never answered
            analyzer.feed(line(seq, Stream.S2C, result(n)))
    assert analyzer.message_count == seq - 500
    assert analyzer.messages == [] and analyzer.findings == [] and analyzer.exchanges == []
    assert analyzer.finding_counts[Severity.INFO] > 0  # the unanswered ones make later replies overtake
    out = analyzer._out
    assert len(out.by_seq) <= reporter.RECENT_MESSAGES
    assert len(analyzer.pending) == 500  # what pairing needs is kept
    assert all(e.held is not None for e in analyzer.pending)  # what their replies will be judged by
    client = analyzer._pairing._client
    assert len(client.closed) <= RECENT_EXCHANGES and len(client.closed_order) <= RECENT_EXCHANGES
    tokens = analyzer._progress._tokens[Stream.C2S]
    assert len(tokens) <= RECENT_EXCHANGES + 500 + 2


def test_full_mode_still_keeps_everything() -> None:
    analyzer = Analyzer(schemas=result_schemas())
    for n in range(1, 2001):
        analyzer.feed(line(n, Stream.C2S, request(n, token=f"t{n}")))
    assert len(analyzer.messages) == len(analyzer.exchanges) == analyzer.message_count == 2000
