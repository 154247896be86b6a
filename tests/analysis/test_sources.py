"""Every rule says how to fix it and cites the spec's public pages (mcpspy's own rules, its docs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.sources import LATEST, SCHEMA_REPO, SPEC_SITE, public_source, source_links

STDIO = SPEC_SITE + "2026-07-28/basic/transports/stdio"


REPO = Path(__file__).resolve().parents[2]


def headings(page: Path) -> set[str]:
    return {line.lstrip("#").strip() for line in page.read_text().splitlines() if line.startswith("#")}


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_has_a_one_sentence_fix(rule_id: str) -> None:
    fix = RULES[rule_id].fix
    assert fix, f"{rule_id} has no fix= in the catalogue: one imperative sentence, what to change"
    assert fix[0].isupper() and fix.endswith(".") and "\n" not in fix, fix


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_cites_a_public_page(rule_id: str) -> None:
    """The spec's rules link the spec; mcpspy's own (the capture's integrity, the lean analysis's bound)
    cite the page of mcpspy's docs that says it, by a heading that page has."""
    shown = public_source(RULES[rule_id].source)
    if rule_id.startswith("capture.") or rule_id == "pairing.pending-limit":
        cited = re.fullmatch(r"mcpspy (docs/[\w-]+\.md) \u00a7([^(]+?)(?: \(.*\))?", shown)
        assert cited is not None, shown
        assert cited[2] in headings(REPO / cited[1]), shown
        return
    assert source_links(RULES[rule_id].source), shown
    assert all(link.startswith("https://") for link in source_links(RULES[rule_id].source))
    for internal in (".mdx", "seed", "<rev>", '\u00a7"'):
        assert internal not in shown, shown


@pytest.mark.parametrize(
    ("source", "public"),
    [
        ("2026-07-28/basic/transports/stdio.mdx \u00a7Shutdown", f"{STDIO} \u00a7Shutdown"),
        ("2026-07-28/basic/index.mdx \u00a7Requests", SPEC_SITE + "2026-07-28/basic \u00a7Requests"),
        ("2025-06-18/changelog.mdx item 9", SPEC_SITE + "2025-06-18/changelog item 9"),
        (
            "2025-11-25/server/tools.mdx, prompts.mdx \u00a7Capabilities",
            f"{SPEC_SITE}2025-11-25/server/tools, {SPEC_SITE}2025-11-25/server/prompts \u00a7Capabilities",
        ),
        (
            "2025-03-26/basic/lifecycle.mdx; <rev>/client/{sampling,roots}.mdx",
            f"{SPEC_SITE}2025-03-26/basic/lifecycle; "
            f"{SPEC_SITE}2025-03-26/client/sampling, {SPEC_SITE}2025-03-26/client/roots",
        ),
        ("schema/2025-06-18/schema.json", SCHEMA_REPO + "2025-06-18/schema.json"),
        ("schema/<rev>/schema.json (a *Result)", f"{SCHEMA_REPO}{LATEST}/schema.json (a *Result)"),
        (
            "2025-11-25/x.mdx; schema Logging",
            f"{SPEC_SITE}2025-11-25/x; {SCHEMA_REPO}2025-11-25/schema.json Logging",
        ),
        ("2026-07-28/basic/transports/stdio.mdx; seed \u00a7\"Tom's 'ready'\"", STDIO),
        (
            'seed \u00a7"Reading Lines" (derived)',
            f"derived from {STDIO} (messages are newline-delimited lines)",
        ),
        ("mcpspy's own rule", "mcpspy's own rule"),
    ],
)
def test_public_source(source: str, public: str) -> None:
    assert public_source(source) == public


def test_links_are_each_page_once() -> None:
    source = "2026-07-28/basic/transports/stdio.mdx \u00a7A; 2026-07-28/basic/transports/stdio.mdx \u00a7B"
    assert source_links(source) == [STDIO]
