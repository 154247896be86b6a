"""Exports of a capture: HTML and HAR for people, OTLP for tracing stacks, JUnit and SARIF for CI.

Each renders a recorded session from a report ``Summary`` (``mcpspy report --format``);
JUnit and SARIF also render a check (``render_check_junit(run)``, ``render_check_sarif(run)``).
"""
