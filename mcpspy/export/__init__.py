"""Exports of a capture for other tools: HTML, HAR, OTLP, JUnit, SARIF."""
