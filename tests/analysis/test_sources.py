"""Every rule says how to fix it and cites the spec's public pages (mcpspy's own rules, its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.sources import LATEST, SCHEMA_REPO, SPEC_SITE, public_source, source_links

STDIO = SPEC_SITE + "2026-07-28/basic/transports/stdio"


REPO = Path(__file__).resolve().parents[2]
#: mcpspy's own rules cite its documentation: the README front page and the pages of docs/.
README_HEADINGS = {
    line.lstrip("#").strip()
    for page in (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
    for line in page.read_text().splitlines()
    if line.startswith("#")
}


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_has_a_one_sentence_fix(rule_id: str) -> None:
    fix = RULES[rule_id].fix
    assert fix, f"{rule_id} has no fix= in the catalogue: one imperative sentence, what to change"
    assert fix[0].isupper() and fix.endswith(".") and "\n" not in fix, fix


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_cites_a_public_page(rule_id: str) -> None:
    """The spec's rules link the spec; mcpspy's own (the capture's integrity) cite the README users have."""
    shown = public_source(RULES[rule_id].source)
    if rule_id.startswith("capture."):
        assert shown.startswith("mcpspy README \u00a7"), shown
        assert shown.split("\u00a7")[1].split(" (")[0] in README_HEADINGS, shown
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
