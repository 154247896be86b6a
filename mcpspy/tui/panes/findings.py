"""The findings pane: every finding in the order it was raised; enter asks to see its line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from textual import on
from textual.message import Message as TextualMessage

from mcpspy.analysis.model import Finding, Severity
from mcpspy.tui.rows import FINDING_COLUMNS, finding_cells
from mcpspy.tui.widgets.rowlist import RowList


class FindingsPane(RowList[Finding]):
    """The findings, counted by severity for the header."""

    @dataclass
    class JumpTo(TextualMessage):
        """The user chose a finding: show the record ``seq`` it is about."""

        findings: FindingsPane
        seq: int

        @property
        def control(self) -> FindingsPane:
            return self.findings

    def __init__(self, id: str | None = None) -> None:
        super().__init__(FINDING_COLUMNS, finding_cells, id=id, empty="no findings")
        self.findings: list[Finding] = []
        self.by_severity: Counter[Severity] = Counter()
        self.rows = self.findings

    def add(self, findings: Iterable[Finding]) -> None:
        added = len(self.findings)
        self.findings.extend(findings)
        self.by_severity.update(f.severity for f in self.findings[added:])
        self.rows_added()

    @on(RowList.Selected)
    def _chosen(self, event: RowList.Selected) -> None:
        event.stop()
        self.post_message(self.JumpTo(self, self.findings[event.index].seq))
