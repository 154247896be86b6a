"""`mcpspy wrap` / `unwrap`: put a client's server entry through mcpspy and back."""
