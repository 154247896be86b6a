"""The optional OpenTelemetry SDK: checked for, quietened, and pointed at a collector.

Nothing here imports the SDK at module level: the proxy and every other view
start without it. ``require_sdk`` is called first by every OTLP entry point;
without the ``otel`` extra it raises ``MissingExtra`` whose text is the one
line the user sees.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from typing import Any
from urllib.parse import urlsplit

EXTRA_HINT = "the OTLP export needs the otel extra: pip install 'mcpspy[otel]'"
SIGNAL_PATHS = {"traces": "/v1/traces", "logs": "/v1/logs", "metrics": "/v1/metrics"}
#: Bytes of a collector's answer read: an OTLP answer is a few bytes (a partial-success note at
#: most); past it the connection is closed, so a collector that floods costs this much, not its body.
ANSWER_LIMIT = 1 << 20
ANSWER_PIECE = 1 << 16


class MissingExtra(ImportError):
    """The OpenTelemetry packages are not installed."""


def require_sdk() -> None:
    """Import-check the SDK and the OTLP/HTTP exporter, and keep their loggers off stderr.

    The SDK reports export failures through ``logging``; with no handler
    configured Python would print them on stderr, which in the proxy is the
    client's log. mcpspy counts failures itself and says so once.
    """
    try:
        import opentelemetry.exporter.otlp.proto.http
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError as exc:
        raise MissingExtra(f"{EXTRA_HINT} ({exc.name or exc} is missing)") from exc
    quiet = logging.getLogger("opentelemetry")
    if not any(isinstance(h, logging.NullHandler) for h in quiet.handlers):
        quiet.addHandler(logging.NullHandler())
    quiet.propagate = False


def usable_endpoint(endpoint: str | None) -> str | None:
    """Why the export cannot run (a bad URL, the extra missing), or None; without importing the SDK."""
    if (problem := check_endpoint(endpoint)) is not None:
        return problem
    for module in ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http"):
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:  # a parent package is missing
            found = False
        if not found:
            return f"{EXTRA_HINT} ({module} is missing)"
    return None


def bounded_session() -> Any:
    """A ``requests`` session for the OTLP exporters that reads at most ``ANSWER_LIMIT`` of an answer."""
    import requests

    session = requests.Session()
    session.hooks["response"].append(_read_bounded)
    return session


def _read_bounded(response: Any, *args: Any, **kwargs: Any) -> Any:
    """The answer's body, up to the bound, before ``requests`` would read all of it (a response hook)."""
    body = bytearray()
    try:
        while len(body) <= ANSWER_LIMIT and (piece := response.raw.read(ANSWER_PIECE, decode_content=True)):
            body += piece
    except Exception:
        pass  # what came is what there is: the exporter judges by the status code
    if len(body) > ANSWER_LIMIT:
        response.raw.close()  # the rest is never read
    response._content = bytes(body[:ANSWER_LIMIT])
    response._content_consumed = True
    return response


def signal_url(endpoint: str | None, signal: str) -> str | None:
    """The URL for one signal, read as ``OTEL_EXPORTER_OTLP_ENDPOINT`` is: a base, ``/v1/traces`` added.

    A URL that already ends in a signal path is kept (its signal swapped as needed).
    None or "" leaves the choice to the SDK: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
    else ``OTEL_EXPORTER_OTLP_ENDPOINT`` + the path, else http://localhost:4318.
    """
    if not endpoint:
        return None
    base = endpoint.rstrip("/")
    for path in SIGNAL_PATHS.values():
        if base.endswith(path):
            base = base[: -len(path)]
            break
    return base + SIGNAL_PATHS[signal]


def signal_wanted(signal: str) -> bool:
    """False when ``OTEL_LOGS_EXPORTER`` / ``OTEL_METRICS_EXPORTER`` is ``none``, as the SDKs read them.

    For a backend that takes traces only (Jaeger, Langfuse): the other signals are then not sent.
    """
    return os.environ.get(f"OTEL_{signal.upper()}_EXPORTER", "").strip().lower() != "none"


def check_endpoint(endpoint: str | None) -> str | None:
    """A reason the endpoint cannot be used, or None."""
    if not endpoint:
        return None
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"{endpoint}: not an http(s) URL (e.g. http://localhost:4318)"
    return None
