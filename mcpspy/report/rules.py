"""`mcpspy rules`: the findings catalogue as a table, or one rule explained."""

from __future__ import annotations

import argparse
import difflib
import shutil

from mcpspy.analysis.model import Rule
from mcpspy.analysis.sources import public_source
from mcpspy.terminal import visible_line


def rules_table(rules: dict[str, Rule], width: int) -> str:
    """Id, severity and summary, cut to fit ``width`` columns; `mcpspy rules ID` gives the rest."""
    rows = sorted(rules.values(), key=lambda r: r.id)
    if not rows:
        return "no rules\n"
    id_w = max(len("ID"), *(len(r.id) for r in rows))
    sev_w = len("SEVERITY")
    sum_w = max(len("SUMMARY"), width - id_w - sev_w - 4)
    lines = [f"{'ID':<{id_w}}  {'SEVERITY':<{sev_w}}  SUMMARY"]
    for r in rows:
        summary = r.summary if len(r.summary) <= sum_w else r.summary[: sum_w - 1] + "…"
        lines.append(f"{r.id:<{id_w}}  {r.severity.label:<{sev_w}}  {summary}")
    lines += ["", f"{len(rows)} rules; `mcpspy rules ID` shows one with its fix, source and examples"]
    return "\n".join(lines) + "\n"


def explain_rule(rule: Rule) -> str:
    lines = [
        rule.id,
        f"severity  {rule.severity.label}",
        f"summary   {rule.summary}",
        f"fix       {rule.fix}",
        f"source    {public_source(rule.source)}",
    ]
    for label, example in (("bad", rule.bad), ("good", rule.good)):
        if example:
            lines += ["", f"{label}:"] + [f"    {line}" for line in example.splitlines()]
    return "\n".join(lines) + "\n"


def close_matches(wanted: str, rules: dict[str, Rule]) -> list[str]:
    """Rule ids a mistyped one probably meant: near spellings first, then ids sharing a part."""
    ids = sorted(rules)
    near = difflib.get_close_matches(wanted, ids, n=5, cutoff=0.6)
    parts = {p for p in wanted.lower().replace("-", ".").split(".") if p}
    sharing = [i for i in ids if parts & set(i.lower().replace("-", ".").split(".")) and i not in near]
    return (near + sharing)[:5]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", nargs="?", metavar="ID", help="explain one rule, with examples")


def run(args: argparse.Namespace) -> int:
    """`mcpspy rules [ID]`: the catalogue as a table, or one rule explained."""
    from mcpspy.analysis.catalogue import RULES
    from mcpspy.exit_codes import fail
    from mcpspy.report.command import print_out

    if args.rule is None:
        print_out(rules_table(RULES, shutil.get_terminal_size(fallback=(100, 24)).columns))
        return 0
    rule = RULES.get(args.rule)
    if rule is None:
        hint = close_matches(args.rule, RULES)
        suggestion = f"; did you mean {', '.join(hint)}?" if hint else "; `mcpspy rules` lists them all"
        return fail("mcpspy rules", f"no rule {visible_line(args.rule)!r}{suggestion}")
    print_out(explain_rule(rule))
    return 0
