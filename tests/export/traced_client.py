"""The Python SDK stdio client with OpenTelemetry on: its own CLIENT spans, sent to a collector.

The SDK puts each request's span in ``params._meta.traceparent`` (SEP-414), so
the server side (here: mcpspy with ``--otlp-join``) can join that span.

Usage: traced_client.py COLLECTOR_URL TOOL ARGS_JSON -- CMD ARGS...
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor


async def main(tool: str, arguments: dict[str, object], command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        result = await session.call_tool(tool, arguments)
        print(json.dumps([c.model_dump(mode="json") for c in result.content], sort_keys=True))


if __name__ == "__main__":
    split = sys.argv.index("--")
    provider = TracerProvider(resource=Resource.create({"service.name": "traced-client"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=sys.argv[1] + "/v1/traces")))
    trace.set_tracer_provider(provider)
    anyio.run(main, sys.argv[2], json.loads(sys.argv[3]), sys.argv[split + 1 :])
    provider.shutdown()
