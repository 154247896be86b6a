"""The scenarios of the tool schemas rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

from tests.analysis.steps import Step

TOOL_SCHEMAS_SCENARIOS: dict[str, list[Step]] = {}

TOOL_SCHEMAS_EXPECTED: dict[str, list[tuple[str, int]]] = {}
