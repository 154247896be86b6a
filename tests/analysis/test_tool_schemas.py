"""The tool schema rules say which tool and where, stay quiet on what real servers send, and never crash."""

from __future__ import annotations

from typing import Any

import orjson

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Finding
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.records import LineRecord, Stream
from tests.analysis.scenarios_tool_schemas import OK, legacy, modern
from tests.analysis.steps import Step


def findings(steps: list[Step]) -> list[Finding]:
    analyzer = Analyzer(schemas=result_schemas())
    for seq, (stream, value, *_) in enumerate(steps, start=1):
        analyzer.feed(
            LineRecord(
                seq,
                seq * 0.01,
                Stream(stream),
                value if isinstance(value, bytes) else orjson.dumps(value),
                True,
            )
        )
    analyzer.finish()
    return analyzer.findings


def sentences(steps: list[Step]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in findings(steps):
        out.setdefault(f.id, []).append(f.message)
    return out


def test_the_generic_shape_error_steps_aside_only_for_the_schema_named() -> None:
    got = sentences(
        legacy(
            "2025-11-25",
            {"name": "ping", "inputSchema": {"type": "object", "required": None}},
            {"name": "pong"},
        )
    )
    (specific,) = got["tools.schema-required"]
    assert "'ping'" in specific and "result.tools[0].inputSchema.required is null" in specific
    (generic,) = got["schema.result-shape"]
    assert 'result.tools[1] has no "inputSchema"' in generic and "tools[0]" not in generic


def test_a_tool_named_by_a_warning_keeps_its_generic_error() -> None:
    """A boolean property schema breaks the 2025-11-25 schema: the generic error stays beside the warning."""
    got = sentences(
        legacy("2025-11-25", {"name": "t", "inputSchema": {"type": "object", "properties": {"a": True}}})
    )
    assert set(got) == {"tools.schema-unportable", "schema.result-shape"}


def test_the_path_and_the_tool_are_named() -> None:
    schema = {"type": "object", "properties": {"deep": {"type": "object", "required": "id"}}}
    (sentence,) = sentences(modern(OK, {"name": "nest", "inputSchema": schema}))["tools.schema-required"]
    assert "'nest'" in sentence and 'result.tools[1].inputSchema.properties.deep.required is "id"' in sentence


def test_hostile_names_are_quoted_with_their_controls_escaped() -> None:
    name = "evil\x1b]0;pwned\x07"
    got = sentences(modern({"name": name, "inputSchema": {"type": "object", "required": None}}))
    text = " ".join(s for group in got.values() for s in group)
    assert "\x1b" not in text and "\\x1b" in text
    assert set(got) == {"tools.name-format", "tools.schema-required"}


def test_odd_property_names_are_quoted_in_the_path() -> None:
    schema = {"type": "object", "properties": {"a b": True}}
    (sentence,) = sentences(modern({"name": "t", "inputSchema": schema}))["tools.schema-unportable"]
    assert "properties['a b'] is the boolean true" in sentence


def test_refs_that_resolve_are_fine_and_those_that_do_not_are_named() -> None:
    good = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#"}, "c": {"$ref": "#here"}},
        "$defs": {"x": {"$anchor": "here"}},
    }
    assert sentences(modern({"name": "t", "inputSchema": good})) == {}
    bad = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    (sentence,) = sentences(modern({"name": "t", "inputSchema": bad}))["tools.schema-unportable"]
    assert '"#/$defs/missing", which does not resolve' in sentence


def test_a_2026_output_schema_may_be_any_schema_but_a_2025_one_is_an_object() -> None:
    tool = {**OK, "outputSchema": {"type": "string"}}
    assert sentences(modern(tool)) == {}
    assert set(sentences(legacy("2025-06-18", tool))) == {"tools.schema-not-object"}


def test_draft_07_everywhere_is_one_finding_for_the_whole_list() -> None:
    draft = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}
    tools = [{"name": f"t{i}", "inputSchema": draft, "outputSchema": draft} for i in range(5)]
    (sentence,) = sentences(modern(*tools))["tools.schema-dialect"]
    assert "'t0'" in sentence and "(and 9 more schemas)" in sentence


def test_deep_and_wide_schemas_cost_bounded_work_and_never_crash() -> None:
    """800 levels (past what orjson writes, within what it reads) and 20,000 properties."""
    deep = b'{"type":"object","required":null,"properties":{"x":' * 400 + b"{}" + b"}}" * 400
    wide = orjson.dumps({"type": "object", "properties": {f"p{i}": {"required": None} for i in range(20000)}})
    tools = b'[{"name":"deep","inputSchema":' + deep + b'},{"name":"wide","inputSchema":' + wide + b"}]"
    (request, _) = modern()
    reply = (
        b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":'
    )
    got = sentences([request, ("s2c", reply + tools + b"}}")])
    assert len(got["tools.schema-required"]) == 2


def test_other_methods_and_odd_results_are_left_alone() -> None:
    odd: list[Any] = [None, 3, "x", [], {"name": 5}, {"inputSchema": {"type": "object"}}]
    got = sentences(modern(*odd))
    assert not any(rule.startswith("tools.") for rule in got)
    prompts = [("c2s", {"jsonrpc": "2.0", "id": 1, "method": "prompts/list", "params": {}})]
    prompts.append(("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a b"}]}}))
    assert not any(rule.startswith("tools.") for rule in sentences(prompts))


def test_a_draft_03_schema_may_mark_a_property_required_but_its_root_may_not() -> None:
    draft_03 = "http://json-schema.org/draft-03/schema#"
    schema = {
        "$schema": draft_03,
        "type": "object",
        "properties": {"a": {"type": "string", "required": True}},
    }
    assert "tools.schema-required" not in sentences(modern({"name": "t", "inputSchema": schema}))
    (sentence,) = sentences(modern({"name": "t", "inputSchema": {**schema, "required": True}}))[
        "tools.schema-required"
    ]
    assert "inputSchema.required is true" in sentence
