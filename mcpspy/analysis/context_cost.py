"""Context cost: what a server's lists and tool results cost a model's context window.

A client hands every tool definition (name, description, inputSchema, ...) to
the model with every turn, so a server's tools/list is paid for again and
again; users report tool lists eating half a context window.

Sizes are the bytes of each value written as compact JSON (what a client would
forward), not of the line as sent: indentation and the envelope are not paid
for. Tokens are estimated, with no tokenizer and no network, as bytes / 4
rounded up: the usual rule of thumb for English text with BPE tokenizers. JSON
with many short keys and punctuation runs nearer 3 bytes a token, so read the
figure as a lower estimate, good for comparing tools and servers.

Pure: fed answered exchanges and the messages they point to, in any view.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpspy.analysis.message_fields import result_of
from mcpspy.analysis.model import Exchange, ExchangeState, Message
from mcpspy.capture.records import Stream

BYTES_PER_TOKEN = 4
LISTS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources"}


def tokens_of(size: int) -> int:
    """The estimated tokens of ``size`` bytes of JSON (module docstring)."""
    return -(-size // BYTES_PER_TOKEN)


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact JSON; never raises (walks what orjson cannot write: too deep)."""
    try:
        return len(orjson.dumps(value))
    except orjson.JSONEncodeError:
        pass
    size, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            size += 2 + max(len(item) - 1, 0) + len(item)  # braces, commas, colons
            for key, sub in item.items():
                size += _scalar_size(key)
                stack.append(sub)
        elif isinstance(item, list):
            size += 2 + max(len(item) - 1, 0)
            stack.extend(item)
        else:
            size += _scalar_size(item)
    return size


def _scalar_size(value: Any) -> int:
    try:
        return len(orjson.dumps(value))
    except orjson.JSONEncodeError:  # an integer past 64 bits
        return len(str(value))


@dataclass(frozen=True, slots=True)
class ItemCost:
    """One tool (or a tool result): its name, and the bytes and tokens it costs."""

    name: str
    bytes: int
    tokens: int


@dataclass(slots=True)
class ListCost:
    """The latest listing of one kind (its pages summed); ``items`` in listing order."""

    bytes: int = 0
    items: list[ItemCost] = field(default_factory=list)
    seen: bool = False

    @property
    def tokens(self) -> int:
        return tokens_of(self.bytes)


@dataclass(slots=True)
class ContextCost:
    lists: dict[str, ListCost] = field(default_factory=lambda: {key: ListCost() for key in LISTS.values()})
    tool_results: list[ItemCost] = field(default_factory=list)  # each tools/call result, in order

    @property
    def tools(self) -> ListCost:
        return self.lists["tools"]

    def most_expensive_tools(self, n: int = 5) -> list[ItemCost]:
        return sorted(self.tools.items, key=lambda item: -item.bytes)[:n]

    def as_json(self) -> dict[str, Any]:
        """The report's ``context_cost`` object (model/report.py documents it)."""
        out: dict[str, Any] = {
            "token_estimate": f"bytes / {BYTES_PER_TOKEN}, rounded up",
            "tools_list_bytes": self.tools.bytes,
            "tools_list_tokens": self.tools.tokens,
            "per_tool": [{"name": t.name, "bytes": t.bytes, "tokens": t.tokens} for t in self.tools.items],
        }
        for kind in ("prompts", "resources"):
            listing = self.lists[kind]
            out[f"{kind}_list_bytes"] = listing.bytes
            out[f"{kind}_list_tokens"] = listing.tokens
        results = self.tool_results
        out["tool_results"] = {
            "count": len(results),
            "bytes": sum(r.bytes for r in results),
            "tokens": sum(r.tokens for r in results),
            "max_bytes": max((r.bytes for r in results), default=0),
        }
        return out


class ContextMeter:
    """Fed client requests as they are answered; keeps the latest listing of each kind.

    A list request without a cursor starts a new listing; one with a cursor adds
    its page to the listing it continues. Feeding the same exchange twice counts
    it once.
    """

    def __init__(self) -> None:
        self.cost = ContextCost()
        self._counted: set[int] = set()

    def exchange(self, exchange: Exchange, message_at: Callable[[int], Message | None]) -> None:
        kind, reply_seq = LISTS.get(exchange.method), exchange.reply_seq
        if exchange.stream is not Stream.C2S or exchange.state is not ExchangeState.ANSWERED:
            return
        if (
            (kind is None and exchange.method != "tools/call")
            or reply_seq is None
            or reply_seq in self._counted
        ):
            return
        reply, request = message_at(reply_seq), message_at(exchange.request_seq)
        result = result_of(reply) if reply is not None else None
        if request is None or not isinstance(result, dict):
            return
        self._counted.add(reply_seq)
        params = request.params
        if kind is None:
            name = params.get("name")
            size = json_size(result)
            self.cost.tool_results.append(
                ItemCost(name if isinstance(name, str) else "?", size, tokens_of(size))
            )
            return
        items = result.get(kind)
        if not isinstance(items, list):
            return
        listing = self.cost.lists[kind]
        if "cursor" not in params:
            listing.bytes, listing.items = 0, []
        listing.seen = True
        listing.bytes += json_size(items)
        for item in items:
            name = item.get("name") if isinstance(item, dict) else None
            size = json_size(item)
            listing.items.append(ItemCost(name if isinstance(name, str) else "?", size, tokens_of(size)))


def context_cost(exchanges: Iterable[Exchange], message_at: Callable[[int], Message | None]) -> ContextCost:
    """The context cost of a whole analysis: ``context_cost(a.exchanges, a.message)``."""
    meter = ContextMeter()
    for exchange in exchanges:
        meter.exchange(exchange, message_at)
    return meter.cost
