"""`mcpspy stats`: figures across many sessions, and the per-capture cache they are kept in."""
