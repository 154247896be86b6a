"""The findings catalogue: one table of rules, each with its spec source, its rows beside their family.

Each module here holds the rows of the rules/ file of the same name (``ROWS``);
spec.py, what they cite. Rule ids are a public interface (users grep them, CI
configs name them): never rename one. Severity: error breaks a MUST or MUST
NOT, warning breaks a SHOULD or is almost surely a bug, info is legal but
worth seeing.
"""

from __future__ import annotations

from mcpspy.analysis.catalogue import (
    caching,
    capabilities,
    capture_integrity,
    deprecations,
    envelope,
    framing,
    legacy,
    lifecycle,
    modern,
    mrtr,
    pairing,
    progress_logging,
    requests,
    shapes,
    subscriptions,
    tool_schemas,
)
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

FAMILIES = (
    framing,
    envelope,
    pairing,
    modern,
    legacy,
    capabilities,
    progress_logging,
    shapes,
    lifecycle,
    tool_schemas,
    mrtr,
    subscriptions,
    deprecations,
    caching,
    requests,
    capture_integrity,
)
_ORDER = {rule_id: n for n, rule_id in enumerate(RuleId)}
# Every row, in the order of rule_ids.py (grouped by family).
RULES_TABLE: list[Rule] = sorted(
    (row for family in FAMILIES for row in family.ROWS), key=lambda r: _ORDER[r.id]
)
# By id. A RuleId is its id as a str, so a user's spelling (``mcpspy rules ID``) finds its rule too.
RULES: dict[str, Rule] = {rule.id: rule for rule in RULES_TABLE}
assert len(RULES) == len(RULES_TABLE), "duplicate rule id"
