"""Properties of the mock's pure parts on arbitrary input: nothing crashes, ids move and nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpspy.jsonutil.structural import json_equal
from mcpspy.playback.matching import Incoming, read_client_line, request_key
from mcpspy.playback.message_bytes import split_at_id
from mcpspy.playback.mock import MockServer, Timing
from mcpspy.playback.script import build_script
from mcpspy.replay_policy import open_capture
from tests.playback.captures import request, result, write_capture

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=25,
)
ids = st.integers(min_value=-(2**53), max_value=2**53) | st.text()


@given(st.binary())
def test_any_bytes_are_read_without_raising(line: bytes) -> None:
    assert read_client_line(line).kind in Incoming


@given(json_values)
def test_any_json_value_is_read_without_raising(value: Any) -> None:
    read_client_line(orjson.dumps(value))


@given(
    st.dictionaries(st.text(), json_values, max_size=5), st.dictionaries(st.text(), json_values, max_size=3)
)
def test_the_request_key_ignores_key_order_and_meta(params: dict[str, Any], meta: dict[str, Any]) -> None:
    params.pop("_meta", None)
    reordered = dict(reversed(list(params.items())))
    assert request_key(params) == request_key({**reordered, "_meta": meta})


@st.composite
def encoded_messages(draw: st.DrawFn) -> tuple[bytes, Any]:
    """A JSON-RPC-like object holding an id, written the ways servers write JSON."""
    members = draw(st.dictionaries(st.text(), json_values, max_size=5))
    members.pop("id", None)
    position = draw(st.integers(min_value=0, max_value=len(members)))
    items = list(members.items())
    items.insert(position, ("id", draw(ids)))
    value = dict(items)
    separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]))
    ensure_ascii = draw(st.booleans())
    raw = json.dumps(value, separators=separators, ensure_ascii=ensure_ascii).encode()
    return draw(st.sampled_from([b"", b"  ", b"ready "])) + raw + draw(
        st.sampled_from([b"", b" ", b"\r"])
    ), value


@given(encoded_messages(), ids)
def test_an_id_is_replaced_and_every_other_byte_kept(encoded: tuple[bytes, Any], new_id: Any) -> None:
    raw, value = encoded
    start = raw.index(b"{")
    split = split_at_id(raw, orjson.loads(raw[start:]), start)
    assert split is not None
    replaced = split.with_id(new_id)
    assert raw.startswith(split.before) and raw.endswith(split.after)
    assert len(split.before) + len(split.after) < len(raw)
    assert json_equal(orjson.loads(replaced[start:]), {**value, "id": new_id})


@given(st.binary())
def test_split_at_id_never_raises_on_garbage(raw: bytes) -> None:
    split_at_id(raw, {"id": 1}, 0)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.binary() | json_values.map(orjson.dumps), max_size=6))
def test_the_mock_answers_any_lines_with_json_or_nothing(tmp_path: Path, lines: list[bytes]) -> None:
    path = tmp_path / "c.jsonl"
    if not path.exists():
        write_capture(path, [(0.1, "c2s", request(1, "ping")), (0.2, "s2c", result(1, {}))])
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    server = MockServer(build_script(capture, analyzer), Timing.FAST)
    for line in lines:
        assert server.receive(line.replace(b"\n", b" "), 0.0) is None
    for _, out in server.due(0.0):
        reply = orjson.loads(out)
        assert reply["jsonrpc"] == "2.0" and ("result" in reply or "error" in reply)
