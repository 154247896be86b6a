"""Time to analyse one stray line of 1, 4 and 16 MB: `python benchmarks/stray_lines.py [MB ...]`.

Each shape is what a server's stray print can put on stdout: a line of braces,
print(list_of_dicts), a label then broken JSON that names "jsonrpc" (the worst
case: the opener of the value the line ends with is looked for, over the whole
line), a message glued after "ready ", and a message pretty-printed over 400
lines (fed line by line).
Prints one line a shape and size, in seconds (best of three); linear means
the 16 MB time is about 16 times the 1 MB time.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import orjson

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.rules.framing import classify_line
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.records import LineRecord, Stream

MB = 1_000_000
PRETTY_LINES = 400


def braces(size: int) -> bytes:
    return b"x" + b"{" * (size - 1)


def printed_list(size: int) -> bytes:
    item = "{'id': 1000000, 'name': 'ticket 1000000'}, "
    return repr(
        [{"id": 1_000_000 + i, "name": f"ticket {1_000_000 + i}"} for i in range(size // len(item))]
    ).encode()


def labelled_json(size: int) -> bytes:
    """Worst case: it names "jsonrpc", does not parse from its first {, and ends with }."""
    item = b'"t1000000": {"id": 1000000, "open": true}, '
    entries = b", ".join(b'"t%d": {"id": %d, "open": true}' % (i, i) for i in range(size // len(item)))
    return b'tickets: {"jsonrpc": 2.0.0, ' + entries + b"}"


def glued(size: int) -> bytes:
    text = "x" * (size - 80)
    return b"ready " + orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": text}})


def pretty_lines(size: int) -> list[bytes]:
    item = "x" * (size // PRETTY_LINES)
    value = {"jsonrpc": "2.0", "id": 1, "result": {"items": [item] * (PRETTY_LINES - 8)}}
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).split(b"\n")


def classify(line: bytes) -> Callable[[], object]:
    return lambda: classify_line(line, Stream.S2C)


def feed(lines: list[bytes]) -> Callable[[], object]:
    def run() -> object:
        analyzer = Analyzer(schemas=result_schemas())
        for seq, line in enumerate(lines, start=1):
            analyzer.feed(LineRecord(seq, 0.0, Stream.S2C, line))
        return analyzer.finish()

    return run


def best_of_three(run: Callable[[], object]) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main(sizes: list[int]) -> int:
    shapes: list[tuple[str, Callable[[int], Callable[[], object]]]] = [
        ("x{{{... (braces)", lambda n: classify(braces(n))),
        ("print(list of dicts)", lambda n: classify(printed_list(n))),
        ("label: {broken JSON}", lambda n: classify(labelled_json(n))),
        ("ready {message}", lambda n: classify(glued(n))),
        (f"pretty-printed, {PRETTY_LINES} lines", lambda n: feed(pretty_lines(n))),
    ]
    print(f"{'stray line':<28}" + "".join(f"{f'{mb} MB':>10}" for mb in sizes))
    for name, make in shapes:
        times = [best_of_three(make(mb * MB)) for mb in sizes]
        print(f"{name:<28}" + "".join(f"{t:>9.3f}s" for t in times))
    return 0


if __name__ == "__main__":
    sys.exit(main([int(a) for a in sys.argv[1:]] or [1, 4, 16]))
