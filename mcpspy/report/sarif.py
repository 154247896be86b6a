"""`mcpspy report --format sarif`: a recorded session's findings, each at its capture line, in one run."""

from __future__ import annotations

from mcpspy.model.summary import Summary
from mcpspy.render.sarif import Rules, artifact_uri, document, finding_result, make_run


def render_sarif(summary: Summary) -> str:
    """A recorded session: its findings, each at its capture line."""
    rules = Rules()
    artifact = artifact_uri(summary.path)
    results = [finding_result(rules, f, artifact, summary.line_of.get(f.seq)) for f in summary.findings]
    return document(
        [
            make_run(
                "mcpspy report", rules, artifact, results, f"mcpspy-report/{summary.capture.header.session}"
            )
        ]
    )
