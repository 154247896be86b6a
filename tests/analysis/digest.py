"""A digest of what the analysis says about captures, to prove a refactoring changed nothing.

    python -m tests.analysis.digest OUT.txt [--fixtures DIR] [CAPTURE ...]

writes one line per finding (id, seq, stream, related seq, message), per
exchange (its state, reply, order, cancel, revision) and per message (kind,
id, method, glued prefix), for every fixture in fixtures/, for a seeded noise
corpus (the fixtures' lines recombined: shuffled across pipes, truncated,
glued, split over lines), and for each CAPTURE given; then prints one sha256
per source. Diff two OUT files to see what changed.

It uses only the analysis's public API, so it runs on old and new code alike.
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream
from mcpspy.replay_policy import replay_records

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NOISE_SEEDS = range(40)
NOISE_RECORDS = 400


def describe(records: Iterable[Record]) -> Iterator[str]:
    """The analysis of ``records``, one line per fact."""
    analyzer = replay_records(records).analyzer
    yield f"era {analyzer.era.value} {analyzer.protocol_version!r} {analyzer.supported_versions!r}"
    for m in analyzer.messages:
        yield f"message {m.seq} {m.kind.value} {m.id!r} {m.method!r} {m.glued_prefix!r} {len(m.findings)}"
    for e in analyzer.exchanges:
        yield (
            f"exchange {e.request_seq} {e.method!r} {e.id!r} {e.state.value} reply={e.reply_seq} "
            f"ooo={e.out_of_order} cancel={e.cancel_seq} long={e.long_lived} version={e.version!r}"
        )
    for f in analyzer.findings:
        stream = f.stream.value if f.stream else None
        yield f"finding {f.id} {f.severity.label} {f.seq} {stream} {f.related_seq} {f.message}"


def fixture_lines(fixtures: Path) -> list[tuple[Stream, bytes]]:
    lines: list[tuple[Stream, bytes]] = []
    for path in sorted(fixtures.glob("*.jsonl")):
        for record in read_capture(path).records:
            if isinstance(record, LineRecord):
                lines.append((record.stream, record.data))
    return lines


def noise(seed: int, pool: list[tuple[Stream, bytes]]) -> list[Record]:
    """Fixture lines recombined at random: every rule's inputs, in orders no fixture has."""
    rng = random.Random(seed)
    records: list[Record] = []
    t = 0.0

    def line(stream: Stream, data: bytes, terminated: bool = True) -> None:
        records.append(LineRecord(len(records) + 1, t, stream, data, terminated))

    while len(records) < NOISE_RECORDS:
        t += rng.choice((0.001, 0.01, 0.5, 7.0))
        stream, data = rng.choice(pool)
        roll = rng.random()
        if roll < 0.15:
            stream = rng.choice(list(Stream))
        elif roll < 0.2:
            data = data[: rng.randrange(len(data) + 1)]
        elif roll < 0.25:
            data = rng.choice((b"ready ", b"x", b"{", b"[1", b"}", b"\xff")) + data
        elif roll < 0.3 and data.startswith(b"{"):
            cut = rng.randrange(1, len(data) + 1)
            line(stream, data[:cut])
            data = data[cut:]
        elif roll < 0.33:
            event = rng.choice(list(Event))
            details: dict[str, int | str | float] = {"code": rng.choice((0, 1)), "grace": 2}
            records.append(LifecycleRecord(len(records) + 1, t, event, details))
            continue
        line(stream, data, rng.random() > 0.02)
    return records


def sources(fixtures: Path, captures: list[Path]) -> Iterator[tuple[str, list[Record]]]:
    for path in sorted(fixtures.glob("*.jsonl")):
        yield path.name, list(read_capture(path).records)
    pool = fixture_lines(fixtures)
    for seed in NOISE_SEEDS:
        yield f"noise-{seed}", noise(seed, pool)
    for path in captures:
        yield str(path), list(read_capture(path).records)


def main(argv: list[str]) -> int:
    out_path, rest = Path(argv[0]), argv[1:]
    fixtures = FIXTURES
    if rest[:1] == ["--fixtures"]:  # another set, e.g. a copy of the fixtures of the code compared with
        fixtures, rest = Path(rest[1]), rest[2:]
    with out_path.open("w") as out:
        for name, records in sources(fixtures, [Path(a) for a in rest]):
            lines = list(describe(records))
            digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
            print(f"{digest} {len(lines):7d} {name}")
            out.write(f"== {name}\n")
            out.writelines(line + "\n" for line in lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
