"""The catalogue rows of rules/caching.py (cache.*: caching hints)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import CACHING, INFO, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.CACHE_INVALID_TTL, E,
         "ttlMs is not an integer >= 0.",
         f"{CACHING} \u00a7Time-to-Live (\"Servers MUST provide a ttlMs value that is >= 0\"); "
         "schema CacheableResult (integer, minimum 0)",
         bad='"ttlMs":-1 (or 1.5, or "60000")', good='"ttlMs":60000',
         fix="Send ttlMs as a whole number of milliseconds, 0 for immediately stale."),
    Rule(RuleId.CACHE_INVALID_SCOPE, E,
         'cacheScope is not "public" or "private".',
         f"{CACHING} \u00a7Cache Scope Field; schema CacheableResult (enum private, public)",
         bad='"cacheScope":"shared"', good='"cacheScope":"public"',
         fix='Send "public" for data the same for every user, else "private".'),
    Rule(RuleId.CACHE_SCOPE_CHANGED, E,
         "A later page of a paginated list has another cacheScope than the first page.",
         f"{CACHING} \u00a7Interaction with Pagination (\"MUST apply the same cacheScope to all "
         f"response pages\")",
         bad='page 1 "private", page 2 (its nextCursor) "public"', good='every page "private"',
         fix="Decide the scope once per list and send it on every page."),
    Rule(RuleId.CACHE_ON_INPUT_REQUIRED, W,
         "An input_required result carries ttlMs or cacheScope: interim results are not cacheable.",
         f"{CACHING} \u00a7Cacheable Results (\"are not cacheable and carry no caching hints\")",
         bad='{"resultType":"input_required","requestState":"s1","ttlMs":60000}',
         good='{"resultType":"input_required","requestState":"s1"}',
         fix="Leave ttlMs and cacheScope off input_required results; put them on the complete result."),
    Rule(RuleId.CACHE_REFETCH_FRESH, INFO,
         "The client asked again for a list page whose last answer was still fresh (within its ttlMs), with "
         "no list_changed or error in between: legal, but the hint went unused.",
         f"{CACHING} \u00a7Time-to-Live (\"the client SHOULD consider the result fresh\"), \u00a7Freshness "
         "Calculation",
         bad='tools/list -> "ttlMs":300000; tools/list again 2 s later', good="the cached list reused",
         fix="Cache list results for their ttlMs and re-fetch when stale or after a list_changed."),
]
# fmt: on
