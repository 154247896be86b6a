"""Every rule of the digest (docs/DIGEST.md) is checked by a rule of the catalogue, or says why not.

docs/digest-coverage.md has one table row per digest rule; the digest marks a
rule as a numbered line opening with its bold code name (``12. **`framing.x`**``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcpspy.analysis.rule_ids import RuleId

REPO = Path(__file__).resolve().parents[2]
DIGEST = REPO / "docs" / "DIGEST.md"
COVERAGE = REPO / "docs" / "digest-coverage.md"
SHARED = REPO.parent / "shared" / "spec" / "DIGEST.md"  # the team's copy, beside the checkout
RULE = re.compile(r"^\s*(\d+)\. \*\*`([^`]+)`\*\*", re.MULTILINE)
ROW = re.compile(r"^\| (\d+) \| `([^`]+)` \|(.*)$", re.MULTILINE)


def digest_rules(text: str) -> dict[int, str]:
    return {int(n): name for n, name in RULE.findall(text)}


def coverage_rows(text: str) -> dict[int, tuple[str, list[str], str]]:
    """number -> (digest name, the rule ids that check it, the note or reason)."""
    rows = {}
    for n, name, rest in ROW.findall(text):
        cells = [c.strip() for c in rest.strip().strip("|").split("|")]
        _severity, checked, note = cells
        rows[int(n)] = (name, re.findall(r"`([^`]+)`", checked), note)
    return rows


def uncovered(rules: dict[int, str], rows: dict[int, tuple[str, list[str], str]]) -> list[str]:
    """What is wrong with the coverage table, one sentence a problem."""
    problems = [f"rule {n} `{name}` has no row" for n, name in rules.items() if n not in rows]
    problems += [f"row {n} names no rule of the digest" for n in rows if n not in rules]
    known = {rule.value for rule in RuleId}
    for n, (name, checked, note) in rows.items():
        if n in rules and rules[n] != name:
            problems.append(f"row {n} is `{name}`, the digest's rule {n} is `{rules[n]}`")
        problems += [f"row {n} names `{rule}`, which is no rule id" for rule in checked if rule not in known]
        if not checked and not note:
            problems.append(f"row {n} `{name}` is checked by nothing and gives no reason")
    return problems


def test_every_digest_rule_is_checked_or_has_a_reason() -> None:
    rules = digest_rules(DIGEST.read_text())
    assert len(rules) >= 128 and sorted(rules) == list(range(1, len(rules) + 1))
    assert uncovered(rules, coverage_rows(COVERAGE.read_text())) == []


def test_the_check_fails_on_a_missing_row_an_unknown_id_or_no_reason() -> None:
    rules = {1: "framing.a", 2: "framing.b", 3: "framing.c"}
    rows = {
        1: ("framing.a", ["stdout.not-json"], ""),
        2: ("framing.b", ["stdout.no-such-rule"], ""),
        4: ("framing.d", [], ""),
    }
    assert uncovered(rules, rows) == [
        "rule 3 `framing.c` has no row",
        "row 4 names no rule of the digest",
        "row 2 names `stdout.no-such-rule`, which is no rule id",
        "row 4 `framing.d` is checked by nothing and gives no reason",
    ]


def test_the_copy_is_the_shared_digest() -> None:
    if not SHARED.exists():
        pytest.skip(f"{SHARED} is not beside this checkout")
    assert DIGEST.read_bytes() == SHARED.read_bytes(), "docs/DIGEST.md drifted: copy the shared digest again"
