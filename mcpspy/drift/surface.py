"""What a session says about its server: the surface that ``mcpspy diff`` compares.

Read from the replies the replay policy paired with client requests:

- ``initialize`` (legacy) gives ``serverInfo``, ``protocolVersion``,
  ``instructions`` and the capabilities; ``server/discover`` (2026-07-28)
  gives ``supportedVersions``, ``instructions`` and the capabilities; any
  reply's ``_meta["io.modelcontextprotocol/serverInfo"]`` gives the server
  info when no ``initialize`` did;
- ``tools/list``, ``prompts/list``, ``resources/list`` and
  ``resources/templates/list`` give the items, keyed by name, name, uri and
  uriTemplate. A request without a cursor starts a new listing, one with a
  cursor adds a page to it; the last listing of a session is its surface.

A kind of item never listed is unknown (None), not empty: it is not compared.
The surface is plain JSON, so a baseline file is the surface written out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import ExchangeState
from mcpspy.capture.records import Stream
from mcpspy.jsonutil.structural import canonical

BASELINE_VERSION = 1
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"


@dataclass(frozen=True, slots=True)
class Listing:
    """One kind of item: what lists it, what the result calls it, what names an item."""

    area: str  # the surface's name for it, as in a baseline file
    method: str
    result_key: str
    key: str


LISTINGS = (
    Listing("tools", "tools/list", "tools", "name"),
    Listing("prompts", "prompts/list", "prompts", "name"),
    Listing("resources", "resources/list", "resources", "uri"),
    Listing("resourceTemplates", "resources/templates/list", "resourceTemplates", "uriTemplate"),
)
BY_METHOD = {listing.method: listing for listing in LISTINGS}


@dataclass
class Surface:
    server: dict[str, Any] = field(default_factory=dict)  # serverInfo, protocolVersion, instructions, ...
    capabilities: dict[str, Any] | None = None
    items: dict[str, dict[str, Any] | None] = field(default_factory=lambda: {x.area: None for x in LISTINGS})

    @property
    def empty(self) -> bool:
        return not self.server and self.capabilities is None and all(v is None for v in self.items.values())

    def to_json(self, session: str) -> dict[str, Any]:
        return {
            "mcpspy_baseline": BASELINE_VERSION,
            "session": session,
            "server": self.server,
            "capabilities": self.capabilities,
            **{area: None if found is None else list(found.values()) for area, found in self.items.items()},
        }

    @classmethod
    def from_json(cls, data: Any) -> Surface:
        """A baseline file's content; ValueError when it is not one this version reads."""
        if not isinstance(data, dict) or not isinstance(data.get("mcpspy_baseline"), int):
            raise ValueError("not an mcpspy baseline (no mcpspy_baseline version)")
        if data["mcpspy_baseline"] > BASELINE_VERSION:
            raise ValueError(f"baseline version {data['mcpspy_baseline']} is newer than this mcpspy reads")
        server, capabilities = data.get("server"), data.get("capabilities")
        surface = cls(
            server if isinstance(server, dict) else {},
            capabilities if isinstance(capabilities, dict) else None,
        )
        for listing in LISTINGS:
            found = data.get(listing.area)
            if isinstance(found, list):
                surface.items[listing.area] = _keyed(found, listing.key)
        return surface


def _item_key(item: Any, key: str) -> str:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, str) else (canonical(item) or b"?").decode()


def _keyed(items: list[Any], key: str) -> dict[str, Any]:
    return {_item_key(item, key): item for item in items}


def extract_surface(analyzer: Analyzer) -> Surface:
    surface = Surface()
    meta_server_info: Any = None
    for exchange in analyzer.exchanges:
        if exchange.stream is not Stream.C2S or exchange.state not in (
            ExchangeState.ANSWERED,
            ExchangeState.LOST,
        ):
            continue
        reply = analyzer.message(exchange.reply_seq) if exchange.reply_seq is not None else None
        request = analyzer.message(exchange.request_seq)
        result = (
            reply.payload.get("result") if reply is not None and isinstance(reply.payload, dict) else None
        )
        if not isinstance(result, dict):
            continue
        meta = result.get("_meta")
        if isinstance(meta, dict) and isinstance(meta.get(SERVER_INFO_META), dict):
            meta_server_info = meta[SERVER_INFO_META]
        params = (
            request.payload.get("params")
            if request is not None and isinstance(request.payload, dict)
            else None
        )
        _learn(surface, exchange.method, params, result)
    if "serverInfo" not in surface.server and meta_server_info is not None:
        surface.server["serverInfo"] = meta_server_info
    return surface


def _learn(surface: Surface, method: str, params: Any, result: dict[str, Any]) -> None:
    if method in ("initialize", "server/discover"):
        for key in ("serverInfo", "protocolVersion", "supportedVersions", "instructions"):
            if key in result:
                surface.server[key] = result[key]
        if isinstance(result.get("capabilities"), dict):
            surface.capabilities = result["capabilities"]
        return
    listing = BY_METHOD.get(method)
    if listing is None:
        return
    page = result.get(listing.result_key)
    if not isinstance(page, list):
        return
    cursor = params.get("cursor") if isinstance(params, dict) else None
    current = surface.items[listing.area]
    if cursor is None or current is None:
        current = surface.items[listing.area] = {}
    current.update(_keyed(page, listing.key))
