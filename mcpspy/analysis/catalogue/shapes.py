"""The catalogue rows of rules/shapes.py (schema.*: result shapes)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import E
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.SCHEMA_RESULT_SHAPE, E,
         "A result does not fit its method's result definition in the official JSON Schema of the "
         "revision in force (a required field missing, a wrong type, a content block of no known type).",
         "schema/<rev>/schema.json (the method's *Result definition)",
         bad='{"result":{"tools":[{"name":"get_ticket"}]}}',
         good='{"result":{"tools":[{"name":"get_ticket","inputSchema":{"type":"object"}}]}}',
         fix="Build the result to its method's *Result definition in the negotiated revision's schema (the "
         "finding names the field)."),
]
# fmt: on
