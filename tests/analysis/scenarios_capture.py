"""The scenarios of the capture rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

from tests.analysis.steps import Step

CAPTURE_SCENARIOS: dict[str, list[Step]] = {}

CAPTURE_EXPECTED: dict[str, list[tuple[str, int]]] = {}
