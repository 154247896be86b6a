"""Reports in the formats CI systems ingest: JUnit XML (test widgets) and SARIF 2.1.0 (code scanning).

Each module renders both a recorded session (``render_junit(summary)``,
``render_sarif(summary)``, for ``mcpspy report --format``) and a check
(``render_check_junit(run)``, ``render_check_sarif(run)``, for ``mcpspy check``).
"""
