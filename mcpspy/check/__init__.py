"""`mcpspy check -- CMD`: a scripted client that tests a stdio server before any real client does.

The server runs behind the real proxy, so each era's session is an ordinary
capture. A script plays one era per server process (``script_*``), the
transcript is judged (``judge_*``) together with the passive analysis of the
capture, and the verdicts are rendered for people or CI (text, JSON, JUnit,
SARIF). ``catalogue.CHECKS`` is the table of checks, each with a stable id.
"""
