"""The scenarios of the digest rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

from tests.analysis.steps import Step

DIGEST_SCENARIOS: dict[str, list[Step]] = {}

DIGEST_EXPECTED: dict[str, list[tuple[str, int]]] = {}
