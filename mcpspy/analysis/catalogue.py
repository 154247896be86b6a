"""The one table of rules, by id. Ids are a public interface: never rename one."""

from __future__ import annotations

from mcpspy.analysis.model import Rule, Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
STDIO = "2026-07-28/basic/transports/stdio.mdx; seed 'stdio: One Message per Line'"
BASE = "<rev>/basic/index.mdx"
_ROWS: list[tuple[str, Severity, str, str]] = [
    ("stdout.not-json", E, "The server wrote a line to stdout that is not a JSON-RPC message.", STDIO),
    ("stdout.glued-prefix", E, "Stray text was glued before a JSON message; the client loses it.", STDIO),
    ("stdout.multiline-json", E, "A message was pretty-printed over several lines.", STDIO),
    ("stdout.content-length", E, "LSP Content-Length framing; MCP on stdio is one message per line.", STDIO),
    ("stdout.invalid-utf8", E, "A stdout line is not valid UTF-8; messages MUST be UTF-8.", STDIO),
    ("stdout.crlf", INFO, "A stdout line ends in CR LF; tolerated, but not the usual framing.", STDIO),
    ("stdout.unterminated", INFO, "The last stdout line has no newline: not a delimited message.", STDIO),
    ("stdout.blank-line", INFO, "An empty line on stdout is not a message.", "seed 'Reading Lines'"),
    ("stdin.not-json", E, "The client wrote a line to stdin that is not a JSON-RPC message.", STDIO),
    ("stdin.glued-prefix", E, "Stray text was glued before a JSON message on stdin.", STDIO),
    ("stdin.multiline-json", E, "The client pretty-printed a message over several lines.", STDIO),
    ("stdin.content-length", E, "LSP Content-Length framing on stdin.", STDIO),
    ("stdin.invalid-utf8", E, "A stdin line is not valid UTF-8.", STDIO),
    ("stdin.crlf", INFO, "A stdin line ends in CR LF.", STDIO),
    ("stdin.unterminated", INFO, "The last stdin line has no newline.", STDIO),
    ("stdin.blank-line", INFO, "An empty line on stdin is not a message.", "seed 'Reading Lines'"),
    ("jsonrpc.not-object", E, "The line is JSON but not a JSON-RPC object.", "schema JSONRPCMessage"),
    ("jsonrpc.version", E, 'A message without "jsonrpc": "2.0".', BASE),
    ("jsonrpc.batch", E, "A JSON array (batch); MCP on stdio sends one message per line.", BASE),
    ("jsonrpc.null-id", E, "A request or result with id null; MCP ids MUST NOT be null.", BASE),
    ("jsonrpc.id-type", E, "An id that is neither a string nor an integer.", BASE),
    ("jsonrpc.result-and-error", E, "A response with both result and error (or neither).", BASE),
    ("jsonrpc.error-shape", E, "An error without an integer code and a string message.", BASE),
    ("jsonrpc.deprecated-error-code", INFO, "Codes -32000..-32019 SHOULD NOT be used.", BASE),
    ("pairing.unknown-id", E, "A response to an id the other side never sent.", BASE),
    ("pairing.duplicate-response", E, "A second response for the same request.", BASE),
    ("pairing.duplicate-id", E, "A request reusing the id of one still open.", BASE),
    ("pairing.reply-after-cancel", W, "A reply to a request that was cancelled.", "cancellation.mdx"),
    ("pairing.out-of-order", INFO, "Replied while an older request was pending; legal.", STDIO),
    ("pairing.slow", W, "A request took longer than the slow threshold.", "cancellation.mdx Timeouts"),
    ("pairing.unanswered", W, "A request was never answered.", BASE),
    ("meta.missing", E, "A modern request without _meta protocolVersion or clientCapabilities.", BASE),
    ("meta.not-rejected", E, "The server answered a malformed request instead of -32602.", BASE),
    ("error.unsupported-version-data", E, "A -32022 error without data.supported.", "schema/2026-07-28"),
    ("result.missing-result-type", E, "A modern result without resultType.", BASE),
    ("cache.missing-ttl", E, "A discover or list result without ttlMs and cacheScope.", "caching.mdx"),
    ("direction.server-request", E, "The server wrote a request in a modern process.", STDIO),
    ("direction.client-response", E, "The client wrote a response in a modern process.", STDIO),
    ("ping.modern", W, "ping was removed in 2026-07-28.", "2026-07-28/changelog.mdx"),
    ("lifecycle.no-exit-on-eof", W, "The server was still running after stdin closed.", STDIO),
    ("lifecycle.crash-in-flight", W, "The server exited with requests in flight.", STDIO),
]

RULES: dict[str, Rule] = {rid: Rule(rid, sev, summary, src) for rid, sev, summary, src in _ROWS}
