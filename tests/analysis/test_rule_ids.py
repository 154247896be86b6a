"""Rule ids are checked names: each has one catalogue row, one fixture, and one room that raises it."""

from __future__ import annotations

import re
from pathlib import Path

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.rule_ids import RuleId
from tests.analysis.expected import EXPECTED
from tests.analysis.scenarios import SCENARIOS
from tests.analysis.scenarios_exchange import LEAN_EXPECTED
from tests.analysis.scenarios_lines import GENERATED_SCENARIOS

RULES_DIR = Path(__file__).resolve().parents[2] / "mcpspy" / "analysis" / "rules"


def test_every_rule_id_has_a_catalogue_row_and_every_row_a_rule_id() -> None:
    assert set(RULES) == set(RuleId)
    assert all(type(rule.id) is RuleId for rule in RULES.values())


def test_every_rule_id_has_a_fixture_and_every_fixture_names_rule_ids() -> None:
    """A fixture in fixtures/, or a scenario built when tested (GENERATED_SCENARIOS: 16 MiB lines).

    A rule of the lean analysis alone (--log) has its fixture's lean findings in LEAN_EXPECTED.
    """
    assert set(EXPECTED) == set(SCENARIOS) | set(GENERATED_SCENARIOS)
    assert set(LEAN_EXPECTED) <= set(SCENARIOS)
    covered = {rule for expected in [*EXPECTED.values(), *LEAN_EXPECTED.values()] for rule, _ in expected}
    assert covered == set(RuleId)


def test_a_member_is_named_as_its_id_reads() -> None:
    """So that the id a user sees greps to its member: stdout.not-json -> STDOUT_NOT_JSON."""
    assert [m.name for m in RuleId] == [re.sub(r"[.-]", "_", m.value).upper() for m in RuleId]


def test_each_rule_id_is_raised_in_exactly_one_family_file() -> None:
    sources = {path.name: path.read_text() for path in RULES_DIR.glob("*.py")}
    rooms = {
        member: sorted(name for name, text in sources.items() if f"RuleId.{member.name}" in text)
        for member in RuleId
    }
    assert {member: files for member, files in rooms.items() if len(files) != 1} == {}


def test_the_readme_counts_the_rules_and_names_every_family() -> None:
    readme = (RULES_DIR.parents[2] / "docs" / "report.md").read_text()  # the README's page on findings
    severities = [rule.severity.name.lower() for rule in RULES.values()]
    told = (
        f"The {len(RULES)} rules ({severities.count('error')} errors, "
        f"{severities.count('warning')} warnings, {severities.count('info')} infos)"
    )
    assert told in readme
    families = {rule_id.split(".")[0] for rule_id in RULES}
    assert {f for f in families if f"`{f}.*`" not in readme and f"`{f}." not in readme} == set()


def test_the_rules_package_names_every_family_file() -> None:
    told = (RULES_DIR / "__init__.py").read_text()
    assert {p.name for p in RULES_DIR.glob("*.py") if p.name != "__init__.py" and p.name not in told} == set()
