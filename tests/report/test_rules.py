"""`mcpspy rules`: the catalogue table, one rule explained, unknown ids."""

from __future__ import annotations

import os
import subprocess

from mcpspy.analysis.catalogue import RULES
from tests.conftest import MCPSPY


def rules(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCPSPY, "rules", *args], capture_output=True, text=True, timeout=60)


def test_table_lists_every_rule_aligned_and_fits_the_terminal() -> None:
    result = subprocess.run(
        [*MCPSPY, "rules"], capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "80"}
    )
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "SEVERITY", "SUMMARY"]
    table = lines[1 : len(RULES) + 1]
    assert {line.split()[0] for line in table} == set(RULES)
    assert max(len(line) for line in lines) <= 80
    severity_col = lines[0].index("SEVERITY")
    for line, rule in zip(table, sorted(RULES.values(), key=lambda r: r.id), strict=True):
        assert line[severity_col:].startswith(rule.severity.label)
    assert lines[-1].startswith(f"{len(RULES)} rules")


def test_one_rule_explained_with_examples() -> None:
    rule = RULES["stdout.not-json"]
    result = rules("stdout.not-json")
    assert result.returncode == 0
    out = result.stdout
    assert out.splitlines()[0] == "stdout.not-json"
    assert f"severity  {rule.severity.label}" in out
    assert rule.summary in out and f"fix       {rule.fix}" in out
    assert "source    https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio" in out
    assert ".mdx" not in out
    assert "bad:" in out and rule.bad.splitlines()[0] in out
    assert "good:" in out


def test_unknown_rule_suggests_close_matches() -> None:
    result = rules("stdout.notjson")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("mcpspy rules: no rule 'stdout.notjson'")
    assert "stdout.not-json" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    nothing = rules("zzzz")
    assert nothing.returncode == 2 and "`mcpspy rules` lists them all" in nothing.stderr
