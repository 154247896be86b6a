"""A real OTLP/HTTP receiver for tests: http.server on a thread, decoding the protobuf bodies.

It answers as a collector does (200 with an empty Export*ServiceResponse) and
keeps every span, log record and metric it was sent, decoded with opentelemetry-proto.
"""

from __future__ import annotations

import gzip
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


def plain(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [plain(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


def attributes(items: Any) -> dict[str, Any]:
    return {kv.key: plain(kv.value) for kv in items}


@dataclass
class Received:
    spans: list[Any] = field(default_factory=list)  # (resource attributes, span) pairs
    logs: list[Any] = field(default_factory=list)
    metrics: list[Any] = field(default_factory=list)  # (resource attributes, Metric) pairs
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    requests: int = 0

    def span_dicts(self) -> list[dict[str, Any]]:
        return [
            {
                "name": span.name,
                "kind": span.kind,
                "trace_id": span.trace_id.hex(),
                "span_id": span.span_id.hex(),
                "parent": span.parent_span_id.hex(),
                "start": span.start_time_unix_nano,
                "end": span.end_time_unix_nano,
                "attributes": attributes(span.attributes),
                "events": [(e.name, attributes(e.attributes)) for e in span.events],
                "status": (span.status.code, span.status.message),
                "links": [link.span_id.hex() for link in span.links],
                "resource": resource,
            }
            for resource, span in self.spans
        ]

    def histogram_points(self, name: str) -> list[dict[str, Any]]:
        """Every point of the histogram ``name`` received, plain."""
        return [
            {
                "unit": metric.unit,
                "temporality": metric.histogram.aggregation_temporality,
                "attributes": attributes(p.attributes),
                "count": p.count,
                "sum": p.sum,
                "bounds": list(p.explicit_bounds),
                "buckets": list(p.bucket_counts),
                "start": p.start_time_unix_nano,
                "time": p.time_unix_nano,
                "resource": resource,
            }
            for resource, metric in self.metrics
            if metric.name == name and metric.WhichOneof("data") == "histogram"
            for p in metric.histogram.data_points
        ]

    def sum_points(self, name: str) -> list[dict[str, Any]]:
        return [
            {
                "unit": metric.unit,
                "monotonic": metric.sum.is_monotonic,
                "attributes": attributes(p.attributes),
                "value": p.as_int if p.WhichOneof("value") == "as_int" else p.as_double,
            }
            for _, metric in self.metrics
            if metric.name == name and metric.WhichOneof("data") == "sum"
            for p in metric.sum.data_points
        ]


class Collector(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, paths: tuple[str, ...] = ("/v1/traces", "/v1/logs", "/v1/metrics")) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.received = Received()
        self.lock = threading.Lock()
        self.paths = paths  # what it takes; anything else is a 404 (Jaeger and Langfuse take traces only)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: Collector

    def log_message(self, format: str, *args: Any) -> None:  # keep the test output clean
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        received = self.server.received
        with self.server.lock:
            received.requests += 1
            received.headers.append({k.lower(): v for k, v in self.headers.items()})
            received.paths.append(self.path)
            signal = self.path if self.path in self.server.paths else "refused"
            if signal == "/v1/traces":
                request = ExportTraceServiceRequest.FromString(body)
                for rs in request.resource_spans:
                    for ss in rs.scope_spans:
                        received.spans += [(attributes(rs.resource.attributes), s) for s in ss.spans]
                reply = ExportTraceServiceResponse().SerializeToString()
            elif signal == "/v1/logs":
                request_logs = ExportLogsServiceRequest.FromString(body)
                for rl in request_logs.resource_logs:
                    for sl in rl.scope_logs:
                        received.logs += list(sl.log_records)
                reply = ExportLogsServiceResponse().SerializeToString()
            elif signal == "/v1/metrics":
                request_metrics = ExportMetricsServiceRequest.FromString(body)
                for rm in request_metrics.resource_metrics:
                    for sm in rm.scope_metrics:
                        received.metrics += [(attributes(rm.resource.attributes), m) for m in sm.metrics]
                reply = ExportMetricsServiceResponse().SerializeToString()
            else:
                self.send_response(404)
                self.end_headers()
                return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


@contextmanager
def running_collector(paths: tuple[str, ...] | None = None) -> Iterator[Collector]:
    server = Collector() if paths is None else Collector(paths)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HostileCollector:
    """A socket that takes each OTLP request and answers as a hostile collector would.

    ``trickle``: the status line a byte every ``pace`` seconds, never finished (no per-read
    timeout ever trips). ``flood``: a 200 whose body claims 1.5 GB and sends it as fast as taken.
    ``sent`` counts the answer bytes that went out.
    """

    def __init__(self, how: str, pace: float = 0.3) -> None:
        self.how = how
        self.pace = pace
        self.sent = 0
        self.requests = 0
        self._stop = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.1)
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += conn.recv(65536) or b"\r\n\r\n"
                self.requests += 1
                if self.how == "trickle":
                    for byte in b"HTTP/1.1 200 OK\r\n" * 1000:
                        if self._stop.wait(self.pace):
                            return
                        self.sent += conn.send(bytes([byte]))
                else:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
                                 b"Content-Length: 1500000000\r\n\r\n")  # fmt: skip
                    piece = b"\0" * (1 << 20)
                    while self.sent < 1_500_000_000 and not self._stop.is_set():
                        self.sent += conn.send(piece)
            except OSError:
                return  # the client hung up: what a bounded reader does

    def close(self) -> None:
        self._stop.set()
        self._server.close()


@contextmanager
def hostile_collector(how: str) -> Iterator[HostileCollector]:
    collector = HostileCollector(how)
    try:
        yield collector
    finally:
        collector.close()
