"""A finding's fix and its spec's public page reach every view: report text, JSON, Markdown,
SARIF, HTML and the TUI's detail pane. No view shows an internal path (.mdx) or the seed."""

from __future__ import annotations

import json
from pathlib import Path

from mcpspy.analysis.catalogue import RULES
from mcpspy.model.summary import Summary, build_summary
from mcpspy.replay_policy import open_capture
from mcpspy.report.html import finding_line
from mcpspy.report.json_ import render_json
from mcpspy.report.markdown import render_markdown
from mcpspy.report.sarif import render_sarif
from mcpspy.report.text import render_text
from mcpspy.tui.panes.detail import finding_lines

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "lesson-ready-glued.jsonl"
RULE = RULES["stdout.glued-prefix"]
PAGE = "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio"


def summary() -> Summary:
    opened = open_capture(FIXTURE)
    capture, analyzer = opened.capture, opened.analyzer
    assert [f.id for f in analyzer.findings] == [RULE.id]
    return build_summary(capture, FIXTURE, analyzer)


def no_internal_source(text: str) -> None:
    assert ".mdx" not in text and "seed" not in text


def test_text_report_says_how_to_fix_each_rule_once() -> None:
    out = render_text(summary())
    tail = out[out.index("how to fix") :]
    assert f"  {RULE.id}: {RULE.fix}\n    {PAGE}" in tail
    assert tail.count(RULE.id) == 1
    no_internal_source(out)


def test_json_report_has_fix_and_public_source_per_finding() -> None:
    (finding,) = json.loads(render_json(summary()))["findings"]
    assert finding["fix"] == RULE.fix
    assert finding["source"] == PAGE and finding["source_links"] == [PAGE]


def test_markdown_has_fix_and_a_link() -> None:
    out = render_markdown(summary())
    assert "  - fix: End every write on the server's stdout with a newline" in out
    assert f"(<{PAGE}>)" in out
    no_internal_source(out)


def test_sarif_rule_has_help_uri_and_fix() -> None:
    (rule,) = json.loads(render_sarif(summary()))["runs"][0]["tool"]["driver"]["rules"]
    assert rule["helpUri"] == PAGE
    assert rule["help"]["text"].startswith(RULE.fix)
    no_internal_source(json.dumps(rule))


def test_html_and_detail_pane_show_the_fix_and_the_page() -> None:
    s = summary()
    message = s.analyzer.message(2)
    assert message is not None
    html = finding_line(message.findings[0])
    assert RULE.fix.replace("'", "&#x27;") in html and PAGE in html
    lines = [line.plain for line in finding_lines(message)]
    assert f"  fix: {RULE.fix}" in lines and f"  source: {PAGE}" in lines
    no_internal_source("\n".join(lines) + html)
