"""A session's surface (pages, re-listings, both eras) and the drifts between two of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpspy.drift.compare import DriftKind, compare_surfaces
from mcpspy.drift.surface import Surface, extract_surface
from mcpspy.jsonutil.paths import render_path
from mcpspy.replay_policy import open_capture
from tests.playback.captures import message, request, result, write_capture


def surface_of(tmp_path: Path, exchanges: list[tuple[str, Any, Any]], name: str = "c") -> Surface:
    """A capture of (method, params, result) exchanges, each answered in turn."""
    lines: list[tuple[float, str, str | bytes]] = []
    for i, (method, params, value) in enumerate(exchanges):
        lines.append((i + 0.1, "c2s", request(i, method, params)))
        lines.append((i + 0.2, "s2c", value if isinstance(value, str) else result(i, value)))
    analyzer = open_capture(write_capture(tmp_path / f"{name}.jsonl", lines)).analyzer
    return extract_surface(analyzer)


def tool(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, **more}


def kinds(a: Surface, b: Surface) -> list[tuple[str, str | None, str, str | None, str]]:
    return [
        (d.area, d.item, d.kind.value, d.field, render_path(d.path)) for d in compare_surfaces(a, b).drifts
    ]


def test_pages_add_up_and_a_new_listing_replaces_the_last(tmp_path: Path) -> None:
    paged = surface_of(
        tmp_path,
        [
            ("tools/list", None, {"tools": [tool("a")], "nextCursor": "c1"}),
            ("tools/list", {"cursor": "c1"}, {"tools": [tool("b")]}),
        ],
    )
    assert list(paged.items["tools"] or {}) == ["a", "b"]
    relisted = surface_of(
        tmp_path,
        [
            ("tools/list", None, {"tools": [tool("a"), tool("b")]}),
            ("tools/list", None, {"tools": [tool("b")]}),
        ],
        "relisted",
    )
    assert list(relisted.items["tools"] or {}) == ["b"]


def test_what_was_never_listed_is_unknown_and_not_compared(tmp_path: Path) -> None:
    listed = surface_of(
        tmp_path, [("tools/list", None, {"tools": []}), ("prompts/list", None, {"prompts": []})]
    )
    unlisted = surface_of(tmp_path, [("tools/list", None, {"tools": []})], "unlisted")
    assert listed.items["prompts"] == {} and unlisted.items["prompts"] is None
    comparison = compare_surfaces(listed, unlisted)
    assert comparison.drifts == [] and comparison.not_compared == ["prompts (not listed in B)"]


def test_an_error_reply_says_nothing_about_the_surface(tmp_path: Path) -> None:
    error = message({"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "no"}})
    assert surface_of(tmp_path, [("prompts/list", None, error)]).empty


def test_the_modern_era_gives_capabilities_by_discover_and_server_info_by_meta(tmp_path: Path) -> None:
    info = {"name": "helpdesk", "version": "2.0"}
    surface = surface_of(
        tmp_path,
        [
            ("server/discover", None, {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}),
            ("tools/list", None, {"tools": [], "_meta": {"io.modelcontextprotocol/serverInfo": info}}),
        ],
    )
    assert surface.capabilities == {"tools": {}}
    assert surface.server == {"supportedVersions": ["2026-07-28"], "serverInfo": info}


def test_prompt_arguments_resource_fields_and_templates_drift(tmp_path: Path) -> None:
    def session(name: str, required: bool, mime: str, templates: list[dict[str, Any]]) -> Surface:
        return surface_of(
            tmp_path,
            [
                (
                    "prompts/list",
                    None,
                    {"prompts": [{"name": "sum", "arguments": [{"name": "t", "required": required}]}]},
                ),
                ("resources/list", None, {"resources": [{"uri": "r://1", "name": "one", "mimeType": mime}]}),
                ("resources/templates/list", None, {"resourceTemplates": templates}),
            ],
            name,
        )

    a = session("a", False, "text/plain", [{"uriTemplate": "t://{x}", "name": "t"}])
    b = session("b", True, "text/markdown", [])
    assert kinds(a, b) == [
        ("prompts", "sum", "schema-tightened", "arguments", "$.properties.t"),
        ("resources", "r://1", "field", "mimeType", "$"),
        ("resourceTemplates", "t://{x}", "removed", None, "$"),
    ]


def test_annotation_risk_follows_the_spec_defaults(tmp_path: Path) -> None:
    def with_annotations(name: str, annotations: dict[str, Any] | None) -> Surface:
        extra = {} if annotations is None else {"annotations": annotations}
        return surface_of(tmp_path, [("tools/list", None, {"tools": [tool("t", **extra)]})], name)

    read_only = with_annotations("ro", {"readOnlyHint": True})
    absent = with_annotations("absent", None)
    additive = with_annotations("additive", {"destructiveHint": False})
    assert kinds(read_only, absent) == [("tools", "t", "annotation-risk", "annotations", "$.readOnlyHint")]
    assert kinds(additive, absent) == [("tools", "t", "annotation-risk", "annotations", "$.destructiveHint")]
    (riskier,) = compare_surfaces(additive, absent).drifts
    assert riskier.what.startswith("riskier: now destructive")
    # explicit defaults are no risk change; a destructive hint on a read-only tool means nothing
    explicit = with_annotations("explicit", {"readOnlyHint": False, "destructiveHint": True})
    assert [k[2] for k in kinds(absent, explicit)] == ["annotation", "annotation"]
    ro_hint = with_annotations("ro-hint", {"readOnlyHint": True, "destructiveHint": True})
    assert kinds(read_only, ro_hint) == [("tools", "t", "annotation", "annotations", "$.destructiveHint")]
    idempotent = with_annotations("idem", {"readOnlyHint": True, "idempotentHint": True})
    assert kinds(read_only, idempotent)[0][2] == DriftKind.ANNOTATION.value


def test_a_baseline_round_trips(tmp_path: Path) -> None:
    surface = surface_of(
        tmp_path,
        [
            (
                "initialize",
                {"capabilities": {}},
                {"serverInfo": {"name": "s"}, "capabilities": {"tools": {}}},
            ),
            ("tools/list", None, {"tools": [tool("a", description="A.")]}),
        ],
    )
    again = Surface.from_json(surface.to_json("session-1"))
    assert compare_surfaces(surface, again).drifts == []
    assert again.items["prompts"] is None
