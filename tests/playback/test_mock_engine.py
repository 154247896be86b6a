"""The mock as a pure object: recorded captures in, timed lines out, on a clock the test owns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpspy.capture.records import Stream
from mcpspy.playback.mock import MockServer, Timing, Unexpected
from mcpspy.playback.script import build_script
from mcpspy.replay_policy import open_capture
from tests.playback.captures import notification, request, result, write_capture

META_A = {"progressToken": "a-1", "io.modelcontextprotocol/protocolVersion": "2026-07-28"}
META_B = {"progressToken": "zz", "traceparent": "00-abc"}


def mock(path: Path, timing: Timing = Timing.RECORDED, strict: bool = False) -> MockServer:
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    return MockServer(build_script(capture, analyzer), timing, strict)


def lines_until(server: MockServer, now: float) -> list[bytes]:
    return [data for _, data in server.due(now)]


def parsed(lines: list[bytes]) -> list[Any]:
    return [orjson.loads(line) for line in lines]


def test_a_request_with_another_id_key_order_and_meta_gets_the_recorded_reply_with_its_id(
    tmp_path: Path,
) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (
                0.1,
                "c2s",
                request(1, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META_A}),
            ),
            (0.3, "s2c", '{"result": {"content":[{"type":"text","text":"3"}]} ,  "id" :1,"jsonrpc":"2.0"}'),
        ],
    )
    server = mock(path)
    server.start(0.0)
    line = b'{"jsonrpc":"2.0","id":"x-9","method":"tools/call","params":{"_meta":{"progressToken":7},"arguments":{"b":2,"a":1},"name":"add"}}'
    assert server.receive(line, 10.0) is None
    assert lines_until(server, 10.19) == []
    # every byte as recorded but the id's value
    assert lines_until(server, 10.2) == [
        b'{"result": {"content":[{"type":"text","text":"3"}]} ,  "id" :"x-9","jsonrpc":"2.0"}\n'
    ]


def test_several_candidates_are_used_in_recorded_order_then_the_last_again(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (0.1, "c2s", request(1, "tools/list")),
            (0.2, "s2c", result(1, {"tools": [], "page": "first"})),
            (0.3, "c2s", request(2, "tools/list")),
            (0.4, "s2c", result(2, {"tools": [], "page": "second"})),
        ],
    )
    server = mock(path, Timing.FAST)
    pages = []
    for i in range(4):
        server.receive(request(10 + i, "tools/list").encode(), float(i))
        (reply,) = parsed(lines_until(server, float(i)))
        assert reply["id"] == 10 + i
        pages.append(reply["result"]["page"])
    assert pages == ["first", "second", "second", "second"]


def test_initialize_from_another_client_matches_on_the_method(tmp_path: Path) -> None:
    recorded_init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "a", "version": "1"},
    }
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (0.1, "c2s", request(0, "initialize", recorded_init)),
            (0.2, "s2c", result(0, {"serverInfo": {"name": "s"}})),
        ],
    )
    server = mock(path, Timing.FAST)
    other = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"roots": {}},
        "clientInfo": {"name": "b", "version": "2"},
    }
    server.receive(request(1, "initialize", other).encode(), 0.0)
    assert parsed(lines_until(server, 0.0)) == [
        {"jsonrpc": "2.0", "id": 1, "result": {"serverInfo": {"name": "s"}}}
    ]


def test_a_tool_call_with_other_arguments_is_unmatched(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (0.1, "c2s", request(1, "tools/call", {"name": "add", "arguments": {"a": 1}})),
            (0.2, "s2c", result(1, {"content": []})),
        ],
    )
    server = mock(path, Timing.FAST)
    server.receive(request(5, "tools/call", {"name": "add", "arguments": {"a": 2}}).encode(), 0.0)
    (reply,) = parsed(lines_until(server, 0.0))
    assert reply["id"] == 5 and reply["error"]["code"] == -32601
    strict = mock(path, Timing.FAST, strict=True)
    stop = strict.receive(request(5, "tools/call", {"name": "add", "arguments": {"a": 2}}).encode(), 0.0)
    assert isinstance(stop, Unexpected)
    assert stop.reason == 'no recorded request matches tools/call {"arguments":{"a":2},"name":"add"}'
    assert lines_until(strict, 0.0) == []


@pytest.mark.parametrize(
    ("line", "code", "reply_id"),
    [(b"hello", -32700, None), (b"[1,2]", -32600, None), (b'{"jsonrpc":"2.0","id":4}', -32600, 4)],
)
def test_lines_that_are_not_requests_get_the_json_rpc_error(
    line: bytes, code: int, reply_id: Any, tmp_path: Path
) -> None:
    server = mock(write_capture(tmp_path / "c.jsonl", []), Timing.FAST)
    server.receive(line, 0.0)
    (reply,) = parsed(lines_until(server, 0.0))
    assert (reply["id"], reply["error"]["code"]) == (reply_id, code)
    assert isinstance(mock(tmp_path / "c.jsonl", strict=True).receive(line, 0.0), Unexpected)


def test_notifications_and_blank_lines_get_nothing(tmp_path: Path) -> None:
    server = mock(write_capture(tmp_path / "c.jsonl", []), Timing.FAST, strict=True)
    assert server.receive(notification("notifications/initialized").encode(), 0.0) is None
    assert server.receive(b"", 0.0) is None
    assert server.receive(b"  \r", 0.0) is None
    assert lines_until(server, 99.0) == []


def out_of_order_capture(tmp_path: Path) -> Path:
    return write_capture(
        tmp_path / "c.jsonl",
        [
            (1.0, "c2s", request("slow", "tools/call", {"name": "wait", "arguments": {"s": 1}})),
            (1.0, "c2s", request("quick", "tools/call", {"name": "wait", "arguments": {"s": 0}})),
            (1.2, "s2c", result("quick", {"content": [{"type": "text", "text": "quick"}]})),
            (1.6, "s2c", result("slow", {"content": [{"type": "text", "text": "slow"}]})),
        ],
    )


def test_recorded_timing_keeps_replies_out_of_order(tmp_path: Path) -> None:
    server = mock(out_of_order_capture(tmp_path))
    server.receive(request(1, "tools/call", {"name": "wait", "arguments": {"s": 1}}).encode(), 5.0)
    server.receive(request(2, "tools/call", {"name": "wait", "arguments": {"s": 0}}).encode(), 5.0)
    assert server.next_due() == pytest.approx(5.2)
    assert [m["id"] for m in parsed(lines_until(server, 5.3))] == [2]
    assert [m["id"] for m in parsed(lines_until(server, 5.6))] == [1]


def test_fast_timing_answers_at_once_in_arrival_order(tmp_path: Path) -> None:
    server = mock(out_of_order_capture(tmp_path), Timing.FAST)
    server.receive(request(1, "tools/call", {"name": "wait", "arguments": {"s": 1}}).encode(), 5.0)
    server.receive(request(2, "tools/call", {"name": "wait", "arguments": {"s": 0}}).encode(), 5.0)
    assert [m["id"] for m in parsed(lines_until(server, 5.0))] == [1, 2]


def test_stray_lines_stderr_and_notifications_follow_what_they_followed(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (0.05, "s2c", "ready"),
            (0.06, "err", "listening on stdio"),
            (1.0, "c2s", request(1, "tools/call", {"name": "export"})),
            (1.1, "s2c", notification("notifications/progress", {"progressToken": 1, "progress": 1})),
            (1.2, "s2c", "ready "),
            (1.3, "s2c", result(1, {"content": []})),
            (1.5, "s2c", notification("notifications/tools/list_changed")),
        ],
    )
    server = mock(path)
    server.start(100.0)
    assert server.due(100.07) == [(Stream.S2C, b"ready\n"), (Stream.ERR, b"listening on stdio\n")]
    server.receive(request(7, "tools/call", {"name": "export"}).encode(), 200.0)
    out = server.due(200.6)
    assert [data for _, data in out][:2] == [
        notification("notifications/progress", {"progressToken": 1, "progress": 1}).encode() + b"\n",
        b"ready \n",
    ]
    assert parsed([data for _, data in out][2:]) == [
        {"jsonrpc": "2.0", "id": 7, "result": {"content": []}},
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
    ]
    # used again: the reply alone (a list_changed after every call would loop a client that re-lists)
    server.receive(request(8, "tools/call", {"name": "export"}).encode(), 300.0)
    assert parsed(lines_until(server, 301.0)) == [{"jsonrpc": "2.0", "id": 8, "result": {"content": []}}]


def test_a_glued_prefix_and_a_missing_last_newline_are_kept(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [(0.1, "c2s", request(1, "ping")), (0.2, "s2c", "ready " + result(1, {}))],
        unterminated_last=True,
    )
    server = mock(path, Timing.FAST)
    server.receive(request(99, "ping").encode(), 0.0)
    assert lines_until(server, 0.0) == [b'ready {"jsonrpc":"2.0","id":99,"result":{}}']


def test_invalid_utf8_in_a_recorded_line_goes_out_byte_for_byte(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl", [(0.1, "c2s", request(1, "ping")), (0.2, "s2c", b"\xff\xfe junk\r")]
    )
    server = mock(path, Timing.FAST)
    server.receive(request(3, "ping").encode(), 0.0)
    assert lines_until(server, 0.0) == [b"\xff\xfe junk\r\n"]


def test_a_server_request_answered_by_the_client_releases_what_followed(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (0.1, "c2s", request(1, "tools/call", {"name": "ask"})),
            (0.2, "s2c", request(0, "sampling/createMessage", {"messages": []})),
            (0.5, "c2s", result(0, {"role": "assistant", "content": {"type": "text", "text": "hi"}})),
            (0.6, "s2c", notification("notifications/message", {"level": "info", "data": "sampled"})),
            (0.7, "s2c", result(1, {"content": []})),
        ],
    )
    server = mock(path, Timing.FAST)
    server.receive(request(5, "tools/call", {"name": "ask"}).encode(), 0.0)
    assert [m.get("method", m.get("id")) for m in parsed(lines_until(server, 0.0))] == [
        "sampling/createMessage",
        5,
    ]
    server.receive(
        result(0, {"role": "assistant", "content": {"type": "text", "text": "other"}}).encode(), 1.0
    )
    assert [m["method"] for m in parsed(lines_until(server, 1.0))] == ["notifications/message"]


def test_after_stdin_closes_owed_replies_still_come_and_the_rest_is_dropped(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (0.1, "c2s", request(1, "tools/call", {"name": "slow"})),
            (0.2, "s2c", notification("notifications/message", {"level": "info", "data": "x"})),
            (0.9, "s2c", result(1, {"content": []})),
        ],
    )
    server = mock(path)
    server.receive(request(1, "tools/call", {"name": "slow"}).encode(), 0.0)
    server.close_input()
    assert not server.done
    assert parsed(lines_until(server, 1.0)) == [{"jsonrpc": "2.0", "id": 1, "result": {"content": []}}]
    assert server.done


def test_an_unanswered_recorded_request_stays_unanswered(tmp_path: Path) -> None:
    path = write_capture(tmp_path / "c.jsonl", [(0.1, "c2s", request(1, "tools/call", {"name": "hang"}))])
    server = mock(path)
    server.receive(request(1, "tools/call", {"name": "hang"}).encode(), 0.0)
    assert server.next_due() is None


def test_a_pretty_printed_reply_goes_out_as_recorded(tmp_path: Path) -> None:
    path = write_capture(
        tmp_path / "c.jsonl",
        [
            (0.1, "c2s", request(1, "ping")),
            (0.2, "s2c", "{"),
            (0.2, "s2c", '  "jsonrpc": "2.0", "id": 1, "result": {}'),
            (0.2, "s2c", "}"),
        ],
    )
    server = mock(path, Timing.FAST)
    server.receive(request(1, "ping").encode(), 0.0)
    assert lines_until(server, 0.0) == [b"{\n", b'  "jsonrpc": "2.0", "id": 1, "result": {}\n', b"}\n"]
