"""Lines on stdin that are no JSON-RPC message get the answer JSON-RPC 2.0 gives them.

The SDK's stdio transport hands such a line to the server as an exception,
which its dispatcher logs and drops: the client waits on a reply that never
comes (``mcpspy check`` warns of it: robust.parse-error). This wraps the
transport's read stream and answers each one with ``id: null``: -32700 for a
line that is not JSON, -32600 for JSON that is not a message.
"""

from __future__ import annotations

import contextvars
from types import TracebackType
from typing import Any, Self

import anyio
import mcp_types as types
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError


def error_for(exc: Exception) -> types.JSONRPCError:
    not_json = isinstance(exc, ValidationError) and any(e["type"] == "json_invalid" for e in exc.errors())
    error = (
        types.ErrorData(code=types.PARSE_ERROR, message="Parse error")
        if not_json
        else types.ErrorData(code=types.INVALID_REQUEST, message="Invalid Request")
    )
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)


class AnsweringUnreadable:
    """The transport's read stream, less the unreadable lines, each answered on ``write``."""

    def __init__(
        self, read: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage]
    ) -> None:
        self._read = read
        self._write = write

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender context the SDK's context-aware stream carries (its dispatcher reads it)."""
        context: contextvars.Context | None = getattr(self._read, "last_context", None)
        return context

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            await self._write.send(SessionMessage(error_for(item)))

    async def aclose(self) -> None:
        await self._read.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Any:
        await self.aclose()
        return None
