"""Progress (progress.*) and log messages (logging.*): the notifications about work under way.

A progress notification travels against its request: whoever received the
request reports on it, naming the progressToken the request carried in _meta.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from mcpspy.analysis.jsonrpc import shown, valid_id
from mcpspy.analysis.model import Exchange, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.schema import describe_value
from mcpspy.capture.records import Stream

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")  # RFC 5424


class Progress:
    """``recent`` (lean mode): forget the token of a request no longer pending once that many
    newer requests carried one; ``is_pending`` says which are (rules/pairing.py)."""

    def __init__(
        self, out: Reporter, recent: int | None = None, is_pending: Callable[[Exchange], bool] | None = None
    ) -> None:
        self._out = out
        # The tokens of the requests sent on each pipe, as they were sent (a valid id: str or int).
        self._tokens: dict[Stream, dict[str | int, Exchange]] = {Stream.C2S: {}, Stream.S2C: {}}
        self._last: dict[int, float] = {}  # request seq -> the last progress value reported
        self._task_augmented: set[int] = set()  # request seqs whose progress outlives the reply
        self._recent = recent
        self._is_pending = is_pending or (lambda exchange: exchange.reply_seq is None)
        self._order: deque[tuple[Stream, str | int, Exchange]] = deque()  # lean mode: tokens, oldest first

    def request(self, message: Message) -> None:
        """Note the progressToken a request carries, if any."""
        exchange = message.exchange
        assert exchange is not None  # pairing opened it
        params, meta = message.params, message.meta
        if "progressToken" not in meta:
            return
        token: Any = meta["progressToken"]
        if not valid_id(token):
            self._out.find(
                RuleId.PROGRESS_TOKEN_INVALID,
                message.seq,
                message.stream,
                f"the request's progressToken is {describe_value(token)}; it must be a string or an integer",
            )
            return
        tokens = self._tokens[message.stream]
        earlier = tokens.get(token)
        if earlier is not None and earlier is not exchange and self._is_pending(earlier):
            self._out.find(
                RuleId.PROGRESS_TOKEN_DUPLICATE,
                message.seq,
                message.stream,
                f"progressToken {shown(token)} is also carried by {earlier.method} (id {shown(earlier.id)}), "
                "still in flight",
                related_seq=earlier.request_seq,
            )
        tokens[token] = exchange
        if "task" in params:
            self._task_augmented.add(message.seq)
        if self._recent is not None:
            self._order.append((message.stream, token, exchange))
            self._forget(2)

    def _forget(self, steps: int) -> None:
        """Drop the oldest tokens past ``recent``, a few a request; pending ones go round again."""
        order = self._order
        for _ in range(steps):
            if len(order) <= (self._recent or 0):
                return
            stream, token, exchange = order.popleft()
            if self._is_pending(exchange):
                order.append((stream, token, exchange))
                continue
            if self._tokens[stream].get(token) is exchange:
                del self._tokens[stream][token]
            self._last.pop(exchange.request_seq, None)
            self._task_augmented.discard(exchange.request_seq)

    def notification(self, message: Message) -> None:
        """A notifications/progress."""
        params = message.params
        token: Any = params.get("progressToken")
        value = params.get("progress")
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        number: float | None = value if is_number else None
        if not valid_id(token) or number is None:
            field, wanted = (
                ("progressToken", "a string or an integer")
                if not valid_id(token)
                else ("progress", "a number")
            )
            got = describe_value(params[field]) if field in params else "missing"
            self._out.find(
                RuleId.PROGRESS_INVALID,
                message.seq,
                message.stream,
                f"the progress notification's params.{field} is {got}; it must be {wanted}",
            )
            if not valid_id(token):
                return
        requested_on = Stream.C2S if message.stream is Stream.S2C else Stream.S2C
        exchange = self._tokens[requested_on].get(token)
        if exchange is None:
            self._out.find(
                RuleId.PROGRESS_UNKNOWN_TOKEN,
                message.seq,
                message.stream,
                f"progress for token {shown(token)}, which no request carried",
            )
            return
        if exchange.reply_seq is not None and exchange.request_seq not in self._task_augmented:
            self._out.find(
                RuleId.PROGRESS_AFTER_COMPLETION,
                message.seq,
                message.stream,
                f"progress for token {shown(token)} after {exchange.method} (id {shown(exchange.id)}) was "
                f"answered at seq {exchange.reply_seq}",
                related_seq=exchange.request_seq,
            )
            return
        if number is None:
            return
        last = self._last.get(exchange.request_seq)
        if last is not None and number <= last:
            self._out.find(
                RuleId.PROGRESS_NOT_INCREASING,
                message.seq,
                message.stream,
                f"progress for token {shown(token)} went from {last!r} to {number!r}; it must increase",
                related_seq=exchange.request_seq,
            )
        self._last[exchange.request_seq] = number


class Logging:
    def __init__(self, out: Reporter) -> None:
        self._out = out

    def notification(self, message: Message) -> None:
        """A notifications/message from the server: its shape is the same in every revision."""
        problem = log_message_problem(message.params)
        if problem is not None:
            self._out.find(
                RuleId.LOGGING_INVALID_MESSAGE,
                message.seq,
                message.stream,
                f"the log message is malformed: {problem}",
            )


def log_message_problem(params: dict[str, Any]) -> str | None:
    """Why a notifications/message's params are malformed, or None."""
    level = params.get("level")
    if level not in LOG_LEVELS:
        got = f"{shown(level)}" if "level" in params else "missing"
        return f"params.level is {got}, not one of {', '.join(LOG_LEVELS)}"
    if "data" not in params:
        return "params.data is missing; it is required (any JSON value)"
    if "logger" in params and not isinstance(params["logger"], str):
        return "params.logger is not a string"
    return None
