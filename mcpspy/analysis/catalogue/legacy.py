"""The catalogue rows of rules/legacy.py (legacy.*: the legacy handshake)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import INFO, LIFECYCLE, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.LEGACY_INITIALIZED_MISSING, W,
         "After a successful initialize the client must send notifications/initialized before other "
         "requests.",
         f"{LIFECYCLE} \u00a7Initialization",
         bad="initialize, then tools/list", good="initialize, notifications/initialized, tools/list",
         fix="Send notifications/initialized right after the initialize result, before any other request."),
    Rule(RuleId.LEGACY_EARLY_REQUEST, W,
         "The client sent a request other than ping before the server answered initialize.",
         f'{LIFECYCLE} \u00a7Initialization ("SHOULD NOT send requests other than pings before the server '
         'has responded to the initialize request")',
         bad="initialize, tools/list, then the initialize result",
         good="initialize, its result, then tools/list",
         fix="Wait for the initialize result before sending any request other than ping."),
    Rule(RuleId.LEGACY_INITIALIZED_EARLY, E,
         "notifications/initialized was sent before initialize was answered, or after it failed: it "
         "follows a successful initialize result.",
         f"{LIFECYCLE} \u00a7Initialization (ordering derived)",
         bad="initialize, notifications/initialized, then the result",
         good="initialize, its result, then notifications/initialized",
         fix="Send notifications/initialized only once a successful initialize result has arrived."),
    Rule(RuleId.LEGACY_SERVER_EARLY_REQUEST, W,
         "The server sent a request other than ping before the client's notifications/initialized.",
         f'{LIFECYCLE} \u00a7Initialization ("SHOULD NOT send requests other than pings and logging before '
         'receiving the initialized notification")',
         bad="initialize result, then roots/list before notifications/initialized",
         good="roots/list after notifications/initialized",
         fix="Hold the server's requests (roots/list, sampling/createMessage, ...) until the client's "
         "notifications/initialized arrives."),
    Rule(RuleId.LEGACY_REINITIALIZE, W,
         "A second initialize in a process whose first one succeeded: initialization is the first "
         "interaction, once per process.",
         f"{LIFECYCLE} \u00a7Initialization; 2026-07-28/basic/versioning.mdx (derived)",
         bad="initialize, ..., initialize again", good="one initialize per process",
         fix="Send initialize once per server process; start a new process for a new session."),
    Rule(RuleId.LEGACY_VERSION_UNKNOWN, W,
         "The server answered initialize with a protocol version the client did not ask for and that is "
         "no revision with an initialize handshake.",
         f"{LIFECYCLE} \u00a7Version Negotiation",
         bad='asks "2025-06-18", gets "1.0"', good='asks "2025-06-18", gets "2025-06-18" or "2025-03-26"',
         fix="Answer initialize with the client's protocolVersion when the server supports it, else with "
         "the latest revision it supports."),
    Rule(RuleId.LEGACY_VERSION_CHANGED, INFO,
         "The server chose another protocol version than the one the client asked for: legal when it "
         "does not support the one asked, but the client must support the answer.",
         f"{LIFECYCLE} \u00a7Version Negotiation",
         bad='(legal) asks "2025-11-25", gets "2025-06-18"', good='asks "2025-06-18", gets "2025-06-18"',
         fix="Make the client speak the version the server chose, or have it disconnect when it cannot."),
]
# fmt: on
