"""The replies of a replay against those of the recording, exchange by exchange.

The replay sends the recorded client lines in order, so the n-th client
request of the new capture is the n-th of the old one; each pair's replies
(paired with their requests by the replay policy) are compared as JSON
values, after leaving out the ignored places: the reply's ``id`` always, the
fields in ``DEFAULT_IGNORED`` unless asked not to, and every ``--ignore``.
Requests the recording cancelled are not compared (whether a reply still
comes is a race).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Exchange, ExchangeState
from mcpspy.capture.records import Stream
from mcpspy.jsonutil.paths import PathSet
from mcpspy.jsonutil.structural import MISSING, Change, Difference, diff, prune

ALWAYS_IGNORED = ("$.id",)

#: What differs from run to run of the same server, by design: left out unless --no-default-ignores.
DEFAULT_IGNORED: tuple[tuple[str, str], ...] = (
    ("$.._meta.progressToken", "the client's progress token, echoed"),
    ("$.._meta.timestamp", "a server's own clock in _meta"),
    ('$.._meta["io.modelcontextprotocol/serverInfo"]', "server name and version on each 2026-07-28 reply"),
    ('$.._meta["io.modelcontextprotocol/related-task"]', "the task a message belongs to (a fresh task id)"),
    ("$..taskId", "task ids, made afresh by the server"),
    ("$..createdAt", "task creation times"),
    ("$..lastUpdatedAt", "task update times"),
)


@dataclass(frozen=True, slots=True)
class ExchangeDiff:
    """One request whose reply changed."""

    method: str
    id: Any
    recorded_seq: int  # the request's seq in the recorded capture
    new_seq: int | None  # and in the new one (None: the replay never got that far)
    note: str | None = None  # what happened instead of a comparable reply
    differences: list[Difference] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ReplayComparison:
    compared: int  # exchanges compared
    changed: list[ExchangeDiff]

    @property
    def same(self) -> bool:
        return not self.changed


def ignored_paths(extra: list[str], defaults: bool = True) -> PathSet:
    texts = [*ALWAYS_IGNORED, *(p for p, _ in DEFAULT_IGNORED if defaults), *extra]
    return PathSet.parse(texts)


def compare_replies(old: Analyzer, new: Analyzer, ignored: PathSet) -> ReplayComparison:
    old_requests = [x for x in old.exchanges if x.stream is Stream.C2S]
    new_requests = [x for x in new.exchanges if x.stream is Stream.C2S]
    changed: list[ExchangeDiff] = []
    compared = 0
    for i, before in enumerate(old_requests):
        if before.state is ExchangeState.CANCELLED:
            continue
        after = new_requests[i] if i < len(new_requests) else None
        compared += 1
        found = _compare(before, after, old, new, ignored)
        if found is not None:
            changed.append(found)
    return ReplayComparison(compared, changed)


def _reply(analyzer: Analyzer, exchange: Exchange | None) -> Any:
    if exchange is None or exchange.reply_seq is None:
        return MISSING
    message = analyzer.message(exchange.reply_seq)
    if message is None:
        return MISSING
    return message.payload if message.payload is not None else message.raw.decode("utf-8", "replace")


def _compare(
    before: Exchange, after: Exchange | None, old: Analyzer, new: Analyzer, ignored: PathSet
) -> ExchangeDiff | None:
    base = ExchangeDiff(
        before.method, before.id, before.request_seq, None if after is None else after.request_seq
    )
    if after is None:
        return replace(base, note="not sent: the replay stopped before it")
    old_reply, new_reply = _reply(old, before), _reply(new, after)
    if old_reply is MISSING and new_reply is MISSING:
        return None
    if new_reply is MISSING:
        return replace(base, note="no reply (the recording had one)")
    if old_reply is MISSING:
        whole = Difference((), Change.ADDED, MISSING, new_reply)
        return replace(base, note="answered now (the recording had no reply)", differences=[whole])
    differences = diff(prune(old_reply, ignored), prune(new_reply, ignored))
    return replace(base, differences=differences) if differences else None
