"""The findings pane: every finding in seq order, its sentence wrapped; enter asks to see its line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from textual import on
from textual.message import Message as TextualMessage

from mcpspy.analysis.model import Finding, Severity
from mcpspy.tui.rows import FINDING_COLUMNS, finding_cells
from mcpspy.tui.widgets.rowlist import RowList


def by_seq(finding: Finding) -> int:
    return finding.seq


class FindingsPane(RowList[Finding]):
    """The findings in the order of the lines they are about, counted by severity for the header.

    Most arrive in order; those the end of a session raises (unanswered requests)
    are about older lines and are sorted in.
    """

    @dataclass
    class JumpTo(TextualMessage):
        """The user chose a finding: show the record ``seq`` it is about."""

        findings: FindingsPane
        seq: int
        finding: Finding

        @property
        def control(self) -> FindingsPane:
            return self.findings

    def __init__(self, id: str | None = None) -> None:
        super().__init__(FINDING_COLUMNS, finding_cells, id=id, empty="no findings")
        self.findings: list[Finding] = []
        self.by_severity: Counter[Severity] = Counter()  # the server's: an injection's are not counted
        self.rows = self.findings

    def add(self, findings: Iterable[Finding]) -> None:
        new = list(findings)
        self.by_severity.update(f.severity for f in new if not f.injected)
        last = self.findings[-1].seq if self.findings else -1
        if all(f.seq >= last for f in new) and new == sorted(new, key=by_seq):
            self.findings.extend(new)
            self.rows_added()
            return
        chosen = self.current
        self.findings.extend(new)
        self.findings.sort(key=by_seq)  # stable: findings about one line keep their order
        cursor = self.findings.index(chosen) if chosen is not None else 0
        self.set_rows(self.findings, cursor=cursor)

    def reset(self) -> None:
        """Forget every finding (another session is shown)."""
        self.findings.clear()
        self.by_severity.clear()
        self.set_rows(self.findings, cursor=0)

    @on(RowList.Selected)
    def _chosen(self, event: RowList.Selected) -> None:
        event.stop()
        finding = self.findings[event.index]
        self.post_message(self.JumpTo(self, finding.seq, finding))
