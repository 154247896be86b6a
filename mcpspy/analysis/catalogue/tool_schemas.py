"""The catalogue rows of rules/tool_schemas.py (tools.*: tool definitions a client rejects)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import INFO, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.TOOLS_SCHEMA_COMBINATOR, E,
         "A tool's inputSchema has anyOf, oneOf or allOf at its top level: legal JSON Schema, but the "
         "Anthropic API refuses it, so Claude Code drops the server's tools or fails every request, "
         "with no error on either side.",
         "2026-07-28/server/tools.mdx \u00a7Data Types (composition keywords allowed); client behaviour: "
         '"input_schema does not support oneOf, allOf, or anyOf at the top level"',
         bad='"inputSchema":{"type":"object","anyOf":[{"required":["id"]},{"required":["slug"]}]}',
         good='"inputSchema":{"type":"object","properties":{"id":{"type":"string"},"slug":{"type":"string"}}}',
         fix="Move the alternatives into a property (or check them in the tool) and keep the root a plain "
             "object schema."),
    Rule(RuleId.TOOLS_SCHEMA_NOT_OBJECT, E,
         'A tool\'s inputSchema (or a 2025 outputSchema) is not an object schema with "type": "object": '
         "the TypeScript SDK's client rejects the whole tools/list, so every tool of the server is lost.",
         '2025-11-25/server/tools.mdx \u00a7Data Types ("MUST be a valid JSON Schema object (not null)"); '
         'schema/<rev> Tool.inputSchema ("type": const "object")',
         bad='"inputSchema":{"anyOf":[{"type":"object"}]}', good='"inputSchema":{"type":"object"}',
         fix='Give every inputSchema (and 2025 outputSchema) a root "type": "object", parameters or not.'),
    Rule(RuleId.TOOLS_SCHEMA_REQUIRED, E,
         "A tool schema's required is not an array of strings (often null): an invalid schema, and "
         "the TypeScript SDK's client rejects the whole tools/list.",
         '2026-07-28/basic/index.mdx \u00a7Schema Validation ("MUST be valid according to their declared or '
         'default dialect"); schema/2025-11-25 Tool.inputSchema.required',
         bad='"inputSchema":{"type":"object","required":null}',
         good='"inputSchema":{"type":"object","required":[]}',
         fix="Leave required out, or send an array of property names; never null."),
    Rule(RuleId.TOOLS_SCHEMA_DIALECT, INFO,
         "A tool schema declares a $schema other than JSON Schema 2020-12 (e.g. draft-07): allowed, but "
         "clients whose validator knows 2020-12 only (the TypeScript SDK's default validator in newer "
         "releases, used by Claude Code) refuse such tools.",
         '2026-07-28/basic/index.mdx \u00a7Schema Dialect ("Schemas MAY include a $schema field"; '
         "2020-12 is the default and RECOMMENDED)",
         bad='"inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}',
         good='"inputSchema":{"type":"object"}',
         fix="Drop $schema (2020-12 is the default), or emit 2020-12 schemas."),
    Rule(RuleId.TOOLS_SCHEMA_UNPORTABLE, W,
         "A tool schema uses what some clients refuse: a $ref that does not resolve inside the schema, a "
         "boolean where a sub-schema is expected, or not/if/then/else at the top level of an inputSchema.",
         '2026-07-28/basic/index.mdx \u00a7$ref Resolution ("Schemas that fail to validate due to an '
         'unresolved external $ref SHOULD be rejected"); client behaviour',
         bad='"properties":{"tags":true,"owner":{"$ref":"https://example.com/user.json"}}',
         good='"properties":{"tags":{},"owner":{"$ref":"#/$defs/user"}},"$defs":{"user":{"type":"object"}}',
         fix="Inline or $defs every $ref, write {} instead of true, and keep conditionals below the root."),
    Rule(RuleId.TOOLS_DUPLICATE_NAME, W,
         "Two tools in one tools/list have the same name: a client keeps one of them, or refuses both.",
         '2025-11-25/server/tools.mdx \u00a7Tool Names ("Tool names SHOULD be unique within a server")',
         bad='"tools":[{"name":"search",...},{"name":"search",...}]',
         good='"tools":[{"name":"search_docs",...},{"name":"search_tickets",...}]',
         fix="Give each tool a name of its own."),
    Rule(RuleId.TOOLS_NAME_FORMAT, W,
         "A tool name is outside 1 to 128 characters of A-Z a-z 0-9 _ - . (a space, a slash, a colon): "
         "clients and model APIs refuse or rewrite it.",
         "2025-11-25/server/tools.mdx \u00a7Tool Names (SHOULD: 1 to 128 characters, and which ones)",
         bad='{"name":"get ticket"}', good='{"name":"get_ticket"}',
         fix="Rename the tool to 1 to 128 characters of letters, digits, _, - and ."),
]
# fmt: on
