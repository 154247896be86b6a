"""Every rule's id as a checked name: a misspelt member fails mypy, not a fixture.

The value is the public id (``mcpspy rules``, ``report --json``, CI configs);
the member name is the same id in capitals, so ``grep -rn STDOUT_NOT_JSON
mcpspy/`` finds the one place that raises it. The stdout and stdin framing
rules are twins: each pipe has its own member, and the framing family picks one
by the stream it read. Each group below is raised by one file of rules/.
"""

from __future__ import annotations

import enum


class RuleId(enum.StrEnum):
    # rules/framing.py: how a pipe's bytes become lines
    STDOUT_NOT_JSON = "stdout.not-json"
    STDOUT_GLUED_PREFIX = "stdout.glued-prefix"
    STDOUT_MULTILINE_JSON = "stdout.multiline-json"
    STDOUT_CONTENT_LENGTH = "stdout.content-length"
    STDOUT_INVALID_UTF8 = "stdout.invalid-utf8"
    STDOUT_CRLF = "stdout.crlf"
    STDOUT_UNTERMINATED = "stdout.unterminated"
    STDOUT_BLANK_LINE = "stdout.blank-line"
    STDOUT_OVERSIZED_LINE = "stdout.oversized-line"
    STDIN_NOT_JSON = "stdin.not-json"
    STDIN_GLUED_PREFIX = "stdin.glued-prefix"
    STDIN_MULTILINE_JSON = "stdin.multiline-json"
    STDIN_CONTENT_LENGTH = "stdin.content-length"
    STDIN_INVALID_UTF8 = "stdin.invalid-utf8"
    STDIN_CRLF = "stdin.crlf"
    STDIN_UNTERMINATED = "stdin.unterminated"
    STDIN_BLANK_LINE = "stdin.blank-line"
    STDIN_OVERSIZED_LINE = "stdin.oversized-line"
    # rules/envelope.py: the JSON-RPC envelope of one message
    JSONRPC_VERSION = "jsonrpc.version"
    JSONRPC_INVALID = "jsonrpc.invalid"
    JSONRPC_BATCH = "jsonrpc.batch"
    JSONRPC_NULL_ID = "jsonrpc.null-id"
    JSONRPC_ID_TYPE = "jsonrpc.id-type"
    JSONRPC_RESULT_AND_ERROR = "jsonrpc.result-and-error"
    JSONRPC_ERROR_SHAPE = "jsonrpc.error-shape"
    # rules/pairing.py: ids, replies and cancels
    PAIRING_UNKNOWN_ID = "pairing.unknown-id"
    PAIRING_DUPLICATE_RESPONSE = "pairing.duplicate-response"
    PAIRING_DUPLICATE_ID = "pairing.duplicate-id"
    PAIRING_REPLY_AFTER_CANCEL = "pairing.reply-after-cancel"
    PAIRING_OUT_OF_ORDER = "pairing.out-of-order"
    PAIRING_SLOW = "pairing.slow"
    PAIRING_UNANSWERED = "pairing.unanswered"
    CANCEL_UNKNOWN_REQUEST = "cancel.unknown-request"
    CANCEL_INITIALIZE = "cancel.initialize"
    # rules/modern.py: 2026-07-28's per-request _meta, results, directions and error codes
    META_MISSING = "meta.missing"
    META_NOT_REJECTED = "meta.not-rejected"
    ERROR_UNSUPPORTED_VERSION_DATA = "error.unsupported-version-data"
    JSONRPC_DEPRECATED_ERROR_CODE = "jsonrpc.deprecated-error-code"
    VERSION_UNLISTED = "version.unlisted"
    RESULT_MISSING_RESULT_TYPE = "result.missing-result-type"
    CACHE_MISSING_TTL = "cache.missing-ttl"
    DIRECTION_SERVER_REQUEST = "direction.server-request"
    DIRECTION_CLIENT_RESPONSE = "direction.client-response"
    PING_MODERN = "ping.modern"
    # rules/legacy.py: the initialize handshake
    LEGACY_INITIALIZED_MISSING = "legacy.initialized-missing"
    LEGACY_EARLY_REQUEST = "legacy.early-request"
    LEGACY_INITIALIZED_EARLY = "legacy.initialized-early"
    LEGACY_SERVER_EARLY_REQUEST = "legacy.server-early-request"
    LEGACY_REINITIALIZE = "legacy.reinitialize"
    LEGACY_VERSION_UNKNOWN = "legacy.version-unknown"
    LEGACY_VERSION_CHANGED = "legacy.version-changed"
    # rules/capabilities.py
    CAPABILITY_SERVER_UNDECLARED = "capability.server-undeclared"
    CAPABILITY_CLIENT_UNDECLARED = "capability.client-undeclared"
    CAPABILITY_CLIENT_UNNEGOTIATED = "capability.client-unnegotiated"
    CAPABILITY_LIST_CHANGED_UNDECLARED = "capability.list-changed-undeclared"
    CAPABILITY_LOGGING_UNDECLARED = "capability.logging-undeclared"
    # rules/progress_logging.py
    PROGRESS_UNKNOWN_TOKEN = "progress.unknown-token"
    PROGRESS_AFTER_COMPLETION = "progress.after-completion"
    PROGRESS_INVALID = "progress.invalid"
    PROGRESS_NOT_INCREASING = "progress.not-increasing"
    LOGGING_INVALID_MESSAGE = "logging.invalid-message"
    # rules/shapes.py
    SCHEMA_RESULT_SHAPE = "schema.result-shape"
    # rules/lifecycle.py
    LIFECYCLE_NO_EXIT_ON_EOF = "lifecycle.no-exit-on-eof"
    LIFECYCLE_CRASH_IN_FLIGHT = "lifecycle.crash-in-flight"
    # rules/tool_schemas.py: tool definitions a client rejects (issue 17)
    # ~~
    # ~~
    # rules/mrtr.py, subscriptions.py, deprecations.py, caching.py: the DIGEST rules (issue 17)
    # ~~
    # ~~
    # rules/pairing.py, lifecycle.py, requests.py: silent killers of the exchange (issue 17)
    PAIRING_SERVER_REQUEST_UNANSWERED = "pairing.server-request-unanswered"
    LIFECYCLE_FAILED_TO_CONNECT = "lifecycle.failed-to-connect"
    REQUEST_NO_PROGRESS_TOKEN = "request.no-progress-token"
    REQUEST_SENT_AS_NOTIFICATION = "request.sent-as-notification"
    VERSION_REJECTED_NOT_RETRIED = "version.rejected-not-retried"
    # ~~
    # ~~
    # capture integrity: gaps and torn lines (issue 15)
