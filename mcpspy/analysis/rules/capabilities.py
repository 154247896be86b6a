"""Capability gating (capability.*): each side uses only what the other declared.

The server's capabilities come from its initialize result (legacy) or its
server/discover result (2026-07-28); the client's from its initialize
params. Until they are seen, nothing is gated: absence of evidence is not a
finding.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.jsonrpc import shown
from mcpspy.analysis.message_fields import result_of
from mcpspy.analysis.model import Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker

# method -> (capability, sub-flag that must be true or None, the first revision that has it)
SERVER_FEATURES: dict[str, tuple[str, str | None, str]] = {
    "tools/list": ("tools", None, ""),
    "tools/call": ("tools", None, ""),
    "prompts/list": ("prompts", None, ""),
    "prompts/get": ("prompts", None, ""),
    "resources/list": ("resources", None, ""),
    "resources/templates/list": ("resources", None, ""),
    "resources/read": ("resources", None, ""),
    "resources/subscribe": ("resources", "subscribe", ""),
    "logging/setLevel": ("logging", None, ""),
    "completion/complete": ("completions", None, "2025-03-26"),  # 2024-11-05 had no such capability
}
CLIENT_FEATURES: dict[str, str] = {
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
    "elicitation/create": "elicitation",
}
LIST_CHANGED: dict[str, str] = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}
# "Only use capabilities that were successfully negotiated": a SHOULD before this revision, a MUST since.
MUST_SINCE = "2025-06-18"


def _declared(capabilities: dict[str, Any], name: str, flag: str | None = None) -> bool:
    entry = capabilities.get(name)
    if name not in capabilities or entry is None:
        return False
    return flag is None or (isinstance(entry, dict) and entry.get(flag) is True)


class Capabilities:
    def __init__(self, out: Reporter, era: EraTracker) -> None:
        self._out = out
        self._era = era
        self.server: dict[str, Any] | None = None
        self.client: dict[str, Any] | None = None

    def learn_client(self, initialize: Message) -> None:
        capabilities = initialize.params.get("capabilities")
        if isinstance(capabilities, dict):
            self.client = capabilities

    def learn_server(self, reply: Message) -> None:
        """A reply to the client: an initialize or server/discover result declares the server's."""
        method = reply.exchange.method if reply.exchange is not None else None
        if method != "initialize" and method != "server/discover":
            return
        result = result_of(reply)
        if isinstance(result, dict):
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict):
                self.server = capabilities

    def client_request(self, message: Message) -> None:
        if self.server is None:
            return
        feature = SERVER_FEATURES.get(message.method or "")
        if feature is None:
            return
        name, flag, since = feature
        if since:
            revision = self._era.revision(message.exchange) if message.exchange is not None else None
            if revision is None or revision < since:
                return
        if not _declared(self.server, name, flag):
            what = f"{name}.{flag}" if flag else name
            self._out.find(
                RuleId.CAPABILITY_SERVER_UNDECLARED,
                message.seq,
                message.stream,
                f"{message.method} (id {shown(message.id)}) needs the server's {what} capability, "
                "which it did not declare",
            )

    def server_request(self, message: Message) -> None:
        name = CLIENT_FEATURES.get(message.method or "")
        if name is None or self.client is None or _declared(self.client, name):
            return
        revision = self._era.protocol_version
        must = revision is not None and revision >= MUST_SINCE
        self._out.find(
            RuleId.CAPABILITY_CLIENT_UNDECLARED if must else RuleId.CAPABILITY_CLIENT_UNNEGOTIATED,
            message.seq,
            message.stream,
            f"the server sent {message.method} (id {shown(message.id)}), but the client did not "
            f"declare the {name} capability",
        )

    def server_notification(self, message: Message) -> None:
        if self.server is None:
            return
        method = message.method or ""
        if method == "notifications/message" and not _declared(self.server, "logging"):
            self._out.find(
                RuleId.CAPABILITY_LOGGING_UNDECLARED,
                message.seq,
                message.stream,
                "the server sent notifications/message without declaring the logging capability",
            )
        name = LIST_CHANGED.get(method)
        if name is not None and not _declared(self.server, name, "listChanged"):
            self._out.find(
                RuleId.CAPABILITY_LIST_CHANGED_UNDECLARED,
                message.seq,
                message.stream,
                f"the server sent {method} without declaring {name}.listChanged: true",
            )
