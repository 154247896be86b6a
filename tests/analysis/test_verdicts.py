"""Exact verdicts (issue 27): a rule that fires on every line is one finding, tallied, in every view.

The scenarios' findings are held by test_fixtures.py (scenarios_verdicts.py);
here, what the one finding says and where its lines are.
"""

from __future__ import annotations

import subprocess

import orjson
import pytest

from mcpspy.analysis.jsonrpc import integer_value, valid_id
from mcpspy.replay_policy import open_capture
from tests.conftest import FIXTURES, MCPSPY

TALLIED = {
    "verdict-crlf-every-line": ("stdout.crlf", [2, 4, 6]),
    "verdict-cache-missing-every-list": ("cache.missing-ttl", [4, 6, 8]),
}


@pytest.mark.parametrize("name", sorted(TALLIED))
def test_a_rule_on_every_line_is_one_finding_and_each_line_carries_it(name: str) -> None:
    rule, seqs = TALLIED[name]
    analyzer = open_capture(FIXTURES / f"{name}.jsonl").analyzer
    (finding,) = analyzer.findings
    assert (finding.id, finding.count, finding.seq, finding.last_seq, finding.seqs) == (
        rule,
        3,
        2 if rule == "stdout.crlf" else 4,
        seqs[-1],
        seqs,
    )
    assert f"3 lines like it, seq {seqs[0]} to {seqs[-1]}" in finding.message
    for seq in seqs:  # each line is reachable: its message carries the one finding
        message = analyzer.message(seq)
        assert message is not None and message.findings == [finding]


@pytest.mark.parametrize("name", sorted(TALLIED))
def test_the_report_says_the_count_and_the_first_and_last_seq(name: str) -> None:
    rule, seqs = TALLIED[name]
    path = str(FIXTURES / f"{name}.jsonl")
    shown = subprocess.run([*MCPSPY, "report", "--json", path], capture_output=True, timeout=60)
    (finding,) = orjson.loads(shown.stdout)["findings"]
    assert (finding["id"], finding["count"], finding["seq"], finding["last_seq"], finding["seqs"]) == (
        rule,
        3,
        seqs[0],
        seqs[-1],
        seqs,
    )
    text = subprocess.run([*MCPSPY, "report", path], capture_output=True, text=True, timeout=60).stdout
    (row,) = [line for line in text.splitlines() if line.lstrip().startswith("seq ")]
    assert rule in row and f"3 lines like it, seq {seqs[0]} to {seqs[-1]}" in row


def test_lean_analysis_keeps_the_tally() -> None:
    from mcpspy.analysis.analyzer import Analyzer
    from mcpspy.capture.reader import read_capture

    lean = Analyzer(retain=False)
    seen = []
    for record in read_capture(FIXTURES / "verdict-crlf-every-line.jsonl").records:
        seen += [e for e in lean.feed(record) if type(e).__name__ == "FindingRaised"]
    (raised,) = seen
    assert (raised.finding.count, raised.finding.seqs) == (3, [2, 6])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("2", 2),
        ("2.0", 2),
        ("1e3", 1000),
        ("6e4", 60000),
        ("-0.0", 0),
        ("2.5", None),
        ("true", None),
        ('"2"', None),
    ],
)
def test_numbers_are_read_by_value(text: str, whole: int | None) -> None:
    value = orjson.loads(text)
    assert integer_value(value) == whole
    assert valid_id(value) == (whole is not None or isinstance(value, str))
