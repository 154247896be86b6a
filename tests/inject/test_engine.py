"""The pure injector: fed traffic in any chunks, it changes exactly what each Mark says, nothing else."""

from __future__ import annotations

import itertools

import orjson
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.capture.records import Stream
from mcpspy.inject.catalogue import FAULTS, Action
from mcpspy.inject.engine import Close, Injector, Kill, Mark, Pause, Step, Write
from mcpspy.inject.spec import parse_spec

C2S, S2C = Stream.C2S, Stream.S2C
METHODS = ("tools/list", "tools/call", "ping")
#: The faults whose change is contiguous in the stream (the held ones may let other lines pass).
CONTIGUOUS = sorted(
    f.id
    for f in FAULTS.values()
    if f.direction == "s2c"
    and f.action not in (Action.REORDER, Action.AFTER_CANCEL, Action.KILL, Action.CUT, Action.DRIP)
)


def request(i: int, method: str) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": {"n": i}}) + b"\n"


def reply(i: int) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {"text": f"reply {i}", "k": [1, 2]}}) + b"\n"


@st.composite
def traffic(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """The client's requests, and the server's stdout: replies with notifications and junk between."""
    n = draw(st.integers(1, 12))
    methods = [draw(st.sampled_from(METHODS)) for _ in range(n)]
    client = b"".join(request(i, m) for i, m in enumerate(methods, 1))
    server = bytearray()
    for i in range(1, n + 1):
        extra = draw(
            st.sampled_from([b"", b'{"jsonrpc":"2.0","method":"notifications/message"}\n', b"log\n"])
        )
        server += extra + reply(i)
    return client, bytes(server)


def chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


def run(injector: Injector, client: bytes, server: list[bytes], quick: bool = True) -> list[Step]:
    """As the pumps do: the client's requests first (observed), then the server's chunks; S2C steps."""
    for line in client.splitlines(keepends=True):
        client_line(injector, line)
    steps: list[Step] = []
    for chunk in [*server, b""]:
        steps += server_chunk(injector, chunk, quick)
    return steps


def client_line(injector: Injector, line: bytes) -> None:
    if injector.passthrough(C2S):
        injector.observe(line)
    else:
        injector.feed(C2S, line, 0.0)


def server_chunk(injector: Injector, chunk: bytes, quick: bool = True) -> list[Step]:
    """What the injecting pump writes for a server chunk (``quick``: as it does, else always a line at
    a time)."""
    if injector.passthrough(S2C):
        return [Write(S2C, chunk), *injector.due(S2C, 1e9)]
    if quick and injector.quick(S2C, chunk):
        assert injector.feed(S2C, chunk, 0.0, forwarded=True) == []
        return [Write(S2C, chunk), *injector.due(S2C, 1e9)]
    return [*injector.feed(S2C, chunk, 0.0), *injector.due(S2C, 1e9)]


def check_only_marked_changes(server: bytes, steps: list[Step]) -> bytes:
    """Walk the writes: every byte is the server's, except right after a Mark, whose ``after`` it is."""
    received = b"".join(s.data for s in steps if isinstance(s, Write) and s.to is S2C)
    pos_in, pos_out = 0, 0
    owed_after = b""
    for step in steps:
        if isinstance(step, Mark) and step.stream is not S2C:  # stderr's: what went to stderr
            errs = b"".join(s.data for s in steps if isinstance(s, Write) and s.to is Stream.ERR)
            assert step.after and step.after in errs
        elif isinstance(step, Mark):
            assert not owed_after
            assert server[pos_in:].startswith(step.before), (step, server[pos_in:][:80])
            pos_in += len(step.before)
            owed_after = step.after
        elif isinstance(step, Write) and step.to is S2C:
            data = step.data
            take = min(len(owed_after), len(data))
            assert data[:take] == owed_after[:take]
            owed_after, data = owed_after[take:], data[take:]
            assert data == server[pos_in : pos_in + len(data)], (data[:80], server[pos_in:][:80])
            pos_in += len(data)
        pos_out += len(step.data) if isinstance(step, Write) else 0
    assert not owed_after
    assert pos_in == len(server)
    return received


@given(
    traffic(),
    st.lists(st.integers(0, 10_000), max_size=8),
    st.sampled_from(CONTIGUOUS),
    st.sampled_from(["", "#2", "#every", "~0.5", "@tools/call", "@id=3"]),
    st.integers(0, 3),
)
def test_no_byte_changes_but_the_marked_ones(
    flow: tuple[bytes, bytes], cuts: list[int], fault: str, where: str, seed: int
) -> None:
    client, server = flow
    spec = parse_spec(fault + where + _small(fault))
    steps = run(Injector([spec], seed), client, chunks(server, cuts))
    received = check_only_marked_changes(server, steps)
    # The same seed and traffic, in other chunks, gives the same bytes.
    again = run(Injector([spec], seed), client, [server])
    assert b"".join(s.data for s in again if isinstance(s, Write) and s.to is S2C) == received


def _small(fault: str) -> str:
    """Parameters that keep a test fast (sizes and counts down)."""
    return {
        "stdout.oversized-line": ":size=1KiB",
        "server.notification-flood": ":count=3",
        "stderr.flood": ":size=300",
    }.get(fault, "")


@given(traffic(), st.lists(st.integers(0, 10_000), max_size=8))
def test_untouched_traffic_passes_unchanged_in_any_chunks(flow: tuple[bytes, bytes], cuts: list[int]) -> None:
    """A SPEC that never strikes (a method never called) changes nothing, however the bytes come."""
    client, server = flow
    steps = run(Injector([parse_spec("stdout.not-json@never/called#every")]), client, chunks(server, cuts))
    assert not any(isinstance(s, Mark) for s in steps)
    assert b"".join(s.data for s in steps if isinstance(s, Write)) == server


def test_a_nth_spec_strikes_once_and_then_the_side_is_passthrough() -> None:
    injector = Injector([parse_spec("stdout.crlf#2")])
    injector.observe(request(1, "ping") + request(2, "ping") + request(3, "ping"))
    assert not injector.passthrough(S2C)
    first = injector.feed(S2C, reply(1), 0.0)
    assert first == [Write(S2C, reply(1))]
    second = injector.feed(S2C, reply(2), 0.0)
    assert [type(s) for s in second] == [Mark, Write]
    assert second[1] == Write(S2C, reply(2)[:-1] + b"\r\n")
    assert injector.passthrough(S2C)
    assert not injector.observing  # nothing left to strike: the client's chunks go the plain way
    assert injector.unmatched() == []


def test_reorder_lets_the_next_reply_pass_and_a_deadline_lets_it_go() -> None:
    injector = Injector([parse_spec("pairing.out-of-order:wait=100ms")])
    injector.observe(request(1, "ping") + request(2, "ping"))
    assert injector.feed(S2C, reply(1), 10.0) == []
    assert injector.deadline(S2C) == 10.1
    steps = injector.feed(S2C, b"log\n" + reply(2), 10.05)
    assert [s for s in steps if isinstance(s, Write)] == [
        Write(S2C, b"log\n"),
        Write(S2C, reply(2) + reply(1)),
    ]
    lone = Injector([parse_spec("pairing.out-of-order:wait=100ms")])
    lone.observe(request(1, "ping"))
    assert lone.feed(S2C, reply(1), 0.0) == []
    assert lone.due(S2C, 0.05) == []
    let_go = lone.due(S2C, 0.1)
    assert let_go[-1] == Write(S2C, reply(1))
    assert isinstance(let_go[0], Mark) and let_go[0].note == "timed out"


def test_a_reply_held_for_the_cancel_goes_when_the_client_cancels() -> None:
    injector = Injector([parse_spec("pairing.reply-after-cancel@tools/call")])
    injector.observe(request(1, "tools/call"))
    assert injector.feed(S2C, reply(1), 0.0) == []
    cancel = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n'
    injector.observe(cancel)
    steps = injector.due(S2C, 0.001)
    mark = steps[0]
    assert isinstance(mark, Mark) and mark.note == "cancelled"
    assert steps[-1] == Write(S2C, reply(1))


def test_our_request_is_answered_by_the_client_and_kept_from_the_server() -> None:
    injector = Injector([parse_spec("server.roots-list")])
    injector.observe(request(1, "tools/list"))
    steps = injector.feed(S2C, reply(1), 0.0)
    asked = orjson.loads(steps[-1].data.split(b"\n")[0])  # type: ignore[union-attr]
    assert asked["method"] == "roots/list"
    assert not injector.passthrough(C2S)
    answer = orjson.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": []}}) + b"\n"
    c2s = injector.feed(C2S, answer + request(2, "ping"), 0.0)
    marks = [s for s in c2s if isinstance(s, Mark)]
    assert marks and marks[0].note == "answered" and marks[0].before == answer
    assert [s for s in c2s if isinstance(s, Write)] == [Write(C2S, request(2, "ping"))]
    assert injector.passthrough(C2S)


def test_a_crash_strikes_as_the_request_arrives() -> None:
    injector = Injector([parse_spec("lifecycle.crash-in-flight@tools/call")])
    assert injector.observe(request(1, "tools/list")) == []
    steps = injector.observe(request(2, "tools/call"))
    assert [type(s) for s in steps] == [Mark, Kill]


def test_a_cut_line_closes_the_client_and_drops_the_rest() -> None:
    injector = Injector([parse_spec("stdout.unterminated")])
    injector.observe(request(1, "ping") + request(2, "ping"))
    steps = injector.feed(S2C, reply(1) + reply(2), 0.0)
    writes = [s for s in steps if isinstance(s, Write)]
    assert writes == [Write(S2C, reply(1)[: (len(reply(1)) - 1) // 2])]
    assert isinstance(steps[-1], Close)
    assert injector.feed(S2C, reply(2), 0.0) == []


def test_split_and_drip_write_the_same_bytes_in_pieces_with_pauses() -> None:
    for spec, count in (("stdout.split:writes=4,gap=5ms", 4), ("stdout.drip", len(reply(1)))):
        injector = Injector([parse_spec(spec)])
        injector.observe(request(1, "ping"))
        steps = injector.feed(S2C, reply(1), 0.0)
        writes = [s.data for s in steps if isinstance(s, Write)]
        assert len(writes) == count and b"".join(writes) == reply(1)
        assert sum(isinstance(s, Pause) for s in steps) == count - 1


def test_a_partial_line_longer_than_the_hold_limit_streams_on_untouched() -> None:
    from mcpspy.inject.engine import HOLD_LIMIT

    injector = Injector([parse_spec("stdout.not-json#every")])
    injector.observe(request(1, "ping"))
    big = b'{"jsonrpc":"2.0","id":1,"result":{"x":"' + b"y" * (HOLD_LIMIT + 10)
    steps = injector.feed(S2C, big, 0.0)
    assert steps == [Write(S2C, big)]
    assert injector.feed(S2C, b'"}}\n', 0.0) == [Write(S2C, b'"}}\n')]


@st.composite
def exchanges(draw: st.DrawFn) -> list[tuple[bytes, list[bytes]]]:
    """Requests each followed by the server's chunks up to its reply, cut anywhere: what a server
    writes after a request reached it (notifications and junk before the reply)."""
    out = []
    for i in range(1, draw(st.integers(1, 12)) + 1):
        extra = draw(
            st.sampled_from([b"", b'{"jsonrpc":"2.0","method":"notifications/message"}\n', b"log\n"])
        )
        server = extra + reply(i)
        out.append(
            (request(i, draw(st.sampled_from(METHODS))), chunks(server, draw(st.lists(st.integers(0, 999)))))
        )
    return out


@given(
    exchanges(),
    st.sampled_from(CONTIGUOUS),
    st.sampled_from(["", "#3", "#every", "~0.5", "@tools/call", "@tools/call#2", "@ping#every", "@id=3"]),
    st.integers(0, 3),
)
def test_forwarding_a_chunk_as_read_while_a_spec_waits_changes_nothing_it_does(
    flow: list[tuple[bytes, list[bytes]]], fault: str, where: str, seed: int
) -> None:
    """``quick`` chunks go on before the engine looks: the bytes, the Marks and the counts are the same
    as a line at a time, and while a SPEC waits for a method nobody asked, nothing waits for it."""
    spec = parse_spec(fault + where + _small(fault))
    results = []
    for quick in (True, False):
        injector = Injector([spec], seed)
        steps: list[Step] = []
        for request_line, server_chunks in flow:
            client_line(injector, request_line)
            for chunk in server_chunks:
                steps += server_chunk(injector, chunk, quick)
        steps += server_chunk(injector, b"", quick)
        written = b"".join(s.data for s in steps if isinstance(s, Write))
        results.append(
            (written, [s for s in steps if isinstance(s, Mark)], [s.fired for s in injector.states])
        )
    assert results[0] == results[1]


def test_a_spec_waiting_for_a_method_nobody_asked_lets_every_chunk_go_as_read() -> None:
    injector = Injector([parse_spec("stdout.not-json@tools/call#every")])
    client_line(injector, request(1, "tools/list"))
    assert not injector.passthrough(S2C) and injector.quick(S2C, reply(1)[:10])
    assert injector.feed(S2C, reply(1)[:10], 0.0, forwarded=True) == []
    client_line(injector, request(2, "tools/call"))  # now a reply may be struck: a line at a time
    assert not injector.quick(S2C, reply(1)[10:])
    steps = injector.feed(S2C, reply(1)[10:] + reply(2), 0.0)
    assert [type(s) for s in steps] == [Write, Mark, Write]
    assert steps[0] == Write(S2C, reply(1)[10:])  # the rest of the line that went on as read, untouched
    assert isinstance(steps[1], Mark) and steps[1].id == "2"
    assert injector.quick(S2C, reply(3))  # answered: nothing pending for tools/call again


@given(
    st.lists(st.sampled_from(["tools/call", "tools/list", "ping"]), min_size=1, max_size=6),
    st.booleans(),
    st.lists(st.integers(0, 2_000), max_size=6),
)
def test_a_request_the_spec_waits_for_is_learnt_however_it_is_spelt_or_cut(
    methods: list[str], escaped: bool, cuts: list[int]
) -> None:
    """Client lines forwarded unparsed (no SPEC's method in them) never hide one: a method spelt with
    escapes, or cut across chunks, is still learnt, and the reply to it is struck."""
    injector = Injector([parse_spec("stdout.not-json@tools/call")])
    client = b"".join(request(i, m) for i, m in enumerate(methods, 1))
    if escaped:
        client = client.replace(b"tools/", b"tools\\/")
    for chunk in chunks(client, cuts):
        assert injector.passthrough(C2S)
        injector.observe(chunk)
    steps = [step for i in range(1, len(methods) + 1) for step in server_chunk(injector, reply(i))]
    struck = [s.id for s in steps if isinstance(s, Mark)]
    first = methods.index("tools/call") + 1 if "tools/call" in methods else None
    assert struck == ([] if first is None else [str(first)])
