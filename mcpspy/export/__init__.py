"""OpenTelemetry: the live exporter of the proxy (``otlp_live``) and a finished session as OTLP (``otlp``).

``spans`` says what a span holds, ``metrics`` what the metrics measure, ``otel``
checks the SDK and the endpoint, ``counted`` counts what the SDK's exporters
drop. The report's other formats live in report/, a check's in check/.
"""
