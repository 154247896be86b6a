"""The scenarios of the exchange rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

from tests.analysis.steps import Step

EXCHANGE_SCENARIOS: dict[str, list[Step]] = {}

EXCHANGE_EXPECTED: dict[str, list[tuple[str, int]]] = {}
