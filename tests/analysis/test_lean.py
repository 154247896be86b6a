"""The lean analysis behind `--log` (``retain=False``) finds what the full one finds, and holds no history."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpspy.analysis import analyzer as analyzer_module
from mcpspy.analysis import reporter
from mcpspy.analysis.analyzer import RECENT_EXCHANGES, Analyzer
from mcpspy.analysis.model import ExchangeState, ExchangeUpdated, Finding, FindingRaised, Severity
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream
from mcpspy.proxy.log import LogSink
from mcpspy.replay_policy import Replay
from tests.analysis.scenarios_exchange import LEAN_BOUND, LEAN_EXPECTED
from tests.analysis.steps import FIXTURES as FIXTURES_DIR
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


# --- past the bound: the oldest pending requests become unknown, and one finding says how many


def test_past_the_bound_the_oldest_become_unknown_and_one_finding_says_how_many(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fixture of pairing.pending-limit, lean with a bound of 3: what LEAN_EXPECTED says."""
    monkeypatch.setattr(analyzer_module, "PENDING_BOUND", LEAN_BOUND)
    records = list(read_capture(FIXTURES_DIR / "pairing-pending-limit.jsonl").records)
    found = findings_of(records, retain=False)
    assert sorted((f.id, f.seq) for f in found) == sorted(LEAN_EXPECTED["pairing-pending-limit"])
    (limit,) = [f for f in found if f.id == "pairing.pending-limit"]
    assert limit.message.startswith(
        "2 request(s) were set aside as unknown (2 of the client's, 0 of the server's)"
    )
    assert "more than 3 a direction" in limit.message


def test_the_bound_holds_each_way_and_the_count_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that echoes every request (`cat`): both directions fill up, neither grows past the bound."""
    monkeypatch.setattr(analyzer_module, "PENDING_BOUND", 50)
    analyzer = Analyzer(retain=False, schemas=result_schemas())
    states: dict[int, ExchangeState] = {}
    seq = 0
    for n in range(1, 1001):
        for stream in (Stream.C2S, Stream.S2C):
            seq += 1
            for event in analyzer.feed(line(seq, stream, request(n))):
                if isinstance(event, ExchangeUpdated) and event.exchange.stream is Stream.C2S:
                    states[event.exchange.request_seq] = event.exchange.state
        assert len(analyzer._pairing._client.pending) <= 50 and len(analyzer._pairing._server.pending) <= 50
    assert list(states.values()) == [ExchangeState.UNKNOWN] * 950  # the oldest, each once
    assert sorted(states) == list(range(1, 2 * 950, 2))
    events = analyzer.finish()
    raised = [e.finding for e in events if isinstance(e, FindingRaised)]
    assert [f.id for f in raised].count("pairing.unanswered") == 50  # the client's kept ones
    (limit,) = [f for f in raised if f.id == "pairing.pending-limit"]
    assert limit.seq == 1
    assert (
        "1,900 request(s) were set aside as unknown (950 of the client's, 950 of the server's)"
        in limit.message
    )


def test_a_reply_to_a_request_set_aside_is_no_stray_and_a_gap_keeps_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(analyzer_module, "PENDING_BOUND", 10)
    replay = Replay(retain=False)
    seq = 0
    for n in range(1, 31):
        seq += 1
        replay.feed(line(seq, Stream.C2S, request(n)))
    replay.analyzer.records_missing()  # the 10 kept go to the gap's unsure ones
    for n in range(31, 61):
        seq += 1
        replay.feed(line(seq, Stream.C2S, request(n)))
    replay.analyzer.records_missing()  # 20 unsure now: the 10 oldest are set aside too
    assert len(replay.analyzer._pairing._client.unsure) == 10
    seq += 1
    events = replay.feed(line(seq, Stream.S2C, result(1)))  # set aside long ago
    assert not [e for e in events if isinstance(e, FindingRaised)]
    raised = [e.finding for e in replay.conclude() if isinstance(e, FindingRaised)]
    (limit,) = [f for f in raised if f.id == "pairing.pending-limit"]
    assert "50 request(s) were set aside" in limit.message


def test_below_the_bound_lean_and_full_agree_with_the_bound_at_the_peak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bound set to the most requests ever pending at once in a session: nothing is set aside."""
    records = random_session(random.Random(7), 400)
    full = findings_of(records, retain=True)
    replay, peak = Replay(), 0
    for record in records:
        replay.feed(record)
        peak = max(
            peak, len(replay.analyzer._pairing._client.pending), len(replay.analyzer._pairing._server.pending)
        )
    assert peak > 5
    monkeypatch.setattr(analyzer_module, "PENDING_BOUND", peak)
    assert findings_of(records, retain=False) == full
    monkeypatch.setattr(analyzer_module, "PENDING_BOUND", peak - 1)
    assert "pairing.pending-limit" in {f.id for f in findings_of(records, retain=False)}


def test_records_missing_says_what_became_unknown() -> None:
    """A sink told of a gap hears which pending exchanges it made unknown (they once went nowhere)."""
    replay = Replay(retain=False)
    replay.feed(line(1, Stream.C2S, request(1)))
    replay.feed(line(2, Stream.C2S, request(2)))
    replay.feed(line(3, Stream.S2C, result(1)))
    events = replay.analyzer.records_missing()
    updated = [e.exchange for e in events if isinstance(e, ExchangeUpdated)]
    assert [(x.id, x.state) for x in updated] == [(2, ExchangeState.UNKNOWN)]
