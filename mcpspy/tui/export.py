"""`e`: the filtered view, or one exchange, through the report formats, into a private file. No Textual.

The capture is replayed whole, by the one replay policy, so an export has the
findings every other view has; that analysis (made for this export alone) is
then narrowed to the chosen messages: their findings and exchanges, every
process event. ``build_summary`` and the report's renderers do the rest, so
each format `mcpspy report --format` knows (text, json, markdown, html...)
exports the same way. The file is created 0600, never through a symlink.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.capture.private import write_private_atomic
from mcpspy.model.summary import build_summary
from mcpspy.replay_policy import DEFAULT_SLOW_AFTER, open_capture
from mcpspy.report.command import FORMATS, document, encoded

EXTENSIONS = {"text": "txt", "markdown": "md", "otlp": "json", "junit": "xml"}


def formats() -> list[str]:
    """The report's formats, as `mcpspy report --format` lists them."""
    return list(FORMATS)


def extension(fmt: str) -> str:
    return EXTENSIONS.get(fmt, fmt)


def default_path(capture: Path, scope: str, fmt: str, directory: Path) -> Path:
    """``<capture name>-<scope>.<ext>`` in ``directory``, numbered past any file already there."""
    stem = f"{capture.stem}-{scope}"
    candidate = directory / f"{stem}.{extension(fmt)}"
    number = 2
    while os.path.lexists(candidate):
        candidate = directory / f"{stem}-{number}.{extension(fmt)}"
        number += 1
    return candidate


@dataclass(frozen=True)
class ExportRequest:
    fmt: str
    scope: str  # "view" or "exchange"
    dest: Path
    overwrite: bool = False


def narrow(analyzer: Analyzer, keep: Collection[int]) -> None:
    """Leave in ``analyzer`` (replayed for this export alone) only the messages ``keep`` names."""
    analyzer.messages[:] = [m for m in analyzer.messages if m.seq in keep]
    analyzer.findings[:] = [f for f in analyzer.findings if f.seq in keep]
    analyzer.exchanges[:] = [
        x
        for x in analyzer.exchanges
        if x.request_seq in keep or (x.reply_seq is not None and x.reply_seq in keep)
    ]


def render_export(
    capture_path: Path,
    fmt: str,
    keep: Collection[int] | None,
    slow_after: float = DEFAULT_SLOW_AFTER,
) -> Iterator[bytes]:
    """The report of ``capture_path`` in ``fmt``, about the messages ``keep`` names (None: all of them),
    as `mcpspy report` writes it: in pieces, so a big session's page is never whole in memory."""
    opened = open_capture(capture_path, slow_after)
    if keep is not None:
        narrow(opened.analyzer, keep)
    return encoded(document(build_summary(opened.capture, capture_path, opened.analyzer), fmt))


def write_private(dest: Path, pieces: Iterator[bytes], overwrite: bool) -> None:
    """Write ``pieces`` to ``dest``, created 0600, whole or not at all; never through a symlink; an
    existing file only if asked."""
    write_private_atomic(dest, pieces, replace=overwrite)
