"""Context cost: compact JSON bytes per list, tool and tool result; tokens as bytes / 4 rounded up."""

from __future__ import annotations

from typing import Any

import orjson

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.context_cost import ContextCost, ContextMeter, context_cost, json_size, tokens_of
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.records import LineRecord, Stream
from tests.analysis.steps import TOOLS_RESULT, Step, c2s, req, res, s2c

BIG = {"name": "search", "description": "x" * 400, "inputSchema": {"type": "object"}}
SMALL = {"name": "ping", "inputSchema": {"type": "object"}}


def cost_of(steps: list[Step]) -> ContextCost:
    analyzer = Analyzer(schemas=result_schemas())
    for seq, (stream, value, *_) in enumerate(steps, start=1):
        analyzer.feed(LineRecord(seq, seq * 0.01, Stream(stream), orjson.dumps(value), True))
    return context_cost(analyzer.exchanges, analyzer.message)


def listing(i: int, method: str, key: str, items: list[Any], **params: Any) -> list[Step]:
    return [c2s(req(i, method, **params)), s2c(res(i, {**TOOLS_RESULT, "tools": [], key: items}))]


def test_tokens_are_bytes_over_four_rounded_up() -> None:
    assert [tokens_of(n) for n in (0, 1, 4, 5, 400)] == [0, 1, 1, 2, 100]


def test_each_tool_costs_its_compact_json_and_the_list_its_array() -> None:
    cost = cost_of(listing(1, "tools/list", "tools", [SMALL, BIG]))
    assert cost.tools.bytes == len(orjson.dumps([SMALL, BIG]))
    assert [(t.name, t.bytes) for t in cost.tools.items] == [
        ("ping", len(orjson.dumps(SMALL))),
        ("search", len(orjson.dumps(BIG))),
    ]
    assert [t.name for t in cost.most_expensive_tools()] == ["search", "ping"]
    assert cost.tools.tokens == tokens_of(cost.tools.bytes)


def test_pages_add_up_and_a_new_listing_replaces_the_old() -> None:
    pages = [
        *listing(1, "tools/list", "tools", [SMALL]),
        *listing(2, "tools/list", "tools", [BIG], cursor="p2"),
    ]
    assert [t.name for t in cost_of(pages).tools.items] == ["ping", "search"]
    again = [*pages, *listing(3, "tools/list", "tools", [SMALL])]
    assert [t.name for t in cost_of(again).tools.items] == ["ping"]


def test_prompts_resources_and_tool_results_are_counted() -> None:
    call_result = {"resultType": "complete", "content": [{"type": "text", "text": "y" * 100}]}
    steps = [
        *listing(1, "prompts/list", "prompts", [{"name": "p"}]),
        *listing(2, "resources/list", "resources", [{"uri": "file:///a", "name": "a"}]),
        c2s(req(3, "tools/call", name="search", arguments={})),
        s2c(res(3, call_result)),
    ]
    out = cost_of(steps).as_json()
    assert out["prompts_list_bytes"] == len(orjson.dumps([{"name": "p"}]))
    assert out["resources_list_tokens"] == tokens_of(len(orjson.dumps([{"uri": "file:///a", "name": "a"}])))
    assert out["tool_results"] == {
        "count": 1,
        "bytes": len(orjson.dumps(call_result)),
        "tokens": tokens_of(len(orjson.dumps(call_result))),
        "max_bytes": len(orjson.dumps(call_result)),
    }
    assert out["tools_list_bytes"] == 0 and out["per_tool"] == []


def test_errors_and_server_requests_cost_nothing_and_an_exchange_counts_once() -> None:
    analyzer = Analyzer(schemas=result_schemas())
    steps = [
        c2s(req(1, "tools/list")),
        s2c({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}}),
    ]
    for seq, (stream, value, *_) in enumerate(steps, start=1):
        analyzer.feed(LineRecord(seq, seq * 0.01, Stream(stream), orjson.dumps(value), True))
    assert context_cost(analyzer.exchanges, analyzer.message).tools.seen is False
    ok = Analyzer(schemas=result_schemas())
    for seq, (stream, value, *_) in enumerate(listing(1, "tools/list", "tools", [SMALL]), start=1):
        ok.feed(LineRecord(seq, seq * 0.01, Stream(stream), orjson.dumps(value), True))
    meter = ContextMeter()
    for _ in range(3):
        meter.exchange(ok.exchanges[0], ok.message)
    assert len(meter.cost.tools.items) == 1


def test_json_size_is_exact_and_never_raises_on_what_orjson_cannot_write() -> None:
    value = {"a": [1, "é\n", None, True, {"b": 2.5}], "c": {}}
    assert json_size(value) == len(orjson.dumps(value))
    deep: Any = "leaf"
    for _ in range(300):  # orjson writes 254 levels at most
        deep = {"k": [deep]}
    assert json_size(deep) == len('{"k":[') * 300 + len('"leaf"') + len("]}") * 300
    assert json_size(2**70) == len(str(2**70))
