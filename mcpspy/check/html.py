"""`check --format html`: the check as a report card, one self-contained page.

The same page style and Content-Security-Policy as the report's HTML (``default-src 'none'``; the
style admitted by its hash; no script at all here): per era, each check with its verdict, the line
that shows it and its fix. Every piece of server data (the command, quoted lines, names, sentences
that quote the server) is made visible and escaped before it is put in the page.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from mcpspy.check.catalogue import CHECKS, verdict_fix
from mcpspy.check.model import CheckRun, EraRun, Status, Verdict
from mcpspy.render.html_assets import STYLE, content_security_policy
from mcpspy.terminal import visible, visible_line

QUOTE = 400  # characters of a quoted line
SHOWN = 5  # problems and findings listed per check
STATUS_CLASS = {Status.FAIL: "sev-error", Status.WARN: "sev-warning", Status.PASS: "", Status.SKIP: "fix"}
ARROW = {"c2s": "client → server", "s2c": "server → client", "err": "server stderr"}
CARD_STYLE = """
.card td.status { font-weight: 600; text-transform: uppercase; font-size: 12px; }
.card td.id { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
              white-space: nowrap; }
.card tr.detail td { padding: 0 0 10px 24px; } .card tr { border-top: 1px solid rgba(127,127,127,.2); }
"""


def text(value: object) -> str:
    return escape(visible_line(str(value)))


def render_check_html(run: CheckRun) -> str:
    command = text(" ".join(run.command))
    counts = Counter(v.status for v in run.verdicts)
    failing = counts[Status.FAIL]
    verdict = f"{failing} failing" if failing else "passing"
    sections = "".join(era_section(era) for era in run.eras)
    policy = content_security_policy(STYLE + CARD_STYLE, None)  # a report card runs no script
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>mcpspy check: {verdict}</title><style>{STYLE}{CARD_STYLE}</style></head>\n<body>"
        f'<header><h1>mcpspy check: <span class="{"sev-error" if failing else ""}">{verdict}</span></h1>'
        f"<dl><dt>server</dt><dd><code>{command}</code></dd>"
        f"<dt>checks</dt><dd>{len(run.verdicts)} in {len(run.eras)} era(s): {counts[Status.PASS]} passed, "
        f"{failing} failed, {counts[Status.WARN]} warned, {counts[Status.SKIP]} skipped</dd>"
        f"<dt>reply timeout</dt><dd>{run.timeout:g} s</dd></dl></header>\n"
        f"{sections}</body></html>\n"
    )


def era_section(era: EraRun) -> str:
    rows = "".join(verdict_rows(era, v) for v in era.verdicts)
    return (
        f'<h2 id="{escape(era.era.value)}">{escape(era.era.title)}</h2>'
        f'<p class="fix">capture <code>{text(era.capture)}</code>: '
        "open it with <code>mcpspy view</code> or <code>mcpspy report</code></p>"
        f'<table class="card"><thead><tr><th>verdict</th><th>check</th><th>what was seen</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>\n"
    )


def verdict_rows(era: EraRun, verdict: Verdict) -> str:
    name = verdict.check_id + (f"[{visible_line(verdict.target)}]" if verdict.target else "")
    row = (
        f'<tr><td class="status {STATUS_CLASS[verdict.status]}">{verdict.status.value}</td>'
        f'<td class="id" title="{escape(CHECKS[verdict.check_id].title)}">{text(name)}</td>'
        f"<td>{text(verdict.message)}</td></tr>"
    )
    if verdict.status not in (Status.FAIL, Status.WARN):
        return row
    return row + f'<tr class="detail"><td></td><td colspan="2">{details(era, verdict)}</td></tr>'


def details(era: EraRun, verdict: Verdict) -> str:
    """Each problem and finding with the line that shows it, then the fix and the suite's ids."""
    parts: list[str] = []
    quoted: set[int] = set()
    for problem in verdict.problems[:SHOWN]:
        parts.append(f'<div class="sev-{problem.severity.label}">{text(problem.sentence)}</div>')
        parts.append(quote(era, problem.seq, quoted))
    for finding in verdict.findings[:SHOWN]:
        parts.append(
            f'<div class="sev-{finding.severity.label}"><code>{escape(finding.id)}</code>: '
            f"{text(finding.message)}</div>"
        )
        parts.append(quote(era, finding.seq, quoted))
    hidden = max(0, len(verdict.problems) - SHOWN) + max(0, len(verdict.findings) - SHOWN)
    if hidden:
        parts.append(f'<div class="fix">… and {hidden} more in the capture</div>')
    parts.append(f'<div class="fix">fix: {text(verdict_fix(verdict))}</div>')
    suite = CHECKS[verdict.check_id].conformance
    if suite:
        parts.append(f'<div class="fix">conformance suite: {escape(", ".join(suite))}</div>')
    return "".join(parts)


def quote(era: EraRun, seq: int | None, quoted: set[int]) -> str:
    if seq is None or seq in quoted or seq not in era.raw_of:
        return ""
    quoted.add(seq)
    line = era.line_of.get(seq, "?")
    stream = era.stream_of.get(seq, "")
    raw = era.raw_of[seq].decode("utf-8", "backslashreplace")
    cut = raw[:QUOTE] + ("…" if len(raw) > QUOTE else "")
    return (
        f'<div class="label">line {line} ({escape(ARROW.get(stream, stream))})</div>'
        f"<pre>{escape(visible(cut))}</pre>"
    )
