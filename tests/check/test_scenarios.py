"""The conformance suite's transport-neutral scenarios, run by the real `mcpspy check` on stdio (issue 27).

Against real servers: the npm server-everything (legacy era: progress on a long-running
operation, structured content with an outputSchema, logging/setLevel), a Python SDK (mcp)
server that speaks both eras (tests/check/servers/sdk_scenarios.py: progress, structured
content, a tool that asks for the client's roots, MRTR in 2026-07-28) and its --broken
variant, and the stdlib faulty server for what an SDK will not get wrong (a served batch, a
log level that is none, structured content that does not fit). Each scenario is checked under
its own id, and under the suite's id in `--format conformance`.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.check.outputs import mismatches
from tests.check.helpers import EVERYTHING, HERE, faulty, run_check

M, L = "modern", "legacy"
FAST = ("--timeout", "3")
SDK = [sys.executable, str(HERE / "servers" / "sdk_scenarios.py")]
SDK_CALLS = ("--call", "count", "--call", "weather", "--call", "roots_count")


def suite(home: Path, server: list[str], *options: str) -> dict[str, list[str]]:
    """--format conformance: each of the suite's check ids, with the statuses it got."""
    result = run_check(home, server, *FAST, *options, fmt="conformance")
    statuses: dict[str, list[str]] = {}
    for item in json.loads(result.stdout):
        statuses.setdefault(item["id"], []).append(item["status"])
    return statuses


@pytest.mark.clients
def test_server_everything_progress_structured_content_and_log_level(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    calls = (
        "--call", 'trigger-long-running-operation={"duration": 1, "steps": 4}',
        "--call", 'get-structured-content={"location": "Chicago"}',
    )  # fmt: skip
    result = run_check(tmp_path, EVERYTHING, *FAST, *calls)
    progress = result.report["checks"]
    long_run = [c for c in progress if c["id"] == "progress.notifications" and c["era"] == L]
    assert [(c["target"], c["status"]) for c in long_run] == [
        ("trigger-long-running-operation", "pass"),
        ("get-structured-content", "skip"),
    ]
    assert long_run[0]["message"] == "4 notifications/progress, each with the call's token, rising"
    structured = [c for c in progress if c["id"] == "tools.structured-content" and c["era"] == L]
    assert [(c["target"], c["status"]) for c in structured] == [
        ("trigger-long-running-operation", "skip"),
        ("get-structured-content", "pass"),
    ]
    level = result.check("logging.set-level", L)  # it declares logging; an unknown level gets -32603
    assert level["status"] == "warn" and "-32603, not -32602" in level["message"]
    batch = result.check("jsonrpc.batch-refused", L)
    assert batch["status"] == "warn" and "silently" in batch["message"]  # said how it took it
    statuses = suite(tmp_path, EVERYTHING, *calls, "--era", "legacy")
    assert statuses["progress-token-matches-request"] == ["SUCCESS", "SKIPPED"]
    assert statuses["logging-set-level"] == ["WARNING"]
    assert statuses["json-rpc-batch-rejected"] == ["WARNING"]


def test_an_sdk_server_passes_progress_structured_content_and_mrtr(tmp_path: Path) -> None:
    result = run_check(tmp_path, SDK, *FAST, *SDK_CALLS)
    [mrtr] = [c for c in result.report["checks"] if c["id"] == "mrtr.retry" and c["target"] == "roots_count"]
    assert mrtr["status"] == "pass"
    assert mrtr["message"].startswith("complete after 1 round(s) of input (roots/list)")
    for era in (M, L):
        by_target = {(c["id"], c["target"]): c["status"] for c in result.report["checks"] if c["era"] == era}
        assert by_target[("progress.notifications", "count")] == "pass"
        assert by_target[("tools.structured-content", "weather")] == "pass"
    statuses = suite(tmp_path, SDK, *SDK_CALLS, "--era", "modern")
    assert statuses["input-required-result-list-roots-complete"] == ["SUCCESS"]
    assert "SUCCESS" in statuses["progress-values-non-decreasing"]


def test_a_broken_sdk_server_fails_progress_and_mrtr(tmp_path: Path) -> None:
    result = run_check(tmp_path, [*SDK, "--broken"], *FAST, *SDK_CALLS, "--era", "modern")
    assert result.returncode == 1
    [progress] = [
        c for c in result.report["checks"] if c["id"] == "progress.notifications" and c["target"] == "count"
    ]
    assert progress["status"] == "fail" and "went from 3 to 2" in progress["message"]
    assert "progress.not-increasing" in progress["findings"]
    [mrtr] = [c for c in result.report["checks"] if c["id"] == "mrtr.retry" and c["target"] == "roots_count"]
    assert mrtr["status"] == "fail" and "the answers in inputResponses were not taken" in mrtr["message"]
    statuses = suite(tmp_path, [*SDK, "--broken"], *SDK_CALLS, "--era", "modern")
    assert "FAILURE" in statuses["progress-values-non-decreasing"]


def test_structured_content_that_does_not_fit_its_output_schema_fails(tmp_path: Path) -> None:
    result = run_check(tmp_path, faulty("bad-structured-content"), *FAST, "--call", 'add={"a": 1, "b": 2}')
    assert result.returncode == 1
    for era in (M, L):
        check = result.check("tools.structured-content", era)
        assert check["status"] == "fail"
        assert check["message"].endswith("structuredContent.sum is a string, not integer")
        assert check["problems"][0]["line"] is not None
    good = run_check(tmp_path, faulty(), *FAST, "--call", 'add={"a": 1, "b": 2}')
    assert good.check("tools.structured-content", M)["message"] == "'add' declares no outputSchema"


def test_a_scenario_whose_needs_are_not_declared_is_skipped_with_the_reason(tmp_path: Path) -> None:
    result = run_check(tmp_path, SDK, *FAST, "--era", "modern")  # no logging capability, no --call
    assert result.check("logging.per-request", M) == result.check("logging.per-request", M) | {
        "status": "skip",
        "message": "the server declared no logging capability",
    }
    for check_id in ("progress.notifications", "tools.structured-content", "mrtr.retry"):
        check = result.check(check_id, M)
        assert check["status"] == "skip"
        assert check["message"] == "no tool named with --call (tools are called only when named)"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=20,
)


def schema_of(value: Any) -> dict[str, Any]:
    """A schema of the judged subset that ``value`` fits by construction."""
    if isinstance(value, dict):
        return {
            "type": "object",
            "properties": {k: schema_of(v) for k, v in value.items()},
            "required": list(value),
        }
    if isinstance(value, list):
        return {"type": "array", "items": {"enum": value}} if value else {"type": "array"}
    names = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string"}
    return {"type": names[type(value)], "enum": [value]}


@given(JSON)
def test_a_value_fits_the_schema_made_from_it(value: Any) -> None:
    assert mismatches(value, schema_of(value)) == []


@given(JSON, JSON)
def test_the_schema_check_never_raises_on_any_schema(value: Any, schema: Any) -> None:
    assert isinstance(mismatches(value, schema), list)


def test_the_subset_is_judged() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}}},
        "required": ["n", "when"],
    }
    assert mismatches({"n": 1.5, "tags": ["a", "c"]}, schema) == [
        "structuredContent has no 'when', which the outputSchema requires",
        "structuredContent.n is a number, not integer",
        "structuredContent.tags[1] is 'c', not one of ['a', 'b']",
    ]
    assert mismatches(True, {"type": "integer"}) == ["structuredContent is a boolean, not integer"]
    assert mismatches({"x": 1}, {"oneOf": [{"type": "string"}]}) == []  # not judged: passes
