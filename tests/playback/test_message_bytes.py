"""Where a reply's own id is, in lines written to mislead a pattern."""

from __future__ import annotations

import orjson
import pytest

from mcpspy.jsonutil.span import member_span
from mcpspy.playback.message_bytes import split_at_id

CASES = {
    "id first": b'{"jsonrpc":"2.0","id":1,"result":{}}',
    "id last": b'{"result":{"content":[]},"jsonrpc":"2.0","id":1}',
    "a nested id before": b'{"result":{"item":{"id":7}},"jsonrpc":"2.0","id":1}',
    "a nested id after": b'{"jsonrpc":"2.0","id":1,"result":{"items":[{"id":7},{"id":8}]}}',
    "an id in a string": b'{"result":{"text":"\\"id\\":9,"},"id":1,"jsonrpc":"2.0"}',
    "an escaped key": b'{"jsonrpc":"2.0","\\u0069d":1,"result":{"id":2}}',
    "a string id with escapes": b'{"jsonrpc":"2.0","id":"a\\"b\\\\","result":{}}',
    "spaces everywhere": b'{ "jsonrpc" : "2.0" , "id" : 1 , "result" : { "id" : 3 } }',
    "a duplicate id": b'{"id":5,"jsonrpc":"2.0","result":{},"id":1}',
}


@pytest.mark.parametrize("raw", list(CASES.values()), ids=list(CASES))
def test_only_the_top_level_id_changes(raw: bytes) -> None:
    payload = orjson.loads(raw)
    split = split_at_id(raw, payload)
    assert split is not None
    replaced = split.with_id("new")
    assert orjson.loads(replaced) == {**payload, "id": "new"}
    assert raw.startswith(split.before) and raw.endswith(split.after)


def test_the_scanner_walks_only_the_top_level_object() -> None:
    raw = b'{"a":{"id":2},"b":[{"id":3}],"id":4}'
    span = member_span(raw, "id")
    assert span is not None and raw[span[0] : span[1]] == b"4"
    assert member_span(b'{"a":1}', "id") is None
    assert member_span(b"[1]", "id") is None
    assert member_span(b'{"id":1', "id") is None  # cut short


def test_a_message_with_no_id_cannot_be_split() -> None:
    assert split_at_id(b'{"jsonrpc":"2.0","method":"x"}', {"jsonrpc": "2.0", "method": "x"}) is None
