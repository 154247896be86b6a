"""Subscriptions (subscription.*, 2026-07-28): the streams subscriptions/listen opens.

The client opens a stream with a filter of the notification types it wants;
the server acknowledges it first, then sends only those types, each tagged
with the listen request's id in _meta io.modelcontextprotocol/subscriptionId.
The stream ends with a result to the listen request, a client cancel, or a
server cancel, the one thing a 2026-07-28 server may cancel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpspy.analysis.jsonrpc import shown, valid_id
from mcpspy.analysis.model import Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.capture.records import Stream

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
UPDATED = "notifications/resources/updated"
# The notifications that travel on a stream, and the filter flag that asks for each.
FLAGS = {
    "notifications/tools/list_changed": "toolsListChanged",
    "notifications/prompts/list_changed": "promptsListChanged",
    "notifications/resources/list_changed": "resourcesListChanged",
}
ON_STREAM = frozenset({ACKNOWLEDGED, UPDATED, *FLAGS})


@dataclass(slots=True)
class Listen:
    request_seq: int
    wanted: dict[str, Any]  # the filter asked for
    acked: bool = False
    ended_seq: int | None = None  # the record that ended it


def uris(value: Any) -> set[str]:
    return {u for u in value if isinstance(u, str)} if isinstance(value, list) else set()


class Subscriptions:
    def __init__(self, out: Reporter, era: EraTracker) -> None:
        self._out = out
        self._era = era
        self._listens: dict[str | int, Listen] = {}

    def request(self, message: Message) -> None:
        """A 2026-07-28 client request; a subscriptions/listen opens a stream."""
        exchange = message.exchange
        if (
            message.method != "subscriptions/listen"
            or exchange is None
            or not self._era.modern_request(exchange)
        ):
            return
        wanted = message.params.get("notifications")
        if not isinstance(wanted, dict):
            self._out.find(
                RuleId.SUBSCRIPTION_NO_FILTER,
                message.seq,
                message.stream,
                f"subscriptions/listen (id {shown(message.id)}) has no params.notifications filter "
                f"({'missing' if wanted is None else shown(wanted)})",
            )
            wanted = {}
        if valid_id(message.id):
            self._listens[message.id] = Listen(message.seq, wanted)

    def answered(self, reply: Message) -> None:
        """A reply to a 2026-07-28 listen request ends its stream."""
        exchange = reply.exchange
        if (
            exchange is None
            or exchange.method != "subscriptions/listen"
            or not self._era.modern_reply(exchange)
        ):
            return
        request_id = exchange.id
        listen = self._listens.get(request_id) if valid_id(request_id) else None
        if listen is not None and listen.ended_seq is None:
            listen.ended_seq = reply.seq

    def cancel(self, message: Message) -> bool:
        """A notifications/cancelled of a 2026-07-28 process; the server's may end only a listen.

        True for a 2026-07-28 server's, which pairing must not read: such a server cancels only a
        client's subscriptions/listen, never a request of its own.
        """
        if not self._era.modern:
            return False
        by_server = message.stream is Stream.S2C
        request_id: Any = message.params.get("requestId")
        listen = self._listens.get(request_id) if valid_id(request_id) else None
        if listen is not None:  # ended already: both sides may end it at once
            if listen.ended_seq is None:
                listen.ended_seq = message.seq
        elif by_server:
            self._out.find(
                RuleId.SUBSCRIPTION_SERVER_CANCEL,
                message.seq,
                message.stream,
                f"the server cancelled id {shown(request_id)}, which is no open subscriptions/listen; a "
                "2026-07-28 server sends notifications/cancelled only to end a listen stream",
            )
        return by_server

    def notification(self, message: Message) -> None:
        """A server notification of a 2026-07-28 process."""
        method = message.method or ""
        if method not in ON_STREAM or not self._era.modern:
            return
        params, meta = message.params, message.meta
        seq, stream = message.seq, message.stream
        if SUBSCRIPTION_ID not in meta:
            self._out.find(
                RuleId.SUBSCRIPTION_ID_MISSING,
                seq,
                stream,
                f"{method} carries no _meta {SUBSCRIPTION_ID}; a notification on a stream names its "
                "subscriptions/listen",
            )
            return
        sub_id = meta[SUBSCRIPTION_ID]
        listen = self._listens.get(sub_id) if valid_id(sub_id) else None
        if listen is None:
            self._out.find(
                RuleId.SUBSCRIPTION_UNKNOWN_ID,
                seq,
                stream,
                f"{method} names subscription {shown(sub_id)}, which no subscriptions/listen opened",
            )
            return
        if listen.ended_seq is not None:
            self._out.find(
                RuleId.SUBSCRIPTION_AFTER_END,
                seq,
                stream,
                f"{method} for subscription {shown(sub_id)}, which ended at seq {listen.ended_seq}",
                related_seq=listen.request_seq,
            )
            return
        if method == ACKNOWLEDGED:
            listen.acked = True
            self._superset(message, listen, params.get("notifications"))
            return
        if not listen.acked:
            self._out.find(
                RuleId.SUBSCRIPTION_BEFORE_ACK,
                seq,
                stream,
                f"{method} for subscription {shown(sub_id)} came before its {ACKNOWLEDGED}",
                related_seq=listen.request_seq,
            )
        self._requested(message, listen, params)

    def _requested(self, message: Message, listen: Listen, params: dict[str, Any]) -> None:
        method = message.method or ""
        if method == UPDATED:
            uri = params.get("uri")
            if uri in uris(listen.wanted.get("resourceSubscriptions")):
                return
            what = f"an update of {shown(uri)}, a uri the filter's resourceSubscriptions do not list"
        elif listen.wanted.get(FLAGS[method]) is True:
            return
        else:
            what = f"{method}, though the filter did not set {FLAGS[method]}: true"
        self._out.find(
            RuleId.SUBSCRIPTION_UNREQUESTED,
            message.seq,
            message.stream,
            f"the server sent {what}",
            related_seq=listen.request_seq,
        )

    def _superset(self, message: Message, listen: Listen, acked: Any) -> None:
        """The acknowledged filter is the part of the asked one the server honours: never more."""
        if not isinstance(acked, dict):
            return
        extra = [
            flag for flag in FLAGS.values() if acked.get(flag) is True and listen.wanted.get(flag) is not True
        ]
        extra += sorted(
            uris(acked.get("resourceSubscriptions")) - uris(listen.wanted.get("resourceSubscriptions"))
        )
        if extra:
            self._out.find(
                RuleId.SUBSCRIPTION_ACK_SUPERSET,
                message.seq,
                message.stream,
                f"the acknowledgement grants {', '.join(extra)}, which the listen request did not ask for",
                related_seq=listen.request_seq,
            )
